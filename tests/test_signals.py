"""Signals on a small seeded fixture with planted events (no enrichment stage needed)."""
from __future__ import annotations

import json
from datetime import date, timedelta

import numpy as np
import pytest

from corpuskit import open_corpus
from corpuskit.analysis.signals import (DivergenceDetector, NoveltyDetector, SentimentShiftDetector,
                                        VolumeSpikeDetector, detect_signals, get_signal_evidence,
                                        severity_for)
from corpuskit.analysis.signals.lifecycle import advance
from corpuskit.analysis.signals.quality import campaign_cap
from corpuskit.analysis.signals.series import load_series
from corpuskit.errors import NotFoundError
from corpuskit.stats.thresholds import HIGH_SIGMA, MEDIUM_SIGMA, OPEN_SIGMA
from corpuskit.stats.windows import rolling_median_mad, rolling_sum

from tests.signal_fixture import build_fixture


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    path = tmp_path_factory.mktemp("signals") / "fixture.db"
    c = open_corpus(path)
    truth = build_fixture(c)
    summary = detect_signals(c, "analyse-1")
    c.close()
    return path, truth, summary


@pytest.fixture
def fixture_corpus(planted, tmp_path):
    """A private copy of the analysed fixture (tests may write to it)."""

    path = tmp_path / "copy.db"
    src = open_corpus(planted[0])
    src.conn.execute(f"VACUUM INTO '{path}'")
    src.close()
    c = open_corpus(path)
    yield c
    c.close()


def _signals(c):
    return [dict(r) for r in c.conn.execute("SELECT * FROM signals ORDER BY detected_at, id")]


def test_severity_thresholds():
    assert severity_for(HIGH_SIGMA) == "high"
    assert severity_for(MEDIUM_SIGMA) == "medium"
    assert severity_for(OPEN_SIGMA) == "low"
    assert severity_for(OPEN_SIGMA - 0.01) is None
    assert severity_for(float("nan")) is None
    assert OPEN_SIGMA < MEDIUM_SIGMA < HIGH_SIGMA


def test_rolling_baseline_reads_only_the_past():
    values = np.array([[1, 2, 3, 4, 100, 6, 7, 8.0]])
    med, mad, n = rolling_median_mad(values, window=3, min_periods=2)
    assert np.isnan(med[0, 0]) and np.isnan(med[0, 1])   # fewer than 2 past days
    assert med[0, 3] == 2.0                               # days 0..2
    assert med[0, 4] == 3.0                               # the spike itself is not in its baseline
    assert med[0, 5] == 4.0                               # median resists the spike
    assert n[0, 7] == 3
    assert rolling_sum(values, 2)[0].tolist() == [0, 1, 3, 5, 7, 104, 106, 13]


def test_every_planted_event_is_detected(planted, fixture_corpus):
    _, truth, summary = planted
    assert summary["mode"] == "full" and summary["new"] == summary["signals"] > 0
    topic_of = dict(fixture_corpus.conn.execute("SELECT id, name FROM topics").fetchall())
    found = _signals(fixture_corpus)
    for event in truth["events"]:
        day = date.fromisoformat(event["day"])
        hits = [s for s in found if s["kind"] == event["kind"]
                and topic_of.get(s["topic_id"]) == event["topic"]
                and abs((date.fromisoformat(s["detected_at"][:10]) - day).days) <= 1]
        assert hits, f"planted {event} not detected"
        if event["kind"] == "divergence":
            assert any({json.loads(s["detail"])["sourceA"], json.loads(s["detail"])["sourceB"]}
                       == set(event["sources"]) for s in hits)
        if event["kind"] == "novelty":
            assert any(json.loads(s["detail"])["entity"] == event["entity"] for s in hits)


def test_high_and_medium_signals_match_planted_events(planted, fixture_corpus):
    _, truth, _ = planted
    topic_of = dict(fixture_corpus.conn.execute("SELECT id, name FROM topics").fetchall())
    strong = [s for s in _signals(fixture_corpus) if s["severity"] in ("high", "medium")]
    assert strong
    matched = [s for s in strong if any(
        topic_of.get(s["topic_id"]) == e["topic"]
        and -1 <= (date.fromisoformat(s["detected_at"][:10]) - date.fromisoformat(e["day"])).days <= 3
        for e in truth["events"])]
    assert len(matched) / len(strong) >= 0.8


def test_no_high_signal_without_events(tmp_path):
    c = open_corpus(tmp_path / "null.db")
    build_fixture(c, events=False, seed=11)
    summary = detect_signals(c, "analyse-1")
    assert summary["bySeverity"].get("high", 0) == 0
    assert summary["bySeverity"].get("medium", 0) <= 1
    c.close()


