"""Train the shipped entity CRF on permissively licensed labelled sets (the data is read from paths; never copied here).

Usage::

    python tools/train_crf.py --set WNUT-17 wnut17 WNUT17/train.conll WNUT17/dev.conll \
        --set BTC btc BTC/section_a.conll BTC/section_b.conll ... [--out corpuskit/enrich/models] \
        [--c1 0.01 0.02] [--c2 0.05] [--folds 3] [--iterations 150]
    python tools/train_crf.py /path/to/wnut17      # one set: WNUT 2017 train.conll, as before

Each ``--set NAME KIND FILE...`` is one labelled dataset: CoNLL files (token TAB BIO-tag lines,
blank line between documents) of a kind :data:`KINDS` knows, whose labels are mapped to the CRF's
(WNUT 2017's) and whose credit and licence go into the model's metadata. Only permissively licensed
kinds are listed: WNUT-16 (GPL-3.0) is evaluation only and cannot be trained on here.

``c1``, ``c2`` and the marginal-decoding threshold ``max_outside`` are chosen by leaving one
dataset out over the sets given: for each setting, a CRF is fitted on all sets but one and scored on
the one left out (typed F1, exact spans, corpuskit types; a set is scored only on the types it
annotates), and the setting with the best mean typed F1 over the left-out sets wins (ties: the first
in grid order). With one set, ``--folds``-fold cross-validation within it (a seeded shuffle of the
documents) chooses instead. Every setting's figures are printed. The chosen setting is then fitted on
every set together and the model, its common-word list and its settings (with the training sets,
their licences and the figures that chose them) are written into ``--out``. With the one-folder form,
``dev.conll`` and ``test.conll`` are evaluated read-only when present.

Data: WNUT 2017 Emerging and Rare Entities (Derczynski, Nichols, van Erp, Limsopatham 2017) and the
Broad Twitter Corpus (Derczynski, Bontcheva, Roberts 2016), both CC-BY 4.0.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import corpuskit.enrich
from corpuskit.enrich.crf import (INFO_FILE, MODEL_FILE, WNUT_TYPES, WORDS_FILE, build_featurizer, decode,
                                  spans_from_tags)

#: the shipped models' folder of the corpuskit this script imports
MODELS = Path(corpuskit.enrich.__file__).parent / "models"

#: The labelled datasets this script may train on: each kind's labels mapped to the CRF's (WNUT 2017's),
#: the corpuskit types it annotates (a left-out set is scored on those only), its credit and licence.
#: BTC's ORG is trained as WNUT 2017's ``corporation`` (both are corpuskit ``org``).
KINDS = {
    "wnut17": {"labels": {label: label for label in WNUT_TYPES},
               "types": ("org", "person", "place", "product"),
               "data": "WNUT 2017 Emerging and Rare Entities (Derczynski, Nichols, van Erp, Limsopatham 2017)",
               "licence": "CC-BY 4.0",
               "cite": "Derczynski, Nichols, van Erp, Limsopatham (2017), Results of the WNUT2017 Shared Task on "
                       "Novel and Emerging Entity Recognition, W-NUT at EMNLP"},
    "btc": {"labels": {"PER": "person", "LOC": "location", "ORG": "corporation"},
            "types": ("org", "person", "place"),
            "data": "Broad Twitter Corpus (Derczynski, Bontcheva, Roberts 2016)",
            "licence": "CC-BY 4.0",
            "cite": "Derczynski, Bontcheva, Roberts (2016), Broad Twitter Corpus: A Diverse Named Entity "
                    "Recognition Resource, COLING"},
}


@dataclass
class LabelledSet:
    """One labelled dataset: its name, kind (a key of :data:`KINDS`), files and documents
    ``(tokens, tags)`` with the tags mapped to the CRF's labels."""
    name: str
    kind: str
    files: tuple[str, ...]
    docs: list

    @property
    def types(self) -> tuple[str, ...]:
        return KINDS[self.kind]["types"]


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


def retag(docs, labels: dict) -> list:
    """``docs`` with each tag's label mapped by ``labels``; a label it does not hold is an error
    (a file of another kind, or of a scheme this script does not know)."""
    out = []
    for words, tags in docs:
        mapped = []
        for tag in tags:
            if tag == "O":
                mapped.append(tag)
                continue
            if tag[:2] not in ("B-", "I-") or tag[2:] not in labels:
                raise ValueError(f"label {tag!r} is not one of {sorted(labels)}")
            mapped.append(tag[:2] + labels[tag[2:]])
        out.append((words, mapped))
    return out


