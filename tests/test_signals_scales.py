"""The time scale a corpus supports: volume is tested at the day and at the week, the signal records the
scale it fired at, and the materiality floor is on the scale of the series' own expected count, so a thin and
a dense corpus both surface a new name."""
from __future__ import annotations

import math
from datetime import date, timedelta

import numpy as np
import pytest

from corpuskit.analysis.signals import NoveltyDetector, VolumeSpikeDetector
from corpuskit.analysis.signals.series import DailySeries
from corpuskit.stats.count_model import tail_sigma
from corpuskit.stats.thresholds import (ENTITY_RATE_FLOOR, FLOOR_FORM, FLOOR_SCALE, MIN_EXTRA, OPEN_SIGMA, WEEK_DAY_Z,
                                        materiality_floor)

N_DAYS = 120
DAYS = [(date(2016, 1, 1) + timedelta(days=i)).isoformat() for i in range(N_DAYS)]


def _series(topic_count: np.ndarray, other: float) -> DailySeries:
    """One topic row of interest beside a background source of ``other`` records a day."""
    n_t = topic_count.shape[0]
    ts = topic_count[:, None, :].copy()
    source = topic_count.sum(axis=0, keepdims=True) + other
    return DailySeries(
        days=DAYS, topics=list(range(1, n_t + 1)), topic_names={i: f"t{i}" for i in range(1, n_t + 1)},
        topic_labels={i: f"Topic {i}" for i in range(1, n_t + 1)}, sources=["s"], entities=[], entity_info={},
        topic_count=topic_count, topic_sum=np.zeros_like(topic_count), topic_sq=np.zeros_like(topic_count),
        ts_count=ts, ts_sum=np.zeros_like(ts), ts_sq=np.zeros_like(ts), source_count=source,
        source_topic=np.zeros((1, N_DAYS), dtype=int), entity_count=np.zeros((0, N_DAYS)),
        entity_topic=np.zeros((0, N_DAYS), dtype=int))


