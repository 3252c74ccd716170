"""Scheduled collection: intervals, the TOML config, rounds, failures inside a round, the CLI."""
from __future__ import annotations

import time
from pathlib import Path

import pytest

from corpuskit import open_corpus
from corpuskit.cli import main
from corpuskit.errors import ValidationError
from corpuskit.ingest.collectors import load_state, source_health
from corpuskit.ingest.collectors.http import HttpClient
from corpuskit.ingest.collectors.replay import ReplayServer
from corpuskit.ingest.collectors.scheduler import Job, Scheduler, load_config, parse_interval

FIXTURES = Path(__file__).parent / "fixtures" / "collect"


@pytest.fixture
def server():
    with ReplayServer() as srv:
        srv.load_cassette(FIXTURES / "cassette_initial.json")
        yield srv


def fast_client(source):
    return HttpClient(source, timeout=2, sleep=lambda s: None, max_attempts=2, backoff=0.01)


def test_parse_interval():
    assert parse_interval("15m") == 900
    assert parse_interval("30s") == parse_interval("30") == parse_interval(30) == 30
    assert parse_interval("2h") == 7200 and parse_interval("1d") == 86400
    assert parse_interval("1.5min") == 90
    for bad in ("", "soon", "15 minutes", "0s", "-5m"):
        with pytest.raises(ValidationError, match="interval"):
            parse_interval(bad)


def test_config_file(tmp_path):
    path = tmp_path / "collect.toml"
    path.write_text('every = "10m"\nrun_pipeline = true\n\n'
                    '[[collect]]\nsource = "hackernews"\nquery = "sqlite"\nmax = 50\ntags = "comment"\n\n'
                    '[[collect]]\nsource = "reddit"\nquery = "science+technology"\ntopic = "science"\n')
    config = load_config(path)
    assert config.every == 600 and config.run_pipeline
    hn, reddit = config.jobs
    assert (hn.source, hn.query, hn.max_records, hn.options) == ("hackernews", "sqlite", 50, {"tags": "comment"})
    assert hn.collector().tags == "comment"
    assert reddit.topic == "science"


@pytest.mark.parametrize("text, message", [
    ("", "no \\[\\[collect\\]\\] entries"),
    ("[[collect]]\nquery = 'x'\n", "needs a source"),
    ("[[collect]]\nsource = 'friendster'\n", "no collector for 'friendster'"),
    ("[[collect]]\nsource = 'reddit'\nquery = 'bad/name'\n", "not a subreddit name"),
    ("[[collect]]\nsource = 'arxiv'\nquery = 'x'\nfavourite = 1\n", "unexpected keyword"),
    ("every = \n", "not valid TOML"),
])
def test_bad_config_files(tmp_path, text, message):
    path = tmp_path / "collect.toml"
    path.write_text(text)
    with pytest.raises(ValidationError, match=message):
        load_config(path)
    with pytest.raises(ValidationError, match="no such config file"):
        load_config(tmp_path / "missing.toml")


def test_rounds_on_a_grid_with_failures_isolated(corpus, server):
    jobs = [Job("hackernews", "sqlite", options={"base_url": server.base_url("hackernews"),
                                                "page_size": 3}),
            Job("reddit", "science", options={"base_url": server.base_url("reddit")}),   # no recording
            Job("arxiv", "sentiment", options={"base_url": server.base_url("arxiv"), "page_size": 3})]
    now = [0.0]
    sleeps = []

    def sleep(seconds):
        sleeps.append(seconds)
        now[0] += seconds

    def clock():
        now[0] += 0.25                      # each look at the clock: a quarter second of work
        return now[0]

    pipeline_calls = []
    rounds = []
    scheduler = Scheduler(jobs, "10s", rounds=3, run_pipeline=True, sleep=sleep, clock=clock,
                          pipeline=lambda c: pipeline_calls.append(c.count()) or "ran",
                          on_round=rounds.append, client_factory=fast_client).run(corpus)
    assert [r.number for r in scheduler.rounds_] == [1, 2, 3] and rounds == scheduler.rounds_
    first, second, _ = scheduler.rounds_
    assert first.added == 10 and second.added == 0
    assert [e[0] for e in first.errors] == ["reddit"] and "HTTP 404" in first.errors[0][2]
    assert pipeline_calls == [10] and first.pipeline == "ran" and second.pipeline is None
    assert len(sleeps) == 2 and all(9 < s < 10 for s in sleeps)   # waits to the next 10 s slot
    health = {h["source"]: h for h in source_health(corpus)}
    assert health["reddit"]["healthy"] is False and health["reddit"]["recordCount"] == 0
    assert health["hackernews"]["healthy"] and health["arxiv"]["healthy"]
    assert "round 1" in first.summary() and "reddit 'science'" in first.summary()


