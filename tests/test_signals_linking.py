"""Linked events: signals whose episodes share their records read as one event (issue 31)."""
from __future__ import annotations

import json
import shutil
from datetime import timedelta

import pytest

from corpuskit import open_corpus
from corpuskit.analysis.signals import detect_signals, link_signals
from corpuskit.analysis.signals.evidence import _series_filter
from corpuskit.analysis.signals.linking import (episode_overlaps, episode_series, episode_span, evidence_share,
                                                group_events, linked_pairs, load_signals, without_event)
from corpuskit.api import create_app
from corpuskit.api.auth import clear_cache
from corpuskit.errors import ValidationError
from corpuskit.narrate.evidence import notable_signals
from tests.http_client import call
from tests.openapi_check import checked_call
from tests.signal_fixture import build_fixture
from tests.test_signals import _add_day

MARKETS = 3


def _add_burst(c, day: str, n: int, start_id: int, entity_id: int) -> None:
    """``n`` markets records on ``day``, each mentioning ``entity_id``."""
    _add_day(c, day, MARKETS, n, 0.05, start_id)
    with c.transaction():
        c.conn.executemany("INSERT INTO mentions(record_id, entity_id, surface, mention_count, positions) "
                           "VALUES (?,?,?,?,?)", [(start_id + i, entity_id, "Omega Corp", 1, "[0]") for i in range(n)])


@pytest.fixture(scope="module")
def linked(tmp_path_factory):
    """The signal fixture plus one burst on markets whose every record names a new entity, Omega Corp:
    a topic volume spike and a novelty made of the same records (one event, two signals)."""
    path = tmp_path_factory.mktemp("linking") / "linked.db"
    c = open_corpus(path)
    truth = build_fixture(c)
    end = c.now().date()
    top = c.conn.execute("SELECT max(id) FROM records").fetchone()[0]
    with c.transaction():
        omega = c.conn.execute("INSERT INTO entities(slug, name, type, updated_at) VALUES (?,?,?,?)",
                               ("omega-corp", "Omega Corp", "org", "2025-01-01T00:00:00Z")).lastrowid
    burst = (end + timedelta(days=1)).isoformat()
    _add_burst(c, burst, 120, top + 1, omega)
    c.close()
    c = open_corpus(path)
    summary = detect_signals(c, "analyse-1")
    c.close()
    return path, truth, summary, burst


@pytest.fixture
def linked_corpus(linked, tmp_path):
    """A private copy of the analysed corpus (the module fixture closed it, so the file is whole)."""
    c = open_corpus(shutil.copyfile(linked[0], tmp_path / "copy.db"))
    yield c
    c.close()


def _rows(c):
    return [dict(r) for r in c.conn.execute("SELECT * FROM signals ORDER BY id")]


def test_signals_made_of_the_same_records_link_into_one_event(linked, linked_corpus):
    burst = linked[3]
    rows = [r for r in _rows(linked_corpus) if r["detected_at"][:10] == burst]
    kinds = {r["kind"] for r in rows}
    assert {"volume_spike", "novelty"} <= kinds, rows
    events = {json.loads(r["detail"])["event"]["id"] for r in rows}
    assert len(events) == 1
    event = events.pop()
    lead = next(r for r in rows if r["signal_key"] == event)
    rank = {"high": 0, "medium": 1, "low": 2}
    assert all((rank[lead["severity"]], -lead["sigma_score"]) <= (rank[r["severity"]], -r["sigma_score"])
               for r in rows)
    for r in rows:
        detail = json.loads(r["detail"])["event"]
        assert detail["lead"] == (r["signal_key"] == event)
        assert detail["related"] == sorted(x["signal_key"] for x in rows if x["id"] != r["id"])
    assert linked[2]["events"]["linked"] >= len(rows)
    frame = linked_corpus.signals()
    assert set(frame.loc[frame["detectedAt"].dt.strftime("%Y-%m-%d") == burst, "event"]) == {event}


