"""Benchmark: tweet sentiment, the shipped model against VADER and a plain TF-IDF baseline, and speed.

Usage: ``python benchmarks/bench_sentiment.py [--data ../shared/datasets/semeval_sentiment] [--folds 5]
[--seed 17] [--speed 5000]``

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
    args = parser.parse_args(argv)
    if not args.data.exists():
        print(f"not present: {args.data}; nothing to run")
        return 0
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


if __name__ == "__main__":
    sys.exit(main())
