"""Benchmark: ``corpuskit.signals.detect``'s defaults chosen by leave one NAB group out.

Usage: ``python benchmarks/bench_detect.py --lodo [--shared ../shared/datasets] [--write]``
(also ``python benchmarks/bench_nab.py --lodo``).

Data: 35 labelled NAB series in four groups: ``realTweets`` (the five of
``../shared/datasets/nab``) and ``realAWSCloudwatch``, ``realTraffic``,
``artificialWithAnomaly`` (``../shared/datasets/nab_more``).

A setting of ``detect`` is the form ``auto`` with its measured form (a series
of counts gets the count model; a measure, as :func:`~corpuskit.analysis.signals.
series_scorer.form_of` reads its warm-up and whether it was sampled at irregular instants, gets ``level`` or ``shift`` with one of
:data:`SHIFT_HISTORIES`, :data:`SHIFT_SPANS` and :data:`SHIFT_SUPPRESSIONS`), a
baseline rhythm, a materiality gate and a threshold (the sigma at which
``fired`` is set). The grid is :data:`CANDIDATES` x :data:`THRESHOLDS`. Single
forms for every series are not candidates: counts and measures are told apart
from the series, not tuned (with ``shift`` for every series a candidate, the fold
that leaves realTweets out, the only group of counts, picks it and realTweets
scores 58.9 against 80-88 with the count model). A
series' detections are the rows ``detect(series, **setting).fired`` marks, as
NAB detections (score 1 there, 0 elsewhere: no per-file threshold).

For each group left out and each NAB profile, the setting with the best mean
normalised score over the other three groups is chosen (ties: the earlier
candidate, then the lower threshold) and the left-out group is scored with it:
no number read from the left-out group enters the choice. ``--criterion maximin``
chooses the setting whose worst group among those it may read is best instead
(ties by the mean); it is not the headline (see ``docs/api.md``). The table prints every
group as left out, the worst group and the mean, beside Numenta HTM where its
raw outputs are in ``../shared`` (realTweets only). The procedure's final
choice is the standard-profile setting with the best mean over all four groups;
``--write`` records it in ``benchmarks/detect_defaults.json``, which
``tests/test_detect_defaults.py`` checks against ``detect``'s shipped defaults.

How the series are fed (the benchmark's adaptations, not ``detect``'s):

* irregularly sampled series (realTraffic) are put on a regular grid at
  their median step, row for row (NAB's detectors also see rows, not clock
  time), as ``detect`` reads a measure sampled at irregular instants; the scores are
  mapped back to the original timestamps (on the five without duplicate timestamps,
  ``detect`` on the series as given fires on the same rows); a series with a few gaps (one
  realAWSCloudwatch series skips 8 periods) or repeated timestamps (two traffic series), which
  ``detect`` refuses, is gridded the same way;
* ``form='count'`` needs non-negative values: one artificial series
  (``art_daily_flatmiddle``) dips below zero and is clipped at 0 for that form only.

Per-series detector outputs are cached under ``/tmp/corpuskit_bench_detect``
(or ``$CORPUSKIT_BENCH_DETECT_CACHE``; keyed by the engine's source, so a code change recomputes).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))  # this checkout's corpuskit, not an installed one

from nab_lofo import raw_at  # noqa: E402
from nab_scorer import load_profiles, normalised, prepare, score_detector  # noqa: E402
from text_table import table  # noqa: E402

GROUPS = ("realTweets", "realAWSCloudwatch", "realTraffic", "artificialWithAnomaly")
PROFILES = ("standard", "reward_low_FP_rate", "reward_low_FN_rate")
#: The shift form's constants tried (:mod:`corpuskit.stats.shift_model`'s ``HISTORY`` and ``SPAN``,
#: :data:`~corpuskit.analysis.signals.series_scorer.SHIFT_SUPPRESSION`): periods of history, periods of
#: the recent window, and how long an onset holds off weaker ones (a day, or a number of periods).
SHIFT_HISTORIES = (500, 2000)
SHIFT_SPANS = (6, 12, 24)
SHIFT_SUPPRESSIONS = ("day", 48)
#: Measured forms tried: ``level``, or ``shift`` with each history, span and suppression.
MEASURED = (({"measured": "level"},)
            + tuple({"measured": "shift", "history": h, "span": s, "suppression": q}
                    for h in SHIFT_HISTORIES for s in SHIFT_SPANS for q in SHIFT_SUPPRESSIONS))
#: detect() settings tried: form ``auto`` (counts get the count model, measures the measured form:
#: :data:`MEASURED`), a rhythm and a materiality (``None``: detect's own default for the form).
CANDIDATES = tuple(
    {"form": "auto", **measured, "rhythm": rhythm, "materiality": materiality}
    for measured in MEASURED
    for rhythm in ("auto", "none")
    for materiality in (None, 0.0)
)
#: Sigmas tried as ``detect``'s ``threshold`` (finer near 3, where the shift form's ranks top out).
THRESHOLDS = (2.0, 2.5, 2.75, 3.0, 3.1, 3.2, 3.3, 3.4, 3.5, 3.75, 4.0, 4.5, 5.0, 6.0, 7.0, 8.0, 10.0, 12.0,
              15.0, 20.0, 30.0, 40.0)
CACHE = Path("/tmp/corpuskit_bench_detect")
RECORD = Path(__file__).resolve().parent / "detect_defaults.json"
ENGINE_FILES = ("analysis/signals/series_scorer.py", "stats/level_model.py", "stats/shift_model.py",
                "stats/count_model.py", "analysis/signals/user_series.py",
                "stats/calibration.py", "stats/windows.py", "signals.py")


def load_groups(shared: Path) -> tuple[dict, dict]:
    """``({group: {file: (timestamps, values)}}, {file: windows})`` of the 35 labelled series."""
    groups, windows = {g: {} for g in GROUPS}, {}
    nab = shared / "nab"
    for f in sorted((nab / "data").glob("*.csv")):
        groups["realTweets"][f.name] = _read(f)
    windows.update(json.loads((nab / "windows.json").read_text()))
    more = shared / "nab_more"
    more_windows = json.loads((more / "combined_windows.json").read_text())
    for key in sorted(more_windows):
        group = key.split("/")[0]
        groups[group][key] = _read(more / "data" / key)
    windows.update(more_windows)
    return groups, windows


def _read(path: Path) -> tuple:
    d = pd.read_csv(path, parse_dates=["timestamp"])
    return d["timestamp"], d["value"].to_numpy(float)


def regular(ts: pd.Series, values: np.ndarray) -> pd.Series:
    """The values on a regular index at the series' median step (row for row)."""
    step = pd.Timedelta(ts.diff().dropna().median())
    return pd.Series(values, index=pd.date_range(ts.iloc[0], periods=len(values), freq=step))


