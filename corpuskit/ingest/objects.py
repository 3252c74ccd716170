"""JSON objects out of a file: JSON lines, a JSON array or one JSON document, plain, ``.gz`` or ``.zst``.

The platform formats (:mod:`corpuskit.ingest.platforms`) and the bulk dumps
(:mod:`corpuskit.ingest.dumps`) read their files through :func:`iter_objects`.
A plain file is decoded strictly, as :mod:`corpuskit.ingest.readers` does
(UTF-8, a byte-order mark, or ``encoding=``); a compressed archive is UTF-8 with
undecodable bytes replaced (Pushshift archives hold a few).
"""
from __future__ import annotations

import gzip
import io
import json
from pathlib import Path

from corpuskit.errors import ImportFormatError, RowRejected
from corpuskit.ingest.readers import decode_error, loads_json, text_encoding

COMPRESSED = (".zst", ".gz")
_ZSTD_WINDOW = 2 ** 31   # the Pushshift archives use a long window


def open_text(path: Path, encoding: str | None = None):
    """A text stream over ``path``, decompressing ``.zst`` and ``.gz``."""
    suffix = path.suffix.lower()
    if suffix == ".zst":
        try:
            import zstandard
        except ImportError:
            raise ImportFormatError(
                f"{path}: reading .zst needs the zstandard package: pip install zstandard") from None
        raw = open(path, "rb")
        reader = zstandard.ZstdDecompressor(max_window_size=_ZSTD_WINDOW).stream_reader(
            raw, closefd=True)
        return io.TextIOWrapper(reader, encoding="utf-8", errors="replace")
    if suffix == ".gz":
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8", errors="replace")
    if encoding is None:
        return open(path, encoding="utf-8-sig", errors="replace")
    return open(path, encoding=encoding)


def iter_objects(path: Path, encoding: str | None = None, strict_text: bool = False):
    """``(line number, object)`` for every object of an NDJSON file, a JSON array or one JSON document.

    A malformed line, or an array item or line that is not an object, yields a
    :class:`RowRejected` in place of the object; a file that is one JSON object
    yields it as line 1. With ``strict_text`` a plain file is decoded strictly
    (:func:`corpuskit.ingest.readers.text_encoding`): a bad byte stops the
    import with its offset and line.
    """
    codec = None
    if strict_text and path.suffix.lower() not in COMPRESSED:
        codec = text_encoding(path, encoding)
    try:
        with open_text(path, codec) as fh:
            head = ""
            while True:
                char = fh.read(1)
                if not char or not char.isspace():
                    head = char
                    break
        if head == "[" or (head == "{" and not _first_line_is_object(path, codec)):
            whole = _load(path, codec)
            items = whole if isinstance(whole, list) else [whole]
            for number, obj in enumerate(items, start=1):
                yield number, obj if isinstance(obj, dict) else RowRejected("not a JSON object")
            return
        with open_text(path, codec) as fh:
            for number, line in enumerate(fh, start=1):
                if not line.strip():
                    continue
                try:
                    obj = loads_json(line)
                except (json.JSONDecodeError, RecursionError):
                    yield number, RowRejected("malformed JSON line")
                    continue
                yield number, obj if isinstance(obj, dict) else RowRejected("not a JSON object")
    except UnicodeDecodeError:
        raise decode_error(path, codec or "utf-8") from None
    except ImportFormatError:
        raise
    except Exception as exc:  # zstandard/gzip errors: a corrupt or truncated archive
        if exc.__class__.__module__.startswith(("zstandard", "gzip")) or isinstance(
                exc, (EOFError, gzip.BadGzipFile)):
            raise ImportFormatError(f"{path}: cannot decompress: {exc}") from exc
        raise


def _first_line_is_object(path: Path, codec) -> bool:
    """Whether the first line is a whole JSON object (JSON lines), not the start of a document."""
    with open_text(path, codec) as fh:
        first = fh.readline()
    try:
        return isinstance(json.loads(first), dict)
    except (json.JSONDecodeError, RecursionError):
        return False


def _load(path: Path, codec):
    with open_text(path, codec) as fh:
        text = fh.read()
    try:
        return loads_json(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise ImportFormatError(f"{path}: not valid JSON: {exc}") from None
