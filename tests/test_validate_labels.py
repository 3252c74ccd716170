"""corpuskit's labels against gold values: metrics, confusion matrix, and the corrected share,
tested where the true error rates and the true shares are known by construction."""
from __future__ import annotations

import numpy as np
import pytest

from corpuskit.errors import ValidationError
from corpuskit.validate import corrected_shares
from tests.validate_fixture import labelled_corpus

CLASSES = ["negative", "neutral", "positive"]
TRUE_SHARES = [0.25, 0.45, 0.30]
# P(corpuskit says column | truth is row): the scorer over-calls neutral
ERRORS = np.array([[0.70, 0.25, 0.05],
                   [0.10, 0.80, 0.10],
                   [0.05, 0.30, 0.65]])


def _simulated(n=4000, sample=400, seed=11):
    """A corpus whose every record has a true class and a corpuskit label drawn through ERRORS;
    the gold codes of a simple random sample are the true classes."""
    rng = np.random.default_rng(seed)
    truth = rng.choice(3, size=n, p=TRUE_SHARES)
    labels = [CLASSES[rng.choice(3, p=ERRORS[t])] for t in truth]
    corpus = labelled_corpus(n, labels=labels)
    drawn = corpus.sample(sample, seed=seed, name="S", codebook={"variables": {
        "sentiment": {"values": CLASSES, "level": "ordinal"}}})
    ids = [r[0] for r in corpus.conn.execute("SELECT id FROM records ORDER BY id")]
    true_of = dict(zip(ids, truth))
    corpus.add_codes("S", "oracle", {r: {"sentiment": CLASSES[true_of[r]]} for r in drawn.ids()})
    corpus.adjudicate("S")
    true_share = np.bincount(truth, minlength=3) / n
    observed = np.bincount([CLASSES.index(x) for x in labels], minlength=3) / n
    return corpus, true_share, observed


@pytest.fixture(scope="module")
def simulated():
    corpus, true_share, observed = _simulated()
    yield corpus, true_share, observed
    corpus.close()


def test_corrected_share_recovers_the_true_share(simulated):
    corpus, true_share, observed = simulated
    result = corpus.validate("sentiment", sample="S", resamples=400)
    table = result.corrected.set_index("class")
    assert table["observed"].to_numpy() == pytest.approx(observed)
    for i, cls in enumerate(CLASSES):
        assert table.loc[cls, "corrected_low"] <= true_share[i] <= table.loc[cls, "corrected_high"], cls
    # the correction moves every share towards the truth: the naive one is off by far more
    naive_error = np.abs(observed - true_share).sum()
    corrected_error = np.abs(table["corrected"].to_numpy() - true_share).sum()
    assert naive_error > 0.1 and corrected_error < naive_error / 2


def test_metrics_match_the_construction(simulated):
    corpus, _, _ = simulated
    result = corpus.validate("sentiment", sample="S", resamples=200)
    confusion = result.confusion.to_numpy()
    assert confusion.sum() == 400
    rates = confusion / confusion.sum(axis=1, keepdims=True)
    assert np.abs(rates - ERRORS).max() < 0.12                 # the sample sees the built-in error rates
    per_class = result.per_class.set_index("class")
    tp = np.diag(confusion)
    assert per_class["recall"].to_numpy() == pytest.approx(tp / confusion.sum(axis=1))
    assert per_class["precision"].to_numpy() == pytest.approx(tp / confusion.sum(axis=0))
    for name in ("precision", "recall", "f1"):
        assert (per_class[f"{name}_low"] <= per_class[name]).all()
        assert (per_class[name] <= per_class[f"{name}_high"]).all()
    summary = result.summary.set_index("statistic")
    assert summary.loc["macro_f1", "value"] == pytest.approx(per_class["f1"].mean())
    assert summary.loc["accuracy", "value"] == pytest.approx(tp.sum() / 400)
    assert 0.3 < summary.loc["alpha", "value"] < 0.9
    assert result.summary.equals(corpus.validate("sentiment", sample="S", resamples=200).summary)


