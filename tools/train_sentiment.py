"""Train the shipped tweet sentiment model on the SemEval 2013-2016 tweets (read from a path; never copied here).

Usage::

    python tools/train_sentiment.py /path/to/semeval_sentiment [--out corpuskit/enrich/models] \
        [--folds 5] [--seed 17]

Reads every ``twitter-*-A.txt`` (``id TAB label TAB text``), drops repeated
annotations (one copy of a tweet id kept; an id annotated with different labels
dropped whole), and chooses every setting by stratified ``--folds``-fold
cross-validation on that data (folds keep identical texts together, so a
retweet never sits on both sides), maximising macro-averaged recall over
``positive`` / ``neutral`` / ``negative``. The search is staged and printed in
full: the feature blocks first (word n-gram range, character n-grams, negation
marks, lexicon cues, VADER's scores), then the lexicon weight, then the
regularisation ``C`` (with balanced class weights), then the class weighting at
the best ``C``. It then fits the chosen setting on
all the data and writes ``tweet_sentiment.npz`` (coefficients, vocabularies,
idf, scaling) and ``tweet_sentiment.json`` (settings, per-class CV figures,
confusion matrix, the search) into ``--out``. Same data and arguments give the
same files. ``--features``, ``--lexicon-weights``, ``--C`` and ``--class-weights``
narrow the search (the shipped model's exact command is in ``models/README.md``).
``--select years`` chooses instead by leaving one SemEval year out (2013, 2014, 2015, 2016; a tweet
repeated across years belongs to the earliest), maximising the mean of the years' macro recall.
``--calibrate years`` then fits the chosen setting with each year left out and stores, in the
metadata's ``calibration`` entry, class offsets (the model then labels by them) and a bias-corrected
temperature scaling for EM prior adjustment (:func:`calibrate`); ``--calibrate-only`` does that
for the model already in ``--out``. Off by default: measured by ``bench_sentiment.py --lodo``, the
offsets raised the mean of the years left out but lowered the worst (docs/sentiment.md).

Data: SemEval 2013-2016 Task 4 subtask A gold (Rosenthal, Farra, Nakov 2017; Nakov et al. 2016).
The tweets are not redistributed: only model weights and n-grams seen in at least
``min_df`` tweets are shipped.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
import re
from pathlib import Path

import numpy as np
import scipy.sparse as sp

import corpuskit.enrich
from corpuskit.enrich.tweet_features import TweetFeaturizer, clean_text
from corpuskit.enrich.tweet_model import CLASSES, INFO_FILE, MODEL_FILE, save_model

#: the shipped models' folder of the corpuskit this script imports
MODELS = Path(corpuskit.enrich.__file__).parent / "models"
DATA_NOTE = ("SemEval 2013-2016 Task 4 subtask A gold, English tweets (Rosenthal, Farra, Nakov 2017; "
             "Nakov et al. 2016); repeated annotations dropped; tweets not redistributed")

#: the staged search: each stage tries its values with the best of the stages before it
FEATURE_CANDIDATES = (
    {"word_ngrams": (1, 2), "char_ngrams": None, "negation": False, "lexicon": False},
    {"word_ngrams": (1, 2), "char_ngrams": (2, 5), "negation": False, "lexicon": False},
    {"word_ngrams": (1, 2), "char_ngrams": (2, 5), "negation": True, "lexicon": False},
    {"word_ngrams": (1, 2), "char_ngrams": (2, 5), "negation": True, "lexicon": True},
    {"word_ngrams": (1, 2), "char_ngrams": (2, 5), "negation": True, "lexicon": True, "vader": True},
    {"word_ngrams": (1, 3), "char_ngrams": (2, 5), "negation": True, "lexicon": True, "vader": True},
    {"word_ngrams": (1, 2), "char_ngrams": (3, 5), "negation": True, "lexicon": True, "vader": True},
)
TOL = 1e-3  # lbfgs stopping tolerance (1e-4 moved one fold's macro recall by 0.002 at 2.2x the time)
LEXICON_WEIGHTS = (0.3, 1.0)
C_VALUES = (0.25, 0.5, 1.0, 2.0)
CLASS_WEIGHTS = ("balanced", None)
#: model forms :meth:`FoldCache.predict_proba` fits (only ``"lr"`` is written by :func:`main`)
FORMS = ("lr", "nblr", "lr+nblr")
#: featurized settings a :class:`FoldCache` keeps (the n-gram counts of all texts are large)
PARTS_KEPT = 2
_YEAR = re.compile(r"twitter-(\d{4})")


def read_semeval(folder) -> tuple[list[str], list[str]]:
    """Texts and labels of every ``twitter-*-A.txt`` in ``folder`` (files in name order), repeats
    dropped: the first copy of an id kept, an id with disagreeing labels dropped."""
    texts, labels, _ = read_semeval_years(folder)
    return texts, labels


def read_semeval_years(folder) -> tuple[list[str], list[str], list[int]]:
    """:func:`read_semeval` with each tweet's SemEval year (the ``YEAR`` of the first file
    ``twitter-YEAR...-A.txt`` holding it: files are read in name order, so a tweet repeated in a
    later year's file belongs to the earlier year)."""
    files = sorted(Path(folder).glob("twitter-*-A.txt"))
    if not files:
        raise FileNotFoundError(f"no twitter-*-A.txt files in {folder}")
    first: dict[str, tuple[str, str, int]] = {}
    labels_of: dict[str, set] = {}
    for path in files:
        year = int(_YEAR.match(path.name).group(1))
        for line in path.read_text(encoding="utf-8").splitlines():
            parts = line.split("\t")
            if len(parts) < 3 or parts[1] not in CLASSES:
                continue
            tid, label, text = parts[0], parts[1], "\t".join(parts[2:]).strip()
            first.setdefault(tid, (label, text, year))
            labels_of.setdefault(tid, set()).add(label)
    keep = [tid for tid in first if len(labels_of[tid]) == 1]
    return [first[t][1] for t in keep], [first[t][0] for t in keep], [first[t][2] for t in keep]


