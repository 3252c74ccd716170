"""Samples drawn for hand coding: simple or stratified, reproducible from a seed, stored with their design.

A stratified sample splits the eligible records by topic, source, sentiment
label or period (``"D"``, ``"W"`` (weeks from Monday) or ``"M"``) and draws a
fixed number from each stratum:

* ``allocation="proportional"`` (default): stratum ``h`` with ``N_h`` of ``N``
  records gets ``n * N_h / N`` rounded by largest remainder (Hamilton's
  method: every stratum gets the floor, then the strata with the largest
  fractional parts get one more, ties to the stratum listed first), so the
  sizes are exact and sum to ``n``;
* ``allocation="equal"``: ``n // H`` each, the ``n % H`` left over going to the
  largest strata (ties: first listed).

Strata are ordered by their value (records without a value form the stratum
``(none)``, listed last). Records are drawn without replacement with
``numpy.random.default_rng(seed)``, stratum by stratum, and the whole sample
is then shuffled with the same generator, so coders do not meet the strata in
blocks. Same corpus, same arguments, same seed: the same records in the same order.
"""
from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from corpuskit.clock import from_iso, iso, parse_timestamp
from corpuskit.errors import ValidationError
from corpuskit.query import RecordFilter, compile_query, topic_by_name, TopicNotFound
from corpuskit.query.coding import missing_records, sample_members, sample_row, sampling_frame
from corpuskit.query.values import SAMPLE_ALLOCATIONS as ALLOCATIONS
from corpuskit.query.values import SAMPLE_STRATA
from corpuskit.store import transaction
from corpuskit.validate.codebook import Codebook, load_codebook

NO_VALUE = "(none)"


@dataclass(frozen=True)
class Sample:
    """A drawn sample: its ``name`` (None when not stored), ``design`` and ``records``.

    ``records`` is a DataFrame with ``position`` (1..n, the coding order),
    ``recordId`` and ``stratum`` (None for a simple sample).
    """

    name: str | None
    design: dict
    records: pd.DataFrame

    def ids(self) -> list[int]:
        """The sample's record ids in coding order."""
        return [int(i) for i in self.records["recordId"]]

    def __len__(self) -> int:
        return len(self.records)


def _stratum_of(by: str, row) -> str | None:
    _, source, topic, label, published = row
    if by == "topic":
        return topic
    if by == "source":
        return source
    if by == "sentiment":
        return label
    day = from_iso(published).date()
    if by == "D":
        return day.isoformat()
    if by == "W":
        return (day - pd.Timedelta(days=day.weekday())).isoformat()
    return day.strftime("%Y-%m")


def allocate(sizes: list[int], n: int, allocation: str = "proportional") -> list[int]:
    """How many of ``n`` to draw from strata of ``sizes`` (see the module docstring); exact, sums to n."""
    total = sum(sizes)
    if allocation == "proportional":
        quotas = [n * s / total for s in sizes]
        counts = [int(q) for q in quotas]
        order = sorted(range(len(sizes)), key=lambda i: (-(quotas[i] - counts[i]), i))
        for i in order[:n - sum(counts)]:
            counts[i] += 1
        return counts
    base, extra = divmod(n, len(sizes))
    counts = [base] * len(sizes)
    for i in sorted(range(len(sizes)), key=lambda i: (-sizes[i], i))[:extra]:
        counts[i] += 1
    short = [(i, c, s) for i, (c, s) in enumerate(zip(counts, sizes)) if c > s]
    if short:
        raise ValidationError("equal allocation needs more records than some strata have: " + "; ".join(
            f"stratum {i + 1} has {s}, needs {c}" for i, c, s in short))
    return counts


