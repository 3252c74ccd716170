"""Bad input: each bad row reported with its line and reason and kept out; --strict writes nothing."""
import pytest

from corpuskit import open_corpus
from corpuskit.cli import main
from corpuskit.errors import ImportFormatError, StrictImportError
from corpuskit.ingest import staging
from corpuskit.ingest.importers import STRICT_ERRORS

GOOD = '{"id": "%d", "text": "post %d", "date": "2024-01-0%dT10:00:00Z", "author": "a"}'


def write_mixed(path):
    lines = [GOOD % (1, 1, 1),
             '{"id": "2", "text": "broken", ',                                          # line 2
             GOOD % (3, 3, 3),
             '{"id": "4", "text": "", "date": "2024-01-04"}',                           # line 4
             '{"id": "5", "text": "when?", "date": "the fifth of May"}',                # line 5
             '["not", "an", "object"]',                                                 # line 6
             '{"id": "7", "text": "liked", "date": "2024-01-07", "likes": "lots"}',     # line 7
             '',
             GOOD % (9, 9, 9)]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_bad_rows_are_reported_and_kept_out(tmp_path):
    c = open_corpus(":memory:")
    report = c.import_file(write_mixed(tmp_path / "mixed.jsonl"), source="forum")
    assert (report.read, report.added, report.rejected) == (8, 3, 5)
    reasons = dict(report.rejections)
    assert sorted(reasons) == [2, 4, 5, 6, 7]
    assert reasons[2] == "malformed JSON line"
    assert "no text" in reasons[4]
    assert "unparseable date 'the fifth of May'" in reasons[5]
    assert "not a JSON object" in reasons[6]
    assert "likes: not a whole number" in reasons[7]
    assert sorted(c.records()["sourceId"]) == ["1", "3", "9"]


def test_strict_writes_nothing_and_lists_the_first_bad_rows(tmp_path):
    c = open_corpus(":memory:")
    c.add_records([{"sourceId": "old", "contentText": "kept", "publishedAt": "2023-01-01"}],
                  source="forum")
    with pytest.raises(StrictImportError) as info:
        c.import_file(write_mixed(tmp_path / "mixed.jsonl"), source="forum", strict=True)
    message = str(info.value)
    assert "nothing written" in message
    for line in (2, 4, 5, 6, 7):
        assert f"row {line}:" in message
    assert [n for n, _ in info.value.rejections] == [2, 4, 5, 6, 7]
    assert c.records()["sourceId"].tolist() == ["old"]
    assert c.conn.execute("SELECT count(*) FROM runs WHERE stage = 'import'").fetchone()[0] == 1


def test_strict_stops_after_the_first_errors(tmp_path):
    path = tmp_path / "bad.csv"
    rows = "\n".join(f"{i},,2024-01-01" for i in range(1, 101))
    path.write_text("id,text,date\n" + rows + "\n")
    c = open_corpus(":memory:")
    with pytest.raises(StrictImportError) as info:
        c.import_file(path, source="forum", strict=True)
    assert len(info.value.rejections) == STRICT_ERRORS
    assert info.value.rejections[0][0] == 1 and c.count() == 0


def test_a_failure_while_storing_leaves_the_corpus_as_it_was(tmp_path, monkeypatch):
    c = open_corpus(tmp_path / "c.db")
    c.add_records([{"sourceId": "old", "contentText": "kept", "publishedAt": "2023-01-01"}],
                  source="forum")
    before = c.conn.execute("SELECT count(*) FROM runs").fetchone()[0]
    original = staging.Stage.store

    def store_then_fail(self, run_id):
        original(self, run_id)   # the rows are in records, inside the transaction
        raise OSError("disk full")

    monkeypatch.setattr(staging.Stage, "store", store_then_fail)
    path = tmp_path / "ok.jsonl"
    path.write_text("\n".join(GOOD % (i, i, i) for i in range(1, 4)) + "\n")
    with pytest.raises(OSError, match="disk full"):
        c.import_file(path, source="forum")
    assert c.records()["sourceId"].tolist() == ["old"]
    # the run row was written in the same transaction: rolled back with the records
    assert c.conn.execute("SELECT count(*) FROM runs").fetchone()[0] == before


def test_a_file_level_error_after_many_rows_writes_nothing(tmp_path):
    path = tmp_path / "dates.csv"
    rows = [f"{i},post {i},01/02/2020" for i in range(1, 3000)] + ["3000,late,13/02/2020",
                                                                   "3001,later,02/13/2020"]
    path.write_text("id,text,date\n" + "\n".join(rows) + "\n")
    c = open_corpus(":memory:")
    with pytest.raises(ImportFormatError, match="row 3000 has '13/02/2020'.*row 3001 has '02/13/2020'"):
        c.import_file(path, source="forum")
    assert c.count() == 0


def test_cli_strict_exit_status_and_message(tmp_path, capsys):
    path = write_mixed(tmp_path / "mixed.jsonl")
    db = str(tmp_path / "c.db")
    assert main(["import", str(path), "--db", db, "--source", "forum", "--strict", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "strict import aborted, nothing written" in err and "row 2: malformed JSON line" in err
    assert open_corpus(db).count() == 0
    assert main(["import", str(path), "--db", db, "--source", "forum", "--quiet"]) == 0
    captured = capsys.readouterr()
    assert "rejected row 5: unparseable date" in captured.err and "added 3" in captured.out
