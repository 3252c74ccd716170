"""The import's fast paths give the answers of the general ones.

Stored-form timestamps are checked rather than parsed, repeats within a file
are found by a window over the staged rows, and a JSON line shorter than the
field limit skips the per-field length check: each is compared here with what
the general path (or the documented rule) gives.
"""
import json
import random

import pytest

from corpuskit import clock, open_corpus
from corpuskit.errors import ValidationError


def _parsed(value):
    try:
        return clock.iso(clock.parse_timestamp(value))
    except ValidationError as exc:
        return ("error", str(exc))


def _fast(value):
    try:
        return clock.to_iso(value)
    except ValidationError as exc:
        return ("error", str(exc))


@pytest.mark.parametrize("value", [
    "2025-11-01T00:10:32Z", "2024-02-29T23:59:59Z", "2025-02-29T00:00:00Z", "2024-04-31T00:00:00Z",
    "2024-13-01T00:00:00Z", "2024-00-10T00:00:00Z", "2024-01-00T00:00:00Z", "2024-01-01T24:00:00Z",
    "2024-01-01T23:60:00Z", "2024-01-01T23:59:60Z", "0000-01-01T00:00:00Z", "0001-01-01T00:00:00Z",
    "0999-12-31T10:00:00Z", "9999-12-31T23:59:59Z", "2024-01-01T00:00:00z", " 2024-01-01T00:00:00Z",
    "\u0661\u0662\u0663\u0664-01-01T00:00:00Z", "2024-01-01T00:00:00.5Z", "1730419832",
])
def test_stored_form_timestamps_give_the_parsed_answer(value):
    assert _fast(value) == _parsed(value)


def test_random_stored_form_timestamps_give_the_parsed_answer():
    rng = random.Random(11)
    for _ in range(20_000):
        value = (f"{rng.randint(0, 9999):04d}-{rng.randint(0, 13):02d}-{rng.randint(0, 32):02d}T"
                 f"{rng.randint(0, 25):02d}:{rng.randint(0, 61):02d}:{rng.randint(0, 61):02d}Z")
        assert _fast(value) == _parsed(value), value


def _jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _row(sid, text, day="2025-01-01"):
    row = {"source": "reddit", "contentText": text, "publishedAt": f"{day}T10:00:00Z", "author": "a"}
    if sid is not None:
        row["sourceId"] = sid
    return row


def test_repeats_within_a_file_follow_the_rules(tmp_path):
    # under --dedupe content every row has the content rule and sourceIds still apply:
    # row 2 repeats row 1's id; row 3 repeats row 2's content, and row 2 counts as an
    # earlier row even though it is itself a duplicate
    path = _jsonl(tmp_path / "rows.jsonl", [
        _row("A", "first"), _row("A", "second"), _row("B", "second"), _row("C", "third"),
        _row(None, "third"), _row(None, "fourth"), _row(None, "fourth"),
    ])
    corpus = open_corpus(tmp_path / "c.db")
    report = corpus.import_file(path, dedupe="content")
    assert (report.added, report.duplicates_by) == (3, {"id": 1, "content": 3})
    stored = [r[0] for r in corpus.conn.execute("SELECT content_text FROM records ORDER BY id")]
    assert stored == ["first", "third", "fourth"]

    corpus = open_corpus(tmp_path / "auto.db")   # auto: the content rule only for rows without an id
    report = corpus.import_file(path)
    assert (report.added, report.duplicates_by) == (4, {"id": 1, "content": 2})
    corpus = open_corpus(tmp_path / "none.db")
    report = corpus.import_file(path, dedupe="none")
    assert (report.added, report.duplicates_by) == (6, {"id": 1, "content": 0})


def test_a_file_of_ids_only_and_a_file_without_repeats(tmp_path):
    corpus = open_corpus(tmp_path / "c.db")
    report = corpus.import_file(_jsonl(tmp_path / "a.jsonl", [_row(str(i), f"t{i}") for i in range(5)]))
    assert (report.added, report.duplicates) == (5, 0)
    report = corpus.import_file(_jsonl(tmp_path / "b.jsonl", [_row(str(i), f"t{i}") for i in range(3, 8)]))
    assert (report.added, report.duplicates_by) == (3, {"id": 2, "content": 0})


def test_field_limit_on_long_lines_and_long_fields(tmp_path):
    long_line = _row("1", "short text")
    long_line["metadata"] = {"notes": "x" * 80}      # the line is long, no top-level text field is
    long_field = _row("2", "y" * 81)
    path = _jsonl(tmp_path / "rows.jsonl", [long_line, long_field, _row("3", "ok")])
    corpus = open_corpus(tmp_path / "c.db")
    report = corpus.import_file(path, max_field_chars=80)
    assert report.added == 2
    assert report.rejections == [(2, "field 'contentText' has 81 characters, more than the 80 allowed "
                                      "(max_field_chars)")]
