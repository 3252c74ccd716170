"""``Corpus.compare_with`` and ``corpuskit compare``: two corpora compared table by table, read-only."""
import json
import shutil
import sqlite3

import pytest

from corpuskit import open_corpus
from corpuskit.cli import main
from corpuskit.compare import TABLES, compare
from corpuskit.demo import build_demo
from corpuskit.errors import NotACorpusError, StoreError, ValidationError


@pytest.fixture(scope="module")
def twins(tmp_path_factory):
    """Two demo corpora built alike (same seed, records, days), closed: ``(dir, a.db, b.db)``."""
    folder = tmp_path_factory.mktemp("twins")
    for name in ("a.db", "b.db"):
        corpus = open_corpus(folder / name)
        build_demo(corpus, seed=3, records=400, days=30, progress=False)
        corpus.close()
    return folder, folder / "a.db", folder / "b.db"


def _files(folder):
    return {p.name: (p.stat().st_size, p.stat().st_mtime_ns) for p in folder.iterdir()}


def test_two_builds_alike_compare_as_the_same_and_nothing_is_written(twins, capsys):
    folder, a, b = twins
    before = _files(folder)
    result = compare(a, b)
    assert result.identical
    summary = result.summary
    assert list(summary.columns) == ["table", "rowsA", "rowsB", "same", "changed", "onlyA", "onlyB", "digestEqual"]
    assert list(summary["table"]) == list(TABLES) == ["records", "enrichment", "topics", "topic_assignments",
                                                      "entities", "mentions", "clusters", "signals", "snapshots",
                                                      "observations", "stories"]
    assert (summary["same"] == summary["rowsA"]).all() and (summary["rowsA"] == summary["rowsB"]).all()
    assert (summary[["changed", "onlyA", "onlyB"]] == 0).all().all() and summary["digestEqual"].all()
    assert result.columns.empty and result.examples("signals").empty
    # the same rows and digests the manifest reports
    with open_corpus(a) as corpus:
        manifest = corpus.manifest()
    for name, table in manifest["tables"].items():
        assert (result.tables[name].rows_a, result.tables[name].digest_a) == (table["rows"], table["digest"]), name
    assert result.tables["records"].rows_a == manifest["records"]["count"] == 400
    assert result.tables["records"].digest_b == manifest["records"]["contentDigest"]
    # the command: exit 0, a readable table, the verdict
    assert main(["compare", str(a), str(b)]) == 0
    out = capsys.readouterr().out
    assert "the two corpora hold the same tables" in out and "topic_assignments" in out
    assert main(["compare", str(a), str(b), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["identical"] is True and set(printed["tables"]) == set(TABLES)
    # read-only: no -wal, -shm or other file appears, and neither file changes
    assert _files(folder) == before


@pytest.fixture(scope="module")
def altered(twins):
    """A copy of b.db with four changes: one confidence, one assignment gone, one entity more, one headline."""
    folder, a, b = twins
    path = folder / "altered.db"
    shutil.copy(b, path)
    corpus = open_corpus(path)
    conn = corpus.conn
    first = conn.execute("SELECT ta.record_id, ta.topic_id, t.name, round(ta.confidence, 6) FROM topic_assignments ta "
                         "JOIN topics t ON t.id = ta.topic_id ORDER BY ta.record_id, t.name LIMIT 1").fetchone()
    last = conn.execute("SELECT ta.record_id, ta.topic_id, t.name, round(ta.confidence, 6) FROM topic_assignments ta "
                        "JOIN topics t ON t.id = ta.topic_id "
                        "ORDER BY ta.record_id DESC, t.name DESC LIMIT 1").fetchone()
    story = conn.execute("SELECT story_key, headline FROM stories WHERE is_current = 1 ORDER BY story_key "
                         "LIMIT 1 OFFSET 2").fetchone()
    with corpus.transaction():
        conn.execute("UPDATE topic_assignments SET confidence = confidence - 0.125 "
                     "WHERE record_id = ? AND topic_id = ?", (first[0], first[1]))
        conn.execute("DELETE FROM topic_assignments WHERE record_id = ? AND topic_id = ?", (last[0], last[1]))
        conn.execute("INSERT INTO entities(slug, name, type, mention_count, first_seen, last_seen, updated_at) "
                     "VALUES ('zz-compare-probe', 'Zz Compare Probe', 'concept', 0, NULL, NULL, "
                     "'2026-01-01T00:00:00Z')")
        conn.execute("UPDATE stories SET headline = 'A headline changed by hand' "
                     "WHERE story_key = ? AND is_current = 1", (story[0],))
    corpus.close()
    return path, tuple(first), tuple(last), tuple(story)


def test_altered_rows_are_counted_and_shown(twins, altered):
    folder, a, b = twins
    path, first, last, story = altered
    with open_corpus(a) as corpus:
        result = corpus.compare_with(path, examples=5)
        rows = {name: t["rows"] for name, t in corpus.manifest()["tables"].items()}
    summary = result.summary.set_index("table")
    differing = set(summary.index[~summary["digestEqual"]])
    assert differing == {"topic_assignments", "entities", "stories"} and not result.identical
    n = rows["topic_assignments"]
    assert summary.loc["topic_assignments", ["rowsA", "rowsB", "same", "changed", "onlyA", "onlyB"]].tolist() == \
        [n, n - 1, n - 2, 1, 1, 0]
    e = rows["entities"]
    assert summary.loc["entities", ["rowsA", "rowsB", "same", "changed", "onlyA", "onlyB"]].tolist() == \
        [e, e + 1, e, 0, 0, 1]
    s = rows["stories"]
    assert summary.loc["stories", ["rowsA", "rowsB", "same", "changed", "onlyA", "onlyB"]].tolist() == \
        [s, s, s - 1, 1, 0, 0]
    same = summary.drop(index=sorted(differing))
    assert (same["same"] == same["rowsA"]).all() and (same[["changed", "onlyA", "onlyB"]] == 0).all().all()

    # the changed columns, with the largest numeric difference
    columns = result.columns.set_index(["table", "column"])
    assert list(columns.index) == [("topic_assignments", "confidence"), ("stories", "headline")]
    assert columns.loc[("topic_assignments", "confidence"), "changed"] == 1
    assert columns.loc[("topic_assignments", "confidence"), "maxAbsDiff"] == pytest.approx(0.125, abs=2e-6)
    assert columns["maxAbsDiff"].isna().tolist() == [False, True]   # a headline is no number

    # examples: keys and the values side by side
    ex = result.examples("topic_assignments")
    assert list(ex.columns) == ["change", "recordId", "topic", "column", "a", "b"]
    changed, only_a = ex.iloc[0], ex.iloc[1]
    assert (changed["change"], changed["recordId"], changed["topic"], changed["column"]) == \
        ("changed", first[0], first[2], "confidence")
    assert changed["a"] == first[3] and changed["b"] == pytest.approx(first[3] - 0.125, abs=2e-6)
    assert (only_a["change"], only_a["recordId"], only_a["topic"], only_a["column"]) == \
        ("onlyA", last[0], last[2], None)
    assert only_a["a"] == {"confidence": last[3]} and only_a["b"] is None
    ent = result.examples("entities")
    assert ent[["change", "slug"]].values.tolist() == [["onlyB", "zz-compare-probe"]]
    assert ent["b"].iloc[0] == {"name": "Zz Compare Probe", "type": "concept", "mentionCount": 0,
                                "firstSeen": None, "lastSeen": None}
    st = result.examples("stories")
    assert st[["change", "storyKey", "column", "a", "b"]].values.tolist() == \
        [["changed", story[0], "headline", story[1], "A headline changed by hand"]]
    text = result.to_text()
    assert "3 of 11 tables differ" in text and "A headline changed by hand" in text
    assert "  confidence: 1 row differs, largest |A - B| 0.125\n" in text
    with pytest.raises(ValidationError, match="not compared"):
        compare(a, path, tables=["signals"]).examples("stories")


def test_the_command_exits_1_on_a_difference_and_prints_json(twins, altered, capsys):
    folder, a, b = twins
    path = altered[0]
    assert main(["compare", str(a), str(path), "--examples", "1"]) == 1
    out = capsys.readouterr().out
    assert "stories: 1 changed" in out and "entities: 1 only in B" in out and "3 of 11 tables differ" in out
    assert main(["compare", str(a), str(path), "--json", "--table", "entities", "--table", "signals"]) == 1
    printed = json.loads(capsys.readouterr().out)
    assert list(printed["tables"]) == ["entities", "signals"] and printed["identical"] is False
    entities = printed["tables"]["entities"]
    assert (entities["onlyB"], entities["onlyA"], entities["changed"], entities["digestEqual"]) == (1, 0, 0, False)
    assert entities["examples"] == [{"change": "onlyB", "key": {"slug": "zz-compare-probe"}, "a": None,
                                     "b": {"name": "Zz Compare Probe", "type": "concept", "mentionCount": 0,
                                           "firstSeen": None, "lastSeen": None}}]
    assert printed["tables"]["signals"]["digestEqual"] is True
    # only the unchanged tables: exit 0; no examples asked for: none given
    assert main(["compare", str(a), str(path), "--table", "signals", "--table", "records"]) == 0
    capsys.readouterr()
    assert main(["compare", str(a), str(path), "--json", "--examples", "0"]) == 1
    assert all(t["examples"] == [] for t in json.loads(capsys.readouterr().out)["tables"].values())


def test_missing_and_foreign_files_are_clear_errors_and_nothing_is_created(twins, tmp_path, capsys):
    folder, a, b = twins
    missing = tmp_path / "missing.db"
    with pytest.raises(StoreError, match="no such file"):
        compare(a, missing)
    assert main(["compare", str(a), str(missing)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("corpuskit: error: cannot open corpus") and "no such file" in err
    assert "Traceback" not in err and not missing.exists() and list(tmp_path.iterdir()) == []
    text = tmp_path / "notes.txt"
    text.write_text("not a database at all, but long enough to have a header " * 4)
    assert main(["compare", str(text), str(a)]) == 2
    assert "not an SQLite database file" in capsys.readouterr().err
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as raw:
        raw.execute("CREATE TABLE things (x)")
    raw.close()
    with pytest.raises(NotACorpusError, match="not a corpuskit corpus"):
        compare(other, a)
    empty = tmp_path / "empty.db"
    empty.touch()
    with pytest.raises(NotACorpusError, match="empty"):
        compare(a, empty)
    assert main(["compare", str(tmp_path), str(a)]) == 2
    assert "it is a directory" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.db", "notes.txt", "other.db"]
    assert empty.stat().st_size == 0   # not made a corpus
    with pytest.raises(ValidationError, match="unknown table 'nope'"):
        compare(a, b, tables=["nope"])
    with pytest.raises(ValidationError, match="examples"):
        compare(a, b, examples=-1)
    with pytest.raises(SystemExit) as exit_info:   # argparse: unknown --table
        main(["compare", str(a), str(b), "--table", "nope"])
    assert exit_info.value.code == 2


def test_an_open_corpus_is_read_through_its_own_wal(twins, tmp_path):
    folder, a, b = twins
    path = tmp_path / "live.db"
    shutil.copy(a, path)
    live = open_corpus(path)   # held open: its -wal file exists, so the reader goes through it
    with live.transaction():
        live.conn.execute("UPDATE signals SET headline = 'rewritten while open' WHERE id = "
                          "(SELECT min(id) FROM signals)")
    result = compare(a, path, tables="signals")
    assert result.summary[["changed", "onlyA", "onlyB"]].values.tolist() == [[1, 0, 0]]
    assert result.examples("signals")["b"].tolist() == ["rewritten while open"]
    assert live.compare_with(live).identical   # a Corpus object on either side
    live.close()


def test_records_without_a_source_id_are_matched_as_whole_rows(tmp_path):
    rows = [{"source": "forum", "contentText": f"post number {i}", "author": "u",
             "publishedAt": f"2024-01-0{i}T00:00:00Z"} for i in range(1, 5)]
    a, b = open_corpus(tmp_path / "a.db"), open_corpus(tmp_path / "b.db")
    a.add_records(rows)
    b.add_records(rows[:3] + [{**rows[3], "contentText": "post number four, edited"}])
    result = a.compare_with(b, tables=["records"])
    assert result.summary[["same", "changed", "onlyA", "onlyB"]].values.tolist() == [[3, 0, 1, 1]]
    ex = result.examples("records")
    assert ex["change"].tolist() == ["onlyA", "onlyB"] and ex["sourceId"].tolist() == ["", ""]
    assert ex["a"].iloc[0]["contentText"] == "post number 4" and ex["b"].iloc[1]["contentText"].endswith("edited")
    a.close()
    b.close()
