"""Every figure the stories and the signal texts state, recomputed from the records in plain SQL and
Python, independently of the narrate stage and the detectors (the signal headlines of volume, novelty
and phrases are checked by ``test_written_figures``, whose checker runs here too):

- a beat's volume story: "N posts in 7 days, up P% from M" (records in the topic, primary or
  assigned, in the 7 days to the corpus clock and the 7 before; the percentage and "about as many");
- a cluster story: "talk of a, b grows to N posts in 3 days, up from M" (the cluster's members in the
  last half of the window and the half before);
- an entity's story: "N in 30 days, from M" (mentions in the two windows), its trend word, and
  "sentiment falls to a from b" (the mean score of the records mentioning it in each window);
- every signal's prose, whether or not a story carries it, and every story headlined from a signal:
  its subject is what the signal counted (the entity, the term or phrase, the source of a source
  series, else the topic), and its figures are the records': "N posts in a day / in 7 days / in one
  hour" with the lede's day, window or hour; "X emerges: N mentions, against M in the previous W
  days"; "Sentiment on T falls: a, down from b over k days" with the lede's records and dates;
  "A and B split on T: a against b" with the lede's "from" and points; a phrase's records, authors
  and window;
- signal headlines: an hourly burst's "N records in the hour from HH:00 UTC" (the topic's records in
  that hour, on the demo and, with the hourly gates lowered on a copy, on the real Reddit months); a
  sentiment shift's "fell to a (from b); strongest on DAY (p)"; a divergence's "(a vs b)" and its
  summary's "from c" and points.

Run on the demo and on the real shared files through the session fixtures (skipped cleanly without
``../shared``). To keep the runtime modest the real files are subsampled by time, which keeps every
day whole: Hacker News from its start through 2015-11-30, Reddit January and February 2019."""
from __future__ import annotations

import json
import re
from datetime import date, timedelta

import pytest

from corpuskit import open_corpus
from corpuskit.clock import iso
from tests.conftest import HN_CSV, csv_part, every_stage_run, need_shared
from tests.test_written_figures import _check_phrase, _series_count, _shift, check_headlines

_BEAT = re.compile(r"^(.+?): (\d[\d,]*) posts in the last (\d+) days|^(.+?): (\d[\d,]*) posts in (\d+) days")
_CHANGE = re.compile(r", (up|down) (\d+)% from (\d[\d,]*)(?:;|$)|, about as many as the (\d+) days before(?:;|$)"
                     r"|, none the period before(?:;|$)")
_ENTITY = re.compile(r"^(.+?) mentions (\w+(?: \w+)?): (\d[\d,]*) in (\d+) days, from (\d[\d,]*)"
                     r"(?:; sentiment (rises|falls) to ([+-][\d.]+) from ([+-][\d.]+))?")
_ENTITY_NEW = re.compile(r"^(.+?): (\d[\d,]*) mentions in (\d+) days, none in the \d+ days before")
_SIGNAL_STORY = re.compile(r"^(.+?): (\d[\d,]*) posts in (7 days|a day|one hour)")
_STORY_NOVEL = re.compile(r"^(.+?) emerges(?: in posts on .+?)?: (\d[\d,]*) mentions, against (none|\d[\d,]*) in "
                          r"the previous (\d+) days")
_STORY_SHIFT = re.compile(r"^Sentiment on (.+?) (rises|falls): ([+-][\d.]+|0\.00), (up|down) from ([+-][\d.]+|0\.00) "
                          r"over (a day|\d+ days)")
_STORY_SPLIT = re.compile(r"^(.+?) and (.+?) split on (.+?): ([+-][\d.]+|0\.00) against ([+-][\d.]+|0\.00)")
_STORY_PHRASE = re.compile(r"^'(.+?)' is new(?: in posts on .+?)?: (\d+ records from \d+ authors (?:on \S+|in the \d+ "
                           r"days \S+ to \S+)(?:, not counting records writing .+?)?)(?:;|$)")
_DIVERGE = re.compile(r"^(\S+) and (\S+) diverge on .+? \(([+-][\d.]+|0\.00) vs ([+-][\d.]+|0\.00)\)")
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


def _signal_row(conn, signal_id):
    sig = conn.execute("SELECT id, kind, topic_id, entity_id, source, headline, detail FROM signals WHERE id = ?",
                       (signal_id,)).fetchone()
    return sig, json.loads(sig["detail"])


