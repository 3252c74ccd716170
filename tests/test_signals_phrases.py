"""Phrase novelty: a lower-case phrase new in a burst, tested on the seeded fixture with injected records."""
from __future__ import annotations

import hashlib
import json
from datetime import timedelta

import numpy as np
import pytest

from corpuskit import open_corpus
from corpuskit.analysis.signals import detect_signals, get_signal_evidence
from corpuskit.analysis.signals.phrases import (MIN_AUTHORS, PHRASE_BACKGROUND, PHRASE_SPAN, PHRASE_WINDOW,
                                                PhraseIndex, _fresh_spans, _Walk, build_index, bursts,
                                                calibrate, excluded_phrases, floor_count, one_per_event,
                                                read_index, strengths)
from tests.signal_fixture import START, build_fixture

PHRASE = "adolescent trial"
DAY = 40
#: words that make each injected text its own (the same text n times is a near-duplicate campaign)
WORDS = ("hospital", "parents", "results", "doctors", "weeks", "dose", "school", "regulator", "study", "data",
         "safety", "volunteers", "clinic", "country", "report", "plans", "funding")


@pytest.fixture(scope="module")
def background(tmp_path_factory):
    path = tmp_path_factory.mktemp("phrases") / "background.db"
    c = open_corpus(path)
    build_fixture(c, events=False, seed=5)
    c.close()
    return path


def _copy(background, tmp_path, name="c.db"):
    src = open_corpus(background)
    out = tmp_path / name
    src.conn.execute(f"VACUUM INTO '{out}'")
    src.close()
    return open_corpus(out)


def _inject(corpus, n=13, authors=11, day=DAY, text=f"Researchers begin the {PHRASE} of a vaccine",
            entity=None):
    """``n`` records writing ``text`` on ``day`` (and the day after), from ``authors`` distinct authors."""
    conn = corpus.conn
    top = conn.execute("SELECT max(id) FROM records").fetchone()[0]
    ids = []
    with corpus.transaction():
        for i in range(n):
            rid = top + 1 + i
            d = START + timedelta(day + (1 if i >= n - 2 else 0))
            ts = f"{d.isoformat()}T{(8 + i) % 24:02d}:00:00Z"   # a valid hour for any n
            conn.execute(
                "INSERT INTO records(id, source, source_id, content_hash, title, content_text, author, "
                "published_at, captured_at, metadata) VALUES (?,?,?,?,?,?,?,?,?,?)",
                (rid, "news", f"inj{rid}", hashlib.sha1(f"inj{rid}".encode()).hexdigest(), "",
                 f"{text}: {WORDS[i % len(WORDS)]} {WORDS[(3 * i + 1) % len(WORDS)]}", f"author{i % authors}",
                 ts, ts, json.dumps({})))
            conn.execute("INSERT INTO enrichment(record_id, sentiment_score, sentiment_label, topic_id, run_id) "
                         "VALUES (?,?,?,?,?)", (rid, 0.0, "neutral", 3, "enrich-1"))
            if entity is not None:
                conn.execute("INSERT INTO mentions(record_id, entity_id, surface, mention_count, positions) "
                             "VALUES (?,?,?,?,?)", (rid, entity, "x", 1, "[0]"))
            ids.append(rid)
    return ids


def _phrase_signals(corpus):
    rows = corpus.conn.execute("SELECT id, severity, headline, detail, detected_at FROM signals "
                               "WHERE kind = 'novelty' ORDER BY id").fetchall()
    return [dict(r) | {"detail": json.loads(r["detail"])} for r in rows
            if json.loads(r["detail"]).get("subjectKind") == "phrase"]


