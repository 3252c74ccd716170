"""The demo corpus generator: determinism, shape, labels, planted events, storing, CLI."""
from __future__ import annotations

import hashlib
import json
import os
import re
import statistics
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

import pytest
from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

from corpuskit import open_corpus
from corpuskit.cli import main
from corpuskit.errors import ValidationError
from corpuskit.ingest import demo_vocab as V
from corpuskit.demo import build_demo
from corpuskit.ingest.demo import (
    BASELINE_DAYS, END_DAY, beats_json, demo_ground_truth, generate_demo,
    ground_truth_counts, ground_truth_json, plan_events,
)
from corpuskit.ingest.records import SOURCE_KINDS, normalise

ROOT = Path(__file__).resolve().parents[1]
BEAT_KEYS = {"name", "displayName", "description", "category", "keywords", "subreddits", "active"}
ENTITY_TYPES = {"person", "org", "product", "place", "concept"}


@pytest.fixture(scope="module")
def small():
    """A 6,000-record, 60-day demo (the size of the session demo corpus)."""
    return generate_demo(7, 6000, 60)


@pytest.fixture(scope="module")
def scored(small):
    """VADER compound of every record of ``small`` (title + text)."""
    analyser = SentimentIntensityAnalyzer()
    records, _ = small
    return [analyser.polarity_scores(f"{r['title']} {r['contentText']}".strip())["compound"]
            for r in records]


def _vocabulary() -> dict[str, str]:
    names = {}
    for beat in V.ENTITIES.values():
        for etype, items in beat.items():
            for name in items:
                names[name] = etype
    for name in V.COMMON_PLACES:
        names[name] = "place"
    for name, etype in V.NOVEL_ENTITIES:
        names[name] = etype
    return names


def _name_pattern(name: str):
    return re.compile(r"(?<![\w-])" + re.escape(name) + r"(?![\w-]|'(?!s\b))")


# -- determinism ------------------------------------------------------------------------------
def test_same_seed_same_records_and_other_seed_differs():
    a = generate_demo(3, 800, 30)
    b = generate_demo(3, 800, 30)
    c = generate_demo(4, 800, 30)
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    assert [r["contentText"] for r in a[0]] != [r["contentText"] for r in c[0]]


def test_same_output_in_processes_with_different_string_hashing():
    code = ("import hashlib, json; from corpuskit.ingest.demo import generate_demo; "
            "print(hashlib.sha256(json.dumps(generate_demo(5, 600, 28), sort_keys=True).encode()).hexdigest())")
    digests = set()
    for hash_seed in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        digests.add(out.stdout.strip())
    assert len(digests) == 1
    assert digests == {hashlib.sha256(json.dumps(generate_demo(5, 600, 28), sort_keys=True).encode()).hexdigest()}


def test_export_of_two_builds_is_byte_identical(tmp_path):
    outputs = []
    for i in range(2):
        corpus = open_corpus(":memory:")
        build_demo(corpus, seed=11, records=1500, days=60, run_stages=False, progress=False)
        path = tmp_path / f"demo{i}.jsonl"
        assert corpus.export(path) == 1500
        outputs.append(path.read_bytes())
        corpus.close()
    assert outputs[0] == outputs[1]
    assert len(outputs[0]) > 100_000


# -- shape of the records -----------------------------------------------------------------------
def test_records_sizes_sources_and_fields(small):
    records, truth = small
    assert len(records) == 6000
    sources = Counter(r["source"] for r in records)
    assert set(sources) == set(V.SOURCES) and len(sources) >= 7
    assert set(sources) <= set(SOURCE_KINDS)
    assert min(sources.values()) > 100
    subreddits = {b["name"]: set(b["subreddits"]) for b in V.BEATS}
    keys = set()
    for r in records:
        assert set(r) == {"source", "sourceId", "contentType", "title", "contentText", "url", "author",
                          "publishedAt", "capturedAt", "subreddit", "language", "topic", "metadata"}
        assert r["topic"] is None and r["language"] == "en"
        assert r["sourceId"] and r["url"].startswith("https://") and r["author"] and r["contentText"]
        assert r["capturedAt"] >= r["publishedAt"]
        assert truth["window"]["start"] <= r["publishedAt"][:10] <= truth["window"]["end"]
        beat = r["metadata"]["demo"]["beat"]
        if r["source"] == "arxiv":
            assert r["contentType"] == "paper" and r["title"]
            assert r["metadata"]["arxiv_id"] == r["sourceId"]
        if r["source"] == "reddit":
            assert r["subreddit"]
            if beat is not None:
                assert r["subreddit"] in subreddits[beat]
            assert "score" in r["metadata"]
        else:
            assert r["subreddit"] is None
        if r["source"] == "hackernews":
            assert "score" in r["metadata"]
        if r["source"] == "youtube":
            assert r["contentType"] == "video" and r["metadata"]["views"] >= 0
        if r["source"] in ("twitter", "bluesky"):
            assert r["title"] == "" and len(r["contentText"]) <= 300
        keys.add((r["source"], r["sourceId"]))
        assert normalise(r) == r  # already in the record model
    assert len(keys) == len(records)
    assert max(r["publishedAt"] for r in records)[:10] == END_DAY.isoformat()
    assert [r["publishedAt"] for r in records] == sorted(r["publishedAt"] for r in records)


