"""The corpus file: connection (sqlite-vec, sqlean fallback), migrations, transactions."""
from corpuskit.store.connection import connect, driver_name
from corpuskit.store.schema import latest_version, migrate
from corpuskit.store.transaction import transaction

__all__ = ["connect", "driver_name", "latest_version", "migrate", "transaction"]