def setting_name(setting: dict) -> str:
    from corpuskit.analysis.signals.series_scorer import MATERIALITY

    gate = f"default ({MATERIALITY:g})" if setting["materiality"] is None else f"{setting['materiality']:g}"
    measured = setting["measured"]
    if measured == "shift":
        measured += f" h={setting['history']} span={setting['span']} supp={setting['suppression']}"
    return f"form={setting['form']} (measures: {measured}) rhythm={setting['rhythm']} materiality={gate}"


def _engine_hash() -> str:
    root = Path(__file__).resolve().parents[1] / "corpuskit"
    h = hashlib.sha1()
    for rel in ENGINE_FILES:
        h.update((root / rel).read_bytes())
    return h.hexdigest()[:12]


def cache_dir() -> Path:
    """Where detector outputs are kept: ``$CORPUSKIT_BENCH_DETECT_CACHE``, else :data:`CACHE`."""
    return Path(os.environ.get("CORPUSKIT_BENCH_DETECT_CACHE", CACHE))


def detector_output(name: str, ts: pd.Series, values: np.ndarray, setting: dict, engine: str) -> np.ndarray:
    """Per row: the sigma where ``detect`` marks an onset, 0 elsewhere (cached).

    ``form="auto"`` is resolved here as ``detect`` resolves it (:func:`~corpuskit.analysis.signals.
    series_scorer.form_of` on the warm-up and whether the series was sampled at irregular instants), with the candidate's ``measured`` form for a measure, so
    every measured form is scored without changing the shipped default. The shift form runs
    :func:`~corpuskit.analysis.signals.series_scorer.score_counts` on ``detect``'s plan with the
    candidate's history, span and suppression in place of the shipped ones.
    """
    from corpuskit.analysis.signals.series_scorer import form_of, onset, warmup_length
    from corpuskit.analysis.signals.user_series import sampled_step

    grid = regular(ts, values)
    form = setting["form"]
    if form == "auto":
        sampled = sampled_step(pd.DatetimeIndex(ts)) is not None
        form = form_of(values[:warmup_length(grid.index[1] - grid.index[0], len(values))], sampled)
        form = setting["measured"] if form == "level" else form
    if form == "shift":
        sigma = _shift_sigma(name, grid, setting, engine)
        refractory = _suppression(setting["suppression"], grid)
        return np.where(onset(sigma, refractory), np.clip(np.nan_to_num(sigma, nan=0.0), 0.0, None), 0.0)
    resolved = {"form": form, "rhythm": setting["rhythm"], "materiality": setting["materiality"]}
    key = hashlib.sha1(f"{engine}|{name}|{sorted(resolved.items())}".encode()).hexdigest()[:16]
    path = cache_dir() / f"{key}.npy"
    if path.exists():
        return np.load(path)
    from corpuskit.signals import detect

    if form == "count":
        grid = grid.clip(lower=0)
    out = detect(grid, form=form, rhythm=setting["rhythm"], materiality=setting["materiality"])
    scores = np.where(out["onset"].to_numpy(bool), np.nan_to_num(out["sigma"].to_numpy(float), nan=0.0), 0.0)
    scores = np.clip(scores, 0.0, None)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.save(path, scores)
    return scores


