"""A :class:`Track`: one tested series (a topic's volume, a source pair's gap...).

Detectors turn :class:`~corpuskit.analysis.signals.series.DailySeries` into
tracks; the lifecycle turns each track's daily sigma scores into signal
episodes. A track knows how to describe itself on a given day (detail and
headline), which topic it belongs to that day, and which records are its
evidence.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np


@dataclass
class Track:
    """One series under test.

    ``sigma`` holds the detector's sigma score per day, NaN where the day is
    not testable (short baseline, too few records) or a gate of the detector
    fails. ``subject`` names the series (``topic:<name>``, ``source:<kind>``,
    ``entity:<slug>``, ``pair:<topic>:<a>|<b>``) and is stable across runs.
    """

    kind: str
    subject: str
    sigma: np.ndarray
    topic_row: Callable[[int], int]                 # topic row the series belongs to on day d (-1: none)
    describe: Callable[[int], tuple[dict, str]]     # (detail, headline) on day d
    entity_id: int | None = None
    source: str | None = None
    threshold_count: Callable[[int], int | None] = field(default=lambda d: None)
    evidence: dict = field(default_factory=dict)    # how to pick evidence records (see evidence.py)

    @property
    def key(self) -> str:
        """Identity of the series across runs: ``kind|subject``."""
        return f"{self.kind}|{self.subject}"


def fmt_num(value: float) -> str:
    """A count or rate for a headline: integers without decimals, else one decimal."""
    return f"{value:.0f}" if abs(value - round(value)) < 0.05 else f"{value:.1f}"


def fmt_score(value: float) -> str:
    """A sentiment score with its sign, two decimals."""
    return f"{value:+.2f}"
