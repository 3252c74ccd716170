"""Stories for any period of a corpus's history: period names, the periods asked for, and the rule
that a period's stories are written from its records only (nothing after its end is used or cited)."""
from __future__ import annotations

import json
import shutil
from datetime import datetime, timezone

import pytest

from corpuskit import open_corpus
from corpuskit.cli import main as cli_main
from corpuskit.errors import ValidationError
from corpuskit.narrate import read
from corpuskit.narrate.periods import MAX_PERIODS, parse_period, periods_for


def _utc(*args):
    return datetime(*args, tzinfo=timezone.utc)


def test_period_names():
    month = parse_period("2016-03")
    assert (month.start, month.end, month.days) == (_utc(2016, 3, 1), _utc(2016, 4, 1), 31)
    assert month.as_of == _utc(2016, 3, 31, 23, 59, 59)
    assert parse_period("2016-12").end == _utc(2017, 1, 1)
    assert parse_period("2016").end == _utc(2017, 1, 1)
    week = parse_period("2016-w09")
    assert (week.label, week.start, week.end) == ("2016-W09", _utc(2016, 2, 29), _utc(2016, 3, 7))
    assert parse_period("2016-02-29").days == 1
    for bad in ("2016-13", "2015-02-29", "March", "2016-W60", "", None, 2016):
        with pytest.raises(ValidationError):
            parse_period(bad)


def test_periods_for_every_since_until():
    first, last = _utc(2016, 1, 20, 5), _utc(2016, 4, 2, 12)
    months = periods_for(every="month", first=first, last=last)
    assert [p.label for p in months] == ["2016-01", "2016-02", "2016-03", "2016-04"]
    assert months[0].start == _utc(2016, 1, 1) and months[-1].end == _utc(2016, 4, 2, 12, 0, 1)
    weeks = periods_for(since="2016-03-01", until="2016-03-20", every="week", first=first, last=last)
    assert weeks[0].label == "2016-W09" and weeks[-1].label == "2016-W11"
    one = periods_for(since="2016-03-01", until="2016-03-10T00:00:00Z", first=first, last=last)
    assert len(one) == 1 and one[0].start == _utc(2016, 3, 1) and one[0].as_of == _utc(2016, 3, 10)
    with pytest.raises(ValidationError):
        periods_for(period="2016-03", every="month")
    with pytest.raises(ValidationError):
        periods_for(since="2016-03-10", until="2016-03-01", first=first, last=last)
    with pytest.raises(ValidationError):
        periods_for(every="fortnight", first=first, last=last)
    with pytest.raises(ValidationError):
        periods_for(since="yesterday-ish", first=first, last=last)
    with pytest.raises(ValidationError):
        periods_for(every="month")  # an empty corpus and no bounds
    with pytest.raises(ValidationError):
        periods_for(every="day", first=_utc(1990, 1, 1), last=last)
    assert MAX_PERIODS >= 100


def _copy(demo_path, path):
    shutil.copy(demo_path, path)
    wal = demo_path.with_name(demo_path.name + "-wal")
    if wal.exists():
        shutil.copy(wal, path.with_name(path.name + "-wal"))
    return open_corpus(path)


