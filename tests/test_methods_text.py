"""Every text that names an instrument names the run's: swap the sentiment scorer (VADER, the shipped
model, a researcher's own) and the methods paragraph, the export codebook, the axis of
``plot.sentiment`` (from a corpus and from a records frame) and the run's language note all change;
the two API documents name no instrument at all (so no swap can make them wrong)."""
from pathlib import Path

import pytest

from corpuskit import open_corpus
from corpuskit.api.openapi import document_bytes
from corpuskit.enrich.base import SentimentScorer
from corpuskit.enrich.instruments import _DETECTOR_FIGURES, instrument
from corpuskit.ingest.export_codebook import codebook
from corpuskit.ingest.export_columns import COLUMNS
from corpuskit.methods import instruments, language_note

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")  # tests only: the library never selects a backend
import matplotlib.pyplot as plt  # noqa: E402

from corpuskit import plot  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
NAMES = ("vader-3.3", "tweet-sentiment-lr-1", "my-lexicon-2")


class MyLexicon(SentimentScorer):
    """A researcher's own scorer."""

    model_name = "my-lexicon-2"

    def score(self, text):
        return 0.5 if "good" in (text or "") else 0.0


@pytest.fixture(scope="module")
def small_path(tmp_path_factory):
    from corpuskit.demo import build_demo

    path = tmp_path_factory.mktemp("methods") / "small.db"
    c = open_corpus(path)
    build_demo(c, seed=3, records=400, days=28, run_stages=False, progress=False)
    c.close()
    return path


def _texts(c) -> dict:
    manifest = c.manifest()
    ax = plot.sentiment(c)
    from_corpus = ax.get_ylabel()
    plt.close(ax.figure)
    ax = plot.sentiment(c.records())
    from_frame = ax.get_ylabel()
    plt.close(ax.figure)
    return {"methods": c.methods(), "codebook": codebook({"records": COLUMNS["records"]}, manifest, "csv", {}, False),
            "plot": from_corpus, "plot of a records frame": from_frame, "run note": language_note(c, 0.9)}


@pytest.mark.parametrize("scorer,name", [("vader", "vader-3.3"), ("model", "tweet-sentiment-lr-1"),
                                         (MyLexicon(), "my-lexicon-2")])
def test_every_text_names_the_runs_scorer(small_path, tmp_path, scorer, name):
    path = tmp_path / "c.db"
    src = open_corpus(small_path)
    src.conn.execute("VACUUM INTO ?", (str(path),))
    src.close()
    c = open_corpus(path)
    c.enrich(scorer=scorer, refit=True, progress=False)
    assert instruments(c)["scorer"] == name
    short = instrument("scorer", name)["short"]
    for where, text in _texts(c).items():
        assert name in text, where
        if where.startswith("plot"):
            assert short in text, where
        for other in NAMES:
            if other != name:
                assert other not in text, (where, other)
        assert "VADER" not in text or name == "vader-3.3", where
    # the API documents describe the fields and name no instrument, so a swap cannot make them wrong
    for interface in ("bearer", "keyed"):
        doc = document_bytes(interface).decode("utf-8")
        assert not [n for n in NAMES + ("VADER", "vader") if n in doc], interface
    paragraph = c.methods()
    assert c.manifest()["records"]["contentDigest"] in paragraph
    if name == "tweet-sentiment-lr-1":
        assert "macro-averaged recall 0.690" in paragraph and "49,486 tweets" in paragraph
    if name == "my-lexicon-2":
        assert "supplied by the researcher" in paragraph
    c.close()


@pytest.fixture(scope="module")
def enriched(small_path, tmp_path_factory):
    path = tmp_path_factory.mktemp("methods") / "enriched.db"
    src = open_corpus(small_path)
    src.conn.execute("VACUUM INTO ?", (str(path),))
    src.close()
    c = open_corpus(path)
    c.enrich(progress=False)
    yield c
    c.close()


def test_the_codebook_says_where_languages_are_detected(enriched):
    text = codebook({"records": COLUMNS["records"]}, enriched.manifest(), "csv", {}, False)
    line = next(x for x in text.splitlines() if x.startswith("| `language` |"))
    assert "detected in enrich by py3langid-0.4-iso639-1" in line and "on import" not in line


def test_the_detector_figures_are_those_docs_record():
    page = (ROOT / "docs" / "languages.md").read_text(encoding="utf-8").replace("\n  ", " ")
    figures, bench = _DETECTOR_FIGURES
    assert figures in page
    assert "benchmarks/bench_language.py" in bench and "benchmarks/bench_language.py" in page


def test_methods_names_every_instrument(enriched):
    text = enriched.methods()
    used = instruments(enriched)
    for role, name in used.items():
        assert name and name in text, role
    assert "Cite corpuskit as:" in text


def test_the_tweet_models_text_states_a_calibration_only_when_it_has_one(monkeypatch):
    import corpuskit.enrich.instruments as inst

    meta = dict(inst._model_json("tweet_sentiment.json"))
    meta.pop("calibration", None)
    monkeypatch.setattr(inst, "_model_json", lambda name: meta)
    plain = inst.instrument("scorer", "tweet-sentiment-lr-1")
    assert plain["what"].endswith("label = the most probable class") and "left out" not in plain["accuracy"]
    meta["calibration"] = {"nested_offsets_worst": 0.6012, "nested_offsets_mean": 0.6634}
    moved = inst.instrument("scorer", "tweet-sentiment-lr-1")
    assert "offsets chosen by leaving one SemEval year out" in moved["what"]
    assert "worst 0.601, mean 0.663" in moved["accuracy"] and "years left out" in moved["benchmark"]
