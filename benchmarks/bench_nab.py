"""Benchmark: ``corpuskit.signals.detect`` on the Numenta Anomaly Benchmark's Twitter volume series.

Usage: ``python benchmarks/bench_nab.py [--nab ../shared/datasets/nab] [--variants]``, or
``python benchmarks/bench_nab.py --lodo``: the leave-one-group-out table over the 35 labelled NAB
series in ``../shared`` that chooses ``detect``'s defaults (:mod:`bench_detect`; the headline since
2026-11-28). The sections below are the older five-file view.

0. The headline (:mod:`nab_lofo`): the leave-one-file-out score. For each
   file, the setting of ``detect`` (one of the causal candidates of
   :mod:`nab_variants`: defaults, materiality share, scales, baseline, onset
   suppression) and the threshold are chosen on the other four files, and the
   file is scored at that choice; the held-out raw scores are summed and
   normalised; also the defaults with only the threshold chosen that way. Printed beside the in-sample score (``detect`` defaults, one
   threshold swept over the same five files it is scored on) and the published
   detectors (scored by NAB on all ten files).

1. Checks the NAB scorer (:mod:`nab_scorer`, written from NAB's description)
   against the three published detectors whose raw outputs are in
   ``results/``: each profile's figure must reproduce the published table to
   within 0.5, or the script stops (a scorer that cannot reproduce the table
   cannot score us).
2. Feeds each raw 5-minute series to ``detect(series)`` with its defaults (no
   per-file settings) and maps its output to NAB's [0, 1] anomaly score:
   ``sigma / (sigma + 3)`` on the periods ``detect`` marks as an onset (sigma
   above every sigma of the day before), 0 elsewhere. Beside it: a rolling
   robust z-score (the 5-minute count against the median and MAD of the
   previous 24 hours, same mapping and onset rule) and the null detector.
3. Scores each with NAB's standard, reward-low-FP and reward-low-FN profiles;
   as in NAB, the threshold is swept per detector and profile to maximise the
   total over all files scored together, and the chosen thresholds are printed.
4. For ``detect`` at its standard threshold: per file, each window's first
   detection (its NAB weight, or a miss) and the detections outside every
   window with their cost, so the figure can be read (which windows are
   found, how much the false detections cost).

5. With ``--variants`` (:mod:`nab_variants`): principled variants of the
   test (scales, baselines, a short suppression after an onset), each scored
   on the five files, with the per-file-threshold ceiling of its scores and a
   leave-one-file-out choice among them, to see what would carry.

Only five of NAB's ten realTweets series are in ``../shared/datasets/nab``
(AAPL, AMZN, CRM, CVS, FB); the other five (GOOG, IBM, KO, PFE, UPS) are kept
back to score the project and are not scored here.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))  # this checkout's corpuskit, not an installed one

from nab_scorer import load_profiles, load_windows, prepare, score_detector  # noqa: E402
from text_table import table  # noqa: E402

PUBLISHED = {  # the README's table: standard, reward_low_FP_rate, reward_low_FN_rate
    "ARTime": (88.14, 82.28, 92.10),
    "numenta": (67.39, 63.78, 69.93),
    "twitterADVec": (66.02, 42.72, 75.26),
    "windowedGaussian": (64.78, 39.76, 74.44),
}
PROFILES = ("standard", "reward_low_FP_rate", "reward_low_FN_rate")


def load_series(nab: Path) -> dict:
    out = {}
    for f in sorted((nab / "data").glob("*.csv")):
        d = pd.read_csv(f, parse_dates=["timestamp"])
        out[f.name] = (d["timestamp"], pd.Series(d["value"].to_numpy(float),
                                                 index=pd.DatetimeIndex(d["timestamp"])))
    return out


def verify_scorer(nab: Path) -> list:
    rows = []
    for det in ("numenta", "twitterADVec", "windowedGaussian"):
        per = {}
        for f in sorted((nab / "results" / det).glob("*.csv")):
            d = pd.read_csv(f)
            per[f.name[len(det) + 1:]] = (d["timestamp"], d["anomaly_score"].to_numpy())
        ours = score_detector(per, nab)
        for profile, published in zip(PROFILES, PUBLISHED[det]):
            rows.append((det, profile, published, round(ours[profile][0], 2),
                         round(ours[profile][0] - published, 2)))
    return rows


def to_score(sigma: np.ndarray, onset: np.ndarray) -> np.ndarray:
    s = np.clip(np.nan_to_num(sigma, nan=0.0), 0, None)
    s = np.where(onset, s, 0.0)
    return s / (s + 3.0)


def detect_scores(series: dict) -> dict:
    from corpuskit.signals import detect

    per = {}
    for name, (ts, s) in series.items():
        out = detect(s)
        per[name] = (ts, to_score(out["sigma"].to_numpy(), out["onset"].to_numpy()))
    return per


def robust_z_scores(series: dict) -> dict:
    from corpuskit.analysis.signals.series_scorer import onset

    per = {}
    for name, (ts, s) in series.items():
        prev = s.shift(1).rolling(288, min_periods=144)
        med = prev.median()
        mad = (s.shift(1) - med).abs().rolling(288, min_periods=144).median()
        z = ((s - med) / np.maximum(1.4826 * mad, 1.0)).to_numpy()
        per[name] = (ts, to_score(z, onset(z, 288)))
    return per


def breakdown(per: dict, nab: Path, threshold: float, profile: str = "standard") -> list:
    """Per file at the swept threshold: each window's first detection (its NAB weight, or a miss)
    and the detections outside every window with their cost."""
    windows = load_windows(nab)
    fp_weight = load_profiles(nab)[profile]["fpWeight"]
    rows = []
    for name, (ts, scores) in sorted(per.items()):
        f = prepare(ts, scores, windows[name])
        hit = (f.scores >= threshold) & f.scored
        found = []
        for w in range(f.n_windows):
            first = np.flatnonzero(hit & (f.window == w))
            found.append(f"{f.tp_part[first[0]]:+.2f}" if len(first) else "miss")
        outside = np.flatnonzero(hit & (f.window < 0))
        rows.append((name.split("_")[-1][:-4], " ".join(found), len(outside),
                     f"{np.nansum(f.fp_part[outside]) * fp_weight:+.2f}"))
    return rows


def null_scores(series: dict) -> dict:
    return {name: (ts, np.zeros(len(ts))) for name, (ts, s) in series.items()}


def headline(series: dict, nab: Path, ours: dict) -> None:
    """The leave-one-file-out score first, beside the in-sample one and the published detectors."""
    import nab_variants
    from nab_lofo import lofo

    candidates = {name: nab_variants.variant_scores(series, settings, to_score)
                  for name, settings in nab_variants.lofo_candidates().items()}
    in_sample = score_detector(ours, nab)
    figures, fixed, folds = {}, {}, None
    for profile in PROFILES:
        figures[profile], fold_rows = lofo(candidates, nab, profile)
        fixed[profile] = lofo({"defaults": ours}, nab, profile)[0]
        if profile == "standard":
            folds = fold_rows
    rows = [["corpuskit detect, leave one file out (setting and threshold chosen on the other four)"]
            + [f"{figures[p]:.2f}" for p in PROFILES],
            ["corpuskit detect, leave one file out (defaults; threshold chosen on the other four)"]
            + [f"{fixed[p]:.2f}" for p in PROFILES],
            ["corpuskit detect, in sample (defaults, threshold swept on the five it scores)"]
            + [f"{in_sample[p][0]:.2f}" for p in PROFILES]]
    rows += [[f"published: {det} (all ten files)"] + [f"{x:.2f}" for x in v] for det, v in PUBLISHED.items()]
    print("HEADLINE: NAB on the five shared files, leave one file out first\n")
    print(table(rows, ["detector", *PROFILES]))
    print(f"\nthe {len(candidates)} candidate settings: {'; '.join(candidates)}")
    print("standard profile, per held-out file: the setting and threshold chosen on the other four\n")
    print(table([(f.split("_")[-1][:-4], name, f"{t:.3f}", f"{on_rest:.2f}", f"{raw:+.2f} over {n} windows")
                 for f, name, t, on_rest, raw, n in folds],
                ["held out", "setting chosen on the other four", "threshold", "score on the four",
                 "held-out raw score"]))
    print()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nab", type=Path,
                        default=Path(__file__).resolve().parents[2] / "shared" / "datasets" / "nab")
    parser.add_argument("--variants", action="store_true",
                        help="also score the variants of nab_variants.py with a leave-one-file-out choice")
    parser.add_argument("--lodo", action="store_true",
                        help="leave one NAB group out over the 35 series in ../shared (bench_detect.py --lodo)")
    args = parser.parse_args(argv)
    if args.lodo:
        import bench_detect

        return bench_detect.run(args.nab.parent)
    if not (args.nab / "windows.json").exists():
        print(f"{args.nab} not present; nothing to score")
        return 0
    checks = verify_scorer(args.nab)
    print("1. scorer check against the published table (raw outputs in results/)\n")
    print(table(checks, ["detector", "profile", "published", "ours", "diff"]))
    worst = max(abs(r[4]) for r in checks)
    if worst > 0.5:
        print(f"\nscorer off by {worst} (> 0.5): not scoring")
        return 1
    print(f"\nlargest difference {worst}: within 0.5\n")

    series = load_series(args.nab)
    t0 = time.perf_counter()
    ours = detect_scores(series)
    elapsed = time.perf_counter() - t0
    headline(series, args.nab, ours)
    rows = []
    for name, per in (("corpuskit detect (defaults)", ours),
                      ("rolling robust z, 5-min, previous 24 h", robust_z_scores(series)),
                      ("null", null_scores(series))):
        scored = score_detector(per, args.nab)
        rows.append([name] + [f"{scored[p][0]:.2f} (t={scored[p][1]:.3f})" for p in PROFILES])
    for det, figures in PUBLISHED.items():
        rows.append([f"published: {det}"] + [f"{x:.2f}" for x in figures])
    print(f"2. NAB scores on {', '.join(n.split('_')[-1][:-4] for n in series)} "
          f"(5-minute counts; threshold t swept per detector and profile over all five files)\n")
    print(table(rows, ["detector", *PROFILES]))
    standard = score_detector(ours, args.nab)["standard"]
    print(f"\n3. corpuskit detect at the standard threshold t={standard[1]:.3f}: each window's first "
          "detection (+1 at the window's start, ~0 at its end) and the detections outside every window\n")
    print(table(breakdown(ours, args.nab, standard[1]), ["file", "windows", "outside", "their cost"]))
    rows_n = sum(len(ts) for ts, _ in series.values())
    print(f"\ndetect on {rows_n:,} rows in {elapsed:.1f} s (machine shared with other jobs)")
    if args.variants:
        import nab_variants

        t0 = time.perf_counter()
        rows_v, lofo, composite = nab_variants.run(series, args.nab, to_score)
        print("\n4. variants (the engine behind detect, one setting changed; one threshold over the five "
              "files as in NAB, and the per-file-threshold ceiling)\n")
        print(table(rows_v, ["variant", *PROFILES, "standard, per-file ceiling"]))
        print("\nleave one file out: the variant chosen on the other four files (its standard score there)\n")
        print(table(lofo, ["held-out file", "chosen on the other four", "score on the four"]))
        print("\ncomposite (each file scored by the variant chosen without it): "
              + " / ".join(f"{composite[p][0]:.2f}" for p in PROFILES)
              + f"  [{time.perf_counter() - t0:.0f} s]")
    print("not scored: NAB's other five realTweets series (GOOG, IBM, KO, PFE, UPS) are not in "
          "../shared/datasets/nab")
    return 0


if __name__ == "__main__":
    sys.exit(main())
