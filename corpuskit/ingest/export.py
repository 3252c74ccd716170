"""Export records (and the derived tables) as JSONL, CSV or Parquet.

Records use the corpuskit layout, which imports back as is (every record
field round-trips exactly), plus the enrichment columns of
:data:`ENRICHMENT_FIELDS`, which the importer ignores. The derived tables are
written from the DataFrames of :mod:`corpuskit.frames`.
"""
from __future__ import annotations

import csv
import json
from pathlib import Path

import pandas as pd

from corpuskit.errors import ImportFormatError, ValidationError
from corpuskit.ingest.records import ALL_FIELDS, ENGAGEMENT_FIELDS, row_to_record

_FORMATS = ("jsonl", "csv", "parquet")
TABLES = ("records", "signals", "topics", "clusters", "entities", "mentions", "stories", "snapshots")
# Written beside the record fields; derived by enrichment, so an import skips them.
ENRICHMENT_FIELDS = ("sentimentScore", "sentimentLabel", "primaryTopic", "entities")


def iter_records(corpus, enrichment: bool = False):
    """Every record dict, in (publishedAt, id) order; with ``enrichment``, plus its enrichment fields.

    ``entities`` is the list of canonical entity names the record mentions
    (most mentioned first); all four fields are None for a record not yet enriched.
    """
    sql = "SELECT r.* FROM records r ORDER BY r.published_at, r.id"
    if enrichment:
        from corpuskit.query import ENTITY_NAMES

        sql = ("SELECT r.*, e.sentiment_score AS x_score, e.sentiment_label AS x_label, "
               "t.name AS x_topic, " + ENTITY_NAMES + " AS x_entities "
               "FROM records r LEFT JOIN enrichment e ON e.record_id = r.id "
               "LEFT JOIN topics t ON t.id = e.topic_id ORDER BY r.published_at, r.id")
    for row in corpus.conn.execute(sql):
        rec = row_to_record(row)
        rec.pop("id")
        if enrichment:
            rec["sentimentScore"] = row["x_score"]
            rec["sentimentLabel"] = row["x_label"]
            rec["primaryTopic"] = row["x_topic"]
            rec["entities"] = None if row["x_entities"] is None else json.loads(row["x_entities"])
        yield rec


def _format(path: Path, format: str | None) -> str:
    fmt = (format or path.suffix.lstrip(".")).lower()
    if fmt == "ndjson":
        fmt = "jsonl"
    if fmt not in _FORMATS:
        raise ImportFormatError(f"unknown export format {fmt!r}; expected jsonl, csv or parquet")
    if not path.parent.exists():
        raise ImportFormatError(f"cannot write {path}: directory {path.parent} does not exist")
    return fmt


def export_records(corpus, path, format: str | None = None) -> int:
    """Write every record with its enrichment columns to ``path``; return how many were written.

    The output uses the record field names, so importing it into another
    corpus round-trips every field; the enrichment columns
    (:data:`ENRICHMENT_FIELDS`) are skipped on import.
    """
    path = Path(path)
    fmt = _format(path, format)
    fields = list(ALL_FIELDS) + list(ENRICHMENT_FIELDS)
    tmp = path.with_name(path.name + ".part")
    count = 0
    if fmt == "jsonl":
        with open(tmp, "w", encoding="utf-8") as fh:
            for rec in iter_records(corpus, enrichment=True):
                fh.write(json.dumps(rec, ensure_ascii=False, sort_keys=False) + "\n")
                count += 1
    elif fmt == "csv":
        with open(tmp, "w", newline="", encoding="utf-8") as fh:
            writer = csv.DictWriter(fh, fieldnames=fields)
            writer.writeheader()
            for rec in iter_records(corpus, enrichment=True):
                rec["metadata"] = json.dumps(rec["metadata"], ensure_ascii=False, sort_keys=True)
                if rec["entities"] is not None:
                    rec["entities"] = json.dumps(rec["entities"], ensure_ascii=False)
                writer.writerow({k: ("" if v is None else v) for k, v in rec.items()})
                count += 1
    else:
        import pyarrow as pa
        import pyarrow.parquet as pq

        rows = []
        for rec in iter_records(corpus, enrichment=True):
            rec["metadata"] = json.dumps(rec["metadata"], ensure_ascii=False, sort_keys=True)
            rows.append(rec)
        typed = dict.fromkeys(ENGAGEMENT_FIELDS + ("isRepost",), pa.int64())
        schema = pa.schema([(f, typed.get(f, pa.string())) for f in ALL_FIELDS]
                           + [("sentimentScore", pa.float64()), ("sentimentLabel", pa.string()),
                              ("primaryTopic", pa.string()), ("entities", pa.list_(pa.string()))])
        pq.write_table(pa.Table.from_pylist(rows, schema=schema), tmp)
        count = len(rows)
    tmp.replace(path)
    return count


def _plain(value):
    if isinstance(value, (dict, list, tuple)):
        return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    return value


def export_table(corpus, path, format: str | None = None, table: str = "records") -> int:
    """Write one table (:data:`TABLES`) to ``path``; return the rows written.

    ``records`` goes through :func:`export_records`; every other table is the
    DataFrame of the ``Corpus`` method of the same name. JSONL keeps nested
    values (dicts, lists) as JSON; CSV and Parquet hold them as JSON text.
    Timestamps are written as ISO 8601 UTC strings.
    """
    if table not in TABLES:
        raise ValidationError(f"table must be one of {', '.join(TABLES)}, not {table!r}")
    if table == "records":
        return export_records(corpus, path, format=format)
    path = Path(path)
    fmt = _format(path, format)
    frame = getattr(corpus, table)()
    for col in frame.columns:
        if isinstance(frame[col].dtype, pd.DatetimeTZDtype):
            frame[col] = frame[col].map(lambda t: None if pd.isna(t) else t.strftime("%Y-%m-%dT%H:%M:%SZ"))
    tmp = path.with_name(path.name + ".part")
    if fmt == "jsonl":
        with open(tmp, "w", encoding="utf-8") as fh:
            for rec in frame.to_dict(orient="records"):
                rec = {k: (None if not isinstance(v, (dict, list)) and pd.isna(v) else v)
                       for k, v in rec.items()}
                fh.write(json.dumps(rec, ensure_ascii=False, default=str) + "\n")
    else:
        flat = frame.copy()
        for col in flat.columns:
            if flat[col].dtype == object:
                flat[col] = flat[col].map(_plain)
        if fmt == "csv":
            flat.to_csv(tmp, index=False)
        else:
            flat.to_parquet(tmp, index=False)
    tmp.replace(path)
    return len(frame)
