"""The per-key rate limiter: windows, refusals, headers, and exactness under concurrency."""
from __future__ import annotations

import json
import subprocess
import sys
import threading
from datetime import datetime, timedelta, timezone

import pytest

from corpuskit import open_corpus
from corpuskit.api import ratelimit
from corpuskit.api.errors import JsonResponse
from corpuskit.store.api_keys import lookup_key

T0 = datetime(2025, 3, 14, 23, 58, 30, 250000, tzinfo=timezone.utc)


@pytest.fixture
def file_corpus(tmp_path):
    c = open_corpus(tmp_path / "limits.db")
    yield c
    c.close()


def _key(corpus, tier="free", **limits):
    key = corpus.create_key(tier, **limits)
    return lookup_key(corpus.conn, key)


def test_free_minute_window_refuses_sixth_and_resets_at_top_of_minute(file_corpus):
    info = _key(file_corpus)
    decisions = [ratelimit.consume(ratelimit.counters_conn(file_corpus), info.id, 5, 100, T0) for _ in range(6)]
    assert [d.allowed for d in decisions] == [True] * 5 + [False]
    assert [d.remaining for d in decisions[:5]] == [4, 3, 2, 1, 0]
    refused = decisions[-1]
    assert refused.message == "Rate limit exceeded"
    assert refused.retry_after == 30  # 23:58:30.25 -> 23:59:00, rounded up
    assert refused.headers()["Retry-After"] == "30"
    # the refusal consumed nothing in either window
    assert ratelimit.usage(ratelimit.counters_conn(file_corpus), info.id, T0) == {"minute": 5, "day": 5}
    # still refused one second before the top of the minute, allowed right at it
    assert not ratelimit.consume(ratelimit.counters_conn(file_corpus), info.id, 5, 100,
                                 T0 + timedelta(seconds=29.7)).allowed
    allowed = ratelimit.consume(ratelimit.counters_conn(file_corpus), info.id, 5, 100, T0 + timedelta(seconds=29.75))
    assert allowed.allowed and allowed.minute_used == 1 and allowed.day_used == 6


def test_day_window_refuses_with_daily_message_and_resets_at_midnight(file_corpus):
    info = _key(file_corpus, "enterprise", per_minute=1000, per_day=3)
    for _ in range(3):
        assert ratelimit.consume(ratelimit.counters_conn(file_corpus), info.id, 1000, 3, T0).allowed
    refused = ratelimit.consume(ratelimit.counters_conn(file_corpus), info.id, 1000, 3, T0)
    assert not refused.allowed
    assert refused.message == "Daily request limit reached"
    assert refused.window == "day"
    assert refused.retry_after == 90  # to midnight UTC
    headers = refused.headers()
    assert headers["RateLimit-Limit"] == "3" and headers["RateLimit-Remaining"] == "0"
    after_midnight = T0 + timedelta(seconds=90)
    fresh = ratelimit.consume(ratelimit.counters_conn(file_corpus), info.id, 1000, 3, after_midnight)
    assert fresh.allowed and fresh.day_used == 1
    # finished windows are cleaned up once a new minute starts
    windows = [r[0] for r in ratelimit.counters_conn(file_corpus).execute(
        "SELECT window FROM rate_counters WHERE key_id = ? ORDER BY window", (info.id,))]
    assert windows == ["d:2025-03-15", "m:2025-03-15T00:00"]


def test_daily_refusal_wins_over_minute_refusal(file_corpus):
    info = _key(file_corpus)
    for _ in range(2):
        assert ratelimit.consume(ratelimit.counters_conn(file_corpus), info.id, 2, 2, T0).allowed
    refused = ratelimit.consume(ratelimit.counters_conn(file_corpus), info.id, 2, 2, T0)
    assert refused.message == "Daily request limit reached" and refused.retry_after == 90


def test_headers_report_the_window_closer_to_running_out(file_corpus):
    info = _key(file_corpus, "enterprise", per_minute=10, per_day=4)
    first = ratelimit.consume(ratelimit.counters_conn(file_corpus), info.id, 10, 4, T0)
    assert first.window == "day" and first.remaining == 3 and first.limit == 4
    headers = first.headers()
    assert "Retry-After" not in headers
    assert headers["RateLimit-Policy"] == "10;w=60, 4;w=86400"
    assert headers["RateLimit-Reset"] == "90"