def _middle_week(c):
    ts = [r[0] for r in c.conn.execute("SELECT published_at FROM records ORDER BY published_at")]
    day = ts[len(ts) // 2][:10]
    year, week, _ = datetime.fromisoformat(day).isocalendar()
    return f"{year}-W{week:02d}"


def _period_stories(c):
    stories = [tuple(r) for r in c.conn.execute(
        "SELECT story_key, kind, version, is_current, headline, lede, body, publish_at, generated_at, "
        "signal_count, source_count, metadata FROM stories WHERE story_key LIKE 'period:%' ORDER BY story_key, version")]
    cites = [tuple(r) for r in c.conn.execute(
        "SELECT s.story_key, c.* FROM story_citations c JOIN stories s ON s.id = c.story_id "
        "WHERE s.story_key LIKE 'period:%' ORDER BY s.story_key, c.record_id")]
    return stories, cites


def test_period_stories_use_no_record_after_the_period(demo_path, tmp_path):
    """The stories of a period are the same whether or not anything after it exists: in a copy every
    later record is rewritten (text, author, entities, topics) and the stories do not change."""
    a = _copy(demo_path, tmp_path / "a.db")
    label = _middle_week(a)
    period = parse_period(label)
    end = period.end.strftime("%Y-%m-%dT%H:%M:%SZ")
    live_lead = read.lead_story(a)["id"]
    live_arcs = read.list_arcs(a)["items"]
    summary = a.narrate(period=label, progress=False)
    assert summary["periods"] == [period.to_dict()]
    assert sum(summary["written"].values()) >= 3 and summary["written"].get("lead_story") == 1
    stories, cites = _period_stories(a)
    assert stories and all(s[0].startswith(f"period:{label}:") for s in stories)
    assert all(s[8] == "%sT23:59:59Z" % (period.as_of.date().isoformat()) for s in stories)  # dated then
    assert all(s[7] <= s[8] for s in stories)
    assert all(json.loads(s[11])["period"]["label"] == label for s in stories)
    cited_times = [r[0] for r in a.conn.execute(
        "SELECT r.published_at FROM story_citations c JOIN stories s ON s.id = c.story_id "
        "JOIN records r ON r.id = c.record_id WHERE s.story_key LIKE 'period:%'")]
    assert cited_times and max(cited_times) < end
    assert min(cited_times) >= period.start.strftime("%Y-%m-%dT%H:%M:%SZ")
    # the live stories are untouched: same lead, no period story in the arcs, none triggers a signal
    assert read.lead_story(a)["id"] == live_lead
    assert read.list_arcs(a)["items"] == live_arcs
    assert a.conn.execute("SELECT count(*) FROM stories WHERE story_key LIKE 'period:%' "
                          "AND trigger_signal_id IS NOT NULL").fetchone()[0] == 0
    # the library and the /v1 read functions find them
    frame = a.stories(period=label)
    assert len(frame) == sum(1 for s in stories if s[3]) and set(frame["kind"]) >= {"lead_story"}
    listed = read.list_stories(a, since=period.start.strftime("%Y-%m-%dT%H:%M:%SZ"), until=end)
    assert {i["id"] for i in listed.rows} >= set(frame["id"])
    with pytest.raises(ValidationError):
        a.stories(period="2016-13")
    # versioned like the others: the same run again writes nothing new
    again = a.narrate(period=label, progress=False)
    assert again["written"] == {} and _period_stories(a) == (stories, cites)

    b = _copy(demo_path, tmp_path / "b.db")
    with b.transaction():
        later = [r[0] for r in b.conn.execute("SELECT id FROM records WHERE published_at >= ?", (end,))]
        assert later
        marks = ",".join("?" for _ in later)
        b.conn.execute(f"UPDATE records SET content_text = 'Later text about nothing in particular at all. ' "
                       f"|| id, title = 'later', author = 'later-author' WHERE id IN ({marks})", later)
        b.conn.execute(f"DELETE FROM mentions WHERE record_id IN ({marks})", later)
        b.conn.execute(f"DELETE FROM topic_assignments WHERE record_id IN ({marks})", later)
        b.conn.execute(f"UPDATE enrichment SET topic_id = NULL, sentiment_score = 0.9 WHERE record_id IN ({marks})",
                       later)
    b.narrate(period=label, progress=False)
    other = _period_stories(b)
    strip = [s[:11] + (json.loads(s[11]) | {"poolHash": None},) for s in stories]
    assert [s[:11] + (json.loads(s[11]) | {"poolHash": None},) for s in other[0]] == strip
    assert other[1] == cites
    a.close()
    b.close()


def test_narrate_cli_every_and_bad_period(demo_path, tmp_path, capsys):
    c = _copy(demo_path, tmp_path / "c.db")
    last = c.conn.execute("SELECT max(published_at) FROM records").fetchone()[0]
    c.close()
    since = last[:10]
    assert cli_main(["narrate", "--db", str(tmp_path / "c.db"), "--quiet", "--since", since,
                     "--every", "day"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [p["label"] for p in out["periods"]] == [since]
    assert cli_main(["narrate", "--db", str(tmp_path / "c.db"), "--quiet", "--period", "2016-13"]) != 0
    assert "2016-13" in capsys.readouterr().err
