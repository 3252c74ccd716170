"""Time the narrate stage and measure what a reader gets, on the demo corpus or a real file.

    python benchmarks/bench_narrate.py                  # build the default demo (20,000 records, 60 days)
    python benchmarks/bench_narrate.py --records 6000   # a smaller one
    python benchmarks/bench_narrate.py --db demo.db     # an existing corpus (enriched and analysed)
    python benchmarks/bench_narrate.py --csv ../shared/datasets/hacker_news_2015_2016.csv
    python benchmarks/bench_narrate.py --csv ../shared/datasets/reddit_2019_science_technology.csv --cache /tmp/bench

Figures: seconds for a fresh narrate run, for a rerun with unchanged evidence
(writes nothing), stories per kind, citations per story, the share of body
sentences traced to a cited record (must be 100%), arcs by status; and the
reader-facing quality figures of :mod:`corpuskit.narrate.quality`: the share of
quotes that name the story's subject (target >= 0.9), near-duplicate quote
pairs, fragment quotes, stories whose prose fields carry debris (targets 0),
distinct authors per story. ``--show N`` prints N stories as a reader sees them.
``--csv`` imports a file and runs enrich and analyse first (``--cache DIR`` keeps
that corpus for the next run).
"""
from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from corpuskit import open_corpus
from corpuskit.narrate.citations import MARKER, trace_body
from corpuskit.narrate.quality import story_quality, summarise

STORY_TABLES = ("story_citations", "story_slugs", "arc_stories", "arcs", "stories")


def _prepare(args, workdir: Path) -> Path:
    if args.db:
        path = workdir / "bench.db"
        shutil.copy(args.db, path)
        return path
    if args.csv:
        cached = Path(args.cache) / (Path(args.csv).stem + ".db") if args.cache else None
        if cached is not None and cached.exists():
            path = workdir / "bench.db"
            shutil.copy(cached, path)
            return path
        path = workdir / "real.db"
        corpus = open_corpus(path)
        t0 = time.perf_counter()
        corpus.import_file(args.csv)
        for stage in ("enrich", "analyse"):
            corpus.run(progress=False, stages=(stage,))
        print(f"{args.csv}: imported, enriched and analysed {corpus.count()} records, "
              f"{time.perf_counter() - t0:.1f} s")
        corpus.close()
        if cached is not None:
            cached.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(path, cached)
        return path
    from corpuskit.demo import build_demo

    path = workdir / "demo.db"
    corpus = open_corpus(path)
    t0 = time.perf_counter()
    build_demo(corpus, seed=args.seed, records=args.records, days=args.days, run_stages=False, progress=False)
    for stage in ("enrich", "analyse"):
        result = corpus.run(progress=False, stages=(stage,))[stage]
        if result is None:
            sys.exit(f"the {stage} stage is not available in this build; cannot benchmark narrate")
    print(f"demo built and analysed: {args.records} records, {args.days} days, "
          f"{time.perf_counter() - t0:.1f} s")
    corpus.close()
    return path


def _traced(corpus) -> tuple[int, int]:
    sentences = traced = 0
    for sid, body, meta in corpus.conn.execute("SELECT id, body, metadata FROM stories").fetchall():
        texts = dict(corpus.conn.execute(
            "SELECT c.ordinal, r.content_text FROM story_citations c JOIN records r ON r.id = c.record_id "
            "WHERE c.story_id = ?", (sid,)).fetchall())
        framing = [f["text"] for f in json.loads(meta).get("framing", [])]
        n = len(MARKER.findall(body))
        sentences += n
        traced += n - len(trace_body(body, texts, framing))
    return sentences, traced


def _show(corpus, n: int) -> None:
    rows = corpus.conn.execute(
        "SELECT id, kind, headline, lede, body FROM stories WHERE is_current = 1 ORDER BY CASE kind "
        "WHEN 'lead_story' THEN 0 WHEN 'dispatch' THEN 1 WHEN 'beat_narrative' THEN 2 ELSE 3 END, id LIMIT ?",
        (n,)).fetchall()
    for sid, kind, headline, lede, body in rows:
        print(f"\n--- [{kind}] {headline}\n{body}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--db", help="an enriched and analysed corpus (copied, never modified)")
    parser.add_argument("--records", type=int, default=20000)
    parser.add_argument("--days", type=int, default=60)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--csv", help="a real file to import, enrich and analyse first")
    parser.add_argument("--cache", help="keep the --csv corpus in this folder and reuse it")
    parser.add_argument("--show", type=int, default=0, help="print this many stories as a reader sees them")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        path = _prepare(args, Path(tmp))
        corpus = open_corpus(path)
        with corpus.transaction():
            for table in STORY_TABLES:
                corpus.conn.execute(f"DELETE FROM {table}")
        import corpuskit.narrate.pipeline  # noqa: F401  (import time is not stage time)

        t0 = time.perf_counter()
        summary = corpus.narrate(progress=False)
        fresh = time.perf_counter() - t0
        t0 = time.perf_counter()
        again = corpus.narrate(progress=False)
        rerun = time.perf_counter() - t0
        per_story = [r[0] for r in corpus.conn.execute(
            "SELECT count(*) FROM story_citations GROUP BY story_id")]
        sentences, traced = _traced(corpus)
        arcs = dict(corpus.conn.execute("SELECT arc_status, count(*) FROM arcs GROUP BY arc_status").fetchall())
        print(f"records                 {corpus.count()}")
        print(f"narrate, fresh          {fresh:.2f} s")
        print(f"narrate, unchanged      {rerun:.2f} s (new versions: {sum(again['written'].values())})")
        print(f"stories per kind        {json.dumps(summary['written'], sort_keys=True)}")
        print(f"skipped subjects        {len(summary['skipped'])}")
        if per_story:
            print(f"citations per story     min {min(per_story)}, median {statistics.median(per_story)}, "
                  f"max {max(per_story)}")
        print(f"body sentences traced   {traced}/{sentences}")
        print(f"arcs by status          {json.dumps(arcs, sort_keys=True)}")
        rows = story_quality(corpus.conn)
        q = summarise(rows)
        print(f"quotes                  {q['quotes']} in {q['stories']} stories")
        print(f"on-subject share        {q['onSubjectShare']} (target >= 0.9)")
        print(f"near-duplicate pairs    {q['nearDuplicatePairs']} (target 0)")
        print(f"fragment quotes         {q['fragments']} (target 0)")
        print(f"stories with debris     {q['storiesWithDebris']} (target 0)")
        print(f"authors per story       {json.dumps(q['authorsPerStory'])}")
        for r in rows:
            for label, items in (("off subject", r["offSubject"]), ("near duplicates", r["nearDuplicates"]),
                                 ("fragments", r["fragments"]), ("debris", r["debris"])):
                if items:
                    print(f"  {r['storyKey']}: {label}: {items[:3]}")
        _show(corpus, args.show)
        corpus.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
