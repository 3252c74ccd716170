"""Reads for a subcorpus given as record ids: texts in chunks, counts per day, id filters.

A subcorpus is a sorted array (or list) of record ids. Every read here takes the ids in chunks
of :data:`ID_CHUNK` through ``json_each`` (one parameter per chunk, never SQL built from the
values), so memory stays flat in the corpus size.
"""
from __future__ import annotations

import json

import numpy as np

from corpuskit.errors import ValidationError
from corpuskit.query.fulltext import match_only
from corpuskit.query.record_filter import RECORDS_FROM, RecordFilter
from corpuskit.query.remembered import cached_rows
from corpuskit.query.stored_counts import usable
from corpuskit.query.where import Where
from corpuskit.store.fulltext import TABLE as FTS_TABLE

#: Record ids passed to SQLite per statement.
ID_CHUNK = 5000
#: The columns of :func:`iter_texts` rows, in order.
TEXT_COLUMNS = ("id", "title", "content_text", "published_at", "source")


def as_ids(ids) -> np.ndarray:
    """``ids`` as a sorted int64 array without repeats (a list, array or Series of record ids)."""
    if ids is None:
        raise ValidationError("ids must be a list or array of record ids, not None")
    try:
        arr = np.asarray(list(ids) if not hasattr(ids, "__array__") else ids)
    except TypeError:
        raise ValidationError(f"ids must be a list or array of record ids, not {type(ids).__name__}") from None
    if arr.size == 0:
        return np.zeros(0, dtype=np.int64)
    if arr.dtype.kind not in "iu" or arr.ndim != 1:
        raise ValidationError("ids must be a one-dimensional list of integer record ids")
    return np.unique(arr.astype(np.int64))


def _chunks(ids: np.ndarray, size: int = ID_CHUNK):
    for start in range(0, len(ids), size):
        yield json.dumps(ids[start:start + size].tolist())


def iter_texts(conn, ids=None, chunk: int = ID_CHUNK):
    """Rows ``(id, title, content_text, published_at, source)`` by id, one list per chunk.

    ``ids=None`` walks every record (keyset paging on the id); otherwise only those ids (ids
    without a record are skipped).
    """
    cols = "id, title, content_text, published_at, source"
    if ids is None:
        last = -1
        while True:
            rows = conn.execute(f"SELECT {cols} FROM records WHERE id > ? ORDER BY id LIMIT ?",
                                (last, chunk)).fetchall()
            if not rows:
                return
            yield [tuple(r) for r in rows]
            last = rows[-1][0]
    for batch in _chunks(as_ids(ids), chunk):
        rows = conn.execute(f"SELECT {cols} FROM records WHERE id IN (SELECT value FROM json_each(?)) "
                            "ORDER BY id", (batch,)).fetchall()
        if rows:
            yield [tuple(r) for r in rows]


def daily_counts(conn, ids=None, since: str | None = None, until: str | None = None) -> dict:
    """``{YYYY-MM-DD: records}`` published between ``since`` and ``until`` (stored timestamps,
    inclusive), of the ids given or (``ids=None``) of every record."""
    bounds, args = "", []
    if since is not None:
        bounds += " AND published_at >= ?"
        args.append(since)
    if until is not None:
        bounds += " AND published_at <= ?"
        args.append(until)
    out: dict = {}
    if ids is None:
        # every record's days: the denominator of each attention share, read from the counts analyse
        # keeps while they describe the corpus as it is; else counted and remembered until the data change
        if usable(conn):
            return _stored_days(conn, since, until)
        return dict(cached_rows(conn, f"SELECT day, count(*) FROM records WHERE 1{bounds} GROUP BY day", args))
    for batch in _chunks(as_ids(ids)):
        for day, n in conn.execute("SELECT day, count(*) FROM records WHERE id IN "
                                   f"(SELECT value FROM json_each(?)){bounds} GROUP BY day", [batch, *args]):
            out[day] = out.get(day, 0) + n
    return out


