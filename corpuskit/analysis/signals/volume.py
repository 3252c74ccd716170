"""volume_spike: a day's volume far above its robust baseline (``velocity`` in ``/v1``).

Series: records per day per topic, per source, per entity (records
mentioning it) and per term (records writing a proper-noun phrase that is not
an entity, when the series hold terms).

Baseline window: the ``window`` days before the tested day (default 21),
at least ``min_periods`` of them inside the corpus (default 7).

Test: the surge scorer of :mod:`~corpuskit.analysis.signals.surge` (the
count model of :mod:`corpuskit.stats.count_model`: a Gamma-Poisson predictive
of the day's count from the baseline days, widened by the baseline's
variance beyond Poisson), on the baseline windows
:func:`corpuskit.signals.detect` reads with ``rhythm="none"`` on daily
counts. Gates (below them the day scores nothing): ``current >= min_count``
and ``current / max(expected, 1) >= min_multiplier``; topic and source series
need an expected count of at least ``min_baseline``. Entity and term series
are tested from an empty baseline up; the days in novelty's range (at most
the run's ``NoveltyDetector.max_baseline`` mentions in the window, see
:func:`~corpuskit.analysis.signals.surge.in_novelty_range`) are left to
novelty, and so are the weeks holding a day novelty can claim (in its range
and at its ``min_count``), so a name is never both new and spiking; name series have the
stated rate floor ``ENTITY_RATE_FLOOR`` (thousands of names are tested: one
can turn up a few times by chance).

Scales: each series is tested at the day and at the week (the seven days
ending on each day, each day counted up to ``WEEK_DAY_Z`` scales above its own
baseline's median, against the same seven days of the ``week_window`` weeks
before: a thin corpus's biggest events are a few records a day for a few
days); the hour is :mod:`.hourly`'s. One track per series, at the finest
scale that finds the surge: a day scores at the week only when none of the
week's seven days fired on its own; the signal records its scale
(``scale``).

Materiality: a surge must add at least the materiality floor of its period
(``FLOOR_FORM`` at ``FLOOR_SCALE`` of :mod:`corpuskit.stats.thresholds`) and
``min_extra`` records above its expected count.

Detail: ``{baseline, current, multiplier, windowDays, series, scale}``
(``baseline`` is the baseline days' winsorised mean; at the week, the week's
expected count, with ``weekStart`` the week's first day); the signal
fires live on the record that brought the day's count to the threshold
count, the smallest count that passes the gates and scores ``OPEN_SIGMA``.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from corpuskit.analysis.signals.detector import Detector, RecordSpan, SignalWords, novelty_bound
from corpuskit.analysis.signals.series import DailySeries
from corpuskit.analysis.signals.series_scorer import FORM, THRESHOLD, plan_for, score_counts
from corpuskit.analysis.signals.surge import (baseline_total, in_novelty_range, surge_baseline,
                                              surge_sigma)
from corpuskit.analysis.signals.terms import term_slug
from corpuskit.analysis.signals.track import Track, fmt_num
from corpuskit.analysis.signals.user_series import (check_index, check_sampled_values, numeric, sampled_step,
                                                     step_of)
from corpuskit.errors import ValidationError
from corpuskit.stats.count_model import baseline_stats, predictive, tail_sigma, threshold_count
from corpuskit.stats.thresholds import (ENTITY_RATE_FLOOR, FLOOR_FORM, FLOOR_SCALE, MIN_EXTRA,
                                        NOVELTY_MAX_BASELINE, OPEN_SIGMA, WEEK_DAY_Z, WEEK_MULTIPLIER,
                                        WEEK_WINDOW, materiality_floor)
from corpuskit.stats.windows import lagged, rolling_median_mad, seasonal_lags, trailing_sum
from corpuskit.text.wording import fmt_count, fmt_days, fmt_multiplier, long_date

#: Days in a week, the second scale.
WEEK = 7
#: Cells (rows x days) of one group (topics, sources, entities, terms) scored at a time. Every
#: statistic is row-wise (each row's own days), so blocks give the same sigmas as the whole matrix,
#: while the score's temporaries (windows of ``window`` days per cell: 226 MiB for 830 entities over
#: 365 days) stay the size of a block (about 40 MiB) instead of growing with the corpus's names.
SCORE_CELLS = 1 << 16


class VolumeSpikeDetector(Detector):
    """Daily volume against the previous ``window`` days, by the one count model.

    The ``volume_spike`` kind (``velocity`` in ``/v1``): a rising count, whose records are its
    first day, week or hour, and whose stored detail names the series it tested (``series``).

    Parameters
    ----------
    window, min_periods : int
        Baseline length in days, and the fewest baseline days needed to test.
    min_count : int
        Fewest records on the day for a spike.
    min_multiplier : float
        Smallest ratio of the day's count to the baseline median.
    min_baseline, min_entity_baseline : float
        Smallest baseline median for topic/source series and for entity and term series.
    entities : bool
        Also test per-entity (and per-term, when the series hold terms) mention volume.
    floor_form, floor_scale, min_extra : str, float, int
        Materiality: a surge adds at least the floor of form ``floor_form`` at ``floor_scale``
        (:func:`~corpuskit.stats.thresholds.materiality_floor`: ``"share"`` of the corpus's records
        of its period, ``"sqrt"`` times their square root, or ``"expected"`` times the square root of
        the series' own expected count) and at least ``min_extra`` records above its expected count.
    weekly : bool
        Also test each series at the week: the seven days ending on each day against the same seven
        days of the ``week_window`` weeks before (at least ``min_week_periods`` of them), at
        ``week_multiplier`` times its expected count or more (``WEEK_MULTIPLIER`` of
        :mod:`corpuskit.stats.thresholds`; a week's sum is smooth: a dense series would find 1.5x weeks
        significant, which is a trend, not an event); each day counts in a week up to ``week_day_z``
        scales above its own baseline's median (:meth:`week_days`; ``math.inf``: uncapped).
    """

    kind = "volume_spike"
    v1_name = "velocity"
    sign = "up"
    measure = "count"

    def __init__(self, window: int = 21, min_periods: int = 7, min_count: int = 8,
                 min_multiplier: float = 1.5, min_baseline: float = 0.0,
                 min_entity_baseline: float = 0.0, entities: bool = True,
                 floor_form: str = FLOOR_FORM, floor_scale: float = FLOOR_SCALE,
                 min_extra: int = MIN_EXTRA, weekly: bool = True,
                 week_window: int = WEEK_WINDOW, min_week_periods: int = 4,
                 week_multiplier: float = WEEK_MULTIPLIER, week_day_z: float = WEEK_DAY_Z):
        self.window = window
        self.min_periods = min_periods
        self.min_count = min_count
        self.min_multiplier = min_multiplier
        self.min_baseline = min_baseline
        self.min_entity_baseline = min_entity_baseline
        self.entities = entities
        materiality_floor(floor_form, floor_scale, min_extra, None)      # a bad form or scale raises here
        self.floor_form = floor_form
        self.floor_scale = floor_scale
        self.min_extra = min_extra
        self.weekly = weekly
        self.week_window = week_window
        self.min_week_periods = min_week_periods
        self.week_multiplier = week_multiplier
        self.week_day_z = week_day_z

    @property
    def lookback(self) -> int:
        """Days before a tested day that its baselines read (the weekly baseline reaches furthest)."""
        return max(self.window, WEEK * (self.week_window + 1)) if self.weekly else self.window

    def score(self, counts: np.ndarray, min_baseline: float, rate_floor: float = 0.0,
              novelty_range: bool = False, novelty_max_baseline: int = NOVELTY_MAX_BASELINE,
              totals: np.ndarray | None = None):
        """Sigma per row and day, with the expected count and the baseline stats (arrays ``[rows, days]``).

        The third value is ``(n, mean, extra_var)`` of each day's baseline (see
        :func:`~corpuskit.stats.count_model.baseline_stats`). With
        ``novelty_range``, days whose baseline holds at most
        ``novelty_max_baseline`` mentions are left to novelty. ``totals`` (the corpus's records
        per day) sets the materiality floor (:meth:`floor`); without it only ``min_extra`` applies.
        """
        counts = np.asarray(counts, dtype=float)
        base = surge_baseline(counts, self.window, rate_floor)
        with np.errstate(invalid="ignore", divide="ignore"):
            mult = counts / np.maximum(base.mu, 1.0)
        ok = ((counts >= self.min_count) & (mult >= self.min_multiplier) & (base.mu >= min_baseline)
              & (base.n >= self.min_periods))
        floor = self.floor(totals, base.mu)
        ok &= (counts - base.mu >= floor) | (np.asarray(floor) <= 0)      # a zero floor is no floor
        if novelty_range:
            ok &= ~in_novelty_range(baseline_total(counts, self.window), novelty_max_baseline)
        return surge_sigma(counts, base, ok), base.mu, (base.n, base.mean, base.extra)

    def floor(self, totals, expected=None) -> np.ndarray | float:
        """Records a surge must add above its expected count ``expected``, with ``totals`` the corpus's
        records of its period: :func:`~corpuskit.stats.thresholds.materiality_floor` at this
        detector's form and scale, at least ``min_extra``."""
        return materiality_floor(self.floor_form, self.floor_scale, self.min_extra, totals, expected)

    def week_days(self, counts: np.ndarray) -> np.ndarray:
        """Each day's share of the weeks that hold it: its count, at most ``week_day_z`` scales above its
        own baseline's median (the ``window`` days before; uncapped before ``min_periods`` of them).

        The week scale is for a few records a day over several days; a single day far above its
        baseline is the day scale's. Uncapped, one day's clump (a thread writing a silent name five
        times) counted as five independent arrivals in the week's Poisson test, and the week fired
        on 0.002-0.025 of testable days against the model's 0.00135 even with the days of each
        series shuffled (no events, no trend; ``benchmarks/bench_signals_calibration.py``). The
        scale is the count model's own (:func:`~corpuskit.stats.count_model.baseline_stats`): the
        larger of ``1.4826 MAD``, ``sqrt(median)`` and 1, so a silent name counts at most 2 a day.
        """
        counts = np.asarray(counts, dtype=float)
        if not math.isfinite(self.week_day_z):
            return counts
        med, mad, _ = rolling_median_mad(counts, self.window, self.min_periods)
        scale = np.maximum.reduce([1.4826 * np.nan_to_num(mad), np.sqrt(np.maximum(np.nan_to_num(med), 0.0)),
                                   np.ones_like(counts)])
        cap = np.where(np.isfinite(med), np.floor(np.nan_to_num(med) + self.week_day_z * scale), np.inf)
        return np.minimum(counts, cap)

    def week_baseline(self, counts: np.ndarray, rate_floor: float = 0.0):
        """The week ending on each day and its predictive: ``(week, n, mean, extra, mu, var)`` per row and day.

        The week's count (the sum of :meth:`week_days` over the seven days ending on the day) against
        the same sum over the same seven days of each of the ``week_window`` weeks before (see
        :mod:`corpuskit.stats.count_model`); ``rate_floor`` is the floor of the week's expected count.
        """
        week = trailing_sum(self.week_days(counts), WEEK)
        n, mean, extra = baseline_stats(lagged(week, seasonal_lags(WEEK, self.week_window)))
        mu, var = predictive(n, mean, extra, rate_floor=rate_floor)
        return week, n, mean, extra, mu, var

    def score_week(self, counts: np.ndarray, totals: np.ndarray | None, rate_floor: float = 0.0):
        """Sigma per row and day of the week ending that day, with its expected count and records.

        The week is tested by :meth:`week_baseline` (``rate_floor`` a week); gates on the tested sum:
        at least ``min_week_periods`` baseline weeks, ``week_multiplier`` times the expected count,
        and the materiality floor of the week's corpus records. The third value is the week's records
        (uncapped), as the signal reports them.
        """
        week, n, _, _, mu, var = self.week_baseline(counts, rate_floor)
        week_totals = None if totals is None else trailing_sum(np.asarray(totals, dtype=float), WEEK)
        with np.errstate(invalid="ignore", divide="ignore"):
            mult = week / np.maximum(mu, 1.0)
        ok = ((n >= self.min_week_periods) & (mult >= self.week_multiplier) & (week >= self.min_extra)
              & (week - mu >= self.floor(week_totals, mu)) & np.isfinite(week))
        sigma = np.full(week.shape, np.nan)
        if ok.any():
            sigma[ok] = tail_sigma(week[ok], mu[ok], var[ok])
        return sigma, mu, trailing_sum(np.asarray(counts, dtype=float), WEEK)

    def tracks(self, series: DailySeries, peers=()) -> list[Track]:
        """Volume tracks for every topic, source and (optionally) entity and term.

        Name days in the novelty range of the run (the ``max_baseline`` of a
        novelty detector among ``peers``) are novelty's.
        """
        out = []
        groups = [("topic", series.topic_count, self.min_baseline, 0.0),
                  ("source", series.source_count, self.min_baseline, 0.0)]
        if self.entities and len(series.entities):
            groups.append(("entity", series.entity_count, self.min_entity_baseline, ENTITY_RATE_FLOOR))
        if self.entities and len(series.terms):
            groups.append(("term", series.term_count, self.min_entity_baseline, ENTITY_RATE_FLOOR))
        bound = novelty_bound(peers)
        claim = min([getattr(p, "min_count", 1) for p in peers
                     if isinstance(p, Detector) and p.novelty_range() is not None], default=None)
        totals = series.source_count.sum(axis=0) if series.source_count.size else None
        for group, counts, min_base, floor in groups:
            if counts.shape[0] == 0:
                continue
            named = group in ("entity", "term")
            block = max(1, SCORE_CELLS // max(counts.shape[1], 1))
            for lo in range(0, counts.shape[0], block):
                out.extend(self._block_tracks(series, group, counts[lo:lo + block], lo, min_base, floor,
                                              named, bound, totals, claim))
        return out

    def _block_tracks(self, series, group, counts, lo, min_base, floor, named, bound, totals,
                      claim) -> list[Track]:
        """The tracks of one block of a group's rows, ``counts`` (its first row is the group's row ``lo``)."""
        sigma, mu, (n, mean, extra) = self.score(counts, min_base, floor, named, bound, totals)
        week = self.score_week(counts, totals, floor) if self.weekly else None
        if week is not None and named and claim is not None:
            # a week holding a day that novelty can claim (a new name written at least its
            # min_count times) is novelty's: a name is never both new and spiking
            new = in_novelty_range(baseline_total(counts, self.window), bound) & (counts >= claim)
            claimed = trailing_sum(new.astype(float), WEEK) > 0
            week = (np.where(claimed, np.nan, week[0]), week[1], week[2])
        out = []
        for i in range(counts.shape[0]):
            weekly = None
            fired = np.any(sigma[i] >= OPEN_SIGMA)
            if week is not None and np.any(week[0][i] >= OPEN_SIGMA):
                # copies: a track keeps its own row, not a view holding the block's arrays
                weekly = (week[0][i].copy(), week[1][i].copy(), week[2][i].copy())
                fired = True
            if not fired:
                continue
            stats = (n[i].copy(), mean[i].copy(), extra[i].copy(), floor)
            out.append(self._track(series, group, lo + i, counts[i], sigma[i].copy(), mean[i].copy(),
                                   stats, weekly))
        return out

    def _track(self, series, group, row, counts, sigma, med, stats, weekly=None) -> Track:
        window = self.window
        n, mean, extra, floor = stats
        day_sigma = sigma
        if weekly is not None:
            # one track per series, at the finest scale that finds the surge: a week is tested only
            # when none of its seven days fired on its own
            week_sigma, week_mu, week_count = weekly
            day_fired = trailing_sum((np.nan_to_num(day_sigma, nan=-np.inf) >= OPEN_SIGMA).astype(float), WEEK)
            use_week = (day_fired == 0) & (np.nan_to_num(week_sigma, nan=-np.inf) >= OPEN_SIGMA)
            sigma = np.where(use_week, week_sigma, day_sigma)
        else:
            use_week = np.zeros(len(counts), dtype=bool)

        def threshold(d):
            """Smallest count that passes the gates and scores ``OPEN_SIGMA`` on day ``d`` (``None``
            at the week: a weekly surge is detected at the end of the day that completes it)."""
            if use_week[d]:
                return None
            m = max(float(med[d]), 1.0)
            start = int(max(self.min_count, math.ceil(self.min_multiplier * m)))
            c = threshold_count(n[d], mean[d], extra[d], OPEN_SIGMA, start=start, rate_floor=floor)
            return int(min(max(c, start), counts[d]))

        if group == "topic":
            tid = series.topics[row]
            name, label = series.topic_names[tid], series.topic_labels[tid]
            subject, entity_id, source = f"topic:{name}", None, None
            topic_row = lambda d, r=row: r  # noqa: E731
            evidence = {"topic_id": tid}

            def subject_text(d):
                return f"Volume on {label}"
        elif group == "source":
            source = series.sources[row]
            subject, entity_id = f"source:{source}", None
            topic_row = lambda d, r=row: int(series.source_topic[r, d])  # noqa: E731
            evidence = {"source": source}

            def subject_text(d):
                t = topic_row(d)
                lead = f", led by {series.topic_labels[series.topics[t]]}" if t >= 0 else ""
                return f"Volume from {source}{lead}"
        else:                                   # a name: an entity, or a term that is none
            if group == "term":
                term = series.terms[row]
                entity_id, slug, topics = None, term_slug(term), series.term_topic
                evidence, what = {"term": term}, f"Records writing \"{term}\""
            else:
                entity_id = series.entities[row]
                ename, slug, _ = series.entity_info.get(entity_id, (str(entity_id), str(entity_id), ""))
                topics, evidence, what = series.entity_topic, {"entity_id": entity_id}, f"Mentions of {ename}"
            subject, source = f"{group}:{slug}", None
            topic_row = lambda d, r=row, a=topics: int(a[r, d])  # noqa: E731

            def subject_text(d):
                t = topic_row(d)
                where = f" in {series.topic_labels[series.topics[t]]}" if t >= 0 else ""
                return f"{what}{where}"

        term_key = {"term": evidence["term"]} if group == "term" else {}    # what a story names as its subject

        def describe(d):
            if use_week[d]:
                baseline = round(float(week_mu[d]), 2)
                current = int(week_count[d])
                multiplier = round(current / max(baseline, 1.0), 2)
                first = series.days[max(d - WEEK + 1, 0)]
                detail = {"baseline": baseline, "current": current, "multiplier": multiplier,
                          "windowDays": WEEK * self.week_window, "series": group, "day": series.days[d],
                          "scale": "week", "weekStart": first, **term_key}
                times = current / max(baseline, 1.0)    # rounded once, for the headline
                headline = (f"{subject_text(d)} up {times:.1f}x in the week {first} to {series.days[d]} "
                            f"({current} vs {fmt_num(baseline)}/week)")
                return detail, headline
            baseline = round(float(med[d]), 2)
            current = int(counts[d])
            multiplier = round(current / max(baseline, 1.0), 2)
            detail = {"baseline": baseline, "current": current, "multiplier": multiplier,
                      "windowDays": window, "series": group, "day": series.days[d], "scale": "day", **term_key}
            headline = (f"{subject_text(d)} up {current / max(baseline, 1.0):.1f}x "
                        f"({current} vs {fmt_num(baseline)}/day)")
            return detail, headline

        return Track(kind=self.kind, subject=subject, sigma=sigma, topic_row=topic_row,
                     describe=describe, entity_id=entity_id, source=source,
                     threshold_count=threshold, evidence=evidence)

    # -- the kind's facts (see :class:`~corpuskit.analysis.signals.detector.Detector`) ---------------
    @classmethod
    def record_span(cls, detail: dict, start: str, peak: str) -> RecordSpan:
        """An hourly burst's records are its hour (detail ``hour``); otherwise a count's."""
        if detail.get("hour"):
            return RecordSpan(start, start, detail["hour"])
        return super().record_span(detail, start, peak)

    @classmethod
    def series_name(cls, signal: dict) -> str | None:
        """The series the detail names (``topic``, ``source``, ``entity``, ``term``, ``topic-hourly``)."""
        return signal["detail"].get("series")

    @classmethod
    def prose(cls, w: SignalWords) -> tuple[str, str] | None:
        """``"<subject>: 35 posts in a day, 23x the usual 2"``, or in one hour for an hourly burst."""
        d = w.detail
        if "current" not in d:
            return None
        current, base = int(d["current"]), float(d.get("baseline") or 0)
        mult = fmt_multiplier(d.get("multiplier") or current / max(base, 1.0))
        # Against a baseline under one a day a multiplier says little ("8x fewer than one"): say "usually none".
        quiet = base < 1
        if d.get("hour"):
            hour = str(d["hour"])[11:16]
            versus = "against usually none" if quiet else f"{mult} the usual {fmt_count(base)}"
            headline = f"{w.short}: {fmt_count(current)} posts in one hour, {versus}"
            framing = (f"In the hour from {hour} UTC on {w.day}, {fmt_count(current)} records on {w.full} appeared, "
                       f"{'where that hour usually has fewer than one' if quiet else versus + ' for that hour'}"
                       f" ({w.strength}).")
        elif d.get("scale") == "week":   # a seven-day count: said as one, never as a day's
            first = long_date(d.get("weekStart") or d.get("day"))
            versus = "against usually none" if quiet else f"{mult} the usual {fmt_count(base)} a week"
            headline = f"{w.short}: {fmt_count(current)} posts in 7 days, {versus}"
            usual = ("against fewer than one a week on average before" if quiet
                     else f"{mult} the average of {fmt_count(base)} a week before")
            framing = (f"In the 7 days from {first} to {w.day}, {fmt_count(current)} records on {w.full} appeared, "
                       f"{usual} ({w.strength}).")
        else:
            versus = "against usually none" if quiet else f"{mult} the usual {fmt_count(base)}"
            headline = f"{w.short}: {fmt_count(current)} posts in a day, {versus}"
            usual = (f"against fewer than one a day on average over the previous {fmt_days(w.window)}" if quiet
                     else f"{mult} the average of {fmt_count(base)} a day over the previous {fmt_days(w.window)}")
            framing = (f"On {w.day}, {fmt_count(current)} records on {w.full} appeared in one day, {usual} "
                       f"({w.strength}).")
        return headline, framing

    #: ``detect``'s default threshold on a researcher's series (chosen with the form on NAB).
    series_threshold = THRESHOLD

    @staticmethod
    def score_series(series, rhythm, cycles, min_history, materiality, form=None):
        """The series scorer (:mod:`.series_scorer`) on a Series of counts per period (``form``
        ``count``), of a measure (``level`` or ``shift``), or either, decided from its values (``auto``);
        ``None``: :data:`~.series_scorer.FORM`. A series sampled at irregular instants
        (:func:`~.user_series.sampled_step`) is a measure, read row for row at its median step."""
        form = FORM if form is None else form
        if not isinstance(series, pd.Series):
            raise ValidationError("volume_spike needs a pandas Series of values per period; "
                                  f"got {type(series).__name__}")
        if form not in ("count", "level", "shift", "auto"):
            raise ValidationError(f"form must be count, level, shift or auto; got {form!r}")
        index = check_index(series.index)
        values = numeric(series, "the series")
        if form == "count" and np.any(values[np.isfinite(values)] < 0):
            raise ValidationError("counts must be non-negative (form='level' tests a measure of any sign)")
        sampled = sampled_step(index) if form != "count" else None
        if sampled is None:
            step = step_of(index)
        else:           # a measure sampled at irregular instants: its rows, one per median step
            values, step = check_sampled_values(values), sampled
            index = pd.date_range(index[0], periods=len(index), freq=step)
        plan = plan_for(values, index, step, rhythm, cycles, min_history, materiality, form,
                        sampled=sampled is not None)
        if rhythm == "daily" and step >= pd.Timedelta(days=1):
            raise ValidationError("rhythm='daily' needs a series finer than a day")
        if rhythm == "weekly" and step != pd.Timedelta(days=1):
            raise ValidationError("rhythm='weekly' needs a daily series")
        return score_counts(values, plan), plan
