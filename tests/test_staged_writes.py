"""Long stages compute on private copies and hold the write lock only to apply their changes."""
from __future__ import annotations

import sqlite3

import pytest

from corpuskit import open_corpus
from corpuskit.analysis import pipeline as analyse_pipeline
from corpuskit.analysis.pipeline import analyse_corpus
from corpuskit.narrate.pipeline import narrate_corpus
from corpuskit.store.staged import _temp_ddl, staged_writes
from corpuskit.store.transaction import transaction

from tests.test_analyse_pipeline import seeded

SCHEMA = """
CREATE TABLE parents (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, note TEXT);
CREATE TABLE children (
    parent_id INTEGER NOT NULL REFERENCES parents(id) ON DELETE CASCADE,
    owner_id  INTEGER REFERENCES owners(id),
    tag       TEXT NOT NULL,
    PRIMARY KEY (parent_id, tag)
);
CREATE INDEX children_tag ON children(tag);
CREATE TABLE owners (id INTEGER PRIMARY KEY, name TEXT);
CREATE TABLE events (id INTEGER PRIMARY KEY AUTOINCREMENT, what TEXT);
"""


def connect(path):
    conn = sqlite3.connect(path, isolation_level=None, timeout=0.2)
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA foreign_keys=ON")
    return conn


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "t.db"
    conn = connect(path)
    conn.executescript(SCHEMA)
    conn.executescript("""
        INSERT INTO owners VALUES (1, 'ann'), (2, 'bob');
        INSERT INTO parents VALUES (1, 'a', NULL), (2, 'b', NULL), (3, 'c', 'keep');
        INSERT INTO children VALUES (1, 1, 'x'), (2, 1, 'y'), (3, 2, 'z');
        INSERT INTO events(what) VALUES ('one'), ('two'), ('three');
        DELETE FROM events WHERE id = 3;
    """)
    return path, conn


def rows(conn, table):
    return conn.execute(f"SELECT * FROM main.{table} ORDER BY 1, 2").fetchall()


def test_temp_copies_keep_references_among_staged_tables_only():
    sql = ("CREATE TABLE children (parent_id INTEGER NOT NULL REFERENCES parents(id) ON DELETE CASCADE, "
           "owner_id INTEGER REFERENCES owners(id) DEFERRABLE INITIALLY DEFERRED, tag TEXT, "
           "PRIMARY KEY (parent_id, tag), FOREIGN KEY (owner_id) REFERENCES \"owners\"(id))")
    out = _temp_ddl(sql, {"parents", "children"})
    assert out.startswith("CREATE TEMP TABLE children")
    assert "REFERENCES parents(id) ON DELETE CASCADE" in out
    assert "owners" not in out and "FOREIGN KEY" not in out and "DEFERRABLE" not in out


def test_changes_apply_as_deletes_and_upserts_and_cascade(db):
    path, conn = db
    with staged_writes(conn, ["parents", "children", "events"]):
        conn.execute("UPDATE parents SET note = 'changed' WHERE id = 2")
        conn.execute("DELETE FROM parents WHERE id = 1")  # cascades to its child in the copy
        conn.execute("INSERT INTO parents VALUES (4, 'd', NULL)")
        conn.execute("INSERT INTO children VALUES (4, 2, 'w')")
        conn.execute("INSERT INTO events(what) VALUES ('four')")
        # nothing has reached the file yet
        other = connect(path)
        assert rows(other, "parents") == [(1, "a", None), (2, "b", None), (3, "c", "keep")]
    assert rows(conn, "parents") == [(2, "b", "changed"), (3, "c", "keep"), (4, "d", None)]
    assert rows(conn, "children") == [(2, 1, "y"), (3, 2, "z"), (4, 2, "w")]
    # the counter goes on from the file's: id 3 was handed out once and is never reused
    assert rows(conn, "events") == [(1, "one"), (2, "two"), (4, "four")]
    assert conn.execute("SELECT name FROM temp.sqlite_master WHERE type = 'table' AND name NOT LIKE "
                        "'sqlite_%'").fetchall() == []


