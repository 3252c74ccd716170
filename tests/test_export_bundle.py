"""Export bundles: every table with its keys, typed Parquet, filters, the codebook, round trips."""
import csv
import json

import pandas as pd
import pytest

from corpuskit import ValidationError, open_corpus
from corpuskit.cli import main
from corpuskit.errors import ImportFormatError
from corpuskit.ingest.export_codebook import codebook_columns
from corpuskit.ingest.export_columns import COLUMNS, ENGAGEMENT, TABLES
from corpuskit.ingest.export_tables import cited_sentences
from corpuskit.query import TopicNotFound

# table -> (column, table it joins) for every key column that names another table's row
JOINS = {"recordId": ("records", "recordId"), "entityId": ("entities", "entityId"),
         "topicId": ("topics", "topicId"), "clusterId": ("clusters", "clusterId"),
         "signalId": ("signals", "signalId"), "storyId": ("stories", "storyId"),
         "primaryTopicId": ("topics", "topicId"), "secondaryTopicId": ("topics", "topicId"),
         "entityIds": ("entities", "entityId"), "triggerSignalId": ("signals", "signalId")}


def _read(path, fmt):
    if fmt == "parquet":
        return pd.read_parquet(path)
    if fmt == "csv":
        return pd.read_csv(path, keep_default_na=False, dtype=str)
    return pd.DataFrame([json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()])


def _load(bundle, fmt="parquet"):
    return {t: _read(bundle / f"{t}.{fmt}", fmt) for t in TABLES}


def _values(series):
    out = set()
    for v in series:
        if isinstance(v, (list, tuple)) or hasattr(v, "tolist"):
            out.update(int(x) for x in list(v))
        elif v is not None and v == v and v != "":
            out.add(int(v))
    return out


def orphans(frames, record_keys_only=False):
    """{(table, column): missing keys} for every key column whose values the joined table lacks."""
    found = {}
    for table, frame in frames.items():
        own = COLUMNS[table][0].name
        for col, (target, key) in JOINS.items():
            if col not in frame.columns or (table == target and col == own):
                continue
            if record_keys_only and target != "records":
                continue
            missing = _values(frame[col]) - _values(frames[target][key])
            if missing:
                found[(table, col)] = sorted(missing)[:5]
    return found


@pytest.fixture(scope="module")
def bundle(demo_corpus, tmp_path_factory):
    path = tmp_path_factory.mktemp("bundle") / "b"
    report = demo_corpus.export_bundle(path)
    return path, report


def test_bundle_round_trip_joins_on_record_id(bundle, demo_corpus):
    path, report = bundle
    records = pd.read_parquet(path / "records.parquet")
    mentions = pd.read_parquet(path / "mentions.parquet")
    evidence = pd.read_parquet(path / "signal_evidence.parquet")
    assert len(records) == demo_corpus.count() == report.rows["records"]
    assert str(records["publishedAt"].dtype) == "datetime64[ns, UTC]"
    assert str(records["capturedAt"].dtype) == "datetime64[ns, UTC]"
    joined = mentions.merge(records, on="recordId", how="left", indicator=True)
    assert len(mentions) > 0 and (joined["_merge"] == "both").all()
    ev = evidence[evidence["refKind"] == "record"].astype({"recordId": "int64"})
    joined = ev.merge(records, on="recordId", how="left", indicator=True)
    assert len(ev) > 0 and (joined["_merge"] == "both").all()
    assert orphans(_load(path)) == {}


