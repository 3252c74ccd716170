"""The corpus file: drivers, migrations, clear errors, transactions."""
import sqlite3

import pytest

from corpuskit import open_corpus
from corpuskit.errors import SchemaVersionError, StoreError
from corpuskit.store import connect, driver_name, latest_version, migrate, transaction
from corpuskit.store.schema import migrations


def test_new_file_is_migrated_to_latest(tmp_path):
    c = open_corpus(tmp_path / "c.db")
    assert c.conn.execute("PRAGMA user_version").fetchone()[0] == latest_version()
    tables = {r[0] for r in c.conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"records", "api_keys", "rate_counters", "enrichment", "record_vectors", "signals",
            "stories", "arcs", "collect_state"} <= tables


def test_wal_mode_and_vec_loaded(tmp_path):
    c = open_corpus(tmp_path / "c.db")
    assert c.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert c.conn.execute("SELECT vec_version()").fetchone()[0].startswith("v")


def test_migrations_numbered_and_idempotent(tmp_path):
    numbers = [n for n, _, _ in migrations()]
    assert numbers == list(range(1, len(numbers) + 1))
    assert latest_version() == numbers[-1]
    conn = connect(tmp_path / "m.db")
    assert migrate(conn) == latest_version()
    assert migrate(conn) == latest_version()  # second run applies nothing


def test_missing_directory_names_the_file(tmp_path):
    target = tmp_path / "nope" / "c.db"
    with pytest.raises(StoreError, match=r"nope.*does not exist"):
        open_corpus(target)


def test_not_sqlite_file_names_the_file(tmp_path):
    bogus = tmp_path / "notes.db"
    bogus.write_text("this is not a database, just some text that is long enough")
    with pytest.raises(StoreError, match=r"notes\.db.*not an SQLite"):
        open_corpus(bogus)


def test_directory_is_refused(tmp_path):
    with pytest.raises(StoreError, match="is a directory"):
        open_corpus(tmp_path)


def test_newer_schema_is_refused(tmp_path):
    path = tmp_path / "future.db"
    raw = sqlite3.connect(path)
    raw.execute(f"PRAGMA user_version = {latest_version() + 5}")
    raw.commit()
    raw.close()
    with pytest.raises(SchemaVersionError, match=r"future\.db.*newer than this corpuskit"):
        open_corpus(path)


@pytest.mark.parametrize("driver", ["sqlean", "sqlite3"])
def test_both_drivers(tmp_path, driver):
    probe = sqlite3.connect(":memory:")
    if driver == "sqlite3" and not hasattr(probe, "enable_load_extension"):
        from corpuskit.errors import ExtensionError

        with pytest.raises(ExtensionError, match="cannot load extensions"):
            open_corpus(tmp_path / "c.db", driver="sqlite3")
        return
    c = open_corpus(tmp_path / "c.db", driver=driver)
    assert c.conn.execute("SELECT vec_version()").fetchone()[0]


def test_default_driver_is_reported():
    assert driver_name() in ("sqlite3", "sqlean")


def test_transaction_rolls_back_on_error(corpus):
    with pytest.raises(RuntimeError):
        with transaction(corpus.conn):
            corpus.set_meta("x", 1)
            raise RuntimeError("boom")
    assert corpus.get_meta("x") is None
    with corpus.transaction():
        corpus.set_meta("x", 2)
    assert corpus.get_meta("x") == 2


def test_memory_corpus_is_shared_between_threads(corpus):
    import threading

    corpus.set_meta("hello", "world")
    seen = []
    t = threading.Thread(target=lambda: seen.append(corpus.get_meta("hello")))
    t.start()
    t.join()
    assert seen == ["world"]


def test_run_ids_are_deterministic(corpus):
    with corpus.run_stage("enrich") as first:
        pass
    with corpus.run_stage("enrich") as second:
        pass
    assert (first, second) == ("enrich-1", "enrich-2")
    statuses = [r[0] for r in corpus.conn.execute("SELECT status FROM runs ORDER BY id")]
    assert statuses == ["done", "done"]


def test_run_rejects_unknown_stage(corpus):
    from corpuskit.errors import ValidationError

    with pytest.raises(ValidationError, match="unknown stage 'summarise'"):
        corpus.run(stages=("summarise",))
