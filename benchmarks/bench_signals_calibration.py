"""Benchmark: does a sigma mean the same on a thin and a dense corpus series, and would calibration help?

Usage: ``python benchmarks/bench_signals_calibration.py [--cache /tmp/h18] [--datasets ../shared/datasets]``

On the untouched backgrounds of ``bench_signals_injected.py`` (the demo corpus
without its planted events, Hacker News, Reddit; built into ``--cache`` on the
first run), the volume detector's count model is scored on every topic and
entity series at the day and at the week *without its gates* (every testable
period), and the share of testable series-periods at sigma >= 3, 4.5 and 6 is
printed by the series' density (the baseline's mean a day: below 0.5, 0.5 to
2, 2 and more). With no events in a background, a sigma that means the same
everywhere gives the same shares in every density (the model's nominal
one-sided tails: 0.00135 at 3, 3.4e-6 at 4.5).

Then the same shares at sigma >= 3 after two calibrations of
:mod:`corpuskit.stats.calibration`:

* per series, from its own history (:func:`~corpuskit.stats.calibration.calibration_factor`)
  with the window and history ``detect`` uses on NAB (365 periods, from 220 on:
  a year-long daily file is calibrated only in its last five months, the demo's
  60 days never) and with a short window (56 periods, from 28 on);
* pooled: per day, the reference quantile of every sigma of the same group
  (topics, entities), scale and density in the previous 28 days (causal; at
  least 200 of them), divided by the model's.

Each series is scored as it is and with its days shuffled (seeded): the shuffled
series keeps each series' counts, clumps included, but no event and no trend,
so it is a null on which the model's promise can be checked; the series as
they are hold real events, which count as exceedances.

The corpus stages do not calibrate (see docs/api.md); this benchmark is the
measurement behind that choice.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from text_table import table  # noqa: E402

DENSITY = ((0.0, 0.5, "< 0.5/day"), (0.5, 2.0, "0.5-2/day"), (2.0, np.inf, ">= 2/day"))
POOL_DAYS, POOL_MIN = 28, 200
SHUFFLE_SEED = 31


def ungated(counts: np.ndarray, floor: float, scale: str, det) -> np.ndarray:
    """The count model's sigma of every testable period (no gates) at ``scale``."""
    from corpuskit.analysis.signals.surge import surge_baseline, surge_sigma
    from corpuskit.stats.count_model import tail_sigma

    if scale == "day":
        base = surge_baseline(counts, det.window, floor)
        return surge_sigma(counts, base, base.n >= det.min_periods)
    week, n, _, _, mu, var = det.week_baseline(counts, floor)
    ok = (n >= det.min_week_periods) & np.isfinite(week)
    sigma = np.full(counts.shape, np.nan)
    sigma[ok] = tail_sigma(week[ok], mu[ok], var[ok])
    return sigma


def pooled_factor(sigma: np.ndarray, bucket: np.ndarray) -> np.ndarray:
    """Per series and day, the pooled calibration factor (see the module docstring)."""
    from scipy.stats import norm

    from corpuskit.stats.calibration import MAX_FACTOR, REFERENCE_TAIL

    factor = np.ones_like(sigma)
    for b in np.unique(bucket[np.isfinite(sigma)]):
        for t in range(sigma.shape[1]):
            lo = max(0, t - POOL_DAYS)
            past = sigma[:, lo:t][(bucket[:, lo:t] == b) & np.isfinite(sigma[:, lo:t])]
            if len(past) >= POOL_MIN:
                q = np.quantile(past, 1 - REFERENCE_TAIL)
                factor[bucket[:, t] == b, t] = np.clip(q / norm.isf(REFERENCE_TAIL), 1.0, MAX_FACTOR)
    return factor


def rows_for(name: str, series) -> list:
    from corpuskit.stats.thresholds import ENTITY_RATE_FLOOR

    out = []
    rng = np.random.default_rng(SHUFFLE_SEED)
    for group, real, floor in (("topic", series.topic_count, 0.0),
                               ("entity", series.entity_count, ENTITY_RATE_FLOOR)):
        real = np.asarray(real, dtype=float)
        if not real.shape[0]:
            continue
        shuffled = np.array([rng.permutation(r) for r in real])
        for days, counts in (("as is", real), ("shuffled", shuffled)):
            out += shares(counts, floor, (name, group, days))
    return out


def shares(counts: np.ndarray, floor: float, key: tuple) -> list:
    """Rows of exceedance shares by scale and density for one group of series."""
    from corpuskit.analysis.signals.surge import surge_baseline
    from corpuskit.analysis.signals.volume import VolumeSpikeDetector
    from corpuskit.stats.calibration import calibration_factor

    det = VolumeSpikeDetector()
    mu = surge_baseline(counts, det.window, 0.0).mean
    bucket = np.where(np.isfinite(mu), np.digitize(np.nan_to_num(mu), [0.5, 2.0]), -1)
    out = []
    for scale in ("day", "week"):
        sigma = ungated(counts, floor, scale, det)
        own = [np.vstack([r / calibration_factor(r, w, h) for r in sigma]) for w, h in ((365, 220), (56, 28))]
        pooled = sigma / pooled_factor(sigma, bucket)
        for b, (_, _, label) in enumerate(DENSITY):
            m = (bucket == b) & np.isfinite(sigma)
            if not m.any():
                continue
            x = sigma[m]
            out.append((*key, scale, label, int(m.sum()),
                        *(f"{(x >= thr).mean():.4f}" for thr in (3.0, 4.5, 6.0)),
                        *(f"{(c[m] >= 3.0).mean():.4f}" for c in (*own, pooled))))
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=Path("/tmp/h18"))
    parser.add_argument("--datasets", type=Path, default=None)
    args = parser.parse_args(argv)
    import bench_signals_injected as injected
    from corpuskit.analysis.signals.series import load_series

    if args.datasets is not None:
        injected.FILES.update({n: args.datasets / p.name for n, p in injected.FILES.items()})
    names = ["demo"] + [n for n, p in injected.FILES.items() if p.exists()]
    rows = []
    for name in names:
        corpus = injected.background(name, args.cache)
        rows += rows_for(name, load_series(corpus, min_entity_count=3))
        corpus.close()
    print(table(rows, ["background", "series", "days", "scale", "density", "testable periods", "model >= 3", ">= 4.5",
                       ">= 6", "own 365/220 >= 3", "own 56/28 >= 3", "pooled >= 3"]))
    print("\nnominal one-sided tails of the model: 0.00135 at 3, 3.4e-6 at 4.5, 1e-9 at 6; no events are "
          "labelled in these backgrounds, so real events count as exceedances too")
    return 0


if __name__ == "__main__":
    sys.exit(main())