def test_signal_fields_detail_and_clock(fixture_corpus):
    now = fixture_corpus.now().strftime("%Y-%m-%dT%H:%M:%SZ")
    rows = _signals(fixture_corpus)
    for s in rows:
        detail = json.loads(s["detail"])
        assert s["detected_at"] <= now and s["acknowledged"] == 0
        # severity follows sigma, capped at low for a possible campaign (few voices or copies)
        assert s["severity"] == campaign_cap(severity_for(s["sigma_score"]) or "low", detail["quality"])
        assert s["status"] in ("open", "resolved")
        assert (s["resolved_at"] is None) == (s["status"] == "open")
        assert s["signal_key"].startswith(s["kind"] + "|")
        assert s["headline"]
        if s["kind"] == "volume_spike":
            assert {"baseline", "current", "multiplier"} <= set(detail)
            assert detail["current"] > detail["baseline"]
        elif s["kind"] == "sentiment_shift":
            assert {"before", "after"} <= set(detail)
        elif s["kind"] == "divergence":
            assert {"sourceA", "sourceB", "divergencePoints", "summary"} <= set(detail)
            assert detail["sourceA"] != detail["sourceB"] and detail["divergencePoints"] > 0
        else:
            assert detail["baselineMentions"] <= 1 and detail["mentions"] >= 6
    spike = next(s for s in rows if s["kind"] == "volume_spike" and s["source"] is None
                 and s["entity_id"] is None)
    assert "Volume on AI Policy up" in spike["headline"]
    # fired live by the record that crossed the threshold, before the day ended
    assert spike["detected_at"][:10] == "2025-02-05" and spike["detected_at"] < "2025-02-05T23:59:59Z"


def test_evidence(fixture_corpus):
    novelty = next(s for s in _signals(fixture_corpus) if s["kind"] == "novelty")
    ev = get_signal_evidence(fixture_corpus, novelty["id"])
    assert ev["signalId"] == novelty["id"]
    assert 1 <= len(ev["records"]) <= 10
    assert ev["entities"][0]["name"] == "Zeta Corp"
    assert [t["label"] for t in ev["topics"]] == ["Markets"]
    assert ev["stories"] == []
    ids = [r["id"] for r in ev["records"]]
    mentioned = {r[0] for r in fixture_corpus.conn.execute(
        "SELECT record_id FROM mentions WHERE entity_id = ?", (novelty["entity_id"],))}
    assert set(ids) <= mentioned
    shift = next(s for s in _signals(fixture_corpus) if s["kind"] == "sentiment_shift"
                 and s["severity"] == "high")
    scores = [r["sentimentScore"] for r in get_signal_evidence(fixture_corpus, shift["id"])["records"]]
    assert np.mean(scores) < -0.3
    with pytest.raises(NotFoundError, match="signal 99999"):
        get_signal_evidence(fixture_corpus, 99999)


def test_rerun_updates_instead_of_duplicating(fixture_corpus):
    before = _signals(fixture_corpus)
    events = fixture_corpus.conn.execute("SELECT count(*) FROM signal_events").fetchone()[0]
    assert events == len(before)
    summary = detect_signals(fixture_corpus, "analyse-2")
    assert summary["mode"] == "resume" and summary["new"] == summary["updated"] == 0
    full = detect_signals(fixture_corpus, "analyse-3", incremental=False)
    assert full["mode"] == "full" and full["new"] == full["updated"] == 0
    assert _signals(fixture_corpus) == before
    assert fixture_corpus.conn.execute("SELECT count(*) FROM signal_events").fetchone()[0] == events


def _add_day(c, day: str, topic_id: int, n: int, score: float, start_id: int):
    with c.transaction():
        for i in range(n):
            rid = start_id + i
            ts = f"{day}T{(i % 24):02d}:{i % 60:02d}:00Z"
            c.conn.execute("INSERT INTO records(id, source, source_id, content_hash, title, content_text, "
                           "published_at, captured_at) VALUES (?,?,?,?,?,?,?,?)",
                           (rid, "news", f"x{rid}", f"h{rid}", "t", "added text", ts, ts))
            c.conn.execute("INSERT INTO enrichment(record_id, sentiment_score, sentiment_label, topic_id, run_id) "
                           "VALUES (?,?,?,?,?)", (rid, score, "neutral", topic_id, "enrich-2"))


