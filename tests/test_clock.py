"""Timestamp parsing and the corpus clock."""
from datetime import datetime, timezone

import pytest

from corpuskit import open_corpus
from corpuskit.clock import parse_timestamp, to_iso
from corpuskit.errors import ValidationError


@pytest.mark.parametrize("value, expected", [
    ("1546302005", "2019-01-01T00:20:05Z"),
    (1546302005, "2019-01-01T00:20:05Z"),
    (1546302005000, "2019-01-01T00:20:05Z"),
    ("2019-01-01T00:20:05Z", "2019-01-01T00:20:05Z"),
    ("2019-01-01T02:20:05+02:00", "2019-01-01T00:20:05Z"),
    ("2019-01-01T00:20:05", "2019-01-01T00:20:05Z"),
    ("2019-01-01 00:20:05", "2019-01-01T00:20:05Z"),
    ("2019-01-01", "2019-01-01T00:00:00Z"),
    ("8/4/2016 11:52", "2016-08-04T11:52:00Z"),
    ("12/31/2015 0:05", "2015-12-31T00:05:00Z"),
    ("Mon, 02 Nov 2026 10:00:00 GMT", "2026-11-02T10:00:00Z"),
])
def test_accepted_forms(value, expected):
    assert to_iso(value) == expected


@pytest.mark.parametrize("value", ["", "yesterday", "13/45/2016 11:52", "2019-02-30", None, "1e400"])
def test_rejected_forms(value):
    with pytest.raises(ValidationError):
        parse_timestamp(value)


def _add(c, when, text):
    c.add_records([{"source": "reddit", "sourceId": text, "title": text, "publishedAt": when}])


def test_frozen_clock_is_newest_record(corpus):
    _add(corpus, "2020-01-01T00:00:00Z", "a")
    _add(corpus, "2020-03-05T12:00:00Z", "b")
    assert corpus.clock_mode == "frozen"
    assert corpus.now() == datetime(2020, 3, 5, 12, tzinfo=timezone.utc)


def test_fixed_clock_wins(tmp_path):
    c = open_corpus(tmp_path / "c.db", now="2021-06-01T00:00:00Z")
    _add(c, "2020-03-05T12:00:00Z", "b")
    assert c.clock_mode == "fixed"
    assert c.now() == datetime(2021, 6, 1, tzinfo=timezone.utc)


def test_live_clock_is_wall_clock(corpus):
    _add(corpus, "2020-03-05T12:00:00Z", "b")
    corpus.set_clock_mode("live")
    assert corpus.now().year >= 2025
    with pytest.raises(ValidationError):
        corpus.set_clock_mode("sometimes")


def test_empty_corpus_clock_is_wall_clock(corpus):
    assert corpus.now().year >= 2025
