"""``detect``'s shipped defaults are the leave-one-group-out benchmark's recorded choice, and its forms."""
from __future__ import annotations

import inspect
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from corpuskit.analysis.signals import series_scorer
from corpuskit.analysis.signals.volume import VolumeSpikeDetector
from corpuskit.errors import ValidationError
from corpuskit.signals import detect
from corpuskit.stats import shift_model

RECORD = Path(__file__).resolve().parents[1] / "benchmarks" / "detect_defaults.json"


def test_shipped_defaults_are_the_benchmarks_choice():
    """``benchmarks/bench_detect.py --lodo --write`` records the setting chosen on all four NAB groups."""
    choice = json.loads(RECORD.read_text())
    params = inspect.signature(detect).parameters
    assert params["threshold"].default is None
    assert VolumeSpikeDetector.series_threshold == series_scorer.THRESHOLD == choice["threshold"]
    assert params["rhythm"].default == choice["rhythm"]
    assert params["form"].default is None and series_scorer.FORM == choice["form"]
    assert series_scorer.MEASURED_FORM == choice["measured"]
    assert params["materiality"].default is None and series_scorer.MATERIALITY == choice["materiality"]
    assert (shift_model.HISTORY, shift_model.SPAN, series_scorer.SHIFT_SUPPRESSION) \
        == (choice["history"], choice["span"], choice["suppression"])


def _five_minutes(values) -> pd.Series:
    return pd.Series(np.asarray(values, dtype=float),
                     index=pd.date_range("2024-01-01", periods=len(values), freq="5min"))


def test_level_form_finds_a_drop_in_a_measure():
    """A CPU-like measure (fractions, well under one 'count'): the count model cannot see its drop,
    the level form does, and it stays quiet before."""
    rng = np.random.default_rng(3)
    values = 0.5 + 0.02 * rng.standard_normal(288 * 6)
    values[288 * 5 + 100:] = 0.2
    level = detect(_five_minutes(values), form="level", threshold=5.0)
    count = detect(_five_minutes(values), form="count", threshold=5.0)
    drop = 288 * 5 + 100
    assert level["fired"].iloc[drop:drop + 3].any()
    assert not level["fired"].iloc[:drop].any()
    assert not count["fired"].any()


def test_auto_form_reads_the_values():
    idx = pd.date_range("2024-01-01", periods=400, freq="h")
    counts = pd.Series(np.random.default_rng(1).poisson(5, 400).astype(float), index=idx)
    measure = counts - 2.5            # negative values and halves: a measure, not counts
    assert series_scorer.form_of(counts.to_numpy()) == "count"
    assert series_scorer.form_of(measure.to_numpy()) == "level"
    rng = np.random.default_rng(2)
    speed = np.round(60 + 3 * rng.standard_normal(2016))     # whole numbers, steadier than counts
    assert series_scorer.form_of(speed) == "level"
    assert series_scorer.form_of(rng.poisson(60, 2016).astype(float)) == "count"
    assert series_scorer.form_of(np.round(60 + 3 * rng.standard_normal(100))) == "count"   # too few to tell
    assert detect(measure, form="auto")["sigma"].notna().any()
    with pytest.raises(ValidationError, match="non-negative"):
        detect(measure, form="count")
    with pytest.raises(ValidationError, match="form"):
        detect(counts, form="gaussian")
    frame = pd.DataFrame({"sum": np.ones(400), "count": np.full(400, 4.0)}, index=idx)
    with pytest.raises(ValidationError, match="form"):
        detect(frame, kind="sentiment_shift", form="level")