def test_injected_phrase_fires_on_its_day_with_its_records(background, tmp_path):
    c = _copy(background, tmp_path)
    ids = _inject(c)
    detect_signals(c, "a1")
    found = _phrase_signals(c)
    assert [s["detail"]["phrase"] for s in found] == [PHRASE]
    s = found[0]
    d = s["detail"]
    k = d["threshold"]
    per_day = [r[0] for r in c.conn.execute("SELECT count(*) FROM records GROUP BY day")]
    assert k == max(MIN_AUTHORS, int(np.ceil(0.1 * np.median(per_day))))    # the floor: the null adds nothing
    # the k-th distinct author writes it on day 40, 08:00 + (k - 1) hours
    assert s["detected_at"] == f"{(START + timedelta(DAY)).isoformat()}T{8 + k - 1:02d}:00:00Z"
    assert d["day"] == (START + timedelta(DAY)).isoformat() and d["weekStart"] == d["day"]
    # the day's figures: 11 records from 11 authors on day 40 (the two of day 41 repeat two authors)
    assert d["authors"] == 11 and d["records"] == 11 and d["baselineMentions"] == 0 and "peak" not in d
    assert s["headline"].startswith(f"New phrase in Markets: '{PHRASE}' (11 records from 11 authors on {d['day']}, "
                                    "from none in the 21 days before)")
    evidence = [r["id"] for r in get_signal_evidence(c, s["id"])["records"]]
    assert evidence == ids[:10]                             # evidence_limit
    assert d["quality"]["distinctAuthors"] == 11 and not d["quality"]["campaign"]
    c.close()


def test_one_author_does_not_fire(background, tmp_path):
    c = _copy(background, tmp_path)
    _inject(c, authors=1)
    detect_signals(c, "a1")
    assert _phrase_signals(c) == []
    c.close()


def test_two_authors_do_not_fire(background, tmp_path):
    c = _copy(background, tmp_path)
    _inject(c, n=30, authors=2)
    detect_signals(c, "a1")
    assert _phrase_signals(c) == []
    c.close()


def test_shuffled_corpus_raises_none(background, tmp_path):
    c = _copy(background, tmp_path)
    _inject(c)
    rows = c.conn.execute("SELECT id, published_at FROM records ORDER BY id").fetchall()
    stamps = np.random.default_rng(4).permutation([r[1] for r in rows])
    with c.transaction():
        c.conn.executemany("UPDATE records SET published_at = ?, captured_at = ? WHERE id = ?",
                           [(str(t), str(t), r[0]) for t, r in zip(stamps, rows)])
    detect_signals(c, "a1")
    assert _phrase_signals(c) == []
    c.close()


def test_known_names_and_weak_words_are_left_out(background, tmp_path):
    c = _copy(background, tmp_path)
    _inject(c, text="Markets Entity 1 and the time")          # a known entity name and a weak word
    detect_signals(c, "a1")
    # "markets entity" is a proper-noun term (novelty tests it as a name), "entity" is a word of it,
    # "time" names nothing; the variety words are each in fewer than k records
    assert _phrase_signals(c) == []
    c.close()


def test_a_burst_about_one_known_name_is_the_names(background, tmp_path):
    c = _copy(background, tmp_path)
    entity = c.conn.execute("SELECT min(id) FROM entities").fetchone()[0]
    _inject(c, entity=entity)                   # every record also mentions one known entity
    detect_signals(c, "a1")
    assert _phrase_signals(c) == []
    c.close()


def test_deterministic(background, tmp_path):
    runs = []
    for name in ("a.db", "b.db"):
        c = _copy(background, tmp_path, name)
        _inject(c)
        detect_signals(c, "a1", incremental=False)
        runs.append([(s["headline"], s["detected_at"], s["severity"], json.dumps(s["detail"], sort_keys=True))
                     for s in _phrase_signals(c)])
        c.close()
    assert runs[0] == runs[1] and runs[0]


def test_rerun_keeps_the_signal(background, tmp_path):
    c = _copy(background, tmp_path)
    _inject(c)
    detect_signals(c, "a1")
    first = _phrase_signals(c)
    summary = detect_signals(c, "a2", incremental=False)
    assert _phrase_signals(c) == first and summary["new"] == 0
    c.close()


def _index(days, authors, n_days=40):
    """One phrase written on ``days`` by ``authors`` (record positions in that order)."""
    return PhraseIndex([f"d{i}" for i in range(n_days)], np.arange(len(days)), np.asarray(days),
                       np.asarray(authors), ["p"], [np.arange(len(days))], np.full(len(days), -1))


def test_fresh_spans_need_a_quiet_window():
    # first use on day 25 (>= 21 corpus days before): fresh; day 30 is inside the span's reach (< 32)
    assert [(s, list(r)) for s, r in _fresh_spans(np.array([25, 25, 30, 40]), 21, 7)] == [(25, [0, 1, 2])]
    # a use on day 10 means day 25 is not fresh (15 days of quiet), nor is day 40
    assert _fresh_spans(np.array([10, 25, 40]), 21, 7) == []
    # too early in the corpus
    assert _fresh_spans(np.array([5, 6, 7]), 21, 7) == []


