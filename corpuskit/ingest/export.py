"""Export the corpus as tables that join: one table to a file, or every table as a bundle.

Every table of :data:`~corpuskit.ingest.export_columns.COLUMNS` carries the
keys that join it to the others (``recordId`` wherever a record is meant,
``entityId``, ``topicId``, ``clusterId``, ``signalId``, ``storyId``). The
records table uses the corpuskit layout, so it imports back into another
corpus as is; its derived columns
(:data:`~corpuskit.ingest.export_columns.DERIVED_RECORD_COLUMNS`) are skipped
on import.

Formats: Parquet columns are typed (int64, double, bool, string,
``timestamp[ns, UTC]``, ``date32``, lists as lists, JSON objects as JSON
text); CSV writes timestamps as ``YYYY-MM-DDTHH:MM:SSZ``, lists and objects
as JSON text, booleans as ``true``/``false`` and null as an empty field;
JSON lines keep lists as arrays and objects as objects, timestamps as
ISO 8601 text.
"""
from __future__ import annotations

import csv
import json
import shutil
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path

from corpuskit.errors import ImportFormatError, ValidationError
from corpuskit.ingest.export_columns import TABLES, columns
from corpuskit.ingest.export_tables import record_columns, table_rows
from corpuskit.ingest.pseudonymise import Pseudonymiser, new_salt
from corpuskit.query import RecordFilter

FORMATS = ("jsonl", "csv", "parquet")
_SUFFIX = {"jsonl": "jsonl", "csv": "csv", "parquet": "parquet"}
_BATCH = 5000

__all__ = ["BundleReport", "FORMATS", "TABLES", "export_bundle", "export_table", "iter_records"]


def _format(path: Path, format: str | None) -> str:
    fmt = (format or path.suffix.lstrip(".")).lower()
    if fmt == "ndjson":
        fmt = "jsonl"
    if fmt not in FORMATS:
        raise ImportFormatError(f"unknown export format {fmt!r}; expected jsonl, csv or parquet")
    if not path.parent.exists():
        raise ImportFormatError(f"cannot write {path}: directory {path.parent} does not exist")
    return fmt


# -- values ------------------------------------------------------------------------------------
def _timestamp(text):
    return None if text is None else datetime.fromisoformat(text.replace("Z", "+00:00"))


def _typed(col, value):
    """A stored value as the Python value of its declared type (lists parsed, bools, datetimes)."""
    if value is None:
        return None
    kind = col.type
    if kind == "bool":
        return bool(value)
    if kind == "int":
        return int(value)
    if kind == "float":
        return float(value)
    if kind == "timestamp":
        return _timestamp(value)
    if kind == "date":
        return date.fromisoformat(value[:10])
    if kind.startswith("list<"):
        return json.loads(value) if isinstance(value, str) else list(value)
    if kind == "json":
        return json.dumps(json.loads(value), ensure_ascii=False, sort_keys=True)
    return value


def _arrow_type(kind: str):
    import pyarrow as pa

    return {"int": pa.int64(), "float": pa.float64(), "str": pa.string(), "bool": pa.bool_(),
            "timestamp": pa.timestamp("ns", tz="UTC"), "date": pa.date32(), "list<int>": pa.list_(pa.int64()),
            "list<str>": pa.list_(pa.string()), "json": pa.string()}[kind]


def _text_cell(col, value):
    """A typed value as text for CSV (None -> '')."""
    if value is None:
        return ""
    if col.type == "bool":
        return "true" if value else "false"
    if col.type == "timestamp":
        return value.strftime("%Y-%m-%dT%H:%M:%SZ")
    if col.type == "date":
        return value.isoformat()
    if col.type.startswith("list<"):
        return json.dumps(value, ensure_ascii=False)
    return value


def _json_cell(col, value):
    if value is None:
        return None
    if col.type == "timestamp":
        return value.strftime("%Y-%m-%dT%H:%M:%SZ")
    if col.type == "date":
        return value.isoformat()
    if col.type == "json":
        return json.loads(value)
    return value