def load_set(name: str, kind: str, files) -> LabelledSet:
    """The :class:`LabelledSet` of ``files`` (CoNLL) of ``kind``."""
    if kind not in KINDS:
        raise ValueError(f"unknown kind {kind!r}: one of {sorted(KINDS)} (GPL-3.0 WNUT-16 is evaluation only)")
    docs = [d for f in files for d in read_conll(f)]
    return LabelledSet(name, kind, tuple(str(f) for f in files), retag(docs, KINDS[kind]["labels"]))


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


def score(gold_docs, predicted, types=None) -> dict:
    """Exact-span precision, recall and F1, typed (corpuskit types) and untyped; ``predicted``
    holds each document's spans ``(first, last, label, ...)``. ``types``: the corpuskit types the
    gold annotates (a predicted span of another type is not held against it; None: all)."""
    out = {}
    for typed in (True, False):
        tp = fp = fn = 0
        for (_, gold), pred in zip(gold_docs, predicted):
            g, p = typed_spans(spans_from_tags(gold)), typed_spans(pred)
            if types is not None:
                p = {s for s in p if s[2] in types}
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


class Fitter:
    """Fits the CRF on a named group of sets, remembering each fit by ``(names, c1, c2)`` so that a
    caller running the procedure several times (the leave-one-dataset-out benchmark) fits each once."""

    def __init__(self, iterations: int = 150):
        self.iterations = iterations
        self.fitted: dict = {}

    def __call__(self, sets, c1: float, c2: float):
        """``(crf, featurizer)`` fitted on every document of ``sets``."""
        key = (tuple(sorted(s.name for s in sets)), c1, c2)
        if key not in self.fitted:
            docs = [d for s in sets for d in s.docs]
            featurizer = build_featurizer(common_words(docs))
            self.fitted[key] = (_fit(featurizer, docs, c1, c2, self.iterations), featurizer)
        return self.fitted[key]


THRESHOLDS = (1.0, 0.9, 0.8, 0.7, 0.6, 0.5)
#: The default grid of ``c1`` and ``c2``: the shipped model's. It was 0.01, 0.02 x 0.05, 0.1 when the CRF was
#: trained on WNUT 2017 train alone (0.02, 0.05 chosen); with three times the data, c2 0.1 was dropped to keep the
#: leave-one-dataset-out benchmark, which runs the whole procedure once per left-out set, within 40 minutes.
C1S, C2S = (0.01, 0.02), (0.05,)


def folds(n: int, k: int, seed: int = 17) -> list[list[int]]:
    """``k`` disjoint lists of document indices covering ``range(n)`` (a seeded shuffle)."""
    import random

    order = list(range(n))
    random.Random(seed).shuffle(order)
    return [sorted(order[i::k]) for i in range(k)]


def cross_validate(docs, c1, c2, k, iterations, thresholds=THRESHOLDS, types=None) -> dict:
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
    return {tau: score(docs, [decode(v, m, tau) for v, m in predictions], types) for tau in thresholds}


def predict(model, docs) -> list:
    """``[(viterbi tags, marginals)]`` of a fitted ``(crf, featurizer)`` on ``docs``."""
    crf, featurizer = model
    features = [featurizer.sentence(w) for w, _ in docs]
    return list(zip(crf.predict(features), crf.predict_marginals(features)))


def leave_one_set_out(sets, c1, c2, fitter, thresholds=THRESHOLDS) -> dict:
    """``{max_outside: {set name: figures}}``: each set scored by the CRF fitted on the others."""
    out = {tau: {} for tau in thresholds}
    for held in sets:
        pairs = predict(fitter([s for s in sets if s is not held], c1, c2), held.docs)
        for tau in thresholds:
            out[tau][held.name] = score(held.docs, [decode(v, m, tau) for v, m in pairs], held.types)
    return out


def _mean_f1(by_set: dict) -> float:
    return sum(f["typed"]["f1"] for f in by_set.values()) / len(by_set)


def choose_setting(sets, c1s, c2s, thresholds=THRESHOLDS, k: int = 3, fitter=None, log=print) -> dict:
    """The ``{"c1", "c2", "max_outside", "figures", "chosen_by"}`` with the best mean typed F1 over
    the sets each left out in turn (one set: over ``k`` folds of it); ``figures`` are the chosen
    setting's ``{set or "cv": figures}``. Nothing outside ``sets`` is read."""
    fitter = fitter or Fitter()
    best = None
    for c1 in c1s:
        for c2 in c2s:
            t0 = time.perf_counter()
            if len(sets) > 1:
                by_tau = leave_one_set_out(sets, c1, c2, fitter, thresholds)
            else:
                cv = cross_validate(sets[0].docs, c1, c2, k, fitter.iterations, thresholds, sets[0].types)
                by_tau = {tau: {"cv": f} for tau, f in cv.items()}
            for tau in thresholds:
                mean = _mean_f1(by_tau[tau])
                cells = "; ".join(f"{name} {_line(f)}" for name, f in by_tau[tau].items())
                log(f"  c1={c1} c2={c2} max_outside={tau}: mean typed F1 {mean:.3f}; {cells} "
                    f"[{time.perf_counter() - t0:.0f} s]")
                if best is None or mean > best[0]:
                    best = (mean, c1, c2, tau, by_tau[tau])
    _, c1, c2, tau, figures = best
    names = ", ".join(s.name for s in sets)
    chosen_by = (f"leave one dataset out over the training sets ({names}): best mean typed F1" if len(sets) > 1
                 else f"{k}-fold cross-validation on {names}")
    return {"c1": c1, "c2": c2, "max_outside": tau, "figures": figures, "chosen_by": chosen_by}


