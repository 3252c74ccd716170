"""The analysis stage: every step in order, atomic on failure, deterministic, incremental."""
from __future__ import annotations

import json

import pytest

from corpuskit import open_corpus
from corpuskit.analysis import pipeline
from corpuskit.analysis.pipeline import analyse_corpus
from corpuskit.errors import ValidationError
from tests.analysis_fixture import Fixture, table_rows
from tests.test_observations import days

DERIVED = {
    "clusters": "id", "cluster_members": "cluster_id, record_id", "signals": "id",
    "signal_evidence": "signal_id, ref_kind, ref_id", "signal_events": "id",
    "snapshots": "topic_id, date", "observations": "id", "meta": "key",
}


def seeded(corpus, last_day: str = "2024-03-31"):
    """Two beats over 40 days with a burst of one entity in both near the end."""
    f = Fixture(corpus)
    f.topic("ai-policy", "AI Policy")
    f.topic("chips", "Chips")
    f.entity("Nvidia", "org")
    f.entity("EU", "org")
    with corpus.transaction():
        for i, d in enumerate(days("2024-02-21", last_day)):
            burst = d >= "2024-03-26"
            f.records(6 + i % 3, d, topics=("ai-policy",), source="reddit", score=0.2,
                      entities={"EU": 1})
            f.records(5 + i % 2, d, topics=("chips",), source="news", score=-0.1)
            f.record(d, topics=("ai-policy", "chips"), source="bluesky", score=0.0,
                     entities={"Nvidia": 1})
            if burst:
                f.records(12, d, topics=("ai-policy", "chips"), source="hackernews", score=-0.6,
                          entities={"Nvidia": 2})
    return f


def snapshot_of(corpus) -> dict:
    return {t: table_rows(corpus, t, order) for t, order in DERIVED.items()}


def test_stage_runs_every_step_in_one_run(tmp_path):
    c = open_corpus(tmp_path / "c.db")
    seeded(c)
    out = analyse_corpus(c, progress=False)
    assert out["runId"] == "analyse-1"
    assert list(out["steps"]) == ["clusters", "signals", "snapshots", "observations"]
    assert out["steps"]["snapshots"]["written"] > 0
    assert out["steps"]["observations"]["byType"]["anomaly"] >= 1
    runs = c.conn.execute("SELECT id, stage, status, settings FROM runs").fetchall()
    assert [tuple(r)[:3] for r in runs] == [("analyse-1", "analyse", "done")]
    assert json.loads(runs[0][3]) == {"seed": 0}
    assert c.conn.execute("SELECT count(*) FROM signals").fetchone()[0] >= 1
    assert {r[0] for r in c.conn.execute("SELECT DISTINCT run_id FROM snapshots")} == {"analyse-1"}
    # the signals step ran before snapshots: their counts agree
    per_day = c.conn.execute(
        "SELECT count(*) FROM signals WHERE topic_id IS NOT NULL").fetchone()[0]
    assert c.conn.execute("SELECT sum(signal_count) FROM snapshots").fetchone()[0] == per_day
    c.close()


def test_a_failing_step_leaves_the_file_as_it_was(tmp_path, monkeypatch):
    path = tmp_path / "c.db"
    c = open_corpus(path)
    f = seeded(c, last_day="2024-03-30")
    analyse_corpus(c, progress=False)
    with c.transaction():
        f.records(30, "2024-03-31", topics=("chips",), source="news", score=-0.9)
    before = snapshot_of(c)
    runs_before = table_rows(c, "runs", "id")

    def broken(corpus, run_id, progress=False, **kwargs):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr("corpuskit.analysis.observations.build_observations", broken)
    with pytest.raises(RuntimeError, match="disk on fire"):
        analyse_corpus(c, progress=False)
    assert not c.conn.in_transaction
    c.close()
    reopened = open_corpus(path)
    after = snapshot_of(reopened)
    # the data is as it was; the run log keeps the failed run and the versions it ran with
    assert {k: v for k, v in after.items() if k != "meta"} == {k: v for k, v in before.items() if k != "meta"}
    assert [row for row in after["meta"] if not row[0].startswith("versions:")] == \
        [row for row in before["meta"] if not row[0].startswith("versions:")]
    runs_after = table_rows(reopened, "runs", "id")
    assert runs_after[:len(runs_before)] == runs_before and len(runs_after) == len(runs_before) + 1
    assert reopened.conn.execute("SELECT status FROM runs WHERE id = 'analyse-2'").fetchone()[0] == "failed"
    monkeypatch.undo()
    out = analyse_corpus(reopened, progress=False)  # and the next run works
    assert out["runId"] == "analyse-3" and out["steps"]["snapshots"]["written"] >= 1
    reopened.close()