def _subject(conn, sig, d) -> str:
    """What a signal counted, as a headline names it: its entity, the term or phrase it counted, the
    source of a source series, else its topic (short name)."""
    from corpuskit.text import display_text
    from corpuskit.text.wording import source_name, topic_name

    if sig["entity_id"] is not None:
        return conn.execute("SELECT name FROM entities WHERE id = ?", (sig["entity_id"],)).fetchone()[0]
    if d.get("subjectKind") == "phrase" or d.get("series") == "term":
        return display_text(str(d.get("phrase") or d.get("term") or d.get("entity")))
    if d.get("series") == "source":
        return source_name(sig["source"])
    beat = conn.execute("SELECT display_name FROM topics WHERE id = ?", (sig["topic_id"],)).fetchone()
    return topic_name({"display_name": beat[0]} if beat else None, short=True)


def _check_signal_story(conn, story, sig, d) -> list[str]:
    """A story headlined from the signal ``sig`` (detail ``d``): its subject is what the signal counted and
    every figure and date it states is the records'."""
    headline = story["headline"]
    for check in (_story_count, _story_novelty, _story_sentiment, _story_divergence, _story_phrase):
        said = check(conn, story, sig, d)
        if said is not None:
            subject, wrong = said
            want = _subject(conn, sig, d)
            if subject.lower() != want.lower():
                wrong.append(f"names '{subject}', but the signal counted {want}'s records")
            return wrong
    return [f"a {sig['kind']} signal's story headline states no figure this test reads: {headline}"]


def _story_count(conn, story, sig, d):
    """Volume: "S: N posts in a day / in 7 days / in one hour"."""
    m = _SIGNAL_STORY.search(story["headline"])
    if not m or sig["kind"] != "volume_spike" or d.get("subjectKind") == "phrase":
        return None
    subject, n, span = m.group(1), _n(m.group(2)), m.group(3)
    if span == "one hour":
        if not d.get("hour"):
            return subject, [f"'in one hour' for a signal of a {d.get('scale', 'day')}"]
        start = str(d["hour"])[:13] + ":00:00Z"
        got = _in_hour(conn, sig["topic_id"], start)
        wrong = [] if got == n else [f"{n} posts in the hour from {start}: records say {got}"]
        lede = re.search(r"In the hour from (\d\d):00 UTC on (\d+ \w+ \d{4}), (\d[\d,]*) records", story["lede"] or "")
        if lede and (lede.group(1) != start[11:13] or _reader_day(lede.group(2)) != start[:10] or _n(lede.group(3)) != got):
            wrong.append(f"lede '{lede.group(0)}': the hour from {start} had {got}")
        return subject, wrong
    if d.get("hour"):
        return subject, [f"'in {span}' for an hourly burst"]
    first = d["weekStart"] if span == "7 days" else d["day"]
    if span == "7 days" and (date.fromisoformat(d["day"]) - date.fromisoformat(first)).days != 6:
        return subject, [f"'7 days' but the signal's window is {first}..{d['day']}"]
    if span == "a day" and d.get("scale") == "week":
        return subject, ["a week's count told as a day's"]
    got = _series_count(conn, d, sig["entity_id"], sig["topic_id"], sig["source"], sig["headline"], first, d["day"])
    wrong = [] if got == n else [f"{n} posts {first}..{d['day']}: records say {got}"]
    lede = _LEDE_WEEK.match(story["lede"] or "")
    if span == "7 days" and lede and (_reader_day(lede.group(1)), _reader_day(lede.group(2))) != (first, d["day"]):
        wrong.append(f"lede window {lede.group(1)}..{lede.group(2)} is not {first}..{d['day']}")
    day = re.match(r"^On (\d+ \w+ \d{4}), (\d[\d,]*) records", story["lede"] or "")
    if span == "a day" and day and (_reader_day(day.group(1)), _n(day.group(2))) != (d["day"], got):
        wrong.append(f"lede '{day.group(0)}': {d['day']} had {got}")
    return subject, wrong


def _entity_records(conn, entity_id, first: str, last: str) -> int:
    return conn.execute(
        "SELECT count(DISTINCT m.record_id) FROM mentions m JOIN records r ON r.id = m.record_id "
        "JOIN enrichment e ON e.record_id = r.id WHERE m.entity_id = ? AND r.day BETWEEN ? AND ?",
        (entity_id, first, last)).fetchone()[0]


