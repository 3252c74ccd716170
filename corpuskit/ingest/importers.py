"""File import: JSONL, CSV and Parquet in any known layout, deduplicated, all-or-nothing.

An import is one transaction. A bad row (no text, unparseable date) is
reported with its row number and reason and skipped; with ``strict=True`` the
first bad row aborts the import and nothing is written.

A file's rows carry no capture time unless they say so (the corpuskit
export does); ``capturedAt`` then equals ``publishedAt``, so importing the
same file always gives the same tables.
"""
from __future__ import annotations

import csv
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator

from tqdm.auto import tqdm

from corpuskit.errors import ImportFormatError, RowRejected, StrictImportError
from corpuskit.ingest.layouts import apply_layout, detect_layout, parse_map
from corpuskit.ingest.records import check_dedupe, check_source, dedupe_rule, normalise
from corpuskit.ingest.staging import Stage

FORMATS = ("jsonl", "csv", "parquet")
_BATCH = 2000


@dataclass
class ImportReport:
    """What an import did: counts, the layout used and every rejected row."""

    path: str
    layout: str = ""
    read: int = 0
    added: int = 0
    duplicates: int = 0
    rejected: int = 0
    rejections: list = field(default_factory=list)   # [(row number, reason)]
    run_id: str | None = None
    dedupe: str = "auto"
    duplicates_by: dict = field(default_factory=lambda: {"id": 0, "content": 0})

    def summary(self) -> str:
        """One line: counts, and which rule dropped the duplicates."""
        text = (f"read {self.read}, added {self.added}, duplicates {self.duplicates}, "
                f"rejected {self.rejected}")
        by = ", ".join(f"{n} by {rule}" for rule, n in sorted(self.duplicates_by.items()) if n)
        return text + f" (dedupe {self.dedupe}" + (f": {by})" if by else ")")


def detect_format(path: Path) -> str:
    """``jsonl``, ``csv`` or ``parquet`` from the file name (``.gz``/``.zst`` not here)."""
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson", ".json"):
        return "jsonl"
    if suffix in (".csv", ".tsv"):
        return "csv"
    if suffix in (".parquet", ".pq"):
        return "parquet"
    raise ImportFormatError(f"{path}: unknown file type {suffix!r}; expected .jsonl, .csv or .parquet")


def read_rows(path: Path, fmt: str) -> tuple[list, Iterator[tuple[int, dict]]]:
    """``(columns, iterator of (row number, row dict))`` for a file.

    Row numbers are 1-based data rows (the CSV header is not counted; for
    JSONL they are line numbers).
    """
    if fmt == "csv":
        return _read_csv(path)
    if fmt == "jsonl":
        return _read_jsonl(path)
    if fmt == "parquet":
        return _read_parquet(path)
    raise ImportFormatError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")


def _read_csv(path: Path):
    fh = open(path, newline="", encoding="utf-8-sig")
    delimiter = "\t" if path.suffix.lower() == ".tsv" else ","
    reader = csv.DictReader(fh, delimiter=delimiter)
    columns = reader.fieldnames
    if not columns:
        fh.close()
        raise ImportFormatError(f"{path}: empty CSV file (no header row)")

    def rows():
        with fh:
            for number, row in enumerate(reader, start=1):
                row.pop(None, None)
                yield number, row
    return list(columns), rows()


def _read_jsonl(path: Path):
    with open(path, encoding="utf-8-sig") as fh:
        head = fh.read(1)
        while head and head.isspace():
            head = fh.read(1)
    if head == "[":
        try:
            data = json.loads(path.read_text(encoding="utf-8-sig"))
        except json.JSONDecodeError as exc:
            raise ImportFormatError(f"{path}: not valid JSON: {exc}") from exc
        items = [(i + 1, row) for i, row in enumerate(data)]
        return _columns_of(r for _, r in items[:200]), iter(items)
    first = []
    with open(path, encoding="utf-8-sig") as fh:
        for number, line in enumerate(fh, start=1):
            if line.strip():
                first.append((number, line))
            if len(first) >= 50:
                break
    columns = _columns_of(_loads_or_none(line) for _, line in first)
    if not first:
        raise ImportFormatError(f"{path}: empty file")
    if not columns:
        raise ImportFormatError(f"{path}: no JSON objects in the first lines")

    def rows():
        with open(path, encoding="utf-8-sig") as fh:
            for number, line in enumerate(fh, start=1):
                if not line.strip():
                    continue
                obj = _loads_or_none(line)
                yield number, obj if obj is not None else {"__error__": "malformed JSON line"}
    return columns, rows()


