"""Export, and export -> import round trips of every field."""
import pytest

from corpuskit import open_corpus
from corpuskit.errors import ImportFormatError

RECORDS = [
    {"source": "reddit", "sourceId": "r1", "title": "Title one", "contentText": "Body, with \"quotes\"\nand lines",
     "url": "https://reddit.com/r1", "author": "ann", "publishedAt": "2024-01-02T03:04:05Z",
     "capturedAt": "2024-01-02T04:00:00Z", "subreddit": "science", "language": "en",
     "metadata": {"score": 12, "flair": "ünïcode ✓"}},
    {"source": "arxiv", "sourceId": "2401.00001", "title": "A paper", "contentText": "Abstract text.",
     "url": "https://arxiv.org/abs/2401.00001", "author": "B. Author", "publishedAt": "2024-01-03T00:00:00Z",
     "contentType": "paper", "language": "en", "topic": "ml", "metadata": {}},
    {"source": "news", "title": "", "contentText": "No id, deduped by hash", "publishedAt": "2024-01-04T00:00:00Z",
     "metadata": {"nested": {"a": [1, 2]}}},
]


def fields(corpus):
    df = corpus.records().drop(columns=["id", "sentimentScore", "sentimentLabel"])
    return df.to_dict(orient="records")


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "parquet"])
def test_round_trip_every_field(tmp_path, fmt):
    a = open_corpus(tmp_path / "a.db")
    a.add_records(RECORDS)
    out = tmp_path / f"out.{fmt}"
    assert a.export(out) == 3
    b = open_corpus(tmp_path / f"b-{fmt}.db")
    report = b.import_file(out)
    assert report.layout == "corpuskit" and report.added == 3
    assert fields(a) == fields(b)
    assert b.import_file(out).added == 0


def test_export_is_byte_stable(tmp_path):
    a = open_corpus(tmp_path / "a.db")
    a.add_records(RECORDS)
    a.export(tmp_path / "1.jsonl")
    a.export(tmp_path / "2.jsonl")
    assert (tmp_path / "1.jsonl").read_bytes() == (tmp_path / "2.jsonl").read_bytes()


def test_export_errors(tmp_path, corpus):
    with pytest.raises(ImportFormatError, match="unknown export format 'xml'"):
        corpus.export(tmp_path / "x.xml")
    with pytest.raises(ImportFormatError, match="does not exist"):
        corpus.export(tmp_path / "missing" / "x.jsonl")