def year_folds(texts, years) -> np.ndarray:
    """Each tweet's dataset for leave-one-year-out: its year, except that identical cleaned texts
    all go to the earliest year among them (so a repeated text never sits on both sides)."""
    earliest: dict[str, int] = {}
    cleaned = [clean_text(t) for t in texts]
    for c, year in zip(cleaned, years):
        earliest[c] = min(year, earliest.get(c, year))
    return np.array([earliest[c] for c in cleaned])


def year_splits(folds, rows=None) -> list[tuple[np.ndarray, np.ndarray]]:
    """``(train, held)`` row indices of leave-one-dataset-out over the datasets in ``folds`` (one
    split a dataset, in sorted order), inside ``rows`` (default: every row)."""
    rows = np.arange(len(folds)) if rows is None else np.asarray(rows)
    sets = np.unique(folds[rows])
    return [(rows[folds[rows] != s], rows[folds[rows] == s]) for s in sets]


def fold_ids(texts, y, k: int, seed: int) -> np.ndarray:
    """The fold of each text: stratified by label, identical cleaned texts in one fold."""
    from sklearn.model_selection import StratifiedGroupKFold

    groups = {}
    g = np.array([groups.setdefault(clean_text(t), len(groups)) for t in texts])
    out = np.zeros(len(texts), dtype=int)
    splitter = StratifiedGroupKFold(n_splits=k, shuffle=True, random_state=seed)
    for f, (_, held) in enumerate(splitter.split(np.zeros(len(texts)), y, g)):
        out[held] = f
    return out


def figures(y, pred) -> dict:
    """Macro-averaged recall, per-class recall, precision and F1, and the confusion matrix
    (rows gold, columns predicted, in :data:`CLASSES` order)."""
    from sklearn.metrics import confusion_matrix

    m = confusion_matrix(y, pred, labels=list(range(len(CLASSES))))
    recall = m.diagonal() / np.maximum(m.sum(axis=1), 1)
    precision = m.diagonal() / np.maximum(m.sum(axis=0), 1)
    f1 = np.where(recall + precision > 0, 2 * recall * precision / np.maximum(recall + precision, 1e-12), 0)
    pos, neg = CLASSES.index("positive"), CLASSES.index("negative")
    return {"macro_recall": float(recall.mean()),
            "f1_pn": float((f1[pos] + f1[neg]) / 2),
            "accuracy": float(m.diagonal().sum() / m.sum()),
            "per_class": {c: {"recall": float(recall[i]), "precision": float(precision[i]), "f1": float(f1[i])}
                          for i, c in enumerate(CLASSES)},
            "confusion": m.tolist()}


