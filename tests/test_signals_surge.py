"""Volume, novelty and hourly bursts as ranges of one surge scorer: one boundary, names and terms alike."""
from __future__ import annotations

import numpy as np

from corpuskit.analysis.signals import NoveltyDetector, SentimentShiftDetector, VolumeSpikeDetector
from corpuskit.analysis.signals.detector import Detector, novelty_bound
from corpuskit.analysis.signals.series import DailySeries
from corpuskit.analysis.signals.surge import in_novelty_range
from corpuskit.stats.thresholds import NOVELTY_MAX_BASELINE, OPEN_SIGMA

DAYS = [f"2025-01-{d:02d}" for d in range(1, 31)] + [f"2025-02-{d:02d}" for d in range(1, 11)]


def _series(entity_count: np.ndarray, term_count: np.ndarray | None = None) -> DailySeries:
    n_days = entity_count.shape[1]
    empty = np.zeros((0, n_days))
    terms = [] if term_count is None else [f"Term Number{i}" for i in range(term_count.shape[0])]
    return DailySeries(
        days=DAYS[:n_days], topics=[], topic_names={}, topic_labels={}, sources=[],
        entities=list(range(1, entity_count.shape[0] + 1)),
        entity_info={i: (f"Name {i}", f"name-{i}", "person") for i in range(1, entity_count.shape[0] + 1)},
        topic_count=empty, topic_sum=empty, topic_sq=empty,
        ts_count=np.zeros((0, 0, n_days)), ts_sum=np.zeros((0, 0, n_days)), ts_sq=np.zeros((0, 0, n_days)),
        source_count=empty, source_topic=np.zeros((0, n_days), dtype=int),
        entity_count=entity_count, entity_topic=np.full(entity_count.shape, -1),
        terms=terms, term_count=empty if term_count is None else term_count,
        term_topic=np.zeros((0, n_days), dtype=int) if term_count is None else np.full(term_count.shape, -1))


def _firing(tracks) -> set:
    """``(subject, day)`` of every track day at or above ``OPEN_SIGMA``."""
    return {(t.subject, d) for t in tracks for d in np.flatnonzero(np.nan_to_num(t.sigma) >= OPEN_SIGMA)}


def _low_baseline_names(rows: int = 3) -> np.ndarray:
    """Names with 2, 3 and 3 baseline mentions, then 14 records on day 30."""
    counts = np.zeros((rows, 40))
    counts[0, [12, 20]] = 1
    counts[1, [10, 15, 22]] = 1
    counts[2, 18] = 3
    counts[:, 30] = 14
    return counts


def test_a_wider_novelty_range_is_left_to_novelty_by_volume():
    """``NoveltyDetector(max_baseline=3)``: names with 2-3 baseline mentions are new, and only new.

    Before the boundary was one expression, volume tested a module constant (1) and
    reported the same days as spikes: both kinds fired for one surge.
    """
    series = _series(_low_baseline_names())
    novelty, volume = NoveltyDetector(max_baseline=3), VolumeSpikeDetector()
    peers = [volume, novelty]
    new = _firing(novelty.tracks(series, peers))
    spiking = _firing(volume.tracks(series, peers))
    assert new == {("entity:name-1", 30), ("entity:name-2", 30), ("entity:name-3", 30)}
    assert not new & spiking
    # on its own (no novelty detector in the run) volume keeps the default range and speaks
    assert _firing(volume.tracks(series)) == new
    assert novelty_bound(peers) == 3 and novelty_bound([volume]) == NOVELTY_MAX_BASELINE


def test_the_default_ranges_split_a_name_exactly_once():
    counts = np.zeros((4, 40))
    counts[0, 30] = 12                       # brand new
    counts[1, [25]] = 1                      # one earlier mention: still new
    counts[1, 30] = 12
    counts[2, [12, 20]] = 1                  # two: volume's
    counts[2, 30] = 12
    counts[3, [5, 9, 14, 20]] = 1            # four ("Norway"), then a surge
    counts[3, 30] = 11
    series = _series(counts)
    novelty, volume = NoveltyDetector(), VolumeSpikeDetector()
    new = _firing(novelty.tracks(series, [volume, novelty]))
    spiking = _firing(volume.tracks(series, [volume, novelty]))
    assert new == {("entity:name-1", 30), ("entity:name-2", 30)}
    assert spiking == {("entity:name-3", 30), ("entity:name-4", 30)}
    assert in_novelty_range(np.array([0, 1, 2]), 1).tolist() == [True, True, False]


def test_terms_take_the_same_surge_path_as_entities():
    """A term with a few earlier mentions that surges is a volume spike, as an entity would be."""
    counts = _low_baseline_names()
    series = _series(counts, term_count=counts.copy())
    novelty, volume = NoveltyDetector(), VolumeSpikeDetector()
    spiking = volume.tracks(series, [volume, novelty])
    subjects = {t.subject for t in spiking}
    assert {"term:term-number0", "term:term-number1", "term:term-number2"} <= subjects
    assert {s.split(":")[0] for s in subjects} == {"entity", "term"}
    term = next(t for t in spiking if t.subject == "term:term-number1")
    detail, headline = term.describe(30)
    assert detail["series"] == "term" and detail["current"] == 14
    assert headline.startswith('Records writing "Term Number1" up')
    assert term.evidence == {"term": "Term Number1"}
    assert 8 <= term.threshold_count(30) <= 14
    assert not _firing(novelty.tracks(series, [volume, novelty])) & _firing(spiking)


def test_every_detector_is_a_detector():
    for det in (NoveltyDetector(), VolumeSpikeDetector(), SentimentShiftDetector()):
        assert isinstance(det, Detector)
    assert NoveltyDetector(max_baseline=2).novelty_range() == 2
    assert VolumeSpikeDetector().novelty_range() is None
