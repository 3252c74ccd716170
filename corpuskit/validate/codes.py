"""Codes people give to the records of a sample, checked against the sample's codebook.

A code is (sample, record, coder, variable, value, note, time). Every code of a
call is checked before anything is written: the variable must be in the
codebook, the value among its values, the record in the corpus and in the
sample, and a coder may code a record's variable once (``replace=True``
overwrites). One bad code and nothing of the call is written, while every code
stored before stays; :class:`CodeError` lists each failing row.
"""
from __future__ import annotations

import csv
from pathlib import Path

import pandas as pd

from corpuskit.clock import iso, parse_timestamp, wall_clock
from corpuskit.errors import ValidationError
from corpuskit.query.coding import code_rows, missing_records, sample_row
from corpuskit.store import transaction
from corpuskit.validate.samples import sample_codebook

CODE_COLUMNS = ["sample", "recordId", "coder", "variable", "value", "note", "codedAt"]
_SHEET_FIXED = ("recordId", "text", "note")


class CodeError(ValidationError):
    """Some codes do not fit; ``failures`` lists ``(row, reason)`` and nothing of the call was written."""

    def __init__(self, failures: list[tuple[int, str]], label: str = "row"):
        self.failures = failures
        shown = "; ".join(f"{label} {row}: {reason}" for row, reason in failures[:10])
        more = f"; ... and {len(failures) - 10} more" if len(failures) > 10 else ""
        super().__init__(f"{len(failures)} code(s) rejected, nothing written: {shown}{more}")


def _codebook_of(corpus, sample: str):
    book = sample_codebook(corpus, sample)
    if book is None:
        raise ValidationError(f"sample {sample!r} has no codebook; attach one with "
                              "corpus.codebook(sample, path) or the sheet's --codebook")
    return book


def add_codes(corpus, sample: str, coder: str, codes, replace: bool = False, at=None,
              label: str = "row") -> int:
    """Store ``codes`` of ``coder`` on ``sample``; returns how many were written.

    ``codes`` is an iterable of ``(row, record_id, variable, value, note)`` where
    ``row`` names the code in errors (a sheet's line number, say). ``at`` is the
    coding time (default: the wall clock). Raises :class:`CodeError` listing
    every failing row; then nothing is written.
    """
    if not isinstance(coder, str) or not coder.strip():
        raise ValidationError(f"coder must be a non-empty name, not {coder!r}")
    coder = coder.strip()
    conn = corpus.conn
    sample_id = sample_row(conn, sample)["id"]
    book = _codebook_of(corpus, sample)
    codes = list(codes)
    members = {r[0] for r in conn.execute("SELECT record_id FROM sample_records WHERE sample_id = ?",
                                          (sample_id,))}
    ids = []
    for row, record, *_ in codes:
        try:
            ids.append(int(record))
        except (TypeError, ValueError):
            pass
    unknown = set(missing_records(conn, ids))
    stored = {(r[0], r[1]) for r in conn.execute(
        "SELECT record_id, variable FROM codes WHERE sample_id = ? AND coder = ?", (sample_id, coder))}
    failures, seen, ready = [], {}, []
    for row, record, variable, value, note in codes:
        try:
            rid = int(record)
        except (TypeError, ValueError):
            failures.append((row, f"record id {record!r} is not a whole number"))
            continue
        try:
            text = book.variable(variable).check(value)
        except ValidationError as exc:
            failures.append((row, f"record {rid}: {exc}"))
            continue
        if rid in unknown:
            failures.append((row, f"record {rid} is not in the corpus"))
        elif rid not in members:
            failures.append((row, f"record {rid} is not in sample {sample!r}"))
        elif (rid, variable) in seen:
            failures.append((row, f"{coder} codes record {rid} {variable!r} twice "
                                  f"(also {label} {seen[(rid, variable)]})"))
        elif (rid, variable) in stored and not replace:
            failures.append((row, f"{coder} has already coded record {rid} {variable!r}; "
                                  "pass replace=True (--replace) to overwrite"))
        else:
            seen[(rid, variable)] = row
            ready.append((sample_id, rid, coder, variable, text, "" if note is None else str(note)))
    if failures:
        raise CodeError(failures, label)
    when = iso(wall_clock()) if at is None else iso(parse_timestamp(at))
    with transaction(conn):
        conn.executemany(
            "INSERT INTO codes(sample_id, record_id, coder, variable, value, note, coded_at) "
            "VALUES (?,?,?,?,?,?,?) ON CONFLICT(sample_id, record_id, coder, variable) DO UPDATE SET "
            "value = excluded.value, note = excluded.note, coded_at = excluded.coded_at",
            [(*r, when) for r in ready])
    return len(ready)


