"""k-fold cross-validation of the whole default entity extractor on WNUT 2017 train.

Usage::

    python tools/extractor_cv.py ../shared/datasets/wnut17 [--folds 3] [--cache DIR]
        [--lower-confidence 0.5 0.0]

``tools/train_crf.py`` cross-validates the CRF alone; a setting of the extractor
around it (the lower-case guard, rules, promotion) is chosen here instead. The folds are
``train_crf.folds`` (seeded, the CRF's own). For each fold a CRF is
fitted on the other folds with the shipped model's settings (c1, c2, iterations; its CV-chosen
``max_outside``), with the common words of that part only, both for the CRF's features and for
the extractor's common-word tests; the default :class:`~corpuskit.enrich.entity_extractor.HybridExtractor`
then runs on the held-out fold with that CRF. Figures pool every fold's spans and are scored by
``tools/wnut_eval.py`` (typed and untyped precision, recall, F1). Dev and test are never
read. Fold models are kept in ``--cache`` so several settings reuse them (each takes about a
minute to fit on one core). Needs ``sklearn-crfsuite`` (a core dependency).
"""
from __future__ import annotations

import argparse
import shutil
import sys
from contextlib import contextmanager
from pathlib import Path

from corpuskit.enrich.crf import CrfTagger, build_featurizer, load_info
from train_crf import _fit, common_words, folds, read_conll  # tools/, beside this script
from wnut_eval import conll_documents, predicted_spans, span_scores


def fold_taggers(train_path, k: int = 3, cache=None, iterations: int | None = None
                 ) -> list[tuple[list[int], CrfTagger, frozenset]]:
    """``(held-out document indices, CRF tagger fitted on the rest, that rest's common words)``
    per fold of ``train_path``; models are read from (or written to) ``cache`` when given.
    ``iterations`` defaults to the shipped model's."""
    info = load_info()
    c1, c2, iterations = info["c1"], info["c2"], iterations or info.get("iterations", 150)
    docs = read_conll(train_path)
    out = []
    for i, held in enumerate(folds(len(docs), k)):
        held_set = set(held)
        part = [d for j, d in enumerate(docs) if j not in held_set]
        words = common_words(part)
        featurizer = build_featurizer(words)
        path = Path(cache) / f"fold{i + 1}of{k}_c1-{c1}_c2-{c2}_it{iterations}.crfsuite" if cache else None
        if path is None or not path.exists():
            crf = _fit(featurizer, part, c1, c2, iterations)
            if path is None:
                path = Path(crf.modelfile.name)
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(crf.modelfile.name, path)
        tagger = CrfTagger(model_path=str(path))
        tagger._load()
        tagger.featurizer_ = featurizer
        tagger.max_outside_ = float(info.get("max_outside", 1.0))
        out.append((held, tagger, words))
    return out


@contextmanager
def _fold_common_words(words):
    """Within: the extractor's common-word tests use ``words`` (the fold's training part) in place
    of the shipped model's list, so the held-out fold never informs them."""
    from corpuskit.enrich import entity_extractor as ex

    original = ex.load_common_words
    ex.load_common_words = lambda: words
    ex._common_words.cache_clear()
    try:
        yield
    finally:
        ex.load_common_words = original
        ex._common_words.cache_clear()


def cross_validate_extractor(train_path, make_extractor, taggers, fit: bool = False) -> dict:
    """Pooled :func:`wnut_eval.span_scores` of ``make_extractor()`` (a fresh
    :class:`HybridExtractor`) over the folds of :func:`fold_taggers`, plus ``"folds"``: each
    fold's own scores. ``fit``: the extractor is first fitted on the held-out fold's texts
    (unlabelled), as ``Corpus.enrich()`` fits it on a corpus."""
    docs = conll_documents(train_path)
    predictions = [None] * len(docs)
    per_fold = []
    for held, tagger, words in taggers:
        with _fold_common_words(words):
            extractor = make_extractor()
            extractor._parts()
            if extractor.tagger_ is not None:
                extractor.tagger_ = tagger
                extractor.lexicon_ = tagger.featurizer_.lexicon
            texts = [docs[i][0] for i in held]
            if fit:
                extractor.fit(texts)
            found = extractor.extract_many(texts)
        for i, mentions in zip(held, found):
            text, spans, _ = docs[i]
            predictions[i] = predicted_spans(text, spans, mentions)
        per_fold.append(span_scores([docs[i] for i in held], [predictions[i] for i in held]))
    return {**span_scores(docs, predictions), "folds": per_fold}


def line(figures) -> str:
    t, u = figures["typed"], figures["untyped"]
    folds_f1 = " / ".join(f"{f['typed'][2]:.3f}" for f in figures.get("folds", ()))
    return (f"typed F1 {t[2]:.3f} (P {t[0]:.3f} R {t[1]:.3f})  untyped F1 {u[2]:.3f} (P {u[0]:.3f} R {u[1]:.3f})"
            + (f"  [typed F1 by fold {folds_f1}]" if folds_f1 else ""))


def main(argv=None) -> int:
    from corpuskit.enrich.entity_extractor import HybridExtractor

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", help="folder holding train.conll (nothing else is read)")
    parser.add_argument("--folds", type=int, default=3)
    parser.add_argument("--cache", default=None, help="folder for the fold models (reused when present)")
    parser.add_argument("--lower-confidence", type=float, nargs="+", default=[0.5],
                        help="HybridExtractor lower_confidence values to compare (0 switches the guard off)")
    parser.add_argument("--fit", action="store_true", help="also score each setting fitted on the held-out texts")
    args = parser.parse_args(argv)
    train = Path(args.data) / "train.conll"
    if not train.exists():
        print(f"skipped: {train} not found")
        return 0
    taggers = fold_taggers(train, args.folds, args.cache)
    for value in args.lower_confidence:
        for fit in (False, True) if args.fit else (False,):
            figures = cross_validate_extractor(train, lambda: HybridExtractor(lower_confidence=value), taggers, fit)
            print(f"default extractor{', fitted' if fit else ''}, lower_confidence={value}: "
                  f"{args.folds}-fold CV on train {line(figures)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
