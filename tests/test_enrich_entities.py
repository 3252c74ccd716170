"""Entities: gazetteer matching, alias merging, positions, rules, keys and the spaCy extra."""
import importlib.util

import pytest

from corpuskit.enrich.base import record_text
from corpuskit.api.bearer.shapes import entity_path
from corpuskit.enrich.entities import GazetteerExtractor, SpacyExtractor
from corpuskit.query import resolve_entity_key
from corpuskit.query.name_keys import alias_key
from corpuskit.query.name_keys import entity_slug as slugify
from corpuskit.errors import MissingDependencyError, NotFoundError, ValidationError


@pytest.fixture(scope="module")
def extractor():
    return GazetteerExtractor()


def by_name(mentions):
    return {m.name: m for m in mentions}


def test_alias_key_and_slug():
    for spelling in ("OpenAI", "Open AI", "@openai", "OpenAI's", "openai’s", " OPEN-AI "):
        assert alias_key(spelling) == "openai"
    assert slugify("Sam Altman") == "sam-altman"
    assert slugify("AT&T") == "at-and-t"
    assert slugify("GPT-4") == "gpt-4"
    assert slugify("!!!") == "entity"
    assert entity_path("openai") == "/v1/entities/by-slug/openai"


def test_aliases_merge_into_one_entity_with_every_position(extractor):
    text = "YouTube shipped. You Tube says @youtube and YouTube's team agree."
    found = by_name(extractor.extract(text))
    assert list(found) == ["YouTube"]
    m = found["YouTube"]
    assert m.key == "youtube" and m.type == "org"
    assert m.mention_count == 4
    for pos, surface in zip(m.positions, ("YouTube", "You Tube", "@youtube", "YouTube")):
        assert text[pos:pos + len(surface)] == surface
    assert set(m.aliases) == {"YouTube", "You Tube", "@youtube"}


def test_positions_index_title_newline_text(extractor):
    title, body = "Intel ships", "Analysts in Japan expect Intel to grow."
    text = record_text(title, body)
    assert text == "Intel ships\nAnalysts in Japan expect Intel to grow."
    found = by_name(extractor.extract(text))
    assert found["Intel"].positions == (0, text.index("Intel", 1))
    assert text[found["Japan"].positions[0]:].startswith("Japan")
    assert record_text("", body) == body and record_text(body, body) == body


def test_case_rules(extractor):
    names = set(by_name(extractor.extract(
        "I ate an apple and told us about it; who knows where rust comes from.")))
    assert names == set()
    names = set(by_name(extractor.extract("Google told the US and the UN; Rust is fast; youtube too.")))
    assert names == {"Google", "United States", "UN", "Rust", "YouTube"}


def test_spaced_spelling_needs_matching_capitals(extractor):
    names = set(by_name(extractor.extract("In Tel Aviv the talks went on. In Tel the talks went on.")))
    assert "Intel" not in names  # "In Tel" is not "Intel"
    assert "Intel" in by_name(extractor.extract("In tel aviv, In Tel and In-tel: Intel."))
    assert "Model S" not in by_name(extractor.extract("Models improve. The model's weights grew."))


def test_rules_find_people_orgs_and_product_models(extractor):
    found = by_name(extractor.extract(
        "Dr. Quentin Marlowe met Astrid Varga at Osprey Robotics; the iPhone 17 and Galaxy S26 launched."))
    assert found["Quentin Marlowe"].type == "person"
    assert found["Astrid Varga"].type == "person"
    assert found["Osprey Robotics"].type == "org"
    assert found["iPhone 17"].type == "product" and found["Galaxy S26"].type == "product"


def test_extra_entries_and_bad_type():
    x = GazetteerExtractor(extra={"Zorblax": "product", "Quillon Group": ("org", ["Quillon"])})
    found = by_name(x.extract("Zorblax by Quillon is new; Quillon Group agrees."))
    assert found["Zorblax"].type == "product"
    assert found["Quillon Group"].mention_count == 2
    with pytest.raises(ValidationError, match="entity type"):
        GazetteerExtractor(extra={"X": "animal"}).extract("X")


def test_empty_text(extractor):
    assert extractor.extract("") == [] and extractor.extract(None) == []


@pytest.fixture
def keyed(corpus):
    conn = corpus.conn
    with corpus.transaction():
        for eid, slug, name in ((1, "openai", "OpenAI"), (42, "sam-altman", "Sam Altman"),
                                (7, "gpt-4", "GPT-4")):
            conn.execute("INSERT INTO entities(id, slug, name, type, updated_at) VALUES (?,?,?,?,?)",
                         (eid, slug, name, "org", "2026-01-01T00:00:00Z"))
        conn.execute("INSERT INTO entity_aliases(alias_key, entity_id, surface) VALUES ('sama', 42, '@sama')")
    return conn


@pytest.mark.parametrize("key,expected", [
    ("openai", (1, True)), ("gpt-4", (7, True)), ("42", (42, False)), ("openai-1", (1, False)),
    ("old-name-42", (42, False)), ("OpenAI", (1, False)), ("@sama", (42, False)),
    ("Sam Altman", (42, False)),
])
def test_resolve_entity_key(keyed, key, expected):
    assert resolve_entity_key(keyed, key) == expected


@pytest.mark.parametrize("key", ["", "nobody", "999", "openai-999"])
def test_resolve_entity_key_not_found(keyed, key):
    with pytest.raises(NotFoundError):
        resolve_entity_key(keyed, key)


@pytest.mark.skipif(importlib.util.find_spec("spacy") is not None, reason="spaCy is installed")
def test_spacy_backend_names_the_install_line():
    with pytest.raises(MissingDependencyError, match=r"pip install 'corpuskit\[spacy\]'"):
        SpacyExtractor().extract("OpenAI")
