"""Reading input files row by row: CSV/TSV, JSON lines or a JSON array, Parquet.

Text files are decoded strictly, never guessed:

- ``encoding=None`` (the default) reads UTF-8, and follows a byte-order mark
  when the file starts with one (UTF-8, UTF-16 or UTF-32 BOM; the BOM is not
  part of the first column's name).
- Any other encoding is named with ``encoding=`` (``--encoding``): ``latin-1``,
  ``cp1252``, ``utf-16-le``...
- A byte that is not valid in the encoding stops the import with
  :class:`ImportFormatError` naming its byte offset and line (nothing is
  written), and suggesting ``--encoding``.
- A file whose first 8 KiB hold NUL bytes and no UTF-16/32 byte-order mark is
  refused as binary (a spreadsheet, an archive, UTF-16 text without a BOM).

One bad row never stops an import: a row that is not a JSON object, a line
that is not JSON, a CSV line the parser cannot read, or a field longer than
``max_field_chars`` (default :data:`MAX_FIELD_CHARS`) is yielded as
``{"__error__": reason}`` so the importer rejects that row alone.
"""
from __future__ import annotations

import codecs
import csv
import json
import re
from pathlib import Path
from typing import Iterator

from corpuskit.errors import ImportFormatError

FORMATS = ("jsonl", "csv", "parquet")
#: Longest field (characters) a row may have; longer rows are rejected with the reason.
MAX_FIELD_CHARS = 262_144
# the CSV parser's own cap, above MAX_FIELD_CHARS so a long field is read (and then
# rejected with its row) rather than stopping the parser; bounded so an unbalanced
# quote cannot pull a whole file into one field
_CSV_FIELD_LIMIT = 16 * 1024 * 1024
_SNIFF_BYTES = 8192
_BATCH = 2000
_BOMS = (  # longest first: the UTF-32-LE BOM starts with the UTF-16-LE one
    (codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"),
)


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


def text_encoding(path: Path, encoding: str | None = None) -> str:
    """The codec to read ``path`` with: ``encoding`` when given, else from its BOM, else UTF-8.

    Raises :class:`ImportFormatError` for an unknown codec name and for a file
    that looks binary.
    """
    with open(path, "rb") as fh:
        head = fh.read(_SNIFF_BYTES)
    if encoding is not None:
        try:
            name = codecs.lookup(encoding).name
        except LookupError:
            raise ImportFormatError(
                f"unknown encoding {encoding!r}; use a Python codec name such as utf-8, latin-1, "
                "cp1252, utf-16") from None
        # a UTF-8 BOM under an explicit utf-8 is still not part of the first column name
        return "utf-8-sig" if name == "utf-8" else encoding
    for bom, codec in _BOMS:
        if head.startswith(bom):
            return codec
    if b"\x00" in head:
        at = head.index(b"\x00")
        raise ImportFormatError(
            f"{path}: looks like a binary file, not CSV or JSON text (a NUL byte at byte offset "
            f"{at}). If it is UTF-16 or UTF-32 text without a byte-order mark, pass "
            "--encoding utf-16-le (or utf-16-be, utf-32-le)")
    return "utf-8"


def decode_error(path: Path, encoding: str) -> ImportFormatError:
    """The error for a file that does not decode: the first bad byte's offset and line."""
    decoder = codecs.getincrementaldecoder(encoding)("strict")
    offset = newlines = 0
    bad = None
    with open(path, "rb") as fh:
        while bad is None:
            chunk = fh.read(1 << 20)
            pending = len(decoder.getstate()[0])
            try:
                decoder.decode(chunk, final=not chunk)
            except UnicodeDecodeError as exc:
                bad = offset - pending + exc.start
                newlines += chunk[: max(0, bad - offset)].count(b"\n")
                value = (chunk[bad - offset: bad - offset + 1] if bad >= offset else b"")
                break
            if not chunk:
                break
            newlines += chunk.count(b"\n")
            offset += len(chunk)
    if bad is None:  # the reader failed but a full decode does not: report the codec alone
        return ImportFormatError(f"{path}: cannot be decoded as {encoding}; pass --encoding")
    byte = f"byte 0x{value.hex()} " if value else ""
    line = "" if encoding.replace("_", "-").startswith(("utf-16", "utf-32")) else \
        f" (line {newlines + 1})"
    return ImportFormatError(
        f"{path}: {byte}at byte offset {bad}{line} is not valid {encoding}; nothing was imported. "
        "Name the file's encoding with --encoding (encoding= in the library), e.g. "
        "--encoding latin-1, or cp1252 for files saved by Windows programs")


def read_rows(path: Path, fmt: str, encoding: str | None = None,
              max_field_chars: int = MAX_FIELD_CHARS) -> tuple[list, Iterator[tuple[int, dict]]]:
    """``(columns, iterator of (row number, row dict))`` for a file.

    Row numbers are 1-based data rows (the CSV header is not counted; for
    JSONL they are line numbers, for a JSON array positions). A row that
    cannot be used is ``{"__error__": reason}``. Raises
    :class:`ImportFormatError` when the file as a whole cannot be read
    (binary, wrong encoding, no header, no JSON objects).
    """
    if fmt == "parquet":
        columns, rows = _read_parquet(path)
        rows = _bounded(rows, max_field_chars)
    elif fmt in ("csv", "jsonl"):
        codec = text_encoding(path, encoding)
        try:
            columns, rows = (_read_csv if fmt == "csv" else _read_jsonl)(path, codec, max_field_chars)
        except UnicodeDecodeError:
            raise decode_error(path, codec) from None
        rows = _decoded(rows, path, codec)
    else:
        raise ImportFormatError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
    return columns, rows


def _decoded(rows, path, codec):
    try:
        yield from rows
    except UnicodeDecodeError:
        raise decode_error(path, codec) from None


def _bounded(rows, max_chars: int):
    for number, row in rows:
        yield number, _within(row, max_chars)


def _within(row: dict, max_chars: int) -> dict:
    """``row``, or the error row when one of its text fields is longer than ``max_chars``."""
    if "__error__" not in row:
        for name, value in row.items():
            if isinstance(value, str) and len(value) > max_chars:
                return {"__error__": f"field {name!r} has {len(value):,} characters, more than "
                                     f"the {max_chars:,} allowed (max_field_chars)"}
    return row


def _read_csv(path: Path, codec: str, max_chars: int = MAX_FIELD_CHARS):
    if csv.field_size_limit() < _CSV_FIELD_LIMIT:
        csv.field_size_limit(_CSV_FIELD_LIMIT)
    fh = open(path, newline="", encoding=codec)
    delimiter = "\t" if path.suffix.lower() == ".tsv" else ","
    reader = csv.reader(fh, delimiter=delimiter)
    try:
        header = next(reader, None)
    except csv.Error as exc:
        fh.close()
        raise ImportFormatError(f"{path}: the header row is not readable CSV: {exc}") from exc
    except BaseException:
        fh.close()
        raise
    if not header or not any(c.strip() for c in header):
        fh.close()
        raise ImportFormatError(f"{path}: empty CSV file (no header row)")
    columns = list(header)

    def rows():
        with fh:
            number = 0
            while True:
                try:
                    values = next(reader)
                except StopIteration:
                    return
                except csv.Error as exc:
                    number += 1
                    yield number, {"__error__": f"unreadable CSV (line {reader.line_num}): {exc}"}
                    continue
                if not values:  # a blank line is not a row
                    continue
                number += 1
                row = dict(zip(columns, values))
                for name in columns[len(values):]:
                    row[name] = None
                # every value is a string: one C-level pass says whether any is too long
                yield number, row if max(map(len, values)) <= max_chars else _within(row, max_chars)
    return columns, rows()


def _read_jsonl(path: Path, codec: str, max_chars: int = MAX_FIELD_CHARS):
    with open(path, encoding=codec) as fh:
        head = fh.read(1)
        while head and head.isspace():
            head = fh.read(1)
    if not head:
        raise ImportFormatError(f"{path}: empty file")
    if head == "[":
        columns, rows = _read_json_array(path, codec)
        return columns, _bounded(rows, max_chars)
    first = []
    with open(path, encoding=codec) as fh:
        for number, line in enumerate(fh, start=1):
            if line.strip():
                first.append((number, line))
            if len(first) >= 50:
                break
    columns = _columns_of(_loads(line) for _, line in first)
    if not columns:
        if head == "{":
            try:
                whole = json.loads(path.read_text(encoding=codec))
            except json.JSONDecodeError:
                whole = None
            if isinstance(whole, dict):
                raise ImportFormatError(
                    f"{path}: one JSON object, not one object per line or an array of objects; "
                    "write each record as an object on its own line (JSON lines)")
        raise ImportFormatError(f"{path}: no JSON objects in the first lines (expected one "
                                "JSON object per line, or an array of objects)")

    def rows():
        with open(path, encoding=codec) as fh:
            for number, line in enumerate(fh, start=1):
                if not line.strip():
                    continue
                obj = _loads(line)
                if isinstance(obj, dict):
                    # a decoded string is never longer than the line it was read from
                    yield number, obj if len(line) <= max_chars else _within(obj, max_chars)
                elif isinstance(obj, _Malformed):
                    yield number, {"__error__": "malformed JSON line"}
                else:
                    yield number, {"__error__": f"not a JSON object (a {_json_type(obj)})"}
    return columns, rows()


def _read_json_array(path: Path, codec: str):
    try:
        data = loads_json(path.read_text(encoding=codec))
    except json.JSONDecodeError as exc:
        raise ImportFormatError(f"{path}: not valid JSON: {exc}") from exc
    objects = [item for item in data if isinstance(item, dict)]
    if not objects:
        kinds = sorted({_json_type(item) for item in data})
        raise ImportFormatError(
            f"{path}: a JSON array of {' and '.join(kinds) or 'nothing'}, not of objects; "
            "each record must be a JSON object" if data else f"{path}: an empty JSON array")
    columns = _columns_of(objects[:200])

    def rows():
        for i, item in enumerate(data, start=1):
            yield i, item if isinstance(item, dict) else \
                {"__error__": f"not a JSON object (a {_json_type(item)})"}
    return columns, rows()


class _Malformed:
    pass


_MALFORMED = _Malformed()


def _loads(line: str):
    try:
        return loads_json(line)
    except (json.JSONDecodeError, RecursionError):
        return _MALFORMED


def loads_json(text: str):
    """``json.loads(text)``, with :func:`without_lone_surrogates` applied when ``text`` escapes one.

    Every JSON the ingest reads goes through here: files and the collectors' API answers.
    """
    value = json.loads(text)
    return without_lone_surrogates(value) if "\\u" in text and _SURROGATE_ESCAPE.search(text) else value


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def without_lone_surrogates(value):
    """``value`` (decoded JSON) with every unpaired surrogate in its strings replaced by U+FFFD.

    JSON may escape half of a pair (``"\\ud83d"``, an emoji cut by a length limit, as
    tweets often are); Python decodes it to a lone surrogate, which no UTF-8 text (nor
    SQLite) can hold. A paired escape decodes to one character and is kept.
    """
    if isinstance(value, str):
        return _LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {without_lone_surrogates(k): without_lone_surrogates(v) for k, v in value.items()}
    if isinstance(value, list):
        return [without_lone_surrogates(v) for v in value]
    return value


def _json_type(value) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, (int, float)):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "null" if value is None else type(value).__name__


def _columns_of(objs) -> list:
    columns = []
    for obj in objs:
        if isinstance(obj, dict):
            columns.extend(k for k in obj if k not in columns)
    return columns


def _read_parquet(path: Path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        table = pq.ParquetFile(path)
    except Exception as exc:
        raise ImportFormatError(f"{path}: not a readable Parquet file: {exc}") from exc
    columns = table.schema_arrow.names

    def rows():
        number = 0
        try:
            for batch in table.iter_batches(batch_size=_BATCH):
                for row in batch.to_pylist():
                    number += 1
                    yield number, row
        except (pa.ArrowException, OSError) as exc:
            raise ImportFormatError(f"{path}: Parquet data unreadable after row {number}: {exc}") \
                from exc
    return list(columns), rows()