def test_bundle_types_and_record_columns(bundle, demo_corpus):
    path, _ = bundle
    import pyarrow.parquet as pq

    schema = pq.read_schema(path / "records.parquet")
    assert str(schema.field("recordId").type) == "int64"
    assert str(schema.field("publishedAt").type) == "timestamp[ns, tz=UTC]"
    assert str(schema.field("entityIds").type) == "list<element: int64>"
    assert str(schema.field("entities").type) == "list<element: string>"
    assert str(schema.field("clusterId").type) == "int64"
    assert str(pq.read_schema(path / "snapshots.parquet").field("date").type) == "date32[day]"
    assert str(pq.read_schema(path / "stories.parquet").field("isCurrent").type) == "bool"
    records = pd.read_parquet(path / "records.parquet", dtype_backend="numpy_nullable")
    conn = demo_corpus.conn
    # primary topic and confidence are the enrichment's; the secondary is the next assignment
    for rid, primary, pconf, secondary, sconf in conn.execute(
            "SELECT e.record_id, e.topic_id, ta.confidence, "
            "(SELECT topic_id FROM topic_assignments x WHERE x.record_id = e.record_id AND x.topic_id != "
            "e.topic_id ORDER BY confidence DESC, topic_id LIMIT 1), "
            "(SELECT max(confidence) FROM topic_assignments x WHERE x.record_id = e.record_id AND "
            "x.topic_id != e.topic_id) FROM enrichment e JOIN topic_assignments ta ON ta.record_id = e.record_id "
            "AND ta.topic_id = e.topic_id ORDER BY e.record_id LIMIT 400"):
        row = records[records["recordId"] == rid].iloc[0]
        assert row["primaryTopicId"] == primary and row["primaryTopicConfidence"] == pytest.approx(pconf)
        if secondary is None:
            assert pd.isna(row["secondaryTopicId"])
        else:
            assert row["secondaryTopicId"] == secondary and row["secondaryTopicConfidence"] == pytest.approx(sconf)
    assert records["secondaryTopicId"].notna().sum() > 0
    members = pd.read_parquet(path / "cluster_members.parquet")
    clustered = records.dropna(subset=["clusterId"])
    assert len(clustered) == len(members) > 0
    pairs = set(zip(members["recordId"], members["clusterId"]))
    assert all((r, c) in pairs for r, c in zip(clustered["recordId"], clustered["clusterId"]))
    mentions = pd.read_parquet(path / "mentions.parquet")
    by_record = mentions.groupby("recordId")["entityId"].apply(set).to_dict()
    for rid, ids in zip(records["recordId"], records["entityIds"]):
        if ids is not None and len(ids):
            assert set(ids) == by_record[rid]


def test_stories_carry_body_and_citations(bundle, demo_corpus):
    path, _ = bundle
    stories = pd.read_parquet(path / "stories.parquet")
    citations = pd.read_parquet(path / "story_citations.parquet")
    assert len(stories) == demo_corpus.conn.execute("SELECT count(*) FROM stories").fetchone()[0]
    assert stories["body"].str.len().min() > 0
    assert len(citations) == demo_corpus.conn.execute("SELECT count(*) FROM story_citations").fetchone()[0]
    bodies = dict(zip(stories["storyId"], stories["body"]))
    texts = dict(demo_corpus.conn.execute("SELECT id, content_text FROM records"))
    quoted = citations.dropna(subset=["quote"])
    assert len(quoted) > 0.9 * len(citations)
    from corpuskit.text import display_text

    for row in quoted.itertuples():
        assert f"{row.quote} [{row.ordinal}]" in " ".join(bodies[row.storyId].split())
        assert row.quotedText in row.quote and row.quotedText in display_text(texts[row.recordId])


def test_cited_sentences():
    body = "Framing here.\n\nFirst  said. [1] Second. [2]\n\nAgain the first. [1] Third! [3]"
    assert cited_sentences(body) == {1: (0, "First said."), 2: (1, "Second."), 3: (3, "Third!")}
    assert cited_sentences("") == {}


