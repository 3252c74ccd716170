"""Variants of ``detect``'s volume test on NAB, to see which changes carry (``bench_nab.py --variants``).

Each variant is the engine behind :func:`corpuskit.signals.detect`
(:func:`~corpuskit.analysis.signals.series_scorer.score_counts` with the plan
``detect`` chooses) with one principled setting changed: the trailing scales
(multi-scale evidence, or a lasting rise alone), the baseline (the same time on previous days, or the
day just before, or four days before), or a short suppression after an onset
(within 30 minutes a new onset must beat the last one by 25%).

The materiality gate (:data:`~corpuskit.analysis.signals.series_scorer.MATERIALITY`,
on by default since it was measured here) and, to explain the gap to ARTime
rather than to choose a default, a gate that is NOT causal: ARTime (the best
published detector here) rescales each file by its minimum and maximum, which
NAB hands every detector before the first row (``inputMin``/``inputMax``),
and flattens any value within 7.5% of that range of the running median. The
same gate on this engine's onsets shows what that knowledge of the future is
worth; :func:`corpuskit.signals.detect` is causal and cannot use it.

For each variant three figures (standard profile):

* ``5 files``: NAB's score with one threshold swept over the five files (as
  the published table);
* ``per-file ceiling``: the score if each file had its own best threshold, an
  upper bound on what any per-file calibration of the same scores could reach
  (how well the variant separates a file's windows from its other detections);
* the leave-one-file-out choice: for each file, the variant that scores best on
  the other four; the composite (each file scored by the variant chosen
  without it, one threshold over the five) shows whether choosing among the
  variants carries to a file not used to choose.
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from nab_scorer import load_profiles, load_windows, normalised, prepare, score_detector, sweep

SUPPRESS = (6, 1.25)   # 30 minutes of 5-minute rows; a new onset must be 25% stronger


class _LongerBaseline:
    """A plan whose no-rhythm baseline spans ``days`` days instead of one."""

    def __init__(self, plan, days: int):
        self.plan, self.days = plan, days

    def __getattr__(self, name):
        return getattr(self.plan, name)

    def lags(self, scale: int) -> np.ndarray:
        if self.plan.rhythm != "none":
            return self.plan.lags(scale)
        span = max(self.days * int(pd.Timedelta(days=1) / self.plan.step) // scale, self.plan.cycles)
        return scale * np.arange(1, span + 1)


VARIANTS = {  # the settings before 2026-11-26 (materiality 3%) are kept, so the candidate set is unchanged
    "detect defaults (5 min + 2 h, materiality 6%, calibration tail 0.1%)": {},
    "materiality 3% (default before 2026-11-26)": {"materiality": 0.03},
    "no materiality gate": {"materiality": 0.0},
    "materiality 1%": {"materiality": 0.01},
    "scales 5 min + 1 h, no gate (defaults before 2026-11-25)": {"scales": (1, 12), "materiality": 0.0},
    "scales 5 min + 1 h, materiality 3%": {"scales": (1, 12), "materiality": 0.03},
    "scale 5 min only, materiality 3%": {"scales": (1,), "materiality": 0.03},
    "scales 5 min + 3 h, materiality 3%": {"scales": (1, 36), "materiality": 0.03},
    "scale 2 h only (a lasting rise), materiality 3%": {"scales": (24,), "materiality": 0.03},
    "same time on 14 previous days (all files), materiality 3%": {"rhythm": "daily", "materiality": 0.03},
    "previous 24 h (all files), materiality 3%": {"rhythm": "none", "materiality": 0.03},
    "previous 4 days (no-rhythm files), materiality 3%": {"baseline_days": 4, "materiality": 0.03},
    "30-min suppression, materiality 3%": {"suppress": SUPPRESS, "materiality": 0.03},
    "defaults + whole-file range gate (not causal)": {"file_range": 0.075},
}


#: Calibration tails the leave-one-file-out procedure chooses among, crossed with every causal
#: variant: the default (0.1%, checked near the thresholds that open anomalies, sigma 3 to 4
#: here), 0.5%, and 2.3% (where the model's sigma 2 is checked; the default before 2026-11-26).
CALIBRATION_TAILS = (0.001, 0.005, 0.02275)


def lofo_candidates() -> dict:
    """``{name: settings}``: every causal variant at every calibration tail (the default tail keeps
    the variant's own name)."""
    out = {}
    for tail in CALIBRATION_TAILS:
        for name, settings in VARIANTS.items():
            if not causal(settings):
                continue
            if tail == CALIBRATION_TAILS[0]:
                out[name] = settings
            else:
                out[f"{name}; calibration tail {tail:.1%}"] = {**settings, "calibration_tail": tail}
    return out


def causal(settings: dict) -> bool:
    """Whether a variant reads only the past (the whole-file range gate does not)."""
    return "file_range" not in settings


def variant_scores(series: dict, settings: dict, to_score) -> dict:
    """``{file: (timestamps, scores)}`` of one variant."""
    from corpuskit.analysis.signals import series_scorer as engine

    per = {}
    for name, (ts, s) in series.items():
        values = s.to_numpy(float)
        step = pd.Timedelta(s.index[1] - s.index[0])
        plan = engine.plan_for(values, s.index, step, settings.get("rhythm", "auto"),
                               materiality=settings.get("materiality"))
        if "scales" in settings:
            plan = dataclasses.replace(plan, scales=settings["scales"])
        if "calibration_tail" in settings:
            plan = dataclasses.replace(plan, calibration_tail=settings["calibration_tail"])
        if "baseline_days" in settings:
            plan = _LongerBaseline(plan, settings["baseline_days"])
        out = engine.score_counts(values, plan)
        sigma, onset = out["sigma"], out["onset"]
        if "suppress" in settings:
            onset = onset & _not_suppressed(sigma, *settings["suppress"])
        if "file_range" in settings:
            onset = onset & _above_file_range(values, step, settings["file_range"])
        per[name] = (ts, to_score(sigma, onset))
    return per


def _above_file_range(values: np.ndarray, step: pd.Timedelta, chomp: float) -> np.ndarray:
    """ARTime's flattening, with the whole file's range (known in advance only on a benchmark)."""
    per_day = int(pd.Timedelta(days=1) / step)
    spike = pd.Series(values).rolling(7, min_periods=1).max()
    median = pd.Series(values).shift(1).rolling(7 * per_day, min_periods=per_day).median()
    span = max(float(np.nanmax(values) - np.nanmin(values)), 1.0)
    return np.nan_to_num(((spike - median) / span).to_numpy(), nan=-np.inf) > chomp


def _not_suppressed(sigma: np.ndarray, rows: int, ratio: float) -> np.ndarray:
    s = np.nan_to_num(sigma, nan=-np.inf)
    prev = pd.Series(s).shift(1).rolling(rows, min_periods=1).max().to_numpy()
    prev = np.nan_to_num(prev, nan=-np.inf)
    with np.errstate(over="ignore", invalid="ignore"):
        need = np.where(prev >= 3.0, prev * ratio, prev)
    return s > need


def per_file_ceiling(per: dict, nab, profile: str = "standard") -> float:
    weights = load_profiles(nab)[profile]
    windows = load_windows(nab)
    files = [prepare(ts, sc, windows[n]) for n, (ts, sc) in sorted(per.items())]
    raw = sum(sweep([f], weights)[1] for f in files)
    return normalised(raw, sum(f.n_windows for f in files), weights)


def run(series: dict, nab, to_score) -> tuple[list, list, dict]:
    """``(rows, lofo_rows, composite)``: the variants' table, the per-fold choices and the composite score."""
    scored = {name: variant_scores(series, settings, to_score) for name, settings in VARIANTS.items()}
    rows = []
    for name, per in scored.items():
        figures = score_detector(per, nab)
        rows.append((name, f"{figures['standard'][0]:.2f}", f"{figures['reward_low_FP_rate'][0]:.2f}",
                     f"{figures['reward_low_FN_rate'][0]:.2f}", f"{per_file_ceiling(per, nab):.2f}"))
    files = sorted(series)
    lofo_rows, composite = [], {}
    for held in files:
        rest = [f for f in files if f != held]
        on_rest = {name: score_detector({f: per[f] for f in rest}, nab)["standard"][0]
                   for name, per in scored.items() if causal(VARIANTS[name])}
        chosen = max(on_rest, key=lambda name: (on_rest[name], name == next(iter(VARIANTS))))
        composite[held] = scored[chosen][held]
        lofo_rows.append((held.split("_")[-1][:-4], chosen, f"{on_rest[chosen]:.2f}"))
    return rows, lofo_rows, score_detector(composite, nab)
