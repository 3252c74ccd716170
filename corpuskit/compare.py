"""How two corpora differ, table by table (``Corpus.compare_with``, ``corpuskit compare A.db B.db``).

The manifest says *whether* two corpora hold the same tables (a digest per table);
:func:`compare` says *where* they differ. For the records and each derived table of
:data:`corpuskit.manifest.TABLE_DIGESTS` it reads the columns the digest covers (the same SQL,
so ``digestEqual`` is the manifest's verdict) and matches the rows of the two corpora by the
table's key, the first ``keys`` of those columns (``recordId`` for enrichment; ``recordId,
topic`` for topic assignments; ``slug`` for entities; ``signalKey``; ``topic, date`` for
snapshots; ``storyKey``; ``source, sourceId`` for records). A row is

* **same**: the key is in both and every column is equal (as the digest encodes it),
* **changed**: the key is in both and some column differs,
* **onlyA** / **onlyB**: the key is in one corpus only.

A key shared by several rows of one corpus (records imported without a sourceId: their key
is ``(source, "")``) is compared as a set of whole rows: a row of A equal to one of B is
same, the others are onlyA and onlyB. Row keys carry record ids, as the digests do: two
corpora compare row by row when their records were imported in the same order (the demo,
the same files imported alike); otherwise their records table can be the same while every
table keyed by ``recordId`` differs.

Both tables are read in key order (the digest's ``ORDER BY``) and merged as they stream, so
memory holds one chunk of rows and one key's rows, not a table. A corpus given as a path is
opened read-only (:func:`corpuskit.store.connect_read_only`): nothing is written or created.

The answer is a :class:`Comparison`: ``summary`` (a DataFrame, one row per table),
``columns`` (per table and column, the changed rows and the largest absolute difference of
numeric values), ``examples(table)`` (a few rows of each kind, key and differing values side
by side), ``identical``, ``to_dict()`` (JSON-ready) and ``to_text()`` (what the CLI prints).
"""
from __future__ import annotations

import hashlib
import json
import math
import numbers
import os
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field

import pandas as pd

from corpuskit.errors import ValidationError
from corpuskit.manifest import RECORDS_DIGEST, TABLE_DIGESTS, TableDigest, encode_row
from corpuskit.store import connect_read_only

#: What :func:`compare` can compare, in this order: the records, then every digested table.
TABLES: dict[str, TableDigest] = {"records": RECORDS_DIGEST, **TABLE_DIGESTS}
#: The kinds of difference, as ``examples`` and ``summary`` name them.
KINDS = ("changed", "onlyA", "onlyB")
_CHUNK = 2_000


@dataclass
class TableComparison:
    """One table of a :class:`Comparison`: row counts, matches and a few examples of each kind."""

    table: str
    columns: tuple
    keys: int
    rows_a: int = 0
    rows_b: int = 0
    same: int = 0
    changed: int = 0
    only_a: int = 0
    only_b: int = 0
    digest_a: str = ""
    digest_b: str = ""
    #: column -> [changed rows, largest absolute difference (None: not numeric)]
    column_changes: dict = field(default_factory=dict)
    #: ``{"change", "key": {column: value}, "a": {...} or None, "b": {...} or None}``, by kind in order
    examples: list = field(default_factory=list)

    @property
    def digest_equal(self) -> bool:
        """The two tables' digests (as the manifest computes them) are equal."""
        return self.digest_a == self.digest_b

    @property
    def identical(self) -> bool:
        """Every row the same, and the digests equal."""
        return self.digest_equal and not (self.changed or self.only_a or self.only_b)


