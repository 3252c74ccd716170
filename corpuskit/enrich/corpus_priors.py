"""Sentiment labels adjusted to the corpus's own class priors (enrich's ``sentiment_priors="corpus"``).

The shipped model is trained with balanced class weights, so its most-probable-class labels
assume the three classes are equally common. A corpus that is mostly neutral (or mostly negative,
as complaints to an airline) then gets too few labels of its commonest class, and every share
counted from the labels (snapshots, compare, stories, the API) is off. With the option on, the
enrich run ends with one more pass over every record that has a sentiment label:

1. the scorer's class probabilities of each text (:meth:`predict_proba`), calibrated when the
   scorer has :meth:`calibrate_proba` (the shipped model: the temperature scaling and biases
   chosen by leaving one SemEval year out);
2. the corpus's class priors by EM from those probabilities
   (:func:`corpuskit.enrich.priors.em_priors`, Saerens, Latinne, Decaestecker 2002), starting
   from the priors the probabilities are calibrated to (:meth:`calibrated_priors`, else
   :meth:`training_priors`);
3. labels whose counts match those priors (:func:`corpuskit.enrich.priors.labels_for_priors`).

EM trusts the scorer's probabilities. Where they are not calibrated for the corpus, it can move
the shares away from the truth: ``benchmarks/bench_sentiment.py --lodo`` measures both cases
(docs/sentiment.md), which is why the option is off by default. Only labels change: the score stays ``P(positive) - P(negative)`` under the model's training
priors, so mean scores and shifts are comparable across corpora. The estimated priors, the shares
before and after, and the records read are stored in the corpus metadata under
``sentiment_priors:{run_id}``; the methods paragraph says the adjustment was applied.
"""
from __future__ import annotations

import json

import numpy as np

from corpuskit.enrich.base import record_text
from corpuskit.enrich.priors import em_priors, labels_for_priors
from corpuskit.errors import ValidationError

#: enrich's ``sentiment_priors`` values: keep the model's labels, or adjust them to the corpus
PRIOR_MODES = ("training", "corpus")
META_PREFIX = "sentiment_priors:"


def check_scorer(scorer) -> None:
    """Raise ValidationError unless ``scorer`` gives class probabilities and its training priors."""
    if not (callable(getattr(scorer, "predict_proba", None)) and callable(getattr(scorer, "training_priors", None))):
        raise ValidationError(f"sentiment_priors='corpus' needs a scorer with predict_proba and training_priors; "
                              f"{type(scorer).__name__} has not both (use the default tweet model)")


def _scored(conn, after: int, limit: int):
    return conn.execute(
        "SELECT r.id, r.title, r.content_text, e.sentiment_label FROM records r JOIN enrichment e "
        "ON e.record_id = r.id WHERE e.sentiment_label IS NOT NULL AND r.id > ? ORDER BY r.id LIMIT ?",
        (after, limit)).fetchall()


def _priors(scorer) -> np.ndarray:
    return (getattr(scorer, "calibrated_priors", None) or scorer.training_priors)()


def corpus_probabilities(conn, scorer, chunk_size: int = 5000) -> tuple[np.ndarray, np.ndarray, list]:
    """``(ids, probabilities, labels now stored)`` of every record with a sentiment label, in id order."""
    ids, parts, stored = [], [], []
    after = -1
    while rows := _scored(conn, after, chunk_size):
        ids.extend(r["id"] for r in rows)
        stored.extend(r["sentiment_label"] for r in rows)
        parts.append(scorer.predict_proba([record_text(r["title"], r["content_text"]) for r in rows]))
        after = rows[-1]["id"]
    proba = np.vstack(parts) if parts else np.zeros((0, 3))
    return np.array(ids, dtype=np.int64), proba, stored


def adjust_to_corpus_priors(corpus, scorer, run_id: str, chunk_size: int = 5000) -> dict:
    """Relabel the scored records of ``corpus`` (a CorpusFile) to the corpus's EM-estimated class
    priors; store and return ``{applied, records, priors, unadjusted, iterations, changed}`` (shares
    keyed by class, in the scorer's class order)."""
    from corpuskit.enrich.tweet_model import CLASSES

    check_scorer(scorer)
    conn = corpus.conn
    ids, proba, stored = corpus_probabilities(conn, scorer, chunk_size)
    calibrate = getattr(scorer, "calibrate_proba", None)
    fit = em_priors(calibrate(proba) if calibrate else proba, _priors(scorer))
    labels = labels_for_priors(fit.posteriors, fit.priors)
    new = [CLASSES[i] for i in labels]
    changed = [(label, int(i)) for i, label, old in zip(ids, new, stored) if label != old]
    with corpus.transaction():
        conn.executemany("UPDATE enrichment SET sentiment_label = ? WHERE record_id = ?", changed)
    n = max(len(ids), 1)
    own = scorer.labels_of(proba) if callable(getattr(scorer, "labels_of", None)) else proba.argmax(axis=1)
    before = np.bincount(own, minlength=len(CLASSES)) / n if len(ids) else np.zeros(len(CLASSES))
    note = {"applied": True, "method": "EM prior adjustment (Saerens, Latinne, Decaestecker 2002)",
            "records": int(len(ids)), "iterations": int(fit.iterations), "changed": len(changed),
            "trainingPriors": _by_class(_priors(scorer), CLASSES),
            "priors": _by_class(fit.priors, CLASSES), "unadjusted": _by_class(before, CLASSES)}
    corpus.set_meta(META_PREFIX + run_id, note)
    return note


def _by_class(values, classes) -> dict:
    return {c: round(float(v), 4) for c, v in zip(classes, values)}


def latest_adjustment(conn) -> tuple[str, dict, bool] | None:
    """``(run_id, note, by_last_run)`` of the newest enrich run that adjusted the labels, where
    ``by_last_run`` says whether it is also the corpus's last finished enrich run; None when no run
    adjusted them."""
    runs = conn.execute("SELECT id FROM runs WHERE stage = 'enrich' AND status = 'done' "
                        "ORDER BY started_at DESC, rowid DESC").fetchall()
    for n, (run_id,) in enumerate(runs):
        row = conn.execute("SELECT value FROM meta WHERE key = ?", (META_PREFIX + run_id,)).fetchone()
        if row:
            return run_id, json.loads(row[0]), n == 0
    return None


def adjustment_sentence(conn) -> str | None:
    """The methods sentence on prior adjustment (None when no enrich run adjusted the labels)."""
    found = latest_adjustment(conn)
    if found is None:
        return None
    run_id, note, last = found
    shares = lambda d: ", ".join(f"{c} {100 * v:.1f} %" for c, v in d.items())  # noqa: E731
    text = (f"Sentiment labels were adjusted to the corpus's own class priors by EM prior adjustment (Saerens, "
            f"Latinne, Decaestecker 2002) over the {note['records']:,} scored records, from the model's training "
            f"priors ({shares(note['trainingPriors'])}): estimated shares {shares(note['priors'])}, against "
            f"{shares(note['unadjusted'])} for the unadjusted most probable class; {note['changed']:,} labels "
            f"changed, scores unchanged")
    if not last:
        text += (f". This was enrich run {run_id}; the corpus's last enrich run did not adjust, so records it "
                 f"enriched carry unadjusted labels")
    return text + "."