def _check_args(n, by, seed, allocation):
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ValidationError(f"n must be a whole number of records, at least 1, not {n!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValidationError(f"seed must be a whole number >= 0, not {seed!r}")
    if by is not None and by not in SAMPLE_STRATA:
        raise ValidationError(f"by must be one of {', '.join(SAMPLE_STRATA[:3])}, or a period "
                              f"{', '.join(SAMPLE_STRATA[3:])} (day, week, month), not {by!r}")
    if allocation not in ALLOCATIONS:
        raise ValidationError(f"allocation must be one of {', '.join(ALLOCATIONS)}, not {allocation!r}")


def draw_sample(corpus, n: int, by: str | None = None, seed: int = 0, name: str | None = None,
                ids=None, since=None, until=None, source: str | None = None, topic: str | None = None,
                allocation: str = "proportional", codebook=None, query=None) -> Sample:
    """Draw (and, with ``name``, store) a sample of ``n`` records; see :meth:`corpuskit.Corpus.sample`."""
    if by == "period":
        raise ValidationError("by='period' needs its unit: by='D', 'W' or 'M'")
    _check_args(n, by, seed, allocation)
    if name is not None and (not isinstance(name, str) or not name.strip()):
        raise ValidationError(f"name must be a non-empty string, not {name!r}")
    book = load_codebook(codebook) if codebook is not None else None
    bounds = {}
    for value, label in ((since, "since"), (until, "until")):
        if value is not None:
            try:
                bounds[label] = iso(parse_timestamp(value))
            except ValidationError as exc:
                raise ValidationError(f"{label}: {exc}") from None
    if topic is not None:   # a topic of the corpus, or one only unenriched imported records name
        try:
            topic_by_name(corpus.conn, topic)
        except TopicNotFound:
            if not sampling_frame(corpus.conn, RecordFilter(topic=str(topic))):
                raise
    id_list = None
    if ids is not None:
        try:
            id_list = sorted({int(i) for i in ids})
        except (TypeError, ValueError):
            raise ValidationError("ids must be record ids (whole numbers)") from None
        unknown = missing_records(corpus.conn, id_list)
        if unknown:
            raise ValidationError(f"ids name {len(unknown)} record(s) the corpus does not have, e.g. "
                                  f"{', '.join(map(str, unknown[:5]))}")
    compiled = None
    if query is not None:
        if not isinstance(query, str) and not hasattr(query, "sql"):
            raise ValidationError(f"query must be query-language text, not {type(query).__name__}")
        compiled = compile_query(query) if isinstance(query, str) else query
    frame = sampling_frame(corpus.conn, RecordFilter(source=source, topic=None if topic is None else str(topic),
                                                     query=compiled, ids=id_list, **bounds))
    if len(frame) < n:
        raise ValidationError(f"cannot draw {n} records: only {len(frame)} match the filters")
    rng = np.random.default_rng(int(seed))
    if by is None:
        picked = [(frame[i][0], None) for i in rng.choice(len(frame), size=n, replace=False)]
        strata_sizes = {}
    else:
        groups: dict = {}
        for row in frame:
            value = _stratum_of(by, row)
            groups.setdefault(NO_VALUE if value is None else str(value), []).append(row[0])
        names = sorted(g for g in groups if g != NO_VALUE) + ([NO_VALUE] if NO_VALUE in groups else [])
        counts = allocate([len(groups[g]) for g in names], int(n), allocation)
        picked = []
        for g, k in zip(names, counts):
            members = groups[g]
            picked.extend((members[i], g) for i in rng.choice(len(members), size=k, replace=False))
        picked = [picked[i] for i in rng.permutation(len(picked))]
        strata_sizes = {g: {"population": len(groups[g]), "sampled": k} for g, k in zip(names, counts)}
    design = {"n": int(n), "by": by, "seed": int(seed), "allocation": allocation if by else None,
              "filters": {"source": source, "topic": topic, "since": bounds.get("since"),
                          "until": bounds.get("until"), "ids": len(id_list) if id_list is not None else None,
                          "query": compiled.text if compiled is not None else None},
              "population": len(frame), "strata": strata_sizes}
    records = pd.DataFrame({"position": range(1, n + 1), "recordId": [int(r) for r, _ in picked],
                            "stratum": [s for _, s in picked]})
    if name is not None:
        _store(corpus, name, design, records, book)
    return Sample(name=name, design=design, records=records)


def _store(corpus, name: str, design: dict, records: pd.DataFrame, book: Codebook | None) -> None:
    conn = corpus.conn
    created = iso(corpus.now())
    with transaction(conn):
        if conn.execute("SELECT 1 FROM samples WHERE name = ?", (name,)).fetchone():
            raise ValidationError(f"a sample named {name!r} exists already; choose another name")
        design = {**design, "createdAt": created}
        cur = conn.execute("INSERT INTO samples(name, design, codebook, created_at) VALUES (?,?,?,?)",
                           (name, json.dumps(design, sort_keys=True),
                            None if book is None else json.dumps(book.to_dict(), sort_keys=True), created))
        conn.executemany("INSERT INTO sample_records(sample_id, position, record_id, stratum) "
                         "VALUES (?,?,?,?)",
                         [(cur.lastrowid, int(p), int(r), s) for p, r, s in
                          records[["position", "recordId", "stratum"]].itertuples(index=False)])


def load_sample(corpus, name: str) -> Sample:
    """The stored sample called ``name`` (:class:`~corpuskit.query.coding.SampleNotFound` when none)."""
    row = sample_row(corpus.conn, name)
    members = sample_members(corpus.conn, row["id"])
    records = pd.DataFrame({"position": [m[0] for m in members], "recordId": [m[1] for m in members],
                            "stratum": [m[2] for m in members]})
    return Sample(name=row["name"], design=json.loads(row["design"]), records=records)


def sample_codebook(corpus, name: str) -> Codebook | None:
    """The codebook stored with the sample ``name``, or None when it has none."""
    row = sample_row(corpus.conn, name)
    return None if row["codebook"] is None else load_codebook(json.loads(row["codebook"]))


def set_codebook(corpus, name: str, codebook) -> Codebook:
    """Store ``codebook`` (path, mapping or Codebook) with the sample ``name``; returns it.

    Refused when codes already stored would fall outside the new codebook.
    """
    book = load_codebook(codebook)
    conn = corpus.conn
    row = sample_row(conn, name)
    with transaction(conn):
        for variable, value in conn.execute(
                "SELECT DISTINCT variable, value FROM codes WHERE sample_id = ?", (row["id"],)).fetchall():
            try:
                book.variable(variable).check(value)
            except ValidationError as exc:
                raise ValidationError(f"sample {name!r} has codes this codebook does not allow: {exc}") from None
        conn.execute("UPDATE samples SET codebook = ? WHERE id = ?",
                     (json.dumps(book.to_dict(), sort_keys=True), row["id"]))
    return book


def write_coding_sheet(corpus, name: str, path, codebook=None) -> int:
    """Write the coding sheet of sample ``name`` as CSV; returns the rows written.

    Columns: ``recordId``, ``text`` (title and text, a blank line between them
    when both are there), then one empty column per codebook variable and ``note``.
    ``codebook`` defaults to the one stored with the sample; a codebook given
    here is stored with the sample.
    """
    book = set_codebook(corpus, name, codebook) if codebook is not None else sample_codebook(corpus, name)
    variables = list(book.variables) if book is not None else []
    members = sample_members(corpus.conn, sample_row(corpus.conn, name)["id"])
    path = Path(path)
    tmp = path.with_name(path.name + ".part")
    with open(tmp, "w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["recordId", "text", *variables, "note"])
        for _, record_id, _, title, text in members:
            body = text if not title or title == text else f"{title}\n\n{text}"
            writer.writerow([record_id, body, *([""] * len(variables)), ""])
    tmp.replace(path)
    return len(members)
