"""Types and identities that need evidence, seen on the real Hacker News and Reddit files: acronyms,
head nouns of laws and institutions, institution contexts, plurals, headline words and lower-case
first names."""
import re

from corpuskit.enrich.base import Mention
from corpuskit.enrich.resolve import _Origin, fold, plan
from corpuskit.enrich.type_evidence import initials, read_type_evidence
from tests.test_entity_resolution import Fixed, build_days


class AnyCase(Fixed):
    """``Fixed``, and "Mark" a person in any case, its surface as the record first writes it."""

    def extract(self, text):
        found = super().extract(text)
        marks = [m for m in re.finditer(r"(?<![\w])mark(?! Twain)\b", text, re.I)]
        if marks:
            found.append(Mention("mark", "Mark", "person", marks[0].group(), tuple(m.start() for m in marks), ("Mark",)))
        return found


def origins(*rows):
    """``_Origin`` objects of ``(name, type, mentions)`` rows, ids from 1."""
    return {i: _Origin(i, fold(n), n, t, m, 0) for i, (n, t, m) in enumerate(rows, 1)}


def typed(result):
    return {result["names"][r]: t for r, t in result["types"].items() if result["map"][r] == ([r], None)}


def test_initials_skip_small_words_and_split_hyphens():
    assert initials("Food and Drug Administration".split()) == "FDA"
    assert initials("per- and polyfluoroalkyl substances".split()) == "PPS"


def test_an_acronym_takes_its_expansions_type():
    texts = ["a report by the US Food and Drug Administration (FDA) says",
             "diagnose ARDS (acute respiratory distress syndrome) early",
             "a brain-computer interface (BCI) that reads", "Head of NOAA says 5G harms forecasts",
             "NOAA warns of storms", "HIV researchers found", "HIV researchers say", "DNA says nothing"]
    found = read_type_evidence(texts, {"FDA", "ARDS", "BCI", "NOAA", "HIV", "DNA"}, set())
    assert found == {"FDA": "org", "ARDS": "concept", "BCI": "concept", "NOAA": "org"}


def test_an_expansion_before_a_plural_or_spaced_acronym_counts():
    """Parentheses holding a plural acronym or spaces ("(APIs)", "( FDA )") are read as an
    expansion too (the quick test of whether a text holds one must not miss them)."""
    texts = ["open application programming interfaces (APIs) for all",
             "the US Food and Drug Administration ( FDA ) reports"]
    assert read_type_evidence(texts, {"API", "FDA"}, set()) == {"API": "concept", "FDA": "org"}


def test_an_institutions_context_makes_a_name_typed_person_an_org():
    texts = ["Johns Hopkins researchers conclude", "a new study from Johns Hopkins.",
             "Researchers at Johns Hopkins Identify Oils", "Ajit Pai says no", "Ajit Pai said so",
             "according to Ada Byron", "Ada Byron researchers"]
    found = read_type_evidence(texts, set(), {"Johns Hopkins", "Ajit Pai", "Ada Byron"})
    assert found == {"Johns Hopkins": "org"}  # a person's "says" is no institution's, one context is not two


def test_head_nouns_acronyms_and_text_evidence_type_a_name():
    result = plan(origins(("Investigatory Powers Bill", "place", 4), ("Imperial College", "place", 1), ("Montreal Protocol", "place", 2),
                          ("Justice Department", "concept", 2), ("CBD", "place", 24),
                          ("NYC", "place", 5), ("New York City", "place", 9), ("NOAA", "concept", 8),
                          ("ARDS", "org", 2), ("FBI", "place", 3), ("Johns Hopkins", "person", 5),
                          ("Johns Hopkins Medicine Team", "person", 2), ("Bill Nye", "person", 3)),
                  known=frozenset({"fbi"}), first_names=frozenset({"bill"}),
                  evidence={"noaa": "org", "ards": "concept", "johnshopkins": "org"})
    types = typed(result)
    assert types["Investigatory Powers Bill"] == types["Montreal Protocol"] == "concept"  # a law's head noun
    assert types["Imperial College"] == "org" and types["Justice Department"] == "org"
    assert types["CBD"] == "concept"  # an acronym typed place that spells no place of the corpus
    assert types["NYC"] == "place"  # "New York City"
    assert types["NOAA"] == "org" and types["ARDS"] == "concept"  # what the text says
    assert types["FBI"] == "place"  # a gazetteer name keeps the type the extractor gave it
    assert types["Johns Hopkins"] == "org"
    assert types["Johns Hopkins Medicine Team"] == "org"  # opens with an organisation of the corpus
    assert types["Bill Nye"] == "person"  # a listed first name, not a law's "Bill"


