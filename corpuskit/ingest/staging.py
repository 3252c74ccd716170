"""Imports staged outside the corpus, then stored in one short transaction.

Reading and normalising a large file takes minutes; holding the corpus's
write lock for all of it would stall every other writer (a second import, a
collector, a stage) that long. So an import writes its normalised rows, in
chunks, to a TEMP table of its own connection: SQLite keeps TEMP tables in a
private file in the temp directory (``SQLITE_TMPDIR``, else ``TMPDIR``), never
in the corpus, and writing them takes no lock on the corpus. Duplicates within
the file are marked there, and so are rows the corpus already holds (reading
the corpus needs no lock in WAL mode). Only then does one transaction on the
corpus copy the unmarked rows into ``records`` with one ``INSERT ... SELECT``
and record the run; it marks stored rows again first only when another
connection committed in between (``PRAGMA data_version``). That transaction
is the only time the import holds the write lock: its length grows with the
rows added, not with the time spent reading and parsing the file (see
``benchmarks/bench_import_lock.py`` for figures).

Nothing in the corpus changes before that final transaction: an import that
fails, is interrupted, or is killed (``kill -9``) leaves the file exactly as
it was; the TEMP file is deleted by SQLite (it is unlinked as soon as it is
opened, so even a killed process leaves nothing behind).
"""
from __future__ import annotations

import itertools
from contextlib import nullcontext

from corpuskit.ingest.records import (BASE_COLUMNS, STORED_COLUMNS, base_row, content_hash,
                                     has_engagement, record_row)
from corpuskit.store import fulltext, transaction
from corpuskit.store.bulk import deferred_indexes

_names = itertools.count(1)
_STORE_CACHE_KIB = 256 * 1024
#: an import adding at least this many rows per record already stored drops the secondary
#: indexes of ``records`` for its insert and rebuilds them after (see :meth:`Stage.store`).
#: Measured into a 500,000-record corpus (HN rows, CPU s of the whole import): 250,000 new
#: rows 11.1 bulk vs 12.8 row by row, 100,000 new rows 6.7 vs 5.5; the break-even is near
#: 0.3, and 0.5 keeps the rebuild to imports where it clearly pays.
BULK_RATIO = 0.5
_COLUMNS = ", ".join(STORED_COLUMNS)
_TYPES = {"likes": "INTEGER", "reposts": "INTEGER", "replies": "INTEGER", "quotes": "INTEGER",
          "views": "INTEGER", "is_repost": "INTEGER NOT NULL DEFAULT 0"}
_DEFINITIONS = ", ".join(f"{c} {_TYPES.get(c, 'TEXT')}" for c in STORED_COLUMNS)
#: the full-text columns of a staged row: ``fts_title`` / ``fts_body`` are NULL when they equal
#: the title / text (ASCII text, most rows), so the staging file holds each text once less
_FTS_VALUES = ("coalesce(fts_title, title) AS fts_title, coalesce(fts_body, content_text) AS fts_body, "
               "fts_tags")


