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
    "open_corpus",
    "__version__",
]