def test_a_plural_of_an_acronym_or_inner_capital_name_joins_it():
    result = plan(origins(("API", "concept", 10), ("APIs", "concept", 30), ("iPhone", "product", 5),
                          ("iPhones", "product", 2), ("Mac", "product", 4), ("Macs", "product", 2),
                          ("Apple", "org", 50), ("Apples", "place", 1), ("AR", "concept", 20), ("Ars", "org", 1),
                          ("McDonald", "person", 20), ("McDonalds", "org", 2)))
    names = ["API", "APIs", "iPhone", "iPhones", "Mac", "Macs", "Apple", "Apples", "AR", "Ars", "McDonald",
             "McDonalds"]
    by_name = {o: result["map"][i] for i, o in enumerate(names, 1)}
    assert by_name["APIs"] == ([1], "plural") and by_name["iPhones"] == ([3], "plural")
    assert by_name["Macs"] == ([6], None)  # a plain capitalised word written nearly as often is left alone
    assert by_name["Apples"] == ([7], "plural")  # "Apples encryption": written 50 times as "Apple"
    assert by_name["Ars"] == ([10], None) and by_name["McDonalds"] == ([12], None)
    assert result["names"][1] == "API"  # the plural never names the group, however often written


def test_ordinary_headline_words_name_nothing_and_a_lower_case_first_name_is_no_person():
    table = {"General Skills": "product", "Brain Cells": "place", "Mark Twain": "person", "GMOs Are Fine": "concept"}
    rows = [(1, "Robots Learn General Skills For Exploration Today"),
            (2, "brain cells grow. Brain Cells Found In New Mouse Study"), (3, "the brain cells Brain Cells said"),
            (4, "Mark Twain wrote. Mark said hi"), (5, "results mark a historic moment"), (6, "Mark again"),
            (7, "general advice on skills"), (8, "Probiotics Are Useless And GMOs Are Fine Today")]  # the corpus writes both words in lower case
    c = build_days(rows, table, AnyCase)
    ents = c.entities().set_index("name")
    assert "General Skills" not in ents.index  # only on a Title Case line
    assert "GMOs Are Fine" not in ents.index  # a clause, whatever its type
    assert "Brain Cells" in ents.index  # also written capitalised in a sentence
    assert ents.loc["Mark", "mentions"] == 2  # "mark a historic moment" is no mention of Mark


def test_software_contexts_make_a_product_from_two_texts():
    from corpuskit.enrich.type_evidence import read_type_evidence

    texts = ["Rails 5.0.0.rc1", "a blog written in Rails", "Scala library", "Learning Scala", "Django app",
             "install Django today"]
    assert read_type_evidence(texts, [], [], ["Rails", "Scala", "Django"]) == {"Rails": "product",
                                                                                "Django": "product"}


def test_a_one_word_name_written_in_lower_case_in_software_contexts_is_a_product():
    texts = ["install nginx on a VPS", "my nginx config", "our hadoop cluster", "Hadoop tips", "a pony ride"]
    assert read_type_evidence(texts, [], [], ["Nginx", "Hadoop", "Pony"]) == {"Nginx": "product"}


def test_a_version_or_a_definition_names_software_in_one_text():
    texts = ["Pony is an open-source, actor-model, high performance programming language",
             "Computing Pi with Peachpie (PHP Compiler to .NET)", "Upgrade to Nginx 1.9.11 now",
             "Paris is a lovely city", "Tokyo (the capital) at night"]
    found = read_type_evidence(texts, [], [], ["Pony", "Peachpie", "Nginx", "Paris", "Tokyo"])
    assert found == {"Pony": "product", "Peachpie": "product", "Nginx": "product"}


def test_a_short_acronym_typed_org_without_an_institutions_context_is_a_concept():
    texts = ["a new UI for the app", "the UI is slow", "EFF says no to the bill", "the PC was to die"]
    found = read_type_evidence(texts, {"UI", "EFF", "PC"}, [], short_orgs={"UI", "EFF", "PC"})
    assert found == {"UI": "concept", "PC": "concept"}  # one act keeps EFF an organisation


def test_a_name_typed_place_that_no_text_writes_as_a_place_is_a_concept():
    texts = ["Hipster Domain Finder", "a hipster cafe", "living in Lagos now", "Lagos traffic"]
    assert read_type_evidence(texts, [], [], places={"Hipster", "Lagos"}) == {"Hipster": "concept"}
    result = plan(origins(("Hipster", "place", 2), ("Lagos", "place", 2), ("Ferguson", "place", 1)),
                  places=frozenset({"ferguson"}), known=frozenset({"ferguson"}),
                  evidence={"hipster": "concept", "ferguson": "concept"})
    types = typed(result)
    assert types["Hipster"] == "concept" and types["Lagos"] == "place"
    assert types["Ferguson"] == "place"  # a gazetteer place whatever the text says


def test_a_one_word_concept_that_acts_is_an_org():
    texts = ["DoorDash Says It's Very Sorry", "Bitcoin rallies again", "the report says so"]
    assert read_type_evidence(texts, [], [], actors={"DoorDash", "Bitcoin"}) == {"DoorDash": "org"}
    result = plan(origins(("DoorDash", "concept", 3), ("Science", "concept", 3)),
                  lowered=frozenset({"science"}), evidence={"doordash": "org", "science": "org"})
    types = typed(result)
    assert types["DoorDash"] == "org" and types["Science"] == "concept"  # "Science says": a common word
