"""File import: JSONL, CSV and Parquet in any known layout, deduplicated, all-or-nothing.

An import stores all its rows or none: rows are staged outside the corpus and
stored in one short transaction at the end (see :mod:`corpuskit.ingest.staging`).
A bad row (no text, unparseable date, a field too long, not a JSON object, a
count that is not a whole number) is reported with its row number and reason
and skipped; with ``strict=True`` a bad row aborts the import, nothing is
written, and the error lists the first bad rows (up to :data:`STRICT_ERRORS`).
Dates follow :mod:`corpuskit.ingest.dates` (``date_format=``, ``dayfirst=``, else
one order for the whole file). A file that cannot be
read at all (binary, wrong encoding) raises :class:`ImportFormatError`.

Past its first rows an import parses and normalises in a worker process while it stages
the rows before (see :mod:`corpuskit.ingest.pipeline`); the tables are the same.

A file's rows carry no capture time unless they say so (the corpuskit
export does); ``capturedAt`` then equals ``publishedAt``, so importing the
same file always gives the same tables.
"""
from __future__ import annotations

import itertools
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from tqdm.auto import tqdm

from corpuskit.errors import ImportFormatError, RowRejected, StrictImportError
from corpuskit.ingest.dates import DateRules
from corpuskit.ingest.layouts import JSON_FORMATS, apply_layout, detect_layout, parse_map
from corpuskit.ingest.objects import COMPRESSED, iter_objects
from corpuskit.ingest.platforms import SOURCES, converter, posts, sniff
from corpuskit.ingest.readers import FORMATS, MAX_FIELD_CHARS, detect_format, read_rows
from corpuskit.ingest.records import check_dedupe, check_source, dedupe_rule, normalise
from corpuskit.ingest.pipeline import CHUNK, chunked
from corpuskit.ingest.staging import Stage, staged_rows

__all__ = ["FORMATS", "ImportReport", "add_records", "detect_format", "import_file", "import_rows", "read_rows"]
#: how many bad rows a strict import reads before it stops and reports them
STRICT_ERRORS = 10


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
    date_order: str | None = None   # how slash dates were read: day-first, month-first, None
    date_note: str | None = None    # which row decided that order, when the file's dates did
    warnings: list = field(default_factory=list)

    def summary(self) -> str:
        """One line: counts, which rule dropped the duplicates, and any warning.

        How the file's own slash dates decided their order is :attr:`date_note` (the
        command prints it as a note).
        """
        text = (f"read {self.read}, added {self.added}, duplicates {self.duplicates}, "
                f"rejected {self.rejected}")
        by = ", ".join(f"{n} by {rule}" for rule, n in sorted(self.duplicates_by.items()) if n)
        text += f" (dedupe {self.dedupe}" + (f": {by})" if by else ")")
        return text + "".join(f"; warning: {w}" for w in self.warnings)


def import_file(corpus, path, source: str | None = None, mapping=None, topic: str | None = None,
                strict: bool = False, progress: bool = False, format: str | None = None,
                dedupe: str = "auto", encoding: str | None = None,
                max_field_chars: int = MAX_FIELD_CHARS, date_format: str | None = None,
                dayfirst: bool | None = None) -> ImportReport:
    """Import one file into ``corpus``.

    ``mapping`` is ``{field: column}`` or a list of ``FIELD=COLUMN`` strings
    (``sourceId=COLUMN`` names the column that identifies a post).
    ``source`` is required unless the layout implies it (Hacker News, Reddit,
    Twitter layouts) or the rows carry their own (the corpuskit export).
    ``dedupe`` is the duplicate rule: ``auto`` (sourceId when the row has one,
    else source + author + title + text + publishedAt), ``id``, ``content`` or ``none``
    (see :mod:`corpuskit.ingest.records`). ``encoding`` names the text file's
    encoding (default UTF-8, following a byte-order mark); rows with a field
    longer than ``max_field_chars`` are rejected (see :mod:`corpuskit.ingest.readers`).
    ``date_format`` (a ``strptime`` format) and ``dayfirst`` (True: day/month,
    False: month/day) override the file-wide guess of :mod:`corpuskit.ingest.dates`.
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
    check_dedupe(dedupe)
    if isinstance(max_field_chars, bool) or not isinstance(max_field_chars, int) or max_field_chars < 1:
        raise ImportFormatError(f"max_field_chars must be a positive integer, not {max_field_chars!r}")
    compressed = path.suffix.lower() in COMPRESSED
    fmt = format or ("jsonl" if compressed else detect_format(path))
    if fmt == "jsonl" and not mapping:
        kind = sniff(iter_objects(path, encoding, strict_text=True))
        if kind is not None:
            return _import_platform(corpus, path, kind, source=source, topic=topic, strict=strict,
                                    progress=progress, dedupe=dedupe, encoding=encoding,
                                    max_field_chars=max_field_chars, date_format=date_format,
                                    dayfirst=dayfirst)
    if compressed:
        raise ImportFormatError(
            f"{path}: a compressed file holds no recognised platform JSON (" + ", ".join(JSON_FORMATS)
            + "); decompress it to import it as JSON lines or CSV")
    columns, rows = read_rows(path, fmt, encoding=encoding, max_field_chars=max_field_chars)
    layout = detect_layout(columns, mapping)
    dates = DateRules(layout.mapping.get("publishedAt", "publishedAt"), date_format, dayfirst)
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
                         progress=progress, label=str(path), stage="import", dedupe=dedupe,
                         dates=dates,
                         settings={"path": str(path), "layout": layout.name, "source": source,
                                   "topic": topic, "strict": strict, "encoding": encoding,
                                   "dateFormat": date_format, "dayfirst": dayfirst})
    report.layout = layout.name
    return report


def _import_platform(corpus, path: Path, kind: str, source, topic, strict, progress, dedupe,
                     encoding, max_field_chars, date_format, dayfirst) -> ImportReport:
    """Import a file of one platform's JSON (:mod:`corpuskit.ingest.platforms`)."""
    convert = converter(kind)
    source = source or SOURCES[kind]

    def raws():
        for number, post in posts(iter_objects(path, encoding, strict_text=True)):
            if isinstance(post, RowRejected):
                yield number, post
                continue
            try:
                yield number, _bounded_raw(convert(post), max_field_chars)
            except RowRejected as exc:
                yield number, exc

    report = import_rows(corpus, raws(), source=source, topic=topic, strict=strict,
                         progress=progress, label=str(path), stage="import", dedupe=dedupe,
                         dates=DateRules("publishedAt", date_format, dayfirst),
                         settings={"path": str(path), "layout": kind, "source": source,
                                   "topic": topic, "strict": strict, "encoding": encoding,
                                   "dateFormat": date_format, "dayfirst": dayfirst})
    report.layout = kind
    return report


