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
