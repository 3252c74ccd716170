"""Runs and their processes: a killed enrich leaves no worker behind and no run 'running' for ever."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

import pytest

from corpuskit import open_corpus
from corpuskit.api.response_cache import data_version
from corpuskit.store.runs import fail_abandoned_runs, process_alive, this_process
from tests.conftest import ROOT

# An enrich whose sentiment workers are slow and say who they are, so the test can
# kill the parent while they have queued work.
SLOW_ENRICH = """
import os, sys, time
from pathlib import Path
from corpuskit import open_corpus
from corpuskit.enrich.sentiment import VaderScorer

class SlowScorer(VaderScorer):
    def score_many(self, texts):
        Path(sys.argv[2], f"worker-{os.getpid()}").write_text(str(os.getppid()))
        time.sleep(0.5)
        return super().score_many(texts)

c = open_corpus(sys.argv[1])
words = "market rally vaccine election climate budget court storm league film".split()
c.add_records([{"source": "news", "contentText": f"{words[i % 10]} report {i} {words[(i * 7) % 10]}",
                "publishedAt": f"2020-01-{1 + i % 28:02d}"} for i in range(1200)])
print("enriching", flush=True)
c.enrich(workers=2, chunk_size=40, scorer=SlowScorer(), progress=False)
"""


def _wait_for(predicate, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.1)
    return predicate()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="the enrich pool forks")
def test_sigkill_during_enrich_leaves_no_workers_and_the_run_is_failed_on_next_open(tmp_path):
    db, marks = tmp_path / "c.db", tmp_path / "marks"
    marks.mkdir()
    proc = subprocess.Popen([sys.executable, "-c", SLOW_ENRICH, str(db), str(marks)],
                            env=dict(os.environ, PYTHONPATH=str(ROOT)), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert _wait_for(lambda: len(list(marks.glob("worker-*"))) >= 2, 120), proc.stderr.read() \
            if proc.poll() is not None else "no workers started"
        workers = sorted(int(p.name.split("-")[1]) for p in marks.glob("worker-*"))
        assert all(int(p.read_text()) == proc.pid for p in marks.glob("worker-*"))
        assert all(process_alive(pid, None) for pid in workers)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        # the workers had ~25 s of queued chunks; they must go within seconds
        t0 = time.monotonic()
        assert _wait_for(lambda: not any(process_alive(pid, None) for pid in workers), 10)
        assert time.monotonic() - t0 < 10
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    import sqlite3

    raw = sqlite3.connect(db)
    status = raw.execute("SELECT status, pid FROM runs WHERE stage = 'enrich'").fetchone()
    raw.close()
    assert status == ("running", proc.pid)      # nobody marked it: the process was killed
    c = open_corpus(db)                         # the next open marks it
    assert tuple(c.conn.execute("SELECT status, finished_at IS NOT NULL FROM runs "
                                "WHERE stage = 'enrich'").fetchone()) == ("failed", 1)
    assert data_version(c.conn) is not None     # the API caches work again
    summary = c.enrich(progress=False)          # and the stage resumes
    assert summary["totalEnriched"] == 1200


def test_a_running_run_of_a_live_process_is_left_alone(tmp_path):
    c = open_corpus(tmp_path / "c.db")
    with c.run_stage("analyse") as run_id:
        assert fail_abandoned_runs(c.conn) == []
        other = open_corpus(tmp_path / "c.db")   # opening again while it runs
        assert other.conn.execute("SELECT status FROM runs WHERE id = ?", (run_id,)).fetchone()[0] == "running"
    row = c.conn.execute("SELECT status, pid, host, process_started FROM runs WHERE id = ?", (run_id,)).fetchone()
    pid, host, started = this_process()
    assert tuple(row) == ("done", pid, host, started)


def test_runs_of_dead_or_reused_pids_and_other_hosts(tmp_path):
    c = open_corpus(tmp_path / "c.db")
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    pid, host, started = this_process()
    rows = [("enrich-1", dead.pid, host, None),           # its process is gone
            ("enrich-2", pid, host, "ticks:1"),           # this pid, but a process that started earlier
            ("enrich-3", 999999, "another-machine", None),  # cannot be checked from here
            ("enrich-4", pid, host, started)]             # this very process
    with c.transaction():
        c.conn.executemany("INSERT INTO runs(id, stage, started_at, pid, host, process_started) "
                           "VALUES (?, 'enrich', '2020-01-01T00:00:00Z', ?, ?, ?)", rows)
    if started is None:
        pytest.skip("no process start time on this platform")
    assert fail_abandoned_runs(c.conn) == ["enrich-1", "enrich-2"]
    assert dict(c.conn.execute("SELECT id, status FROM runs")) == {
        "enrich-1": "failed", "enrich-2": "failed", "enrich-3": "running", "enrich-4": "running"}
    assert socket.gethostname() == host


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
@pytest.mark.parametrize("mechanism", ["pdeathsig", "watchdog"])
def test_a_child_exits_when_its_parent_is_killed(mechanism):
    """die_with_parent in a grandchild whose parent is SIGKILLed, by each mechanism alone."""
    if mechanism == "pdeathsig" and not sys.platform.startswith("linux"):
        pytest.skip("PR_SET_PDEATHSIG is Linux only")
    # pdeathsig: the watchdog polls once an hour, so only the kernel's signal can be quick;
    # watchdog: the platform is disguised, so no prctl is made
    setup = ("poll = 3600\n" if mechanism == "pdeathsig" else "poll = 0.2\nsys.platform = 'other'\n")
    script = (
        "import os, sys, time\n"
        "from corpuskit.enrich.workers import die_with_parent\n"
        + setup +
        "parent = os.getpid()\n"
        "child = os.fork()\n"
        "if child == 0:\n"
        "    how = die_with_parent(parent, poll_seconds=poll)\n"
        "    print(os.getpid(), how, flush=True)\n"
        "    time.sleep(600)\n"
        "    os._exit(0)\n"
        "time.sleep(600)\n")
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                            env=dict(os.environ, PYTHONPATH=str(ROOT)))
    try:
        pid, how = proc.stdout.readline().split()
        child = int(pid)
        assert how == ("pdeathsig+watchdog" if mechanism == "pdeathsig" else "watchdog")
        assert process_alive(child, None)
    finally:
        proc.kill()
        proc.wait()
    assert _wait_for(lambda: not process_alive(child, None), 5)