def test_seconds_to_resets_are_at_least_one():
    exact = datetime(2025, 1, 1, 0, 0, 0, tzinfo=timezone.utc)
    assert ratelimit.seconds_to_resets(exact) == (60, 86400)
    late = datetime(2025, 1, 1, 23, 59, 59, 999999, tzinfo=timezone.utc)
    assert ratelimit.seconds_to_resets(late) == (1, 1)


def test_check_and_count_returns_headers_then_raises_429(file_corpus, monkeypatch):
    monkeypatch.delenv("CORPUSKIT_UPGRADE_URL", raising=False)
    info = _key(file_corpus)
    clock = lambda: T0  # noqa: E731
    for i in range(5):
        headers = ratelimit.check_and_count(file_corpus, info, now=clock)
        assert headers["RateLimit-Remaining"] == str(4 - i)
    with pytest.raises(JsonResponse) as caught:
        ratelimit.check_and_count(file_corpus, info, now=clock)
    answer = caught.value
    assert answer.status_code == 429
    assert answer.payload == {"error": "Rate limit exceeded",
                              "upgradeUrl": "http://127.0.0.1:8000/docs#keyed-headers"}
    assert answer.headers["Retry-After"] == "30"
    assert answer.headers["RateLimit-Remaining"] == "0"
    stamped = ratelimit.counters_conn(file_corpus).execute(
        "SELECT last_used_at FROM key_usage WHERE key_id = ?", (info.id,)).fetchone()[0]
    assert stamped == "2025-03-14T23:58:30Z"


def test_module_clock_is_used_when_none_is_passed(file_corpus, monkeypatch):
    info = _key(file_corpus)
    monkeypatch.setattr(ratelimit, "clock", lambda: T0)
    ratelimit.check_and_count(file_corpus, info)
    assert ratelimit.usage(ratelimit.counters_conn(file_corpus), info.id, T0)["minute"] == 1


def test_upgrade_url_is_configurable(file_corpus, monkeypatch):
    monkeypatch.delenv("CORPUSKIT_UPGRADE_URL", raising=False)
    file_corpus.set_meta("upgrade_url", "https://example.org/tiers")
    assert ratelimit.upgrade_url(file_corpus) == "https://example.org/tiers"
    assert ratelimit.upgrade_url(file_corpus, "https://example.org/env") == "https://example.org/env"


