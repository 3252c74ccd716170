"""Every figure the stories and the remaining signal headlines state, recomputed from the records in
plain SQL and Python, independently of the narrate stage and the detectors (the signal headlines of
volume, novelty and phrases are checked by ``test_written_figures``, whose checker runs here too):

- a beat's volume story: "N posts in 7 days, up P% from M" (records in the topic, primary or
  assigned, in the 7 days to the corpus clock and the 7 before; the percentage and "about as many");
- an entity's story: "N in 30 days, from M" (mentions in the two windows), its trend word, and
  "sentiment falls to a from b" (the mean score of the records mentioning it in each window);
- a signal's dispatch or lead: "N posts in 7 days" / "in a day" (the trigger signal's series over
  its week or day) and the lede's dates;
- an hourly burst: "N records in the hour from HH:00 UTC" (the topic's records in that hour);
- a sentiment shift: "rose to +a (from +b)" (the topic's mean score over its after window).

Run on the demo and on the two real shared files, each built once per session (skipped cleanly
without ``../shared``). To keep the runtime modest the real files are subsampled by time, which
keeps every day whole: Hacker News from its start through 2015-11-30, Reddit January and February
2019."""
from __future__ import annotations

import json
import re
from datetime import date, timedelta

import pytest

from corpuskit import open_corpus
from corpuskit.clock import iso
from tests.conftest import HN_CSV, csv_part, need_shared
from tests.test_written_figures import _series_count, check_headlines

_BEAT = re.compile(r"^(.+?): (\d[\d,]*) posts in the last (\d+) days|^(.+?): (\d[\d,]*) posts in (\d+) days")
_CHANGE = re.compile(r", (up|down) (\d+)% from (\d[\d,]*)(?:;|$)|, about as many as the (\d+) days before(?:;|$)"
                     r"|, none the period before(?:;|$)")
_ENTITY = re.compile(r"^(.+?) mentions (\w+(?: \w+)?): (\d[\d,]*) in (\d+) days, from (\d[\d,]*)"
                     r"(?:; sentiment (rises|falls) to ([+-][\d.]+) from ([+-][\d.]+))?")
_ENTITY_NEW = re.compile(r"^(.+?): (\d[\d,]*) mentions in (\d+) days, none in the \d+ days before")
_SIGNAL_STORY = re.compile(r": (\d[\d,]*) posts in (7 days|a day)")
_LEDE_WEEK = re.compile(r"^In the 7 days from (\d+ \w+ \d{4}) to (\d+ \w+ \d{4}), (\d[\d,]*) records")
_HOURLY = re.compile(r"^Burst on .+?: (\d+) records in the hour from (\d\d):00 UTC")
_SHIFT = re.compile(r" (rose|fell) to ([+-][\d.]+) \(from ([+-][\d.]+)\)")
_TRENDS = {"surge": (3.5, None), "triple": (2.8, 3.5), "double": (1.8, 2.8), "rise": (1.15, 1.8),
           "hold steady": (0.87, 1.15), "fall": (0.55, 0.87), "halve": (0.4, 0.55), "drop": (None, 0.4)}


def _n(text: str) -> int:
    return int(text.replace(",", ""))


def _in_topic(conn, topic_id, since: str, until: str) -> int:
    """Records in the topic (primary or assigned) published in ``(since, until]``."""
    return conn.execute(
        "SELECT count(*) FROM records r WHERE r.published_at > ? AND r.published_at <= ? AND ("
        "r.id IN (SELECT record_id FROM enrichment WHERE topic_id = ?) OR "
        "r.id IN (SELECT record_id FROM topic_assignments WHERE topic_id = ?))",
        (since, until, topic_id, topic_id)).fetchone()[0]


def _check_beat(conn, story, now) -> list[str]:
    m = _BEAT.match(story["headline"])
    if not m or json.loads(story["metadata"]).get("figures", {}).get("period"):
        return []
    days = int(m.group(3) or m.group(6))
    n = _n(m.group(2) or m.group(5))
    end, mid, start = iso(now), iso(now - timedelta(days=days)), iso(now - timedelta(days=2 * days))
    got, before = _in_topic(conn, story["topic_id"], mid, end), _in_topic(conn, story["topic_id"], start, mid)
    wrong = [] if got == n else [f"{n} posts in {days} days: records say {got}"]
    change = _CHANGE.search(story["headline"])
    if change is None:
        return wrong + ["no change stated"]
    if change.group(1):
        pct, prev = int(change.group(2)), _n(change.group(3))
        if prev != before or round(100 * (got - before) / max(before, 1)) != (pct if change.group(1) == "up" else -pct):
            wrong.append(f"{change.group(0)}: records say {got} from {before}")
    elif change.group(4):
        if not before or abs(got - before) > 0.1 * before:
            wrong.append(f"'about as many': records say {got} from {before}")
    elif before:
        wrong.append(f"'none the period before': records say {before}")
    return wrong