def _loads_or_none(line):
    try:
        obj = json.loads(line)
    except json.JSONDecodeError:
        return None
    return obj if isinstance(obj, dict) else None


def _columns_of(objs) -> list:
    columns = []
    for obj in objs:
        if isinstance(obj, dict):
            columns.extend(k for k in obj if k not in columns)
    return columns


def _read_parquet(path: Path):
    import pyarrow.parquet as pq

    try:
        table = pq.ParquetFile(path)
    except Exception as exc:
        raise ImportFormatError(f"{path}: not a readable Parquet file: {exc}") from exc
    columns = table.schema_arrow.names

    def rows():
        number = 0
        for batch in table.iter_batches(batch_size=_BATCH):
            for row in batch.to_pylist():
                number += 1
                yield number, row
    return list(columns), rows()


def import_file(corpus, path, source: str | None = None, mapping=None, topic: str | None = None,
                strict: bool = False, progress: bool = False, format: str | None = None) -> ImportReport:
    """Import one file into ``corpus``.

    ``mapping`` is ``{field: column}`` or a list of ``FIELD=COLUMN`` strings.
    ``source`` is required unless the layout implies it (Hacker News, Reddit,
    Twitter layouts) or the rows carry their own (the corpuskit export).
    """
    path = Path(path)
    if not path.exists():
        raise ImportFormatError(f"{path}: no such file")
    if path.is_dir():
        raise ImportFormatError(f"{path}: is a directory")
    if source is not None:
        check_source(source)
    if isinstance(mapping, (list, tuple)):
        mapping = parse_map(mapping)
    fmt = format or detect_format(path)
    columns, rows = read_rows(path, fmt)
    layout = detect_layout(columns, mapping)
    source = source or layout.source
    if source is None and "source" not in columns:
        raise ImportFormatError(f"{path}: rows carry no source kind; pass --source KIND")

    def raws():
        for number, row in rows:
            if "__error__" in row:
                yield number, RowRejected(row["__error__"])
            else:
                yield number, apply_layout(layout, row)

    report = import_rows(corpus, raws(), source=source, topic=topic, strict=strict,
                         progress=progress, label=str(path), stage="import",
                         settings={"path": str(path), "layout": layout.name, "source": source,
                                   "topic": topic, "strict": strict})
    report.layout = layout.name
    return report


def import_rows(corpus, numbered_rows: Iterable[tuple[int, object]], source: str | None = None,
                topic: str | None = None, strict: bool = False, progress: bool = False,
                label: str = "rows", stage: str = "import", settings: dict | None = None,
                dedupe: str = "auto") -> ImportReport:
    """Normalise ``(row number, raw dict)`` pairs and store them all or none.

    The rows are staged outside the corpus (see :mod:`corpuskit.ingest.staging`)
    and stored in one short transaction at the end, with the run row. Under
    ``dedupe`` (``auto``, ``id``, ``content`` or ``none``; see
    :mod:`corpuskit.ingest.records`) duplicates within the rows and of stored
    records are counted, by rule, in the report and not stored.
    """
    check_dedupe(dedupe)
    report = ImportReport(path=label, dedupe=dedupe)
    conn = corpus.conn
    settings = dict(settings or {"label": label})
    settings["dedupe"] = dedupe
    with Stage(conn) as staged:
        batch = []
        for number, raw in tqdm(numbered_rows, desc=f"import {Path(label).name}",
                                unit="rec", disable=not progress, mininterval=0.5):
            report.read += 1
            try:
                if isinstance(raw, RowRejected):
                    raise raw
                rec = normalise(raw, source=source, topic=topic)
                batch.append((rec, dedupe_rule(rec, dedupe)))
            except RowRejected as exc:
                if strict:
                    raise StrictImportError(
                        f"{label}: row {number}: {exc.reason}; strict import aborted, nothing written"
                    ) from exc
                report.rejected += 1
                report.rejections.append((number, exc.reason))
            if len(batch) >= _BATCH:
                _stage_batch(staged, batch)
        _stage_batch(staged, batch)
        staged.mark_repeats()
        with corpus.transaction():
            with corpus.run_stage(stage, settings) as run_id:
                report.run_id = run_id
                counts = staged.store(run_id)
    report.added = counts["added"]
    report.duplicates_by = {"id": counts["id"], "content": counts["content"]}
    report.duplicates = counts["id"] + counts["content"]
    return report


def _stage_batch(staged: Stage, batch: list) -> None:
    staged.add(batch)
    batch.clear()
