"""Severity of a signal from its sigma score: the one place the thresholds live.

A detector reports a *sigma score*: how many robust standard deviations the
current value of its statistic lies from its baseline (see each detector's
docstring for the statistic and the scale). Severity is a pure function of
that score, shared by every kind:

====================  ==========
sigma score           severity
====================  ==========
>= ``HIGH_SIGMA``     high
>= ``MEDIUM_SIGMA``   medium
>= ``OPEN_SIGMA``     low
below                 no signal
====================  ==========

``OPEN_SIGMA`` is also the threshold of the open/resolve rule in
:mod:`corpuskit.analysis.signals.lifecycle`: a series whose statistic reaches
it opens a signal; the signal resolves after ``QUIET_DAYS`` consecutive days
below it.
"""
from __future__ import annotations

import math

HIGH_SIGMA = 6.0
MEDIUM_SIGMA = 4.5
OPEN_SIGMA = 3.0
QUIET_DAYS = 2

SEVERITY_THRESHOLDS = (("high", HIGH_SIGMA), ("medium", MEDIUM_SIGMA), ("low", OPEN_SIGMA))
SEVERITY_ORDER = {"low": 0, "medium": 1, "high": 2}


def severity_for(sigma: float) -> str | None:
    """``high``, ``medium`` or ``low`` for a sigma score; ``None`` below ``OPEN_SIGMA``."""
    if sigma is None or not math.isfinite(sigma):
        return None
    for name, threshold in SEVERITY_THRESHOLDS:
        if sigma >= threshold:
            return name
    return None


def thresholds() -> dict:
    """The thresholds as a plain dict (for run settings, notebooks and benchmarks)."""
    return {"high": HIGH_SIGMA, "medium": MEDIUM_SIGMA, "low": OPEN_SIGMA,
            "quietDays": QUIET_DAYS}
