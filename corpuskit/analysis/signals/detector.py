"""The :class:`Detector` base: what the replay asks of every detector.

A detector stores its parameters in ``__init__`` (they are its settings: the
replay fingerprints ``vars(detector)``), names its ``kind`` and turns the daily
series into :class:`~corpuskit.analysis.signals.track.Track` objects.
Detectors run together; ``peers`` (every detector of the run) lets one range
of the surge scorer leave to another what that one claims
(see :meth:`Detector.novelty_range`).
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Sequence

from corpuskit.analysis.signals.series import DailySeries
from corpuskit.analysis.signals.track import Track
from corpuskit.stats.thresholds import NOVELTY_MAX_BASELINE


class Detector(ABC):
    """One kind of signal over the daily series."""

    kind: str = ""

    @abstractmethod
    def tracks(self, series: DailySeries, peers: Sequence["Detector"] = ()) -> list[Track]:
        """The tracks whose sigma reaches ``OPEN_SIGMA`` on some day."""

    def novelty_range(self) -> int | None:
        """Most baseline mentions of a name this detector reports as new (``None``: it claims no range)."""
        return None


def novelty_bound(peers: Sequence[Detector]) -> int:
    """The novelty range of a run: the largest one a peer claims (``NOVELTY_MAX_BASELINE`` if none does)."""
    claimed = [r for r in (p.novelty_range() for p in peers if isinstance(p, Detector)) if r is not None]
    return max(claimed) if claimed else NOVELTY_MAX_BASELINE
