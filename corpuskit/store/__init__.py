"""The corpus file: connection (sqlite-vec, sqlean fallback), migrations, transactions, and
:class:`CorpusFile`, what the layers below the ``Corpus`` facade take."""
from corpuskit.store.connection import connect, connect_read_only, driver_name
from corpuskit.store.corpus_file import CorpusFile
from corpuskit.store.schema import latest_version, migrate
from corpuskit.store.transaction import transaction

__all__ = ["CorpusFile", "connect", "connect_read_only", "driver_name", "latest_version", "migrate", "transaction"]
