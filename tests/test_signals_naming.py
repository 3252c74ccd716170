"""Name the burst: every signal lists the terms its records use more than its baseline, in its detail
and at the end of its headline; a headline's figures are those of the day of its time stamp."""
from __future__ import annotations

import json
import re

import numpy as np

from corpuskit import open_corpus
from corpuskit.analysis.signals import detect_signals
from corpuskit.analysis.signals.terms import proper_phrases
from corpuskit.analysis.signals.naming import (MIN_RECORDS, MIN_SHARE, burst_terms, document_counts,
                                               subject_words, terms_suffix, weak_term)
from tests.signal_fixture import build_fixture

_BACKGROUND = ["doses shipped to the regional clinics this week", "booster appointments open at pharmacies",
               "supply of doses improves says health ministry", "clinics extend opening hours for vaccination",
               "pharmacies report steady vaccination numbers"]


def _background(n: int, seed: int = 0) -> list[str]:
    rng = np.random.default_rng(seed)
    return [f"{_BACKGROUND[rng.integers(len(_BACKGROUND))]} {rng.integers(1000)}" for _ in range(n)]


def test_burst_terms_name_the_new_phrase():
    burst = _background(5, seed=1) + [
        f"Pfizer trial in adolescents shows strong protection, report {i}" for i in range(8)] + [
        "adolescents trial results for ages 12-15 published", "trial in adolescents: what parents ask"]
    terms = burst_terms(burst, _background(300), exclude=subject_words("COVID-19 vaccine"))
    names = [t["term"] for t in terms]
    assert names and len(names) <= 3
    assert "adolescents" in " ".join(names) and "trial" in " ".join(names)
    for t in terms:
        assert t["records"] >= max(MIN_RECORDS, MIN_SHARE * len(burst))
        assert t["records"] == document_counts(burst)[t["term"]]
    # a word of a kept phrase is not named again on its own
    assert not any(n in other.split() for n in names for other in names if other != n)
    assert terms_suffix(terms) == ": " + ", ".join(names)


def test_burst_terms_edges():
    assert burst_terms([], _background(10)) == []
    assert burst_terms(_background(10), []) == []
    # a burst that says what the baseline says names nothing
    assert burst_terms(_background(40, seed=2), _background(400, seed=3)) == []
    # the subject's own words are never named: the headline says them already
    burst = [f"Zeta Corp launches hoverboard {i}" for i in range(10)]
    names = [t["term"] for t in burst_terms(burst, _background(200), subject_words("Zeta Corp"))]
    assert names and not any({"zeta", "corp"} & set(n.split()) for n in names)
    assert terms_suffix([]) == ""


def test_weak_words_and_title_formats_name_nothing():
    # the topic labels' tests: weak words and clauses, common words that are no name, title formats
    for term in ("time", "wants", "following", "app used", "says"):
        assert weak_term(term), term
    assert weak_term("ask hn", formats=["ask hn"]) and weak_term("apply hn", formats=["ask hn", "show hn"])
    assert weak_term("hn", formats=["ask hn"])
    for term in ("hololens", "san bernardino", "encryption", "shadow brokers", "m87"):
        assert not weak_term(term, formats=["ask hn"]), term
    # a common word the texts write as a name is kept
    assert weak_term("china") and not weak_term("china", names={"china"})


def test_a_burst_of_weak_words_and_a_format_names_only_its_subject_matter():
    burst = [f"Apply HN: following the time it wants, with hololens {i}" for i in range(10)]
    baseline = _background(300)
    names = [t["term"] for t in burst_terms(burst, baseline, formats=["ask hn", "show hn"])]
    assert names == ["hololens"]
    # without the rule the same burst would name the weak words (the rule, not the data, removes them)
    assert {"following", "time"} <= {t for t, c in document_counts(burst).items() if c == 10}


ENGLISH_PHRASE = " trial in adolescents ages 12-15 report"


def _planted_fixture(tmp_path, phrase: str | None, language: str | None = None):
    """The narrate fixture with ``phrase`` (and ``language``, when given) written into two of every
    three ai-policy records of its planted volume day, then the detectors run."""
    c = open_corpus(tmp_path / "c.db")
    truth = build_fixture(c)
    day = next(p["day"] for p in truth["events"] if p["kind"] == "volume_spike")
    if phrase:
        with c.transaction():
            ids = [r[0] for r in c.conn.execute(
                "SELECT r.id FROM records r JOIN enrichment e ON e.record_id = r.id "
                "WHERE r.day = ? AND e.topic_id = 1 ORDER BY r.id", (day,))]
            c.conn.executemany("UPDATE records SET language = coalesce(?, language), content_text = content_text || ? "
                               "WHERE id = ?", [(language, f"{phrase} {i}", rid) for i, rid in enumerate(ids) if i % 3])
    detect_signals(c, "analyse-1")
    return c, day


def _planted_signal(tmp_path, phrase: str | None, language: str | None = None) -> tuple[str, dict]:
    """Headline and detail of the fixture's ai-policy volume signal on its planted day."""
    c, day = _planted_fixture(tmp_path, phrase, language)
    row = c.conn.execute("SELECT headline, detail FROM signals WHERE kind = 'volume_spike' "
                         "AND signal_key LIKE 'volume_spike|ai-policy|topic:%' AND substr(signal_key, -10) = ?",
                         (day,)).fetchone()
    c.close()
    return row[0], json.loads(row[1])


def test_a_planted_burst_is_named_in_detail_and_headline(tmp_path):
    headline, detail = _planted_signal(tmp_path, phrase=ENGLISH_PHRASE)
    names = [t["term"] for t in detail["terms"]]
    # "trial" is a common English word: it names the burst only inside a phrase ("trial adolescents")
    assert "adolescents" in " ".join(names) and not any(weak_term(n) for n in names), names
    assert headline.endswith(": " + ", ".join(names)) and headline.startswith("Volume on AI Policy up")


