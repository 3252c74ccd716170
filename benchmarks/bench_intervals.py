"""How well the intervals of docs/uncertainty.md hold on real data.

For each corpus (the demo, and the real Reddit 2019 file when ../shared/datasets is present,
both enriched with the default steps), with every scored record as the population:

* coverage of the Student's t interval (and, beside it, the percentile bootstrap) of mean
  sentiment for samples of n records, against the population mean;
* coverage of the Wilson interval of the positive share for samples of n records;
* the index of dispersion (variance / mean) of each topic's daily counts within 7-day
  windows: 1 for Poisson counts; above 1 the Poisson intervals are too narrow, by about
  sqrt(index).

    .venv/bin/python benchmarks/bench_intervals.py [--reddit PATH] [--draws 2000] [--seed 0]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

from corpuskit import open_corpus
from corpuskit.demo import build_demo
from corpuskit.stats.intervals import mean_interval_from_moments, wilson_interval

ROOT = Path(__file__).resolve().parents[1]
REDDIT = ROOT.parent / "shared" / "datasets" / "reddit_2019_science_technology.csv"
SIZES = (5, 10, 30, 100)


def coverage(scores: np.ndarray, labels: np.ndarray, draws: int, seed: int) -> list[tuple]:
    rng = np.random.default_rng(seed)
    mu, share = scores.mean(), (labels == "positive").mean()
    rows = []
    for n in SIZES:
        idx = rng.integers(0, scores.size, size=(draws, n))
        x = scores[idx]
        low, high = mean_interval_from_moments(np.full(draws, n), x.mean(axis=1), x.std(axis=1, ddof=1))
        t_cover = np.mean((low <= mu) & (mu <= high))
        boot = min(draws, 500)
        means = x[:boot, :][np.arange(boot)[:, None, None], rng.integers(0, n, size=(boot, 500, n))].mean(axis=2)
        b_low, b_high = np.quantile(means, 0.025, axis=1), np.quantile(means, 0.975, axis=1)
        b_cover = np.mean((b_low <= mu) & (mu <= b_high))
        k = (labels[idx] == "positive").sum(axis=1)
        w_low, w_high = wilson_interval(k, np.full(draws, n))
        w_cover = np.mean((w_low <= share) & (share <= w_high))
        rows.append((n, t_cover, b_cover, w_cover))
    return rows


def dispersion(corpus) -> tuple[float, float, int]:
    rows = corpus.conn.execute(
        "SELECT ta.topic_id, r.day, count(*) FROM topic_assignments ta JOIN records r ON r.id = ta.record_id "
        "GROUP BY 1, 2 ORDER BY 1, 2").fetchall()
    days = sorted({r[1] for r in rows})
    index = {d: i for i, d in enumerate(days)}
    series: dict[int, np.ndarray] = {}
    for tid, day, n in rows:
        series.setdefault(tid, np.zeros(len(days)))[index[day]] = n
    values = []
    for counts in series.values():
        for start in range(0, len(counts) - 6, 7):
            window = counts[start:start + 7]
            if window.mean() >= 5:
                values.append(window.var(ddof=1) / window.mean())
    values = np.asarray(values)
    return float(np.median(values)), float(np.mean(values > 2)), len(values)


def report(name: str, corpus, draws: int, seed: int) -> None:
    scored = corpus.conn.execute("SELECT sentiment_score, sentiment_label FROM enrichment "
                                 "WHERE sentiment_score IS NOT NULL").fetchall()
    scores = np.array([r[0] for r in scored], dtype=float)
    labels = np.array([r[1] for r in scored])
    print(f"\n{name}: {scores.size} scored records, population mean {scores.mean():.4f}, "
          f"positive share {(labels == 'positive').mean():.4f}, {draws} samples per size (seed {seed})")
    print(f"  {'n':>5} {'t mean':>8} {'boot mean':>10} {'Wilson share':>13}   (coverage of nominal 0.95)")
    for n, t_cover, b_cover, w_cover in coverage(scores, labels, draws, seed):
        print(f"  {n:>5} {t_cover:>8.3f} {b_cover:>10.3f} {w_cover:>13.3f}")
    median, over2, windows = dispersion(corpus)
    print(f"  daily counts per topic, 7-day windows with mean >= 5: {windows}; median dispersion "
          f"index {median:.2f} (Poisson: 1); share of windows above 2: {over2:.2f}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reddit", type=Path, default=REDDIT)
    parser.add_argument("--draws", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        demo = open_corpus(Path(tmp) / "demo.db")
        build_demo(demo, seed=7, records=6000, days=60, run_stages=True, progress=False)
        report("demo (6,000 records, 60 days, seed 7)", demo, args.draws, args.seed)
        demo.close()
        if args.reddit.exists():
            real = open_corpus(Path(tmp) / "reddit.db")
            real.import_file(args.reddit)
            real.enrich(progress=False)
            report(f"real: {args.reddit.name}", real, args.draws, args.seed)
            real.close()
        else:
            print(f"\n{args.reddit} not present: real-data figures skipped")
    return 0


if __name__ == "__main__":
    sys.exit(main())