def _entity_window(conn, entity_id, since: str, until: str):
    mentions, records = conn.execute(
        "SELECT coalesce(sum(m.mention_count), 0), count(*) FROM mentions m JOIN records r ON r.id = m.record_id "
        "WHERE m.entity_id = ? AND r.published_at > ? AND r.published_at <= ?", (entity_id, since, until)).fetchone()
    scores = [r[0] for r in conn.execute(
        "SELECT e.sentiment_score FROM mentions m JOIN records r ON r.id = m.record_id "
        "JOIN enrichment e ON e.record_id = r.id WHERE m.entity_id = ? AND r.published_at > ? "
        "AND r.published_at <= ? AND e.sentiment_score IS NOT NULL", (entity_id, since, until))]
    return mentions, records, (sum(scores) / len(scores) if scores else None)


def _check_entity(conn, story, now) -> list[str]:
    m, new = _ENTITY.match(story["headline"]), _ENTITY_NEW.match(story["headline"])
    if (not m and not new) or story["entity_id"] is None:
        return []
    if json.loads(story["metadata"]).get("figures", {}).get("period"):
        return []
    days = int(m.group(4) if m else new.group(3))
    end, mid, start = iso(now), iso(now - timedelta(days=days)), iso(now - timedelta(days=2 * days))
    now_m, _, now_s = _entity_window(conn, story["entity_id"], mid, end)
    before_m, _, before_s = _entity_window(conn, story["entity_id"], start, mid)
    if new:
        return [] if (now_m, before_m) == (_n(new.group(2)), 0) else [f"records say {now_m} from {before_m}"]
    wrong = []
    if (now_m, before_m) != (_n(m.group(3)), _n(m.group(5))):
        wrong.append(f"{m.group(3)} from {m.group(5)}: records say {now_m} from {before_m}")
    low, high = _TRENDS.get(m.group(2), (0, 0))
    ratio = now_m / before_m if before_m else float("inf")
    if (low is not None and ratio < low) or (high is not None and ratio >= high):
        wrong.append(f"'{m.group(2)}' for {now_m} against {before_m}")
    if m.group(6):
        said_now, said_before = float(m.group(7)), float(m.group(8))
        if now_s is None or before_s is None or abs(round(now_s, 2) - said_now) > 0.0051 \
                or abs(round(before_s, 2) - said_before) > 0.0051:
            wrong.append(f"sentiment {said_now} from {said_before}: records say {now_s} from {before_s}")
        elif (m.group(6) == "rises") != (said_now > said_before):
            wrong.append(f"'{m.group(6)}' from {said_before} to {said_now}")
    return wrong


def _reader_day(text: str) -> str:
    from datetime import datetime

    return datetime.strptime(text, "%d %B %Y").date().isoformat()


def _check_signal_story(conn, story, signal_id) -> list[str]:
    m = _SIGNAL_STORY.search(story["headline"])
    if not m:
        return []
    sig = conn.execute("SELECT id, kind, topic_id, entity_id, source, headline, detail FROM signals WHERE id = ?",
                       (signal_id,)).fetchone()
    d = json.loads(sig["detail"])
    if d.get("subjectKind") == "phrase" or d.get("hour") or sig["kind"] != "volume_spike":
        return []
    first = d["weekStart"] if m.group(2) == "7 days" else d["day"]
    if m.group(2) == "7 days" and (date.fromisoformat(d["day"]) - date.fromisoformat(first)).days != 6:
        return [f"'7 days' but the signal's window is {first}..{d['day']}"]
    got = _series_count(conn, d, sig["entity_id"], sig["topic_id"], sig["source"], sig["headline"], first, d["day"])
    wrong = [] if got == _n(m.group(1)) else [f"{m.group(1)} posts {first}..{d['day']}: records say {got}"]
    term = re.match(r'Records writing "([^"]+)"', sig["headline"])
    if d.get("series") == "term" and not story["headline"].lower().startswith(term.group(1).lower() + ":"):
        wrong.append(f"the posts counted are those writing '{term.group(1)}', not the headline's subject")
    lede = _LEDE_WEEK.match(story["lede"] or "")
    if m.group(2) == "7 days" and lede and (_reader_day(lede.group(1)), _reader_day(lede.group(2))) != (first, d["day"]):
        wrong.append(f"lede window {lede.group(1)}..{lede.group(2)} is not {first}..{d['day']}")
    return wrong


def _check_hourly(conn, sig, d) -> list[str]:
    m = _HOURLY.match(sig["headline"])
    if not m:
        return [f"hourly headline unreadable: {sig['headline']}"]
    start = f"{d['day']}T{m.group(2)}:00:00Z"
    got = conn.execute(
        "SELECT count(*) FROM records r JOIN enrichment e ON e.record_id = r.id WHERE e.topic_id = ? "
        "AND r.published_at >= ? AND r.published_at <= ?", (sig["topic_id"], start, start[:14] + "59:59Z")).fetchone()[0]
    return [] if got == int(m.group(1)) else [f"{m.group(1)} records in the hour from {start}: records say {got}"]