def _story_novelty(conn, story, sig, d):
    """Novelty: "X emerges in posts on T: N mentions, against none in the previous W days"."""
    m = _STORY_NOVEL.match(story["headline"])
    if not m or sig["kind"] != "novelty":
        return None
    n, before, window = _n(m.group(2)), 0 if m.group(3) == "none" else _n(m.group(3)), int(m.group(4))
    day = d["day"]
    got = _entity_records(conn, sig["entity_id"], day, day)
    got_before = _entity_records(conn, sig["entity_id"], _shift(day, -window), _shift(day, -1))
    wrong = [] if (got, got_before) == (n, before) else [
        f"{n} mentions on {day} against {before} in the {window} days before: records say {got} against {got_before}"]
    lede = re.match(r"^On (\d+ \w+ \d{4}), .+? was mentioned (\d[\d,]*) times", story["lede"] or "")
    if lede and (_reader_day(lede.group(1)), _n(lede.group(2))) != (day, got):
        wrong.append(f"lede '{lede.group(0)}': {day} had {got}")
    return m.group(1), wrong


def _mean_score(conn, topic_id, first: str, last: str, source=None):
    """``(mean, scored records)`` of the topic's records (primary topic) from ``first`` through ``last``."""
    where, args = "", [topic_id, first, last]
    if source is not None:
        where, args = " AND r.source = ?", args + [source]
    return tuple(conn.execute(
        "SELECT avg(e.sentiment_score), count(*) FROM records r JOIN enrichment e ON e.record_id = r.id "
        f"WHERE e.topic_id = ? AND r.day BETWEEN ? AND ? AND e.sentiment_score IS NOT NULL{where}", args).fetchone())


def _same(said: str, value) -> bool:
    return value is not None and abs(float(said) - value) <= 0.0051


def _story_sentiment(conn, story, sig, d):
    """Sentiment shift: "Sentiment on T falls: a, down from b over k days" and its lede."""
    m = _STORY_SHIFT.match(story["headline"])
    if not m or sig["kind"] != "sentiment_shift":
        return None
    subject, way, after, up, before, span = m.groups()
    k = 1 if span == "a day" else int(span.split()[0])
    window = int(d["windowDays"])
    day = d["day"]
    got_after, n_after = _mean_score(conn, sig["topic_id"], _shift(day, 1 - k), day)
    got_before, _ = _mean_score(conn, sig["topic_id"], _shift(day, 1 - k - window), _shift(day, -k))
    wrong = []
    if not _same(after, got_after) or not _same(before, got_before):
        wrong.append(f"{after} from {before} over {k} days to {day}: records say {got_after} from {got_before}")
    if (way == "rises") != (float(after) >= float(before)) or (up == "up") != (way == "rises"):
        wrong.append(f"'{way}'/'{up}' from {before} to {after}")
    lede = re.match(r"^(?:On|Over the (\d+) days to) (\d+ \w+ \d{4}), the average sentiment(?: of (\d[\d,]*) records)? "
                    r"on .+? (rose|fell) to ([+-][\d.]+|0\.00), from ([+-][\d.]+|0\.00) in the (\d+) days before",
                    story["lede"] or "")
    if not lede:
        wrong.append(f"lede unreadable: {story['lede']}")
    elif (int(lede.group(1) or 1), _reader_day(lede.group(2)), int(lede.group(7))) != (k, day, window) or \
            (lede.group(3) and _n(lede.group(3)) != n_after) or lede.group(5) != after or lede.group(6) != before:
        wrong.append(f"lede '{lede.group(0)}': {n_after} records over the {k} days to {day}, "
                     f"against the {window} days before")
    return subject, wrong


def _divergence_means(conn, sig, d):
    """Each source's mean over the after window and over the window before it, from the records."""
    k, window, day = int(d["afterDays"]), int(d["windowDays"]), d["day"]
    out = {}
    for side in ("A", "B"):
        source = d[f"source{side}"]
        after = _mean_score(conn, sig["topic_id"], _shift(day, 1 - k), day, source)[0]
        before = _mean_score(conn, sig["topic_id"], _shift(day, 1 - k - window), _shift(day, -k), source)[0]
        out[side] = (source, after, before)
    return out


