"""Enrichment steps shaped like estimators; the public defaults are what a run uses; the pipeline
talks to a step only through its base class; EnrichSettings carries a run's options."""
import inspect
import json

import pytest

import corpuskit.enrich as enrich
from corpuskit import open_corpus
from corpuskit.enrich import pipeline
from corpuskit.errors import ValidationError
from tests.test_enrich_pipeline import plain_records

STEPS = [enrich.TweetSentimentScorer, enrich.VaderScorer, enrich.GazetteerExtractor, enrich.SpacyExtractor, enrich.HybridExtractor,
         enrich.TfidfSvdEmbedder, enrich.SentenceTransformerEmbedder, enrich.BeatAssigner]


@pytest.mark.parametrize("cls", STEPS, ids=lambda c: c.__name__)
def test_init_only_stores_declared_parameters(cls):
    step = cls()
    names = [p for p in inspect.signature(cls.__init__).parameters if p != "self"]
    assert step.get_params() == {n: inspect.signature(cls.__init__).parameters[n].default for n in names}
    assert set(vars(step)) == set(names)  # nothing fitted, nothing derived
    assert set(cls._parameter_constraints) == set(names)  # every parameter is declared
    step._validate_params()  # the defaults pass their own constraints


@pytest.mark.parametrize("step, use", [
    (enrich.VaderScorer(max_emoji=-1), lambda s: s.score("a fine day")),
    (enrich.TweetSentimentScorer(batch_size=0), lambda s: s.score("a fine day")),
    (enrich.TweetSentimentScorer(model_dir=3), lambda s: s.fit()),
    (enrich.GazetteerExtractor(rules="yes"), lambda s: s.extract("OpenAI")),
    (enrich.SpacyExtractor(batch_size=0), lambda s: s.extract_many(["OpenAI"])),
    (enrich.HybridExtractor(max_outside=2.0), lambda s: s.fit(["OpenAI"])),
    (enrich.HybridExtractor(min_count=True), lambda s: s.extract("OpenAI")),
    (enrich.TfidfSvdEmbedder(ngram_range=(2, 1)), lambda s: s.fit(["a b c"])),
    (enrich.SentenceTransformerEmbedder(dimensions=-1), lambda s: s.fit()),
    (enrich.BeatAssigner(weights=(1.0, 2.0)), lambda s: s.fit([], [], [], [])),
], ids=lambda v: type(v).__name__ if not callable(v) or isinstance(v, type) else "")
def test_bad_parameters_are_refused_when_fitted_or_first_used(step, use):
    with pytest.raises(ValidationError, match=f"{type(step).__name__}: .+ must be"):
        use(step)


def test_fit_returns_self():
    texts = ["OpenAI and NASA talk about rockets", "Bond yields worry the markets"]
    for step in (enrich.TweetSentimentScorer(), enrich.VaderScorer(), enrich.GazetteerExtractor(), enrich.HybridExtractor(crf=False),
                 enrich.TfidfSvdEmbedder(dimensions=4, min_df=1)):
        assert step.fit(texts) is step
    assigner = enrich.BeatAssigner()
    beats = [enrich.Beat(name="space", display_name="Space", keywords=["rocket"])]
    assert assigner.fit(beats, texts, [None, None], [[1.0, 0.0], [0.0, 1.0]]) is assigner
    assert hasattr(assigner, "centroids_")


def _run_steps(monkeypatch, c, **options):
    """Enrich ``c`` and return the steps the pipeline ran with."""
    seen = {}
    fit_extractor, prepare = pipeline._fit_extractor, pipeline._prepare

    def spy_fit_extractor(corpus, extractor, *args):
        seen["extractor"] = extractor
        return fit_extractor(corpus, extractor, *args)

    def spy_prepare(*args, **kwargs):
        out = prepare(*args, **kwargs)
        seen["embedder"], seen["assigner"] = out[0], out[1]
        return out

    score_and_label_many = enrich.TweetSentimentScorer.score_and_label_many

    def spy_score_many(self, texts):
        seen["scorer"] = self
        return score_and_label_many(self, texts)

    monkeypatch.setattr(pipeline, "_fit_extractor", spy_fit_extractor)
    monkeypatch.setattr(pipeline, "_prepare", spy_prepare)
    monkeypatch.setattr(enrich.TweetSentimentScorer, "score_and_label_many", spy_score_many)
    c.enrich(progress=False, workers=1, **options)
    return seen


