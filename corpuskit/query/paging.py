"""One page of a longer result, as plain data (the HTTP envelope is built in ``corpuskit.api``)."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Page:
    """``rows`` of a result of ``total`` rows, read from ``offset`` with at most ``limit`` rows."""

    rows: list
    total: int
    limit: int
    offset: int

    @property
    def has_more(self) -> bool:
        """True when rows remain after this page."""
        return self.offset + len(self.rows) < self.total
