"""Where an import's time goes, process by process: the critical path on two idle cores.

    python benchmarks/bench_import_phases.py FILE [--one-process] [--repeat 1]

Imports FILE into a fresh corpus in a temporary directory (in this process) and prints CPU and wall
seconds of each phase:

- *start*: loading corpuskit and opening the corpus;
- *parse*: reading, normalising and staging the rows; the caller's CPU and, when a worker took the
  rows past ``pipeline.PARALLEL_AFTER`` (:mod:`corpuskit.ingest.pipeline`), the worker's;
- *store*: marking repeats and stored rows, the store transaction (insert, index rebuilds, the
  full-text insert) and its commit, all in the caller.

On a shared machine wall time is the queue for the cores; CPU time is not. The *critical path*
line adds start + the larger of the two processes' parse CPU + store CPU: what the import would
take on two idle cores (IO aside). ``--one-process`` keeps every row in the caller (the import
before the worker existed); ``--worker`` starts the worker even when no core is free (the import
itself does not, see ``pipeline.spare_core``). CPU of the store's own steps is shown below it.
"""
import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

_T0 = (time.perf_counter(), time.process_time())

from corpuskit import open_corpus  # noqa: E402  (timed as part of the start)
from corpuskit.ingest import pipeline, staging  # noqa: E402

_LOADED = (time.perf_counter() - _T0[0], time.process_time() - _T0[1])   # loading corpuskit


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measure(path: Path, mode: str) -> dict:
    """One import of ``path``: {phase: (wall, cpu)} plus the worker's CPU and the store's steps."""
    if mode == "one process":
        pipeline.PARALLEL_AFTER = 10 ** 15
    elif mode == "worker":
        pipeline.spare_core = lambda: True   # whatever the machine's load
    marks, steps = {}, {}
    real_repeats, real_index = staging.Stage.mark_repeats, staging.Stage._index

    def repeats(self):
        marks.setdefault("parse_end", (time.perf_counter(), time.process_time(), _children_cpu()))
        return real_repeats(self)

    def index(self, before, added):
        c = time.process_time()
        try:
            return real_index(self, before, added)
        finally:
            steps["full-text insert"] = time.process_time() - c

    staging.Stage.mark_repeats, staging.Stage._index = repeats, index
    try:
        with tempfile.TemporaryDirectory() as tmp:
            w0, c0 = time.perf_counter(), time.process_time()
            corpus = open_corpus(Path(tmp) / "c.db")
            start = (_LOADED[0] + time.perf_counter() - w0, _LOADED[1] + time.process_time() - c0)
            w1, c1, k1 = time.perf_counter(), time.process_time(), _children_cpu()
            report = corpus.import_file(path)
            w2, c2, k2 = time.perf_counter(), time.process_time(), _children_cpu()
            corpus.close()
    finally:
        staging.Stage.mark_repeats, staging.Stage._index = real_repeats, real_index
    pw, pc, pk = marks["parse_end"]
    return {"rows": report.read, "added": report.added, "start": start, "parse": (pw - w1, pc - c1),
            "worker": pk - k1, "store": (w2 - pw, c2 - pc), "total": (w2 - w1 + start[0], c2 - c1 + start[1]),
            "worker_total": k2 - k1, "steps": steps}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", type=Path)
    how = parser.add_mutually_exclusive_group()
    how.add_argument("--one-process", action="store_true", help="no worker: every row in the caller")
    how.add_argument("--worker", action="store_true",
                     help="a worker after PARALLEL_AFTER rows even when no core is free")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    if not args.path.exists():
        parser.error(f"{args.path} not found")
    mode = "one process" if args.one_process else "worker" if args.worker else "as the import decides"
    print(f"{args.path.name}; {mode} (PARALLEL_AFTER {pipeline.PARALLEL_AFTER:,}); load {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    for _ in range(args.repeat):
        m = measure(args.path, mode)
        critical = m["start"][1] + max(m["parse"][1], m["worker"]) + m["store"][1]
        print(f"  {m['rows']:,} rows read, {m['added']:,} added")
        print(f"  {'phase':10} {'wall s':>7} {'CPU s':>7}")
        for name in ("start", "parse", "store", "total"):
            print(f"  {name:10} {m[name][0]:>7.2f} {m[name][1]:>7.2f}")
        print(f"  worker CPU s {m['worker']:.2f}; all CPU s {m['total'][1] + m['worker_total']:.2f}")
        print(f"  critical path on two idle cores: {critical:.2f} s -> {m['rows'] / critical:,.0f} rows/s")
        for name, cpu in m["steps"].items():
            print(f"    store step: {name} {cpu:.2f} CPU s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