class Comparison:
    """The differences between two corpora, ``a`` and ``b`` (see the module docstring)."""

    def __init__(self, a: str, b: str, tables: dict):
        self.a, self.b, self.tables = a, b, tables

    @property
    def identical(self) -> bool:
        """True when every compared table is the same in both corpora."""
        return all(t.identical for t in self.tables.values())

    @property
    def summary(self) -> pd.DataFrame:
        """One row per table: ``table, rowsA, rowsB, same, changed, onlyA, onlyB, digestEqual``."""
        return pd.DataFrame(
            [{"table": t.table, "rowsA": t.rows_a, "rowsB": t.rows_b, "same": t.same, "changed": t.changed,
              "onlyA": t.only_a, "onlyB": t.only_b, "digestEqual": t.digest_equal} for t in self.tables.values()],
            columns=["table", "rowsA", "rowsB", "same", "changed", "onlyA", "onlyB", "digestEqual"])

    @property
    def columns(self) -> pd.DataFrame:
        """One row per changed column of a table: ``table, column, changed`` (rows where it differs)
        and ``maxAbsDiff`` (the largest absolute difference where both values are numbers; NaN
        when they never are)."""
        rows = [{"table": t.table, "column": column, "changed": n,
                 "maxAbsDiff": float("nan") if diff is None else diff}
                for t in self.tables.values() for column, (n, diff) in t.column_changes.items()]
        return pd.DataFrame(rows, columns=["table", "column", "changed", "maxAbsDiff"])

    def examples(self, table: str) -> pd.DataFrame:
        """A few differing rows of ``table``: ``change`` (changed, onlyA, onlyB), the key columns,
        then ``column, a, b``: for a changed row one line per differing column with the two values;
        for a row in one corpus only, ``column`` None and the row's other columns as a dict under
        ``a`` or ``b``. Every column holds the values as stored (object dtype: None, not NaN)."""
        if table not in self.tables:
            raise ValidationError(f"table {table!r} was not compared; compared: {', '.join(self.tables)}")
        t = self.tables[table]
        keys = list(t.columns[:t.keys])
        rows = []
        for ex in t.examples:
            if ex["change"] == "changed":
                rows.extend({"change": "changed", **ex["key"], "column": column, "a": ex["a"][column],
                             "b": ex["b"][column]} for column in ex["a"])
            else:
                rows.append({"change": ex["change"], **ex["key"], "column": None, "a": ex["a"], "b": ex["b"]})
        # object columns: each value as stored (None stays None, not NaN)
        return pd.DataFrame(rows, columns=["change", *keys, "column", "a", "b"], dtype=object)

    def to_dict(self) -> dict:
        """JSON-ready: ``identical, a, b`` and per table its counts, ``digestEqual, digestA, digestB``,
        ``columns`` (``{column: {changed, maxAbsDiff}}``) and ``examples``."""
        return {"identical": self.identical, "a": self.a, "b": self.b, "tables": {
            t.table: {"rowsA": t.rows_a, "rowsB": t.rows_b, "same": t.same, "changed": t.changed,
                      "onlyA": t.only_a, "onlyB": t.only_b, "digestEqual": t.digest_equal,
                      "digestA": t.digest_a, "digestB": t.digest_b,
                      "columns": {c: {"changed": n, "maxAbsDiff": d} for c, (n, d) in t.column_changes.items()},
                      "examples": t.examples}
            for t in self.tables.values()}}

    def to_text(self, width: int = 60) -> str:
        """A readable report: the summary table, then per differing table its changed columns and
        examples (values cut at ``width`` characters)."""
        head = ("table", "rows A", "rows B", "same", "changed", "only A", "only B", "digest")
        body = [(t.table, t.rows_a, t.rows_b, t.same, t.changed, t.only_a, t.only_b,
                 "equal" if t.digest_equal else "differs") for t in self.tables.values()]
        name_width = max(len(head[0]), *(len(r[0]) for r in body))
        widths = [name_width] + [max(len(head[i]), *(len(f"{r[i]:,}" if isinstance(r[i], int) else r[i])
                                                     for r in body)) for i in range(1, len(head))]

        def line(cells):
            first = f"{cells[0]:<{widths[0]}}"
            rest = [f"{c:,}" if isinstance(c, int) else c for c in cells[1:]]
            return "  ".join([first, *(f"{c:>{w}}" for c, w in zip(rest, widths[1:]))]).rstrip()

        lines = [f"A: {self.a}", f"B: {self.b}", "", line(head), *(line(r) for r in body)]
        for t in self.tables.values():
            if t.identical:
                continue
            counts = [f"{n:,} {what}" for n, what in ((t.changed, "changed"), (t.only_a, "only in A"),
                                                      (t.only_b, "only in B")) if n]
            lines += ["", f"{t.table}: " + ", ".join(counts or ["rows match; the digests differ"])]
            for column, (n, diff) in t.column_changes.items():
                largest = "" if diff is None else f", largest |A - B| {diff:.6g}"
                lines.append(f"  {column}: {n:,} " + ("row differs" if n == 1 else "rows differ") + largest)
            for ex in t.examples:
                key = " ".join(f"{k}={_short(v, width)}" for k, v in ex["key"].items())
                if ex["change"] == "changed":
                    lines.append(f"  changed    {key}")
                    lines += [f"      {c}: {_short(ex['a'][c], width)} -> {_short(ex['b'][c], width)}" for c in ex["a"]]
                else:
                    side = "A" if ex["change"] == "onlyA" else "B"
                    values = ex["a"] if side == "A" else ex["b"]
                    lines.append(f"  only in {side}  {key}")
                    if values:
                        lines.append("      " + _short(", ".join(f"{c}={_short(v, width)}" for c, v in values.items()),
                                                        2 * width + 40, quote=False))
        differing = sum(not t.identical for t in self.tables.values())
        lines += ["", "the two corpora hold the same tables" if not differing else
                  f"{differing} of {len(self.tables)} tables differ"]
        return "\n".join(lines)

    def __repr__(self) -> str:
        differing = [t.table for t in self.tables.values() if not t.identical]
        return f"<Comparison {self.a!r} vs {self.b!r}: " + ("identical>" if not differing else
            f"{len(differing)} of {len(self.tables)} tables differ: {', '.join(differing)}>")


