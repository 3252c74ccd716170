"""Steering the topics: merge, rename and outlier reassignment are recorded and survive later runs."""
import shutil

import pytest

from corpuskit import ValidationError, open_corpus
from corpuskit.query import TopicNotFound


@pytest.fixture
def steered(demo_path, tmp_path):
    path = tmp_path / "steered.db"
    shutil.copy(demo_path, path)
    c = open_corpus(path)
    yield c
    c.close()


def _primary(c) -> dict:
    return dict(c.conn.execute("SELECT t.name, count(*) FROM enrichment e JOIN topics t ON t.id = e.topic_id "
                               "GROUP BY t.name").fetchall())


def _new_records(c, n=60):
    """Fresh posts copied from the corpus (new authors and ids) for an incremental run."""
    rows = c.conn.execute("SELECT r.title, r.content_text, r.published_at FROM records r "
                          "ORDER BY r.id LIMIT ?", (n,)).fetchall()
    return [{"title": r[0], "contentText": r[1], "publishedAt": r[2], "author": f"newcomer{i}",
             "sourceId": f"steer-{i}"} for i, r in enumerate(rows)]


def test_edits_are_recorded_and_survive_an_incremental_run(steered):
    c = steered
    before = _primary(c)
    outliers_before = c.conn.execute("SELECT count(*) FROM enrichment WHERE topic_id IS NULL").fetchone()[0]
    merged = c.merge_topics("markets-economy", "ai-models")
    assert merged["records"] == before["ai-models"]
    after = _primary(c)
    assert "ai-models" not in after
    assert after["markets-economy"] == before["markets-economy"] + before["ai-models"]
    assert not c.topics().set_index("name").loc["ai-models", "active"]
    renamed = c.rename_topic("space", "Spaceflight and astronomy")
    assert renamed == {"kind": "rename", "topic": "space", "label": "Spaceflight and astronomy",
                       "at": renamed["at"]}
    reassigned = c.reassign_outliers(strategy="embeddings", threshold=0.2)
    assert 0 < reassigned["records"] <= outliers_before
    outliers = c.conn.execute("SELECT count(*) FROM enrichment WHERE topic_id IS NULL").fetchone()[0]
    assert outliers == outliers_before - reassigned["records"]
    assert [e["kind"] for e in c.topic_edits()] == ["merge", "rename", "reassign_outliers"]
    assert c.manifest()["topicEdits"] == c.topic_edits()

    c.add_records(_new_records(c), source="news")
    summary = c.enrich(progress=False)
    assert summary["recordsEnriched"] == 60
    assert summary["topicEdits"] == {"applied": 3, "skipped": []}
    # the merged topic took the new records the beat file would have given the retired one
    assert c.conn.execute("SELECT count(*) FROM enrichment e JOIN topics t ON t.id = e.topic_id "
                          "WHERE t.name = 'ai-models'").fetchone()[0] == 0
    assert c.conn.execute("SELECT count(*) FROM topic_assignments ta JOIN topics t ON t.id = ta.topic_id "
                          "WHERE t.name = 'ai-models'").fetchone()[0] == 0
    topics = c.topics().set_index("name")
    assert not topics.loc["ai-models", "active"]
    assert topics.loc["space", "displayName"] == "Spaceflight and astronomy"
    # the new outliers were reassigned by the recorded rule: nothing is left for it to move
    from corpuskit.enrich.topic_edits import _reassign

    assert _reassign(c.conn, "embeddings", 0.2) == 0
    assert c.topics_over_time(freq="M")["topic"].nunique() == len(before) - 1


def test_an_edit_on_a_topic_a_refit_dropped_is_skipped_and_reported(steered):
    c = steered
    c.rename_topic("space", "Space")
    with c.transaction():
        c.conn.execute("UPDATE topics SET name = 'space-gone' WHERE name = 'space'")
    from corpuskit.enrich.topic_edits import apply_edits

    result = apply_edits(c)
    assert result["applied"] == 0 and result["skipped"][0]["topic"] == "space"


@pytest.mark.parametrize("call, match", [
    (lambda c: c.merge_topics("space", "space"), "into itself"),
    (lambda c: c.merge_topics("space", "nope"), "nope"),
    (lambda c: c.rename_topic("space", "   "), "non-empty"),
    (lambda c: c.rename_topic("space", "x" * 121), "at most 120"),
    (lambda c: c.rename_topic("space", "Cybersecurity"), "already has the label"),
    (lambda c: c.reassign_outliers(strategy="nearest"), "strategy must be one of"),
    (lambda c: c.reassign_outliers(threshold=1.5), "threshold must be"),
])
def test_bad_edits_raise_clear_errors_and_record_nothing(steered, call, match):
    with pytest.raises(ValidationError, match=match):
        call(steered)
    assert steered.topic_edits() == []