def test_beats_and_offbeat_share(small):
    records, _ = small
    beats = Counter(r["metadata"]["demo"]["beat"] for r in records)
    assert set(beats) == set(V.BEAT_NAMES) | {None}
    assert len(V.BEAT_NAMES) >= 6
    assert 0.03 < beats[None] / len(records) < 0.07
    assert min(n for b, n in beats.items() if b is not None) > 500


def test_beats_file_is_the_beat_definitions():
    path = ROOT / "datasets" / "demo" / "beats.json"
    assert path.read_text(encoding="utf-8") == beats_json()
    beats = json.loads(path.read_text(encoding="utf-8"))
    assert len(beats) >= 6
    for beat in beats:
        assert set(beat) == BEAT_KEYS
        assert beat["keywords"] and beat["subreddits"] and beat["active"] is True
    assert len({b["name"] for b in beats}) == len(beats)


def test_each_beat_uses_its_own_keywords(small):
    records, _ = small
    hits = defaultdict(list)
    for r in records:
        beat = r["metadata"]["demo"]["beat"]
        text = f"{r['title']} {r['contentText']}".lower()
        for b in V.BEATS:
            if any(k in text for k in b["keywords"]):
                hits[beat].append(b["name"])
    for beat in V.BEAT_NAMES:
        own = sum(1 for name in hits[beat] if name == beat)
        total = sum(1 for r in records if r["metadata"]["demo"]["beat"] == beat)
        assert own / total > 0.6, beat
        assert Counter(hits[beat]).most_common(1)[0][0] == beat


# -- labels --------------------------------------------------------------------------------------
def test_vocabulary_is_clean():
    names = _vocabulary()
    assert sum(1 for t in names.values() if t == "person") >= 40
    assert sum(1 for t in names.values() if t == "org") >= 40
    assert sum(1 for t in names.values() if t == "product") >= 25
    assert sum(1 for t in names.values() if t == "place") >= 25
    assert sum(1 for t in names.values() if t == "concept") >= 15
    all_names = [n for beat in V.ENTITIES.values() for items in beat.values() for n in items]
    all_names += V.COMMON_PLACES + [n for n, _ in V.NOVEL_ENTITIES]
    assert len(all_names) == len(set(all_names)), "an entity is listed twice"
    for a in all_names:
        for b in all_names:
            if a != b:
                assert not _name_pattern(a).search(b), f"{a!r} is part of {b!r}"


def test_entity_labels_list_exactly_the_names_written(small):
    records, _ = small
    names = _vocabulary()
    any_name = re.compile(r"(?<![\w-])(" + "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
                          + r")(?![\w-]|'(?!s\b))")
    labelled = Counter()
    for r in records:
        full = f"{r['title']} {r['contentText']}"
        labels = r["metadata"]["demo"]["entities"]
        assert len({n for n, _ in labels}) == len(labels)
        for name, etype in labels:
            assert etype in ENTITY_TYPES and names[name] == etype
            labelled[etype] += 1
        found = set(any_name.findall(full))
        assert found == {n for n, _ in labels}, (full, labels)
        # listed in order of first appearance
        assert [full.find(n) for n, _ in labels] == sorted(full.find(n) for n, _ in labels)
    assert all(labelled[t] > 100 for t in ENTITY_TYPES)


def test_surface_forms_include_handles_and_possessives(small):
    records, _ = small
    texts = [r["contentText"] for r in records]
    assert any(re.search(r"@[A-Z]\w+", t) for t, r in zip(texts, records) if r["source"] == "twitter")
    assert any(re.search(r"@[A-Z]\w+", t) for t, r in zip(texts, records) if r["source"] == "bluesky")
    assert sum("'s " in t for t in texts) > 100


