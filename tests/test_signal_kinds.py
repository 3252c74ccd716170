"""The registry of signal kinds: the shipped kinds, and a new detector declared in one class.

A detector class declares its kind's names, sign, prose and evidence and registers it once
(:mod:`corpuskit.analysis.signals.kinds`); the replay, the story prose, the frames and both HTTP
interfaces then treat its signals as their own without any other module changing. The check that
no other module switches on a kind's name is in ``tests/test_layers.py``.
"""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from corpuskit import open_corpus
from corpuskit.analysis.signals import (Detector, DivergenceDetector, HourlyVolumeDetector, NoveltyDetector,
                                        SentimentShiftDetector, VolumeSpikeDetector, detect_signals)
from corpuskit.analysis.signals import kinds
from corpuskit.analysis.signals.detector import SignalWords
from corpuskit.analysis.signals.track import Track
from corpuskit.api.bearer import queries as bearer_queries
from corpuskit.api.openapi.bearer import bearer_document
from corpuskit.api.openapi.keyed import keyed_document
from corpuskit.errors import ValidationError
from corpuskit.narrate import prose
from corpuskit.signals import KINDS, detect

from tests.api_v1_common import V1
from tests.signal_fixture import build_fixture


def test_the_shipped_kinds_in_the_order_every_list_shows_them():
    assert kinds.kind_names() == ("volume_spike", "sentiment_shift", "novelty", "divergence")
    assert tuple(kinds.SIGNAL_KINDS) == kinds.kind_names()
    assert kinds.v1_kinds() == {"velocity": "volume_spike", "novelty": "novelty", "divergence": "divergence"}
    assert dict(bearer_queries.STORED_TO_V1_KIND) == {"volume_spike": "velocity", "novelty": "novelty",
                                                      "divergence": "divergence"}
    assert [kinds.signal_kind(k) for k in kinds.kind_names()] == [
        VolumeSpikeDetector, SentimentShiftDetector, NoveltyDetector, DivergenceDetector]
    assert HourlyVolumeDetector.kind == "volume_spike" and kinds.signal_kind("volume_spike") is VolumeSpikeDetector
    assert [kinds.signal_kind(k).sign for k in kinds.kind_names()] == ["up", "both", "up", "both"]
    assert [kinds.signal_kind(k).measure for k in kinds.kind_names()] == ["count", "mean", "count", "mean"]
    assert kinds.new_entity_kinds() == ("novelty",)
    assert tuple(KINDS) == ("volume_spike", "sentiment_shift")
    assert kinds.signal_kind("no such kind") is Detector


