"""Leave one SemEval year out over cheap variants of the tweet sentiment model, chosen inside the procedure.

Usage: ``python benchmarks/sentiment_variants.py [--data ../shared/datasets/semeval_sentiment] [--jobs 2]
[--inner-cap 4000] [--seed 17] [--variants base squeeze ...]``

Each variant is the shipped model's setting (word 1-2 grams with negation marks, char 2-5 grams, lexicon
cues with VADER's scores at weight 0.3, ``C`` 0.5, balanced class weights) with one change (``VARIANTS``).
For each SemEval year left out (years as in :mod:`sentiment_lodo`), every variant is scored by
leave-one-year-out over the other years only (at most ``--inner-cap`` tweets of each, a seeded sample,
as ``bench_sentiment.py --lodo``); the variant with the best mean of those inner years' macro recall is
the one chosen for that year, fitted on all the other years and scored on the year left out. Every
variant's own left-out figure is printed too, as a diagnostic only: nothing is chosen on it.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(ROOT / "tools"))

from text_table import table  # noqa: E402

DATA = ROOT.parent / "shared" / "datasets" / "semeval_sentiment"
BASE = {"word_ngrams": (1, 2), "char_ngrams": (2, 5), "negation": True, "lexicon": True, "vader": True,
        "lexicon_weight": 0.3}
#: name: (featurizer settings, C, class weighting)
VARIANTS = {
    "base": (BASE, 0.5, "balanced"),
    "squeeze": ({**BASE, "squeeze": True}, 0.5, "balanced"),
    "placeholders": ({**BASE, "placeholders": True}, 0.5, "balanced"),
    "squeeze+placeholders": ({**BASE, "squeeze": True, "placeholders": True}, 0.5, "balanced"),
    "sqrt_balanced": (BASE, 0.5, "sqrt_balanced"),
    "placeholders+sqrt_balanced": ({**BASE, "placeholders": True}, 0.5, "sqrt_balanced"),
    "small_vocab": ({**BASE, "min_df": 3, "max_words": 50_000, "max_chars": 50_000}, 0.5, "balanced"),
    "placeholders+small_vocab": ({**BASE, "placeholders": True, "min_df": 3, "max_words": 50_000,
                                  "max_chars": 50_000}, 0.5, "balanced"),
}


def run(texts, y, folds, names, jobs: int, cap, seed: int, log=print) -> dict:
    """``{year: {"inner": {name: mean inner macro recall}, "outer": {name: figures}, "chosen": name}}``."""
    import train_sentiment
    from sentiment_lodo import inner_rows
    from train_sentiment import FoldCache, figures, year_splits

    train_sentiment.PARTS_KEPT = len({repr(sorted(VARIANTS[n][0].items())) for n in names}) + 1
    memo: dict = {}
    out = {}
    for year in sorted(set(folds.tolist())):
        splits = year_splits(folds, inner_rows(folds, year, cap, seed))
        splits.append((np.flatnonzero(folds != year), np.flatnonzero(folds == year)))
        cache = FoldCache(texts, y, folds, jobs, splits=splits, parts_memo=memo)
        inner, outer = {}, {}
        for name in names:
            t0 = time.perf_counter()
            feat, c, cw = VARIANTS[name]
            probas = cache.predict_proba(cache.matrices(feat), c, cw)
            per = [figures(y[held], p.argmax(axis=1))["macro_recall"] for (_, held), p in zip(splits[:-1], probas)]
            inner[name] = float(np.mean(per))
            outer[name] = figures(y[splits[-1][1]], probas[-1].argmax(axis=1))
            log(f"{year} left out, {name}: inner {' '.join(f'{v:.4f}' for v in per)} mean {inner[name]:.4f}; "
                f"left out {outer[name]['macro_recall']:.4f} [{time.perf_counter() - t0:.0f} s]")
        chosen = max(names, key=lambda n: (inner[n], -names.index(n)))
        out[year] = {"inner": inner, "outer": outer, "chosen": chosen}
        log(f"--- {year}: chosen {chosen}, left out {outer[chosen]['macro_recall']:.4f}")
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--inner-cap", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=list(VARIANTS))
    args = parser.parse_args(argv)
    if not args.data.exists():
        print(f"not present: {args.data}; nothing to run")
        return 0
    from train_sentiment import read_semeval_years, year_folds

    from corpuskit.enrich.tweet_model import CLASSES

    texts, labels, years = read_semeval_years(args.data)
    y = np.array([CLASSES.index(label) for label in labels])
    folds = year_folds(texts, years)
    res = run(texts, y, folds, args.variants, args.jobs, args.inner_cap or None, args.seed,
              log=lambda s: print(s, flush=True))
    year_list = sorted(res)
    rows = []
    for name in args.variants:
        left = [100 * res[yr]["outer"][name]["macro_recall"] for yr in year_list]
        rows.append([name] + [f"{100 * res[yr]['inner'][name]:.1f} / {v:.1f}" for yr, v in zip(year_list, left)]
                    + [f"{min(left):.1f}", f"{np.mean(left):.1f}"])
    chosen = [100 * res[yr]["outer"][res[yr]["chosen"]]["macro_recall"] for yr in year_list]
    rows.append(["chosen on the other years"] + [f"{res[yr]['chosen']}: {v:.1f}" for yr, v in zip(year_list, chosen)]
                + [f"{min(chosen):.1f}", f"{np.mean(chosen):.1f}"])
    print()
    print(table(rows, ["variant"] + [f"{yr} left out (inner mean / left out)" for yr in year_list]
                + ["worst", "mean"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
