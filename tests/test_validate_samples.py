"""Samples for coding: reproducible by seed, exact stratum sizes, filters, stored design, coding sheet."""
from __future__ import annotations

import csv

import pytest

from corpuskit.errors import ValidationError
from corpuskit.query.lookups import SampleNotFound
from corpuskit.validate import allocate, load_sample
from tests.validate_fixture import CODEBOOK, labelled_corpus


@pytest.fixture
def lab():
    c = labelled_corpus(600)
    yield c
    c.close()


def test_largest_remainder_allocation_is_exact():
    # 10 of strata 5/3/2 (total 10) -> 5/3/2; 7 of 5/3/2: quotas 3.5/2.1/1.4 -> 3 + 2 + 1 = 6,
    # the largest remainder (.5) takes the 7th
    assert allocate([5, 3, 2], 10) == [5, 3, 2]
    assert allocate([5, 3, 2], 7) == [4, 2, 1]
    assert allocate([1, 1, 1], 2) == [1, 1, 0]          # ties go to the stratum listed first
    assert allocate([50, 30, 20], 10, "equal") == [4, 3, 3]
    with pytest.raises(ValidationError, match="stratum 3 has 2, needs 3"):
        allocate([50, 30, 2], 9, "equal")


def test_simple_sample_is_reproducible_by_seed(lab):
    a = lab.sample(50, seed=4)
    b = lab.sample(50, seed=4)
    c = lab.sample(50, seed=5)
    assert a.ids() == b.ids() and a.ids() != c.ids()
    assert len(set(a.ids())) == 50 and a.design["population"] == 600


@pytest.mark.parametrize("by", ["topic", "source", "sentiment", "W", "M", "D"])
def test_stratified_sizes_are_exact(lab, by):
    drawn = lab.sample(97, by=by, seed=1)
    strata = drawn.design["strata"]
    assert sum(s["sampled"] for s in strata.values()) == 97 == len(drawn)
    population = sum(s["population"] for s in strata.values())
    assert population == 600
    quotas = {k: 97 * s["population"] / population for k, s in strata.items()}
    for k, s in strata.items():        # largest remainder: each size is the floor or the ceiling
        assert int(quotas[k]) <= s["sampled"] <= int(quotas[k]) + 1
    counted = drawn.records["stratum"].value_counts().to_dict()
    assert counted == {k: s["sampled"] for k, s in strata.items() if s["sampled"]}


def test_stratified_by_source_draws_from_each_source(lab):
    drawn = lab.sample(60, by="source", seed=2)
    frame = lab.records().set_index("id")
    for rid, stratum in zip(drawn.records["recordId"], drawn.records["stratum"]):
        assert frame.loc[rid, "source"] == stratum
    assert drawn.records["stratum"].value_counts().to_dict() == {"bluesky": 20, "hackernews": 20, "reddit": 20}


def test_equal_allocation(lab):
    drawn = lab.sample(31, by="topic", seed=0, allocation="equal")
    assert sorted(drawn.records["stratum"].value_counts().tolist()) == [15, 16]


def test_filters_and_ids(lab):
    reddit = lab.sample(20, source="reddit", seed=0)
    sources = lab.records().set_index("id").loc[reddit.ids(), "source"]
    assert set(sources) == {"reddit"}
    assert lab.sample(10, topic="tech", seed=0).design["population"] == 300
    chosen = list(range(1, 41))
    assert set(lab.sample(40, ids=chosen, seed=9).ids()) == set(chosen)
    # records fall on days 1, 8, 15 and 22 at noon: this window holds day 8 only
    january = lab.sample(5, since="2024-01-08", until="2024-01-15T00:00:00Z")
    assert january.design["population"] == 150


def test_bad_arguments_name_the_problem(lab):
    with pytest.raises(ValidationError, match="only 200 match"):
        lab.sample(201, source="reddit")
    with pytest.raises(ValidationError, match="by must be one of"):
        lab.sample(5, by="colour")
    with pytest.raises(ValidationError, match="needs its unit"):
        lab.sample(5, by="period")
    with pytest.raises(ValidationError, match="n must be"):
        lab.sample(0)
    with pytest.raises(ValidationError, match="allocation must be"):
        lab.sample(5, by="topic", allocation="neyman")
    with pytest.raises(ValidationError, match="does not have"):
        lab.sample(1, ids=[1, 99999])
    with pytest.raises(ValidationError, match="unknown topic"):
        lab.sample(1, topic="nope")
    with pytest.raises(ValidationError, match="since"):
        lab.sample(1, since="yesterday-ish")


def test_named_sample_is_stored_with_design_and_order(lab):
    drawn = lab.sample(30, by="topic", seed=3, name="S", codebook=CODEBOOK)
    again = load_sample(lab, "S")
    assert again.ids() == drawn.ids()
    assert again.design["seed"] == 3 and again.design["by"] == "topic"
    assert again.design["createdAt"] == "2024-01-22T12:00:00Z"   # the corpus clock: newest record
    assert lab.codebook("S").variables["sentiment"].level == "ordinal"
    with pytest.raises(ValidationError, match="exists already"):
        lab.sample(5, name="S")
    with pytest.raises(SampleNotFound, match="samples are: S"):
        load_sample(lab, "T")


def test_coding_sheet(lab, tmp_path):
    lab.sample(12, seed=0, name="S", codebook=CODEBOOK)
    out = tmp_path / "sheet.csv"
    assert lab.coding_sheet("S", out) == 12
    rows = list(csv.DictReader(open(out, encoding="utf-8")))
    assert list(rows[0]) == ["recordId", "text", "sentiment", "relevant", "note"]
    assert [int(r["recordId"]) for r in rows] == load_sample(lab, "S").ids()
    first = lab.records().set_index("id").loc[int(rows[0]["recordId"])]
    assert rows[0]["text"] == f"{first['title']}\n\n{first['contentText']}"
    assert all(r["sentiment"] == "" and r["relevant"] == "" for r in rows)