def import_sheet(corpus, path, sample: str, coder: str, replace: bool = False, at=None) -> int:
    """Import a filled coding sheet (CSV, as :func:`write_coding_sheet` writes it); returns codes stored.

    Every non-empty cell of a variable column is a code; ``note`` applies to the
    row's codes. One transaction: a bad cell rejects the whole sheet, naming its
    line (:class:`CodeError`).
    """
    path = Path(path)
    if not path.is_file():
        raise ValidationError(f"coding sheet {str(path)!r} does not exist")
    book = _codebook_of(corpus, sample)
    with open(path, encoding="utf-8-sig", newline="") as fh:
        reader = csv.DictReader(fh)
        header = reader.fieldnames or []
        if "recordId" not in header:
            raise ValidationError(f"coding sheet {path.name} has no recordId column")
        variables = [h for h in header if h not in _SHEET_FIXED]
        unknown = [v for v in variables if v not in book.variables]
        if unknown:
            raise ValidationError(f"coding sheet {path.name}: column(s) {', '.join(unknown)} are not "
                                  f"codebook variables ({', '.join(book.variables)})")
        codes = []
        for line, row in enumerate(reader, start=2):
            for variable in variables:
                value = (row.get(variable) or "").strip()
                if value:
                    codes.append((line, (row.get("recordId") or "").strip(), variable, value,
                                  (row.get("note") or "").strip()))
    return add_codes(corpus, sample, coder, codes, replace=replace, at=at, label="line")


def codes_frame(corpus, sample: str | None = None) -> pd.DataFrame:
    """Codes as a DataFrame (:data:`CODE_COLUMNS`), every sample's when ``sample`` is None."""
    sample_id = None if sample is None else sample_row(corpus.conn, sample)["id"]
    return pd.DataFrame(code_rows(corpus.conn, sample_id), columns=CODE_COLUMNS)


def code_matrix(corpus, sample: str, variable: str) -> pd.DataFrame:
    """One variable's codes as a table: a row per coded record (by sample order), a column per coder
    (sorted), NaN where a coder left a record uncoded."""
    frame = codes_frame(corpus, sample)
    frame = frame[frame["variable"] == variable]
    if frame.empty:
        raise ValidationError(f"sample {sample!r} has no codes for {variable!r}")
    table = frame.pivot(index="recordId", columns="coder", values="value")
    order = [r[0] for r in corpus.conn.execute(
        "SELECT record_id FROM sample_records WHERE sample_id = ? ORDER BY position",
        (sample_row(corpus.conn, sample)["id"],))]
    table = table.reindex([r for r in order if r in table.index])
    table.columns.name = None
    return table[sorted(table.columns)]


def code_tables(corpus, sample: str, variable: str | None = None):
    """The sample's codebook and, per variable asked for (every one when ``variable`` is None), its
    :func:`code_matrix`, or None when nobody has coded it yet."""
    book = _codebook_of(corpus, sample)
    names = [book.variable(variable).name] if variable is not None else list(book.variables)
    tables = {}
    for name in names:
        try:
            tables[name] = code_matrix(corpus, sample, name)
        except ValidationError:
            tables[name] = None
    return book, tables