def _suppression(suppression, grid: pd.Series) -> int:
    from corpuskit.analysis.signals.series_scorer import suppression_periods

    return suppression_periods(suppression, grid.index[1] - grid.index[0])


def _shift_sigma(name: str, grid: pd.Series, setting: dict, engine: str) -> np.ndarray:
    """The shift form's sigma per row with the candidate's history and span (cached; onsets are cut after)."""
    from dataclasses import replace

    from corpuskit.analysis.signals.series_scorer import plan_for, score_counts

    resolved = {"form": "shift", "rhythm": setting["rhythm"], "history": setting["history"],
                "span": setting["span"]}
    key = hashlib.sha1(f"{engine}|{name}|{sorted(resolved.items())}|sigma".encode()).hexdigest()[:16]
    path = cache_dir() / f"{key}.npy"
    if path.exists():
        return np.load(path)
    values = grid.to_numpy(float)
    plan = plan_for(values, grid.index, grid.index[1] - grid.index[0], setting["rhythm"], form="shift")
    plan = replace(plan, shift_history=setting["history"], shift_span=setting["span"])
    sigma = score_counts(values, plan)["sigma"]
    path.parent.mkdir(parents=True, exist_ok=True)
    np.save(path, sigma)
    return sigma


def score_grid(groups: dict, windows: dict, weights: dict) -> np.ndarray:
    """``S[candidate, threshold, group, profile]``: NAB's normalised score of each group."""
    engine = _engine_hash()
    grid = np.zeros((len(CANDIDATES), len(THRESHOLDS), len(GROUPS), len(PROFILES)))
    done = {}      # a group's outputs already scored (candidates differing only where it has no series)
    for c, setting in enumerate(CANDIDATES):
        for g, group in enumerate(GROUPS):
            outputs = [detector_output(name, ts, values, setting, engine)
                       for name, (ts, values) in groups[group].items()]
            key = (group, hashlib.sha1(b"".join(o.tobytes() for o in outputs)).hexdigest())
            if key not in done:
                rows = [prepare(ts, out, windows[name])
                        for (name, (ts, _)), out in zip(groups[group].items(), outputs)]
                n_windows = sum(r.n_windows for r in rows)
                done[key] = np.array([[normalised(raw_at(rows, threshold, weights[profile]), n_windows,
                                                  weights[profile]) for profile in PROFILES]
                                      for threshold in THRESHOLDS])
            grid[c, :, g, :] = done[key]
    return grid