def test_two_corpora_from_the_same_input_give_identical_tables():
    tables = []
    for _ in range(2):
        c = open_corpus(":memory:")
        seeded(c)
        analyse_corpus(c, progress=False)
        tables.append(snapshot_of(c))
        c.close()
    assert tables[0] == tables[1]
    assert len(tables[0]["snapshots"]) > 50 and tables[0]["observations"]


def test_rerun_without_changes_rewrites_nothing():
    c = open_corpus(":memory:")
    seeded(c)
    analyse_corpus(c, progress=False)
    before = snapshot_of(c)
    second = analyse_corpus(c, progress=False)
    assert second["steps"]["snapshots"]["written"] == 0
    assert second["steps"]["observations"]["new"] == second["steps"]["observations"]["updated"] == 0
    after = snapshot_of(c)
    for table in ("snapshots", "observations"):
        assert after[table] == before[table]
    c.close()


def test_one_new_day_rewrites_only_that_day():
    c = open_corpus(":memory:")
    f = seeded(c, last_day="2024-03-30")
    analyse_corpus(c, progress=False)
    with c.transaction():
        f.records(8, "2024-03-31", topics=("ai-policy",), source="reddit", score=0.2)
    out = analyse_corpus(c, progress=False)
    assert out["steps"]["snapshots"]["written"] == 1
    assert out["steps"]["snapshots"]["unchanged"] >= 2 * 39
    c.close()


def test_settings_are_checked_before_anything_is_written():
    c = open_corpus(":memory:")
    seeded(c)
    with pytest.raises(ValidationError, match="unknown analyse setting"):
        analyse_corpus(c, progress=False, colour="blue")
    with pytest.raises(ValidationError, match="unknown analyse step"):
        analyse_corpus(c, progress=False, steps=["snapshots", "tea"])
    with pytest.raises(ValidationError, match="dict"):
        analyse_corpus(c, progress=False, signals=3)
    assert c.conn.execute("SELECT count(*) FROM runs").fetchone()[0] == 0
    out = analyse_corpus(c, progress=False, steps="snapshots")
    assert list(out["steps"]) == ["snapshots"]
    assert c.conn.execute("SELECT count(*) FROM observations").fetchone()[0] == 0
    c.close()


def test_corpus_method_and_cli(tmp_path, capsys):
    from corpuskit.cli import main

    path = tmp_path / "c.db"
    c = open_corpus(path)
    seeded(c)
    assert c.analyse(progress=False)["runId"] == "analyse-1"
    c.close()
    assert main(["analyse", "--db", str(path), "--quiet"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["runId"] == "analyse-2"
    assert set(printed["steps"]) == set(pipeline.STEPS)


# -- on the session demo corpus (every stage run by build_demo) ----------------------

def _demo_truth(demo_corpus):
    return demo_corpus.get_meta("demo_ground_truth")


def test_demo_snapshots_match_the_topic_assignments(demo_corpus):
    conn = demo_corpus.conn
    stored = dict(conn.execute("SELECT topic_id, sum(total_records) FROM snapshots GROUP BY topic_id"))
    assigned = dict(conn.execute("SELECT topic_id, count(*) FROM topic_assignments GROUP BY topic_id"))
    assert stored and stored == assigned
    assert conn.execute("SELECT count(*) FROM runs WHERE stage = 'analyse' AND status = 'done'"
                        ).fetchone()[0] >= 1


def test_demo_planted_volume_spikes_are_volume_anomalies(demo_corpus):
    from corpuskit.api.keyed.queries import list_observations
    from datetime import date, timedelta

    found = [o["detail"] for o in list_observations(demo_corpus, type="anomaly", limit=1000)["data"]
             if o["detail"]["metric"] == "volume" and o["detail"]["direction"] == "up"]
    spikes = [e for e in _demo_truth(demo_corpus)["events"] if e["kind"] == "volume_spike"]
    assert spikes
    for event in spikes:
        lo = (date.fromisoformat(event["start"]) - timedelta(days=1)).isoformat()
        hi = (date.fromisoformat(event["end"]) + timedelta(days=1)).isoformat()
        assert any(d["topic"] == event["beat"] and lo <= d["peakDay"] <= hi for d in found), event


def test_demo_observation_types_and_severities(demo_corpus):
    from corpuskit.api.keyed.queries import list_observations

    data = list_observations(demo_corpus, limit=1000)["data"]
    kinds = {o["type"] for o in data}
    assert {"anomaly", "milestone"} <= kinds
    high = [o for o in data if o["severity"] == "high"]
    # a 60-day demo with a handful of planted events: observations stay a short, readable list
    assert len(data) <= 120 and len(high) <= 30
