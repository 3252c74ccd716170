"""Beats: loading definition files (and their errors), assignment, discovery."""
import json

import numpy as np
import pytest

from corpuskit.enrich.embeddings import TfidfSvdEmbedder
from corpuskit.enrich.topics import BeatAssigner, discover_beats, load_beats
from corpuskit.errors import BeatDefinitionError

BEATS = [
    {"name": "space", "displayName": "Space", "description": "Rockets and orbits", "category": "science",
     "keywords": ["rocket", "orbit", "launch pad"], "subreddits": ["space"], "active": True},
    {"name": "energy", "displayName": "Energy", "keywords": ["solar", "wind turbine", "grid"],
     "subreddits": ["r/energy"]},
]


def test_load_from_list_file_and_wrapper(tmp_path):
    path = tmp_path / "beats.json"
    path.write_text(json.dumps({"beats": BEATS}))
    for source in (BEATS, {"beats": BEATS}, path, str(path)):
        beats = load_beats(source)
        assert [b.name for b in beats] == ["space", "energy"]
    energy = beats[1]
    assert energy.display_name == "Energy" and energy.category == "general" and energy.active
    assert energy.subreddits == ["energy"]


@pytest.mark.parametrize("content,match", [
    ("{not json", "not valid JSON"),
    ('"a string"', "expected a list"),
    ("[]", "no beats defined"),
    ('[{"displayName": "x"}]', "entry 1: 'name'"),
    ('[{"name": "a b"}]', "'name' must be"),
    ('[{"name": "a"}, {"name": "a"}]', "duplicate beat name"),
    ('[{"name": "a", "keywords": "rocket"}]', "keywords must be a list"),
    ('[{"name": "a", "active": "yes"}]', "'active' must be true or false"),
    ('[3]', "expected an object"),
])
def test_bad_files_raise_clear_errors(tmp_path, content, match):
    path = tmp_path / "beats.json"
    path.write_text(content)
    with pytest.raises(BeatDefinitionError, match=match) as info:
        load_beats(path)
    assert str(path) in str(info.value)


def test_missing_file(tmp_path):
    with pytest.raises(BeatDefinitionError, match="does not exist"):
        load_beats(tmp_path / "nope.json")


def _texts():
    rng = np.random.default_rng(0)
    space = ["rocket", "orbit", "satellite", "astronaut", "capsule"]
    energy = ["solar", "grid", "battery", "turbine", "emissions"]
    other = ["recipe", "garden", "novel", "football", "holiday"]
    texts, labels = [], []
    for i in range(300):
        pool, label = [(space, 0), (energy, 1), (other, -1)][i % 3]
        texts.append(" ".join(rng.choice(pool, 6)))
        labels.append(label)
    return texts, np.array(labels)


def test_assignment_from_keywords_subreddits_and_centroids():
    texts, labels = _texts()
    emb = TfidfSvdEmbedder().fit(texts)
    X = emb.transform(texts)
    beats = load_beats(BEATS)
    assigner = BeatAssigner().fit(beats, texts, [None] * len(texts), X, embed=emb.transform)
    picks = assigner.assign(texts, [None] * len(texts), X)
    primary = np.array([p[0][0] if p else -1 for p in picks])
    assert (primary == labels).mean() >= 0.95
    conf = [c for p in picks for _, c in p]
    assert all(0 < c <= 1 for c in conf)
    # a subreddit alone lifts an otherwise empty record
    sub_only = assigner.assign(["nothing to see"], ["space"], emb.transform(["nothing to see"]))
    assert sub_only[0] and sub_only[0][0][0] == 0
    # inactive beats are never assigned
    beats[0].active = False
    inactive = BeatAssigner().fit(beats, texts, [None] * len(texts), X)
    assert all(b != 0 for p in inactive.assign(texts, [None] * len(texts), X) for b, _ in p)


def test_each_text_is_scanned_for_keywords_once_per_fit(monkeypatch):
    texts, _ = _texts()
    emb = TfidfSvdEmbedder().fit(texts)
    X = emb.transform(texts)
    scans = []
    original = BeatAssigner._find_phrases
    monkeypatch.setattr(BeatAssigner, "_find_phrases", lambda self, t: scans.append(t) or original(self, t))
    assigner = BeatAssigner().fit(load_beats(BEATS), texts, [None] * len(texts), X)
    picks = assigner.assign(texts, [None] * len(texts), X)
    themes = assigner.themes(texts)
    assert sorted(scans) == sorted(set(texts))          # fit, assign and themes share one scan per text
    assert len(picks) == len(themes) == len(texts)
    i = next(i for i, t in enumerate(texts) if "rocket" in t.split())
    assert "rocket" in themes[i]


def test_discovered_beats_are_named_by_their_terms():
    texts, labels = _texts()
    X = TfidfSvdEmbedder().fit(texts).transform(texts)
    beats, centroids, found = discover_beats(texts, X, n_topics=3, seed=0)
    assert len(beats) == 3 and centroids.shape == (3, 512)
    assert all(b.discovered and b.category == "discovered" and b.keywords for b in beats)
    assert len({b.name for b in beats}) == 3
    for b in range(3):  # each discovered beat is one of the planted groups
        members = labels[found == b]
        assert np.bincount(members + 1).max() / len(members) >= 0.9
    vocab = {"rocket", "orbit", "satellite", "astronaut", "capsule"}
    assert any(vocab & set(" ".join(b.keywords).split()) for b in beats)


def test_discovery_on_tiny_or_empty_text():
    beats, centroids, labels = discover_beats(["!!!", "???"], np.zeros((2, 512), np.float32))
    assert len(beats) >= 1 and centroids.shape[1] == 512 and len(labels) == 2
