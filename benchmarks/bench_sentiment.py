"""Benchmark: tweet sentiment, the shipped model against VADER and a plain TF-IDF baseline, and speed.

Usage: ``python benchmarks/bench_sentiment.py [--data ../shared/datasets/semeval_sentiment] [--folds 5]
[--seed 17] [--speed 5000]``, or ``python benchmarks/bench_sentiment.py --lodo [--jobs 2] [--grid small]``,
or ``python benchmarks/bench_sentiment.py --airline-only [--model-dir FOLDER]``

``--lodo`` (:mod:`sentiment_lodo`): every SemEval year left out in turn, the model's settings
chosen on the other years only, macro recall on the year left out (2016 left out is the time
split, trained on 2013-2015), the worst and the mean, the reference figures, beside the same with
class offsets chosen on the other years; the class shares of each year left out from argmax labels
and from EM prior adjustment of raw, temperature-scaled and bias-corrected temperature-scaled
probabilities (calibration chosen on the other years); then the shipped model (or ``--model-dir``)
on the airline tweets (``--airline``, evaluation only: never trained on), with the class shares
from its labels and from EM prior adjustment beside the true shares.

Data: the SemEval 2013-2016 tweets in ``--data`` (repeated annotations dropped as the
training script drops them). Three systems, one table, macro-averaged recall
over positive / neutral / negative (the task's official metric), per-class
recall and the confusion matrix (rows gold, columns predicted):

* **model**: the shipped model's settings (read from ``tweet_sentiment.json``)
  refitted in each of the same stratified folds the training script uses
  (identical texts in one fold), so every tweet is scored by a model that did
  not see it;
* **VADER**: the compound score at the usual ±0.05 cut, on every tweet (nothing
  is learned, so no folds are needed);
* **TF-IDF + LR**: scikit-learn's ``TfidfVectorizer()`` and
  ``LogisticRegression(max_iter=1000)`` with their defaults, in the same folds.

Speed: tweets per second of the shipped scorer and of VADER on ``--speed``
tweets, as process CPU time (one core; the figure a shared machine can measure
fairly) and wall time.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(ROOT / "tools"))  # the training script (train_sentiment)

from text_table import table  # noqa: E402

DATA = ROOT.parent / "shared" / "datasets" / "semeval_sentiment"
AIRLINE = ROOT.parent / "shared" / "datasets" / "sentiment_more" / "sent_airline" / "Tweets.csv"


def cross_validated(texts, y, folds, make_features, make_model) -> np.ndarray:
    """Predicted class of every text, each by a model fitted without its fold."""
    pred = np.zeros(len(y), dtype=int)
    for f in range(int(folds.max()) + 1):
        train, held = np.flatnonzero(folds != f), np.flatnonzero(folds == f)
        feat = make_features().fit([texts[i] for i in train])
        model = make_model().fit(feat.transform([texts[i] for i in train]), y[train])
        pred[held] = model.predict_proba(feat.transform([texts[i] for i in held])).argmax(axis=1)
    return pred


def speed(fn, texts) -> tuple[float, float]:
    """Texts per second of ``fn(texts)``: by process CPU time and by wall time."""
    cpu, wall = time.process_time(), time.perf_counter()
    fn(texts)
    return len(texts) / (time.process_time() - cpu), len(texts) / (time.perf_counter() - wall)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--speed", type=int, default=5000, help="tweets timed for speed")
    parser.add_argument("--lodo", action="store_true", help="leave one SemEval year out (see above)")
    parser.add_argument("--airline", type=Path, default=AIRLINE)
    parser.add_argument("--jobs", type=int, default=1, help="processes fitting the splits (same result for any)")
    parser.add_argument("--inner-cap", type=int, default=4000,
                        help="--lodo: settings are chosen on at most this many tweets of each other year "
                             "(seeded sample; 0: all); the chosen setting is then fitted on all of them")
    parser.add_argument("--grid", choices=["full", "small"], default="full",
                        help="--lodo: full: the LODO_* grid of sentiment_lodo; small: VADER's scores and balanced "
                             "class weights fixed, the lexicon weight and C searched (SMALL_GRID; about 2x faster)")
    parser.add_argument("--model-dir", type=Path, default=None,
                        help="the model scored on the airline tweets (default: the shipped one)")
    parser.add_argument("--airline-only", action="store_true", help="only the airline tweets' table")
    args = parser.parse_args(argv)
    if args.airline_only:
        airline(args.airline, model_dir=args.model_dir)
        return 0
    if not args.data.exists():
        print(f"not present: {args.data}; nothing to run")
        return 0
    if args.lodo:
        return lodo(args)
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression

    from corpuskit.enrich import TweetSentimentScorer, VaderScorer
    from corpuskit.enrich.base import sentiment_label
    from corpuskit.enrich.tweet_features import TweetFeaturizer
    from corpuskit.enrich.tweet_model import CLASSES, load_info
    from train_sentiment import _classifier, figures, fold_ids, read_semeval

    info = load_info()
    texts, labels = read_semeval(args.data)
    y = np.array([CLASSES.index(label) for label in labels])
    folds = fold_ids(texts, y, args.folds, args.seed)
    print(f"{len(texts)} tweets (repeated annotations dropped), {args.folds}-fold stratified CV, seed {args.seed}; "
          f"model settings {info['features']} {info['classifier']}", flush=True)

    results = {}
    t0 = time.perf_counter()
    settings = {k: tuple(v) if isinstance(v, list) else v for k, v in info["featurizer"].items()}
    clf = info["classifier"]
    results["model (CV)"] = figures(y, cross_validated(
        texts, y, folds, lambda: TweetFeaturizer(**settings), lambda: _classifier(clf["C"], clf["class_weight"])))
    print(f"model CV done [{time.perf_counter() - t0:.0f} s]", flush=True)
    vader = VaderScorer()
    results["VADER ±0.05 (all)"] = figures(y, np.array([CLASSES.index(sentiment_label(s))
                                                        for s in vader.score_many(texts)]))
    t0 = time.perf_counter()
    results["TF-IDF + LR (CV)"] = figures(y, cross_validated(
        texts, y, folds, TfidfVectorizer, lambda: LogisticRegression(max_iter=1000)))
    print(f"baseline CV done [{time.perf_counter() - t0:.0f} s]\n", flush=True)

    rows = []
    for name, fig in results.items():
        rows.append([name, f"{100 * fig['macro_recall']:.1f}"]
                    + [f"{100 * fig['per_class'][c]['recall']:.1f}" for c in CLASSES]
                    + [f"{100 * fig['f1_pn']:.1f}", f"{100 * fig['accuracy']:.1f}"])
    print(table(rows, ["system", "macro recall", *(f"recall {c}" for c in CLASSES), "F1 pos/neg", "accuracy"]))
    print(f"\nconfusion matrices (rows gold, columns predicted: {' / '.join(CLASSES)})")
    for name, fig in results.items():
        print(f"  {name}: {fig['confusion']}")

    sample = [texts[i] for i in np.random.default_rng(args.seed).permutation(len(texts))[: args.speed]]
    model = TweetSentimentScorer().fit()
    model.score_many(sample[:50])  # warm: lexicon and caches loaded
    fresh = VaderScorer(cache_size=0)
    fresh.score(sample[0])
    speeds = {"model": speed(model.score_many, sample), "VADER": speed(fresh.score_many, sample)}
    print(f"\nspeed on {len(sample)} tweets, one process (tweets/s):")
    print(table([[name, f"{cpu:,.0f}", f"{wall:,.0f}"] for name, (cpu, wall) in speeds.items()],
                ["scorer", "CPU time", "wall time"]))
    return 0


def lodo(args) -> int:
    """The ``--lodo`` run: the table of years left out, then the airline tweets."""
    from sentiment_lodo import REFERENCES, SMALL_GRID, run_lodo
    from train_sentiment import read_semeval_years, year_folds

    from corpuskit.enrich.tweet_model import CLASSES

    texts, labels, years = read_semeval_years(args.data)
    y = np.array([CLASSES.index(label) for label in labels])
    folds = year_folds(texts, years)
    sizes = {int(k): int(v) for k, v in zip(*np.unique(folds, return_counts=True))}
    print(f"{len(texts)} tweets (repeated annotations dropped), by year {sizes}", flush=True)
    cap = args.inner_cap or None
    print(f"settings chosen on at most {cap or 'all'} tweets of each other year (seed {args.seed})", flush=True)
    grid = SMALL_GRID if args.grid == "small" else None
    print(f"grid: {args.grid}", flush=True)
    results = run_lodo(texts, y, folds, log=lambda s: print(s, flush=True), jobs=args.jobs, cap=cap, seed=args.seed,
                       grid=grid)
    rows = []
    for r in results:
        fig, clf, feat, off = r["figures"], r["classifier"], r["features"], r["figures_offsets"]
        name = f"{r['year']}" + (" (time split: trained on 2013-2015)" if r["year"] == max(sizes) else "")
        rows.append([name, f"{sizes[r['year']]:,}", f"{100 * fig['macro_recall']:.1f}"]
                    + [f"{100 * fig['per_class'][c]['recall']:.1f}" for c in CLASSES]
                    + [f"{100 * off['macro_recall']:.1f}"]
                    + [f"{100 * off['per_class'][c]['recall']:.1f}" for c in CLASSES]
                    + [f"{100 * r['inner']['mean_split']:.1f} / {100 * r['inner_offsets']:.1f}",
                       f"C {clf['C']}, {clf['class_weight']}, lex {feat['lexicon_weight']}"
                       f"{', vader' if feat.get('vader') else ''}; offsets {_offsets(r['offsets'])}"])
    blank = [""] * 9
    for label, key in (("worst", min), ("mean", np.mean)):
        rows.append([label, "", f"{key([100 * r['figures']['macro_recall'] for r in results]):.1f}", "", "", "",
                     f"{key([100 * r['figures_offsets']['macro_recall'] for r in results]):.1f}", *blank[:5]])
    rows += [[name, "", f"{value:.1f}", *blank] for name, value in REFERENCES]
    print()
    print(table(rows, ["left out", "tweets", "macro recall", *(f"recall {c[:3]}" for c in CLASSES),
                       "with offsets", *(f"{c[:3]}" for c in CLASSES),
                       "inner mean (argmax / offsets)", "chosen on the other years"]))
    print("\nclass shares of each year left out (%, negative / neutral / positive; total variation from true in "
          "brackets; macro recall of the labels matched to the shares after the bar):")
    rows = []
    variants = ("argmax", "em", "em_ts", "em_bcts")
    for r in results:
        sh = r["shares"]
        rows.append([str(r["year"]), _shares(sh["true"]), f"{_shares(sh['argmax'])} ({_tv(sh['argmax'], sh['true'])}) "
                     f"| {100 * r['figures']['macro_recall']:.1f}"]
                    + [f"{_shares(sh[k])} ({_tv(sh[k], sh['true'])}) | {100 * sh[k + '_labels_macro_recall']:.1f}"
                       for k in variants[1:]]
                    + [f"T {r['calibration']['ts'].temperature:.2f}; T {r['calibration']['bcts'].temperature:.2f} "
                       f"b {_offsets(r['calibration']['bcts'].bias)}"])
    tvs = {k: [float(_tv(r["shares"][k], r["shares"]["true"])) for r in results] for k in variants}
    rows.append(["TV worst / mean", ""] + [f"{max(tvs[k]):.1f} / {np.mean(tvs[k]):.1f}" for k in variants] + [""])
    print(table(rows, ["left out", "true", "argmax labels", "EM, raw probabilities", "EM, temperature scaled",
                       "EM, bias-corrected temperature", "calibration chosen on the other years"]))
    if args.airline.exists():
        airline(args.airline, model_dir=args.model_dir)
    else:
        print(f"\nnot present: {args.airline}; airline tweets skipped")
    return 0


def _offsets(v) -> str:
    return "/".join(f"{x:+.2f}" for x in v)


def _shares(v) -> str:
    return " / ".join(f"{100 * x:.1f}" for x in v)


def _tv(a, b) -> str:
    return f"{100 * np.abs(np.asarray(a) - np.asarray(b)).sum() / 2:.1f}"


def airline(path, seed: int = 17, model_dir=None) -> None:
    """The shipped model on the airline tweets, as they are and resampled to be mostly neutral
    (every neutral tweet, and a seeded sample of the others to 70 / 15 / 15): macro recall and the
    class shares from the model's labels and from EM prior adjustment (of the raw and of the
    calibrated probabilities) beside the true shares."""
    from sentiment_lodo import read_airline

    from corpuskit.enrich import TweetSentimentScorer
    from corpuskit.enrich.tweet_model import CLASSES

    texts, labels = read_airline(path)
    y = np.array([CLASSES.index(label) for label in labels])
    model = TweetSentimentScorer(model_dir=str(model_dir) if model_dir else None).fit()
    proba = model.predict_proba(texts)
    cal = model.info_.get("calibration")
    print(f"\nairline tweets ({len(texts):,}, evaluation only), shipped model {model.info_['classifier']}, "
          + (f"offsets {cal['offsets']}, temperature {cal['temperature']}, bias {cal['bias']}" if cal
             else "no calibration"))
    share_table(y, proba, model)
    neutral = np.flatnonzero(y == CLASSES.index("neutral"))
    rng = np.random.default_rng(seed)
    each = round(len(neutral) * 15 / 70)
    rows = np.sort(np.concatenate([neutral] + [rng.permutation(np.flatnonzero(y == CLASSES.index(c)))[:each]
                                               for c in ("negative", "positive")]))
    print(f"\nthe same, resampled mostly neutral ({len(rows):,} tweets: all {len(neutral):,} neutral, {each:,} "
          f"negative and {each:,} positive drawn with seed {seed})")
    share_table(y[rows], proba[rows], model)


def share_table(y, proba, model) -> None:
    """Print the class shares of labelled texts: true, from the model's labels (argmax, and with its
    class offsets), from EM prior adjustment of the raw probabilities (from the training priors) and
    of the calibrated ones (from the calibration's priors: what ``sentiment_priors="corpus"`` runs)."""
    from train_sentiment import figures

    from corpuskit.enrich.priors import em_priors, labels_for_priors
    from corpuskit.enrich.tweet_model import CLASSES

    true = np.bincount(y, minlength=len(CLASSES)) / len(y)
    rows = [["true (gold labels)", _shares(true), "", ""]]
    raw = em_priors(proba, model.training_priors())
    cal = em_priors(model.calibrate_proba(proba), model.calibrated_priors())
    for name, pred, shares in (
            ("argmax labels, no adjustment", proba.argmax(axis=1), None),
            ("the model's labels (argmax with its offsets)", model.labels_of(proba), None),
            ("mean probability, no adjustment", None, proba.mean(axis=0)),
            (f"EM on raw probabilities ({raw.iterations} steps): matched labels", labels_for_priors(
                raw.posteriors, raw.priors), raw.priors),
            (f"EM on calibrated probabilities ({cal.iterations} steps): matched labels", labels_for_priors(
                cal.posteriors, cal.priors), cal.priors)):
        shares = shares if shares is not None else np.bincount(pred, minlength=len(CLASSES)) / len(y)
        recall = f"{100 * figures(y, pred)['macro_recall']:.1f}" if pred is not None else ""
        rows.append([name, _shares(shares), _tv(shares, true), recall])
    print(table(rows, ["shares (%)", " / ".join(CLASSES), "total variation from true", "macro recall"]))


if __name__ == "__main__":
    sys.exit(main())
