"""corpuskit: an offline, reproducible research toolkit for corpora of public discourse.

>>> import corpuskit
>>> corpus = corpuskit.open_corpus("corpus.db")        # doctest: +SKIP
>>> corpus.import_file("posts.csv", source="reddit")   # doctest: +SKIP
>>> corpus.run()                                        # doctest: +SKIP
>>> corpus.signals(severity="high")                     # doctest: +SKIP

Every derived table is a DataFrame from a ``Corpus`` method (``records``, ``topics``,
``signals``, ``clusters``, ``entities``, ``stories``, ``snapshots``, ...); figures are in
:mod:`corpuskit.plot`, the demo corpus in :mod:`corpuskit.demo`, live collection in
:mod:`corpuskit.collect`, the HTTP app in :mod:`corpuskit.api`.
"""
from corpuskit.corpus import Corpus, open_corpus
from corpuskit.errors import (
    CorpusKitError,
    ImportFormatError,
    MissingDependencyError,
    NotFoundError,
    SchemaVersionError,
    StoreError,
    StrictImportError,
    ValidationError,
)

from corpuskit.version import __version__


def explore(corpus, a: str = "", b: str = "", freq: str = "W", mode: str = "share"):
    """The notebook explorer on ``corpus`` (:class:`corpuskit.explorer.Explorer`; needs ipywidgets
    and bqplot): queries A and B, filters, attention over time and linked panes. docs/explore.md."""
    from corpuskit.explorer import explore as _explore

    return _explore(corpus, a=a, b=b, freq=freq, mode=mode)

__all__ = [
    "Corpus",
    "CorpusKitError",
    "ImportFormatError",
    "MissingDependencyError",
    "NotFoundError",
    "SchemaVersionError",
    "StoreError",
    "StrictImportError",
    "ValidationError",
    "explore",
    "open_corpus",
    "__version__",
]
