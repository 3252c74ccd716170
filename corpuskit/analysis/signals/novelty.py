"""novelty: an entity that was (almost) absent from the baseline becoming prominent.

Series: per entity and day, the number of records mentioning it; and per
*term* (a proper-noun phrase that is not a known entity name, see
:mod:`~corpuskit.analysis.signals.terms`), the number of records writing it.

Baseline window: the ``window`` days before the tested day (default 21);
the tested day must have at least ``min_periods`` corpus days before it, so
the first days of a corpus do not make every name "new".

Test: the low end of the surge scorer
(:mod:`~corpuskit.analysis.signals.surge`) that also scores volume
spikes: with ``b`` mentions in the baseline and ``c`` on the day, the name
is novelty's when ``b <= max_baseline`` and ``c >= min_count`` (above
``max_baseline`` the same test reports it as a ``volume_spike``: the volume
detector of the same run leaves this range to novelty). The day's
count is tested against the Gamma-Poisson predictive from the baseline days,
with the stated rate floor ``rate_floor`` (a name nobody mentioned can still
turn up by chance a few times; thousands of names are tested). The sigma
score grows with the number of mentions: with the defaults, 6 mentions score
about 4.3 sigma, 8 about 5.4 and 10 about 6.4.

Detail: ``{entity, entityId, entityType, mentions, baselineMentions,
windowDays, topic}``; the signal fires live on the record that brought the
day's mentions to the threshold count.

With ``phrases``, novelty also tests lower-case words and two-word phrases new in a burst
(:mod:`~corpuskit.analysis.signals.phrases`: no use in ``window`` days, then at least the corpus's
calibrated number of distinct authors within ``phrase_span`` days); their detail says
``subjectKind: "phrase"``.
"""
from __future__ import annotations

import numpy as np

from corpuskit.analysis.signals.detector import Detector, SignalWords
from corpuskit.analysis.signals.phrases import PHRASE_FLOOR_SHARE, PHRASE_SPAN, phrase_tracks, phrase_window
from corpuskit.analysis.signals.series import DailySeries
from corpuskit.analysis.signals.surge import (baseline_total, in_novelty_range, surge_baseline,
                                              surge_sigma)
from corpuskit.analysis.signals.terms import term_slug
from corpuskit.analysis.signals.track import Track
from corpuskit.stats.count_model import threshold_count
from corpuskit.stats.thresholds import ENTITY_RATE_FLOOR, NOVELTY_MAX_BASELINE, OPEN_SIGMA
from corpuskit.text import display_text
from corpuskit.text.wording import fmt_count, fmt_days, topic_name


def _firing(sigma: np.ndarray) -> np.ndarray:
    """Rows whose sigma reaches ``OPEN_SIGMA`` on some day."""
    if sigma.size == 0:
        return np.zeros(0, dtype=int)
    return np.flatnonzero(np.nanmax(np.where(np.isfinite(sigma), sigma, -1), axis=1) >= OPEN_SIGMA)


