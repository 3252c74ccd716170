"""The corpus-wide counts of keyness terms, kept in ``term_counts`` by analyse.

Keyness of a selection against the rest of the corpus (:func:`.keyterms.distinctive_terms`) needs
each term's occurrences in every other record: counted on request, that reads every record's text
(seconds per 100k records). :func:`build_term_counts`, run at the end of every ``analyse``, keeps
each term's occurrences over the whole corpus in ``term_counts`` (migration 0017), counted by the
same :class:`.term_tally.TermCounts` the live count uses, so the rest is the corpus minus the
selection and only the selection's texts are read.

The counts are stamped (``meta`` key ``term_counts``) with the newest record id and the
``records_edits`` counter, which the triggers of migration 0017 raise whenever a record is deleted,
its title or text changes, or a record is written below the newest id. :func:`stored_terms` reads
the counts only while that stamp holds (None otherwise, and the caller counts live). Records
appended since the last build are counted and added (``updated``); any edit counts every record
again (``rebuilt``).

Beside the counts the stamp keeps each term length's token total and how many terms occur each
number of times (a histogram): a term absent from the selection enters the Benjamini-Hochberg
adjustment with ``p`` set by its corpus count alone, so the adjustment over every term tested is
exact without reading every term.
"""
from __future__ import annotations

import json
from collections import Counter

from corpuskit.analysis.term_tally import TermCounts
from corpuskit.query.stored_counts import stamp_holds

META_KEY = "term_counts"
STAMP_SQL = ("SELECT (SELECT coalesce(max(id), 0) FROM records), "
             "(SELECT coalesce((SELECT value FROM meta WHERE key = 'records_edits'), '0'))")
#: Records read per statement while counting.
_CHUNK = 2000
#: Terms looked up per statement.
_LOOKUP = 5000
KINDS = ("unigrams", "bigrams")


def kind(term: str) -> str:
    """``bigrams`` for two words (one space between), else ``unigrams`` (as ``TermCounts`` splits)."""
    return "bigrams" if " " in term else "unigrams"


def usable(conn) -> bool:
    """Whether ``term_counts`` describes the records as they are now (one query)."""
    return stamp_holds(conn, META_KEY, STAMP_SQL)


def _count(conn, after: int, last: int):
    counts = TermCounts()
    while True:
        rows = conn.execute("SELECT id, title, content_text FROM records WHERE id > ? AND id <= ? "
                            "ORDER BY id LIMIT ?", (after, last, _CHUNK)).fetchall()
        if not rows:
            return counts
        for _, title, content in rows:
            counts.add(title, content)
        after = rows[-1][0]


def _old_counts(conn, terms: list) -> dict:
    out = {}
    for start in range(0, len(terms), _LOOKUP):
        batch = json.dumps(terms[start:start + _LOOKUP])
        out.update(conn.execute("SELECT term, n FROM term_counts WHERE term IN (SELECT value FROM json_each(?))",
                                (batch,)).fetchall())
    return out


def build_term_counts(corpus, progress: bool = False) -> dict:
    """Bring ``term_counts`` up to date; returns ``{terms, records, rebuilt}`` (records counted now).

    The records are counted in a read transaction; the counts are written in one short write
    transaction, stamped with the records they were counted from (a record appended meanwhile is
    counted by the next build; an edit meanwhile makes the stored counts unusable until then).
    Outside a transaction it reads in its own read transaction and takes the write lock only to write.
    """
    conn = corpus.conn
    own = not conn.in_transaction
    if own:
        conn.execute("BEGIN")
    try:
        stamp = list(conn.execute(STAMP_SQL).fetchone())
        row = conn.execute("SELECT value FROM meta WHERE key = ?", (META_KEY,)).fetchone()
        previous = json.loads(row[0]) if row else None
        if not isinstance(previous, dict) or not {"stamp", "tokens", "histogram"} <= set(previous):
            previous = None
        if previous is not None and previous["stamp"] == stamp:
            return {"terms": 0, "records": 0, "rebuilt": False}
        appended = previous is not None and previous["stamp"][1] == stamp[1] and previous["stamp"][0] <= stamp[0]
        after = previous["stamp"][0] if appended else 0
        new = _count(conn, after, stamp[0])
    finally:
        if own and conn.in_transaction:
            conn.execute("COMMIT")
    delta = new.unigrams + new.bigrams
    with corpus.transaction():
        if list(conn.execute(STAMP_SQL).fetchone())[1] != stamp[1]:
            return {"terms": 0, "records": 0, "rebuilt": False, "skipped": "records edited while counting"}
        if appended:
            tokens = dict(previous["tokens"])
            histogram = {k: Counter({int(n): c for n, c in previous["histogram"][k].items()}) for k in KINDS}
            old = _old_counts(conn, sorted(delta))
        else:
            conn.execute("DELETE FROM term_counts")
            tokens = {k: 0 for k in KINDS}
            histogram = {k: Counter() for k in KINDS}
            old = {}
        tokens["unigrams"] += new.totals[0]
        tokens["bigrams"] += new.totals[1]
        rows = []
        for term in sorted(delta):
            before = old.get(term, 0)
            after_n = before + delta[term]
            h = histogram[kind(term)]
            if before:
                h[before] -= 1
                if not h[before]:
                    del h[before]
            h[after_n] += 1
            rows.append((term, after_n))
        conn.executemany("INSERT INTO term_counts(term, n) VALUES (?, ?) "
                         "ON CONFLICT(term) DO UPDATE SET n = excluded.n", rows)
        corpus.set_meta(META_KEY, {"stamp": stamp, "tokens": tokens,
                                   "histogram": {k: {str(n): c for n, c in sorted(histogram[k].items())}
                                                 for k in KINDS}})
    return {"terms": len(rows), "records": new.records, "rebuilt": not appended}


class StoredTerms:
    """The stored corpus-wide counts: ``tokens`` per term length, ``histogram`` (``{length: {count:
    terms}}``) and :meth:`counts` of given terms."""

    def __init__(self, conn, meta: dict):
        self.conn = conn
        self.tokens = {k: int(meta["tokens"][k]) for k in KINDS}
        self.histogram = {k: {int(n): int(c) for n, c in meta["histogram"][k].items()} for k in KINDS}

    def counts(self, terms) -> dict:
        """term -> occurrences in the corpus, for the given terms that occur."""
        return _old_counts(self.conn, sorted(terms))


def stored_terms(conn) -> StoredTerms | None:
    """The stored counts while they describe the records as they are now, else None."""
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (META_KEY,)).fetchone()
    if row is None or not usable(conn):
        return None
    return StoredTerms(conn, json.loads(row[0]))
