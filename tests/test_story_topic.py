"""A story's topic is its records' topic: a dispatch is filed under the primary topic most of its
signal's evidence records belong to, never under the topic the signal reached through one shared
word (a secondary topic assignment, an entity's topic of the day)."""
from __future__ import annotations

from corpuskit.narrate.evidence import signal_dict, signal_evidence
from corpuskit.narrate.pipeline import narrate_corpus
from tests.narrate_fixtures import build_fixture


def _plant(corpus):
    """The Zephyr Labs novelty signal stays on Chips and Compute, but three of its four evidence
    records are Climate's (as the Essien Ebola hoax was filed under Ferguson through "Michael")."""
    ids = build_fixture(corpus)
    conn = corpus.conn
    sid = conn.execute("SELECT id FROM signals WHERE signal_key = 'sig-zephyr-novelty'").fetchone()[0]
    climate, chips = ids["records"]["climate"], ids["records"]["chips"]
    with corpus.transaction():
        conn.execute("DELETE FROM signal_evidence WHERE signal_id = ?", (sid,))
        for rid in climate[-3:] + chips[-1:]:
            conn.execute("INSERT INTO signal_evidence VALUES (?, 'record', ?)", (sid, rid))
        # the climate records carry Chips and Compute as a second topic: the "one shared word"
        for rid in climate[-3:]:
            conn.execute("INSERT OR IGNORE INTO topic_assignments(record_id, topic_id, confidence) VALUES (?,?,?)",
                         (rid, ids["topics"]["chips"], 0.2))
    return ids, sid


def test_a_dispatch_is_filed_under_its_records_topic(corpus):
    ids, sid = _plant(corpus)
    row = corpus.conn.execute("SELECT * FROM signals WHERE id = ?", (sid,)).fetchone()
    ev = signal_evidence(corpus.conn, signal_dict(row), "dispatch", "dispatch:zephyr", 5, 7)
    assert ev.beat["id"] == ids["topics"]["climate"]
    narrate_corpus(corpus, progress=False)
    topics = [r[0] for r in corpus.conn.execute(
        "SELECT topic_id FROM stories WHERE trigger_signal_id = ? AND is_current = 1 AND kind = 'dispatch'", (sid,))]
    assert topics and set(topics) == {ids["topics"]["climate"]}


def test_a_signal_on_its_own_records_keeps_its_topic(corpus):
    ids = build_fixture(corpus)
    row = corpus.conn.execute("SELECT * FROM signals WHERE signal_key = 'sig-chips-spike'").fetchone()
    ev = signal_evidence(corpus.conn, signal_dict(row), "dispatch", "dispatch:chips", 5, 7)
    assert ev.beat["id"] == ids["topics"]["chips"]
