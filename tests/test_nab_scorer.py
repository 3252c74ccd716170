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


def test_per_file_ceiling_bounds_the_shared_threshold(tmp_path):
    """bench_nab --variants: each file's own best threshold scores at least the shared one."""
    import json

    from nab_scorer import score_detector
    from nab_variants import _not_suppressed, per_file_ceiling

    (tmp_path / "profiles.json").write_text(json.dumps(
        {"standard": {"CostMatrix": WEIGHTS}, "reward_low_FP_rate": {"CostMatrix": WEIGHTS},
         "reward_low_FN_rate": {"CostMatrix": WEIGHTS}}))
    ts = pd.Series(pd.date_range("2015-01-01", periods=1000, freq="5min"))
    a, b = np.zeros(1000), np.zeros(1000)
    a[500], a[300], a[301] = 0.5, 0.9, 0.95     # file a: its window is weaker than two false alarms
    b[520], b[800] = 0.6, 0.55                   # file b: its window beats its one false alarm
    (tmp_path / "windows.json").write_text(json.dumps(
        {"a.csv": [[str(ts[500]), str(ts[599])]], "b.csv": [[str(ts[500]), str(ts[599])]]}))
    per = {"a.csv": (ts, a), "b.csv": (ts, b)}
    shared = score_detector(per, tmp_path)["standard"][0]
    ceiling = per_file_ceiling(per, tmp_path)
    assert ceiling >= shared - 1e-9
    # ceiling: a at 0.5 (its window's first row, and two false alarms before it), b at 0.6
    # (20 rows into its window, and no false alarm)
    raw = scaled_sigmoid(-1.0) - 2 * 0.11 + scaled_sigmoid(-0.8)
    assert np.isclose(ceiling, normalised(raw, 2, WEIGHTS))
    assert ceiling > shared                      # the shared threshold pays for b's weak false alarm or a's miss
    # suppression: a new onset must beat the best sigma (if >= 3) of the 6 rows before by 25%
    sigma = np.array([1.0, 4.0, 4.5, 5.7, 2.0, np.nan, 9.0])
    assert _not_suppressed(sigma, 6, 1.25).tolist() == [True, True, False, True, False, False, True]


def test_raw_at_matches_the_sweep_and_lofo_uses_no_held_out_file(tmp_path):
    """``raw_at`` at the swept threshold is the swept raw score; the leave-one-file-out choice of
    setting and threshold for a file never depends on that file's scores."""
    import json

    from nab_lofo import lofo, raw_at

    rng = np.random.default_rng(3)
    ts = pd.Series(pd.date_range("2015-01-01", periods=1000, freq="5min"))
    windows, files = {}, {}
    for k in range(3):
        name = f"f{k}.csv"
        windows[name] = [(str(ts[400 + 50 * k]), str(ts[499 + 50 * k]))]
        files[name] = rng.uniform(0, 0.5, 1000)
        files[name][400 + 50 * k + 10] = 0.8
    profile = {"CostMatrix": WEIGHTS}
    (tmp_path / "profiles.json").write_text(json.dumps({"standard": profile}))
    (tmp_path / "windows.json").write_text(json.dumps(windows))
    prepared = [prepare(ts, files[n], windows[n]) for n in sorted(files)]
    threshold, raw = sweep(prepared, WEIGHTS)
    assert np.isclose(raw_at(prepared, threshold, WEIGHTS), raw)
    good = {n: (ts, s) for n, s in files.items()}
    flat = {n: (ts, np.zeros(1000)) for n in files}
    score, folds = lofo({"good": good, "flat": flat}, tmp_path)
    assert [f[1] for f in folds] == ["good"] * 3 and score > 90
    # ruin one file's scores under "good": its own fold's choice cannot see it, the others' can
    spoiled = dict(good, **{"f0.csv": (ts, np.where(np.arange(1000) > 200, 0.9, 0.0))})
    _, folds2 = lofo({"good": spoiled, "flat": flat}, tmp_path)
    assert folds2[0][1:3] == folds[0][1:3] and folds2[0][4] < folds[0][4]