def test_new_day_resumes_and_updates_open_signal(fixture_corpus):
    c = fixture_corpus
    top = c.conn.execute("SELECT max(id) FROM records").fetchone()[0]
    # a quiet day, then a burst on climate (topic 2): the burst must open one new signal
    last_day = c.now().date()
    quiet = (last_day + timedelta(days=1)).isoformat()
    _add_day(c, quiet, 2, 30, 0.05, top + 1)
    summary = detect_signals(c, "analyse-2")
    assert summary["mode"] == "resume"
    assert summary["replayedFrom"] == last_day.isoformat()     # the last, possibly partial, day again
    events_before = c.conn.execute("SELECT count(*) FROM signal_events").fetchone()[0]
    burst = (last_day + timedelta(days=2)).isoformat()
    _add_day(c, burst, 2, 60, 0.05, top + 100)
    summary = detect_signals(c, "analyse-3")
    assert summary["mode"] == "resume" and summary["new"] >= 1
    sig = c.conn.execute("SELECT * FROM signals WHERE signal_key = ?",
                         (f"volume_spike|climate|topic:climate|{burst}",)).fetchone()
    assert sig is not None and sig["status"] == "open"
    # more records on the same (clock) day: the same signal is updated, not duplicated
    _add_day(c, burst, 2, 60, 0.05, top + 200)
    summary = detect_signals(c, "analyse-4")
    again = c.conn.execute("SELECT * FROM signals WHERE signal_key = ?",
                           (f"volume_spike|climate|topic:climate|{burst}",)).fetchone()
    assert again["id"] == sig["id"] and again["detected_at"] == sig["detected_at"]
    assert again["sigma_score"] > sig["sigma_score"]
    changes = [r[0] for r in c.conn.execute(
        "SELECT change FROM signal_events WHERE signal_id = ? ORDER BY id", (sig["id"],))]
    assert changes == ["new", "updated"]
    assert c.conn.execute("SELECT count(*) FROM signal_events").fetchone()[0] > events_before


def test_resume_equals_full_replay(planted, tmp_path):
    """Resuming day after day gives the same signals as one full replay."""
    src = open_corpus(planted[0])
    full = {r["signal_key"]: (r["severity"], r["sigma_score"], r["status"], r["detected_at"], r["resolved_at"])
            for r in src.conn.execute("SELECT * FROM signals")}
    src.close()
    c = open_corpus(tmp_path / "stepwise.db")
    build_fixture(c)
    end = c.now()
    for cut in ("2025-02-06", "2025-02-11", "2025-02-16"):
        partial = open_corpus(tmp_path / "stepwise.db", now=f"{cut}T23:59:59Z")
        detect_signals(partial, f"analyse-{cut}")
        partial.close()
    c2 = open_corpus(tmp_path / "stepwise.db")
    assert c2.now() == end
    summary = detect_signals(c2, "analyse-last")
    assert summary["mode"] == "resume"
    stepwise = {r["signal_key"]: (r["severity"], r["sigma_score"], r["status"], r["detected_at"],
                                  r["resolved_at"]) for r in c2.conn.execute("SELECT * FROM signals")}
    assert stepwise == full
    c.close()
    c2.close()


def test_changed_past_triggers_full_replay(fixture_corpus):
    c = fixture_corpus
    c.conn.execute("UPDATE enrichment SET sentiment_score = -0.9 WHERE record_id IN "
                   "(SELECT id FROM records WHERE day = '2025-01-20' LIMIT 30)")
    summary = detect_signals(c, "analyse-2")
    assert summary["mode"] == "full"


def test_empty_corpus(corpus):
    summary = detect_signals(corpus, "analyse-1")
    assert summary["mode"] == "empty" and summary["signals"] == 0


def test_lifecycle_rule():
    days = [f"2025-01-{d:02d}" for d in range(1, 11)]
    sigma = np.array([0, 5, 2, 7, 1, 1, 1, 4, np.nan, np.nan], dtype=float)
    touched, still_open, snap = advance("k", sigma, days, 0, 9, None, quiet_days=2, snapshot_at=3)
    assert [(e.start, e.peak_day, e.peak_sigma, e.resolved_day) for e in touched] == [
        ("2025-01-02", "2025-01-04", 7.0, "2025-01-06"),   # one below day inside does not resolve
        ("2025-01-08", "2025-01-08", 4.0, "2025-01-10"),
    ]
    assert still_open is None
    assert snap.start == "2025-01-02" and snap.resolved_day is None


