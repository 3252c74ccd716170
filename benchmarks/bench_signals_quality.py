"""Benchmark: signal quality on the demo corpus against its planted ground truth.

Usage: ``python benchmarks/bench_signals_quality.py [--records 20000] [--days 60] [--seed 7]``

Builds two demo corpora (``build_demo``: one with the planted events, one with
``events=False``), enriches them, runs signal detection and prints:

* one row per planted event: detected or not (same kind, beat, day within
  +-1; a divergence with the right sources, a novelty with the right name),
  with the signal that detected it;
* per planted event, the signals matching it (any severity, then high and medium only) and
  the linked events they form (:mod:`corpuskit.analysis.signals.linking`; 1 means the
  event reads as one);
* precision of high and medium signals: the share that match a planted
  event (on its beat, from the day before it starts to the day after it
  ends), loosely (any kind) and strictly (same kind);
* on the null corpus, high-severity signals per beat per 30 days;
* detection time, full and resumed after one more day.

Floors from the issue: recall 100%, precision >= 80%, null high per beat per
30 days <= 1. Exits non-zero when a floor is missed. See
:mod:`corpuskit.analysis.signals.evaluate` for the matching rules.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from text_table import table  # noqa: E402


def build(path: Path, records: int, days: int, seed: int, events: bool):
    from corpuskit import open_corpus
    from corpuskit.demo import build_demo

    corpus = open_corpus(path)
    build_demo(corpus, seed=seed, records=records, days=days, events=events, run_stages=False,
               progress=False)
    corpus.enrich(progress=False)
    return corpus


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=20000)
    parser.add_argument("--days", type=int, default=60)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    from corpuskit.analysis.signals import detect_signals
    from corpuskit.analysis.signals.evaluate import evaluate
    from corpuskit.stats.thresholds import thresholds

    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        demo = build(Path(tmp) / "demo.db", args.records, args.days, args.seed, True)
        null = build(Path(tmp) / "null.db", args.records, args.days, args.seed, False)
        print(f"built and enriched two demo corpora of {args.records:,} records, {args.days} days "
              f"(seed {args.seed}) in {time.perf_counter() - t0:.0f} s; thresholds {thresholds()}\n")
        t0 = time.perf_counter()
        summary = detect_signals(demo, "analyse-1")
        full_time = time.perf_counter() - t0
        result = evaluate(demo)
        rows = [(e["id"], e["kind"], e["beat"], e["start"], "yes" if e["detected"] else "NO",
                 e["severity"] or "-", f"{e['matching']}/{e['linkedEvents']}",
                 f"{e['matchingStrong']}/{e['linkedEventsStrong']}", (e["signal"] or "")[:50])
                for e in result["events"]]
        print(table(rows, ["event", "kind", "beat", "start", "detected", "severity", "signals/events",
                           "high+medium signals/events", "signal"]))
        print()
        precision_rows = [
            ("planted events detected", f"{result['recall']:.0%}", "100%"),
            ("high+medium signals", result["strong"], ""),
            ("  matching a planted event (any kind)", f"{result['precision']:.0%}", ">= 80%"),
            ("  matching a planted event (same kind)", f"{result['precisionStrict']:.0%}", ""),
            ("all signals (incl. low)", result["signals"], ""),
            ("linked events (a lone signal is one)", summary["events"]["events"], ""),
            ("linked events holding two planted events", len(result["mergedEvents"]), "0"),
            ("by severity", summary["bySeverity"], ""),
            ("by kind", summary["byKind"], ""),
        ]
        ok &= result["recall"] == 1.0 and result["precision"] >= 0.8
        null_summary = detect_signals(null, "analyse-1")
        null_result = evaluate(null)
        worst = max(null_result["highPerBeatPer30Days"].values() or [0])
        ok &= worst <= 1
        precision_rows += [
            ("null corpus: signals by severity", null_summary["bySeverity"], ""),
            ("null corpus: max high per beat per 30 days", f"{worst:g}", "<= 1"),
            ("detection time, full replay (s)", f"{full_time:.2f}", ""),
        ]
        # one more day: resume from the stored replay state
        from corpuskit.ingest.demo import generate_demo

        extra, _ = generate_demo(args.seed + 1, records=args.records * 28 // args.days, days=28,
                                 events=False)
        last = demo.now().date()
        from datetime import timedelta

        nxt = (last + timedelta(days=1)).isoformat()
        more = [rec for rec in extra if rec["publishedAt"][:10] == extra[-1]["publishedAt"][:10]]
        for rec in more:
            rec["publishedAt"] = nxt + rec["publishedAt"][10:]
            rec["capturedAt"] = None
        demo.add_records(more)
        demo.enrich(progress=False)
        t0 = time.perf_counter()
        resumed = detect_signals(demo, "analyse-2")
        resume_time = time.perf_counter() - t0
        precision_rows.append((f"one more day: resumed replay ({resumed['mode']}) (s)", f"{resume_time:.2f}",
                               f"{resume_time / full_time:.0%} of full"))
        print(table([tuple(map(str, r)) for r in precision_rows], ["measure", "value", "floor / note"]))
        if result["unmatched"]:
            print("\nhigh/medium signals matching no planted event:")
            for line in result["unmatched"]:
                print("  " + line)
        demo.close()
        null.close()
    print("\nfloors met" if ok else "\nFLOOR MISSED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
