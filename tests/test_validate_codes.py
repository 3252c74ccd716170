"""Codebooks checked on load; codes checked against them, all or none, nothing stored lost; export."""
from __future__ import annotations

import csv
import json

import pandas as pd
import pytest

from corpuskit.errors import ValidationError
from corpuskit.validate import CodebookError, CodeError, load_codebook, write_coding_sheet
from tests.validate_fixture import CODEBOOK, labelled_corpus, write_sheet

YAML = """
name: tone
variables:
  sentiment:
    values: [negative, neutral, positive]
    level: ordinal
  relevant:
    values: [yes, no]
  score:
    values: [1, 2, 3.5]
    level: interval
"""


@pytest.fixture
def lab():
    c = labelled_corpus(120)
    c.sample(10, seed=0, name="S", codebook=CODEBOOK)
    yield c
    c.close()


def test_yaml_and_json_codebooks(tmp_path):
    (tmp_path / "cb.yaml").write_text(YAML)
    book = load_codebook(tmp_path / "cb.yaml")
    assert list(book.variables) == ["sentiment", "relevant", "score"]
    assert book.variables["relevant"].values == ("yes", "no")      # YAML's booleans read back as yes/no
    assert book.variables["score"].numeric("3.5") == 3.5
    assert book.variables["sentiment"].numeric("positive") == 2.0
    (tmp_path / "cb.json").write_text(json.dumps(CODEBOOK))
    assert load_codebook(tmp_path / "cb.json").to_dict() == load_codebook(load_codebook(CODEBOOK).to_dict()).to_dict()


@pytest.mark.parametrize("bad, message", [
    ({"variables": {}}, "declares no variables"),
    ({"vars": {}}, "'variables' key"),
    ({"variables": {"x": {"values": ["a"]}}}, "at least two"),
    ({"variables": {"x": {"values": ["a", "a"]}}}, "twice"),
    ({"variables": {"x": {"values": ["a", "b"], "level": "fuzzy"}}}, "level 'fuzzy'"),
    ({"variables": {"x": {"values": ["a", "b"], "level": "interval"}}}, "not a number"),
    ({"variables": {"9x": ["a", "b"]}}, "letters, digits"),
    ({"variables": {"x": {"values": ["a", "b"], "colour": 1}}}, "unknown key"),
    ({"variables": [{"values": ["a", "b"]}]}, "needs a 'name'"),
])
def test_bad_codebooks_get_clear_errors(bad, message):
    with pytest.raises(CodebookError, match=message):
        load_codebook(bad)


def test_bad_codebook_files(tmp_path):
    with pytest.raises(CodebookError, match="does not exist"):
        load_codebook(tmp_path / "none.yaml")
    (tmp_path / "cb.txt").write_text("x")
    with pytest.raises(CodebookError, match="use a .yaml"):
        load_codebook(tmp_path / "cb.txt")
    (tmp_path / "cb.yaml").write_text("variables: [unclosed")
    with pytest.raises(CodebookError, match="not valid YAML"):
        load_codebook(tmp_path / "cb.yaml")


def test_codes_are_stored_and_read_back(lab):
    ids = lab.sample(10, seed=0).ids()
    assert lab.add_codes("S", "alice", {ids[0]: {"sentiment": "positive", "relevant": "yes"}}) == 2
    frame = lab.codes("S")
    assert list(frame.columns) == ["sample", "recordId", "coder", "variable", "value", "note", "codedAt"]
    assert sorted(frame["value"]) == ["positive", "yes"]


