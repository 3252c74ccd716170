"""The demo corpus: a deterministic generator with planted events, and checks against them.

>>> import corpuskit
>>> from corpuskit.demo import build_demo, ground_truth
>>> corpus = corpuskit.open_corpus(":memory:")                       # doctest: +SKIP
>>> build_demo(corpus, seed=7, records=3000, days=60, progress=False)  # doctest: +SKIP

* :func:`build_demo`: generate records (same seed, same records) across seven
  source kinds, plant events, and by default run every stage;
* :func:`ground_truth`: the planted events and beats the generator wrote;
* :func:`enrichment_quality`: entity precision/recall, primary-topic accuracy
  and sentiment agreement against the generator's labels;
* :func:`evaluate_signals`: detected signals scored against the planted events.
"""
from __future__ import annotations

from time import perf_counter

from corpuskit.analysis.signals.evaluate import evaluate as evaluate_signals
from corpuskit.enrich.quality import demo_quality as enrichment_quality
from corpuskit.ingest.demo import store_demo

__all__ = ["build_demo", "enrichment_quality", "evaluate_signals", "ground_truth"]


def build_demo(corpus, seed: int = 7, records: int = 20000, days: int = 60, events: bool = True,
               run_stages: bool = True, progress: bool = True) -> dict:
    """Generate the demo corpus into ``corpus`` (which must hold no records) and run the stages.

    Stores the records (one transaction), the beat definitions (meta ``beats``),
    the ground truth (meta ``demo_ground_truth`` and, for a file corpus,
    ``<db stem>.ground_truth.json`` beside it, see :func:`~corpuskit.ingest.demo.ground_truth_path`;
    the summary's ``groundTruthPath`` gives its absolute path), freezes the
    corpus clock (:func:`corpuskit.ingest.demo.store_demo` does all that), then runs every
    stage (``corpus.run``) when ``run_stages``. Returns a JSON-ready summary.
    """
    summary = store_demo(corpus.file, seed=seed, records=records, days=days, events=events)
    if run_stages:
        for stage in ("enrich", "analyse", "narrate"):
            t0 = perf_counter()
            corpus.run(progress=progress, stages=(stage,))
            summary["stages"][stage] = "done"
            summary["timings"][stage] = round(perf_counter() - t0, 3)
    return summary


def ground_truth(corpus) -> dict:
    """The demo's ground truth: ``{beats: [...], events: [{id, kind, beat, start, end, ...}]}``.

    Empty lists for a corpus that is not a demo.
    """
    return corpus.get_meta("demo_ground_truth") or {"beats": [], "events": []}