def _story_divergence(conn, story, sig, d):
    """Divergence: "A and B split on T: a against b" and its lede's means and points."""
    from corpuskit.text.wording import source_name

    m = _STORY_SPLIT.match(story["headline"])
    if not m or sig["kind"] != "divergence":
        return None
    means = _divergence_means(conn, sig, d)
    wrong = []
    if (m.group(1), m.group(2)) != (source_name(means["A"][0]), source_name(means["B"][0])):
        wrong.append(f"sources {m.group(1)} and {m.group(2)}: the signal's are {means['A'][0]} and {means['B'][0]}")
    if not _same(m.group(4), means["A"][1]) or not _same(m.group(5), means["B"][1]):
        wrong.append(f"{m.group(4)} against {m.group(5)}: records say {means['A'][1]} against {means['B'][1]}")
    lede = re.search(r"had moved to ([+-][\d.]+|0\.00)(?: from ([+-][\d.]+|0\.00))?, while on .+? it stood at "
                     r"([+-][\d.]+|0\.00): the gap between them shifted by (\d+) points", story["lede"] or "")
    (_, a_after, a_before), (_, b_after, b_before) = means["A"], means["B"]
    if lede and a_before is not None and b_before is not None:
        points = abs((a_after - b_after) - (a_before - b_before)) * 100
        if not _same(lede.group(1), a_after) or (lede.group(2) and not _same(lede.group(2), a_before)) \
                or abs(int(lede.group(4)) - points) > 0.51 + 1.0:
            wrong.append(f"lede '{lede.group(0)}': records say {a_after} from {a_before}, {points:.1f} points")
    return m.group(3), wrong


def _story_phrase(conn, story, sig, d):
    """Phrase burst: "'p' is new in posts on T: N records from M authors on DAY / in the n days A to B"."""
    m = _STORY_PHRASE.match(story["headline"])
    if not m or d.get("subjectKind") != "phrase":
        return None
    row = {"headline": f"New phrase: '{m.group(1)}' ({m.group(2)}, from none in the {int(d['windowDays'])} days before)"}
    return m.group(1), _check_phrase(conn, row, d)


def _in_hour(conn, topic_id, start: str) -> int:
    """Records whose primary topic is ``topic_id`` published in the hour from ``start``."""
    return conn.execute(
        "SELECT count(*) FROM records r JOIN enrichment e ON e.record_id = r.id WHERE e.topic_id = ? "
        "AND r.published_at >= ? AND r.published_at <= ?", (topic_id, start, start[:14] + "59:59Z")).fetchone()[0]


def _check_hourly(conn, sig, d) -> list[str]:
    """"Burst on T: N records in the hour from HH:00 UTC": the topic's records (primary) in that hour."""
    m = _HOURLY.match(sig["headline"])
    if not m:
        return [f"hourly headline unreadable: {sig['headline']}"]
    start = f"{d['day']}T{m.group(2)}:00:00Z"
    wrong = [] if str(d["hour"])[:13] == start[:13] else [f"the hour from {start} is not the detail's {d['hour']}"]
    got = _in_hour(conn, sig["topic_id"], start)
    return wrong + ([] if got == int(m.group(1)) else [f"{m.group(1)} records in the hour from {start}: records say {got}"])


def _check_shift(conn, sig, d) -> list[str]:
    """"Sentiment on T fell to a (from b); strongest on DAY (p)": the topic's mean over the after window,
    over the window before it, and over an after window ending on the peak day."""
    m = _SHIFT.search(sig["headline"])
    if not m or sig["topic_id"] is None or "afterDays" not in d:
        return []
    k, window, day = int(d["afterDays"]), int(d["windowDays"]), d["day"]
    mean, _ = _mean_score(conn, sig["topic_id"], _shift(day, 1 - k), day)
    before, _ = _mean_score(conn, sig["topic_id"], _shift(day, 1 - k - window), _shift(day, -k))
    if not _same(m.group(2), mean) or not _same(m.group(3), before):
        return [f"{m.group(2)} (from {m.group(3)}) over {k} days to {day}: records say {mean} (from {before})"]
    if (m.group(1) == "rose") != (float(m.group(2)) > float(m.group(3))):
        return [f"'{m.group(1)}' from {m.group(3)} to {m.group(2)}"]
    peak = re.search(r"; strongest on (\S+) \(([+-][\d.]+|0\.00)\)", sig["headline"])
    if peak:
        means = {j: _mean_score(conn, sig["topic_id"], _shift(peak.group(1), 1 - j), peak.group(1)) for j in (1, 2, 3)}
        if not any(_same(peak.group(2), v) for v, _ in means.values()):
            return [f"strongest on {peak.group(1)} ({peak.group(2)}): the after windows ending then say {means}"]
    return []