@pytest.mark.parametrize("fmt", ["parquet", "csv", "jsonl"])
def test_codebook_names_every_exported_column(demo_merged, tmp_path, fmt):
    path = tmp_path / "b"
    report = demo_merged.export_bundle(path, format=fmt)
    listed = codebook_columns((path / "codebook.md").read_text(encoding="utf-8"))
    assert sorted(listed) == sorted(TABLES)
    for table in TABLES:
        file = path / f"{table}.{fmt}"
        if fmt == "parquet":
            import pyarrow.parquet as pq

            exported = pq.read_schema(file).names
        elif fmt == "csv":
            with open(file, newline="", encoding="utf-8") as fh:
                exported = next(csv.reader(fh))
        else:
            lines = file.read_text(encoding="utf-8").splitlines()
            if not lines:       # JSON lines name columns only in rows: the demo has no hand coding, no
                assert report.rows[table] == 0, table     # coordinated group and no reply, repost or quote
                continue
            exported = list(json.loads(lines[0]))
        assert exported == listed[table], table      # both directions, and in order
    manifest = json.loads((path / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["records"]["count"] == demo_merged.count()
    assert manifest["export"]["format"] == fmt and manifest["export"]["pseudonymised"] is False
    text = (path / "codebook.md").read_text(encoding="utf-8")
    assert "enrich (enrich-1, corpuskit" in text and "Filters: none" in text


def test_engagement_columns_are_exported_typed(tmp_path):
    c = open_corpus(tmp_path / "e.db")
    c.add_records([{"source": "twitter", "sourceId": "1", "contentText": "hello world", "author": "ann",
                    "publishedAt": "2024-01-01T00:00:00Z"},
                   {"source": "twitter", "sourceId": "2", "contentText": "a reply", "author": "bob",
                    "publishedAt": "2024-01-02T00:00:00Z"}])
    c.conn.execute("UPDATE records SET likes = 5, reposts = 1, is_repost = 0 WHERE source_id = '1'")
    c.conn.execute("UPDATE records SET reply_to = '1', is_repost = 1 WHERE source_id = '2'")
    c.conn.commit()
    c.export_bundle(tmp_path / "after")
    records = pd.read_parquet(tmp_path / "after" / "records.parquet", dtype_backend="numpy_nullable")
    assert list(records["likes"]) == [5, pd.NA] and list(records["replyTo"]) == [pd.NA, "1"]
    assert list(records["isRepost"]) == [False, True]
    listed = codebook_columns((tmp_path / "after" / "codebook.md").read_text(encoding="utf-8"))
    assert listed["records"] == list(records.columns)
    assert {c.name for c in ENGAGEMENT} <= set(listed["records"])


def test_filters_apply_to_every_table(demo_corpus, tmp_path):
    conn = demo_corpus.conn
    # a topic and a 3-week window around the day with most cited reddit records of that topic
    topic, day = conn.execute(
        "SELECT t.name, r.day FROM story_citations c JOIN records r ON r.id = c.record_id "
        "JOIN enrichment e ON e.record_id = r.id JOIN topics t ON t.id = e.topic_id WHERE r.source = 'reddit' "
        "GROUP BY t.name, r.day ORDER BY count(*) DESC, t.name, r.day LIMIT 1").fetchone()
    since = str((pd.Timestamp(day) - pd.Timedelta(days=10)).date())
    until = str((pd.Timestamp(day) + pd.Timedelta(days=10)).date()) + "T23:59:59Z"
    path = tmp_path / "f"
    report = demo_corpus.export_bundle(path, source="reddit", topic=topic, since=since, until=until)
    frames = _load(path)
    expected = demo_corpus.records(source="reddit", topic=topic, since=since, until=until)
    assert list(frames["records"]["recordId"]) == list(expected["id"]) and len(expected) > 0
    assert report.filters == {"source": "reddit", "topic": topic, "since": since + "T00:00:00Z",
                              "until": until}
    assert orphans(frames, record_keys_only=True) == {}
    kept = set(expected["id"])
    for table in ("mentions", "topic_assignments", "cluster_members", "story_citations"):
        assert set(frames[table]["recordId"]) <= kept
        assert len(frames[table]) > 0, table
    ev = frames["signal_evidence"]
    assert set(ev["signalId"]) == set(frames["signals"]["signalId"])
    assert set(frames["stories"]["storyId"]) == set(frames["story_citations"]["storyId"])
    snaps = frames["snapshots"]
    tid = conn.execute("SELECT id FROM topics WHERE name = ?", (topic,)).fetchone()[0]
    assert set(snaps["topicId"]) == {tid}
    assert str(snaps["date"].min()) >= since and str(snaps["date"].max()) <= until[:10]
    # every topic and entity stays: vocabulary tables are not filtered
    assert len(frames["topics"]) == conn.execute("SELECT count(*) FROM topics").fetchone()[0]
    codebook = (path / "codebook.md").read_text(encoding="utf-8")
    assert f"topic = {topic}" in codebook and "kept when its record is in the filtered set" in codebook
    # the one-table export applies the same filter
    assert demo_corpus.export(tmp_path / "m.csv", table="mentions", source="reddit", topic=topic, since=since,
                              until=until) == len(frames["mentions"])


def test_bundle_bad_input(demo_corpus, tmp_path):
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("x")
    with pytest.raises(ImportFormatError, match="not an empty directory"):
        demo_corpus.export_bundle(tmp_path / "full")
    with pytest.raises(ImportFormatError, match="unknown export format 'xml'"):
        demo_corpus.export_bundle(tmp_path / "a", format="xml")
    with pytest.raises(ImportFormatError, match="does not exist"):
        demo_corpus.export_bundle(tmp_path / "missing" / "b")
    with pytest.raises(TopicNotFound):
        demo_corpus.export_bundle(tmp_path / "b", topic="no-such-topic")
    with pytest.raises(ValidationError, match="since: "):
        demo_corpus.export_bundle(tmp_path / "b", since="yesterday-ish")
    with pytest.raises(ValidationError, match="source must be a source name"):
        demo_corpus.export(tmp_path / "x.csv", source="")
    with pytest.raises(ValidationError, match="only used with pseudonymise"):
        demo_corpus.export_bundle(tmp_path / "b", salt="s")
    assert not (tmp_path / "b").exists() and not (tmp_path / "b.part").exists()
    empty = tmp_path / "empty"
    empty.mkdir()
    report = demo_corpus.export_bundle(empty, format="csv", source="no-such-source")
    assert report.rows["records"] == 0 and report.rows["mentions"] == 0
    assert pd.read_csv(empty / "records.csv").columns[0] == "recordId"


def test_cli_bundle_and_errors(demo_path, tmp_path, capsys):
    out = tmp_path / "cli"
    assert main(["export", "--db", str(demo_path), "--bundle", str(out), "--format", "jsonl",
                 "--source", "reddit"]) == 0
    said = capsys.readouterr().out
    assert f"exported a bundle to {out}: records " in said and "codebook.md" in said
    assert {p.name for p in out.iterdir()} == {f"{t}.jsonl" for t in TABLES} | {"manifest.json", "codebook.md"}
    assert main(["export", "--db", str(demo_path), "--bundle", str(tmp_path / "x"), "--table", "signals"]) == 2
    assert "give no PATH or --table" in capsys.readouterr().err
    assert main(["export", "--db", str(demo_path)]) == 2
    assert "give a PATH" in capsys.readouterr().err
    assert main(["export", "--db", str(demo_path), str(tmp_path / "r.csv"), "--salt", "x"]) == 2
    assert "--salt is only used with --pseudonymise" in capsys.readouterr().err
    assert main(["export", "--db", str(demo_path), str(tmp_path / "r.csv"), "--topic", "nope"]) == 2
    assert "nope" in capsys.readouterr().err


def test_real_file_bundle_round_trips(reddit_two_months_run, tmp_path):
    """The Reddit file's first two months, every stage run (a copy of the session's shared build)."""
    reddit_two_months_run.conn.execute("VACUUM INTO ?", (str(tmp_path / "r.db"),))
    corpus = open_corpus(tmp_path / "r.db")
    report = corpus.export_bundle(tmp_path / "b")
    records = pd.read_parquet(tmp_path / "b" / "records.parquet")
    mentions = pd.read_parquet(tmp_path / "b" / "mentions.parquet")
    evidence = pd.read_parquet(tmp_path / "b" / "signal_evidence.parquet")
    assert str(records["publishedAt"].dtype) == "datetime64[ns, UTC]"
    assert len(records) == corpus.count() and len(mentions) > 0 and report.rows["signal_evidence"] > 0
    assert mentions.merge(records, on="recordId", how="left", indicator=True)["_merge"].eq("both").all()
    ev = evidence.dropna(subset=["recordId"]).astype({"recordId": "int64"})
    assert ev.merge(records, on="recordId", how="left", indicator=True)["_merge"].eq("both").all()
    assert orphans(_load(tmp_path / "b")) == {}
    listed = codebook_columns((tmp_path / "b" / "codebook.md").read_text(encoding="utf-8"))
    assert listed["records"] == list(records.columns)
    corpus.close()


def test_topic_filter_on_an_unenriched_corpus_uses_the_import_hint(tmp_path):
    c = open_corpus(tmp_path / "h.db")
    c.add_records([{"source": "news", "sourceId": "1", "contentText": "a", "publishedAt": "2024-01-01"},
                   {"source": "news", "sourceId": "2", "contentText": "b", "publishedAt": "2024-01-02"}],
                  topic="ml")
    c.add_records([{"source": "news", "sourceId": "3", "contentText": "c", "publishedAt": "2024-01-03"}])
    report = c.export_bundle(tmp_path / "b", format="jsonl", topic="ml", until="2024-01-01T23:59:59Z")
    rows = [json.loads(x) for x in (tmp_path / "b" / "records.jsonl").read_text().splitlines()]
    assert [r["sourceId"] for r in rows] == ["1"] and rows[0]["primaryTopicId"] is None
    assert rows[0]["entityIds"] is None and report.rows["snapshots"] == 0
    with pytest.raises(TopicNotFound):
        c.export(tmp_path / "x.jsonl", topic="physics")