def _classifier(c: float, class_weight, y=None):
    """The logistic regression; ``class_weight`` is scikit-learn's (``"balanced"`` or None) or
    ``"sqrt_balanced"``: each class weighted by the square root of its balanced weight (half way,
    in logs, between no weighting and balanced), from the training labels ``y``."""
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(C=c, class_weight=class_weights_of(class_weight, y), max_iter=2000, tol=TOL,
                              solver="lbfgs")


def class_weights_of(class_weight, y):
    """``class_weight`` as scikit-learn reads it: ``"sqrt_balanced"`` becomes ``{class: sqrt(n / (k *
    n_class))}`` of the labels ``y``; anything else is passed on."""
    if class_weight != "sqrt_balanced":
        return class_weight
    counts = np.bincount(np.asarray(y), minlength=len(CLASSES)).astype(float)
    return {i: float(np.sqrt(len(y) / (len(CLASSES) * n))) for i, n in enumerate(counts) if n > 0}


class FoldCache:
    """Each split's features for one featurizer setting, fitted on the split's training part only.

    ``folds`` gives each text's fold; the splits are then "every fold held out once" (``splits``
    None, cross-validation) or the ``(train, held)`` row indices given (leave one dataset out
    inside some rows). ``parts_memo`` (a dict) shares the featurized texts between caches over the
    same texts."""

    def __init__(self, texts, y, folds, jobs: int = 1, splits=None, parts_memo=None):
        self.texts, self.y, self.folds, self.jobs = texts, np.asarray(y), folds, jobs
        if splits is None:
            splits = [(np.flatnonzero(folds != f), np.flatnonzero(folds == f)) for f in range(int(folds.max()) + 1)]
        self.splits = splits
        self.k = len(splits)
        self.parts_memo = {} if parts_memo is None else parts_memo

    def _blocks(self, settings: dict):
        key = json.dumps(_jsonable({k: v for k, v in settings.items() if k != "lexicon_weight"}), sort_keys=True)
        if key not in self.parts_memo:
            feat = TweetFeaturizer(**settings)
            words, chars, dense = feat.parts(self.texts)
            blocks = [(_all_counts(words), feat.min_df, feat.max_words)]
            if chars is not None:
                blocks.append((_all_counts(chars), feat.min_df, feat.max_chars))
            while len(self.parts_memo) >= PARTS_KEPT:  # the n-gram counts are large: the two latest settings kept
                self.parts_memo.pop(next(iter(self.parts_memo)))
            self.parts_memo[key] = (blocks, dense)
        return self.parts_memo[key]

    def matrices(self, settings: dict):
        """``(train, held, X_train, X_held)`` of each split, as :class:`TweetFeaturizer` fitted on the
        split's training part would give them: the n-grams are counted once over all texts, then each
        split keeps the terms its training part has in ``min_df`` texts (the most frequent, ties by
        term) and takes idf and the dense scaling from its training part."""
        feat = TweetFeaturizer(**settings)
        blocks, dense = self._blocks(settings)
        out = []
        for train, held in self.splits:
            parts_train, parts_held = [], []
            for counts, min_df, cap in blocks:
                c_train = counts[train]
                df = np.bincount(c_train.indices, minlength=counts.shape[1])
                ok = np.flatnonzero(df >= min_df)
                ok = np.sort(ok[np.lexsort((ok, -df[ok]))][:cap])  # terms are sorted: index order = term order
                idf = np.log((1 + len(train)) / (1 + df[ok])) + 1.0
                parts_train.append(TweetFeaturizer._weighted(c_train[:, ok], idf))
                parts_held.append(TweetFeaturizer._weighted(counts[held][:, ok], idf))
            if dense is not None:
                mean, spread = dense[train].mean(axis=0), dense[train].std(axis=0)
                spread = np.where(spread > 0, spread, 1.0)
                for rows, parts in ((train, parts_train), (held, parts_held)):
                    parts.append(sp.csr_matrix(((dense[rows] - mean) / spread * feat.lexicon_weight)
                                               .astype(np.float32)))
            out.append((train, held, sp.hstack(parts_train, format="csr", dtype=np.float32),
                        sp.hstack(parts_held, format="csr", dtype=np.float32)))
        return out

    def predict_proba(self, mats, c: float, class_weight, form: str = "lr", n_dense: int = 0) -> list:
        """Each split's held-out class probabilities from a classifier fitted on its training part
        (splits fitted in ``jobs`` processes; the result does not depend on their number). ``form``:
        ``"lr"`` the multinomial logistic regression, ``"nblr"`` one-vs-rest on naive-Bayes scaled
        n-grams (:class:`nb_logistic.NBLogistic`; the last ``n_dense`` columns are not scaled),
        ``"lr+nblr"`` the mean of the two's probabilities (``c`` may then be a pair: the LR's, the NB-LR's)."""
        from joblib import Parallel, delayed

        return Parallel(n_jobs=self.jobs)(delayed(_fit_predict)(x_train, self.y[train], x_held, c, class_weight,
                                                                form, n_dense)
                                          for train, _, x_train, x_held in mats)

    def score(self, mats, c: float, class_weight, probas=None) -> dict:
        """Figures of one classifier setting on ``mats`` (splits fitted in ``jobs`` processes; the
        result does not depend on their number): :func:`figures` of every held-out text pooled, plus
        ``per_split`` (each split's macro recall, in split order), ``mean_split`` and ``worst_split``.
        ``probas`` (a list), when given, gets ``[(held rows, probabilities)]`` of the splits appended."""
        proba = self.predict_proba(mats, c, class_weight)
        if probas is not None:
            probas.append([(held, p) for (_, held, _, _), p in zip(mats, proba)])
        fitted = [p.argmax(axis=1) for p in proba]
        held_all = np.concatenate([held for _, held, _, _ in mats])
        per_split = [figures(self.y[held], part)["macro_recall"] for (_, held, _, _), part in zip(mats, fitted)]
        fig = figures(self.y[held_all], np.concatenate(fitted))
        return {**fig, "per_split": per_split, "mean_split": float(np.mean(per_split)),
                "worst_split": float(np.min(per_split))}


