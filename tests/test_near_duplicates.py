"""Near-duplicate floods and copy-paste campaigns neither form nor name a discovered topic."""
from __future__ import annotations

import numpy as np
import pytest

from corpuskit.enrich.embeddings import TfidfSvdEmbedder
from corpuskit.enrich.topics import discover_beats
from corpuskit.text.near_duplicates import near_duplicate_groups, representatives

SPACE = ["rocket", "orbit", "satellite", "astronaut", "capsule", "launch pad", "lunar lander"]
ENERGY = ["solar", "grid", "battery", "turbine", "emissions", "heat pump", "offshore wind"]
MARKETS = ["inflation", "bond", "yields", "earnings", "payrolls", "interest rates", "central bank"]
# a campaign: one post pasted 40 times with a changed number, a glued number or a cut word at the end
CAMPAIGN = "Vaccine toll exceeds{} in secret ledger whistleblower reveals cover up importing{} doses thi"


def _campaign(n=40):
    return [CAMPAIGN.format(199 + i, 15 + i) + ("s" if i % 3 else "") for i in range(n)]


def _corpus(seed=0):
    rng = np.random.default_rng(seed)
    texts = [" ".join(rng.choice(pool, 4, replace=False)) for i in range(300) for pool in [[SPACE, ENERGY, MARKETS][i % 3]]]
    camp = _campaign()
    at = rng.choice(len(texts) + len(camp), len(camp), replace=False)
    out, c, t = [], iter(camp), iter(texts)
    for i in range(len(texts) + len(camp)):
        out.append(next(c) if i in set(at.tolist()) else next(t))
    return out


def test_campaign_copies_are_one_group_and_distinct_posts_are_not():
    camp = _campaign()
    others = ["rocket orbit satellite launch", "solar grid battery turbine", "Ask HN: should I learn Swift?",
              "Ask HN: where to learn modern C?", ""]
    groups = near_duplicate_groups(camp + others)
    assert set(groups[:40].tolist()) == {0}
    assert groups[40:].tolist() == list(range(40, 45))
    assert representatives(camp + others).tolist() == [0, 40, 41, 42, 43, 44]
    assert near_duplicate_groups([]).tolist() == [] and near_duplicate_groups(["one"]).tolist() == [0]


def test_groups_are_the_same_on_every_run_and_do_not_depend_on_salted_hashes():
    texts = _corpus()
    assert near_duplicate_groups(texts).tolist() == near_duplicate_groups(list(texts)).tolist()


@pytest.mark.parametrize("n_topics", [None, 4])
def test_a_planted_campaign_neither_forms_nor_names_a_topic(n_topics):
    texts = _corpus()
    vectors = TfidfSvdEmbedder().fit(texts).transform(texts)
    details = {}
    beats, _, labels = discover_beats(texts, vectors, seed=0, n_topics=n_topics, details=details)
    groups = near_duplicate_groups(texts)
    assert details["nearDuplicates"] == len(texts) - len(set(groups.tolist())) >= 39
    campaign_words = {"vaccine", "toll", "ledger", "whistleblower", "cover", "doses", "secret", "thi", "this"}
    for beat in beats:
        words = {w.strip(":,").lower() for t in beat.keywords + [beat.display_name] for w in t.split()}
        assert not words & campaign_words, (beat.display_name, beat.keywords)
        assert not any(ch.isdigit() for t in beat.keywords for ch in t), beat.keywords
    assert len(labels) == len(texts)
    rows = [i for i, t in enumerate(texts) if t.startswith("Vaccine toll")]
    assert len(set(labels[rows].tolist())) == 1   # the copies share their first post's label


def test_without_dedupe_the_campaign_makes_its_own_topic():
    """The control: the same corpus with dedupe off gives the campaign a topic named by its words."""
    texts = _corpus()
    vectors = TfidfSvdEmbedder().fit(texts).transform(texts)
    beats, _, _ = discover_beats(texts, vectors, seed=0, n_topics=4, dedupe=False)
    named = {w.lower() for b in beats for t in b.keywords[:5] for w in t.split()}
    assert named & {"vaccine", "toll", "ledger", "whistleblower", "doses"}
