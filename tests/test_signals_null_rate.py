"""On a stationary Poisson corpus every detector fires at no more than its nominal rate.

The corpus (``tests/signal_fixture.py`` without events): three topics with Poisson counts a day
and uniform hours, three sources drawn at random, 18 entities mentioned at a fixed rate, sentiment
drawn from one normal distribution throughout. Nothing changes, so every signal is a false alarm.
Each detector of the run (one of every registered kind, from the signal-kind registry) opens no more
signals than the one-sided (two-sided for a kind whose sign is ``both``) tail at ``OPEN_SIGMA``
allows over the tests it makes, at the 99.9% Poisson quantile; its tests are counted generously from
the series it reads (every day of every series it could test), so the bound is an upper one.
Measured (seed 13, 70 days of 90 records a topic): the daily volume detector opens 1 (12 allowed),
the others none; with the hourly detector's correction for its 24 looks removed it opens 5 (3
allowed) and the test fails."""
from __future__ import annotations

import json

from scipy.stats import norm, poisson

from corpuskit import open_corpus
from corpuskit.analysis.signals import detect_signals, kinds
from corpuskit.analysis.signals.replay import default_detectors
from corpuskit.analysis.signals.series import load_series
from corpuskit.stats.thresholds import OPEN_SIGMA
from tests.signal_fixture import build_fixture


def _tests_per_day(detector, series) -> int:
    """How many series a day the detector could test (an upper count; see the module docstring)."""
    topics, sources, entities = len(series.topics), len(series.sources), len(series.entities)
    name = type(detector).__name__
    return {"VolumeSpikeDetector": 2 * (topics + sources + entities + len(series.terms)),   # day and week
            "HourlyVolumeDetector": topics,                                          # a day's hours, corrected
            "SentimentShiftDetector": topics,
            "NoveltyDetector": entities + len(series.terms) + 1,                     # + the phrase stream
            "DivergenceDetector": topics * sources}.get(name, topics + sources + entities)


def test_every_detector_fires_at_no_more_than_its_nominal_rate(tmp_path):
    c = open_corpus(tmp_path / "null.db")
    build_fixture(c, days=70, per_day=90, seed=13, events=False)   # 3.75 an hour: hours testable
    detectors = default_detectors()
    assert {d.kind for d in detectors} == set(kinds.kind_names())     # every registered kind is run
    detect_signals(c, "null", detectors=detectors)
    series = load_series(c, terms=True)
    days = len(series.days)
    fired: dict = {}
    for kind, detail in c.conn.execute("SELECT kind, detail FROM signals"):
        hourly = bool(json.loads(detail).get("hour"))
        fired[(kind, hourly)] = fired.get((kind, hourly), 0) + 1
    for d in detectors:
        sides = 2 if kinds.signal_kind(d.kind).sign == "both" else 1
        expected = sides * norm.sf(OPEN_SIGMA) * days * _tests_per_day(d, series)
        allowed = int(poisson.ppf(0.999, expected))
        got = fired.get((d.kind, type(d).__name__ == "HourlyVolumeDetector"), 0)
        assert got <= allowed, (type(d).__name__, got, allowed, expected)
    c.close()