def _fit_predict(x_train, y_train, x_held, c, class_weight, form: str = "lr", n_dense: int = 0):
    if form not in FORMS:
        raise ValueError(f"unknown model form {form!r}: one of {FORMS}")
    c_lr, c_nb = c if isinstance(c, (tuple, list)) else (c, c)
    out = []
    if form in ("lr", "lr+nblr"):
        out.append(_classifier(c_lr, class_weight, y_train).fit(x_train, y_train).predict_proba(x_held))
    if form in ("nblr", "lr+nblr"):
        from nb_logistic import NBLogistic

        nb = NBLogistic(C=c_nb, class_weight=class_weights_of(class_weight, y_train), n_sparse=x_train.shape[1] - n_dense,
                        tol=TOL)
        out.append(nb.fit(x_train, y_train).predict_proba(x_held))
    return np.mean(out, axis=0)


def dense_columns(settings: dict) -> int:
    """How many dense lexicon columns a featurizer with ``settings`` puts after its n-gram blocks."""
    from corpuskit.enrich.tweet_features import LEXICON_COLUMNS, VADER_COLUMNS

    if not settings.get("lexicon", True):
        return 0
    return len(LEXICON_COLUMNS) + (len(VADER_COLUMNS) if settings.get("vader", False) else 0)


def _line(fig) -> str:
    per = " ".join(f"{c[:3]} {fig['per_class'][c]['recall']:.3f}" for c in CLASSES)
    splits = " ".join(f"{m:.3f}" for m in fig.get("per_split", []))
    return (f"macro recall {fig['macro_recall']:.4f} (recall {per}; F1pn {fig['f1_pn']:.3f}; "
            f"per split {splits})")