def _stored_days(conn, since: str | None, until: str | None) -> dict:
    """:func:`daily_counts` of every record from the per-day counts analyse keeps (they must hold): the
    days wholly inside the bounds as stored, a day cut by ``since`` or ``until`` counted live on the
    ``published_at`` index."""
    days = dict(cached_rows(conn, "SELECT day, sum(records) FROM record_counts GROUP BY day"))
    if since is None and until is None:
        return days
    first, last = since and since[:10], until and until[:10]
    out = {d: n for d, n in days.items() if (first is None or d >= first) and (last is None or d <= last)}
    for day in {first, last} - {None}:
        lo, hi = max(f"{day}T00:00:00Z", since or ""), min(f"{day}T23:59:59Z", until or "~")
        if (lo, hi) != (f"{day}T00:00:00Z", f"{day}T23:59:59Z") and day in out:
            n = conn.execute("SELECT count(*) FROM records WHERE published_at >= ? AND published_at <= ?",
                             (lo, hi)).fetchone()[0]
            if n:
                out[day] = n
            else:
                del out[day]
    return out


def published_span(conn, ids=None) -> tuple[str | None, str | None]:
    """The first and last ``published_at`` of the ids given, or of every record."""
    if ids is None:
        row = conn.execute("SELECT (SELECT min(published_at) FROM records), "
                           "(SELECT max(published_at) FROM records)").fetchone()
        return row[0], row[1]
    lo = hi = None
    for batch in _chunks(as_ids(ids)):
        a, b = conn.execute("SELECT min(published_at), max(published_at) FROM records WHERE id IN "
                            "(SELECT value FROM json_each(?))", (batch,)).fetchone()
        if a is not None:
            lo = a if lo is None else min(lo, a)
            hi = b if hi is None else max(hi, b)
    return lo, hi


def matching_ids(conn, where) -> np.ndarray:
    """The sorted ids of every record that passes ``where`` (over ``records r LEFT JOIN enrichment e``)."""
    rows = conn.execute(f"SELECT r.id FROM {RECORDS_FROM}{where.sql() if where else ''} ORDER BY r.id",
                        list(where.args) if where else []).fetchall()
    return np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))


def _query_where(conn, compiled, since, until) -> Where:
    return RecordFilter(query=compiled, since=since, until=until).where(conn)


def query_count(conn, compiled, since: str | None = None, until: str | None = None) -> int:
    """How many records match ``compiled`` (a :class:`~corpuskit.query.CompiledQuery`) published
    within the stored-timestamp bounds ``since``/``until``. A query that is one full-text match
    without bounds is counted on the index alone (every index row is a record's: the triggers of
    migration 0009 remove a deleted record's row), which is the same number, faster."""
    expr = match_only(compiled) if since is None and until is None else None
    if expr is not None:
        return conn.execute(f"SELECT count(*) FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH ?", (expr,)).fetchone()[0]
    where = _query_where(conn, compiled, since, until)
    return conn.execute("SELECT count(*) FROM records r" + where.sql(), where.args).fetchone()[0]


def query_ids(conn, compiled, since: str | None = None, until: str | None = None) -> np.ndarray:
    """The ids (ascending, int64) of the records :func:`query_count` counts."""
    expr = match_only(compiled) if since is None and until is None else None
    if expr is None:
        return _bounded_ids(conn, compiled, since, until)
    # the index alone holds the ids of a bare match: no record is looked up
    # (in the index's rowid order: asking for it adds a sort of every match, which _id_array checks)
    return _id_array(conn, f"SELECT rowid AS id FROM {FTS_TABLE} WHERE {FTS_TABLE} MATCH ?", (expr,))


def _id_array(conn, sql: str, args=()) -> np.ndarray:
    """The ids ``sql`` selects (one column ``id``, ascending) as an int64 array, passed from SQLite as
    one text rather than a row each (several times faster for tens of thousands of ids)."""
    text = conn.execute(f"SELECT group_concat(id, ',') FROM ({sql})", args).fetchone()[0]
    ids = np.zeros(0, dtype=np.int64) if text is None else np.fromstring(text, dtype=np.int64, sep=",")
    if len(ids) > 1 and not (ids[1:] > ids[:-1]).all():     # an aggregate's order is not promised
        ids = np.sort(ids, kind="stable")
    return ids


def _bounded_ids(conn, compiled, since, until) -> np.ndarray:
    """:func:`query_ids` through the records' conditions (a query with bounds, or beyond a bare match)."""
    where = _query_where(conn, compiled, since, until)
    return _id_array(conn, "SELECT r.id AS id FROM records r" + where.sql() + " ORDER BY r.id", where.args)
