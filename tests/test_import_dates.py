"""Dates on import: every common form, an explicit format or order, one order per file, never a silent guess."""
import csv
from datetime import datetime, timezone

import pytest

from corpuskit import open_corpus
from corpuskit.clock import parse_timestamp, to_iso
from corpuskit.errors import ImportFormatError, ValidationError
from corpuskit.ingest.dates import DateRules
from corpuskit.cli import main

UTC = timezone.utc
WHEN = datetime(2018, 10, 10, 20, 19, 24, tzinfo=UTC)


@pytest.mark.parametrize("value", [
    "Wed Oct 10 20:19:24 +0000 2018",            # Twitter API v1.1 created_at
    "Wed, 10 Oct 2018 20:19:24 +0000",           # RFC 2822
    "Wed, 10 Oct 2018 20:19:24 GMT",
    "10 Oct 2018 20:19:24 +0000",                # RFC 2822 without the weekday
    "Wed, 10 Oct 2018 22:19:24 +0200",
    "2018-10-10T20:19:24Z",                      # ISO with Z
    "2018-10-10T20:19:24.000Z",
    "2018-10-10T22:19:24+02:00",                 # ISO with an offset
    "2018-10-10T15:19:24-05:00",
    "2018-10-10 20:19:24",                       # no zone: UTC
    1539202764, 1539202764.0, "1539202764",      # epoch seconds
    1539202764000, "1539202764000",              # epoch milliseconds
])
def test_every_common_form(value):
    assert parse_timestamp(value) == WHEN


def test_epoch_rule_by_magnitude():
    # below 10^11: seconds (up to the year 3000); from 10^11: milliseconds
    assert to_iso(32_503_679_999) == "2999-12-31T23:59:59Z"
    with pytest.raises(ValidationError, match="out of range"):
        parse_timestamp(99_999_999_999)
    assert to_iso(100_000_000_000) == "1973-03-03T09:46:40Z"
    assert to_iso("0") == "1970-01-01T00:00:00Z"
    with pytest.raises(ValidationError, match="out of range"):
        parse_timestamp(-5)


def test_explicit_format_and_order():
    assert to_iso(parse_timestamp("10.04.2020 07:30", date_format="%d.%m.%Y %H:%M")) == \
        "2020-04-10T07:30:00Z"
    with pytest.raises(ValidationError, match="does not match the date format"):
        parse_timestamp("2020-04-10", date_format="%d.%m.%Y")
    assert parse_timestamp("03/04/2020").month == 3
    assert parse_timestamp("03/04/2020", dayfirst=True).month == 4
    with pytest.raises(ValidationError, match="month/day/year"):
        parse_timestamp("13/04/2020")
    with pytest.raises(ImportFormatError, match="strptime"):
        DateRules(date_format="day-month-year")
    with pytest.raises(ImportFormatError, match="not a usable strptime format"):
        DateRules(date_format="%Q")
    with pytest.raises(ImportFormatError, match="dayfirst"):
        DateRules(dayfirst="yes")


def write(path, dates):
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "text", "date", "author"])
        for i, d in enumerate(dates, start=1):
            w.writerow([str(i), f"post number {i}", d, f"user{i}"])
    return path


def days(corpus):
    return [d[:10] for (d,) in corpus.conn.execute(
        "SELECT published_at FROM records ORDER BY CAST(source_id AS INTEGER)")]


def test_ambiguous_file_reads_month_first_with_a_warning(tmp_path):
    c = open_corpus(":memory:")
    report = c.import_file(write(tmp_path / "a.csv", ["03/04/2020", "05/06/2020"]), source="forum")
    assert days(c) == ["2020-03-04", "2020-05-06"]
    assert report.date_order == "month-first"
    assert len(report.warnings) == 1
    assert "column 'date'" in report.warnings[0] and "row 1: '03/04/2020'" in report.warnings[0]
    assert "warning: dates in column 'date' are ambiguous" in report.summary()


def test_a_later_day_first_row_turns_the_earlier_guesses_round(tmp_path):
    c = open_corpus(":memory:")
    report = c.import_file(write(tmp_path / "d.csv", ["03/04/2020", "01/02/2020 10:30", "13/04/2020"]),
                           source="forum")
    assert days(c) == ["2020-04-03", "2020-02-01", "2020-04-13"]
    assert report.date_order == "day-first" and report.warnings == []
    assert report.date_note == "slash dates in column 'date' read day-first (row 3: '13/04/2020')"
    assert "slash dates" not in report.summary()    # a note, printed by the command
    # capturedAt followed publishedAt, and the content key was recomputed: a re-import adds nothing
    row = c.conn.execute("SELECT published_at, captured_at FROM records WHERE source_id = '2'").fetchone()
    assert tuple(row) == ("2020-02-01T10:30:00Z", "2020-02-01T10:30:00Z")
    again = c.import_file(tmp_path / "d.csv", source="forum", mapping=None)
    assert again.added == 0
    c2 = open_corpus(":memory:")
    c2.import_file(write(tmp_path / "e.csv", ["03/04/2020", "01/02/2020 10:30", "13/04/2020"]),
                   source="forum", dedupe="content")
    hashes = {h for (h,) in c.conn.execute("SELECT content_hash FROM records")}
    assert hashes == {h for (h,) in c2.conn.execute("SELECT content_hash FROM records")}