def test_detectors_ignore_flat_and_tiny_series():
    from corpuskit.analysis.signals.series import DailySeries

    days = [f"2025-01-{d:02d}" for d in range(1, 31)]
    flat = np.full((1, 30), 20.0)
    flat[0, 25] = 26  # +30% on a steady series is not a spike
    volume = VolumeSpikeDetector()
    sigma, _, _ = volume.score(flat, 1.0)
    assert not np.any(sigma >= OPEN_SIGMA)
    tiny = np.zeros((1, 30))
    tiny[0, 25] = 5  # below min_count
    sigma, _, _ = volume.score(tiny, 0.0)
    assert not np.any(np.isfinite(sigma))
    novelty = NoveltyDetector()
    counts = np.zeros((2, 30))
    counts[0, 3] = 20      # too early: no baseline yet
    counts[1, 20] = 12     # absent for 21 days, then 12 mentions
    sigma, base = novelty.score(counts)
    assert not np.isfinite(sigma[0, 3])
    assert sigma[1, 20] >= HIGH_SIGMA and base[1, 20] == 0
    assert novelty.threshold(0) >= novelty.min_count
    assert SentimentShiftDetector().kind == "sentiment_shift" and DivergenceDetector().kind == "divergence"
    del DailySeries, days


def test_load_series_shapes(fixture_corpus):
    s = load_series(fixture_corpus)
    assert s.days[0] == "2025-01-01" and s.days[-1] == fixture_corpus.now().date().isoformat()
    assert s.topic_count.shape == (3, len(s.days))
    assert s.topic_count.sum() == fixture_corpus.count()
    assert s.source_count.sum() == fixture_corpus.count()
    assert s.ts_count.shape == (3, 3, len(s.days))
    late = load_series(fixture_corpus, first_day="2025-02-01")
    assert late.days[0] == "2025-02-01" and late.topic_count.sum() < s.topic_count.sum()


def test_load_series_streamed_in_small_batches_gives_the_same_series(fixture_corpus, monkeypatch):
    """The records and mentions are summed batch by batch in the query's order: any batch size gives
    the same arrays, bit for bit (sentiment sums included), the same entities and the same terms."""
    import corpuskit.analysis.signals.series as series

    whole = load_series(fixture_corpus, terms=True, min_entity_count=2)
    monkeypatch.setattr(series, "ROWS_BATCH", 7)
    monkeypatch.setattr(series, "ENTITY_BLOCK", 2)  # entities' dominant topics found two at a time
    batched = load_series(fixture_corpus, terms=True, min_entity_count=2)
    assert len(whole.entities) > 2  # (the fixture has no unknown proper phrases: terms compare empty)
    assert (whole.entity_topic >= 0).any() and (whole.entity_topic == -1).any()
    for name, value in vars(whole).items():
        other = getattr(batched, name)
        if isinstance(value, np.ndarray):
            assert value.shape == other.shape and np.array_equal(value, other), name
        else:
            assert value == other, name


def test_volume_scored_in_row_blocks_gives_the_same_tracks_and_signals(planted, tmp_path, monkeypatch):
    """Volume scores each group's rows a block of cells at a time (the score is row-wise): blocks of one or two
    rows give the tracks of the whole matrix, sigma for sigma, and the same stored signals."""
    import corpuskit.analysis.signals.volume as volume

    path = tmp_path / "blocks.db"
    src = open_corpus(planted[0])
    src.conn.execute(f"VACUUM INTO '{path}'")
    src.close()
    c = open_corpus(path)
    series = load_series(c, min_entity_count=2)
    peers = [VolumeSpikeDetector(), NoveltyDetector()]
    whole = VolumeSpikeDetector().tracks(series, peers=peers)
    assert len(series.entities) > 2 and {t.subject.split(":")[0] for t in whole} >= {"topic", "source"}
    det, counts = VolumeSpikeDetector(), series.entity_count  # no entity fires here: compare its scores
    totals = series.source_count.sum(axis=0)
    def scores(rows):
        return (*det.score(rows, 1.0, 0.5, True, totals=totals)[:2], *det.score_week(rows, totals, 0.5))

    full = scores(counts)
    parts = [scores(counts[i:i + 2]) for i in range(0, len(counts), 2)]
    assert np.isfinite(full[1]).any() and np.isfinite(full[3]).any()  # expected counts, day and week
    for k in range(len(full)):
        assert np.array_equal(full[k], np.concatenate([p[k] for p in parts]), equal_nan=True), k
    for block in (1, 2):
        monkeypatch.setattr(volume, "SCORE_CELLS", block * len(series.days))
        blocked = VolumeSpikeDetector().tracks(series, peers=peers)
        assert [t.key for t in blocked] == [t.key for t in whole]
        for a, b in zip(whole, blocked):
            assert np.array_equal(a.sigma, b.sigma, equal_nan=True), a.key
            assert [a.describe(d) for d in range(len(series.days)) if a.sigma[d] >= OPEN_SIGMA] == \
                [b.describe(d) for d in range(len(series.days)) if b.sigma[d] >= OPEN_SIGMA]
    detect_signals(c, "analyse-2", incremental=False)
    assert _signals(c) == _signals(open_corpus(planted[0]))
    c.close()
