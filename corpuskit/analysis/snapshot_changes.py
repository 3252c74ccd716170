"""Which days' snapshot inputs changed since the last snapshot build, found cheaply.

Snapshots are made from records, their enrichment, topic assignments and
mentions, the entities' names and types, and signals. Rather than aggregating
all of that again to learn that little changed, :class:`ChangeTracker`
fingerprints each input table in buckets of ``2**BUCKET_BITS`` consecutive
record ids (counts and several weighted sums, one grouped scan per table
that never reads the wide record rows), and the entities by id bucket
(a digest of their names and types). A bucket whose fingerprint differs from
the stored one marks its days dirty: the days its records fall on now and the
days they fell on at the last build (so deleted records are covered too). An
entity bucket that changed marks the days of the records mentioning its
entities. The fingerprints and each bucket's days are kept in the ``meta``
table under ``STATE_KEY``.

This is a cache in front of the digests: a dirty day is recomputed and its
row rewritten only if its ``input_hash`` differs, so a false alarm costs time
but never correctness. No stored state (first build, or another version of
this module) means every day is dirty.
"""
from __future__ import annotations

import hashlib
import json

STATE_KEY = "snapshot_inputs"
VERSION = 1
BUCKET_BITS = 8

_FINGERPRINTS = {
    "records": "SELECT id >> {bits}, count(*), sum(id), min(published_at), max(published_at) "
               "FROM records GROUP BY 1",
    "enrichment": "SELECT record_id >> {bits}, count(*), sum(record_id * 1000003 + coalesce(topic_id, 0)), "
                  "total(sentiment_score), total(sentiment_score * (record_id % 9973 + 1)), "
                  "sum(record_id * (CASE sentiment_label WHEN 'positive' THEN 1 WHEN 'negative' THEN 2 "
                  "ELSE 3 END)) FROM enrichment GROUP BY 1",
    "topic_assignments": "SELECT record_id >> {bits}, count(*), sum(record_id * 1009 + topic_id), "
                         "sum(topic_id * topic_id) FROM topic_assignments GROUP BY 1",
    "mentions": "SELECT record_id >> {bits}, count(*), sum(entity_id), sum(mention_count), "
                "sum((record_id * 1000003 + entity_id) * mention_count) FROM mentions GROUP BY 1",
}


def _digest(value) -> str:
    return hashlib.sha256(json.dumps(value, separators=(",", ":")).encode()).hexdigest()[:24]


class ChangeTracker:
    """Finds the days whose snapshot inputs changed.

    ``bucket_bits`` defaults to :data:`BUCKET_BITS`. Use :meth:`fit` to read the current fingerprints, then ``dirty_days_``
    (a set of ``YYYY-MM-DD``, or ``None`` when everything must be rebuilt),
    and :meth:`save` after the snapshots are written.
    """

    def __init__(self, bucket_bits: int | None = None):
        self.bucket_bits = bucket_bits

    def fit(self, corpus) -> "ChangeTracker":
        conn = corpus.conn
        bits = int(BUCKET_BITS if self.bucket_bits is None else self.bucket_bits)
        self.bits_ = bits
        current = {}
        for table, sql in _FINGERPRINTS.items():
            current[table] = {str(r[0]): _digest(list(r[1:]))
                              for r in conn.execute(sql.format(bits=bits))}
        entity_buckets: dict[str, list] = {}
        for eid, name, etype in conn.execute("SELECT id, name, type FROM entities ORDER BY id"):
            entity_buckets.setdefault(str(eid >> bits), []).append([eid, name, etype])
        current["entities"] = {b: _digest(rows) for b, rows in entity_buckets.items()}
        self.fingerprints_ = current
        days_of = {}
        for bucket, day in conn.execute(
                f"SELECT DISTINCT id >> {bits}, day FROM records ORDER BY 1, 2"):
            days_of.setdefault(str(bucket), []).append(day)
        self.bucket_days_ = days_of

        state = corpus.get_meta(STATE_KEY)
        if not state or state.get("version") != VERSION or state.get("bits") != bits:
            self.dirty_days_ = None
            return self
        old, old_days = state["fingerprints"], state["bucketDays"]
        dirty: set[str] = set()
        record_buckets: set[str] = set()
        for table in _FINGERPRINTS:
            before, now = old.get(table, {}), current[table]
            record_buckets |= {b for b in set(before) | set(now) if before.get(b) != now.get(b)}
        for bucket in record_buckets:
            dirty.update(days_of.get(bucket, ()))
            dirty.update(old_days.get(bucket, ()))
        before, now = old.get("entities", {}), current["entities"]
        for bucket in sorted(b for b in set(before) | set(now) if before.get(b) != now.get(b)):
            lo, hi = int(bucket) << bits, ((int(bucket) + 1) << bits) - 1
            dirty.update(r[0] for r in conn.execute(
                "SELECT DISTINCT r.day FROM mentions m JOIN records r ON r.id = m.record_id "
                "WHERE m.entity_id BETWEEN ? AND ?", (lo, hi)))
        self.dirty_days_ = dirty
        return self

    def save(self, corpus) -> None:
        """Store the fingerprints read by :meth:`fit` as the new reference."""
        corpus.set_meta(STATE_KEY, {"version": VERSION, "bits": self.bits_,
                                    "fingerprints": self.fingerprints_,
                                    "bucketDays": self.bucket_days_})
