"""Gold values: one value per record and variable, stored with how it was reached.

``method="majority"``: the value most coders gave. Every coder agreeing is
``unanimous``, one coder alone ``single``, a strict plurality ``majority``; a
tie is broken by the coder named in ``tie_break`` (``tie broken by`` that
coder) or, without one, left unresolved and reported. ``method="coder:NAME"``
takes NAME's codes. ``decisions`` (``{record_id: value}`` for one variable, or
``{(record_id, variable): value}``) are an adjudicator's rulings (named by
``by``); they override what the method would give and are stored as
``decision``. Re-adjudicating a record and variable replaces its gold value.
"""
from __future__ import annotations

import json

import pandas as pd

from corpuskit.clock import iso
from corpuskit.errors import ValidationError
from corpuskit.query.coding import gold_rows, sample_row
from corpuskit.store import transaction
from corpuskit.validate.codes import code_tables

GOLD_COLUMNS = ["sample", "recordId", "variable", "value", "method", "decidedBy", "codes", "decidedAt"]


def _decide(codes: dict, method: str, tie_break: str | None):
    """``(value, method, decided_by)`` for one record's codes ``{coder: value}``; value None when a tie stays."""
    if method.startswith("coder:"):
        name = method.split(":", 1)[1]
        return (codes.get(name), "coder", name) if name in codes else (None, "uncoded", name)
    counts = pd.Series(list(codes.values())).value_counts()
    top = sorted(v for v, c in counts.items() if c == counts.max())
    if len(codes) == 1:
        return top[0], "single", next(iter(codes))
    if len(counts) == 1:
        return top[0], "unanimous", ""
    if len(top) == 1:
        return top[0], "majority", ""
    if tie_break is not None and codes.get(tie_break) in top:
        return codes[tie_break], "tie", tie_break
    return None, "unresolved", ""


def adjudicate(corpus, sample: str, method: str = "majority", variable: str | None = None,
               decisions: dict | None = None, by: str | None = None, tie_break: str | None = None) -> pd.DataFrame:
    """Decide and store gold values for ``sample`` (every codebook variable, or ``variable``).

    Returns a DataFrame (:data:`GOLD_COLUMNS` less ``sample``/``decidedAt``) of
    every coded record and variable, unresolved ties included (``value`` None,
    ``method`` ``unresolved``, not stored). Decisions must name a record of the
    sample and a value of the codebook; ``by`` (who decided) is required with them.
    """
    if not isinstance(method, str) or not (method == "majority" or
                                           (method.startswith("coder:") and method[6:].strip())):
        raise ValidationError(f"method must be 'majority' or 'coder:NAME', not {method!r}")
    book, tables = code_tables(corpus, sample, variable)
    names = list(tables)
    rulings = _rulings(decisions, names, variable, book, by)
    conn = corpus.conn
    sample_id = sample_row(conn, sample)["id"]
    members = {r[0] for r in conn.execute("SELECT record_id FROM sample_records WHERE sample_id = ?",
                                          (sample_id,))}
    outside = sorted(r for r, _ in rulings if r not in members)
    if outside:
        raise ValidationError(f"decisions name record(s) not in sample {sample!r}: "
                              f"{', '.join(map(str, outside[:5]))}")
    rows = []
    for name in names:
        table = tables[name] if tables[name] is not None else pd.DataFrame()
        coded = {rid: {c: v for c, v in table.loc[rid].items() if pd.notna(v)} for rid in table.index}
        for rid in sorted(set(coded) | {r for r, n in rulings if n == name}):
            codes = coded.get(rid, {})
            if (rid, name) in rulings:
                value, how, who = rulings[(rid, name)], "decision", by
            else:
                value, how, who = _decide(codes, method, tie_break)
            rows.append({"recordId": int(rid), "variable": name, "value": value, "method": how,
                         "decidedBy": who, "codes": dict(sorted(codes.items()))})
    when = iso(corpus.now())
    with transaction(conn):
        conn.executemany(
            "INSERT INTO gold(sample_id, record_id, variable, value, method, decided_by, detail, decided_at) "
            "VALUES (?,?,?,?,?,?,?,?) ON CONFLICT(sample_id, record_id, variable) DO UPDATE SET "
            "value = excluded.value, method = excluded.method, decided_by = excluded.decided_by, "
            "detail = excluded.detail, decided_at = excluded.decided_at",
            [(sample_id, r["recordId"], r["variable"], r["value"], r["method"], r["decidedBy"] or "",
              json.dumps(r["codes"], sort_keys=True), when) for r in rows if r["value"] is not None])
    return pd.DataFrame(rows, columns=GOLD_COLUMNS[1:-1])


def _rulings(decisions, names, variable, book, by) -> dict:
    if not decisions:
        return {}
    if not isinstance(by, str) or not by.strip():
        raise ValidationError("decisions need by='the adjudicator's name'")
    out = {}
    for key, value in dict(decisions).items():
        if isinstance(key, tuple):
            rid, name = key
        elif len(names) == 1:
            rid, name = key, names[0]
        else:
            raise ValidationError("with several variables, key decisions by (record_id, variable)")
        if name not in names:
            raise ValidationError(f"a decision names variable {name!r}, not one adjudicated here "
                                  f"({', '.join(names)})")
        try:
            rid = int(rid)
        except (TypeError, ValueError):
            raise ValidationError(f"a decision's record id {rid!r} is not a whole number") from None
        out[(rid, name)] = book.variable(name).check(value)
    return out


def gold(corpus, sample: str | None = None, variable: str | None = None) -> pd.DataFrame:
    """The stored gold values of ``sample`` (every sample's when None; :data:`GOLD_COLUMNS`),
    by sample, record and variable."""
    sample_id = None if sample is None else sample_row(corpus.conn, sample)["id"]
    frame = pd.DataFrame(gold_rows(corpus.conn, sample_id, variable), columns=GOLD_COLUMNS)
    frame["codes"] = frame["codes"].map(json.loads)
    return frame