def test_non_sentiment_vocabulary_is_vader_neutral():
    lexicon = SentimentIntensityAnalyzer().lexicon
    pieces = [b["description"] for b in V.BEATS] + [k for b in V.BEATS for k in b["keywords"]]
    pieces += [p for themes in V.THEMES.values() for items in themes.values() for p in items]
    pieces += list(_vocabulary())
    for group in (V.ORG_VERBS, V.PERSON_VERBS, V.PRODUCT_VERBS, V.TITLE_TEMPLATES, V.FACT_TEMPLATES,
                  V.NEUTRAL_SENTENCES, V.PAPER_TITLE_TEMPLATES, V.PAPER_SENTENCES, V.PAPER_NEUTRAL,
                  V.REDDIT_QUESTIONS, V.NEWS_LEADS, V.YOUTUBE_TITLES, V.YOUTUBE_LINES,
                  V.OFFBEAT_SENTENCES, *V.OFFBEAT_TITLES.values(), *V.EVENT_SENTENCES.values(),
                  *V.HASHTAGS.values()):
        pieces += group
    scored = sorted({(w, lexicon[w]) for p in pieces
                     for w in (t.strip(".,:;!?'\"#{}()").lower() for t in p.split()) if w in lexicon})
    assert scored == []


def test_planted_sentiment_shows_in_vader(small, scored):
    records, _ = small
    by_label = defaultdict(list)
    for r, c in zip(records, scored):
        by_label[r["metadata"]["demo"]["sentiment"]].append(c)
    assert statistics.mean(by_label["positive"]) > 0.5
    assert statistics.mean(by_label["negative"]) < -0.5
    assert statistics.mean(abs(c) for c in by_label["neutral"]) < 0.1


# -- ground truth ---------------------------------------------------------------------------------
def test_committed_ground_truth_is_the_default_demo():
    path = ROOT / "datasets" / "demo" / "ground_truth.json"
    assert path.read_text(encoding="utf-8") == ground_truth_json(demo_ground_truth())
    assert json.loads(path.read_text(encoding="utf-8"))["records"] == 20000


def test_ground_truth_without_records_matches_generation(small):
    _, truth = small
    assert truth == demo_ground_truth(7, 6000, 60)
    assert generate_demo(5, 300, 28)[1] == demo_ground_truth(5, 300, 28)


@pytest.mark.parametrize("seed,days", [(7, 60), (1, 28), (2, 29), (3, 45), (4, 90), (5, 120)])
def test_ground_truth_structure(seed, days):
    truth = demo_ground_truth(seed, 1000, days)
    counts = ground_truth_counts(truth)
    assert counts["volume_spike"] >= 3 and counts["sentiment_shift"] >= 2
    assert counts["novelty"] >= 2 and counts["divergence"] >= 2
    first_event_day = truth["window"]["start"]
    spans = defaultdict(list)
    for e in truth["events"]:
        assert e["kind"] in counts and e["beat"] in V.BEAT_NAMES
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", e["start"]) and e["start"] <= e["end"]
        assert e["days"][0] == e["start"] and e["days"][-1] == e["end"]
        assert e["end"] <= truth["window"]["end"]
        index = (_date(e["start"]) - _date(first_event_day)).days
        assert index >= BASELINE_DAYS
        assert e["entity"]["type"] in ENTITY_TYPES and e["entity"]["name"]
        assert set(e["sources"]) <= set(V.SOURCES) and e["sources"]
        if e["kind"] == "volume_spike":
            assert len(e["multipliers"]) == len(e["days"]) and all(3 <= m <= 5 for m in e["multipliers"])
        if e["kind"] == "divergence":
            assert e["sources"] == [e["positiveSource"], e["negativeSource"]]
            assert e["positiveSource"] != e["negativeSource"]
        if e["kind"] == "sentiment_shift":
            assert e["direction"] in ("positive", "negative") and len(e["days"]) >= 3
        spans[e["beat"]].append((e["start"], e["end"]))
    assert len(spans) >= 6
    for beat, items in spans.items():
        items.sort()
        assert all(a[1] < b[0] for a, b in zip(items, items[1:])), beat
    assert {e["direction"] for e in truth["events"] if e["kind"] == "sentiment_shift"} == {"positive", "negative"}
    assert len({e["entity"]["name"] for e in truth["events"] if e["kind"] == "novelty"}) >= 2