def _bounded_raw(raw: dict, max_chars: int) -> dict:
    """``raw``, or RowRejected when one of its text fields is longer than ``max_chars``."""
    for name in ("contentText", "title"):
        value = raw.get(name)
        if isinstance(value, str) and len(value) > max_chars:
            raise RowRejected(f"field {name!r} has {len(value):,} characters, more than the "
                              f"{max_chars:,} allowed (max_field_chars)")
    return raw


def add_records(corpus, records, source: str | None = None, topic: str | None = None,
                strict: bool = False, stage: str = "import", dedupe: str = "auto") -> ImportReport:
    """Store record dicts (the record model), numbered from 1, all or none (``Corpus.add_records``)."""
    return import_rows(corpus, ((i + 1, r) for i, r in enumerate(records)), source=source, topic=topic,
                       strict=strict, stage=stage, label="records", dedupe=dedupe)


def import_rows(corpus, numbered_rows: Iterable[tuple[int, object]], source: str | None = None,
                topic: str | None = None, strict: bool = False, progress: bool = False,
                label: str = "rows", stage: str = "import", settings: dict | None = None,
                dedupe: str = "auto", dates: DateRules | None = None) -> ImportReport:
    """Normalise ``(row number, raw dict)`` pairs and store them all or none.

    ``dates`` reads the dates (default: a :class:`DateRules` deciding the slash-date
    order from these rows); ``source`` must be a source name (a lower-case slug).

    The rows are staged outside the corpus (see :mod:`corpuskit.ingest.staging`)
    and stored in one short transaction at the end, with the run row. Under
    ``dedupe`` (``auto``, ``id``, ``content`` or ``none``; see
    :mod:`corpuskit.ingest.records`) duplicates within the rows and of stored
    records are counted, by rule, in the report and not stored.
    """
    check_dedupe(dedupe)
    if source is not None:
        check_source(source)
    dates = dates or DateRules()
    parse_date = dates.parse   # bound to this object: the worker's copy parses in the worker
    report = ImportReport(path=label, dedupe=dedupe)
    conn = corpus.conn
    settings = dict(settings or {"label": label})
    settings["dedupe"] = dedupe
    rejected = 0   # bad rows so far, in whichever process reads them

    def work(rows):
        """One chunk: normalise up to CHUNK rows into staged values (see pipeline.chunked)."""
        nonlocal rejected
        batch, rejections, read = [], [], 0
        for number, raw in itertools.islice(rows, CHUNK):
            read += 1
            dates.start(number)
            try:
                if isinstance(raw, RowRejected):
                    raise raw
                rec = normalise(raw, source=source, topic=topic, parse_date=parse_date)
                batch.append((rec, dedupe_rule(rec, dedupe), dates.guessed))
            except RowRejected as exc:
                rejected += 1
                rejections.append((number, exc.reason))
                if strict and rejected >= STRICT_ERRORS:
                    return (read, rejections, staged_rows(batch)), True
        return (read, rejections, staged_rows(batch)), read < CHUNK

    def adopt(worker_dates):
        nonlocal dates
        dates = worker_dates

    # closing(): a failure while staging ends the worker at once, not when the traceback is freed
    with Stage(conn) as staged, tqdm(desc=f"import {Path(label).name}", unit="rec",
                                     disable=not progress, mininterval=0.5) as bar, \
            closing(chunked(iter(numbered_rows), work, lambda: dates, on_state=adopt)) as chunks:
        for read, rejections, prepared in chunks:
            report.read += read
            report.rejected += len(rejections)
            report.rejections.extend(rejections)
            staged.write(prepared)
            bar.update(read)
        if strict and report.rejections:
            shown = "; ".join(f"row {n}: {reason}" for n, reason in report.rejections)
            error = StrictImportError(f"{label}: strict import aborted, nothing written; "
                                      f"first bad rows: {shown}")
            error.rejections = list(report.rejections)
            raise error
        dates.finish()
        if dates.swap_needed():
            staged.swap_day_month()
        report.date_order = dates.order
        report.date_note = dates.note()
        report.warnings.extend(dates.warnings())
        staged.mark_repeats()
        staged.mark_stored()
        with corpus.transaction():
            with corpus.run_stage(stage, settings) as run_id:
                report.run_id = run_id
                counts = staged.store(run_id)
    report.added = counts["added"]
    report.duplicates_by = {"id": counts["id"], "content": counts["content"]}
    report.duplicates = counts["id"] + counts["content"]
    return report