def compare(a, b, tables=None, examples: int = 3, driver: str | None = None) -> Comparison:
    """Compare corpus ``a`` with corpus ``b``, each a :class:`~corpuskit.Corpus` or the path of a corpus
    file (opened read-only; a missing file is a :class:`~corpuskit.errors.StoreError`, never created).

    ``tables``: names from :data:`TABLES` (default all: ``records`` and every digested table);
    ``examples``: at most this many example rows of each kind (changed, onlyA, onlyB) per table;
    ``driver``: the SQLite driver a path is opened with. Returns a :class:`Comparison`.
    """
    names = list(TABLES) if tables is None else ([tables] if isinstance(tables, str) else list(tables))
    unknown = [n for n in names if n not in TABLES]
    if unknown or not names:
        raise ValidationError(f"unknown table {', '.join(map(repr, unknown)) or '(none given)'}: "
                              f"compare one of {', '.join(TABLES)}")
    if not isinstance(examples, numbers.Integral) or isinstance(examples, bool) or examples < 0:
        raise ValidationError(f"examples must be a whole number >= 0, not {examples!r}")
    with ExitStack() as stack:
        conn_a = stack.enter_context(_reading(a, driver))
        conn_b = stack.enter_context(_reading(b, driver))
        result = {name: compare_table(conn_a, conn_b, name, TABLES[name], int(examples)) for name in names}
    return Comparison(_label(a), _label(b), result)


def compare_table(conn_a, conn_b, name: str, spec: TableDigest, examples: int = 3) -> TableComparison:
    """Compare one table of two open connections (see :func:`compare`)."""
    out = TableComparison(name, spec.columns, spec.keys)
    side_a, side_b = _Side(conn_a, spec, "A"), _Side(conn_b, spec, "B")
    group_a, group_b = next(side_a.groups, None), next(side_b.groups, None)
    while group_a is not None or group_b is not None:
        if group_b is None or (group_a is not None and group_a[0] < group_b[0]):
            _only(out, "onlyA", group_a[1], examples)
            group_a = next(side_a.groups, None)
        elif group_a is None or group_b[0] < group_a[0]:
            _only(out, "onlyB", group_b[1], examples)
            group_b = next(side_b.groups, None)
        else:
            _match(out, group_a[1], group_b[1], examples)
            group_a, group_b = next(side_a.groups, None), next(side_b.groups, None)
    out.rows_a, out.rows_b = side_a.count, side_b.count
    out.digest_a, out.digest_b = side_a.sha.hexdigest(), side_b.sha.hexdigest()
    # in the table's column order, and the examples by kind (each kind in key order)
    out.column_changes = {c: out.column_changes[c] for c in out.columns if c in out.column_changes}
    out.examples.sort(key=lambda ex: KINDS.index(ex["change"]))
    return out


