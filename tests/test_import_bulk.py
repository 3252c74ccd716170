"""A large import drops the secondary indexes of ``records`` and rebuilds them, all or nothing."""
import sqlite3

import pytest

from corpuskit import open_corpus
from corpuskit.ingest import staging
from corpuskit.store import bulk
from tests.test_import_store import _ROWS, _csv, _fingerprint, _index_matches_text


def _indexes(path):
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT name, sql FROM sqlite_master WHERE type = 'index' "
                            "AND tbl_name = 'records' ORDER BY name").fetchall()
    finally:
        conn.close()


def _spy(monkeypatch):
    """Record each use of the bulk path."""
    used = []
    real = staging.deferred_indexes

    def spy(conn, table):
        used.append(table)
        return real(conn, table)
    monkeypatch.setattr(staging, "deferred_indexes", spy)
    return used


def test_bulk_and_row_by_row_store_the_same_file(tmp_path, monkeypatch):
    used = _spy(monkeypatch)
    paths = []
    for ratio in (1.0, float("inf")):       # bulk for the first import, then never
        monkeypatch.setattr(staging, "BULK_RATIO", ratio)
        path = tmp_path / f"c{ratio}.db"
        corpus = open_corpus(path)
        corpus.import_file(_csv(tmp_path / "a.csv", _ROWS[:3]))
        corpus.import_file(_csv(tmp_path / "b.csv", _ROWS[1:]))
        _index_matches_text(corpus)
        # the runs' clock times may straddle a second between the two files
        corpus.conn.execute("UPDATE runs SET started_at = '', finished_at = ''")
        corpus.close()
        paths.append(path)
    assert used == ["records"]   # ratio 1.0: 3 rows into 0 (bulk), 2 into 3 (not); inf: never
    assert _fingerprint(paths[0]) == _fingerprint(paths[1])
    assert _indexes(paths[0]) == _indexes(paths[1])
    assert len(_indexes(paths[0])) >= 9


def test_the_ratio_decides(tmp_path, monkeypatch):
    assert 0.25 < staging.BULK_RATIO <= 1.0
    used = _spy(monkeypatch)
    corpus = open_corpus(tmp_path / "c.db")
    corpus.import_file(_csv(tmp_path / "a.csv", _ROWS[:4]))      # into an empty corpus: bulk
    corpus.import_file(_csv(tmp_path / "b.csv", _ROWS[4:]))      # 1 row into 4: row by row
    corpus.import_file(_csv(tmp_path / "a.csv", _ROWS[:4]))      # nothing new: row by row
    assert used == ["records"]
    assert corpus.count() == 5
    _index_matches_text(corpus)
    corpus.close()


def _two_stored_then(tmp_path, trigger: str):
    """A corpus file holding two rows, its fingerprint and indexes, reopened with ``trigger`` planted."""
    path = tmp_path / "c.db"
    corpus = open_corpus(path)
    corpus.import_file(_csv(tmp_path / "a.csv", _ROWS[:2]))
    corpus.close()
    before, indexes = _fingerprint(path), _indexes(path)
    corpus = open_corpus(path)
    corpus.conn.execute(trigger)
    return path, corpus, before, indexes


def test_a_failure_after_the_drop_leaves_the_file_and_every_index(tmp_path, monkeypatch):
    used = _spy(monkeypatch)
    path, corpus, before, indexes = _two_stored_then(
        tmp_path, "CREATE TEMP TRIGGER boom AFTER INSERT ON main.records "
        "WHEN new.title LIKE 'Fifth%' BEGIN SELECT RAISE(ABORT, 'disk gone'); END")
    with pytest.raises(Exception, match="disk gone"):
        corpus.import_file(_csv(tmp_path / "b.csv", _ROWS))   # 3 new rows into 2: bulk
    corpus.close()
    assert used == ["records", "records"]
    assert _fingerprint(path) == before
    assert _indexes(path) == indexes
    corpus = open_corpus(path)
    assert corpus.import_file(_csv(tmp_path / "b.csv", _ROWS)).added == 3
    _index_matches_text(corpus)
    corpus.close()


@pytest.mark.parametrize("ratio", [1.0, float("inf")])
def test_a_unique_violation_fails_cleanly_on_both_paths(tmp_path, monkeypatch, ratio):
    """A row that repeats a stored source id (planted by a trigger) breaks the unique index."""
    monkeypatch.setattr(staging, "BULK_RATIO", ratio)
    used = _spy(monkeypatch)
    path, corpus, before, indexes = _two_stored_then(
        tmp_path, "CREATE TEMP TRIGGER twin AFTER INSERT ON main.records WHEN new.source_id = '4' BEGIN "
        "INSERT INTO records (source, source_id, content_hash, content_text, published_at, captured_at) "
        "VALUES (new.source, '1', 'twin', 'twin', new.published_at, new.published_at); END")
    with pytest.raises(Exception, match="UNIQUE constraint failed"):
        corpus.import_file(_csv(tmp_path / "b.csv", _ROWS))
    corpus.close()
    assert len(used) == (2 if ratio == 1.0 else 0)
    assert _fingerprint(path) == before
    assert _indexes(path) == indexes


def test_deferred_indexes_needs_a_transaction(tmp_path):
    corpus = open_corpus(tmp_path / "c.db")
    with pytest.raises(RuntimeError, match="open transaction"):
        with bulk.deferred_indexes(corpus.conn, "records"):
            pass
    assert len(bulk.secondary_indexes(corpus.conn, "records")) >= 9
    corpus.close()
