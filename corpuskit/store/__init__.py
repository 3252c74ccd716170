"""The corpus file: connection (sqlite-vec, sqlean fallback), migrations, transactions."""
from corpuskit.store.connection import connect, connect_read_only, driver_name
from corpuskit.store.schema import latest_version, migrate
from corpuskit.store.transaction import transaction

__all__ = ["connect", "connect_read_only", "driver_name", "latest_version", "migrate", "transaction"]
