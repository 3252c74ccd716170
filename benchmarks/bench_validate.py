"""How well the corrected share recovers a known truth on real, human-labelled text.

SemEval 2016 test tweets (``../shared/datasets/semeval_sentiment``; people's labels for every tweet) are
imported, enriched (VADER labels), and a simple random sample of ``--sample`` tweets is "coded" with the
human labels: the gold values. ``corpus.validate("sentiment")`` then estimates each class's share of the
whole corpus corrected for VADER's measured errors. The truth is known here (every tweet has its human label),
so the script prints, over ``--repeats`` samples (seeds 0..), VADER's raw share error, the corrected share
error, and how often the 95% interval holds the true share.

    python benchmarks/bench_validate.py [--tweets 5000] [--sample 300] [--repeats 10]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from corpuskit import open_corpus  # noqa: E402

SEMEVAL = ROOT.parent / "shared" / "datasets" / "semeval_sentiment" / "twitter-2016test-A.txt"
CLASSES = ["negative", "neutral", "positive"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tweets", type=int, default=5000)
    parser.add_argument("--sample", type=int, default=300)
    parser.add_argument("--repeats", type=int, default=10)
    args = parser.parse_args()
    if not SEMEVAL.exists():
        print(f"{SEMEVAL} not present: nothing to measure")
        return 0
    seen, rows = set(), []
    for line in SEMEVAL.read_text(encoding="utf-8").splitlines():
        parts = line.rstrip("\t").split("\t")
        if len(parts) < 3 or parts[0] in seen or parts[1] not in CLASSES:
            continue
        seen.add(parts[0])
        rows.append({"source": "twitter", "sourceId": parts[0], "contentText": parts[2].strip().strip('"'),
                     "publishedAt": "2016-01-01T00:00:00Z", "metadata": {"human": parts[1]}})
        if len(rows) == args.tweets:
            break
    corpus = open_corpus(":memory:")
    corpus.add_records(rows)
    started = time.perf_counter()
    corpus.enrich(progress=False)
    records = corpus.records().set_index("id")
    human = records["metadata"].map(lambda m: m["human"])
    truth = human.value_counts(normalize=True).reindex(CLASSES).to_numpy()
    raw = records["sentimentLabel"].value_counts(normalize=True).reindex(CLASSES).to_numpy()
    print(f"{corpus.count()} tweets enriched in {time.perf_counter() - started:.0f} s; "
          f"true shares {np.round(truth, 3).tolist()}, VADER's {np.round(raw, 3).tolist()}")
    raw_err, corr_err, covered, widths, f1 = [], [], 0, [], []
    for seed in range(args.repeats):
        name = f"s{seed}"
        drawn = corpus.sample(args.sample, seed=seed, name=name,
                              codebook={"variables": {"sentiment": {"values": CLASSES, "level": "ordinal"}}})
        corpus.add_codes(name, "semeval", {rid: {"sentiment": human.loc[rid]} for rid in drawn.ids()})
        corpus.adjudicate(name)
        result = corpus.validate("sentiment", sample=name)
        table = result.corrected.set_index("class").reindex(CLASSES)
        raw_err.append(np.abs(raw - truth).max())
        corr_err.append(np.abs(table["corrected"].to_numpy() - truth).max())
        inside = (table["corrected_low"] <= truth) & (truth <= table["corrected_high"])
        covered += int(inside.sum())
        widths.append((table["corrected_high"] - table["corrected_low"]).mean())
        f1.append(result.summary.set_index("statistic").loc["macro_f1", "value"])
    print(f"sample {args.sample}, {args.repeats} seeds: macro-F1 of VADER against people "
          f"{np.mean(f1):.3f}; largest share error raw {np.mean(raw_err):.3f}, corrected "
          f"{np.mean(corr_err):.3f} (mean over seeds); 95% intervals holding the true share "
          f"{covered} of {3 * args.repeats}; mean interval width {np.mean(widths):.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