def test_importing_the_registry_loads_no_detector():
    # the HTTP layer and the narrate stage import it; the detectors (SciPy, scikit-learn) load on the first lookup
    code = ("import sys; import corpuskit.analysis.signals.kinds as k; "
            "heavy = ('scipy', 'sklearn', 'corpuskit.analysis.signals.shipped'); "
            "before = [m for m in heavy if m in sys.modules]; k.kind_names(); "
            "print(before, [m for m in heavy if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[] ['scipy', 'sklearn', 'corpuskit.analysis.signals.shipped']"


def test_register_refuses_a_bad_or_clashing_declaration():
    class Clash(Detector):
        kind = "novelty"

        def tracks(self, series, peers=()):
            return []

    class BadName(Clash):
        kind = "Not A Name"

    class TakenV1(Clash):
        kind = "another_kind"
        v1_name = "velocity"

    class BadSign(Clash):
        kind = "another_kind"
        sign = "down"

    for cls, message in ((Clash, "already registered"), (BadName, "lower-case"), (TakenV1, "already taken"),
                         (BadSign, "sign must be")):
        with pytest.raises(ValueError, match=message):
            kinds.register(cls)
    assert kinds.kind_names() == ("volume_spike", "sentiment_shift", "novelty", "divergence")


class ChatterDetector(Detector):
    """A researcher's detector, in one class: a topic whose day is planted in ``days`` (test data)."""

    kind = "chatter"
    v1_name = "chatter"
    v1_fields = {"loudest": ("loudest",), "summary": ("summary",)}

    def __init__(self, topic: str = "ai-policy", day: int = 35):
        self.topic = topic
        self.day = day

    def tracks(self, series, peers=()):
        tid = next(t for t in series.topics if series.topic_names[t] == self.topic)
        row = series.topics.index(tid)
        sigma = np.full(len(series.days), np.nan)
        sigma[self.day] = 5.0

        def describe(d):
            return ({"loudest": "reddit", "records": int(series.topic_count[row, d]), "windowDays": 7,
                     "day": series.days[d]}, f"Chatter on {series.topic_labels[tid]}")

        return [Track(kind=self.kind, subject=f"topic:{self.topic}", sigma=sigma, topic_row=lambda d: row,
                      describe=describe, evidence={"topic_id": tid})]

    @classmethod
    def prose(cls, w: SignalWords):
        if "records" not in w.detail:
            return None
        return (f"{w.short}: chatter from {w.detail['loudest']}",
                f"On {w.day}, {w.detail['records']} records on {w.full} were chatter ({w.strength}).")


@pytest.fixture
def chatter():
    kinds.register(ChatterDetector)
    try:
        yield ChatterDetector
    finally:
        kinds.unregister("chatter")
    assert "chatter" not in kinds.SIGNAL_KINDS


def test_a_new_kind_is_in_every_list_once_registered(chatter):
    assert kinds.kind_names()[-1] == "chatter" and "chatter" in kinds.SIGNAL_KINDS
    assert bearer_queries.V1_SIGNAL_KINDS["chatter"] == "chatter"
    signal_schema = bearer_document()["components"]["schemas"]
    assert "chatter" in json.dumps(signal_schema)
    keyed = json.dumps(keyed_document()["components"]["schemas"])
    assert '"chatter"' in keyed
    assert "chatter" not in KINDS          # it scores no pandas series
    with pytest.raises(ValidationError, match="kind must be one of volume_spike, sentiment_shift"):
        detect(None, kind="chatter")
    words = prose.signal_prose({"kind": "chatter", "detail": {"loudest": "reddit", "records": 12, "day": "2025-02-05"},
                                "severity": "high", "sigma_score": 5.04, "detected_at": "2025-02-05T23:59:59Z"},
                               {"name": "ai-policy", "display_name": "AI Policy"})
    assert words == ("AI Policy: chatter from reddit",
                     "On 5 February 2025, 12 records on AI Policy were chatter (high severity, 5.0 sigma).")


def test_a_new_detector_runs_through_the_replay_and_both_interfaces(chatter, tmp_path):
    c = open_corpus(tmp_path / "fixture.db")
    build_fixture(c)
    summary = detect_signals(c, "analyse-1", detectors=[ChatterDetector()])
    assert summary["new"] == 1
    row = c.conn.execute("SELECT * FROM signals").fetchone()
    detail = json.loads(row["detail"])
    assert row["kind"] == "chatter" and row["headline"].startswith("Chatter on AI Policy")
    assert row["detected_at"] == f"{detail['day']}T23:59:59Z"    # no threshold count: the end of its day
    # its evidence is the default: the series' records of its day, in the order they arrived
    evidence = [r[0] for r in c.conn.execute(
        "SELECT ref_id FROM signal_evidence WHERE signal_id = ? AND ref_kind = 'record'", (row["id"],))]
    day_records = [r[0] for r in c.conn.execute(
        "SELECT r.id FROM records r JOIN enrichment e ON e.record_id = r.id WHERE e.topic_id = ? AND r.day = ? "
        "ORDER BY r.published_at, r.id LIMIT 10", (row["topic_id"], detail["day"]))]
    assert sorted(evidence) == sorted(day_records) and evidence
    assert detail["quality"]["recordsChecked"] == detail["records"]
    frame = c.signals(kind="chatter")
    assert list(frame["kind"]) == ["chatter"]
    c.close()

    api = V1()
    conn = api.corpus.conn
    topic = conn.execute("SELECT id FROM topics ORDER BY id LIMIT 1").fetchone()[0]
    sid = conn.execute(
        "INSERT INTO signals(signal_key, kind, topic_id, severity, sigma_score, headline, detail, detected_at, "
        "status, run_id, updated_at) VALUES ('c', 'chatter', ?, 'high', 5.0, 'Chatter', ?, "
        "'2099-01-01T00:00:00Z', 'open', 'analyse-1', '2099-01-01T00:00:00Z')",
        (topic, json.dumps({"loudest": "reddit", "records": 3}))).lastrowid
    listed = api.ok("/v1/signals?kind=chatter")["items"]
    assert [s["kind"] for s in listed] == ["chatter"]
    one = api.ok(f"/v1/signals/{api.id('sig', sid)}")
    assert one["loudest"] == "reddit" and one["summary"] == "Chatter" and "detail" not in one
    assert "chatter" in [s["kind"] for s in api.ok("/v1/signals/feed")["items"]]
