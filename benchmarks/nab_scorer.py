"""NAB's scoring rules (Numenta Anomaly Benchmark v1.1), written from its description.

The reference is NAB's ``nab/sweeper.py`` and ``nab/runner.py`` (Lavin & Ahmad
2015); ``../shared/datasets/nab/README.md`` summarises them. This module is
checked against three published detectors' raw outputs by
``benchmarks/bench_nab.py --verify`` (their table figures reproduce to within
0.5).

Rules, per file of ``n`` rows:

* the first ``min(floor(0.15 n), 0.15 * 5000)`` rows are probationary and are
  not scored;
* a row inside a labelled window (inclusive ends) scores, if it is the best
  (earliest) detection in that window, ``tpWeight * sigmoid_pos`` with
  ``sigmoid_pos = 2 / (1 + exp(5 x)) - 1`` and ``x = -(right - i + 1) / width``
  (about +0.987 at the window's start, near 0 at its end); a window without a
  detection scores ``-fnWeight``;
* a detection outside every window scores ``fpWeight * sigmoid_pos`` where
  ``x = |i - right_prev| / (width_prev - 1)`` is its distance past the previous
  window (``-1`` if there is none; ``x > 3`` also scores ``-1``), so a
  detection soon after a window costs less than one far from any;
* the threshold is swept over every distinct score value and the one that
  maximises the total over all files is kept (per profile);
* the total is normalised to ``100 * (raw - null) / (perfect - null)``, with
  ``null = -fnWeight * windows`` and ``perfect`` the score of a detector that
  fires on the first row of every window (``tpWeight * 0.9866`` per window;
  with ``tpWeight * windows`` instead, the published figures come out about
  0.5 lower).
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

PROBATION_PERCENT = 0.15


def scaled_sigmoid(x: np.ndarray) -> np.ndarray:
    """NAB's ``scaledSigmoid``: ``2 * sigmoid(-5 x) - 1``, and ``-1`` past ``x > 3``."""
    x = np.asarray(x, dtype=float)
    val = 2.0 / (1.0 + np.exp(5.0 * x)) - 1.0
    return np.where(x > 3.0, -1.0, val)


def probation_length(n: int) -> int:
    return int(min(math.floor(PROBATION_PERCENT * n), PROBATION_PERCENT * 5000))


@dataclass
class FileRows:
    """One file's rows prepared for the sweep: per-row weighted scores and window ids."""

    scores: np.ndarray        # the detector's anomaly scores
    tp_part: np.ndarray       # unweighted in-window value (NaN outside windows)
    fp_part: np.ndarray       # unweighted out-of-window value (NaN inside windows)
    window: np.ndarray        # window number inside the file, -1 outside
    scored: np.ndarray        # False in the probationary period
    n_windows: int


def prepare(timestamps: pd.Series, scores: np.ndarray, windows: list) -> FileRows:
    """Per-row sweep values of one file (NAB ``calcSweepScore``)."""
    ts = pd.to_datetime(pd.Series(timestamps)).reset_index(drop=True)
    n = len(ts)
    pos = {t: i for i, t in enumerate(ts)}
    bounds = [(pos[pd.Timestamp(a)], pos[pd.Timestamp(b)]) for a, b in windows]
    window = np.full(n, -1)
    tp_part = np.full(n, np.nan)
    fp_part = np.full(n, np.nan)
    idx = np.arange(n)
    prev_right, prev_width = None, None
    cursor = 0
    for w, (left, right) in enumerate(bounds):
        width = float(right - left + 1)
        outside = idx[cursor:left]
        fp_part[cursor:left] = _past_window(outside, prev_right, prev_width)
        inside = idx[left:right + 1]
        tp_part[left:right + 1] = scaled_sigmoid(-(right - inside + 1) / width)
        window[left:right + 1] = w
        prev_right, prev_width = right, width
        cursor = right + 1
    fp_part[cursor:] = _past_window(idx[cursor:], prev_right, prev_width)
    scored = idx >= probation_length(n)
    return FileRows(np.asarray(scores, dtype=float), tp_part, fp_part, window, scored, len(bounds))


def _past_window(i: np.ndarray, prev_right, prev_width) -> np.ndarray:
    if prev_right is None:
        return np.full(len(i), -1.0)
    return scaled_sigmoid(np.abs(prev_right - i) / (prev_width - 1.0))


def sweep(files: list[FileRows], weights: dict) -> tuple[float, float]:
    """``(best_threshold, best_raw_score)`` over all files scored together (NAB ``optimizeThreshold``).

    Rows are visited in descending score order; a threshold is recorded after
    the last row of each distinct score value, so a threshold ``t`` means
    "detect where score >= t". No detection at all (threshold above every
    score) is also a candidate.
    """
    tp_w, fp_w, fn_w = weights["tpWeight"], weights["fpWeight"], weights["fnWeight"]
    scores, gain, offset_windows = [], [], 0
    win_ids, tp_vals = [], []
    for f in files:
        keep = f.scored
        s = f.scores[keep]
        w = f.window[keep]
        scores.append(s)
        fp = np.where(w < 0, np.nan_to_num(f.fp_part[keep]) * fp_w, 0.0)
        gain.append(fp)
        win_ids.append(np.where(w >= 0, w + offset_windows, -1))
        tp_vals.append(np.where(w >= 0, np.nan_to_num(f.tp_part[keep]) * tp_w, 0.0))
        offset_windows += f.n_windows
    s = np.concatenate(scores)
    fp = np.concatenate(gain)
    wid = np.concatenate(win_ids)
    tpv = np.concatenate(tp_vals)
    order = np.argsort(-s, kind="stable")
    s, fp, wid, tpv = s[order], fp[order], wid[order], tpv[order]
    # window parts: each window's best value so far is max(-fn, best detection); as the
    # threshold falls, a window's best only rises, so track it incrementally
    best = np.full(offset_windows, -fn_w)
    total = -fn_w * offset_windows
    best_score, best_threshold = total, 1.1
    n = len(s)
    for i in range(n):
        if wid[i] < 0:
            total += fp[i]
        else:
            w = wid[i]
            if tpv[i] > best[w]:
                total += tpv[i] - best[w]
                best[w] = tpv[i]
        if i == n - 1 or s[i + 1] != s[i]:
            if total > best_score:
                best_score, best_threshold = total, s[i]
    return float(best_threshold), float(best_score)


def normalised(raw: float, n_windows: int, weights: dict) -> float:
    null = -weights["fnWeight"] * n_windows
    perfect = weights["tpWeight"] * float(scaled_sigmoid(-1.0)) * n_windows
    return 100.0 * (raw - null) / (perfect - null)


def load_profiles(nab_dir: Path) -> dict:
    data = json.loads((nab_dir / "profiles.json").read_text())
    return {name: p["CostMatrix"] for name, p in data.items()}


def load_windows(nab_dir: Path) -> dict:
    return json.loads((nab_dir / "windows.json").read_text())


def score_detector(per_file_scores: dict, nab_dir: Path) -> dict:
    """NAB scores of one detector: ``{profile: (normalised, threshold)}``.

    ``per_file_scores`` maps a data file name (``Twitter_volume_AAPL.csv``) to a
    ``(timestamps, scores)`` pair.
    """
    windows = load_windows(nab_dir)
    files = [prepare(ts, sc, windows[name]) for name, (ts, sc) in sorted(per_file_scores.items())]
    n_windows = sum(f.n_windows for f in files)
    out = {}
    for profile, weights in load_profiles(nab_dir).items():
        threshold, raw = sweep(files, weights)
        out[profile] = (normalised(raw, n_windows, weights), threshold)
    return out