class _Scrub:
    """Applies a :class:`Pseudonymiser` to the personal columns of one table's typed rows."""

    def __init__(self, pseudo: Pseudonymiser, cols):
        self.steps = []
        for i, col in enumerate(cols):
            if col.personal == "author":
                self.steps.append((i, pseudo.author))
            elif col.personal in ("text", "terms"):
                step = pseudo.terms if col.personal == "terms" else pseudo.text
                if col.type == "json":
                    fn = (lambda v, terms=col.personal == "terms": pseudo.json_text(v, terms=terms))
                elif col.type.startswith("list<"):
                    fn = (lambda v, step=step: [step(x) for x in v])
                else:
                    fn = step
                self.steps.append((i, fn))

    def __call__(self, row: list) -> list:
        for i, fn in self.steps:
            if row[i] is not None:
                row[i] = fn(row[i])
        return row


def _rows(conn, table, flt, present, pseudo):
    cols = columns(table, present)
    scrub = _Scrub(pseudo, cols) if pseudo is not None else None
    for raw in table_rows(conn, table, flt, present):
        row = [_typed(c, v) for c, v in zip(cols, raw)]
        yield scrub(row) if scrub else row


def _write(rows, cols, tmp: Path, fmt: str) -> int:
    names = [c.name for c in cols]
    count = 0
    if fmt == "jsonl":
        with open(tmp, "w", encoding="utf-8") as fh:
            for row in rows:
                fh.write(json.dumps({n: _json_cell(c, v) for n, c, v in zip(names, cols, row)},
                                    ensure_ascii=False) + "\n")
                count += 1
    elif fmt == "csv":
        with open(tmp, "w", newline="", encoding="utf-8") as fh:
            writer = csv.writer(fh)
            writer.writerow(names)
            for row in rows:
                writer.writerow([_text_cell(c, v) for c, v in zip(cols, row)])
                count += 1
    else:
        import pyarrow as pa
        import pyarrow.parquet as pq

        schema = pa.schema([pa.field(c.name, _arrow_type(c.type), nullable=True) for c in cols])
        with pq.ParquetWriter(tmp, schema) as writer:
            batch: list = []
            for row in rows:
                batch.append(row)
                if len(batch) >= _BATCH:
                    writer.write_table(_arrow_table(batch, schema))
                    count += len(batch)
                    batch = []
            if batch or count == 0:
                writer.write_table(_arrow_table(batch, schema))
                count += len(batch)
    return count


def _arrow_table(batch, schema):
    import pyarrow as pa

    arrays = [pa.array([row[i] for row in batch], type=f.type) for i, f in enumerate(schema)]
    return pa.Table.from_arrays(arrays, schema=schema)


def _filter(source=None, topic=None, since=None, until=None, query=None) -> RecordFilter:
    return RecordFilter(source=source, topic=topic, since=since, until=until, query=query)


def _pseudonymiser(conn, flt: RecordFilter, salt: str) -> Pseudonymiser:
    sql, args = flt.record_ids_sql(conn)
    authors = (r[0] for r in conn.execute(f"SELECT DISTINCT author FROM records WHERE author != '' "
                                          f"AND id IN ({sql})", args))
    return Pseudonymiser(salt, authors)


def export_table(corpus, path, format: str | None = None, table: str = "records", source=None, topic=None,
                 since=None, until=None, pseudonymise: bool = False, salt: str | None = None,
                 query=None) -> int:
    """Write one table (:data:`TABLES`) to ``path``; return the rows written.

    ``format`` defaults to the file's extension. ``source``, ``topic``,
    ``since``, ``until`` and ``query`` (the query language) select records (see
    :class:`~corpuskit.query.RecordFilter`); a row that names a record is kept
    when its record is selected (the codebook says which rows each table keeps).
    ``pseudonymise`` hashes authors with ``salt`` (a random one when None) and
    removes handles and profile links (see :mod:`corpuskit.ingest.pseudonymise`).
    """
    if table not in TABLES:
        raise ValidationError(f"table must be one of {', '.join(TABLES)}, not {table!r}")
    path = Path(path)
    fmt = _format(path, format)
    conn = corpus.conn
    flt = _filter(source, topic, since, until, query)
    flt.where(conn)                      # a bad filter fails before anything is written
    pseudo = _pseudonymiser(conn, flt, salt or new_salt()) if pseudonymise else None
    present = record_columns(conn)
    tmp = path.with_name(path.name + ".part")
    try:
        count = _write(_rows(conn, table, flt, present, pseudo), columns(table, present), tmp, fmt)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    tmp.replace(path)
    return count