def _check_divergence(conn, sig, d) -> list[str]:
    """"A and B diverge on T (a vs b)" and the detail's summary "... fell to a (from c) while B is at b;
    the gap moved P points": each source's mean on the topic over the after window and the window before."""
    m = _DIVERGE.match(sig["headline"])
    if not m:
        return [f"divergence headline unreadable: {sig['headline']}"]
    means = _divergence_means(conn, sig, d)
    (a, a_after, a_before), (b, b_after, b_before) = means["A"], means["B"]
    wrong = []
    if (m.group(1), m.group(2)) != (a, b):
        wrong.append(f"{m.group(1)} and {m.group(2)}: the detail's sources are {a} and {b}")
    if not _same(m.group(3), a_after) or not _same(m.group(4), b_after):
        wrong.append(f"{m.group(3)} vs {m.group(4)}: records say {a_after} vs {b_after}")
    summary = re.search(r"sentiment (fell|rose) to ([+-][\d.]+|0\.00) \(from ([+-][\d.]+|0\.00)\) while \S+ is at "
                        r"([+-][\d.]+|0\.00); the gap moved ([\d.]+) points", d.get("summary", ""))
    if summary and a_before is not None and b_before is not None:
        points = abs((a_after - b_after) - (a_before - b_before)) * 100
        if not _same(summary.group(3), a_before) or abs(float(summary.group(5)) - points) > 0.051:
            wrong.append(f"summary '{summary.group(0)}': records say from {a_before}, {points:.2f} points")
        if (summary.group(1) == "fell") != (a_after < a_before):
            wrong.append(f"'{summary.group(1)}' from {a_before} to {a_after}")
    return wrong


def _check_cluster(conn, story, now, cluster_id) -> list[str]:
    """"T: talk of a, b grows to N posts in 3 days, up from M": the cluster's member records in the last
    half of the story window and the same span before."""
    m = re.search(r": (?:talk of .+? grows to|.+? leads with) (\d[\d,]*) posts in (\d+) days(?:, (?:up from|against) "
                  r"(\d[\d,]*)|, new this period)?", story["headline"])
    if not m:
        return [f"cluster headline unreadable: {story['headline']}"]
    if json.loads(story["metadata"]).get("figures", {}).get("period"):
        return []
    half = int(m.group(2))
    end, mid, start = iso(now), iso(now - timedelta(days=half)), iso(now - timedelta(days=2 * half))

    def members(since, until):
        return conn.execute("SELECT count(*) FROM cluster_members m JOIN records r ON r.id = m.record_id "
                            "WHERE m.cluster_id = ? AND r.published_at > ? AND r.published_at <= ?",
                            (cluster_id, since, until)).fetchone()[0]

    recent, earlier = members(mid, end), members(start, mid)
    said = (_n(m.group(1)), _n(m.group(3)) if m.group(3) else 0)
    wrong = [] if said == (recent, earlier) else [f"{said[0]} from {said[1]} in {half} days: records say {recent} from {earlier}"]
    if "grows to" in m.group(0) and recent <= earlier:
        wrong.append(f"'grows' for {recent} against {earlier}")
    return wrong


