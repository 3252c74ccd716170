"""Export records as JSONL, CSV or Parquet in the corpuskit layout (re-importable as is)."""
from __future__ import annotations

import csv
import json
from pathlib import Path

from corpuskit.errors import ImportFormatError
from corpuskit.ingest.records import ALL_FIELDS, row_to_record

_FORMATS = ("jsonl", "csv", "parquet")


def iter_records(corpus):
    """Every record dict, in (publishedAt, id) order."""
    for row in corpus.conn.execute("SELECT * FROM records ORDER BY published_at, id"):
        rec = row_to_record(row)
        rec.pop("id")
        yield rec


def export_records(corpus, path, format: str | None = None) -> int:
    """Write every record to ``path``; return how many were written.

    The output uses the record field names, so importing it into another
    corpus round-trips every field.
    """
    path = Path(path)
    fmt = format or path.suffix.lstrip(".").lower()
    if fmt == "ndjson":
        fmt = "jsonl"
    if fmt not in _FORMATS:
        raise ImportFormatError(f"unknown export format {fmt!r}; expected jsonl, csv or parquet")
    if not path.parent.exists():
        raise ImportFormatError(f"cannot write {path}: directory {path.parent} does not exist")
    tmp = path.with_name(path.name + ".part")
    count = 0
    if fmt == "jsonl":
        with open(tmp, "w", encoding="utf-8") as fh:
            for rec in iter_records(corpus):
                fh.write(json.dumps(rec, ensure_ascii=False, sort_keys=False) + "\n")
                count += 1
    elif fmt == "csv":
        with open(tmp, "w", newline="", encoding="utf-8") as fh:
            writer = csv.DictWriter(fh, fieldnames=list(ALL_FIELDS))
            writer.writeheader()
            for rec in iter_records(corpus):
                rec["metadata"] = json.dumps(rec["metadata"], ensure_ascii=False, sort_keys=True)
                writer.writerow({k: ("" if v is None else v) for k, v in rec.items()})
                count += 1
    else:
        import pyarrow as pa
        import pyarrow.parquet as pq

        rows = []
        for rec in iter_records(corpus):
            rec["metadata"] = json.dumps(rec["metadata"], ensure_ascii=False, sort_keys=True)
            rows.append(rec)
        schema = pa.schema([(f, pa.string()) for f in ALL_FIELDS])
        table = pa.Table.from_pylist(rows, schema=schema)
        pq.write_table(table, tmp)
        count = len(rows)
    tmp.replace(path)
    return count