def test_content_dedupe_after_the_swap(tmp_path):
    # the same post twice, once undecided, once after the deciding row: one record
    c = open_corpus(":memory:")
    path = tmp_path / "dup.csv"
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["text", "date", "author"])
        w.writerows([["same words", "03/04/2020", "ann"], ["other", "13/04/2020", "bob"],
                     ["same words", "03/04/2020", "ann"]])
    report = c.import_file(path, source="forum")
    assert (report.added, report.duplicates) == (2, 1)
    assert sorted(days(c)) == ["2020-04-03", "2020-04-13"]


def test_a_month_first_row_decides_without_a_warning(tmp_path):
    c = open_corpus(":memory:")
    report = c.import_file(write(tmp_path / "m.csv", ["03/04/2020", "04/13/2020"]), source="forum")
    assert days(c) == ["2020-03-04", "2020-04-13"]
    assert report.date_order == "month-first" and report.warnings == []
    assert "(row 2: '04/13/2020')" in report.date_note
    report = c.import_file(write(tmp_path / "m2.csv", ["04/13/2020", "03/04/2020"]), source="forum2")
    assert report.warnings == [] and report.date_order == "month-first"


def test_both_orders_in_one_file_is_an_error_naming_two_rows(tmp_path):
    c = open_corpus(":memory:")
    path = write(tmp_path / "mixed.csv", ["03/04/2020", "13/04/2020", "04/13/2020"])
    with pytest.raises(ImportFormatError,
                       match=r"row 2 has '13/04/2020' \(day-first\) and row 3 has '04/13/2020'"):
        c.import_file(path, source="forum")
    assert c.count() == 0


def test_dayfirst_and_date_format_override_the_guess(tmp_path):
    c = open_corpus(":memory:")
    path = write(tmp_path / "o.csv", ["03/04/2020", "05/06/2020"])
    report = c.import_file(path, source="forum", dayfirst=True)
    assert days(c) == ["2020-04-03", "2020-06-05"] and report.warnings == []
    c = open_corpus(":memory:")
    report = c.import_file(path, source="forum", dayfirst=False)
    assert days(c) == ["2020-03-04", "2020-05-06"] and report.warnings == []
    c = open_corpus(":memory:")
    report = c.import_file(write(tmp_path / "f.csv", ["2020.13.04", "2020.01.02"]), source="forum",
                           date_format="%Y.%d.%m")
    assert days(c) == ["2020-04-13", "2020-02-01"]
    # with --dayfirst a month-first-only date is a bad row, reported with its line
    c = open_corpus(":memory:")
    report = c.import_file(write(tmp_path / "b.csv", ["03/04/2020", "04/13/2020"]), source="forum",
                           dayfirst=True)
    assert report.added == 1 and report.rejections[0][0] == 2
    assert "day/month/year" in report.rejections[0][1]


def test_twitter_dates_import(tmp_path):
    c = open_corpus(":memory:")
    report = c.import_file(write(tmp_path / "t.csv", ["Wed Oct 10 20:19:24 +0000 2018"]), source="twitter")
    assert report.added == 1 and days(c) == ["2018-10-10"]


def test_cli_options(tmp_path, capsys):
    path = write(tmp_path / "cli.csv", ["03/04/2020"])
    db = str(tmp_path / "c.db")
    assert main(["import", str(path), "--db", db, "--source", "forum", "--quiet"]) == 0
    assert "warning: dates in column 'date' are ambiguous" in capsys.readouterr().err
    two = write(tmp_path / "cli2.csv", ["03/04/2020", "13/04/2020"])
    assert main(["import", str(two), "--db", str(tmp_path / "n.db"), "--source", "forum", "--quiet"]) == 0
    assert "note: slash dates in column 'date' read day-first (row 2: '13/04/2020')" in \
        capsys.readouterr().err
    assert main(["import", str(path), "--db", str(tmp_path / "d.db"), "--source", "forum",
                 "--quiet", "--dayfirst"]) == 0
    assert "warning" not in capsys.readouterr().err
    c = open_corpus(tmp_path / "d.db")
    assert days(c) == ["2020-04-03"]
    assert main(["import", str(path), "--db", str(tmp_path / "e.db"), "--source", "forum",
                 "--quiet", "--date-format", "%m/%d/%Y"]) == 0
    assert days(open_corpus(tmp_path / "e.db")) == ["2020-03-04"]


def test_real_hacker_news_file_decides_month_first():
    from tests.conftest import HN_CSV, need_shared

    path = need_shared(HN_CSV)
    guessed, given = open_corpus(":memory:"), open_corpus(":memory:")
    report = guessed.import_file(path)
    given.import_file(path, dayfirst=False)
    assert report.date_order == "month-first" and report.warnings == []
    assert "read month-first (row 2: '6/23/2016 22:20')" in report.date_note
    query = "SELECT source_id, published_at FROM records ORDER BY source_id"
    assert guessed.conn.execute(query).fetchall() == given.conn.execute(query).fetchall()
    # read day-first, its month-first rows (a second field above 12) are bad rows, not wrong dates
    wrong = open_corpus(":memory:").import_file(path, dayfirst=True)
    assert wrong.rejected > 10000 and "day/month/year" in wrong.rejections[0][1]