@dataclass
class BundleReport:
    """What :func:`export_bundle` wrote: ``path``, ``format``, ``rows`` per table, the ``filters``
    applied, and ``salt`` (the salt a pseudonymised export used, None otherwise; ``salt_stored``
    says whether the bundle keeps it)."""

    path: Path
    format: str
    rows: dict = field(default_factory=dict)
    filters: dict = field(default_factory=dict)
    salt: str | None = None
    salt_stored: bool = False

    def summary(self) -> str:
        """One line: the tables and their row counts."""
        return ", ".join(f"{t} {n}" for t, n in self.rows.items())


def export_bundle(corpus, path, format: str = "parquet", source=None, topic=None, since=None, until=None,
                  pseudonymise: bool = False, salt: str | None = None,
                  store_salt: bool = False, query=None, *, manifest) -> BundleReport:
    """Write every table, ``manifest.json`` and ``codebook.md`` into the directory ``path``.

    ``path`` must not exist or be an empty directory. The tables are
    ``<table>.<format>`` for each of :data:`TABLES`; ``manifest.json`` is
    ``manifest()`` plus the export's own entry (format, filters, tables,
    pseudonymisation), where ``manifest`` is the callable the library surface passes down
    (``Corpus.manifest``), called once the tables are written; ``codebook.md`` defines every column of every table
    written (see :func:`corpuskit.ingest.export_codebook.codebook`). With
    ``pseudonymise``, the salt (``salt``, else a random one) is returned in
    the report and written to ``salt.txt`` only when ``store_salt``.
    Nothing is left behind when it fails: the bundle is written beside
    ``path`` and moved into place at the end.
    """
    from corpuskit.ingest.export_codebook import codebook

    if format not in FORMATS:
        raise ImportFormatError(f"unknown export format {format!r}; expected jsonl, csv or parquet")
    if salt is not None and not pseudonymise:
        raise ValidationError("salt is only used with pseudonymise=True")
    if store_salt and not pseudonymise:
        raise ValidationError("store_salt is only used with pseudonymise=True")
    path = Path(path)
    if path.exists() and (not path.is_dir() or any(path.iterdir())):
        raise ImportFormatError(f"cannot write the bundle to {path}: it exists and is not an empty directory")
    if not path.parent.exists():
        raise ImportFormatError(f"cannot write {path}: directory {path.parent} does not exist")
    conn = corpus.conn
    flt = _filter(source, topic, since, until, query)
    flt.where(conn)
    report = BundleReport(path=path, format=format, filters=flt.describe())
    pseudo = None
    if pseudonymise:
        report.salt = salt or new_salt()
        report.salt_stored = store_salt
        pseudo = _pseudonymiser(conn, flt, report.salt)
    present = record_columns(conn)
    work = path.with_name(path.name + ".part")
    if work.exists():
        shutil.rmtree(work)
    work.mkdir()
    try:
        written = {}
        for table in TABLES:
            cols = columns(table, present)
            report.rows[table] = _write(_rows(conn, table, flt, present, pseudo), cols,
                                        work / f"{table}.{_SUFFIX[format]}", format)
            written[table] = cols
        contents = manifest()
        contents["export"] = {"format": format, "filters": report.filters, "tables": report.rows,
                              "pseudonymised": pseudonymise, "saltStored": report.salt_stored}
        (work / "manifest.json").write_text(json.dumps(contents, indent=2, sort_keys=True, default=str) + "\n",
                                           encoding="utf-8")
        (work / "codebook.md").write_text(codebook(written, contents, format=format, filters=report.filters,
                                                   pseudonymised=pseudonymise), encoding="utf-8")
        if store_salt:
            (work / "salt.txt").write_text(report.salt + "\n", encoding="utf-8")
        if path.exists():
            path.rmdir()
        work.replace(path)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return report


def iter_records(corpus):
    """Every record as a dict of its record fields (the corpuskit layout), oldest first."""
    from corpuskit.ingest.records import row_to_record

    for row in corpus.conn.execute("SELECT r.* FROM records r ORDER BY r.published_at, r.id"):
        rec = row_to_record(row)
        rec.pop("id")
        yield rec