def test_distinct_planted_events_are_not_linked(linked, linked_corpus):
    """The fixture's four planted events (a spike, a sentiment drop, a new name, a divergence; days
    30-46) are different records: none of their signals shares an event with another's."""
    truth = linked[1]
    frame = linked_corpus.signals()
    event_of = []
    for planted in truth["events"]:
        day = planted["day"]
        hits = frame[(frame["kind"] == planted["kind"]) & (frame["topic"] == planted["topic"])
                     & ((frame["detectedAt"].dt.strftime("%Y-%m-%d") >= day))]
        assert not hits.empty, planted
        event_of.append(set(hits["event"].iloc[:1]))
    assert all(not (a & b) for i, a in enumerate(event_of) for b in event_of[i + 1:])
    # an unlinked signal is an event of its own, without detail.event
    alone = frame[frame["detail"].map(lambda d: "event" not in d)]
    assert not alone.empty
    keys = dict(linked_corpus.conn.execute("SELECT id, signal_key FROM signals").fetchall())
    assert all(e == keys[i] for i, e in zip(alone["id"], alone["event"]))


def test_rerun_is_identical(linked_corpus):
    before = _rows(linked_corpus)
    n_events = linked_corpus.conn.execute("SELECT count(*) FROM signal_events").fetchone()[0]
    resumed = detect_signals(linked_corpus, "analyse-2")
    assert resumed["new"] == resumed["updated"] == 0 and resumed["events"]["changed"] == 0
    full = detect_signals(linked_corpus, "analyse-3", incremental=False)
    assert full["mode"] == "full" and full["new"] == full["updated"] == 0
    assert full["events"]["changed"] == 0
    assert _rows(linked_corpus) == before
    assert linked_corpus.conn.execute("SELECT count(*) FROM signal_events").fetchone()[0] == n_events


def test_relinking_follows_the_episode_records(linked, linked_corpus):
    c = linked_corpus
    burst = linked[3]
    members = [r for r in _rows(c) if "event" in json.loads(r["detail"])]
    assert len(members) >= 2
    keep = members[0]["id"]
    with c.transaction():     # the kept evidence is not the basis: without it a signal stays linked
        c.conn.execute("DELETE FROM signal_evidence WHERE signal_id = ? AND ref_kind = 'record'", (keep,))
        assert link_signals(c)["changed"] == 0
    novelty = next(r for r in _rows(c) if r["kind"] == "novelty" and r["detected_at"][:10] == burst)
    with c.transaction():     # a name whose mentions are gone holds no records: it leaves its event
        c.conn.execute("DELETE FROM mentions WHERE entity_id = ?", (novelty["entity_id"],))
        counts = link_signals(c)
        again = link_signals(c)
    assert counts["changed"] >= 1 and again["changed"] == 0
    after = {r["id"]: json.loads(r["detail"]) for r in _rows(c)}
    assert "event" not in after[novelty["id"]]
    assert all(novelty["signal_key"] not in d.get("event", {}).get("related", []) for d in after.values())
    assert counts["events"] == again["events"] == counts["signals"] - counts["linked"] + len(
        {d["event"]["id"] for d in after.values() if "event" in d})


def test_episode_overlaps_are_the_full_episode_sets(linked_corpus):
    """The SQL overlaps equal those of the episodes' record sets loaded one by one, and they are
    built from every record of the episode, not the ten kept as evidence."""
    c = linked_corpus
    signals = load_signals(c.conn)
    overlaps = episode_overlaps(c.conn, signals)
    full = []
    for signal in signals:
        ids = set()
        for evidence, first, last in episode_series(signal) or []:
            joins, where, args = _series_filter(evidence)
            ids |= {r[0] for r in c.conn.execute(f"SELECT r.id FROM records r {joins} WHERE {where} "
                                                 "AND r.day BETWEEN ? AND ?", (*args, first, last))}
        full.append(ids or signal["records"])
    expected = {(i, j): evidence_share(full[i], full[j]) for i in range(len(full)) for j in range(i + 1, len(full))
                if full[i] & full[j]}
    assert overlaps.keys() == expected.keys() and overlaps
    assert all(abs(overlaps[k] - expected[k]) < 1e-12 for k in expected)
    assert max(len(f) for f in full) > 10 >= max(len(s["records"]) for s in signals)
    assert not c.conn.execute("SELECT name FROM sqlite_temp_master WHERE name = 'link_episode'").fetchall()