def test_scheduler_rejects_bad_settings(corpus):
    with pytest.raises(ValidationError, match="rounds must be at least 1"):
        Scheduler([Job("hackernews", "x")], "1s", rounds=0).run(corpus)
    with pytest.raises(ValidationError, match="no jobs"):
        Scheduler([], "1s", rounds=1).run(corpus)


def test_cli_collect_once(tmp_path, server, capsys):
    db = tmp_path / "c.db"
    code = main(["collect", "hackernews", "--db", str(db), "--query", "sqlite", "--max", "4",
                 "--base-url", server.base_url("hackernews"), "--topic", "databases", "--quiet",
                 "--option", "page_size=3"])
    assert code == 0
    assert "hackernews 'sqlite': 2 pages, fetched 4, added 4" in capsys.readouterr().out
    with open_corpus(db) as corpus:
        assert corpus.count() == 4 and set(corpus.records()["topic"]) == {"databases"}
        assert load_state(corpus.conn, "hackernews", "sqlite")["newest"] == "2024-05-01T11:00:00Z"


def test_cli_collect_failure_exits_2_and_names_the_source(tmp_path, server, capsys):
    code = main(["collect", "reddit", "--db", str(tmp_path / "c.db"), "--query", "nothing_here",
                 "--base-url", server.base_url("reddit"), "--quiet"])
    assert code == 2
    assert "corpuskit: error: reddit: HTTP 404" in capsys.readouterr().err


def test_cli_collect_needs_a_source(tmp_path, capsys):
    assert main(["collect", "--db", str(tmp_path / "c.db")]) == 2
    assert "give a SOURCE" in capsys.readouterr().err


def test_cli_schedule_every_1s_two_rounds(tmp_path, server, capsys):
    config = tmp_path / "collect.toml"
    config.write_text(
        f'[[collect]]\nsource = "gdelt"\nquery = "heatwave"\npage_size = 3\nmin_interval = 0\n'
        f'base_url = "{server.base_url("gdelt")}"\n\n'
        f'[[collect]]\nsource = "google_news"\nquery = "renewable energy"\nmin_interval = 0\n'
        f'base_url = "{server.base_url("google_news")}"\n')
    db = tmp_path / "c.db"
    started = time.monotonic()
    code = main(["collect", "--every", "1s", "--config", str(config), "--rounds", "2",
                 "--db", str(db), "--quiet"])
    elapsed = time.monotonic() - started
    out = capsys.readouterr().out
    assert code == 0
    assert "collecting 2 source queries every 1 s for 2 rounds" in out
    assert "round 1" in out and "round 2" in out
    assert "gdelt 'heatwave': 2 pages, fetched 5, added 5" in out
    assert 0.9 <= elapsed < 10
    with open_corpus(db) as corpus:
        assert corpus.count() == 9
        assert corpus.clock_mode == "live"
        runs = corpus.conn.execute("SELECT count(*) FROM runs WHERE stage='collect'").fetchone()[0]
        assert runs == 4