def search(texts, y, folds, feature_candidates=FEATURE_CANDIDATES, lexicon_weights=LEXICON_WEIGHTS,
           c_values=C_VALUES, class_weights=CLASS_WEIGHTS, log=print, jobs: int = 1, splits=None,
           criterion: str = "macro_recall", parts_memo=None, probas=None) -> tuple[dict, dict, list]:
    """The staged search: ``(featurizer settings, classifier settings, trials)``. Each setting is
    scored over ``splits`` (default: cross-validation over ``folds``, see :class:`FoldCache`) and the
    best by ``criterion`` is kept: ``"macro_recall"`` of every held-out text pooled, or
    ``"mean_split"``, the mean of the splits' macro recall (leave one dataset out: each dataset
    counts once, whatever its size). ``probas`` (a dict), when given, receives each trial's held-out
    probabilities, ``[(held rows, probabilities)]`` a split, keyed by :func:`trial_key`."""
    cache = FoldCache(texts, y, folds, jobs, splits=splits, parts_memo=parts_memo)
    trials = []
    kept: list = []

    def trial(feat, clf, mats=None):
        t0 = time.perf_counter()
        mats = mats if mats is not None else cache.matrices(feat)
        fig = cache.score(mats, clf["C"], clf["class_weight"], probas=kept if probas is not None else None)
        if probas is not None:
            probas[trial_key(feat, clf)] = kept.pop()
        trials.append({"features": _jsonable(feat), "classifier": clf, "cv": fig})
        log(f"{_jsonable(feat)} {clf}: CV {_line(fig)} [{time.perf_counter() - t0:.0f} s]")
        return fig[criterion], mats

    clf = {"C": 1.0 if 1.0 in c_values else c_values[0], "class_weight": class_weights[0]}
    best = None
    for cand in feature_candidates:
        feat = {**cand, "lexicon_weight": lexicon_weights[0]}
        score, mats = trial(feat, clf)
        if best is None or score > best[0]:
            best = (score, feat, mats)
    _, feat, mats = best
    if feat.get("lexicon"):
        for w in lexicon_weights:
            if w == feat["lexicon_weight"]:
                continue
            cand = {**feat, "lexicon_weight": w}
            score, cand_mats = trial(cand, clf)
            if score > best[0]:
                best = (score, cand, cand_mats)
        _, feat, mats = best
    best_clf = (best[0], clf)

    for c in c_values:  # C with the first class weighting, then the other weightings at the best C
        cand = {"C": c, "class_weight": clf["class_weight"]}
        if cand != clf and (score := trial(feat, cand, mats)[0]) > best_clf[0]:
            best_clf = (score, cand)
    for cw in class_weights:
        cand = {"C": best_clf[1]["C"], "class_weight": cw}
        if cw != clf["class_weight"] and (score := trial(feat, cand, mats)[0]) > best_clf[0]:
            best_clf = (score, cand)
    return feat, best_clf[1], trials


