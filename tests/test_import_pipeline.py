"""An import's parsing in a forked worker: the same tables, errors with their rows, bounded memory."""
import json
import multiprocessing
import os
import time

import pytest

from corpuskit import open_corpus
from corpuskit.errors import ImportFormatError, StrictImportError
from corpuskit.ingest import pipeline
from corpuskit.ingest.demo import iter_demo_records
from tests.conftest import HN_CSV, REDDIT_CSV, need_shared
from tests.test_import_store import _fingerprint

ONE_PROCESS = 10 ** 12


@pytest.fixture(autouse=True)
def _a_free_core(monkeypatch):
    """These tests start workers whatever the machine's load (tested on its own below)."""
    monkeypatch.setattr(pipeline, "spare_core", lambda: True)


def _spy(monkeypatch):
    """Count the workers started."""
    started = []
    real = pipeline._in_worker

    def spy(*args):
        started.append(1)
        return real(*args)
    monkeypatch.setattr(pipeline, "_in_worker", spy)
    return started


def _import_both_ways(tmp_path, monkeypatch, path, **kw):
    """Import ``path`` in one process and with a worker after the first chunk: (fingerprints, reports)."""
    started = _spy(monkeypatch)
    prints, reports = [], []
    for after in (ONE_PROCESS, pipeline.CHUNK):
        monkeypatch.setattr(pipeline, "PARALLEL_AFTER", after)
        db = tmp_path / f"c{after}.db"
        corpus = open_corpus(db)
        report = corpus.import_file(path, **kw)
        with corpus.transaction():   # the run's wall-clock times differ between any two imports
            corpus.conn.execute("UPDATE runs SET started_at = '', finished_at = ''")
        corpus.close()
        prints.append(_fingerprint(db))
        reports.append((report.read, report.added, report.duplicates, report.duplicates_by,
                        report.rejected, report.rejections, report.date_order, report.date_note,
                        report.warnings))
    assert len(started) == 1      # the second import only
    return prints, reports


