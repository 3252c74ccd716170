"""Enrichment quality against labelled records (the demo generator's ``metadata["demo"]``).

Used by the benchmark, the tests' quality floors and the notebook.
"""
from __future__ import annotations

import json

from corpuskit.query.name_keys import alias_key


def demo_quality(corpus) -> dict:
    """Scores of the stored enrichment against each record's ``metadata["demo"]`` labels.

    Entities: micro precision and recall over (record, canonical name), by
    name and by name + type. Topics: accuracy of the primary topic against
    the labelled beat; a record labelled off-beat (beat null) counts as
    correct when it has no primary topic. Sentiment: share of records whose
    label equals the generated sentiment. Records without demo labels are
    ignored.
    """
    conn = corpus.conn
    mentions: dict[int, dict] = {}
    for row in conn.execute("SELECT m.record_id, e.name, e.type FROM mentions m "
                            "JOIN entities e ON e.id = m.entity_id"):
        mentions.setdefault(row[0], {})[alias_key(row[1])] = row[2]
    tp = fp = fn = tp_typed = 0
    on = on_ok = off = off_ok = sent = sent_ok = 0
    rows = conn.execute(
        "SELECT r.id, r.metadata, t.name AS topic, e.sentiment_label FROM records r "
        "JOIN enrichment e ON e.record_id = r.id LEFT JOIN topics t ON t.id = e.topic_id")
    for rid, metadata, topic, label in rows:
        demo = json.loads(metadata).get("demo")
        if not demo:
            continue
        gold = {alias_key(name): kind for name, kind in demo.get("entities", [])}
        pred = mentions.get(rid, {})
        hits = gold.keys() & pred.keys()
        tp += len(hits)
        tp_typed += sum(gold[k] == pred[k] for k in hits)
        fp += len(pred.keys() - gold.keys())
        fn += len(gold.keys() - pred.keys())
        if demo.get("beat") is None:
            off += 1
            off_ok += topic is None
        else:
            on += 1
            on_ok += topic == demo["beat"]
        if demo.get("sentiment"):
            sent += 1
            sent_ok += label == demo["sentiment"]

    def ratio(a, b):
        return a / b if b else 1.0

    return {
        "namePrecision": ratio(tp, tp + fp), "nameRecall": ratio(tp, tp + fn),
        "typedPrecision": ratio(tp_typed, tp + fp), "typedRecall": ratio(tp_typed, tp + fn),
        "topicAccuracy": ratio(on_ok + off_ok, on + off), "topicRecords": on + off,
        "onBeatAccuracy": ratio(on_ok, on), "offBeatAccuracy": ratio(off_ok, off),
        "sentimentAgreement": ratio(sent_ok, sent),
    }