class _Side:
    """One corpus's rows of a table, streamed in key order, grouped by key and digested on the way."""

    def __init__(self, conn, spec: TableDigest, label: str):
        self.sha, self.count = hashlib.sha256(), 0
        self.groups = self._groups(conn, spec, label)

    def _rows(self, conn, sql):
        cursor = conn.execute(sql)
        while chunk := cursor.fetchmany(_CHUNK):
            for row in chunk:
                row = tuple(row)
                encoded = encode_row(row)
                self.sha.update(encoded.encode())
                self.sha.update(b"\n")
                self.count += 1
                yield row, encoded

    def _groups(self, conn, spec, label):
        """``(order key, [(row, encoded), ...])`` per key; checks the rows come in key order."""
        key, group = None, []
        for row, encoded in self._rows(conn, spec.sql):
            this = _order(row[:spec.keys])
            if group and this == key:
                group.append((row, encoded))
                continue
            if group:
                if this < key:  # the merge needs key order: the digest SQL must ORDER BY its key first
                    raise RuntimeError(f"corpus {label}: the digest rows are not in key order ({row[:spec.keys]})")
                yield key, group
            key, group = this, [(row, encoded)]
        if group:
            yield key, group


def _order(values) -> tuple:
    # SQLite's order: NULL, numbers, text (BINARY: UTF-8 bytes, the code point order), blobs
    return tuple((0, 0) if v is None else (1, v) if isinstance(v, (int, float)) else
                 (3, v) if isinstance(v, bytes) else (2, str(v)) for v in values)


def _match(out: TableComparison, rows_a: list, rows_b: list, examples: int) -> None:
    """The rows of one key in A and in B."""
    if len(rows_a) == 1 and len(rows_b) == 1:
        (row_a, enc_a), (row_b, enc_b) = rows_a[0], rows_b[0]
        if enc_a == enc_b:
            out.same += 1
        else:
            _changed(out, row_a, row_b, examples)
        return
    # a key shared by several rows: match whole rows, the rest are in one corpus only
    left = {}
    for row, encoded in rows_b:
        left.setdefault(encoded, []).append(row)
    unmatched_a = []
    for row, encoded in rows_a:
        if left.get(encoded):
            left[encoded].pop()
            out.same += 1
        else:
            unmatched_a.append((row, encoded))
    _only(out, "onlyA", unmatched_a, examples)
    _only(out, "onlyB", [(row, enc) for enc, rows in left.items() for row in rows], examples)


def _changed(out: TableComparison, row_a: tuple, row_b: tuple, examples: int) -> None:
    out.changed += 1
    differing = {}
    for i in range(out.keys, len(out.columns)):
        x, y = row_a[i], row_b[i]
        if encode_row([x]) == encode_row([y]):
            continue
        column = out.columns[i]
        differing[column] = (x, y)
        entry = out.column_changes.setdefault(column, [0, None])
        entry[0] += 1
        if _number(x) and _number(y) and not (math.isnan(x) or math.isnan(y)):
            entry[1] = max(entry[1] or 0.0, abs(float(x) - float(y)))
    if _count(out, "changed") < examples:
        out.examples.append({"change": "changed", "key": _key(out, row_a),
                             "a": {c: v[0] for c, v in differing.items()},
                             "b": {c: v[1] for c, v in differing.items()}})


def _only(out: TableComparison, kind: str, rows: list, examples: int) -> None:
    if kind == "onlyA":
        out.only_a += len(rows)
    else:
        out.only_b += len(rows)
    for row, _ in rows[:max(0, examples - _count(out, kind))]:
        values = dict(zip(out.columns[out.keys:], row[out.keys:]))
        out.examples.append({"change": kind, "key": _key(out, row),
                             "a": values if kind == "onlyA" else None,
                             "b": values if kind == "onlyB" else None})


def _count(out: TableComparison, kind: str) -> int:
    return sum(ex["change"] == kind for ex in out.examples)


def _key(out: TableComparison, row: tuple) -> dict:
    return dict(zip(out.columns[:out.keys], row[:out.keys]))


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _short(value, width: int, quote: bool = True) -> str:
    if not quote:
        text = str(value)
    elif isinstance(value, str):
        text = repr(value)   # JSON held in a text column stays readable: '{"a": 1}'
    else:
        text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= width else text[:width - 1] + "…"


def _label(corpus) -> str:
    path = getattr(corpus, "path", corpus)
    return str(path) if isinstance(path, (str, os.PathLike)) else repr(corpus)


@contextmanager
def _reading(corpus, driver):
    """A connection to read ``corpus`` through, inside one read transaction (a consistent snapshot)."""
    if isinstance(corpus, (str, os.PathLike)):
        conn, own = connect_read_only(corpus, driver=driver), True
    else:
        conn, own = corpus.conn, False
    began = not conn.in_transaction
    try:
        if began:
            conn.execute("BEGIN")
        yield conn
    finally:
        if began and conn.in_transaction:
            conn.execute("COMMIT")
        if own:
            conn.close()