def calibrate(texts, y, folds, feat: dict, clf: dict, jobs: int = 1, log=print) -> dict:
    """The ``calibration`` entry of the model's metadata: the setting ``feat``/``clf`` fitted with each
    dataset of ``folds`` (the SemEval years) left out in turn, and from the held-out probabilities,
    (:mod:`corpuskit.enrich.calibration`) the class offsets maximising the mean of the years' macro
    recall and bias-corrected temperature scaling (minimum pooled log-loss). Also each year's
    macro recall by argmax, by the offsets fitted on all years, and by offsets fitted on the other
    years only (the nested figure: the offsets' own choice kept off the year scored)."""
    from corpuskit.enrich.calibration import apply_offsets, fit_class_offsets, fit_temperature

    splits = year_splits(folds)
    cache = FoldCache(texts, y, folds, jobs, splits=splits)
    t0 = time.perf_counter()
    probas = cache.predict_proba(cache.matrices(feat), clf["C"], clf["class_weight"])
    years = [int(folds[held[0]]) for _, held in splits]
    ys = [y[held] for _, held in splits]
    offsets, mean = fit_class_offsets(probas, ys)
    cal = fit_temperature(np.vstack(probas), np.concatenate(ys), bias=True)
    per_year = {}
    for i, year in enumerate(years):
        others = [j for j in range(len(years)) if j != i]
        nested, _ = fit_class_offsets([probas[j] for j in others], [ys[j] for j in others])
        per_year[str(year)] = {"tweets": int(len(ys[i])),
                               "argmax": figures(ys[i], probas[i].argmax(axis=1))["macro_recall"],
                               "offsets": figures(ys[i], apply_offsets(probas[i], offsets))["macro_recall"],
                               "nested_offsets": figures(ys[i], apply_offsets(probas[i], nested))["macro_recall"],
                               "nested_offsets_chosen": [round(float(v), 4) for v in nested]}
    out = {"chosen_by": "leave one SemEval year out with the model's settings (a repeated text in its earliest "
                        "year): offsets maximise the mean of the years' held-out macro recall (grid -1 to 1 by "
                        "0.05, neutral fixed at 0); temperature and biases minimise the pooled held-out log-loss",
           "offsets": [round(float(v), 4) for v in offsets], "temperature": round(cal.temperature, 6),
           "bias": [round(float(v), 6) for v in cal.bias], "priors": [round(float(v), 6) for v in cal.priors],
           "years": per_year}
    for key in ("argmax", "offsets", "nested_offsets"):
        values = [v[key] for v in per_year.values()]
        out[f"{key}_worst"], out[f"{key}_mean"] = float(min(values)), float(np.mean(values))
    log(f"calibration by leaving a year out [{time.perf_counter() - t0:.0f} s]: offsets {out['offsets']}, "
        f"T {out['temperature']}, bias {out['bias']}; macro recall worst/mean argmax "
        f"{out['argmax_worst']:.4f}/{out['argmax_mean']:.4f}, nested offsets "
        f"{out['nested_offsets_worst']:.4f}/{out['nested_offsets_mean']:.4f}")
    return out


def trial_key(feat: dict, clf: dict) -> str:
    """A trial's key in :func:`search`'s ``probas``: its settings as sorted JSON."""
    return json.dumps([_jsonable(feat), _jsonable(clf)], sort_keys=True)


def _all_counts(docs):
    """Counts of every term of ``docs`` (columns in sorted term order)."""
    terms = sorted({g for grams in docs for g in grams})
    return TweetFeaturizer._counts(docs, terms)