def test_defaults_are_what_enrich_uses(monkeypatch):
    c = open_corpus(":memory:")
    c.add_records(plain_records(60))
    seen = _run_steps(monkeypatch, c, seed=5, beats=[{"name": "space", "keywords": ["rocket", "nasa"]}])
    expected = {"scorer": enrich.default_scorer(), "extractor": enrich.default_extractor(),
                "embedder": enrich.default_embedder(5), "assigner": enrich.default_assigner(False)}
    for name, default in expected.items():
        assert type(seen[name]) is type(default), name
        assert seen[name].get_params() == default.get_params(), name
    assert enrich.default_assigner(True).get_params() != enrich.default_assigner(False).get_params()


class CountingExtractor(enrich.GazetteerExtractor):
    """Learns how many texts the corpus holds, through the base-class protocol only."""

    learns_from_corpus = True

    def fit(self, texts, authors=None, days=None):
        self.seen_ = sum(1 for _ in texts)
        return self

    def settings(self):
        return {"seen": self.seen_}

    def restore_fit(self, saved):
        self.restored_ = saved
        return self


def test_pipeline_fits_saves_and_restores_an_extractor_through_its_base_class():
    c = open_corpus(":memory:")
    c.add_records(plain_records(40))
    first = CountingExtractor()
    c.enrich(progress=False, extractor=first)
    assert first.seen_ == 40 and not hasattr(first, "restored_")
    saved = c.conn.execute("SELECT kind, settings FROM models WHERE name = 'entities'").fetchone()
    assert saved["kind"] == first.model_name and json.loads(saved["settings"]) == {"seen": 40}
    c.add_records(plain_records(5, offset=40))
    second = CountingExtractor()
    c.enrich(progress=False, extractor=second)
    assert second.restored_ == {"seen": 40} and not hasattr(second, "seen_")


def test_an_extractor_that_learns_nothing_is_neither_fitted_nor_saved():
    c = open_corpus(":memory:")
    c.add_records(plain_records(20))
    c.enrich(progress=False, extractor="gazetteer")
    assert c.conn.execute("SELECT count(*) FROM models WHERE name = 'entities'").fetchone()[0] == 0


def test_settings_object_and_keywords_give_the_same_run():
    a, b = open_corpus(":memory:"), open_corpus(":memory:")
    for c in (a, b):
        c.add_records(plain_records(30))
    settings = enrich.EnrichSettings(progress=False, chunk_size=7, seed=2)
    pipeline.enrich_corpus(a, settings)
    b.enrich(progress=False, chunk_size=7, seed=2)
    rows = "SELECT record_id, sentiment_score, topic_id, themes FROM enrichment ORDER BY record_id"
    assert [tuple(r) for r in a.conn.execute(rows)] == [tuple(r) for r in b.conn.execute(rows)]
    # keywords replace the fields of a given settings object
    assert enrich.EnrichSettings.of(settings, seed=9) == enrich.EnrichSettings(progress=False, chunk_size=7,
                                                                                seed=9)


@pytest.mark.parametrize("options, error", [
    ({"chunk_size": 0}, "chunk_size must be a positive integer"),
    ({"fit_sample": "all"}, "fit_sample must be a positive integer"),
    ({"workers": 2, "client": "tcp://x"}, "workers and client are exclusive"),
    ({"scorer": object()}, "is not a SentimentScorer"),
    ({"embedder": object()}, "is not a Embedder"),
    ({"assigner": object()}, "is not a BeatAssigner"),
])
def test_settings_refuse_bad_values(options, error):
    with pytest.raises(ValidationError, match=error):
        enrich.EnrichSettings.of(**options)


def test_unknown_option_is_a_type_error():
    with pytest.raises(TypeError, match="colour"):
        pipeline.enrich_corpus(open_corpus(":memory:"), colour="red")
