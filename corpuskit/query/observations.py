"""Observations as the keyed interface lists them: an offset page, newest ``observed_at`` first."""
from __future__ import annotations

from corpuskit.query.where import Where


def observation_rows(conn, type=None, severity=None, since=None, limit: int = 50, offset: int = 0):
    """``(rows, total)``: observations ``(type, headline, detail, severity, observed_at)`` of
    ``type`` and ``severity`` observed from ``since`` (a stored timestamp), newest first (ties:
    id); None means no condition."""
    where = Where().equal("type", type).equal("severity", severity).bound("observed_at", "since", since)
    clause, args = where.sql(), where.args
    total = conn.execute(f"SELECT count(*) FROM observations{clause}", args).fetchone()[0]
    rows = conn.execute(
        f"SELECT type, headline, detail, severity, observed_at FROM observations{clause} "
        f"ORDER BY observed_at DESC, id DESC LIMIT ? OFFSET ?", args + [limit, offset]).fetchall()
    return rows, total