def test_bursts_count_authors_and_fire_on_the_crossing():
    index = _index([25, 25, 26, 27, 27], [0, 0, 1, 2, 3])
    assert strengths(index).tolist() == [4]
    (b,) = bursts(index, 3)
    assert (b.start, b.fire, b.crossing, b.records) == (25, 27, 1, [0, 1, 2, 3, 4])
    assert bursts(index, 5) == []
    assert b.keyness_sigma >= 3.0


def test_calibrate_raises_the_threshold_until_the_null_is_quiet():
    rng = np.random.default_rng(0)
    n_days, n_rec = 120, 1200
    days = np.sort(rng.integers(0, n_days, n_rec))
    authors = np.arange(n_rec)
    # 300 rare phrases of 3-8 records each: on a shuffled null some fall in a 7-day fresh span
    postings = [np.sort(rng.choice(n_rec, size=rng.integers(3, 9), replace=False)) for _ in range(300)]
    index = PhraseIndex([f"d{i}" for i in range(n_days)], np.arange(n_rec), days, authors,
                        [f"p{i}" for i in range(300)], postings, np.full(n_rec, -1))
    cal = calibrate(index, 0.0)
    assert cal["threshold"] >= MIN_AUTHORS and cal["nullEpisodes"] <= cal["allowed"] == 4.0
    assert calibrate(index, 0.0) == cal                          # seeded
    assert floor_count(index, 0.5) == 5 and calibrate(index, 0.5)["threshold"] >= 5


def test_calibrate_on_an_empty_index():
    index = PhraseIndex([], np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64))
    assert calibrate(index)["threshold"] == MIN_AUTHORS and bursts(index, 3) == []


def test_one_per_event_keeps_the_phrase_with_more_authors():
    index = PhraseIndex([f"d{i}" for i in range(40)], np.arange(6), np.array([25] * 6), np.arange(6),
                        ["hole", "black hole", "other"],
                        [np.arange(6), np.arange(5), np.arange(3, 6)], np.full(6, -1))
    found = bursts(index, 3)
    kept = [index.phrases[b.phrase] for b in one_per_event(index, found)]
    assert kept == ["hole"]                                       # 6 authors; the others share its records
    index.postings[0] = np.arange(5)
    kept = [index.phrases[b.phrase] for b in one_per_event(index, bursts(index, 3))]
    assert kept == ["black hole"]                                 # a tie goes to the two-word phrase


def _entries(index):
    return [(index.phrases[j], int(index.rec_day[p[0]]), index.record_ids[p].tolist(),
             None if index.uses_before is None else int(index.uses_before[j]))
            for j, p in enumerate(index.postings)]


def test_the_stream_raises_what_the_whole_index_raises(background, tmp_path):
    c = _copy(background, tmp_path)
    _inject(c)
    last = c.conn.execute("SELECT max(day) FROM records").fetchone()[0]
    exclude = excluded_phrases(c.conn)
    whole, stream = read_index(c.conn, last, exclude), build_index(c.conn, last, exclude)
    assert calibrate(stream) == calibrate(whole)                   # the same block null, streamed

    def raised(index, k):
        return sorted((index.phrases[b.phrase], b.start, b.fire, b.crossing, b.keyness_sigma,
                       sorted(index.record_ids[b.records].tolist())) for b in bursts(index, k))

    k = calibrate(whole)["threshold"]
    assert raised(stream, k) == raised(whole, k) and any(r[0] == PHRASE for r in raised(stream, k))
    low = build_index(c.conn, last, exclude, floor_share=0.0)     # every span of >= 3 authors
    assert raised(low, MIN_AUTHORS) == raised(whole, MIN_AUTHORS) and len(raised(low, MIN_AUTHORS)) > 1
    # a resumed run reads from its window only and keeps the spans starting in it, background and all
    since = (START + timedelta(DAY - 3)).isoformat()
    part = build_index(c.conn, last, exclude, floor_share=0.0, since=since, calibration=calibrate(low))
    first = DAY - 3 - PHRASE_SPAN + 1
    assert _entries(part) == [e for e in _entries(low) if e[1] >= first] and part.null is None
    assert calibrate(part) == calibrate(low)
    with pytest.raises(ValueError, match="calibration"):
        build_index(c.conn, last, exclude, since=since)
    c.close()


