"""Leave one SemEval year out for the tweet sentiment model (``bench_sentiment.py --lodo``).

Each SemEval year (2013: train, dev, test; 2014: test, sarcasm; 2015: train, test; 2016: train,
dev, devtest, test) is one dataset. For each year left out, the training script's staged search
chooses the features, lexicon weight, ``C`` and class weighting by leave-one-year-out over the
other years only (the mean of their macro recall), fits the chosen setting on those years, and
scores macro recall on the year left out. Leaving 2016 out is the time split: trained on
2013-2015, scored on 2016. A repeated text belongs to the earliest year that holds it
(:func:`train_sentiment.year_folds`), so it is never on both sides. The inner years' held-out
probabilities of the chosen setting also choose class offsets and temperature scaling
(:mod:`corpuskit.enrich.calibration`), scored on the year left out the same way.
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
#: ``--grid small``: VADER's scores and balanced weights fixed (every fold of the full grid's
#: November 2026 run chose both), the lexicon weight and ``C`` searched
SMALL_GRID = (LODO_FEATURES[1:], LODO_LEXICON_WEIGHTS, LODO_C, ("balanced",))

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
                  cap: int | None = None, seed: int = 17, grid=None) -> dict:
    """Choose settings on every year but ``year`` (inner leave-one-year-out over at most ``cap``
    tweets of each of them), fit them on all of those years and score the year left out:
    ``{year, features, classifier, inner, offsets, calibration, figures, figures_offsets, shares}``.

    Besides the classifier's settings, the inner years' held-out probabilities of the chosen setting
    choose the post-hoc settings (:mod:`corpuskit.enrich.calibration`): class offsets maximising the
    inner years' mean macro recall, and temperature scaling with and without bias correction
    (minimum held-out log-loss), which the EM share estimates use. ``grid``: ``(features, lexicon
    weights, C, class weights)`` searched (default the ``LODO_*`` constants)."""
    from train_sentiment import FoldCache, figures, search, trial_key, year_splits

    from corpuskit.enrich.calibration import apply_offsets, fit_class_offsets, fit_temperature

    features, lex, cs, cws = grid or (LODO_FEATURES, LODO_LEXICON_WEIGHTS, LODO_C, LODO_CLASS_WEIGHTS)
    rows = np.flatnonzero(folds != year)
    inner = year_splits(folds, inner_rows(folds, year, cap, seed))
    probas: dict = {}
    feat, clf, trials = search(texts, y, folds, features, lex, cs, cws, log=log, jobs=jobs, splits=inner,
                               criterion="mean_split", parts_memo=parts_memo, probas=probas)
    chosen = next(t for t in trials if t["classifier"] == clf and t["features"] == {
        k: list(v) if isinstance(v, tuple) else v for k, v in sorted(feat.items())})
    inner_proba = probas[trial_key(feat, clf)]
    offsets, inner_offsets = fit_class_offsets([p for _, p in inner_proba], [y[h] for h, _ in inner_proba])
    pooled_p = np.vstack([p for _, p in inner_proba])
    pooled_y = np.concatenate([y[h] for h, _ in inner_proba])
    calibration = {"ts": fit_temperature(pooled_p, pooled_y, bias=False),
                   "bcts": fit_temperature(pooled_p, pooled_y, bias=True)}
    held = np.flatnonzero(folds == year)
    cache = FoldCache(texts, y, folds, jobs, splits=[(rows, held)], parts_memo=parts_memo)
    proba, = cache.predict_proba(cache.matrices(feat), clf["C"], clf["class_weight"])
    return {"year": year, "features": feat, "classifier": clf, "inner": chosen["cv"],
            "offsets": offsets, "inner_offsets": inner_offsets, "calibration": calibration,
            "figures": figures(y[held], proba.argmax(axis=1)),
            "figures_offsets": figures(y[held], apply_offsets(proba, offsets)),
            "shares": shares(y[held], proba, training_priors(y[rows], clf["class_weight"]), calibration)}


def training_priors(y_train, class_weight) -> np.ndarray:
    """The priors a classifier fitted on ``y_train`` is calibrated to: equal under balanced weights, in
    proportion to the square roots of the class counts under ``"sqrt_balanced"``."""
    if class_weight == "balanced":
        return np.full(3, 1 / 3)
    counts = np.bincount(y_train, minlength=3).astype(float)
    if class_weight == "sqrt_balanced":  # each class counts n * sqrt(N / (k n)), in proportion to sqrt(n)
        counts = np.sqrt(counts)
    return counts / counts.sum()


def shares(y, proba, train_priors, calibration=None) -> dict:
    """Class shares of a labelled set: true, from argmax labels, from EM prior adjustment (the
    estimated priors) of the raw probabilities and, for each entry of ``calibration`` (name:
    :class:`~corpuskit.enrich.calibration.Calibration`), of the calibrated ones (``em_NAME``), and
    the macro recall of the labels matched to each estimate (``..._macro_recall``)."""
    from train_sentiment import figures

    from corpuskit.enrich.calibration import apply_calibration
    from corpuskit.enrich.priors import em_priors, labels_for_priors

    out = {"true": np.bincount(y, minlength=3) / len(y),
           "argmax": np.bincount(proba.argmax(axis=1), minlength=3) / len(y)}
    variants = [("em", proba, train_priors)]
    for name, cal in (calibration or {}).items():
        # temperature alone keeps the model's priors; with a bias the output assumes the calibration set's
        variants.append((f"em_{name}", apply_calibration(proba, cal),
                         cal.priors if np.any(cal.bias) else train_priors))
    for name, p, t in variants:
        fit = em_priors(p, t)
        out[name] = fit.priors
        out[f"{name}_labels_macro_recall"] = figures(y, labels_for_priors(fit.posteriors, fit.priors))["macro_recall"]
    return out


def read_airline(path) -> tuple[list[str], list[str]]:
    """Texts and gold labels of the airline tweets (``Tweets.csv``: ``text``, ``airline_sentiment``)."""
    with open(path, encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    return [r["text"] for r in rows], [r["airline_sentiment"] for r in rows]


def run_lodo(texts, y, folds, log=print, jobs: int = 1, cap: int | None = None, seed: int = 17,
             grid=None) -> list[dict]:
    """:func:`left_out_year` for every year, in year order."""
    memo: dict = {}
    out = []
    for year in sorted(set(folds.tolist())):
        t0 = time.perf_counter()
        log(f"--- {year} left out: settings chosen on the other years")
        out.append(left_out_year(texts, y, folds, year, log=log, jobs=jobs, parts_memo=memo, cap=cap, seed=seed,
                                grid=grid))
        log(f"--- {year}: macro recall {out[-1]['figures']['macro_recall']:.4f}, with offsets "
            f"{out[-1]['offsets'].round(2).tolist()} {out[-1]['figures_offsets']['macro_recall']:.4f} "
            f"[{time.perf_counter() - t0:.0f} s]")
    return out