def test_rogan_gladen_is_the_two_class_case():
    # sensitivity 0.9, specificity 0.8, apparent prevalence 0.3:
    # Rogan-Gladen (0.3 + 0.8 - 1) / (0.9 + 0.8 - 1) = 0.142857...
    gold = [1] * 10 + [0] * 10
    pred = [1] * 9 + [0] + [0] * 8 + [1] * 2
    p = corrected_shares(np.array(gold), np.array(pred), np.array([0.7, 0.3]))
    assert p[1] == pytest.approx((0.3 + 0.8 - 1) / (0.9 + 0.8 - 1))
    # a share the error rates cannot produce is clipped to the simplex, not negative
    p = corrected_shares(np.array(gold), np.array(pred), np.array([0.95, 0.05]))
    assert p[1] == 0.0 and p.sum() == pytest.approx(1.0)
    # a class without a gold example: no correction
    assert np.isnan(corrected_shares(np.array([0, 0]), np.array([0, 1]), np.array([0.5, 0.5]))).all()


def test_validate_errors():
    c = labelled_corpus(60)
    c.sample(10, name="S", codebook={"variables": {"sentiment": ["negative", "neutral", "positive"],
                                                   "tone": ["calm", "angry"]}})
    with pytest.raises(ValidationError, match="kind must be"):
        c.validate("colour", sample="S")
    with pytest.raises(ValidationError, match="no gold values"):
        c.validate("sentiment", sample="S")
    with pytest.raises(ValidationError, match="no variable named entity_type"):
        c.validate("entities", sample="S")
    ids = c.sample(10).ids()
    c.add_codes("S", "a", {i: {"tone": "calm"} for i in ids})
    c.adjudicate("S")
    with pytest.raises(ValidationError, match="does not list"):
        c.validate("sentiment", sample="S", variable="tone")


def test_validate_topics_and_entities_on_demo(demo_path, tmp_path):
    # a copy of the session demo corpus (that one is read-only): topics and entity types validated
    import shutil

    from corpuskit import open_corpus

    shutil.copy(demo_path, tmp_path / "d.db")
    c = open_corpus(tmp_path / "d.db")
    topics = sorted(c.topics()["name"]) + ["none"]
    types = ["person", "org", "product", "place", "concept", "none"]
    s = c.sample(60, by="topic", seed=0, name="S", codebook={"variables": {
        "topic": topics, "entity_type": types}})
    frame = c.records().set_index("id").loc[s.ids()]
    # a coder who agrees with corpuskit's topic except on every fifth record
    codes = {}
    for k, (rid, row) in enumerate(frame.iterrows()):
        topic = row["topic"] if isinstance(row["topic"], str) else "none"
        codes[rid] = {"topic": topic if k % 5 else topics[(topics.index(topic) + 1) % len(topics)],
                      "entity_type": "concept" if isinstance(row["entities"], list) and row["entities"] else "none"}
    c.add_codes("S", "a", codes)
    c.adjudicate("S")
    result = c.validate("topic", sample="S", resamples=100)
    assert result.summary.set_index("statistic").loc["accuracy", "value"] == pytest.approx(0.8)
    entities = c.validate("entities", sample="S", resamples=50)
    assert entities.confusion.to_numpy().sum() == 60
    assert entities.corrected["records"].iloc[0] == c.count()
    c.close()


def test_plot_confusion(simulated):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")  # tests only: the library never selects a backend
    import matplotlib.pyplot as plt

    from corpuskit import plot

    corpus, _, _ = simulated
    result = corpus.validate("sentiment", sample="S", resamples=50)
    ax = plot.confusion(result)
    shown = [t.get_text() for t in ax.texts]
    assert shown == [str(v) for v in result.confusion.to_numpy().ravel()]
    assert [t.get_text() for t in ax.get_yticklabels()] == CLASSES and ax.get_ylabel() == "gold (people)"
    ax = plot.confusion(result, normalise=True)
    rows = np.array([float(t.get_text()) for t in ax.texts]).reshape(3, 3)
    assert rows.sum(axis=1) == pytest.approx([1, 1, 1], abs=0.02)
    with pytest.raises(ValidationError, match="square DataFrame"):
        plot.confusion("not a result")
    plt.close("all")