def _jsonable(settings: dict) -> dict:
    return {k: (list(v) if isinstance(v, tuple) else v) for k, v in sorted(settings.items())}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", help="folder holding the twitter-*-A.txt files")
    parser.add_argument("--out", default=str(MODELS))
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--jobs", type=int, default=1, help="processes fitting the folds (same result for any)")
    parser.add_argument("--select", choices=["cv", "years"], default="cv",
                        help="cv: stratified --folds-fold cross-validation, pooled macro recall; years: leave one "
                             "SemEval year out, the mean of the years' macro recall")
    parser.add_argument("--features", type=json.loads, default=None,
                        help="JSON list of featurizer settings to try (default: FEATURE_CANDIDATES)")
    parser.add_argument("--lexicon-weights", type=float, nargs="+", default=list(LEXICON_WEIGHTS))
    parser.add_argument("--C", type=float, nargs="+", default=list(C_VALUES))
    parser.add_argument("--class-weights", nargs="+", default=[str(c) for c in CLASS_WEIGHTS],
                        choices=["balanced", "sqrt_balanced", "None"])
    parser.add_argument("--calibrate", choices=["years", "none"], default="none",
                        help="years: class offsets and probability calibration by leaving one SemEval year out "
                             "(calibrate()), stored in the metadata, so the model labels with the offsets; none "
                             "(default: the offsets lowered the worst year left out, docs/sentiment.md): the plain "
                             "most probable class")
    parser.add_argument("--calibrate-only", action="store_true",
                        help="keep the model in --out (its arrays untouched) and only recompute its calibration")
    args = parser.parse_args(argv)
    if args.calibrate_only:
        return calibrate_only(args)
    candidates = FEATURE_CANDIDATES if args.features is None else [
        {k: tuple(v) if isinstance(v, list) else v for k, v in c.items()} for c in args.features]
    class_weights = [None if c == "None" else c for c in args.class_weights]

    texts, labels, years = read_semeval_years(args.data)
    y = np.array([CLASSES.index(label) for label in labels])
    counts = {c: int((y == i).sum()) for i, c in enumerate(CLASSES)}
    if args.select == "years":
        folds = year_folds(texts, years)
        chosen_by = (f"leave one SemEval year out ({', '.join(map(str, np.unique(folds)))}; a repeated text in its "
                     "earliest year), the mean of the years' macro-averaged recall")
        print(f"{len(texts)} tweets after dropping repeated annotations {counts}; {chosen_by}", flush=True)
        feat, clf, trials = search(texts, y, folds, candidates, args.lexicon_weights, args.C, class_weights,
                                   log=lambda s: print(s, flush=True), jobs=args.jobs,
                                   splits=year_splits(folds), criterion="mean_split")
    else:
        folds = fold_ids(texts, y, args.folds, args.seed)
        chosen_by = (f"stratified {args.folds}-fold cross-validation (seed {args.seed}, identical texts "
                     "kept in one fold), macro-averaged recall")
        print(f"{len(texts)} tweets after dropping repeated annotations {counts}; {chosen_by}", flush=True)
        feat, clf, trials = search(texts, y, folds, candidates, args.lexicon_weights, args.C, class_weights,
                                   log=lambda s: print(s, flush=True), jobs=args.jobs)
    chosen = next(t for t in trials if t["features"] == _jsonable(feat) and t["classifier"] == clf)
    print(f"chosen {_jsonable(feat)} {clf}: CV {_line(chosen['cv'])}")
    for c in CLASSES:
        pc = chosen["cv"]["per_class"][c]
        print(f"  {c:9s} recall {pc['recall']:.3f} precision {pc['precision']:.3f} F1 {pc['f1']:.3f}")
    print(f"  confusion (rows gold, columns predicted, {'/'.join(CLASSES)}): {chosen['cv']['confusion']}")
    calibration = None
    if args.calibrate == "years" and len(set(years)) > 1:
        calibration = calibrate(texts, y, year_folds(texts, years), feat, clf, args.jobs,
                                log=lambda s: print(s, flush=True))
    featurizer = TweetFeaturizer(**feat).fit(texts)
    model = _classifier(clf["C"], clf["class_weight"], y).fit(featurizer.transform(texts), y)
    info = {"data": DATA_NOTE, "tweets": len(texts), "class_counts": counts, "classes": list(CLASSES),
            "features": _jsonable(feat), "classifier": {"kind": "LogisticRegression (multinomial, lbfgs)", **clf},
            "chosen_by": chosen_by,
            "cv_figures": chosen["cv"], "search": trials, "n_features": featurizer.n_features_}
    if calibration is not None:
        info["calibration"] = calibration
    out = Path(args.out)
    npz, js = save_model(out, featurizer, model.coef_, model.intercept_, info)
    print(f"wrote {npz} ({npz.stat().st_size / 1e6:.2f} MB, {featurizer.n_features_} features) and {js}")
    return 0


def calibrate_only(args) -> int:
    """``--calibrate-only``: :func:`calibrate` the model in ``--out`` with its own settings and rewrite
    its metadata (the arrays are not touched)."""
    out = Path(args.out)
    info = json.loads((out / INFO_FILE).read_text(encoding="utf-8"))
    feat = {k: tuple(v) if isinstance(v, list) else v for k, v in info["features"].items()}
    clf = {"C": info["classifier"]["C"], "class_weight": info["classifier"]["class_weight"]}
    texts, labels, years = read_semeval_years(args.data)
    y = np.array([CLASSES.index(label) for label in labels])
    if len(texts) != info["tweets"]:
        print(f"the data has {len(texts)} tweets, the model was trained on {info['tweets']}: not calibrating")
        return 1
    info["calibration"] = calibrate(texts, y, year_folds(texts, years), feat, clf, args.jobs,
                                    log=lambda s: print(s, flush=True))
    (out / INFO_FILE).write_text(json.dumps(info, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote the calibration into {out / INFO_FILE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