def _date(text):
    from datetime import date
    return date.fromisoformat(text)


def test_novel_entities_absent_before_their_day_then_prominent(small):
    records, truth = small
    novel = [e for e in truth["events"] if e["kind"] == "novelty"]
    assert len(novel) >= 2
    for e in novel:
        name = e["entity"]["name"]
        days_with = sorted({r["publishedAt"][:10] for r in records
                            if name in r["title"] or name in r["contentText"]})
        assert days_with[0] == e["start"]
        in_window = [r for r in records if r["publishedAt"][:10] in e["days"]
                     and r["metadata"]["demo"]["beat"] == e["beat"]]
        mentioning = [r for r in in_window if [name, e["entity"]["type"]] in r["metadata"]["demo"]["entities"]]
        assert len(mentioning) / len(in_window) > 0.3


def _daily(records, beat):
    counts = Counter(r["publishedAt"][:10] for r in records if r["metadata"]["demo"]["beat"] == beat)
    return counts


def test_spike_days_have_the_multiplied_volume(small):
    records, truth = small
    days = sorted({r["publishedAt"][:10] for r in records})
    for e in (e for e in truth["events"] if e["kind"] == "volume_spike"):
        counts = _daily(records, e["beat"])
        baseline = statistics.median(counts[d] for d in days[:BASELINE_DAYS])
        for day, mult in zip(e["days"], e["multipliers"]):
            assert counts[day] >= 0.65 * mult * baseline, (e["id"], day, counts[day], baseline)
        others = [counts[d] for d in days if d not in e["days"]]
        assert max(others) < 2 * baseline


def _mean_compound(records, scored, beat, days, source=None):
    values = [c for r, c in zip(records, scored) if r["metadata"]["demo"]["beat"] == beat
              and r["publishedAt"][:10] in days and (source is None or r["source"] == source)]
    return statistics.mean(values), len(values)


def test_shift_days_have_the_shifted_vader_mean(small, scored):
    records, truth = small
    days = sorted({r["publishedAt"][:10] for r in records})
    baseline_days = set(days[:BASELINE_DAYS])
    for e in (e for e in truth["events"] if e["kind"] == "sentiment_shift"):
        base, _ = _mean_compound(records, scored, e["beat"], baseline_days)
        sign = 1 if e["direction"] == "positive" else -1
        during, _ = _mean_compound(records, scored, e["beat"], set(e["days"]))
        assert sign * (during - base) >= 0.4, (e["id"], during, base)
        for day in e["days"]:  # every day, despite the few records a day of a 6,000-record demo
            during, n = _mean_compound(records, scored, e["beat"], {day})
            assert sign * (during - base) >= 0.3, (e["id"], day, during, base, n)


def test_divergence_sources_move_apart(small, scored):
    records, truth = small
    for e in (e for e in truth["events"] if e["kind"] == "divergence"):
        pos, n_pos = _mean_compound(records, scored, e["beat"], set(e["days"]), e["positiveSource"])
        neg, n_neg = _mean_compound(records, scored, e["beat"], set(e["days"]), e["negativeSource"])
        assert n_pos >= 8 and n_neg >= 8
        assert pos > 0.4 and neg < -0.4, (e["id"], pos, neg)


def test_null_corpus_is_quiet():
    records, truth = generate_demo(7, 6000, 60, events=False)
    assert truth["events"] == [] and truth["eventsPlanted"] is False
    text = " ".join(r["contentText"] for r in records)
    assert all(name not in text for name, _ in V.NOVEL_ENTITIES)
    assert all(r["metadata"]["demo"]["event"] is None for r in records)
    days = sorted({r["publishedAt"][:10] for r in records})
    alarms = 0
    for beat in V.BEAT_NAMES:
        counts = _daily(records, beat)
        for i in range(BASELINE_DAYS, len(days)):
            window = [counts[d] for d in days[i - BASELINE_DAYS:i]]
            mean = statistics.mean(window)
            sd = max(statistics.pstdev(window), mean ** 0.5)
            alarms += abs(counts[days[i]] - mean) / sd > 3
    assert alarms <= 2


def test_plan_is_a_pure_function_of_seed_and_days():
    assert plan_events(9, 60) == plan_events(9, 60)
    assert [e["beat"] for e in plan_events(9, 60)] != [e["beat"] for e in plan_events(10, 60)]