def test_the_same_burst_without_a_phrase_names_nothing(tmp_path):
    """The fixture's texts are drawn from one vocabulary every day: the spike has no words of its own."""
    headline, detail = _planted_signal(tmp_path, phrase=None)
    assert detail["terms"] == [] and not headline.endswith(":")


_FIGURES = re.compile(r"up [\d.]+x(?: in the week (\S+) to (\S+))? \((\d+) vs ([\d.]+)/(day|week)\)")


def test_headline_figures_are_those_of_the_time_stamp(demo_corpus):
    """A volume headline's count is the series' count on the day of ``detected_at``; a later peak is
    stated with its own day, never mixed into the stamp's figures."""
    conn = demo_corpus.conn
    checked = 0
    for sid, kind, topic_id, entity_id, source, headline, detail, detected in conn.execute(
            "SELECT id, kind, topic_id, entity_id, source, headline, detail, detected_at FROM signals "
            "WHERE kind = 'volume_spike' ORDER BY id").fetchall():
        d = json.loads(detail)
        if d.get("hour"):
            continue
        day = detected[:10]
        assert d["day"] == day
        m = _FIGURES.search(headline)
        assert m, headline
        first = day
        if m.group(5) == "week":
            assert d["scale"] == "week" and m.group(2) == day and m.group(1) == d["weekStart"], headline
            first = d["weekStart"]
        else:
            assert d["scale"] == "day"
        if d["series"] == "term":   # a phrase that is no entity: the enriched records that write it
            term = re.match(r'Records writing "([^"]+)"', headline).group(1)
            n = sum(term in proper_phrases(f"{title}. {text}") for title, text in conn.execute(
                "SELECT r.title, r.content_text FROM records r JOIN enrichment e ON e.record_id = r.id "
                "WHERE r.day BETWEEN ? AND ?", (first, day)))
        elif entity_id is not None:
            n = conn.execute("SELECT count(DISTINCT m.record_id) FROM mentions m JOIN records r "
                             "ON r.id = m.record_id JOIN enrichment e ON e.record_id = r.id "
                             "WHERE m.entity_id = ? AND r.day BETWEEN ? AND ?", (entity_id, first, day)).fetchone()[0]
        elif source is not None:
            n = conn.execute("SELECT count(*) FROM records r JOIN enrichment e ON e.record_id = r.id "
                             "WHERE r.source = ? AND r.day BETWEEN ? AND ?", (source, first, day)).fetchone()[0]
        else:
            n = conn.execute("SELECT count(*) FROM records r JOIN enrichment e ON e.record_id = r.id "
                             "WHERE e.topic_id = ? AND r.day BETWEEN ? AND ?", (topic_id, first, day)).fetchone()[0]
        assert int(m.group(3)) == n == d["current"], headline
        if d["peakDay"] != d["day"]:
            assert d["peak"]["day"] == d["peakDay"] and f"; strongest on {d['peakDay']}" in headline
        else:
            assert "peak" not in d and "strongest on" not in headline
        checked += 1
    assert checked >= 10


def test_demo_signals_name_their_bursts(demo_corpus):
    rows = [(h, json.loads(d)) for h, d in demo_corpus.conn.execute(
        "SELECT headline, detail FROM signals ORDER BY id")]
    named = 0
    for headline, detail in rows:
        terms = detail["terms"]
        assert len(terms) <= 3
        if terms:
            named += 1
            assert headline.endswith(terms_suffix(terms)), headline
            assert all(t["records"] >= MIN_RECORDS for t in terms)
    assert named / len(rows) >= 0.7, [h for h, _ in rows]
    # the planted Greenpeace spike on climate: its topic signal names the organisation
    climate = [(h, d) for h, d in rows if h.startswith("Volume on Climate")]
    assert any("greenpeace" in [t["term"] for t in d["terms"]] for _, d in climate), climate


_SPANISH_BASELINE = ([f"los precios del mercado suben en la capital {i}" for i in range(200)]
                     + [f"el gobierno anuncia obras {i}" for i in range(100)])
_SPANISH_BURST = [f"Es la final que es de Liga MX: el Tri es campeón y es que nadie lo esperaba {i}"
                  for i in range(12)]


def test_a_spanish_burst_is_never_named_by_a_spanish_stop_word():
    from corpuskit.text.stopwords import stop_words

    es = stop_words(("es",))
    names = [t["term"] for t in burst_terms(_SPANISH_BURST, _SPANISH_BASELINE, languages=("es",))]
    assert names and not any(w in es for n in names for w in n.split()), names
    assert "campeón" in names
    # the records' languages, not the data, remove them: read as English, the burst is named "es"
    assert "es" in [t["term"] for t in burst_terms(_SPANISH_BURST, _SPANISH_BASELINE)]


def test_a_planted_spanish_burst_names_no_stop_word_in_detail_or_headline(tmp_path):
    """The fixture's ai-policy spike written in Spanish records ("es", "la", "que" in every one) is
    named by its content words, in a corpus whose vocabulary languages are English only."""
    from corpuskit.text.stopwords import stop_words

    headline, detail = _planted_signal(tmp_path, " es la ley que es del gobierno, es que la reforma regulatoria es",
                                       language="es")
    names = [t["term"] for t in detail["terms"]]
    es = stop_words(("es",))
    assert names and not any(w in es for n in names for w in n.split()), names
    assert "reforma" in " ".join(names) and headline.endswith(terms_suffix(detail["terms"]))
