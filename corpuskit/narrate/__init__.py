"""Narratives: extractive editorial stories with citations, versions, canonical slugs and arcs.

The stage entry point is :func:`corpuskit.narrate.pipeline.narrate_corpus`
(``Corpus.narrate``, ``corpuskit narrate --db DB``); the HTTP layer reads
through :mod:`corpuskit.narrate.read`. To plug in your own writer::

    from corpuskit.narrate import StoryWriter

    class MyWriter(StoryWriter):
        name = "my-llm"
        def write(self, evidence):          # a StoryEvidence
            ...                             # cite evidence.records[i] as [i+1]
            return {"headline": ..., "lede": ..., "body": ..., "summary": ...}

    corpus.narrate(writer=MyWriter())

The names below are imported on first use, so reading stories does not load
scikit-learn.
"""
from importlib import import_module

_LAZY = {
    "Narrator": "corpuskit.narrate.pipeline",
    "narrate_corpus": "corpuskit.narrate.pipeline",
    "StoryWriter": "corpuskit.narrate.writer",
    "ExtractiveWriter": "corpuskit.narrate.writer",
    "StoryEvidence": "corpuskit.narrate.evidence",
    "EvidenceRecord": "corpuskit.narrate.evidence",
}

__all__ = sorted(_LAZY)


def __getattr__(name):
    if name in _LAZY:
        return getattr(import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'corpuskit.narrate' has no attribute {name!r}")
