"""Export, and export -> import round trips of every field."""
import json

import pandas as pd
import pytest

from corpuskit import ValidationError, open_corpus
from corpuskit.errors import ImportFormatError
from corpuskit.ingest.export import TABLES, iter_records
from corpuskit.ingest.export_columns import columns

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
    df = corpus.records().drop(columns=["id", "sentimentScore", "sentimentLabel", "entities"])
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


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "parquet"])
def test_enriched_export_carries_enrichment_and_round_trips_exactly(demo_corpus, tmp_path, fmt):
    out = tmp_path / f"demo.{fmt}"
    assert demo_corpus.export(out) == demo_corpus.count()
    if fmt == "jsonl":
        rows = pd.DataFrame([json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()])
    elif fmt == "csv":
        rows = pd.read_csv(out, keep_default_na=False)
        rows["entities"] = rows["entities"].map(lambda v: json.loads(v) if v else None)
        rows["recordId"] = rows["recordId"].astype(int)
    else:
        rows = pd.read_parquet(out)
        rows["entities"] = rows["entities"].map(lambda v: None if v is None else list(v))
    records = demo_corpus.records()
    assert list(rows["recordId"]) == list(records["id"])
    assert list(rows["sentimentScore"].astype(float)) == list(records["sentimentScore"])
    assert list(rows["sentimentLabel"]) == list(records["sentimentLabel"])
    assert list(rows["primaryTopic"].replace("", None)) == list(records["topic"])
    assert list(rows["entities"]) == list(records["entities"])
    copy = open_corpus(tmp_path / f"copy-{fmt}.db")
    report = copy.import_file(out)
    assert report.layout == "corpuskit" and report.added == demo_corpus.count()
    # every record field, metadata included, comes back exactly; no derived column leaks into metadata
    assert list(iter_records(copy)) == list(iter_records(demo_corpus))


# the demo has no hand codes: codes and gold are exported in tests/test_validate_codes.py; nor a coordinated
# group, a reply, repost or quote, a record with two hashtags or a URL two accounts shared: those tables are
# exported in tests/test_coordination.py (the planted campaign's bundle)
EMPTY_ON_THE_DEMO = ("codes", "gold", "coordination", "network_reply", "network_repost", "network_quote",
                     "network_cohashtag", "network_shared_url")


@pytest.mark.parametrize("table", [t for t in TABLES if t != "records" and t not in EMPTY_ON_THE_DEMO])
def test_export_each_table(demo_merged, tmp_path, table):
    names = [c.name for c in columns(table, frozenset())]
    counts = []
    for fmt in ("jsonl", "csv", "parquet"):
        out = tmp_path / f"{table}.{fmt}"
        counts.append(demo_merged.export(out, table=table))
        if fmt == "jsonl":
            back = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
            assert list(back[0]) == names
        else:
            back = pd.read_csv(out) if fmt == "csv" else pd.read_parquet(out)
            assert list(back.columns) == names
        assert len(back) == counts[-1]
    assert counts[0] > 0 and len(set(counts)) == 1


def test_export_bad_table(corpus, tmp_path):
    with pytest.raises(ValidationError, match="table must be one of records, topics"):
        corpus.export(tmp_path / "x.csv", table="runs")