def _check_shift(conn, sig, d) -> list[str]:
    m = _SHIFT.search(sig["headline"])
    if not m or sig["topic_id"] is None or "afterDays" not in d:
        return []
    first = (date.fromisoformat(d["day"]) - timedelta(days=int(d["afterDays"]) - 1)).isoformat()
    mean = conn.execute(
        "SELECT avg(e.sentiment_score) FROM records r JOIN enrichment e ON e.record_id = r.id "
        "WHERE e.topic_id = ? AND r.day BETWEEN ? AND ? AND e.sentiment_score IS NOT NULL",
        (sig["topic_id"], first, d["day"])).fetchone()[0]
    if mean is None or abs(mean - float(m.group(2))) > 0.0051:
        return [f"after mean {m.group(2)} over {first}..{d['day']}: records say {mean}"]
    if (m.group(1) == "rose") != (float(m.group(2)) > float(m.group(3))):
        return [f"'{m.group(1)}' from {m.group(3)} to {m.group(2)}"]
    return []


def check_texts(corpus) -> tuple[dict, list[str]]:
    """``(checked per kind of text, problems)`` over every story and signal headline of ``corpus``."""
    from corpuskit.enrich.pipeline import language_counts
    from corpuskit.text.stopwords import corpus_languages, vocabulary_languages

    conn, now = corpus.conn, corpus.now()
    checked, problems = {}, []
    with vocabulary_languages(corpus_languages(language_counts(conn))):   # the words the stages read
        n, wrong = check_headlines(conn)
    checked["signal headlines (volume, novelty, phrase)"] = n
    problems += wrong
    for sig in conn.execute("SELECT id, kind, topic_id, entity_id, source, headline, detail FROM signals ORDER BY id"):
        d = json.loads(sig["detail"])
        if d.get("hour"):
            kind, wrong = "hourly bursts", _check_hourly(conn, sig, d)
        elif _SHIFT.search(sig["headline"]):
            kind, wrong = "sentiment shifts", _check_shift(conn, sig, d)
        else:
            continue
        checked[kind] = checked.get(kind, 0) + 1
        problems += [f"signal {sig['id']} '{sig['headline']}': {w}" for w in wrong]
    for story in conn.execute("SELECT * FROM stories WHERE is_current = 1 ORDER BY id").fetchall():
        source = json.loads(story["metadata"]).get("headlineSource") or {}
        if "signal" in source:        # a headline written from a signal, whatever the story's kind
            kind, wrong = "signal stories", _check_signal_story(conn, story, source["signal"])
        elif source.get("figures") == "beat":
            kind, wrong = "beat stories", _check_beat(conn, story, now)
        elif source.get("figures") == "entity":
            kind, wrong = "entity stories", _check_entity(conn, story, now)
        else:
            continue
        checked[kind] = checked.get(kind, 0) + 1
        problems += [f"story {story['id']} '{story['headline']}': {w}" for w in wrong]
    return checked, problems


def _hn_part(tmp_path):
    def through_november_2015(header, row):
        month, _, year = row[header.index("created_at")].split()[0].split("/")
        return (int(year), int(month)) <= (2015, 11)

    return csv_part(need_shared(HN_CSV), tmp_path / "hn_part.csv", through_november_2015)


@pytest.fixture(scope="session", params=["hacker news", "reddit"])
def real_corpus(request, tmp_path_factory):
    """A real shared file, subsampled by time (see the module docstring), with every stage run."""
    if request.param == "reddit":
        yield request.getfixturevalue("reddit_two_months_run")
        return
    tmp = tmp_path_factory.mktemp("real")
    part = _hn_part(tmp)
    c = open_corpus(tmp / "c.db")
    c.import_file(part, progress=False)
    c.run(progress=False)
    yield c
    c.close()


def test_demo_texts_state_what_the_records_say(demo_corpus):
    checked, problems = check_texts(demo_corpus)
    assert checked.get("beat stories", 0) + checked.get("entity stories", 0) >= 3, checked
    assert checked.get("signal stories", 0) >= 1 and checked.get("signal headlines (volume, novelty, phrase)") >= 20
    assert problems == []


def test_real_texts_state_what_the_records_say(real_corpus):
    checked, problems = check_texts(real_corpus)
    assert sum(checked.values()) >= 5, checked
    assert problems == []


def test_a_term_signals_story_names_the_term_it_counted():
    """Spanish news tweets: 6 records writing "Alec Baldwin" in a week were headlined
    "Miscellaneous (años, vida): 6 posts in 7 days", while that topic had 147 posts in those days.
    The subject of a count is what was counted: the term."""
    from corpuskit.narrate.prose import signal_prose

    signal = {"kind": "volume_spike", "severity": "medium", "sigma_score": 4.1, "topic_id": 1,
              "detail": {"current": 6, "baseline": 0.5, "multiplier": 6.0, "scale": "week", "series": "term",
                         "term": "Alec Baldwin", "weekStart": "2021-10-19", "day": "2021-10-25", "windowDays": 56}}
    headline, framing = signal_prose(signal, {"id": 1, "name": "anos-vida", "display_name": "Miscellaneous",
                                              "keywords": '["años", "vida"]'}, None)
    assert headline.startswith("Alec Baldwin: 6 posts in 7 days"), headline
    assert "Miscellaneous" not in headline.split(":")[0]