def _hn_csv(path, n, bad=(), dates=None):
    """An HN-layout CSV of ``n`` rows; rows numbered in ``bad`` have no date."""
    lines = ["id,title,url,num_points,num_comments,author,created_at"]
    for i in range(1, n + 1):
        date = "" if i in bad else (dates or {}).get(i, f"{1 + i % 12}/{1 + i % 12}/2016 {i % 24}:{i % 60:02d}")
        lines.append(f"{i},Post number {i} about #Topic{i % 7},,1,1,user{i % 50},{date}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("name", ["hn", "reddit"])
def test_real_files_give_the_same_tables_both_ways(tmp_path, monkeypatch, name):
    path = need_shared(HN_CSV if name == "hn" else REDDIT_CSV)
    prints, reports = _import_both_ways(tmp_path, monkeypatch, path)
    assert prints[0] == prints[1]
    assert reports[0] == reports[1]
    assert reports[0][1] > 10_000


def test_the_demo_gives_the_same_tables_both_ways(tmp_path, monkeypatch):
    path = tmp_path / "demo.jsonl"
    with open(path, "w", encoding="utf-8") as out:
        for rec in iter_demo_records(7, 6000, 30):
            out.write(json.dumps(rec) + "\n")
    prints, reports = _import_both_ways(tmp_path, monkeypatch, path)
    assert prints[0] == prints[1]
    assert reports[0] == reports[1] and reports[0][1] == 6000


def test_day_first_dates_decided_in_the_worker_turn_the_guessed_rows(tmp_path, monkeypatch):
    # rows 1..4999 are ambiguous (day and month equal or both <= 12, read month-first);
    # row 4500, read by the worker, decides day-first: the staged guesses are turned round
    path = _hn_csv(tmp_path / "d.csv", 5000, dates={7: "03/04/2016 10:00", 4500: "25/04/2016 10:00"})
    prints, reports = _import_both_ways(tmp_path, monkeypatch, path)
    assert prints[0] == prints[1] and reports[0] == reports[1]
    assert reports[0][6] == "day-first" and "row 4500" in reports[0][7]
    corpus = open_corpus(tmp_path / f"c{pipeline.CHUNK}.db")
    assert corpus.conn.execute("SELECT published_at FROM records WHERE source_id = '7'").fetchone()[0] \
        .startswith("2016-04-03")
    corpus.close()


def test_bad_rows_read_by_the_worker_are_reported_with_their_numbers(tmp_path, monkeypatch):
    path = _hn_csv(tmp_path / "b.csv", 5000, bad={5, 3001, 4999})
    prints, reports = _import_both_ways(tmp_path, monkeypatch, path)
    assert prints[0] == prints[1] and reports[0] == reports[1]
    assert [n for n, _ in reports[0][5]] == [5, 3001, 4999]


def test_a_strict_import_fails_in_the_worker_with_its_rows_and_writes_nothing(tmp_path, monkeypatch):
    started = _spy(monkeypatch)
    monkeypatch.setattr(pipeline, "PARALLEL_AFTER", pipeline.CHUNK)
    path = _hn_csv(tmp_path / "s.csv", 6000, bad={3000 + k for k in range(12)})
    corpus = open_corpus(tmp_path / "s.db")
    with pytest.raises(StrictImportError) as info:
        corpus.import_file(path, strict=True)
    assert started == [1]
    assert [n for n, _ in info.value.rejections] == [3000 + k for k in range(10)]
    assert "row 3000: no publishedAt date" in str(info.value) and "nothing written" in str(info.value)
    assert corpus.count() == 0
    assert corpus.conn.execute("SELECT count(*) FROM records_fts").fetchone()[0] == 0
    assert corpus.conn.execute("SELECT count(*) FROM runs WHERE stage = 'import'").fetchone()[0] == 0
    corpus.close()


def test_an_error_raised_in_the_worker_is_the_same_error_and_nothing_is_written(tmp_path, monkeypatch):
    # day-first at row 10 (inline), month-first at row 4000 (in the worker): the whole import fails
    path = _hn_csv(tmp_path / "m.csv", 5000, dates={10: "13/04/2016 10:00", 4000: "04/13/2016 10:00"})
    messages = []
    for after in (ONE_PROCESS, pipeline.CHUNK):
        monkeypatch.setattr(pipeline, "PARALLEL_AFTER", after)
        corpus = open_corpus(tmp_path / f"m{after}.db")
        with pytest.raises(ImportFormatError) as info:
            corpus.import_file(path)
        messages.append(str(info.value))
        assert corpus.count() == 0
        assert corpus.conn.execute("SELECT count(*) FROM runs").fetchone()[0] == 0
        corpus.close()
    assert messages[0] == messages[1]
    assert "row 10 has '13/04/2016 10:00'" in messages[0] and "row 4000" in messages[0]


def test_a_failure_while_staging_ends_the_worker_and_writes_nothing(tmp_path, monkeypatch):
    from corpuskit.ingest.staging import Stage

    monkeypatch.setattr(pipeline, "PARALLEL_AFTER", pipeline.CHUNK)
    started = _spy(monkeypatch)
    real, calls = Stage.write, []

    def flaky(self, prepared):
        calls.append(1)
        if len(calls) == 3:          # the second chunk from the worker
            raise OSError("disk full")
        return real(self, prepared)

    monkeypatch.setattr(Stage, "write", flaky)
    corpus = open_corpus(tmp_path / "f.db")
    with pytest.raises(OSError, match="disk full") as info:   # info holds the traceback
        corpus.import_file(_hn_csv(tmp_path / "f.csv", 20000))
    assert started == [1]
    assert multiprocessing.active_children() == []   # ended while the error is still held
    assert corpus.count() == 0 and corpus.conn.execute("SELECT count(*) FROM runs").fetchone()[0] == 0
    monkeypatch.undo()
    corpus.close()


def test_small_imports_stay_in_one_process(tmp_path, monkeypatch):
    started = _spy(monkeypatch)
    corpus = open_corpus(tmp_path / "small.db")
    report = corpus.import_file(_hn_csv(tmp_path / "small.csv", pipeline.PARALLEL_AFTER))
    assert report.added == pipeline.PARALLEL_AFTER and started == []
    report = corpus.import_file(_hn_csv(tmp_path / "more.csv", pipeline.PARALLEL_AFTER + 1))
    assert report.added == 1 and started == [1]   # the first PARALLEL_AFTER rows repeat
    corpus.close()


@pytest.mark.parametrize("load, worker", [(0.2, True), (1.0, True), (1.5, False), (9.0, False)])
def test_a_worker_starts_only_when_a_core_is_free(tmp_path, monkeypatch, load, worker):
    monkeypatch.undo()                                  # the real spare_core
    monkeypatch.setattr(pipeline.os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr(pipeline.os, "getloadavg", lambda: (load, load, load))
    assert pipeline.spare_core() is worker
    started = _spy(monkeypatch)
    monkeypatch.setattr(pipeline, "PARALLEL_AFTER", pipeline.CHUNK)
    corpus = open_corpus(tmp_path / "busy.db")
    assert corpus.import_file(_hn_csv(tmp_path / "busy.csv", 5000)).added == 5000
    assert started == ([1] if worker else [])
    corpus.close()


def test_one_core_never_starts_a_worker(monkeypatch):
    monkeypatch.undo()
    monkeypatch.setattr(pipeline.os, "sched_getaffinity", lambda pid: {0}, raising=False)
    monkeypatch.setattr(pipeline.os, "getloadavg", lambda: (0.0, 0.0, 0.0))
    assert pipeline.spare_core() is False


def test_without_fork_every_chunk_is_handled_in_the_caller(tmp_path, monkeypatch):
    started = _spy(monkeypatch)
    monkeypatch.setattr(pipeline, "PARALLEL_AFTER", 0)
    monkeypatch.setattr(pipeline, "fork_available", lambda: False)
    corpus = open_corpus(tmp_path / "nf.db")
    assert corpus.import_file(_hn_csv(tmp_path / "nf.csv", 5000)).added == 5000
    assert started == []
    corpus.close()


# -- the pipeline itself ----------------------------------------------------------------------


def _counting(n, counter):
    for i in range(n):
        with counter.get_lock():
            counter.value += 1
        yield i


def _take(items):
    block = [next(items, None) for _ in range(pipeline.CHUNK)]
    block = [b for b in block if b is not None]
    return len(block), len(block) < pipeline.CHUNK


def test_the_worker_holds_at_most_the_queue_ahead_of_the_caller():
    counter = multiprocessing.get_context("fork").Value("q", 0)
    results = pipeline.chunked(_counting(100 * pipeline.CHUNK, counter), _take, parallel_after=0,
                               queue_size=2)
    assert next(results) == pipeline.CHUNK
    time.sleep(1.5)                       # the worker runs ahead until the queue is full
    ahead = counter.value
    assert 2 * pipeline.CHUNK <= ahead <= (2 + 2) * pipeline.CHUNK   # queue + one blocked + one taken
    results.close()                       # the caller stops: the worker is ended
    assert counter.value <= (2 + 3) * pipeline.CHUNK


def test_results_come_back_in_order_with_the_workers_state():
    seen = []
    state = {"last": None}

    def work(items):
        block = [x for _, x in zip(range(pipeline.CHUNK), items)]
        if block:
            state["last"] = block[-1]
        return block, len(block) < pipeline.CHUNK

    adopted = []
    for block in pipeline.chunked(iter(range(7 * pipeline.CHUNK + 5)), work, lambda: dict(state),
                                  parallel_after=2 * pipeline.CHUNK, on_state=adopted.append):
        seen.extend(block)
    assert seen == list(range(7 * pipeline.CHUNK + 5))
    assert adopted == [{"last": 7 * pipeline.CHUNK + 4}]
    assert state["last"] == 2 * pipeline.CHUNK - 1   # the caller's own copy stopped at the hand-over


def test_a_worker_that_dies_is_a_clear_error():
    parent = os.getpid()

    def work(items):
        if os.getpid() != parent:
            os._exit(3)
        return 1, False

    with pytest.raises(RuntimeError, match="exit code 3"):
        list(pipeline.chunked(iter(range(10 ** 6)), work, parallel_after=pipeline.CHUNK))


def test_an_exception_that_will_not_pickle_carries_the_workers_traceback():
    class Local(Exception):   # a local class cannot be pickled
        pass

    def work(items):
        raise Local("broken row 17")

    with pytest.raises(RuntimeError, match="(?s)worker process failed.*broken row 17"):
        list(pipeline.chunked(iter(range(10)), work, parallel_after=0))


_ORPHAN = """
import os, sys, time
from corpuskit.ingest import pipeline
pipeline.spare_core = lambda: True
def work(items):
    return [next(items) for _ in range(10)], False
results = pipeline.chunked(iter(range(10 ** 12)), work, parallel_after=0, queue_size=1)
next(results)
import multiprocessing
print(multiprocessing.active_children()[0].pid, flush=True)
time.sleep(60)
"""


def test_a_killed_caller_leaves_no_worker_behind():
    import signal
    import subprocess
    import sys

    from tests.conftest import ROOT

    env = dict(os.environ, PYTHONPATH=str(ROOT))
    caller = subprocess.Popen([sys.executable, "-c", _ORPHAN], stdout=subprocess.PIPE, env=env, cwd=ROOT)
    worker = int(caller.stdout.readline())
    os.kill(worker, 0)                       # alive, blocked on the full queue
    caller.send_signal(signal.SIGKILL)
    caller.wait()
    for _ in range(50):
        try:
            os.kill(worker, 0)
        except ProcessLookupError:
            break
        try:                                 # reaped by init; a zombie counts as gone
            with open(f"/proc/{worker}/stat") as fh:
                if fh.read().split(")")[-1].split()[0] == "Z":
                    break
        except FileNotFoundError:
            break
        time.sleep(0.1)
    else:
        os.kill(worker, 9)
        pytest.fail("the worker outlived its killed caller by 5 s")
