"""``corpuskit sample`` writes a coding sheet; ``corpuskit codes import`` stores a coder's sheet, all or none."""
from __future__ import annotations

import csv

from corpuskit import open_corpus
from corpuskit.cli import main
from tests.validate_fixture import labelled_corpus, write_sheet

CODEBOOK_YAML = """variables:
  sentiment:
    values: [negative, neutral, positive]
    level: ordinal
  relevant: [yes, no]
"""


def test_sample_and_codes_import(tmp_path, capsys):
    db = tmp_path / "c.db"
    labelled_corpus(90, path=db).close()
    (tmp_path / "cb.yaml").write_text(CODEBOOK_YAML)
    sheet = tmp_path / "coding.csv"
    assert main(["sample", "--db", str(db), "--name", "S", "--n", "12", "--by", "source", "--seed", "1",
                 "--out", str(sheet), "--codebook", str(tmp_path / "cb.yaml")]) == 0
    out = capsys.readouterr().out
    assert "drew sample 'S': 12 of 90 records (seed 1, 3 strata by source)" in out
    rows = list(csv.DictReader(open(sheet, encoding="utf-8")))
    assert len(rows) == 12 and list(rows[0]) == ["recordId", "text", "sentiment", "relevant", "note"]
    for row in rows:
        row["sentiment"], row["relevant"] = "neutral", "yes"
    rows[2]["sentiment"] = "glad"
    filled = tmp_path / "coding_alice.csv"
    write_sheet(filled, rows)
    assert main(["codes", "import", str(filled), "--db", str(db), "--sample", "S", "--coder", "alice"]) == 2
    err = capsys.readouterr().err
    assert "line 4:" in err and "'glad'" in err and "nothing of" in err
    assert open_corpus(db).codes("S").empty
    rows[2]["sentiment"] = "positive"
    write_sheet(filled, rows)
    assert main(["codes", "import", str(filled), "--db", str(db), "--sample", "S", "--coder", "alice"]) == 0
    assert "stored 24 codes of alice in sample 'S'" in capsys.readouterr().out
    assert main(["export", str(tmp_path / "codes.csv"), "--db", str(db), "--table", "codes"]) == 0
    assert len(list(csv.DictReader(open(tmp_path / "codes.csv", encoding="utf-8")))) == 24


def test_sample_errors(tmp_path, capsys):
    db = tmp_path / "c.db"
    labelled_corpus(10, path=db).close()
    assert main(["sample", "--db", str(db), "--name", "S", "--n", "11"]) == 2
    assert "only 10 match" in capsys.readouterr().err
    assert main(["codes", "import", "x.csv", "--db", str(db), "--sample", "nope", "--coder", "a"]) == 2
    assert "does not exist" in capsys.readouterr().err
