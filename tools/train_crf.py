"""Train the shipped entity CRF on WNUT 2017 train (the data is read from a path; never copied here).

Usage::

    python tools/train_crf.py /path/to/wnut17 [--out corpuskit/enrich/models] \
        [--c1 0.01 0.02] [--c2 0.05 0.1] [--folds 3] [--iterations 150]

Reads ``train.conll`` (token TAB BIO-tag lines, blank line between documents)
and picks ``c1``, ``c2`` and the marginal-decoding threshold ``max_outside`` by
``--folds``-fold cross-validation on train (typed F1, exact spans, the
corpuskit types of :data:`corpuskit.enrich.crf.WNUT_TYPES`; folds are a seeded
shuffle of the documents), printing every setting's figures. It then fits the
chosen setting on the whole of train and writes the model, its common-word list
and its settings into ``--out``. Dev and test are never read for training or for
choosing settings; when ``dev.conll`` (and ``test.conll``) are present their
figures are written beside the settings as a read-only evaluation.

Data: WNUT 2017 Emerging and Rare Entities (Derczynski, Nichols, van Erp,
Limsopatham 2017), CC-BY 4.0.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

import corpuskit.enrich
from corpuskit.enrich.crf import (INFO_FILE, MODEL_FILE, WNUT_TYPES, WORDS_FILE, build_featurizer, decode,
                                  spans_from_tags)

#: the shipped models' folder of the corpuskit this script imports
MODELS = Path(corpuskit.enrich.__file__).parent / "models"


def read_conll(path) -> list[tuple[list[str], list[str]]]:
    """Documents of a CoNLL file as ``(tokens, tags)``."""
    docs, words, tags = [], [], []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        line = line.rstrip("\n")
        if not line.strip():
            if words:
                docs.append((words, tags))
            words, tags = [], []
            continue
        word, _, tag = line.partition("\t")
        words.append(word)
        tags.append(tag.strip() or "O")
    if words:
        docs.append((words, tags))
    return docs


def common_words(docs, min_count: int = 2, lower_share: float = 0.8) -> frozenset:
    """Words written in lower case in at least ``lower_share`` of at least ``min_count`` uses."""
    total, lower = Counter(), Counter()
    for words, _ in docs:
        for w in words:
            if w[:1].isalpha():
                total[w.lower()] += 1
                if w.islower():
                    lower[w.lower()] += 1
    return frozenset(w for w, n in total.items() if n >= min_count and lower[w] >= lower_share * n)


def typed_spans(spans) -> set:
    return {(a, b, WNUT_TYPES.get(label, label)) for a, b, label, *_ in spans}


def score(gold_docs, predicted) -> dict:
    """Exact-span precision, recall and F1, typed (corpuskit types) and untyped; ``predicted``
    holds each document's spans ``(first, last, label, ...)``."""
    out = {}
    for typed in (True, False):
        tp = fp = fn = 0
        for (_, gold), pred in zip(gold_docs, predicted):
            g, p = typed_spans(spans_from_tags(gold)), typed_spans(pred)
            if not typed:
                g, p = {s[:2] for s in g}, {s[:2] for s in p}
            tp += len(g & p)
            fp += len(p - g)
            fn += len(g - p)
        prec = tp / (tp + fp) if tp + fp else 0.0
        rec = tp / (tp + fn) if tp + fn else 0.0
        f1 = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
        key = "typed" if typed else "untyped"
        out[key] = {"precision": prec, "recall": rec, "f1": f1}
    return out


def _fit(featurizer, docs, c1, c2, iterations):
    import sklearn_crfsuite

    crf = sklearn_crfsuite.CRF(algorithm="lbfgs", c1=c1, c2=c2, max_iterations=iterations,
                               all_possible_transitions=True)
    crf.fit([featurizer.sentence(w) for w, _ in docs], [t for _, t in docs])
    return crf


THRESHOLDS = (1.0, 0.9, 0.8, 0.7, 0.6, 0.5)


def folds(n: int, k: int, seed: int = 17) -> list[list[int]]:
    """``k`` disjoint lists of document indices covering ``range(n)`` (a seeded shuffle)."""
    import random

    order = list(range(n))
    random.Random(seed).shuffle(order)
    return [sorted(order[i::k]) for i in range(k)]


