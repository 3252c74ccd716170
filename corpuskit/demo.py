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

from corpuskit.analysis.signals.evaluate import evaluate as evaluate_signals
from corpuskit.enrich.quality import demo_quality as enrichment_quality
from corpuskit.ingest.demo import build_demo

__all__ = ["build_demo", "enrichment_quality", "evaluate_signals", "ground_truth"]


def ground_truth(corpus) -> dict:
    """The demo's ground truth: ``{beats: [...], events: [{id, kind, beat, start, end, ...}]}``.

    Empty lists for a corpus that is not a demo.
    """
    return corpus.get_meta("demo_ground_truth") or {"beats": [], "events": []}