# -- bad input -------------------------------------------------------------------------------------
@pytest.mark.parametrize("kwargs,match", [
    ({"records": 99}, "records must be an int >= 100"),
    ({"days": 27}, "days must be an int >= 28"),
    ({"days": 5000}, "days must be <= 3650"),
    ({"seed": "7"}, "seed must be an int"),
    ({"seed": 1.5}, "seed must be an int"),
    ({"seed": True}, "seed must be an int"),
    ({"seed": -1}, "seed must be >= 0"),
    ({"records": 500.0}, "records must be an int"),
])
def test_bad_inputs_are_refused(kwargs, match, corpus):
    params = {"seed": 7, "records": 500, "days": 30, **kwargs}
    with pytest.raises(ValidationError, match=match):
        generate_demo(**params)
    with pytest.raises(ValidationError, match=match):
        build_demo(corpus, run_stages=False, progress=False, **params)
    assert corpus.count() == 0


def test_build_refuses_a_corpus_with_records(corpus):
    build_demo(corpus, records=300, days=28, run_stages=False, progress=False)
    with pytest.raises(ValidationError, match="already holds 300 records"):
        build_demo(corpus, records=300, days=28, run_stages=False, progress=False)
    assert corpus.count() == 300


# -- storing ---------------------------------------------------------------------------------------
def test_build_demo_stores_records_beats_and_ground_truth(tmp_path):
    path = tmp_path / "small.db"
    corpus = open_corpus(path)
    summary = build_demo(corpus, seed=3, records=700, days=30, run_stages=False, progress=False)
    assert summary["records"] == 700 == corpus.count()
    assert summary["eventsPlanted"] == 9 and summary["events"]["volume_spike"] == 3
    assert sum(summary["sources"].values()) == 700 and len(summary["sources"]) == 7
    assert summary["beats"] == V.BEAT_NAMES and summary["stages"] == {}
    assert {"generate", "insert"} <= set(summary["timings"])
    json.dumps(summary)
    truth_file = tmp_path / "small.ground_truth.json"
    assert summary["groundTruthPath"] == str(truth_file)
    truth = json.loads(truth_file.read_text(encoding="utf-8"))
    assert truth == corpus.get_meta("demo_ground_truth") == demo_ground_truth(3, 700, 30)
    assert corpus.get_meta("beats") == V.BEATS
    assert corpus.clock_mode == "frozen"
    assert corpus.now().date() == END_DAY
    frame = corpus.records()
    assert frame["topic"].isna().all()
    assert frame["metadata"].map(lambda m: "demo" in m).all()
    corpus.close()


def test_build_demo_in_memory_runs_every_stage(corpus, monkeypatch):
    calls = []

    def fake_run(progress=True, stages=None):
        calls.append((progress, tuple(stages)))
        return {stages[0]: {"ok": True}}

    monkeypatch.setattr(corpus, "run", fake_run)
    summary = build_demo(corpus, records=200, days=28, progress=False)
    assert summary["groundTruthPath"] is None
    assert calls == [(False, ("enrich",)), (False, ("analyse",)), (False, ("narrate",))]
    assert summary["stages"] == {"enrich": "done", "analyse": "done", "narrate": "done"}
    assert {"enrich", "analyse", "narrate"} <= set(summary["timings"])


def test_cli_demo(tmp_path, capsys):
    db = tmp_path / "cli.db"
    status = main(["demo", "--db", str(db), "--records", "500", "--days", "30", "--no-pipeline"])
    assert status == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["records"] == 500 and summary["eventsPlanted"] == 9
    assert (tmp_path / "cli.ground_truth.json").exists()
    status = main(["demo", "--db", str(tmp_path / "null.db"), "--records", "500", "--days", "30",
                   "--no-pipeline", "--no-events", "--seed", "2"])
    assert status == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["eventsPlanted"] == 0 and summary["seed"] == 2
    assert main(["demo", "--db", str(tmp_path / "bad.db"), "--records", "50", "--no-pipeline"]) == 2
    assert "records must be an int >= 100" in capsys.readouterr().err


def test_ground_truth_goes_beside_the_corpus_not_the_working_directory(tmp_path, monkeypatch, capsys):
    (tmp_path / "work").mkdir()
    (tmp_path / "data").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    assert main(["demo", "--db", "../data/d.db", "--records", "200", "--days", "28", "--no-pipeline",
                 "--quiet"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["groundTruthPath"] == str(tmp_path / "data" / "d.ground_truth.json")
    assert (tmp_path / "data" / "d.ground_truth.json").exists()
    assert list((tmp_path / "work").iterdir()) == []