def check_texts(corpus) -> tuple[dict, list[str]]:
    """``(checked per kind of text, problems)`` over every story and signal headline of ``corpus``."""
    from corpuskit.enrich.pipeline import language_counts
    from corpuskit.narrate.evidence import entity_dict, topic_dict
    from corpuskit.narrate.prose import signal_prose
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
        elif sig["kind"] == "sentiment_shift":
            kind, wrong = "sentiment shifts", _check_shift(conn, sig, d) if _SHIFT.search(sig["headline"]) else [
                f"sentiment headline unreadable: {sig['headline']}"]
        elif sig["kind"] == "divergence":
            kind, wrong = "divergences", _check_divergence(conn, sig, d)
        else:
            continue
        checked[kind] = checked.get(kind, 0) + 1
        problems += [f"signal {sig['id']} '{sig['headline']}': {w}" for w in wrong]
    for sig in conn.execute("SELECT * FROM signals ORDER BY id").fetchall():
        # the words any story told from this signal would carry, whether or not one was written
        d = json.loads(sig["detail"])
        headline, lede = signal_prose(dict(sig, detail=d), topic_dict(conn, sig["topic_id"]),
                                      entity_dict(conn, sig["entity_id"]))
        kind = f"signal prose ({sig['kind']})"
        checked[kind] = checked.get(kind, 0) + 1
        problems += [f"signal {sig['id']} prose '{headline}': {w}"
                     for w in _check_signal_story(conn, {"headline": headline, "lede": lede}, sig, d)]
    for story in conn.execute("SELECT * FROM stories WHERE is_current = 1 ORDER BY id").fetchall():
        source = json.loads(story["metadata"]).get("headlineSource") or {}
        if "signal" in source and source.get("figures") != "entity":   # a headline written from a signal
            sig_kind = conn.execute("SELECT kind FROM signals WHERE id = ?", (source["signal"],)).fetchone()[0]
            kind, wrong = f"signal stories ({sig_kind})", _check_signal_story(conn, story, *_signal_row(conn, source["signal"]))
        elif source.get("figures") == "beat":
            kind, wrong = "beat stories", _check_beat(conn, story, now)
        elif source.get("figures") == "entity":
            kind, wrong = "entity stories", _check_entity(conn, story, now)
        elif "cluster" in source:
            kind, wrong = "cluster stories", _check_cluster(conn, story, now, source["cluster"])
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
    yield from every_stage_run(_hn_part(tmp), tmp / "c.db")


def test_demo_texts_state_what_the_records_say(demo_corpus):
    checked, problems = check_texts(demo_corpus)
    assert checked.get("beat stories", 0) + checked.get("entity stories", 0) >= 3, checked
    assert checked.get("signal headlines (volume, novelty, phrase)") >= 20
    # every kind the demo plants is read: its signals' prose, and a story told from each story kind
    for kind in ("volume_spike", "novelty", "sentiment_shift", "divergence"):
        assert checked.get(f"signal prose ({kind})", 0) >= 1, checked
    for kind in ("volume_spike", "novelty", "sentiment_shift"):
        assert checked.get(f"signal stories ({kind})", 0) >= 1, checked
    assert checked.get("cluster stories", 0) >= 1 and checked.get("divergences", 0) >= 1, checked
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


def test_real_hourly_counts_state_what_the_records_say(reddit_two_months_run, tmp_path):
    """Hourly figures on real records. The Reddit months are too quiet for the default hourly gates (no
    topic has three records in an hour of a typical day), so a copy of the shared run is searched with
    them lowered; every burst's headline ("N records in the hour from HH:00 UTC") and the headline and
    lede a story would carry ("N posts in one hour", "In the hour from HH:00 UTC on DAY, N records")
    are recomputed from the records."""
    from corpuskit.analysis.signals import detect_signals
    from corpuskit.analysis.signals.hourly import HourlyVolumeDetector
    from corpuskit.narrate.evidence import entity_dict, topic_dict
    from corpuskit.narrate.prose import signal_prose

    copy_path = tmp_path / "hourly.db"
    reddit_two_months_run.conn.execute("VACUUM INTO ?", (str(copy_path),))
    corpus = open_corpus(copy_path)
    try:
        detect_signals(corpus, "hourly-test", incremental=False,
                       detectors=[HourlyVolumeDetector(min_baseline=0.0, min_count=3, min_periods=3)])
        conn = corpus.conn
        rows = conn.execute("SELECT * FROM signals WHERE json_extract(detail, '$.hour') IS NOT NULL "
                            "ORDER BY id").fetchall()
        assert rows, "no hourly burst on the Reddit months even with the gates lowered"
        problems = []
        for row in rows:
            d = json.loads(row["detail"])
            problems += _check_hourly(conn, row, d)
            signal = dict(row, detail=d)
            headline, lede = signal_prose(signal, topic_dict(conn, row["topic_id"]), entity_dict(conn, row["entity_id"]))
            said = _story_count(conn, {"headline": headline, "lede": lede}, row, d)
            assert said is not None, headline
            problems += said[1]
            if said[0].lower() != _subject(conn, row, d).lower():
                problems.append(f"'{headline}' names {said[0]}")
        assert problems == []
    finally:
        corpus.close()