def cross_validate(docs, c1, c2, k, iterations, thresholds=THRESHOLDS) -> dict:
    """``{max_outside: figures}`` of ``k``-fold cross-validation of one setting on ``docs``
    (each fold's model sees only its training part, common words included)."""
    predictions = [None] * len(docs)
    for held in folds(len(docs), k):
        held_set = set(held)
        part = [d for i, d in enumerate(docs) if i not in held_set]
        featurizer = build_featurizer(common_words(part))
        crf = _fit(featurizer, part, c1, c2, iterations)
        features = [featurizer.sentence(docs[i][0]) for i in held]
        for i, v, m in zip(held, crf.predict(features), crf.predict_marginals(features)):
            predictions[i] = (v, m)
    return {tau: score(docs, [decode(v, m, tau) for v, m in predictions]) for tau in thresholds}


def evaluate(crf, featurizer, docs, tau) -> dict:
    features = [featurizer.sentence(w) for w, _ in docs]
    return score(docs, [decode(v, m, tau) for v, m in zip(crf.predict(features), crf.predict_marginals(features))])


def _line(figures) -> str:
    t, u = figures["typed"], figures["untyped"]
    return (f"typed F1 {t['f1']:.3f} (P {t['precision']:.3f} R {t['recall']:.3f}); "
            f"untyped F1 {u['f1']:.3f}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", help="folder holding train.conll (dev.conll and test.conll are only evaluated)")
    parser.add_argument("--out", default=str(MODELS))
    parser.add_argument("--c1", type=float, nargs="+", default=[0.01, 0.02])
    parser.add_argument("--c2", type=float, nargs="+", default=[0.05, 0.1])
    parser.add_argument("--folds", type=int, default=3)
    parser.add_argument("--iterations", type=int, default=150)
    parser.add_argument("--max-outside", type=float, nargs="+", default=list(THRESHOLDS),
                        help="marginal-decoding thresholds to try (1.0 = Viterbi)")
    args = parser.parse_args(argv)

    data = Path(args.data)
    train = read_conll(data / "train.conll")
    print(f"train {len(train)} documents; {args.folds}-fold cross-validation on train")
    best = None
    for c1 in args.c1:
        for c2 in args.c2:
            t0 = time.perf_counter()
            by_tau = cross_validate(train, c1, c2, args.folds, args.iterations, args.max_outside)
            for tau, figures in by_tau.items():
                print(f"c1={c1} c2={c2} max_outside={tau}: CV {_line(figures)} "
                      f"[{time.perf_counter() - t0:.0f} s]", flush=True)
                if best is None or figures["typed"]["f1"] > best[0]:
                    best = (figures["typed"]["f1"], c1, c2, tau, figures)
    f1, c1, c2, tau, cv_figures = best
    print(f"chosen c1={c1} c2={c2} max_outside={tau} (CV typed F1 {f1:.3f}); fitting on all of train")
    words = common_words(train)
    featurizer = build_featurizer(words)
    crf = _fit(featurizer, train, c1, c2, args.iterations)
    info = {"data": "WNUT 2017 (Derczynski, Nichols, van Erp, Limsopatham 2017), CC-BY 4.0",
            "c1": c1, "c2": c2, "iterations": args.iterations, "max_outside": tau,
            "fitted_on": "train", "chosen_by": f"{args.folds}-fold cross-validation on train",
            "cv_figures": cv_figures}
    for split in ("dev", "test"):
        path = data / f"{split}.conll"
        if path.exists():
            figures = evaluate(crf, featurizer, read_conll(path), tau)
            info[f"{split}_figures"] = figures
            print(f"{split} (read-only evaluation): {_line(figures)}")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    import shutil

    shutil.copyfile(crf.modelfile.name, out / MODEL_FILE)
    (out / INFO_FILE).write_text(json.dumps(info, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    (out / WORDS_FILE).write_text("\n".join(sorted(words)) + "\n", encoding="utf-8")
    print(f"wrote {out / MODEL_FILE} ({(out / MODEL_FILE).stat().st_size / 1e6:.2f} MB) and "
          f"{out / WORDS_FILE} ({len(words)} words)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