#: How a setting is chosen on the groups it may read: the best ``mean`` (the headline's rule), or
#: ``maximin`` (the best worst group, ties by the mean).
CRITERIA = ("mean", "maximin")


def choose(grid: np.ndarray, groups: list, profile: int, criterion: str = "mean") -> tuple[int, int, float]:
    """``(candidate, threshold index, mean score)`` best on ``groups`` by ``criterion`` (:data:`CRITERIA`;
    remaining ties: the earlier candidate, then the lower threshold)."""
    scores = grid[:, :, groups, profile]
    mean = scores.mean(axis=2)
    if criterion == "mean":
        pick = mean
    elif criterion == "maximin":
        worst = scores.min(axis=2)
        pick = np.where(worst == worst.max(), mean, -np.inf)
    else:
        raise ValueError(f"criterion must be one of {CRITERIA}, not {criterion!r}")
    c, t = np.unravel_index(np.argmax(pick), pick.shape)  # first maximum in C order: the tie rule
    return int(c), int(t), float(mean[c, t])


def lodo(grid: np.ndarray, criterion: str = "mean") -> list:
    """Per group left out: ``(group, {profile: (candidate, threshold index, held-out score, mean on the rest)})``."""
    out = []
    for g, group in enumerate(GROUPS):
        rest = [i for i in range(len(GROUPS)) if i != g]
        per = {}
        for p, profile in enumerate(PROFILES):
            c, t, on_rest = choose(grid, rest, p, criterion)
            per[profile] = (c, t, float(grid[c, t, g, p]), on_rest)
        out.append((group, per))
    return out


#: Numenta HTM's standard score per group over the series of that group held in ../shared, from NAB's
#: published per-file raw scores (results/numenta/numenta_standard_scores.csv, NAB's one threshold 0.5127
#: for all 58 files), normalised per group as NAB normalises its total: 100 (S - null) / (perfect - null),
#: null = -1 per window, perfect = 0.9866 per window (the scaled sigmoid at a window's start).
HTM_PUBLISHED_STANDARD = {"realTweets": 71.01, "realAWSCloudwatch": 68.10, "realTraffic": 68.18,
                          "artificialWithAnomaly": 69.75}


def htm_reference(shared: Path) -> dict:
    """Numenta HTM per group from its raw outputs in ``../shared`` (threshold swept by NAB's rule), or None."""
    nab = shared / "nab"
    out = {g: None for g in GROUPS}
    folder = nab / "results" / "numenta"
    if folder.is_dir():
        per = {}
        for f in sorted(folder.glob("numenta_*.csv")):
            d = pd.read_csv(f)
            per[f.name[len("numenta_"):]] = (d["timestamp"], d["anomaly_score"].to_numpy())
        scored = score_detector(per, nab)
        out["realTweets"] = tuple(scored[p][0] for p in PROFILES)
    return out


def lodo_table(folds: list, htm: dict) -> tuple[list, list]:
    rows, held = [], []
    for group, per in folds:
        c, t, score, on_rest = per["standard"]
        figures = [per[p][2] for p in PROFILES]
        held.append(figures)
        ref = htm[group]
        rows.append([group, setting_name(CANDIDATES[c]), f"{THRESHOLDS[t]:g}", f"{on_rest:.2f}",
                     *[f"{x:.2f}" for x in figures],
                     (" / ".join(f"{x:.2f}" for x in ref) if ref else "-")
                     + f"; published {HTM_PUBLISHED_STANDARD[group]:.2f}"])
    held = np.array(held)
    worst = int(np.argmin(held[:, 0]))
    rows.append([f"worst (standard): {folds[worst][0]}", "", "", "", *[f"{x:.2f}" for x in held[worst]], ""])
    rows.append(["mean of the four", "", "", "", *[f"{x:.2f}" for x in held.mean(axis=0)], ""])
    header = ["left out", "setting chosen on the other three (standard)", "threshold", "mean on the three",
              "standard", "low FP", "low FN", "Numenta HTM (std / low FP / low FN swept here; published std)"]
    return rows, header


