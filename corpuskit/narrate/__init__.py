"""Narratives: extractive editorial stories with citations, versions, canonical slugs and arcs.

The stage entry point is :func:`corpuskit.narrate.pipeline.narrate_corpus`
(``Corpus.narrate``); the HTTP layer reads through :mod:`corpuskit.narrate.read`.
"""
