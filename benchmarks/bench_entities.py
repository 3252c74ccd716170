"""Entity extraction quality and speed on WNUT 2017 dev (labelled social-media text), and on the demo.

Usage: python benchmarks/bench_entities.py [--data ../shared/datasets/wnut17] [--split dev]
       [--demo-records 3000]
       python benchmarks/bench_entities.py --lodo [--no-strict] [--iterations 150] [--c1 ...] [--c2 ...] [--folds 3]

``--lodo`` prints the leave-one-dataset-out tables instead (WNUT-17, the Broad Twitter Corpus and
WNUT-16 test each left out in turn, every setting chosen by the shipped model's training procedure run
on the others alone: ``benchmarks/entity_lodo.py``).

First the headline: 3-fold cross-validation of the whole default extractor on WNUT
train (``tools/extractor_cv.py``: each fold's CRF fitted on the other folds;
``--cv-cache DIR`` keeps those models for the next run, ``--no-cv`` skips it), then the
shipped CRF's own figures, as ``python tools/train_crf.py`` recorded them. Then dev (part of the
shipped CRF's training data since it was trained on WNUT 2017 train + dev and BTC: a fit figure,
not a held-out one; ``--lodo`` gives the held-out figures),
scored by ``tools/wnut_eval.py`` (documents are their tokens joined
by spaces; exact token-span match; person -> person, location -> place,
corporation and group -> org, product -> product, creative-work -> product or
concept). Prints typed
and untyped precision, recall and F1, and documents per second, for the
default extractor and for the gazetteer-only extractor, in one run (one process;
speed as wall-clock documents per second and per CPU-second, the second being
less disturbed by other work on a shared machine). When ``test.conll`` is in the
data folder, the default extractor's figures on it are printed too (a read-only
evaluation: nothing is trained or chosen on test; see ``tools/train_crf.py``).
Then the demo corpus: entity precision and recall (by name, and name + type) and sentiment
agreement against the demo generator's labels, after ``Corpus.enrich()`` with the default
extractor, twice: as shipped (its gazetteers hold no invented demo name, only real places
GeoNames holds, ``tests/test_gazetteer_sources.py``), and blind, with every demo name taken
out of the gazetteers for the measurement, so the extractor has never seen the demo's vocabulary.
Data: WNUT 2017 (Derczynski, Nichols, van Erp, Limsopatham 2017), CC-BY 4.0.
Skips (exit 0) when the data folder is absent.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "datasets" / "wnut17"


def run(name, extractor, docs, repeats: int = 2, fit: bool = False) -> None:
    texts = [d[0] for d in docs]
    if fit:  # as Corpus.enrich() runs it: fitted on the corpus's own texts (never on labels)
        t0 = time.perf_counter()
        extractor.fit(texts)
        print(f"  fit on the {len(texts)} unlabelled texts: {time.perf_counter() - t0:.1f} s; "
              f"{len(extractor.promoted_)} promoted names")
    extractor.extract_many(texts[:5])  # load models outside the timing
    best = cpu = None
    for _ in range(repeats):
        getattr(extractor, "memo_", {}).clear()  # no help from a memo of the previous pass
        t0, c0 = time.perf_counter(), time.process_time()
        found = extractor.extract_many(texts)
        wall, used = time.perf_counter() - t0, time.process_time() - c0
        best = wall if best is None else min(best, wall)
        cpu = used if cpu is None else min(cpu, used)
    from wnut_eval import predicted_spans, span_scores

    predictions = [predicted_spans(text, spans, m) for (text, spans, _), m in zip(docs, found)]
    figures = span_scores(docs, predictions)
    t, u = figures["typed"], figures["untyped"]
    print(f"{name:<28} typed F1 {t[2]:.3f} (P {t[0]:.3f} R {t[1]:.3f})  untyped F1 {u[2]:.3f} "
          f"(P {u[0]:.3f} R {u[1]:.3f})  {len(texts) / best:,.0f} docs/s wall, "
          f"{len(texts) / cpu:,.0f} docs per CPU-second")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(DEFAULT_DATA))
    parser.add_argument("--split", default="dev", choices=("dev", "train", "test"))
    parser.add_argument("--demo-records", type=int, default=3000, help="0 skips the demo figures")
    parser.add_argument("--cv-cache", default=None, help="folder for the CV fold models (reused when present)")
    parser.add_argument("--no-cv", action="store_true", help="skip the whole-extractor CV on train")
    parser.add_argument("--lodo", action="store_true",
                        help="leave one dataset out (WNUT-17, BTC, WNUT-16 test): benchmarks/entity_lodo.py")
    parser.add_argument("--no-strict", action="store_true",
                        help="with --lodo: only the text-left-out table (the training procedure run once, on "
                             "every training part, not once more per left-out set)")
    parser.add_argument("--iterations", type=int, default=150, help="with --lodo: L-BFGS iterations per CRF fit")
    parser.add_argument("--c1", type=float, nargs="+", default=None,
                        help="with --lodo: the c1 grid (default: the shipped model's, tools/train_crf.py)")
    parser.add_argument("--c2", type=float, nargs="+", default=None, help="with --lodo: the c2 grid (likewise)")
    parser.add_argument("--folds", type=int, default=3,
                        help="with --lodo: cross-validation folds where a left-out fold leaves one training set")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))  # measure this checkout, not an installed copy
    sys.path.insert(1, str(ROOT / "tools"))  # the evaluation scripts (wnut_eval, extractor_cv)
    if args.lodo:
        sys.path.insert(2, str(ROOT / "benchmarks"))
        from entity_lodo import C1S, C2S, run as lodo

        return lodo(Path(args.data).parent, strict=not args.no_strict, iterations=args.iterations,
                    c1s=args.c1 or C1S, c2s=args.c2 or C2S, folds=args.folds)
    path = Path(args.data) / f"{args.split}.conll"
    if not path.exists():
        print(f"skipped: {path} not found (WNUT 2017 data absent)")
    else:
        wnut(path, args)
    if args.demo_records:
        demo(args.demo_records)
    return 0


def demo(records: int) -> None:
    """Entity and sentiment figures of ``Corpus.enrich()`` on the demo corpus: with the shipped
    extractor, then blind (every demo name and name part taken out of the gazetteers)."""
    print(f"demo ({records} records over 30 days, seed 7):")
    _demo_line("shipped extractor", records)
    with _without_demo_names():
        _demo_line("blind (no demo name in the gazetteers)", records)


def _demo_line(label: str, records: int) -> None:
    from corpuskit import open_corpus
    from corpuskit.enrich.quality import demo_quality
    from corpuskit.demo import build_demo

    corpus = open_corpus(":memory:")
    build_demo(corpus, seed=7, records=records, days=30, run_stages=False, progress=False)
    corpus.enrich(progress=False)
    q = demo_quality(corpus)
    print(f"  {label:<40} entities precision {q['namePrecision']:.3f} recall {q['nameRecall']:.3f} "
          f"(by name); precision {q['typedPrecision']:.3f} recall {q['typedRecall']:.3f} (name + type); "
          f"sentiment agreement {q['sentimentAgreement']:.3f}")


class _without_demo_names:
    """Within: ``load_gazetteers`` answers without any name of the demo generator's vocabulary
    (entities, places, novel names, author name parts, every word of a demo person's name), so
    the extractor has never seen the demo's names; the places GeoNames gives the shipped lists
    (London, Tokyo...) go too. The CRF's weights and its GeoNames/Census lexicon feature stay."""

    def __enter__(self):
        from corpuskit.enrich import entities
        from corpuskit.ingest import demo_vocab as V
        from corpuskit.query.name_keys import alias_key

        names = [n for beat in V.ENTITIES.values() for kind in beat.values() for n in kind]
        names += V.COMMON_PLACES + [n for n, _ in V.NOVEL_ENTITIES] + V.FIRST_NAMES + V.LAST_NAMES
        people = [n for beat in V.ENTITIES.values() for n in beat["person"]] + [
            n for n, kind in V.NOVEL_ENTITIES if kind == "person"]
        words = {alias_key(w) for n in people for w in n.split()} | {alias_key(w) for w in V.FIRST_NAMES}
        drop = {alias_key(n) for n in names}
        self.original = original = entities.load_gazetteers

        def blind(*args, **kwargs):
            table, first = original(*args, **kwargs)
            gone = {e.name for k, e in table.items() if k in drop}
            table = {k: e for k, e in table.items() if k not in drop and e.name not in gone}
            return table, frozenset(n for n in first if alias_key(n) not in words)

        entities.load_gazetteers = blind
        return self

    def __exit__(self, *exc):
        from corpuskit.enrich import entities

        entities.load_gazetteers = self.original
        return False


class CrfOnly:
    """The shipped CRF alone (no gazetteers, rules or merge), for comparison."""

    def __init__(self):
        from corpuskit.enrich.crf import CrfTagger

        self.tagger = CrfTagger()

    def extract_many(self, texts):
        from corpuskit.enrich.base import Mention
        from corpuskit.enrich.crf import WNUT_TYPES, tokenize

        out = []
        for text in texts:
            tokens = tokenize(text)
            found = []
            for a, b, label, _ in self.tagger.spans([t[2] for t in tokens]):
                surface = text[tokens[a][0]:tokens[b][1]]
                found.append(Mention(key=f"{a}", name=surface, type=WNUT_TYPES[label], surface=surface,
                                     positions=(tokens[a][0],), aliases=(surface,)))
            out.append(found)
        return out


def cv_line() -> None:
    """The shipped CRF's figures as recorded when it was trained (``python tools/train_crf.py``: each
    training set left out, or cross-validation on WNUT train; refitting here would take minutes)."""
    from corpuskit.enrich.crf import load_info

    info = load_info()
    for name, f in sorted(info.get("lodo_figures", {}).items()):  # trained on several sets
        t, u = f["typed"], f["untyped"]
        print(f"{'CRF, ' + name + ' left out':<28} typed F1 {t['f1']:.3f} (P {t['precision']:.3f} R "
              f"{t['recall']:.3f})  untyped F1 {u['f1']:.3f}  (fitted on the other training set; "
              f"c1={info.get('c1')} c2={info.get('c2')} max_outside={info.get('max_outside')})")
    cv = info.get("cv_figures")
    if not cv:
        if "lodo_figures" not in info:
            print("CV on train: not recorded in the shipped model's settings")
        return
    t, u = cv["typed"], cv["untyped"]
    print(f"{'CRF, CV on train':<28} typed F1 {t['f1']:.3f} (P {t['precision']:.3f} R {t['recall']:.3f})  "
          f"untyped F1 {u['f1']:.3f}  ({info.get('chosen_by')}; c1={info.get('c1')} c2={info.get('c2')} "
          f"max_outside={info.get('max_outside')})")


def extractor_cv_line(train, cache) -> None:
    """The headline: 3-fold CV of the whole default extractor on WNUT train."""
    from corpuskit.enrich.entity_extractor import HybridExtractor
    from extractor_cv import cross_validate_extractor, fold_taggers, line

    t0 = time.perf_counter()
    figures = cross_validate_extractor(train, HybridExtractor, fold_taggers(train, 3, cache))
    print(f"{'default, 3-fold CV on train':<28} {line(figures)}  (the headline; "
          f"{time.perf_counter() - t0:.0f} s)")


def wnut(path, args) -> None:
    from corpuskit.enrich.entities import GazetteerExtractor
    from corpuskit.enrich.entity_extractor import HybridExtractor
    from wnut_eval import conll_documents

    docs = conll_documents(path)
    gold = sum(len(d[2]) for d in docs)
    print(f"WNUT 2017 {args.split}: {len(docs)} documents, {gold} gold entities; "
          f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs (shared machine)")
    train = Path(args.data) / "train.conll"
    if not args.no_cv and train.exists():
        extractor_cv_line(train, args.cv_cache)
    cv_line()
    run("default (HybridExtractor)", HybridExtractor(), docs)
    run("default, fitted as enrich does", HybridExtractor(), docs, repeats=1, fit=True)
    # the same without the guard that asks one common word opening a sentence for 0.5 confidence
    run("default, initial guard off", HybridExtractor(lower_confidence=0.0), docs, repeats=1)
    run("gazetteer only", GazetteerExtractor(), docs)
    run("CRF alone", CrfOnly(), docs, repeats=1)
    test = Path(args.data) / "test.conll"
    if args.split != "test" and test.exists():
        docs = conll_documents(test)
        print(f"WNUT 2017 test (read-only evaluation): {len(docs)} documents, "
              f"{sum(len(d[2]) for d in docs)} gold entities")
        run("default (HybridExtractor)", HybridExtractor(), docs, repeats=1)
        run("default, fitted as enrich does", HybridExtractor(), docs, repeats=1, fit=True)
        run("gazetteer only", GazetteerExtractor(), docs, repeats=1)


if __name__ == "__main__":
    sys.exit(main())
