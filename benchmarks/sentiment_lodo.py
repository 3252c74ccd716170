"""Leave one SemEval year out for the tweet sentiment model (``bench_sentiment.py --lodo``).

Each SemEval year (2013: train, dev, test; 2014: test, sarcasm; 2015: train, test; 2016: train,
dev, devtest, test) is one dataset. For each year left out, the training script's staged search
chooses the features, lexicon weight, ``C`` and class weighting by leave-one-year-out over the
other years only (the mean of their macro recall), fits the chosen setting on those years, and
scores macro recall on the year left out. Leaving 2016 out is the time split: trained on
2013-2015, scored on 2016. A repeated text belongs to the earliest year that holds it
(:func:`train_sentiment.year_folds`), so it is never on both sides.
"""
from __future__ import annotations

import csv
import time

import numpy as np

#: the bounded grid the benchmark searches in every fold (the shipped model's command searches the same)
LODO_FEATURES = (
    {"word_ngrams": (1, 2), "char_ngrams": (2, 5), "negation": True, "lexicon": True},
    {"word_ngrams": (1, 2), "char_ngrams": (2, 5), "negation": True, "lexicon": True, "vader": True},
)
LODO_LEXICON_WEIGHTS = (0.3, 1.0)
LODO_C = (0.25, 0.5, 1.0)
LODO_CLASS_WEIGHTS = ("balanced", None)

#: published and earlier figures printed beside the table (macro recall, %)
REFERENCES = (("TweetEval 2017 test: SVM", 62.9), ("TweetEval 2017 test: RoBERTa-base", 71.3),
              ("TweetEval 2017 test: this model, earlier held-out run", 64.9))


def inner_rows(folds, year: int, cap: int | None, seed: int) -> np.ndarray:
    """The rows the settings are chosen on when ``year`` is left out: every other year's tweets, at
    most ``cap`` of each year (a seeded random sample; ``None``: all)."""
    rng = np.random.default_rng(seed)
    out = []
    for other in sorted(set(folds.tolist()) - {year}):
        rows = np.flatnonzero(folds == other)
        out.append(rows if cap is None or len(rows) <= cap else np.sort(rng.permutation(rows)[:cap]))
    return np.concatenate(out)


def left_out_year(texts, y, folds, year: int, log=print, jobs: int = 1, parts_memo=None,
                  cap: int | None = None, seed: int = 17) -> dict:
    """Choose settings on every year but ``year`` (inner leave-one-year-out over at most ``cap``
    tweets of each of them), fit them on all of those years and score the year left out:
    ``{year, features, classifier, inner, figures}``."""
    from train_sentiment import FoldCache, figures, search, year_splits

    rows = np.flatnonzero(folds != year)
    inner = year_splits(folds, inner_rows(folds, year, cap, seed))
    feat, clf, trials = search(texts, y, folds, LODO_FEATURES, LODO_LEXICON_WEIGHTS, LODO_C, LODO_CLASS_WEIGHTS,
                               log=log, jobs=jobs, splits=inner, criterion="mean_split", parts_memo=parts_memo)
    chosen = next(t for t in trials if t["classifier"] == clf and t["features"] == {
        k: list(v) if isinstance(v, tuple) else v for k, v in sorted(feat.items())})
    held = np.flatnonzero(folds == year)
    cache = FoldCache(texts, y, folds, jobs, splits=[(rows, held)], parts_memo=parts_memo)
    proba, = cache.predict_proba(cache.matrices(feat), clf["C"], clf["class_weight"])
    return {"year": year, "features": feat, "classifier": clf, "inner": chosen["cv"],
            "figures": figures(y[held], proba.argmax(axis=1)),
            "shares": shares(y[held], proba, training_priors(y[rows], clf["class_weight"]))}


def training_priors(y_train, class_weight) -> np.ndarray:
    """The priors a classifier fitted on ``y_train`` is calibrated to: equal under balanced weights."""
    if class_weight == "balanced":
        return np.full(3, 1 / 3)
    return np.bincount(y_train, minlength=3) / len(y_train)


def shares(y, proba, train_priors) -> dict:
    """Class shares of a labelled set: true, from argmax labels, from EM prior adjustment (the
    estimated priors), and the macro recall of the labels that match them."""
    from train_sentiment import figures

    from corpuskit.enrich.priors import em_priors, labels_for_priors

    fit = em_priors(proba, train_priors)
    matched = labels_for_priors(fit.posteriors, fit.priors)
    return {"true": np.bincount(y, minlength=3) / len(y),
            "argmax": np.bincount(proba.argmax(axis=1), minlength=3) / len(y),
            "em": fit.priors, "em_labels_macro_recall": figures(y, matched)["macro_recall"]}


def read_airline(path) -> tuple[list[str], list[str]]:
    """Texts and gold labels of the airline tweets (``Tweets.csv``: ``text``, ``airline_sentiment``)."""
    with open(path, encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    return [r["text"] for r in rows], [r["airline_sentiment"] for r in rows]


def run_lodo(texts, y, folds, log=print, jobs: int = 1, cap: int | None = None, seed: int = 17) -> list[dict]:
    """:func:`left_out_year` for every year, in year order."""
    memo: dict = {}
    out = []
    for year in sorted(set(folds.tolist())):
        t0 = time.perf_counter()
        log(f"--- {year} left out: settings chosen on the other years")
        out.append(left_out_year(texts, y, folds, year, log=log, jobs=jobs, parts_memo=memo, cap=cap, seed=seed))
        log(f"--- {year}: macro recall {out[-1]['figures']['macro_recall']:.4f} "
            f"[{time.perf_counter() - t0:.0f} s]")
    return out