def test_a_retired_topic_cannot_be_merged_again(steered):
    steered.merge_topics("space", "cybersecurity")
    with pytest.raises(ValidationError, match="retired"):
        steered.merge_topics("markets-economy", "cybersecurity")
    with pytest.raises(TopicNotFound):
        steered.rename_topic("no-such-topic", "X")


def test_reassign_needs_an_enriched_corpus(corpus):
    with pytest.raises(ValidationError, match="run enrich first"):
        corpus.reassign_outliers()


# -- guided topics and the run options -----------------------------------------------------------
SEEDS = "# expected topics\nRansomware attacks: ransomware, phishing\n\nvaccine, vaccine trial\n"


@pytest.fixture(scope="module")
def small_demo(tmp_path_factory):
    from corpuskit.demo import build_demo

    path = tmp_path_factory.mktemp("guided") / "small.db"
    c = open_corpus(path)
    build_demo(c, seed=3, records=800, days=30, run_stages=False, progress=False)
    c.set_meta("beats", None)   # no beat file: topics are discovered
    c.close()
    return path


def test_seed_words_guide_discovery_and_survive_an_incremental_run(small_demo, tmp_path):
    from corpuskit.cli import main

    path = tmp_path / "guided.db"
    shutil.copy(small_demo, path)
    seeds = tmp_path / "seeds.txt"
    seeds.write_text(SEEDS)
    assert main(["enrich", "--db", str(path), "--quiet", "--topics", "6", "--seed", "1",
                 "--seed-words", str(seeds)]) == 0
    c = open_corpus(path)
    try:
        topics = c.topics().set_index("name")
        assert topics.loc["ransomware-attacks", "displayName"] == "Ransomware attacks"
        assert topics.loc["ransomware-attacks", "keywords"][:2] == ["ransomware", "phishing"]
        vaccine = topics[topics["keywords"].map(lambda k: k[:2] == ["vaccine", "vaccine trial"])]
        assert len(vaccine) == 1 and len(vaccine.iloc[0]["keywords"]) > 2   # the model added terms
        said = c.conn.execute("SELECT count(*) FROM enrichment e JOIN topics t ON t.id = e.topic_id "
                              "JOIN records r ON r.id = e.record_id WHERE t.name = 'ransomware-attacks' "
                              "AND (lower(coalesce(r.title, '') || ' ' || r.content_text) LIKE '%ransomware%' "
                              "OR lower(coalesce(r.title, '') || ' ' || r.content_text) LIKE '%phishing%')"
                              ).fetchone()[0]
        assert said >= 0.6 * topics.loc["ransomware-attacks", "recordCount"]   # most say a seed word
        assert c.runs("enrich").iloc[-1]["settings"]["seed_words"] == str(seeds)
        names = sorted(topics.index[topics["active"]])

        c.add_records(_new_records(c, 40), source="news")
        summary = c.run(stages=["enrich"], progress=False, seed_words=str(seeds))["enrich"]
        assert summary["recordsEnriched"] == 40 and not summary["refitted"]
        assert sorted(c.topics().query("active")["name"]) == names
        with pytest.raises(ValidationError, match="refit=True"):
            c.enrich(progress=False, seed_words=["quantum"])
        # a refit without the option discovers again with the stored seed words
        c.enrich(progress=False, refit=True, n_topics=6, seed=1)
        assert "ransomware-attacks" in set(c.topics().query("active")["name"])
    finally:
        c.close()


@pytest.mark.parametrize("content, match", [
    ("", "name no topic"),
    ("Label: , ,\n", "at least one word"),
    ("far too long a phrase\n", "two-word phrase"),
])
def test_bad_seed_files_raise_clear_errors(tmp_path, content, match):
    from corpuskit.enrich.topics import load_seed_words

    path = tmp_path / "seeds.txt"
    path.write_text(content)
    with pytest.raises(ValidationError, match=match):
        load_seed_words(path)
    with pytest.raises(ValidationError, match="does not exist"):
        load_seed_words(tmp_path / "missing.txt")


@pytest.mark.parametrize("options, match", [
    ({"n_topics": 0}, "n_topics must be"),
    ({"n_topics": "many"}, "n_topics must be"),
    ({"seed_words": [["a"]], "beats": [{"name": "x", "keywords": ["x"]}]}, "give one of them"),
])
def test_bad_run_options_raise_clear_errors(corpus, options, match):
    corpus.add_records([{"contentText": "hello there", "publishedAt": "2024-01-01"}], source="news")
    with pytest.raises(ValidationError, match=match):
        corpus.run(stages=["enrich"], progress=False, **options)


def test_cli_topics_option_is_checked(tmp_path, capsys):
    from corpuskit.cli import main

    with pytest.raises(SystemExit):
        main(["run", "--db", str(tmp_path / "x.db"), "--topics", "lots"])
    assert "number or auto" in capsys.readouterr().err
