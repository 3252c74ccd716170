"""The :class:`~corpuskit.corpus.Corpus` methods on one noun. API keys for the servers."""
from __future__ import annotations

from corpuskit.clock import wall_clock


class KeyMethods:
    """API keys for the servers."""

    def create_key(self, tier: str = "free", name: str = "", per_minute: int | None = None,
                   per_day: int | None = None, prefix: str = "ck_") -> str:
        """Create an API key starting with ``prefix`` and return it (the only time it is available)."""
        from corpuskit.store.api_keys import create_key

        return create_key(self.conn, tier=tier, name=name, per_minute=per_minute,
                          per_day=per_day, now=wall_clock(), prefix=prefix)
