"""The NAB scorer of benchmarks/bench_nab.py: NAB's rules on a toy file, and the published table."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

from tests.conftest import SHARED_DATASETS, need_shared

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from nab_scorer import normalised, prepare, scaled_sigmoid, sweep  # noqa: E402

WEIGHTS = {"tpWeight": 1.0, "fpWeight": 0.11, "fnWeight": 1.0}


def test_scaled_sigmoid():
    assert np.isclose(scaled_sigmoid(-1.0), 0.98661, atol=1e-5)
    assert np.isclose(scaled_sigmoid(0.0), 0.0) and scaled_sigmoid(3.5) == -1.0


def test_toy_file_rules():
    ts = pd.Series(pd.date_range("2015-01-01", periods=1000, freq="5min"))
    window = [(str(ts[500]), str(ts[599]))]
    scores = np.zeros(1000)
    scores[500] = 0.9                   # a detection at the window's first row
    scores[100] = 0.5                   # in the probationary period (first 150 rows): ignored
    scores[800] = 0.7                   # a false positive long after the window
    f = prepare(ts, scores, window)
    threshold, raw = sweep([f], WEIGHTS)
    assert threshold == 0.9 and np.isclose(raw, scaled_sigmoid(-1.0))
    assert np.isclose(normalised(raw, 1, WEIGHTS), 100.0)
    scores[500] = 0.6                   # now the FP comes first in the sweep: both count, or none
    threshold, raw = sweep([prepare(ts, scores, window)], WEIGHTS)
    assert threshold == 0.6 and np.isclose(raw, scaled_sigmoid(-1.0) - 0.11)
    # a constant score detects every row or none: here none is better (the null score, -fnWeight)
    assert sweep([prepare(ts, np.zeros(1000), window)], WEIGHTS) == (1.1, -1.0)


def test_published_table_reproduced():
    nab = need_shared(SHARED_DATASETS / "nab" / "windows.json").parent
    from bench_nab import verify_scorer

    rows = verify_scorer(nab)
    assert len(rows) == 9
    assert max(abs(r[4]) for r in rows) <= 0.5, rows