def test_the_state_held_is_the_windows_not_the_corpuss():
    # every day 40 phrases nobody wrote before and never writes again: the corpus's vocabulary grows
    # by 40 a day, the walk holds at most the window's (last uses), the open spans' and the
    # background's days
    per_day, n_days = 40, 400
    for real in (True, False):
        walk = _Walk(PHRASE_WINDOW, PHRASE_SPAN, PHRASE_BACKGROUND, 0, MIN_AUTHORS, real)
        most = 0
        for t in range(n_days):
            h = np.arange(t * per_day, (t + 1) * per_day, dtype=np.int64)
            post = {"h": h, "a": np.arange(per_day)}
            if real:
                post |= {"q": h, "id": h, "d": np.full(per_day, t), "topic": np.full(per_day, -1)}
            walk.day(t, post)
            most = max(most, walk.size())
        days = PHRASE_WINDOW + 2 * PHRASE_SPAN + (PHRASE_BACKGROUND + PHRASE_SPAN if real else 0)
        assert most <= days * per_day < n_days * per_day
        assert walk.found == [] and walk.strengths == []          # one author each: nothing fires


def test_a_phrase_whose_records_share_nothing_else_names_no_event(background, tmp_path):
    c = _copy(background, tmp_path)
    # 13 authors write the phrase, each in a record about something else: no other term is shared
    _inject(c, text=f"Notes on the {PHRASE}")
    with c.transaction():
        for i, rid in enumerate(r[0] for r in c.conn.execute(
                "SELECT id FROM records WHERE source_id LIKE 'inj%' ORDER BY id").fetchall()):
            c.conn.execute("UPDATE records SET content_text = ? WHERE id = ?",
                           (f"{WORDS[i]}: {PHRASE}", rid))
    detect_signals(c, "a1")
    assert _phrase_signals(c) == []
    # the same burst written about one thing is raised
    d = _copy(background, tmp_path, "d.db")
    _inject(d)
    detect_signals(d, "a1")
    assert [s["detail"]["phrase"] for s in _phrase_signals(d)] == [PHRASE]
    assert _phrase_signals(d)[0]["detail"]["terms"]
    c.close()
    d.close()


@pytest.mark.parametrize("real", [True, False])
def test_the_stream_counts_distinct_authors_not_postings(real):
    """A phrase nobody wrote for the window, then posted 12 times in its span: by 2 authors it is
    below the 3 authors a span needs (nothing kept), by 4 authors its strength is 4, not 12 (fails
    when the walk counts postings)."""
    start = PHRASE_WINDOW + 5
    for authors, expected in ((2, None), (4, 4)):
        walk = _Walk(PHRASE_WINDOW, PHRASE_SPAN, PHRASE_BACKGROUND, 0, MIN_AUTHORS, real)
        q = 0
        for t in range(start + PHRASE_SPAN + 1):
            n = 4 if start <= t < start + 3 else 0
            h = np.full(n, 77, np.int64)
            post = {"h": h, "a": np.arange(n) % authors}
            if real:
                post |= {"q": np.arange(q, q + n), "id": np.arange(q, q + n), "d": np.full(n, t),
                         "topic": np.full(n, -1)}
            q += n
            walk.day(t, post)
        walk.close(start + PHRASE_SPAN + 1)
        if real:
            got = [len(set(posts["a"].tolist())) for _, _, posts, _ in walk.found]
            assert got == ([] if expected is None else [expected]), authors
            assert all(len(posts["id"]) == 12 for _, _, posts, _ in walk.found)
        else:
            assert walk.strengths == ([] if expected is None else [expected]), authors


def test_a_spanish_records_stop_words_are_no_phrase(background, tmp_path):
    """Spanish records writing "es", "la", "que" into an English corpus: those words are fresh in it but
    are function words of the records' language, so the phrase that fires is the content phrase."""
    from corpuskit.text.stopwords import stop_words

    c = _copy(background, tmp_path)
    ids = _inject(c, text="Es que la vacuna adolescente es la que llega a los hospitales del norte")
    with c.transaction():
        c.conn.executemany("UPDATE records SET language = 'es' WHERE id = ?", [(i,) for i in ids])
    detect_signals(c, "a1")
    phrases = [s["detail"]["phrase"] for s in _phrase_signals(c)]
    es = stop_words(("es",))
    assert phrases and not any(w in es for p in phrases for w in p.split()), phrases
    assert "vacuna adolescente" in phrases
    c.close()