def test_threads_with_separate_connections_get_exactly_the_allowance(file_corpus):
    info = _key(file_corpus, "research")
    allowed = []
    lock = threading.Lock()
    start = threading.Barrier(8)

    def client():
        c = open_corpus(file_corpus.path)
        start.wait()
        mine = sum(ratelimit.consume(ratelimit.counters_conn(c), info.id, 60, 5000, T0).allowed for _ in range(15))
        with lock:
            allowed.append(mine)
        c.close()

    threads = [threading.Thread(target=client) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(allowed) == 60  # 120 attempts, a 60/minute allowance
    assert ratelimit.usage(ratelimit.counters_conn(file_corpus), info.id, T0) == {"minute": 60, "day": 60}


# Each child opens its connection, says "ready" and waits for "go" on its stdin, so both hammer the
# key at the same moment: a check-then-count that is not one atomic step loses counts here.
_CHILD = """
import sys
from datetime import datetime
from corpuskit import open_corpus
from corpuskit.api.ratelimit import consume, counters_conn, usage
c = open_corpus(sys.argv[1])
now = datetime.fromisoformat(sys.argv[3])
conn = counters_conn(c)
usage(conn, int(sys.argv[2]), now)   # the connection is open and has read the file
print("ready", flush=True)
if sys.stdin.readline().strip() != "go":
    sys.exit(3)
print(sum(consume(conn, int(sys.argv[2]), 600, 5000, now).allowed for _ in range(500)), flush=True)
"""


def _start_together(argv_list, timeout=60):
    """Start one process per argv, wait until each prints "ready", then send all of them "go"."""
    procs = [subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
             for argv in argv_list]
    try:
        for p in procs:
            line = p.stdout.readline().strip()
            assert line == "ready", f"child did not get ready: {line!r}"
        for p in procs:   # two writes a few microseconds apart: both are blocked reading them
            p.stdin.write("go\n")
            p.stdin.flush()
        outs = [p.communicate(timeout=timeout)[0].strip() for p in procs]
    except BaseException:
        for p in procs:
            p.kill()
        raise
    return procs, outs


def test_two_processes_share_the_counters_exactly(file_corpus):
    """Two processes hammer one key from the same instant: together they are allowed exactly 600 of 1,000.

    The allowance is large so that both are still counting (not only refused) for hundreds of
    requests side by side: a lost update anywhere in that stretch lets one request too many through.
    """
    info = _key(file_corpus, "research")
    file_corpus.close()
    argv = [sys.executable, "-c", _CHILD, str(file_corpus.path), str(info.id), T0.isoformat()]
    procs, outs = _start_together([argv, argv])
    assert all(p.returncode == 0 for p in procs), outs
    assert sum(int(o) for o in outs) == 600, outs
    c = open_corpus(file_corpus.path)
    assert ratelimit.usage(ratelimit.counters_conn(c), info.id, T0) == {"minute": 600, "day": 600}
    c.close()


def test_counters_live_in_their_own_file_and_a_writer_on_the_corpus_never_blocks_them(tmp_path):
    """A keyed request answers while another connection holds the corpus's write lock."""
    import time

    from corpuskit.api import create_app
    from corpuskit.store.connection import connect
    from corpuskit.store.limits import limits_path
    from tests.api_fixtures import NOW, build_api_corpus
    from tests.http_client import call

    corpus = open_corpus(tmp_path / "c.db", now=NOW)
    build_api_corpus(corpus)
    key = corpus.create_key(tier="research")
    app = create_app(corpus)
    assert limits_path(corpus.path).exists()
    assert (limits_path(corpus.path).stat().st_mode & 0o777) == 0o600
    writer = connect(corpus.path)
    writer.execute("BEGIN IMMEDIATE")  # as an import or a stage does
    writer.execute("INSERT INTO meta(key, value) VALUES ('held', '1')")
    answers = []
    started = time.monotonic()
    thread = threading.Thread(target=lambda: answers.append(
        call(app, "GET", "/api/v1/topics", {"x-api-key": key})))
    thread.start()
    thread.join(timeout=10)
    waited = time.monotonic() - started
    writer.execute("ROLLBACK")
    writer.close()
    assert answers and answers[0][0] == 200, answers
    assert waited < 2.0
    assert answers[0][1]["ratelimit-remaining"] == "59"
    corpus.close()


def test_remaining_is_never_repeated_under_concurrency(file_corpus):
    info = _key(file_corpus, "enterprise", per_minute=500, per_day=10_000)
    seen = []
    lock = threading.Lock()
    start = threading.Barrier(8)

    def client():
        c = open_corpus(file_corpus.path)
        start.wait()
        mine = [ratelimit.check_and_count(c, info, now=lambda: T0)["RateLimit-Remaining"] for _ in range(20)]
        with lock:
            seen.extend(mine)
        c.close()

    threads = [threading.Thread(target=client) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(map(int, seen)) == list(range(500 - 160, 500))  # each value once


def test_a_limits_file_left_by_another_corpus_is_emptied(tmp_path):
    from corpuskit.store.limits import limit_store, limits_path

    first = open_corpus(tmp_path / "c.db")
    info = _key(first)
    ratelimit.consume(ratelimit.counters_conn(first), info.id, 5, 100, T0)
    first.close()
    for suffix in ("", "-wal", "-shm"):  # the corpus is rebuilt; its limits file stays
        (tmp_path / ("c.db" + suffix)).unlink(missing_ok=True)
    assert limits_path(tmp_path / "c.db").exists()
    second = open_corpus(tmp_path / "c.db")
    again = _key(second)
    assert again.id == info.id  # key ids start again at 1
    assert ratelimit.usage(limit_store(second).conn, again.id, T0) == {"minute": 0, "day": 0}
    second.close()


def test_upgrade_url_is_absolute(file_corpus, monkeypatch):
    monkeypatch.delenv("CORPUSKIT_UPGRADE_URL", raising=False)
    assert ratelimit.upgrade_url(file_corpus, base="https://api.example.org") == \
        "https://api.example.org/docs#keyed-headers"
    assert ratelimit.upgrade_url(file_corpus, configured="/pricing", base="http://h:8000") == "http://h:8000/pricing"
    assert ratelimit.upgrade_url(file_corpus, configured="https://x.org/t") == "https://x.org/t"


def test_in_memory_corpus_counts_in_a_private_temporary_file():
    from corpuskit.store.limits import limit_store

    memory = open_corpus()
    info = _key(memory)
    for _ in range(5):
        ratelimit.check_and_count(memory, info, now=lambda: T0)
    with pytest.raises(JsonResponse):
        ratelimit.check_and_count(memory, info, now=lambda: T0)
    path = limit_store(memory).path
    assert path.exists() and path.name == "memory.limits.db"
    memory.close()