def final_choice(grid: np.ndarray, criterion: str = "mean") -> dict:
    from corpuskit.analysis.signals.series_scorer import MATERIALITY

    c, t, mean = choose(grid, list(range(len(GROUPS))), 0, criterion)
    setting = dict(CANDIDATES[c])
    if setting["measured"] != "shift":     # the shift constants the engine keeps
        from corpuskit.analysis.signals.series_scorer import SHIFT_SPAN, SHIFT_SUPPRESSION
        from corpuskit.stats.shift_model import HISTORY

        setting.update(history=HISTORY, span=SHIFT_SPAN, suppression=SHIFT_SUPPRESSION)
    if setting["materiality"] is None:   # the gate the candidate ran with: the engine's default
        setting["materiality"] = MATERIALITY
    return {**setting, "threshold": THRESHOLDS[t], "mean_standard_on_four_groups": round(mean, 2),
            "per_group_standard": {g: round(float(grid[c, t, i, 0]), 2) for i, g in enumerate(GROUPS)},
            "groups": list(GROUPS), "candidates": len(CANDIDATES), "thresholds": list(THRESHOLDS)}


def run(shared: Path, write: bool = False, criterion: str = "mean") -> int:
    if not (shared / "nab" / "windows.json").exists() or not (shared / "nab_more" / "combined_windows.json").exists():
        print(f"{shared}/nab or {shared}/nab_more not present; nothing to score")
        return 0
    groups, windows = load_groups(shared)
    weights = load_profiles(shared / "nab")
    grid = score_grid(groups, windows, weights)
    folds = lodo(grid, criterion)
    rows, header = lodo_table(folds, htm_reference(shared))
    sizes = ", ".join(f"{g} {len(groups[g])}" for g in GROUPS)
    print(f"NAB, leave one group out ({sizes} series); {len(CANDIDATES)} settings x {len(THRESHOLDS)} thresholds;"
          f" each profile's setting chosen on the other three groups (criterion: {criterion})\n")
    print(table(rows, header))
    for profile in PROFILES[1:]:
        picks = "; ".join(f"{g}: {setting_name(CANDIDATES[per[profile][0]])} t={THRESHOLDS[per[profile][1]]:g}"
                          for g, per in folds)
        print(f"\n{profile}, settings chosen: {picks}")
    print("\nNumenta HTM: realTweets from its raw outputs in ../shared/datasets/nab/results/numenta (threshold "
          "swept on those five files, i.e. in sample); 'published': the standard profile per group from NAB's "
          "published per-file scores at its single threshold (HTM_PUBLISHED_STANDARD). NAB's README scoreboard gives HTM 70.5-69.7 / 62.6-61.7 / 75.2-74.2 over all 58 NAB "
          "files (github.com/numenta/NAB), not per group.")
    choice = final_choice(grid, criterion)
    print(f"\nfinal choice on all four groups (standard): {setting_name(choice)} threshold={choice['threshold']:g}"
          f", mean {choice['mean_standard_on_four_groups']:.2f}; per group (in sample) "
          + ", ".join(f"{g} {v:.2f}" for g, v in choice["per_group_standard"].items()))
    if write and criterion != "mean":
        print(f"not written: {RECORD.name} records the headline's criterion (mean), not {criterion}")
    elif write:
        RECORD.write_text(json.dumps(choice, indent=1, sort_keys=True) + "\n")
        print(f"written: {RECORD}")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lodo", action="store_true", help="leave one group out (the only mode)")
    parser.add_argument("--shared", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "datasets")
    parser.add_argument("--write", action="store_true", help=f"record the final choice in {RECORD.name}")
    parser.add_argument("--criterion", choices=CRITERIA, default="mean",
                        help="how a setting is chosen on the groups it may read (default: the best mean)")
    args = parser.parse_args(argv)
    return run(args.shared, args.write, args.criterion)


if __name__ == "__main__":
    sys.exit(main())