class Stage:
    """One import's staging table on ``conn``; use as a context manager (it drops the table)."""

    def __init__(self, conn):
        self.conn = conn
        self._version = None
        self._typed = False   # whether any staged row has typed engagement fields
        self.table = f"temp.corpuskit_stage_{next(_names)}"

    def __enter__(self):
        self.conn.execute(
            f"CREATE TEMP TABLE {self.table.split('.', 1)[1]} (seq INTEGER PRIMARY KEY, "
            f"{_DEFINITIONS}, rule TEXT, dup TEXT, guess INTEGER, fts_title TEXT, fts_body TEXT, fts_tags TEXT)")
        return self

    def __exit__(self, exc_type, *exc):
        try:
            self.conn.execute(f"DROP TABLE IF EXISTS {self.table}")
        except Exception:
            if exc_type is None:  # never hide the error that ended the import
                raise

    def write(self, prepared: tuple[bool, bool, list[tuple]]) -> None:
        """Stage rows made by :func:`staged_rows` from ``(normalised record, rule, guess)`` triples
        (possibly in another process).

        The rule comes from :func:`dedupe_rule`; ``guess`` is the mask of dates read
        month-first before the file's order was known (see :mod:`corpuskit.ingest.dates`).
        """
        typed, guessed, rows = prepared
        if not rows:
            return
        self._typed = self._typed or typed
        columns = STORED_COLUMNS if typed else BASE_COLUMNS
        extra = (", rule, guess" if guessed else ", rule") + ", fts_title, fts_body, fts_tags"
        marks = ",".join("?" * (len(columns) + (2 if guessed else 1) + 3))
        # a deferred transaction that writes only TEMP tables locks nothing in the corpus
        with transaction(self.conn, immediate=False):
            self.conn.executemany(
                f"INSERT INTO {self.table} ({', '.join(columns)}{extra}) VALUES ({marks})", rows)

    def swap_day_month(self) -> None:
        """Read the staged dates guessed month-first as day-first (the file turned out day-first).

        A guessed date has day and month both at most 12, so swapping them in the stored
        form is the day-first reading; ``capturedAt`` follows ``publishedAt`` when it was
        derived from it. The content key, which includes ``publishedAt``, is recomputed.
        """
        swap = "substr({0}, 1, 5) || substr({0}, 9, 2) || '-' || substr({0}, 6, 2) || substr({0}, 11)"
        self.conn.create_function("corpuskit_content_hash", 5, content_hash, deterministic=True)
        with transaction(self.conn, immediate=False):
            self.conn.execute(
                f"UPDATE {self.table} SET "
                f"published_at = CASE WHEN guess & 1 THEN {swap.format('published_at')} "
                "ELSE published_at END, "
                f"captured_at = CASE WHEN guess & 2 OR (guess & 1 AND captured_at = published_at) "
                f"THEN {swap.format('captured_at')} ELSE captured_at END WHERE guess IS NOT NULL")
            self.conn.execute(
                f"UPDATE {self.table} SET content_hash = corpuskit_content_hash(source, author, "
                "title, content_text, published_at) WHERE guess & 1")

    def mark_repeats(self) -> None:
        """Mark rows that repeat an earlier row of the same import (the first one is kept).

        A row repeats by id when an earlier row has its source and sourceId; a
        ``content``-rule row repeats by content when an earlier row (of any rule)
        has its source and content key. Each rule is one sort of the staged rows
        (a window over the key, in staging order), with no index to build.
        """
        with transaction(self.conn, immediate=False):
            self.conn.execute(
                f"UPDATE {self.table} SET dup = 'id' WHERE seq IN (SELECT seq FROM ("
                "SELECT seq, row_number() OVER (PARTITION BY source, source_id ORDER BY seq) AS n "
                f"FROM {self.table} WHERE source_id IS NOT NULL) WHERE n > 1)")
            if self.conn.execute(f"SELECT 1 FROM {self.table} WHERE rule = 'content' LIMIT 1").fetchone():
                self.conn.execute(
                    f"UPDATE {self.table} SET dup = 'content' WHERE dup IS NULL AND rule = 'content' "
                    "AND seq IN (SELECT seq FROM (SELECT seq, min(seq) OVER (PARTITION BY source, "
                    f"content_hash) AS first FROM {self.table}) WHERE seq > first)")

    def mark_stored(self) -> None:
        """Mark rows already in the corpus, reading it without taking its write lock."""
        with transaction(self.conn, immediate=False):
            self._version = self._data_version()
            self._mark_stored()

    def store(self, run_id: str) -> dict:
        """Copy the unmarked rows into ``records``; call inside the corpus transaction.

        Rows stored by another process since :meth:`mark_stored` are marked
        again first. When the rows to add are at least :data:`BULK_RATIO` times the
        records stored (an empty corpus, a first large import), the secondary indexes
        of ``records`` are dropped for the insert and rebuilt from their stored DDL
        after it, in the same transaction (see :mod:`corpuskit.store.bulk`): one sort
        per index instead of row-by-row inserts in random order. Returns
        ``{"added": n, "id": n, "content": n}`` (the duplicates by rule).
        """
        conn = self.conn
        if self._version is None or self._data_version() != self._version:
            self._mark_stored()
        before = conn.execute("SELECT coalesce(max(id), 0) FROM main.records").fetchone()[0]
        bulk = self._is_bulk(before)
        # row by row, a large page cache while the lock is held: inserting into the
        # content-hash index is random access, and 2 MiB (the default) makes it re-read
        # pages (the store step takes half as long with 256 MiB). A bulk insert appends
        # and each index is built by one sort: the default cache is as fast, and the
        # import's peak memory stops growing with the rows (534 -> 226 MB at 500,000)
        cache = conn.execute("PRAGMA main.cache_size").fetchone()[0]
        if not bulk:
            conn.execute(f"PRAGMA main.cache_size = {-_STORE_CACHE_KIB}")
        columns = _COLUMNS if self._typed else ", ".join(BASE_COLUMNS)   # the rest: defaults
        try:
            with deferred_indexes(conn, "records") if bulk else nullcontext():
                added = conn.execute(
                    f"INSERT INTO main.records ({columns}, run_id) SELECT {columns}, ? "
                    f"FROM {self.table} WHERE dup IS NULL ORDER BY seq", (run_id,)).rowcount
            self._index(before, added)
        finally:
            conn.execute(f"PRAGMA main.cache_size = {int(cache)}")
        counts = {"added": added, "id": 0, "content": 0}
        for rule, n in conn.execute(f"SELECT dup, count(*) FROM {self.table} "
                                    "WHERE dup IS NOT NULL GROUP BY dup"):
            counts[rule] = n
        return counts

    def _is_bulk(self, largest_id: int) -> bool:
        """Whether the rows to add are at least :data:`BULK_RATIO` times the records stored.

        The largest id is at least the number of records stored (and costs one page to read,
        not a count); a corpus that lost rows is judged as if it still held them.
        """
        pending = self.conn.execute(f"SELECT count(*) FROM {self.table} WHERE dup IS NULL").fetchone()[0]
        return pending > 0 and pending >= BULK_RATIO * largest_id

    def _index(self, before: int, added: int) -> None:
        """Index the ``added`` rows just stored (ids above ``before``) from the columns staged for them.

        The insert gave them ids ``before + 1`` .. ``before + added`` in staging order (an integer
        primary key takes the largest id plus one, and the write lock is held); when the largest id
        says so, the staged row of rank k is indexed as id ``before + k`` with no read of ``records``.
        Otherwise a row is paired with the staged row of the same rank and content key. Any row left
        unpaired is indexed by :func:`corpuskit.store.fulltext.sync`.
        """
        last = self.conn.execute("SELECT coalesce(max(id), 0) FROM main.records").fetchone()[0]
        if last == before + added:
            self.conn.execute(
                f"INSERT INTO main.{fulltext.TABLE} (rowid, title, body, tags) "
                f"SELECT ? + row_number() OVER (ORDER BY seq), {_FTS_VALUES} "
                f"FROM {self.table} WHERE dup IS NULL", (before,))
        else:
            self.conn.execute(
                f"INSERT INTO main.{fulltext.TABLE} (rowid, title, body, tags) "
                "SELECT n.id, s.fts_title, s.fts_body, s.fts_tags FROM "
                "(SELECT row_number() OVER (ORDER BY id) AS k, id, content_hash FROM main.records "
                "WHERE id > ?) AS n JOIN "
                f"(SELECT row_number() OVER (ORDER BY seq) AS k, content_hash, {_FTS_VALUES} "
                f"FROM {self.table} WHERE dup IS NULL) AS s ON s.k = n.k AND s.content_hash = n.content_hash",
                (before,))
        fulltext.sync(self.conn, after=before)

    def _data_version(self):
        """``PRAGMA data_version`` of a file corpus (changes when another connection commits)."""
        if not self.conn.execute("PRAGMA main.database_list").fetchone()[2]:
            return None   # shared-cache memory corpora share one counter: always re-check
        return self.conn.execute("PRAGMA main.data_version").fetchone()[0]

    def _mark_stored(self) -> None:
        conn = self.conn
        conn.execute(
            f"UPDATE {self.table} AS s SET dup = 'id' WHERE dup IS NULL AND source_id IS NOT NULL "
            "AND EXISTS (SELECT 1 FROM main.records r WHERE r.source = s.source "
            "AND r.source_id = s.source_id)")
        conn.execute(
            f"UPDATE {self.table} AS s SET dup = 'content' WHERE dup IS NULL AND rule = 'content' "
            "AND EXISTS (SELECT 1 FROM main.records r WHERE r.source = s.source "
            "AND r.content_hash = s.content_hash)")