def test_episode_series_per_kind():
    def sig(kind, detail, **row):
        detail = {"day": "2020-01-05", "peakDay": "2020-01-06", **detail}
        return {"kind": kind, "detail": detail, "span": episode_span(detail, "2020-01-05T10:00:00Z"),
                "records": set(), **row}

    assert episode_series(sig("volume_spike", {"series": "topic"}, topic_id=3)) == [
        ({"topic_id": 3}, "2020-01-05", "2020-01-06")]
    week = sig("volume_spike", {"series": "entity", "scale": "week", "weekStart": "2019-12-30"}, entity_id=9,
               topic_id=3)
    assert episode_series(week) == [({"entity_id": 9}, "2019-12-30", "2020-01-06")]
    # a source's surge: its records in the topic that led it
    assert episode_series(sig("volume_spike", {"series": "source"}, source="hn", topic_id=4)) == [
        ({"source": "hn", "topic_id": 4}, "2020-01-05", "2020-01-06")]
    assert episode_series(sig("volume_spike", {"series": "source"}, source="hn", topic_id=None)) == [
        ({"source": "hn"}, "2020-01-05", "2020-01-06")]
    # a volume surge of a term: its row does not hold the term, so its kept evidence is compared
    assert episode_series(sig("volume_spike", {"series": "term"}, topic_id=3)) is None
    assert episode_series(sig("novelty", {"term": "Steam Deck"}, entity_id=None)) == [
        ({"term": "Steam Deck"}, "2020-01-05", "2020-01-06")]
    # sentiment: the after windows of the episode's days; divergence: the topic from either source
    assert episode_series(sig("sentiment_shift", {"afterDays": 3}, topic_id=2)) == [
        ({"topic_id": 2}, "2020-01-03", "2020-01-06")]
    assert episode_series(sig("divergence", {"afterDays": 2, "sourceA": "x", "sourceB": "a"}, topic_id=2)) == [
        ({"topic_id": 2, "source": "a"}, "2020-01-04", "2020-01-06"),
        ({"topic_id": 2, "source": "x"}, "2020-01-04", "2020-01-06")]
    assert episode_series(sig("sentiment_shift", {}, topic_id=None)) is None


def test_pairs_need_both_time_and_shared_records():
    def sig(key, first, last, records, severity="low", sigma=3.5):
        detail = {"day": first, "peakDay": last}
        return {"signal_key": key, "severity": severity, "sigma_score": sigma, "detected_at": first + "T10:00:00Z",
                "detail": detail, "span": episode_span(detail, first), "records": set(records)}

    a = sig("a", "2020-01-01", "2020-01-02", range(10))
    b = sig("b", "2020-01-05", "2020-01-05", range(5, 15), severity="medium")   # shares 5 of 10
    c = sig("c", "2020-01-20", "2020-01-20", range(10))                          # same records, 18 days on
    d = sig("d", "2020-01-03", "2020-01-03", range(100, 110))                    # same days, other records
    signals = [a, b, c, d]
    assert linked_pairs(signals, 0.5, 7) == [(0, 1, 0.5)]
    assert linked_pairs(signals, 0.6, 7) == []
    assert (0, 2, 1.0) in linked_pairs(signals, 0.5, 30)
    groups = group_events(signals, linked_pairs(signals, 0.5, 7))
    assert [[signals[i]["signal_key"] for i in g] for g in groups] == [["b", "a"], ["c"], ["d"]]
    assert evidence_share(set(), {1}) == 0.0
    # a new name and the surge of its mentions the next day keep other records, yet are one event;
    # two surges of one name are linked only by their records
    new = dict(sig("new", "2020-03-01", "2020-03-01", range(200, 210)), kind="novelty", entity_id=5)
    surge = dict(sig("surge", "2020-03-02", "2020-03-04", range(210, 220)), kind="volume_spike", entity_id=5)
    later = dict(sig("later", "2020-03-20", "2020-03-20", range(230, 240)), kind="volume_spike", entity_id=5)
    again = dict(sig("again", "2020-03-03", "2020-03-03", range(240, 250)), kind="volume_spike", entity_id=5)
    other = dict(sig("other", "2020-03-02", "2020-03-02", range(250, 260)), kind="volume_spike", entity_id=6)
    assert linked_pairs([new, surge, later, again, other], 0.3, 7) == [(0, 1, 0.0), (0, 3, 0.0)]
    week = episode_span({"scale": "week", "weekStart": "2020-01-01", "day": "2020-01-07",
                         "peakDay": "2020-01-09"}, "2020-01-07T00:00:00Z")
    assert week == ("2020-01-01", "2020-01-09")
    assert without_event(json.dumps({"b": 1, "event": {"id": "x"}, "a": 2})) == json.dumps({"a": 2, "b": 1})