def test_bad_codes_name_the_row_and_lose_nothing(lab):
    ids = lab.sample(10, seed=0).ids()
    outside = next(i for i in range(1, 121) if i not in ids)
    lab.add_codes("S", "alice", {ids[0]: {"sentiment": "neutral"}})
    bad = [(ids[1], "sentiment", "ecstatic"),          # a value outside the codebook
           (99999, "sentiment", "neutral"),            # an unknown record
           (outside, "sentiment", "neutral"),          # a record not in the sample
           (ids[2], "stance", "pro"),                  # an unknown variable
           (ids[0], "sentiment", "positive"),          # alice coded it already
           (ids[3], "relevant", "yes"), (ids[3], "relevant", "no"),   # twice in one call
           (ids[4], "relevant", "yes")]                # a good one: not stored either
    with pytest.raises(CodeError) as caught:
        lab.add_codes("S", "alice", bad)
    reasons = dict(caught.value.failures)
    assert "not in the codebook" in reasons[1] and "ecstatic" in reasons[1]
    assert "not in the corpus" in reasons[2]
    assert "not in sample 'S'" in reasons[3]
    assert "unknown variable 'stance'" in reasons[4]
    assert "already coded" in reasons[5]
    assert "twice" in reasons[7]
    assert 8 not in reasons and len(reasons) == 6
    frame = lab.codes("S")
    assert frame[["recordId", "variable", "value"]].values.tolist() == [[ids[0], "sentiment", "neutral"]]
    assert lab.add_codes("S", "alice", {ids[0]: {"sentiment": "positive"}}, replace=True) == 1
    assert lab.codes("S")["value"].tolist() == ["positive"]


def test_sheet_import_is_one_transaction(lab, tmp_path):
    sheet = tmp_path / "sheet.csv"
    write_coding_sheet(lab, "S", sheet)
    rows = list(csv.DictReader(open(sheet, encoding="utf-8")))
    for i, row in enumerate(rows):
        row["sentiment"] = ["negative", "neutral", "positive"][i % 3]
        row["relevant"] = "yes" if i < 5 else ""
    rows[0]["note"] = "sarcastic?"
    filled = tmp_path / "alice.csv"
    write_sheet(filled, rows)
    assert lab.import_codes(filled, "S", "alice") == 15
    assert lab.codes("S").query("note == 'sarcastic?'").shape[0] == 2
    rows[3]["sentiment"] = "furious"
    rows[6]["recordId"] = "abc"
    write_sheet(filled, rows)
    with pytest.raises(CodeError, match=r"line 5: record \d+: value 'furious'.*line 8: record id 'abc'"):
        lab.import_codes(filled, "S", "bob")
    assert set(lab.codes("S")["coder"]) == {"alice"}
    with pytest.raises(CodeError, match="already coded"):
        lab.import_codes(filled, "S", "alice")


def test_sheet_with_foreign_columns(lab, tmp_path):
    sheet = tmp_path / "x.csv"
    sheet.write_text("recordId,text,stance\n1,hello,pro\n")
    with pytest.raises(ValidationError, match="stance are not codebook variables"):
        lab.import_codes(sheet, "S", "alice")
    with pytest.raises(ValidationError, match="does not exist"):
        lab.import_codes(tmp_path / "none.csv", "S", "alice")
    lab.sample(3, name="bare")
    with pytest.raises(ValidationError, match="has no codebook"):
        lab.add_codes("bare", "alice", {1: {"sentiment": "neutral"}})
    with pytest.raises(ValidationError, match="coder must be"):
        lab.add_codes("S", " ", {1: {"sentiment": "neutral"}})


def test_codebook_change_cannot_orphan_codes(lab):
    ids = lab.sample(10, seed=0).ids()
    lab.add_codes("S", "alice", {ids[0]: {"relevant": "yes"}})
    with pytest.raises(ValidationError, match="does not allow"):
        lab.codebook("S", {"variables": {"relevant": ["y", "n"]}})
    assert lab.codebook("S").variables["relevant"].values == ("yes", "no")


def test_codes_and_gold_export_like_other_tables(lab, tmp_path):
    ids = lab.sample(10, seed=0).ids()
    lab.add_codes("S", "alice", {i: {"sentiment": "neutral"} for i in ids[:4]})
    lab.add_codes("S", "bob", {i: {"sentiment": "neutral"} for i in ids[:4]})
    lab.adjudicate("S")
    for fmt in ("csv", "jsonl", "parquet"):
        assert lab.export(tmp_path / f"codes.{fmt}", table="codes") == 8
        assert lab.export(tmp_path / f"gold.{fmt}", table="gold") == 4
    assert list(pd.read_parquet(tmp_path / "codes.parquet").columns) == list(lab.codes().columns)
    first = json.loads((tmp_path / "gold.jsonl").read_text().splitlines()[0])
    assert first["method"] == "unanimous" and first["codes"] == {"alice": "neutral", "bob": "neutral"}
