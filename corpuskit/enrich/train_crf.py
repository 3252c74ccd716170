"""Train the shipped entity CRF on WNUT 2017 (the data is read from a path; it is never copied here).

Usage::

    python -m corpuskit.enrich.train_crf /path/to/wnut17 [--out corpuskit/enrich/models] \
        [--c1 0.05 0.1 0.2] [--c2 0.01 0.05 0.1] [--iterations 150] [--no-refit]

Reads ``train.conll`` and ``dev.conll`` (token TAB BIO-tag lines, blank line
between documents), picks ``c1``/``c2`` by typed F1 on dev (exact spans, the
corpuskit types of :data:`corpuskit.enrich.crf.WNUT_TYPES`), prints every
setting's dev figures, then refits the chosen setting on train + dev and
writes the model and its common-word list into ``--out``.

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

from corpuskit.enrich.crf import (INFO_FILE, MODEL_FILE, WNUT_TYPES, WORDS_FILE, Featurizer, decode,
                                  gazetteer_words, spans_from_tags)


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


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", help="folder holding train.conll and dev.conll")
    parser.add_argument("--out", default=str(Path(__file__).parent / "models"))
    parser.add_argument("--c1", type=float, nargs="+", default=[0.05, 0.1, 0.2])
    parser.add_argument("--c2", type=float, nargs="+", default=[0.01, 0.05, 0.1])
    parser.add_argument("--iterations", type=int, default=150)
    parser.add_argument("--max-outside", type=float, nargs="+", default=[1.0, 0.9, 0.8, 0.7, 0.6],
                        help="marginal-decoding thresholds to try (1.0 = Viterbi)")
    parser.add_argument("--no-refit", action="store_true", help="ship the train-only model")
    args = parser.parse_args(argv)

    data = Path(args.data)
    train, dev = read_conll(data / "train.conll"), read_conll(data / "dev.conll")
    print(f"train {len(train)} documents, dev {len(dev)} documents")
    gaz, first = gazetteer_words()
    featurizer = Featurizer(gaz, common_words(train), first)
    dev_features = [featurizer.sentence(w) for w, _ in dev]
    best = None
    for c1 in args.c1:
        for c2 in args.c2:
            t0 = time.perf_counter()
            crf = _fit(featurizer, train, c1, c2, args.iterations)
            viterbi = crf.predict(dev_features)
            marginals = crf.predict_marginals(dev_features)
            for tau in args.max_outside:
                figures = score(dev, [decode(v, m, tau) for v, m in zip(viterbi, marginals)])
                t = figures["typed"]
                print(f"c1={c1} c2={c2} max_outside={tau}: dev typed F1 {t['f1']:.3f} "
                      f"(P {t['precision']:.3f} R {t['recall']:.3f}); untyped F1 "
                      f"{figures['untyped']['f1']:.3f} [{time.perf_counter() - t0:.0f} s]", flush=True)
                if best is None or t["f1"] > best[0]:
                    best = (t["f1"], c1, c2, tau, crf, figures)
    f1, c1, c2, tau, crf, figures = best
    print(f"chosen c1={c1} c2={c2} max_outside={tau} (dev typed F1 {f1:.3f})")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    docs = train if args.no_refit else train + dev
    words = common_words(docs)
    if not args.no_refit:
        featurizer = Featurizer(gaz, words, first)
        crf = _fit(featurizer, docs, c1, c2, args.iterations)
        print(f"refitted on train + dev ({len(docs)} documents)")
    import shutil

    shutil.copyfile(crf.modelfile.name, out / MODEL_FILE)
    info = {"data": "WNUT 2017 (Derczynski, Nichols, van Erp, Limsopatham 2017), CC-BY 4.0",
            "c1": c1, "c2": c2, "iterations": args.iterations, "max_outside": tau,
            "fitted_on": "train" if args.no_refit else "train+dev",
            "dev_figures_of_train_only_model": figures}
    (out / INFO_FILE).write_text(json.dumps(info, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    (out / WORDS_FILE).write_text("\n".join(sorted(words)) + "\n", encoding="utf-8")
    print(f"wrote {out / MODEL_FILE} ({(out / MODEL_FILE).stat().st_size / 1e6:.2f} MB) and "
          f"{out / WORDS_FILE} ({len(words)} words)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