@pytest.mark.parametrize("share, window", [(0, 7), (1.5, 7), ("half", 7), (True, 7), (0.5, -1), (0.5, 2.5),
                                           (0.5, None)])
def test_bad_link_settings_raise(corpus, share, window):
    with pytest.raises(ValidationError):
        detect_signals(corpus, "analyse-1", link_share=share, link_window_days=window)


def test_empty_corpus_links_nothing(corpus):
    summary = detect_signals(corpus, "analyse-1")
    assert summary["events"] == {"signals": 0, "events": 0, "linked": 0, "changed": 0}
    assert "event" in corpus.signals().columns and corpus.signals().empty


def test_both_apis_carry_the_link(linked, linked_corpus):
    burst = linked[3]
    c = linked_corpus
    row = next(r for r in _rows(c) if r["detected_at"][:10] == burst and r["kind"] == "volume_spike"
               and "event" in json.loads(r["detail"]))
    event = json.loads(row["detail"])["event"]
    app = create_app(c)
    keyed = c.create_key("enterprise", name="link-tests", per_minute=10**6, per_day=10**7)
    status, _, body = checked_call(app, "keyed", "/api/v1/signals?limit=100", {"x-api-key": keyed})
    assert status == 200
    item = next(s for s in body["data"] if s["id"] == row["id"])
    assert item["detail"]["event"] == event
    bearer = c.create_key(tier="enterprise", per_minute=10**6, per_day=10**7)
    status, _, raw = call(app, "GET", "/v1/signals?kind=velocity&limit=100", {"Authorization": f"Bearer {bearer}"})
    assert status == 200
    items = json.loads(raw)["items"]
    found = []
    for it in items:
        status, _, raw = call(app, "GET", f"/v1/signals/{it['id']}", {"Authorization": f"Bearer {bearer}"})
        assert status == 200
        found.append(json.loads(raw)["detail"].get("event"))
    assert event in found
    # a linked divergence (the fixture's reddit turn on markets raises two divergences and a shift)
    pair = next(r for r in _rows(c) if r["kind"] == "divergence" and "event" in json.loads(r["detail"]))
    status, _, raw = call(app, "GET", "/v1/signals?kind=divergence&limit=100", {"Authorization": f"Bearer {bearer}"})
    details = [checked_call(app, "bearer", f"/v1/signals/{it['id']}", {"Authorization": f"Bearer {bearer}"})[2]
               for it in json.loads(raw)["items"]]
    assert json.loads(pair["detail"])["event"] in [d.get("event") for d in details]
    assert all("detail" not in d for d in details)
    clear_cache()


def test_one_dispatch_per_event(linked_corpus):
    c = linked_corpus
    with c.transaction():     # make every burst signal notable, so both would get a dispatch
        c.conn.execute("UPDATE signals SET severity = 'medium' WHERE detail LIKE '%\"event\"%'")
    members = [r for r in _rows(c) if "event" in json.loads(r["detail"])]
    dispatched = {s["signal_key"] for s in notable_signals(c.conn)}
    leads = {json.loads(r["detail"])["event"]["id"] for r in members}
    assert leads <= dispatched
    assert not ({r["signal_key"] for r in members} - leads) & dispatched