class NoveltyDetector(Detector):
    """A name absent from the last ``window`` days mentioned by many records in one day.

    The ``novelty`` kind (the same name in ``/v1``): a rising count whose open signal says its
    entity is new; its records are the day's records naming it (a phrase's, from its fresh start).

    Parameters
    ----------
    window, min_periods : int
        Baseline length in days; the fewest corpus days before a testable day.
    max_baseline : int
        Most baseline mentions for the entity to still count as absent.
    min_count : int
        Fewest records mentioning it on the day.
    rate_floor : float
        Floor of the null Poisson rate, in mentions per day.
    terms : bool
        Also test proper-noun phrases that are not known entities
        (:mod:`~corpuskit.analysis.signals.terms`): names the entity extractor missed.
    phrases : bool
        Also test lower-case phrases new in a burst (:mod:`~corpuskit.analysis.signals.phrases`);
        ``phrase_span`` and ``phrase_floor_share`` are its span and threshold floor. The threshold
        calibrated on the corpus's null is kept in ``phrase_calibration_`` after :meth:`tracks`.
    """

    kind = "novelty"
    v1_name = "novelty"
    sign = "up"
    measure = "count"
    names_new_entity = True

    def __init__(self, window: int = 21, min_periods: int = 7, max_baseline: int = NOVELTY_MAX_BASELINE,
                 min_count: int = 6, rate_floor: float = ENTITY_RATE_FLOOR, terms: bool = True,
                 phrases: bool = True, phrase_span: int = PHRASE_SPAN,
                 phrase_floor_share: float = PHRASE_FLOOR_SHARE):
        self.window = window
        self.phrases = phrases
        self.phrase_span = phrase_span
        self.phrase_floor_share = phrase_floor_share
        self.terms = terms
        self.min_periods = min_periods
        self.max_baseline = max_baseline
        self.min_count = min_count
        self.rate_floor = rate_floor

    def novelty_range(self) -> int:
        """Names with at most ``max_baseline`` baseline mentions are this detector's."""
        return self.max_baseline

    def score(self, counts: np.ndarray):
        """``(sigma, baseline)`` per name and day."""
        counts = np.asarray(counts, dtype=float)
        base = baseline_total(counts, self.window)
        days = np.arange(counts.shape[-1])
        ok = in_novelty_range(base, self.max_baseline) & (counts >= self.min_count) & (days >= self.min_periods)
        sigma = np.full(counts.shape, np.nan)
        if ok.any():
            at = np.nonzero(ok)                    # only the candidate days: names are many
            baseline = surge_baseline(counts, self.window, self.rate_floor, at=at)
            sigma[at] = surge_sigma(counts[at], baseline, np.ones(len(at[0]), dtype=bool))
        return sigma, base

    def tracks(self, series: DailySeries, peers=()) -> list[Track]:
        """One track per entity (and, with ``terms``, per term; with ``phrases``, per phrase) that is novel
        on some day."""
        out = []
        if len(series.entities):
            sigma, base = self.score(series.entity_count)
            for row in _firing(sigma):
                out.append(self._track(series, int(row), sigma[row], base[row]))
        if self.terms and len(series.terms):
            sigma, base = self.score(series.term_count)
            for row in _firing(sigma):
                out.append(self._term_track(series, int(row), sigma[row], base[row]))
        if self.phrases and series.phrase_index is not None:
            found, self.phrase_calibration_ = phrase_tracks(series, series.phrase_index, self.window,
                                                            self.phrase_span, self.phrase_floor_share,
                                                            kind=self.kind)
            out += found
        return out

    def _term_track(self, series, row, sigma, base) -> Track:
        term = series.terms[row]
        return self._novel_track(series, series.term_count[row], series.term_topic[row], sigma, base,
                                 ident={"entity": term, "term": term, "entityId": None, "entityType": None},
                                 shown=f"\"{term}\"", unit="records", subject=f"term:{term_slug(term)}",
                                 evidence={"term": term})

    def threshold(self, baseline: float) -> int:
        """Fewest mentions on a day that reach ``OPEN_SIGMA`` with this baseline count."""
        n = self.window
        c = threshold_count(n, float(baseline) / n, 0.0, OPEN_SIGMA, start=self.min_count,
                            rate_floor=self.rate_floor)
        return max(int(c), self.min_count)

    def _track(self, series, row, sigma, base) -> Track:
        entity_id = series.entities[row]
        name, slug, etype = series.entity_info.get(entity_id, (str(entity_id), str(entity_id), ""))
        return self._novel_track(series, series.entity_count[row], series.entity_topic[row], sigma, base,
                                 ident={"entity": name, "entityId": entity_id, "entityType": etype},
                                 shown=name, unit="mentions", subject=f"entity:{slug}",
                                 evidence={"entity_id": entity_id}, entity_id=entity_id)

    def _novel_track(self, series, counts, topic_of, sigma, base, *, ident: dict, shown: str, unit: str,
                     subject: str, evidence: dict, entity_id=None) -> Track:
        """The track of one name (an entity or a term) whose daily ``counts`` are novel on some day."""
        window = self.window

        def topic_row(d):
            return int(topic_of[d])

        def describe(d):
            t = topic_row(d)
            topic = series.topic_names[series.topics[t]] if t >= 0 else None
            where = f" in {series.topic_labels[series.topics[t]]}" if t >= 0 else ""
            detail = {**ident, "mentions": int(counts[d]), "baselineMentions": int(base[d]),
                      "windowDays": window, "topic": topic, "day": series.days[d]}
            headline = (f"New{where}: {shown} ({int(counts[d])} {unit}; "
                        f"{int(base[d])} in the previous {window} days)")
            return detail, headline

        return Track(kind=self.kind, subject=subject, sigma=sigma, topic_row=topic_row, describe=describe,
                     entity_id=entity_id, threshold_count=lambda d: self.threshold(base[d]),
                     evidence=evidence)

    # -- the kind's facts (see :class:`~corpuskit.analysis.signals.detector.Detector`) ---------------
    @classmethod
    def prose(cls, w: SignalWords) -> tuple[str, str] | None:
        """``"<name> emerges in posts on <topic>: 8 mentions, against none in the previous 21 days"``."""
        d = w.detail
        if d.get("subjectKind") == "phrase":
            return _phrase_prose(w)
        name = w.entity["name"] if w.entity is not None else display_text(str(d.get("entity") or d.get("term") or ""))
        where = topic_name(w.beat, short=True)
        mentions, base = int(d.get("mentions") or 0), int(d.get("baselineMentions") or 0)
        was = "none" if base == 0 else fmt_count(base)
        headline = (f"{name} emerges{' in posts on ' + where if where else ''}: {fmt_count(mentions)} mentions, "
                    f"against {was} in the previous {fmt_days(w.window)}")
        framing = (f"On {w.day}, {name} was mentioned {fmt_count(mentions)} times"
                   f"{' in posts on ' + topic_name(w.beat) if where else ''}, against {was} in the previous "
                   f"{fmt_days(w.window)} ({w.strength}).")
        return headline, framing

    @classmethod
    def detects_planted(cls, event: dict, detail: dict) -> bool:
        """A novelty finds a planted one when it names the event's entity."""
        return str(detail.get("entity", "")).lower() == event["entity"]["name"].lower()


def _phrase_prose(w: SignalWords) -> tuple[str, str]:
    """A phrase burst's headline and framing: its records and authors over the window they were
    counted in (never a window's total told as a day's), and the names whose records it leaves out."""
    d = w.detail
    where = topic_name(w.beat, short=True)
    first, last = d.get("weekStart") or d["day"], d.get("lastDay") or d["day"]
    counted = phrase_window(int(d.get("records") or 0), int(d.get("authors") or 0), first, last,
                            d.get("notCounting") or ())
    window = fmt_days(w.window)
    headline = f"'{d['phrase']}' is new{' in posts on ' + where if where else ''}: {counted}"
    framing = (f"The phrase '{d['phrase']}' was written in {counted}, after none in the {window} before "
               f"({w.strength}).")
    return headline, framing
