"""corpuskit: an offline, reproducible research toolkit for corpora of public discourse.

>>> import corpuskit
>>> corpus = corpuskit.open_corpus("corpus.db")        # doctest: +SKIP
>>> corpus.import_file("posts.csv", source="reddit")   # doctest: +SKIP
>>> corpus.run()                                        # doctest: +SKIP
"""
from corpuskit.corpus import Corpus, open_corpus
from corpuskit.errors import (
    CorpusKitError,
    ImportFormatError,
    NotFoundError,
    SchemaVersionError,
    StoreError,
    StrictImportError,
    ValidationError,
)

__version__ = "0.1.0"

__all__ = [
    "Corpus",
    "CorpusKitError",
    "ImportFormatError",
    "NotFoundError",
    "SchemaVersionError",
    "StoreError",
    "StrictImportError",
    "ValidationError",
    "open_corpus",
    "__version__",
]