def test_no_write_lock_while_the_block_runs(db):
    path, conn = db
    other = connect(path)
    with staged_writes(conn, ["parents", "children"]):
        conn.execute("UPDATE parents SET note = 'mine' WHERE id = 1")
        with transaction(conn):  # a nested transaction joins the read transaction
            conn.execute("INSERT INTO children VALUES (2, NULL, 'n')")
        other.execute("BEGIN IMMEDIATE")  # would time out (0.2 s) if the block held the lock
        other.execute("UPDATE owners SET name = 'ann2' WHERE id = 1")
        other.execute("UPDATE parents SET note = 'theirs' WHERE id = 3")
        other.execute("COMMIT")
    # another writer's changes meanwhile are kept: only the block's own changes were applied
    assert rows(conn, "owners")[0] == (1, "ann2")
    assert rows(conn, "parents") == [(1, "a", "mine"), (2, "b", None), (3, "c", "theirs")]
    assert (2, None, "n") in rows(conn, "children")


def test_a_failure_leaves_the_file_as_it_was(db):
    path, conn = db
    before = {t: rows(conn, t) for t in ("parents", "children", "events")}
    with pytest.raises(RuntimeError, match="boom"):
        with staged_writes(conn, ["parents", "children", "events"]):
            conn.execute("DELETE FROM parents")
            conn.execute("INSERT INTO events(what) VALUES ('x')")
            raise RuntimeError("boom")
    assert not conn.in_transaction
    assert {t: rows(conn, t) for t in before} == before


def test_a_reference_to_an_unstaged_table_is_checked_when_applied(db):
    path, conn = db
    before = rows(conn, "children")
    with pytest.raises(sqlite3.IntegrityError):
        with staged_writes(conn, ["parents", "children"]):
            conn.execute("INSERT INTO children VALUES (2, 99, 'dangling')")  # no owner 99
    assert rows(conn, "children") == before and not conn.in_transaction


def test_bad_uses_are_refused(db):
    path, conn = db
    conn.execute("CREATE TABLE loose (a, b)")
    with pytest.raises(ValueError, match="no primary key"):
        with staged_writes(conn, ["loose"]):
            pass
    with pytest.raises(ValueError, match="no table"):
        with staged_writes(conn, ["nope"]):
            pass
    conn.execute("BEGIN")
    with pytest.raises(RuntimeError, match="outside any transaction"):
        with staged_writes(conn, ["parents"]):
            pass
    conn.execute("ROLLBACK")


DERIVED = ("clusters", "cluster_members", "signals", "signal_evidence", "signal_events", "snapshots",
           "observations", "stories", "story_citations", "story_slugs", "arcs", "arc_stories")


def derived(corpus):
    return {t: corpus.conn.execute(f"SELECT * FROM {t} ORDER BY 1, 2").fetchall() for t in DERIVED}


def test_analyse_and_narrate_leave_the_lock_free_and_give_the_same_tables(tmp_path, monkeypatch):
    """Another writer gets the lock at once between every analyse step, and the tables equal a one-transaction run."""
    staged = open_corpus(tmp_path / "staged.db")
    seeded(staged)
    plain = open_corpus(tmp_path / "plain.db")
    seeded(plain)
    waits = []
    runners = dict(analyse_pipeline.RUNNERS)

    def probing(step):
        def run(corpus, *args):
            out = runners[step](corpus, *args)
            probe = connect(corpus.path)  # 0.2 s busy timeout
            probe.execute("BEGIN IMMEDIATE")
            probe.execute("ROLLBACK")
            probe.close()
            waits.append(step)
            return out
        return run

    monkeypatch.setattr(analyse_pipeline, "RUNNERS", {s: probing(s) for s in runners})
    analyse_corpus(staged, progress=False)
    narrate_corpus(staged, progress=False)
    assert waits == list(analyse_pipeline.STEPS)
    monkeypatch.undo()

    def one_transaction(conn, tables):
        return transaction(conn)

    monkeypatch.setattr("corpuskit.analysis.pipeline.staged_writes", one_transaction)
    monkeypatch.setattr("corpuskit.narrate.pipeline.staged_writes", one_transaction)
    analyse_corpus(plain, progress=False)
    narrate_corpus(plain, progress=False)
    got, want = derived(staged), derived(plain)
    assert sum(len(v) for v in want.values()) > 50
    for table in DERIVED:
        assert got[table] == want[table], table
    # and a second, incremental run on the staged path still matches
    monkeypatch.undo()
    analyse_corpus(staged, progress=False)
    narrate_corpus(staged, progress=False)
    monkeypatch.setattr("corpuskit.analysis.pipeline.staged_writes", one_transaction)
    monkeypatch.setattr("corpuskit.narrate.pipeline.staged_writes", one_transaction)
    analyse_corpus(plain, progress=False)
    narrate_corpus(plain, progress=False)
    assert derived(staged) == derived(plain)
