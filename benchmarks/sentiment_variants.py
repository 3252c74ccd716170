"""Leave one SemEval year out over cheap variants of the tweet sentiment model, chosen inside the procedure.

Usage: ``python benchmarks/sentiment_variants.py [--data ../shared/datasets/semeval_sentiment] [--jobs 2]
[--inner-cap 4000] [--seed 17] [--variants base squeeze ...] [--time-split [--airline Tweets.csv]]``

Each variant is the shipped model's setting (word 1-2 grams with negation marks, char 2-5 grams, lexicon
cues with VADER's scores at weight 0.3, ``C`` 0.5, balanced class weights) with one change (``VARIANTS``):
a featurizer option, the class weighting, or the model's form (``nblr``: one-vs-rest logistic
regressions on naive-Bayes log-count-ratio scaled n-grams, ``tools/nb_logistic.py``; ``lr+nblr``: the
mean of its probabilities and the shipped LR's).
``--time-split`` is the quick screen: each variant fitted on 2013-2015 and scored on 2016 and on the
airline tweets (evaluation only), nothing chosen; the promising ones then go through the procedure below.
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
AIRLINE = ROOT.parent / "shared" / "datasets" / "sentiment_more" / "sent_airline" / "Tweets.csv"
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
    # model forms (tools/nb_logistic.py): NB-scaled one-vs-rest, and its mean with the shipped LR
    "nblr_C0.1": (BASE, 0.1, "balanced", "nblr"),
    "nblr_C0.5": (BASE, 0.5, "balanced", "nblr"),
    "lr+nblr_C0.1": (BASE, 0.1, "balanced", "lr+nblr"),
    "nblr_C1": (BASE, 1.0, "balanced", "nblr"),
    "nblr_C2": (BASE, 2.0, "balanced", "nblr"),
    "nblr_C4": (BASE, 4.0, "balanced", "nblr"),
    "lr+nblr_C0.5": (BASE, 0.5, "balanced", "lr+nblr"),
    "lr+nblr_C0.5,1": (BASE, (0.5, 1.0), "balanced", "lr+nblr"),  # the LR's C, the NB-LR's C
    "lr+nblr_C0.5,2": (BASE, (0.5, 2.0), "balanced", "lr+nblr"),
}


def variant(name: str) -> tuple[dict, float | tuple, str, str]:
    """``(featurizer settings, C, class weighting, model form)`` of a variant (form ``"lr"`` unless given)."""
    feat, c, cw, *form = VARIANTS[name]
    return feat, c, cw, (form[0] if form else "lr")


def fitted_proba(cache, name: str, memo: dict | None = None) -> list:
    """Each split of ``cache``'s held-out probabilities under variant ``name``. ``memo`` (a dict, for one
    cache) keeps each single model's probabilities, so an ``lr+nblr`` variant averages the two it holds
    instead of fitting them again (the same numbers: :func:`train_sentiment._fit_predict` averages the same
    way)."""
    from train_sentiment import dense_columns

    feat, c, cw, form = variant(name)
    memo = {} if memo is None else memo

    def single(c_one, form_one):
        key = (repr(sorted(feat.items())), c_one, cw, form_one)
        if key not in memo:
            memo[key] = cache.predict_proba(cache.matrices(feat), c_one, cw, form=form_one,
                                            n_dense=dense_columns(feat))
        return memo[key]

    if form != "lr+nblr":
        return single(c, form)
    c_lr, c_nb = c if isinstance(c, tuple) else (c, c)
    return [(a + b) / 2 for a, b in zip(single(c_lr, "lr"), single(c_nb, "nblr"))]


def run(texts, y, folds, names, jobs: int, cap, seed: int, log=print) -> dict:
    """``{year: {"inner": {name: mean inner macro recall}, "outer": {name: figures}, "chosen": name}}``."""
    import train_sentiment
    from sentiment_lodo import inner_rows
    from train_sentiment import FoldCache, figures, year_splits

    train_sentiment.PARTS_KEPT = len({repr(sorted(variant(n)[0].items())) for n in names}) + 1
    memo: dict = {}
    out = {}
    for year in sorted(set(folds.tolist())):
        splits = year_splits(folds, inner_rows(folds, year, cap, seed))
        splits.append((np.flatnonzero(folds != year), np.flatnonzero(folds == year)))
        cache = FoldCache(texts, y, folds, jobs, splits=splits, parts_memo=memo)
        inner, outer, fitted = {}, {}, {}
        for name in names:
            t0 = time.perf_counter()
            probas = fitted_proba(cache, name, fitted)
            per = [figures(y[held], p.argmax(axis=1))["macro_recall"] for (_, held), p in zip(splits[:-1], probas)]
            inner[name] = float(np.mean(per))
            outer[name] = figures(y[splits[-1][1]], probas[-1].argmax(axis=1))
            log(f"{year} left out, {name}: inner {' '.join(f'{v:.4f}' for v in per)} mean {inner[name]:.4f}; "
                f"left out {outer[name]['macro_recall']:.4f} [{time.perf_counter() - t0:.0f} s]")
        chosen = max(names, key=lambda n: (inner[n], -names.index(n)))
        out[year] = {"inner": inner, "outer": outer, "chosen": chosen}
        log(f"--- {year}: chosen {chosen}, left out {outer[chosen]['macro_recall']:.4f}")
    return out


def time_split(texts, y, folds, names, jobs: int, airline=None, log=print) -> dict:
    """The quick screen: every variant fitted on the years before the last (2013-2015) and scored on the
    last year (2016) and, when ``airline`` (a path) exists, on the airline tweets (never trained on):
    ``{name: {"last_year": figures, "airline": figures}}``. Nothing is chosen here."""
    from sentiment_lodo import read_airline
    from train_sentiment import FoldCache, figures

    from corpuskit.enrich.tweet_model import CLASSES

    last = int(folds.max())
    texts, y, folds = list(texts), np.asarray(y), np.asarray(folds)
    if airline is not None and Path(airline).exists():
        extra, labels = read_airline(airline)
        texts += extra
        y = np.concatenate([y, [CLASSES.index(label) for label in labels]])
        folds = np.concatenate([folds, np.full(len(extra), -1)])  # -1: not a SemEval year, never trained on
    train, held = np.flatnonzero((folds != last) & (folds >= 0)), np.flatnonzero((folds == last) | (folds < 0))
    cache = FoldCache(texts, y, folds, jobs, splits=[(train, held)], parts_memo={})
    out, fitted = {}, {}
    for name in names:
        t0 = time.perf_counter()
        proba, = fitted_proba(cache, name, fitted)
        pred = proba.argmax(axis=1)
        sets = {"last_year": folds[held] == last, "airline": folds[held] < 0}
        out[name] = {k: figures(y[held][m], pred[m]) for k, m in sets.items() if m.any()}
        log(f"{name}: " + "; ".join(f"{k} {f['macro_recall']:.4f} (recall " + " ".join(
            f"{f['per_class'][c]['recall']:.3f}" for c in CLASSES) + ")" for k, f in out[name].items())
            + f" [{time.perf_counter() - t0:.0f} s]")
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--inner-cap", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=list(VARIANTS))
    parser.add_argument("--time-split", action="store_true",
                        help="the quick screen only: fit on 2013-2015, score 2016 and the airline tweets")
    parser.add_argument("--airline", type=Path, default=AIRLINE)
    args = parser.parse_args(argv)
    if not args.data.exists():
        print(f"not present: {args.data}; nothing to run")
        return 0
    from train_sentiment import read_semeval_years, year_folds

    from corpuskit.enrich.tweet_model import CLASSES

    texts, labels, years = read_semeval_years(args.data)
    y = np.array([CLASSES.index(label) for label in labels])
    folds = year_folds(texts, years)
    if args.time_split:
        res = time_split(texts, y, folds, args.variants, args.jobs, args.airline, log=lambda s: print(s, flush=True))
        rows = [[name] + [f"{100 * res[name][k]['macro_recall']:.1f}" if k in res[name] else "" for k in
                          ("last_year", "airline")] for name in args.variants]
        print()
        print(table(rows, ["variant", f"{int(folds.max())} (trained on the years before)", "airline tweets"]))
        return 0
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
