"""Signal detectors on any series: ``corpuskit.signals.detect``.

The same count model the corpus stages use
(:mod:`corpuskit.stats.count_model`), applied to a researcher's
own pandas series::

    import pandas as pd
    from corpuskit.signals import detect

    counts = pd.Series(values, index=pd.date_range("2024-01-01", periods=len(values), freq="h"))
    scores = detect(counts)                     # volume_spike
    scores[scores.fired]

Every row's score uses only the rows up to and including its timestamp, so the
output equals what a live detector would have said at that moment.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from corpuskit.analysis.signals.kinds import SERIES_KINDS, signal_kind
from corpuskit.analysis.signals.volume import VolumeSpikeDetector
from corpuskit.errors import ValidationError
from corpuskit.stats.thresholds import SEVERITY_THRESHOLDS

#: The kinds ``detect`` runs: every registered kind that declares ``score_series`` (a live view of
#: :func:`corpuskit.analysis.signals.kinds.series_kinds`; the shipped ones: volume_spike, sentiment_shift).
KINDS = SERIES_KINDS

__all__ = ["detect", "KINDS"]


def detect(series, kind: str = VolumeSpikeDetector.kind, *, rhythm: str = "auto", cycles: int | None = None,
           min_history: int | None = None, threshold: float | None = None,
           materiality: float | None = None, form: str | None = None) -> pd.DataFrame:
    """Causal anomaly scores for a regular time series.

    Parameters
    ----------
    series : pandas.Series or pandas.DataFrame
        For ``volume_spike``: a Series of non-negative counts per period with a
        regular ``DatetimeIndex`` (any step: 5 minutes, an hour, a day...).
        NaN marks a period with no data (a collection gap): it scores NaN and
        is left out of later baselines. A measure sampled at irregular instants
        (more than :data:`~corpuskit.analysis.signals.user_series.SAMPLED_SHARE`
        of its steps unlike the median step, as a sensor reporting when it can)
        is accepted for every form but ``count``: it is a measure (``auto`` gives
        it the measured form whatever its values) read row for row at its median
        step (a rhythm's hour of day too is counted on that grid of rows). For ``sentiment_shift``: a DataFrame
        with columns ``sum`` and ``count`` (the sum of the period's sentiment
        scores in [-1, 1] and the number of records) and optionally ``sq``
        (the sum of their squares, for the per-record variance), same index rules.
    kind : {"volume_spike", "sentiment_shift"}
    rhythm : {"auto", "daily", "weekly", "none"}
        The baseline. ``auto`` decides from the series' first week (sub-daily
        series: is there an hour-of-day rhythm?) or first eight weeks (daily
        series: a weekday rhythm?); ``daily`` compares each period with the same
        time on previous days, ``weekly`` with the same weekday on previous
        weeks, ``none`` with the periods just before. ``sentiment_shift``
        always compares with the periods just before (``auto`` or ``none``):
        the mean of the last one, two and three periods against the baseline mean,
        with a random-effects variance (records within a period, periods
        around the baseline; see :mod:`corpuskit.stats.mean_model`),
        the model the corpus sentiment stage runs; at least 5 records.
    cycles : int, optional
        Number of baseline values (days, weeks or preceding blocks); default
        14 days, 8 weeks or 21 blocks.
    min_history : int, optional
        Fewest baseline values for a period to be scored (default 3 with a
        rhythm, 7 without). Earlier periods are the corpus edge: NaN, never fired.
    threshold : float, optional
        Sigma at which a period is ``fired``. Default: the kind's
        ``series_threshold``; ``volume_spike``:
        :data:`~corpuskit.analysis.signals.series_scorer.THRESHOLD` (chosen with
        the form by ``benchmarks/bench_detect.py --lodo``), ``sentiment_shift``:
        the stages' ``OPEN_SIGMA``, 3.
    materiality : float, optional
        ``volume_spike`` on a series finer than a day: the share of a mean
        day's volume that the last two hours must hold above the same two
        hours on the previous 7 days (their median) for a period to fire.
        Default 0.06 (6%); 0 turns the gate off. A 5-minute blip at night can
        be improbable and still add nothing a reader of the day would see.
        Ignored for daily and coarser series, and for steps that do not
        divide a day (no "same two hours on the previous days" to compare).

    form : {"count", "level", "shift", "auto"}, optional
        ``volume_spike`` only. ``count``: the count model (non-negative counts);
        ``level``: a measure of any sign or unit (a CPU share, a speed), tested
        by a robust two-sided z against the same baselines (a drop or a flat
        line counts; no materiality gate), see :mod:`corpuskit.stats.level_model`;
        ``shift``: a measure's departures (a spike, a level shift, a change of
        spread; either way) from the median of its previous
        :data:`~corpuskit.stats.shift_model.HISTORY` periods (after the rhythm's
        same-phase median where there is one), each ranked among the series' own
        earlier departures, see :mod:`corpuskit.stats.shift_model`; the first
        :data:`~corpuskit.stats.shift_model.MIN_SCALE_HISTORY` periods score NaN;
        no calibration or materiality gate;
        ``auto``: ``count`` when the series has regular periods and its warm-up
        (the first week of a sub-daily series, eight weeks of a coarser one) holds
        whole non-negative numbers at least as variable as Poisson counts, else
        :data:`~corpuskit.analysis.signals.series_scorer.MEASURED_FORM` (``shift``). Default
        :data:`~corpuskit.analysis.signals.series_scorer.FORM`.
        ``sentiment_shift`` has one test: leave it unset.

    Returns
    -------
    pandas.DataFrame
        Indexed like the input, one row per timestamp, columns ``sigma`` (NaN
        where the period cannot be tested), ``fired`` (bool), ``severity``
        (``high``/``medium``/``low`` or ``None``), ``expected`` (the baseline's
        predicted count, or mean sentiment), ``baseline_n`` (baseline values
        used), ``onset`` (the period opens an anomaly: material, and its sigma
        above every sigma of the day before; the ``shift`` form: of the
        :data:`~corpuskit.analysis.signals.series_scorer.SHIFT_SUPPRESSION`
        periods before), ``material`` (passes the
        materiality gate; always true where sigma is defined and the gate is
        off), ``calibration`` (``volume_spike``: the factor the model's sigma
        was divided by, from the series' own earlier sigmas, see
        :mod:`corpuskit.stats.calibration`; 1 where the model's tail held or
        the history is short). ``df.attrs["rhythm"]`` records the baseline chosen.

    The ``volume_spike`` sigma is calibrated: on stationary noise of any
    rate, dispersion or seasonality, ``sigma >= 3`` comes up at about the
    nominal 0.135% of periods (a test over simulated series holds every one
    within 8x and their mean within 3x of it); the raw model alone is up to 20x
    over on overdispersed seasonal series.

    Raises
    ------
    ValidationError
        Not a Series/DataFrame, no DatetimeIndex, unsorted index, irregular index (but
        for a measure sampled at irregular instants; a few skipped periods: reindex with NaN), one
        value throughout at irregular instants (a list of events: count them per period first),
        negative values for ``form="count"``, non-numeric or infinite values,
        unknown kind, rhythm or form.
    """
    if kind not in KINDS:
        raise ValidationError(f"kind must be one of {', '.join(KINDS)}; got {kind!r}")
    if rhythm not in ("auto", "daily", "weekly", "none"):
        raise ValidationError(f"rhythm must be auto, daily, weekly or none; got {rhythm!r}")
    for name, value in (("cycles", cycles), ("min_history", min_history)):
        if value is not None and (not isinstance(value, (int, np.integer)) or value < 1):
            raise ValidationError(f"{name} must be a positive integer; got {value!r}")
    if threshold is None:
        threshold = signal_kind(kind).series_threshold
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float, np.number)) \
            or not np.isfinite(threshold) or threshold <= 0:
        raise ValidationError(f"threshold must be a positive number; got {threshold!r}")
    if materiality is not None and (isinstance(materiality, bool) or not isinstance(materiality, (int, float))
                                    or not 0 <= materiality < 1):
        raise ValidationError(f"materiality must be a number in [0, 1); got {materiality!r}")
    scored, plan = signal_kind(kind).score_series(series, rhythm, cycles, min_history, materiality, form)
    sigma = scored["sigma"]
    onset = scored.get("onset", np.isfinite(sigma))
    material = scored.get("material", np.isfinite(sigma))
    fired = (np.nan_to_num(sigma, nan=-np.inf) >= threshold) & onset
    out = pd.DataFrame({"sigma": sigma, "onset": onset, "fired": fired,
                        "severity": [_severity(s) for s in sigma],
                        "expected": scored["expected"], "baseline_n": scored["baseline_n"].astype(int),
                        "material": material,
                        "calibration": scored.get("calibration", np.ones(len(sigma)))},
                       index=series.index)
    out.attrs["rhythm"] = plan.rhythm
    out.attrs["kind"] = kind
    return out


def _severity(sigma: float):
    if not np.isfinite(sigma):
        return None
    for name, level in SEVERITY_THRESHOLDS:
        if sigma >= level:
            return name
    return None