def evaluate(crf, featurizer, docs, tau, types=None) -> dict:
    features = [featurizer.sentence(w) for w, _ in docs]
    return score(docs, [decode(v, m, tau) for v, m in zip(crf.predict(features), crf.predict_marginals(features))],
                 types)


def _line(figures) -> str:
    t, u = figures["typed"], figures["untyped"]
    return (f"typed F1 {t['f1']:.3f} (P {t['precision']:.3f} R {t['recall']:.3f}); "
            f"untyped F1 {u['f1']:.3f}")


def training_record(sets) -> list[dict]:
    """What the model's metadata says of each training set: name, files, documents, credit, licence, citation."""
    return [{"name": s.name, "kind": s.kind, "files": [Path(f).name for f in s.files], "documents": len(s.docs),
             "data": KINDS[s.kind]["data"], "licence": KINDS[s.kind]["licence"], "cite": KINDS[s.kind]["cite"]}
            for s in sets]


def _parse(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="?",
                        help="one WNUT 2017 folder holding train.conll (dev.conll and test.conll are only evaluated)")
    parser.add_argument("--set", nargs="+", action="append", default=[], metavar="NAME KIND FILE",
                        help=f"a labelled set: its name, its kind ({', '.join(sorted(KINDS))}) and its CoNLL files")
    parser.add_argument("--out", default=str(MODELS))
    parser.add_argument("--c1", type=float, nargs="+", default=list(C1S))
    parser.add_argument("--c2", type=float, nargs="+", default=list(C2S))
    parser.add_argument("--folds", type=int, default=3, help="folds of the cross-validation used when one set is given")
    parser.add_argument("--iterations", type=int, default=150)
    parser.add_argument("--max-outside", type=float, nargs="+", default=list(THRESHOLDS),
                        help="marginal-decoding thresholds to try (1.0 = Viterbi)")
    args = parser.parse_args(argv)
    if (args.data is None) == (not args.set):
        parser.error("give either one WNUT 2017 folder or one or more --set NAME KIND FILE...")
    if any(len(spec) < 3 for spec in args.set):
        parser.error("--set needs NAME KIND FILE [FILE ...]")
    return args


def main(argv=None) -> int:
    args = _parse(argv)
    if args.data is not None:
        sets = [load_set("WNUT-17 train", "wnut17", [Path(args.data) / "train.conll"])]
    else:
        sets = [load_set(name, kind, files) for name, kind, *files in args.set]
    print("; ".join(f"{s.name} ({s.kind}) {len(s.docs)} documents" for s in sets))
    fitter = Fitter(args.iterations)
    chosen = choose_setting(sets, args.c1, args.c2, args.max_outside, args.folds, fitter)
    c1, c2, tau = chosen["c1"], chosen["c2"], chosen["max_outside"]
    print(f"chosen c1={c1} c2={c2} max_outside={tau} by {chosen['chosen_by']}; fitting on every set")
    docs = [d for s in sets for d in s.docs]
    words = common_words(docs)
    featurizer = build_featurizer(words)
    t0 = time.perf_counter()
    crf = _fit(featurizer, docs, c1, c2, args.iterations)
    seconds = time.perf_counter() - t0
    records = training_record(sets)
    info = {"data": "; ".join(f"{r['data']}, {r['licence']}" for r in
                              {r["kind"]: r for r in records}.values()),
            "training_sets": records, "c1": c1, "c2": c2, "iterations": args.iterations, "max_outside": tau,
            "fitted_on": " + ".join(f"{r['name']} ({', '.join(r['files'])})" for r in records),
            "chosen_by": chosen["chosen_by"], "documents": len(docs), "fit_seconds": round(seconds)}
    if len(sets) > 1:
        info["lodo_figures"] = chosen["figures"]
    else:
        info["cv_figures"] = chosen["figures"]["cv"]
    if args.data is not None:
        for split in ("dev", "test"):
            path = Path(args.data) / f"{split}.conll"
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
    print(f"wrote {out / MODEL_FILE} ({(out / MODEL_FILE).stat().st_size / 1e6:.2f} MB; final fit {seconds:.0f} s) "
          f"and {out / WORDS_FILE} ({len(words)} words)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
