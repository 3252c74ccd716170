"""Fetch a small page of rows in one SQLite step (the /v1 lists read their pages so).

Python's sqlite3 module lets go of the GIL around every ``sqlite3_step``, once
per row. With a threaded server under load, each let-go hands the GIL to
another thread and back (two futex wake-ups and context switches), which cost
more than the query itself. :func:`fetch_rows` has SQLite pack the rows into one
JSON text (``json_group_array``), so a page costs one step; real numbers travel
as ``%!.17g`` text so that they come back bit for bit.
"""
from __future__ import annotations

try:
    from orjson import loads as _loads
except ImportError:  # pragma: no cover - orjson is a dependency
    from json import loads as _loads


def _wire(expr: str, real: bool) -> str:
    return f"CASE WHEN ({expr}) IS NULL THEN NULL ELSE printf('%!.17g', {expr}) END" if real else expr


def fetch_rows(conn, columns, sql_from: str, args, order_key=None) -> list[dict]:
    """Rows of ``SELECT <columns> <sql_from>`` as dicts, in one SQLite step.

    ``columns`` is a sequence of ``(name, sql expression, is_real)``;
    ``sql_from`` the rest of the query (``FROM ... WHERE ... ORDER BY ... LIMIT ?``).
    ``order_key`` (a function of a row dict), when given, re-sorts the rows
    in Python (descending), since SQLite does not promise to aggregate a
    subquery in its order.
    """
    inner = ", ".join(f"{expr} AS c{i}" for i, (_, expr, _) in enumerate(columns))
    outer = ", ".join(_wire(f"c{i}", real) for i, (_, _, real) in enumerate(columns))
    text = conn.execute(f"SELECT json_group_array(json_array({outer})) FROM (SELECT {inner} {sql_from})",
                        args).fetchone()[0]
    names = [name for name, _, _ in columns]
    reals = [i for i, (_, _, real) in enumerate(columns) if real]
    rows = []
    for values in _loads(text):
        for i in reals:
            if values[i] is not None:
                values[i] = float(values[i])
        rows.append(dict(zip(names, values)))
    if order_key is not None:
        rows.sort(key=order_key, reverse=True)
    return rows