def _thin(seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.poisson(0.1, (1, N_DAYS)).astype(float)


def _fired(track) -> list[int]:
    return list(np.flatnonzero(np.nan_to_num(track.sigma, nan=-1) >= OPEN_SIGMA))


def test_a_thin_burst_fires_at_the_week_and_says_so():
    """10 records over a week (2 or 1 a day) from near zero, in a corpus of 50 a day: no day is
    enough on its own, the week is."""
    counts = _thin()
    counts[0, 90:97] += [2, 2, 1, 2, 1, 1, 1]
    series = _series(counts, other=50)
    det = VolumeSpikeDetector(entities=False)
    tracks = [t for t in det.tracks(series) if t.subject == "topic:t1"]
    assert tracks
    days = _fired(tracks[0])
    assert days and 90 <= days[0] <= 96
    detail, headline = tracks[0].describe(days[0])
    assert detail["scale"] == "week" and detail["weekStart"] == DAYS[days[0] - 6]
    assert f"in the week {DAYS[days[0] - 6]} to {DAYS[days[0]]}" in headline and "/week)" in headline
    assert detail["current"] == int(counts[0, days[0] - 6:days[0] + 1].sum())
    # without the weekly scale the corpus never sees it
    assert not [t for t in VolumeSpikeDetector(entities=False, weekly=False).tracks(series)
                if t.subject == "topic:t1"]


def test_a_day_that_fires_is_reported_at_the_day_not_again_at_the_week():
    counts = _thin(1)
    counts[0, 80] += 25
    series = _series(counts, other=50)
    track = next(t for t in VolumeSpikeDetector(entities=False).tracks(series) if t.subject == "topic:t1")
    days = _fired(track)
    assert days[0] == 80
    assert all(track.describe(d)[0]["scale"] == "day" for d in days if d <= 86)


def test_the_floor_is_on_the_expected_counts_scale():
    """The floor is FLOOR_SCALE square roots of the expected count (at least 1), never below MIN_EXTRA, and
    does not read the corpus's volume: the same 12-record burst on a quiet topic is material in a corpus of
    50 a day and in one of 5,000 a day."""
    assert FLOOR_FORM == "expected"
    det = VolumeSpikeDetector(entities=False)
    expected = np.array([0.0, 0.5, 4.0, 400.0])
    assert det.floor(np.array([50.0, 50.0, 5000.0, 5000.0]), expected).tolist() == \
        [MIN_EXTRA, MIN_EXTRA, max(FLOOR_SCALE * 2, MIN_EXTRA), FLOOR_SCALE * 20]
    assert det.floor(None) == MIN_EXTRA and det.floor(np.array([50.0]), None) == MIN_EXTRA
    counts = _thin(2)
    counts[0, 70] += 12
    for other in (50, 5000):
        tracks = [t for t in det.tracks(_series(counts, other=other)) if t.subject == "topic:t1"]
        assert tracks and 70 in _fired(tracks[0])
    # the share of the corpus (the form before) hides it in the dense corpus
    share = VolumeSpikeDetector(entities=False, floor_form="share", floor_scale=0.0025)
    dense = [t for t in share.tracks(_series(counts, other=5000)) if t.subject == "topic:t1"]
    assert not dense or 70 not in _fired(dense[0])


def test_the_floor_forms_and_bad_settings():
    totals, expected = np.array([400.0, 10000.0]), np.array([9.0, 9.0])
    assert materiality_floor("share", 0.01, 3, totals).tolist() == [4.0, 100.0]
    assert materiality_floor("sqrt", 0.5, 3, totals).tolist() == [10.0, 50.0]
    assert materiality_floor("expected", 2.0, 3, totals, expected).tolist() == [6.0, 6.0]
    assert materiality_floor("sqrt", 0.5, 3, None) == 3.0
    for form, scale, extra in (("half", 1.0, 3), ("share", -0.1, 3), ("sqrt", math.nan, 3), ("expected", 1.0, -1)):
        with pytest.raises(ValueError):
            materiality_floor(form, scale, extra, totals, expected)
    with pytest.raises(ValueError, match="unknown materiality floor form"):
        VolumeSpikeDetector(floor_form="corpus")


def _names_series(counts: np.ndarray, other: float, topic_rate: float = 0.0, seed: int = 0) -> DailySeries:
    """Name rows ``counts`` in a corpus of ``other`` records a day (one busy topic at ``topic_rate``)."""
    topic = np.random.default_rng(seed).poisson(topic_rate, (1, N_DAYS)).astype(float)
    series = _series(topic, other=other)
    series.entities = list(range(1, counts.shape[0] + 1))
    series.entity_info = {i: (f"Name {i}", f"name-{i}", "org") for i in series.entities}
    series.entity_count, series.entity_topic = counts, np.full(counts.shape, -1)
    return series


@pytest.mark.parametrize("other", [50, 10000])
def test_a_new_name_at_10_a_week_surfaces_in_a_thin_and_a_dense_corpus(other):
    """A name never seen before, written 10 times over a week (1 or 2 a day), is found by the volume
    detector's week or by novelty in a corpus of 50 records a day and in one of 10,000; the share floor
    found it only in the thin one."""
    counts = np.zeros((1, N_DAYS))
    counts[0, 90:97] = [2, 2, 1, 2, 1, 1, 1]
    series = _names_series(counts, other)

    def found(volume):
        novelty = NoveltyDetector(terms=False)
        peers = [volume, novelty]
        return any(90 <= d <= 100 for det in peers for t in det.tracks(series, peers)
                   if t.subject == "entity:name-1" for d in _fired(t))

    assert found(VolumeSpikeDetector())
    assert found(VolumeSpikeDetector(floor_form="share", floor_scale=0.0025)) == (other == 50)


def test_a_dense_corpus_is_not_flooded():
    """In a corpus of 10,000 records a day, stationary names (0.3 to 3 a day) and a busy topic
    (400 a day) fire on at most 0.5% of their testable days, at either scale."""
    rng = np.random.default_rng(11)
    counts = rng.poisson(np.repeat([0.3, 1.0, 3.0], 20)[:, None], (60, N_DAYS)).astype(float)
    series = _names_series(counts, other=10000, topic_rate=400.0, seed=12)
    det = VolumeSpikeDetector()
    tracks = det.tracks(series, peers=[det, NoveltyDetector(terms=False)])
    names = sum(len(_fired(t)) for t in tracks if t.subject.startswith("entity:"))
    topic = sum(len(_fired(t)) for t in tracks if t.subject == "topic:t1")
    testable = N_DAYS - 63
    assert names / (60 * testable) <= 0.005 and topic / testable <= 0.005


@pytest.mark.parametrize("rate", [0.3, 3.0, 30.0])
def test_a_stationary_series_rarely_fires_at_either_scale(rate):
    rng = np.random.default_rng(int(rate * 10))
    counts = rng.poisson(rate, (40, N_DAYS)).astype(float)
    series = _series(counts, other=50)
    fired = sum(len(_fired(t)) for t in VolumeSpikeDetector(entities=False).tracks(series)
                if t.subject.startswith("topic:"))
    assert fired / (40 * (N_DAYS - 63)) <= 0.01


def test_a_week_novelty_can_claim_is_left_to_novelty():
    counts = np.zeros((1, N_DAYS))
    counts[0, 90] = 12
    series = _series(np.zeros((1, N_DAYS)), other=50)
    series.entities, series.entity_info = [7], {7: ("Name", "name", "org")}
    series.entity_count, series.entity_topic = counts, np.full((1, N_DAYS), -1)
    volume, novelty = VolumeSpikeDetector(), NoveltyDetector(terms=False)
    assert any(90 in _fired(t) for t in novelty.tracks(series, [volume, novelty]))
    assert not any(_fired(t) for t in volume.tracks(series, [volume, novelty]) if t.subject == "entity:name")


def _name_series(counts: np.ndarray) -> DailySeries:
    series = _series(np.zeros((1, N_DAYS)), other=50)
    series.entities, series.entity_info = [7], {7: ("Name", "name", "org")}
    series.entity_count, series.entity_topic = counts[None, :], np.full((1, N_DAYS), -1)
    return series


def test_a_one_day_clump_is_not_a_week():
    """A silent name written 4 times on one day (below the day's threshold) and once more that week:
    the week counts the clump's day at 2 (WEEK_DAY_Z scales above an empty baseline) and stays
    quiet; the same 5 records on 5 days open the week; uncapped, the clump opened it too."""
    clump, spread = np.zeros(N_DAYS), np.zeros(N_DAYS)
    clump[[92, 95]] = [4, 1]
    spread[92:97] = 1
    det, uncapped = VolumeSpikeDetector(), VolumeSpikeDetector(week_day_z=math.inf)

    def week_fired(d, counts):
        return [x for t in d.tracks(_name_series(counts)) if t.subject == "entity:name" for x in _fired(t)]

    assert not week_fired(det, clump)
    assert week_fired(uncapped, clump)
    days = week_fired(det, spread)
    assert days and det.tracks(_name_series(spread))[0].describe(days[0])[0]["scale"] == "week"
    assert det.week_days(clump[None, :])[0, 92] == 2 and det.week_days(clump[None, :])[0, 95] == 1
    # the signal reports the week's records, not the capped sum it tested
    _, _, records = det.score_week(clump[None, :], None, 0.5)
    assert records[0, 95] == 5


def test_clumped_days_of_a_stationary_name_rarely_fire_at_the_week():
    """Names whose mentions come in same-day clumps of 3 to 5 at a constant rate: with the day cap the
    week fires on at most 0.5% of testable days; uncapped it read the clumps as arrivals."""
    rng = np.random.default_rng(7)
    counts = rng.binomial(1, 0.04, (60, N_DAYS)) * rng.integers(3, 6, (60, N_DAYS))
    shares = []
    for z in (WEEK_DAY_Z, math.inf):
        det = VolumeSpikeDetector(week_day_z=z)
        week, n, _, _, mu, var = det.week_baseline(counts.astype(float), ENTITY_RATE_FLOOR)
        testable = n >= det.min_week_periods
        shares.append(float((tail_sigma(week, mu, var)[testable] >= OPEN_SIGMA).mean()))
    assert shares[0] <= 0.005 < shares[1]


def test_the_run_settings_carry_the_floor_so_a_new_floor_replays():
    """The floor's form and scale are in the thresholds, and so in the replay's settings (a stored replay
    state made under the share floor no longer matches: the first analyse replays in full)."""
    from corpuskit.analysis.signals.replay import SignalReplay
    from corpuskit.stats.thresholds import thresholds

    assert thresholds()["floorForm"] == FLOOR_FORM and thresholds()["floorScale"] == FLOOR_SCALE
    settings = SignalReplay().settings()
    assert settings["thresholds"]["floorForm"] == FLOOR_FORM
    assert settings["thresholds"]["floorScale"] == FLOOR_SCALE


def test_every_detector_reaches_the_run_settings_even_two_of_one_kind():
    """The daily and hourly volume detectors share a kind; a custom daily detector must still change
    the settings (so a stored replay made with other parameters replays in full)."""
    from corpuskit.analysis.signals.hourly import HourlyVolumeDetector
    from corpuskit.analysis.signals.replay import SignalReplay, default_detectors, detector_settings

    settings = detector_settings(default_detectors())
    assert "volume_spike/VolumeSpikeDetector" in settings and "volume_spike/HourlyVolumeDetector" in settings
    custom = [VolumeSpikeDetector(floor_scale=4.0), HourlyVolumeDetector()]
    assert (SignalReplay(detectors=custom).settings()["detectors"]
            != SignalReplay(detectors=[VolumeSpikeDetector(), HourlyVolumeDetector()]).settings()["detectors"])
    with pytest.raises(ValueError, match="same class"):
        detector_settings([VolumeSpikeDetector(), VolumeSpikeDetector()])
