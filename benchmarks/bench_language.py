"""Benchmark: language detection speed and accuracy, and the confidence threshold chosen by cross-validation.

Usage: ``python benchmarks/bench_language.py [--folds 5] [--semeval 5000]``

Labelled check: records whose language is known. English: the Hacker News titles and the Reddit
r/science and r/technology titles in ``../shared/datasets`` (English sites; a few titles are in other
languages or are bare names, so the "truth" is slightly noisy), and a seeded sample of the SemEval
tweets (English by construction). Other languages: ``tests/fixtures/multilingual_posts.jsonl``
(40 real-shaped posts in English, Spanish, German, Turkish, Russian, Greek and Japanese, the label in
each ``sourceId``). For each confidence threshold on a grid, a stated (non-``und``) language is
wrong or right; the threshold kept is, in each fold, the lowest whose wrong-label rate on the other
folds is at most 1 % (so a stated language can be trusted), and the held-out fold's figures are
printed. Also prints records/s of detection and of an import of the Hacker News file, the figure
behind detecting in enrich rather than at import.
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
SHARED = Path(os.environ.get("CORPUSKIT_SHARED_DATASETS", ROOT.parent / "shared" / "datasets"))
GRID = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)


def labelled(semeval: int, seed: int = 0):
    """``(texts, languages, corpus names)`` of the labelled check."""
    texts, langs, names = [], [], []
    hn = SHARED / "hacker_news_2015_2016.csv"
    rd = SHARED / "reddit_2019_science_technology.csv"
    if hn.exists():
        for row in csv.DictReader(hn.open(encoding="utf-8")):
            texts.append(row["title"]), langs.append("en"), names.append("hn")
    if rd.exists():
        for row in csv.DictReader(rd.open(encoding="utf-8")):
            texts.append(row["title"]), langs.append("en"), names.append("reddit")
    tweets = []
    for path in sorted((SHARED / "semeval_sentiment").glob("twitter-*-A.txt")):
        for line in path.open(encoding="utf-8"):
            parts = line.rstrip("\n").split("\t")
            if len(parts) >= 3:
                tweets.append(parts[-1])
    if tweets:
        pick = np.random.default_rng(seed).choice(len(tweets), min(semeval, len(tweets)), replace=False)
        for i in sorted(pick):
            texts.append(tweets[i]), langs.append("en"), names.append("semeval")
    for line in (ROOT / "tests" / "fixtures" / "multilingual_posts.jsonl").open(encoding="utf-8"):
        rec = json.loads(line)
        texts.append(rec["contentText"]), langs.append(rec["sourceId"].split("-")[0]), names.append("fixture")
    return texts, np.array(langs), np.array(names)


def rates(pred, conf, truth, threshold):
    stated = conf >= threshold
    wrong = stated & (pred != truth)
    return wrong.sum() / max(stated.sum(), 1), (~stated).mean(), (stated & (pred == truth)).mean()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--semeval", type=int, default=5000)
    parser.add_argument("--max-wrong", type=float, default=0.01)
    args = parser.parse_args()
    from corpuskit.enrich.language import LanguageDetector

    texts, truth, names = labelled(args.semeval)
    detector = LanguageDetector().fit()
    t0 = time.perf_counter()
    ranked = [detector.rank(t) for t in texts]
    seconds = time.perf_counter() - t0
    pred = np.array([r[0] for r in ranked])
    conf = np.array([r[1] for r in ranked])
    print(f"{len(texts)} labelled texts ({', '.join(f'{n} {c}' for n, c in zip(*np.unique(names, return_counts=True)))}); "
          f"detection {len(texts) / seconds:,.0f} texts/s")
    order = np.random.default_rng(0).permutation(len(texts))
    folds = np.array_split(order, args.folds)
    chosen = []
    print(f"\n{'fold':>4} {'threshold':>9} {'wrong of stated':>15} {'und share':>9} {'right share':>11}")
    for k, test in enumerate(folds):
        train = np.setdiff1d(order, test)
        ok = [t for t in GRID if rates(pred[train], conf[train], truth[train], t)[0] <= args.max_wrong]
        t = min(ok) if ok else max(GRID)
        chosen.append(t)
        w, u, r = rates(pred[test], conf[test], truth[test], t)
        print(f"{k:>4} {t:>9.2f} {w:>15.2%} {u:>9.2%} {r:>11.2%}")
    pick = float(np.median(chosen))
    print(f"\nchosen threshold (median over folds): {pick}")
    print(f"\n{'corpus':>8} {'n':>6} {'wrong of stated':>15} {'und share':>9} {'right share':>11}  (at {pick})")
    for name in np.unique(names):
        m = names == name
        w, u, r = rates(pred[m], conf[m], truth[m], pick)
        print(f"{name:>8} {m.sum():>6} {w:>15.2%} {u:>9.2%} {r:>11.2%}")
    m = names == "fixture"
    print("fixture by language (right/total): " + ", ".join(
        f"{lang} {int(((pred == truth) & (conf >= pick) & m & (truth == lang)).sum())}/{int((m & (truth == lang)).sum())}"
        for lang in sorted(set(truth[m]))))
    print(f"\n{'threshold':>9} {'wrong of stated':>15} {'und share':>9}  (all labelled texts)")
    for t in GRID:
        w, u, _ = rates(pred, conf, truth, t)
        print(f"{t:>9.2f} {w:>15.2%} {u:>9.2%}")
    hn = SHARED / "hacker_news_2015_2016.csv"
    if hn.exists():
        from corpuskit import open_corpus

        with tempfile.TemporaryDirectory() as tmp:
            corpus = open_corpus(Path(tmp) / "c.db")
            t0 = time.perf_counter()
            corpus.import_file(hn, source="hackernews")
            imported = time.perf_counter() - t0
            hn_texts = [r[0] for r in corpus.conn.execute("SELECT title FROM records")]
            corpus.close()
        t0 = time.perf_counter()
        LanguageDetector().detect_many(hn_texts)
        detect = time.perf_counter() - t0
        print(f"\nHacker News import {imported:.2f} s; detecting its {len(hn_texts)} titles (model load "
              f"included) {detect:.2f} s = {detect / imported:.0%} of the import")


if __name__ == "__main__":
    main()