def staged_rows(records: list[tuple[dict, str, int]]) -> tuple[bool, bool, list[tuple]]:
    """``(typed, guessed, rows)``: the staging table's values for ``(record, rule, guess)`` triples.

    Pure (no connection): an import may compute them in a second process
    (:mod:`corpuskit.ingest.pipeline`) and hand them to :meth:`Stage.write`.
    """
    # a batch with no typed engagement fields and no guessed dates (the common case of a
    # CSV) writes the base columns only: the others keep their defaults, and the insert
    # stays as fast as before they existed
    typed = any(has_engagement(rec) for rec, _, _ in records)
    guessed = any(guess for _, _, guess in records)
    row = record_row if typed else base_row      # the rule in run_id's place
    # then the full-text index's columns, computed here, before the write lock is taken
    if guessed:
        rows = [row(rec, rule) + (guess or None,) + _document(rec) for rec, rule, guess in records]
    else:
        rows = [row(rec, rule) + _document(rec) for rec, rule, _ in records]
    return typed, guessed, rows


def _document(rec: dict) -> tuple:
    """:func:`fulltext.document` of a record, a title or text that is indexed as written as NULL."""
    title, text = rec["title"], rec["contentText"]
    fts_title, fts_body, tags = fulltext.document(title, text, rec.get("language"))
    return (None if fts_title == title else fts_title, None if fts_body == text else fts_body, tags)
