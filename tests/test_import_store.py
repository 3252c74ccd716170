"""The import's store step: every new record indexed as its own text, and a failure there changes nothing."""
import hashlib

import pytest

from corpuskit import open_corpus
from corpuskit.store import fulltext

_ROWS = [("1", "First post about #OpenSource", "3/13/2016 10:00"),
         ("2", "Second one plain", "3/13/2016 11:00"),
         ("3", "X marks the spot", "3/14/2016 09:00"),
         ("4", "Fourth: @someone said so", "3/14/2016 12:00"),
         ("5", "Fifth and last", "3/15/2016 08:30")]


def _csv(path, rows):
    path.write_text("id,title,url,num_points,num_comments,author,created_at\n"
                    + "".join(f"{i},{t},,1,1,alice,{d}\n" for i, t, d in rows), encoding="utf-8")
    return path


def _index_matches_text(corpus):
    """Every record has exactly one index row, and it holds what fulltext.document gives for its text."""
    records = corpus.conn.execute("SELECT id, title, content_text FROM records ORDER BY id").fetchall()
    indexed = {r[0]: tuple(r[1:]) for r in corpus.conn.execute(
        f"SELECT rowid, title, body, tags FROM {fulltext.TABLE}")}
    assert sorted(indexed) == [r[0] for r in records]
    for rid, title, text in records:
        assert indexed[rid] == fulltext.document(title, text), rid


def _fingerprint(path) -> str:
    """A hash of every table's rows in the corpus file (read by a fresh connection)."""
    corpus = open_corpus(path)
    digest = hashlib.sha256()
    tables = [r[0] for r in corpus.conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
        "AND name NOT LIKE '%fts_%' AND sql NOT LIKE '%VIRTUAL%' ORDER BY name")]
    for table in tables + [fulltext.TABLE]:
        for row in corpus.conn.execute(f'SELECT * FROM "{table}" ORDER BY 1'):
            digest.update(repr(tuple(row)).encode())
    corpus.close()
    return digest.hexdigest()


def test_two_imports_index_every_record_as_its_text(tmp_path):
    corpus = open_corpus(tmp_path / "c.db")
    corpus.import_file(_csv(tmp_path / "a.csv", _ROWS[:3]))
    corpus.import_file(_csv(tmp_path / "b.csv", _ROWS[1:]))   # two repeats, two new
    assert corpus.count() == 5
    _index_matches_text(corpus)
    corpus.close()


def test_ids_that_are_not_consecutive_are_still_indexed_right(tmp_path):
    """A trigger adds a row of its own in the middle of the insert: the index pairs by content key."""
    corpus = open_corpus(tmp_path / "c.db")
    corpus.conn.execute(
        "CREATE TEMP TRIGGER extra AFTER INSERT ON main.records WHEN new.title LIKE 'X marks%' BEGIN "
        "INSERT INTO records (source, content_hash, content_text, published_at, captured_at) "
        "VALUES ('forum', 'extra-row', 'added by a trigger', new.published_at, new.published_at); END")
    corpus.import_file(_csv(tmp_path / "a.csv", _ROWS))
    assert corpus.count() == 6
    _index_matches_text(corpus)
    corpus.close()


def test_a_failure_while_storing_leaves_the_file_as_it_was(tmp_path, monkeypatch):
    path = tmp_path / "c.db"
    corpus = open_corpus(path)
    corpus.import_file(_csv(tmp_path / "a.csv", _ROWS[:2]))
    corpus.close()
    before = _fingerprint(path)

    def broken(conn, after=0):
        raise RuntimeError("disk gone while indexing")

    corpus = open_corpus(path)
    monkeypatch.setattr(fulltext, "sync", broken)   # records are inserted, the index half written
    with pytest.raises(RuntimeError, match="disk gone"):
        corpus.import_file(_csv(tmp_path / "b.csv", _ROWS))
    corpus.close()
    monkeypatch.undo()
    assert _fingerprint(path) == before
    corpus = open_corpus(path)
    assert corpus.count() == 2
    assert corpus.import_file(_csv(tmp_path / "b.csv", _ROWS)).added == 3   # and the next import works
    _index_matches_text(corpus)
    corpus.close()
