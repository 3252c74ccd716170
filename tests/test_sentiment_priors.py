"""EM prior adjustment (Saerens, Latinne, Decaestecker 2002): it recovers known class priors from
unlabelled, calibrated probabilities; it leaves a corpus that already has the training priors alone;
it refuses malformed input; the shipped model states the priors it is calibrated to."""
import numpy as np
import pytest

from corpuskit.enrich.priors import adjust_posteriors, em_priors, labels_for_priors
from corpuskit.errors import ValidationError

MEANS = np.array([-1.5, 0.0, 1.5])  # three classes, one Gaussian each (unit spread) on a line


def _posteriors(x, priors):
    """Exact class posteriors of points ``x`` under ``priors`` (the Bayes classifier)."""
    like = np.exp(-0.5 * (x[:, None] - MEANS[None, :]) ** 2)
    joint = like * priors
    return joint / joint.sum(axis=1, keepdims=True)


def _corpus(priors, n, seed):
    rng = np.random.default_rng(seed)
    y = rng.choice(3, size=n, p=priors)
    return rng.normal(MEANS[y], 1.0), y


@pytest.mark.parametrize("true", [(0.15, 0.70, 0.15), (0.6, 0.25, 0.15), (0.05, 0.35, 0.6)])
def test_recovers_known_priors(true):
    train = np.full(3, 1 / 3)  # the classifier was trained on balanced classes
    x, y = _corpus(true, 20_000, seed=5)
    proba = _posteriors(x, train)
    fit = em_priors(proba, train)
    observed = np.bincount(y, minlength=3) / len(y)
    np.testing.assert_allclose(fit.priors, observed, atol=0.02)
    np.testing.assert_allclose(fit.priors.sum(), 1.0)
    # without adjustment, counting argmax labels is far off on these overlapping classes
    plain = np.bincount(proba.argmax(axis=1), minlength=3) / len(y)
    assert np.abs(plain - observed).sum() > 2 * np.abs(fit.priors - observed).sum()
    # the adjusted posteriors are the Bayes posteriors under the corpus's priors
    np.testing.assert_allclose(fit.posteriors, _posteriors(x, fit.priors), atol=1e-9)
    assert fit.iterations > 1
    # labels matched to the estimated priors: their counts are the estimate
    labels = labels_for_priors(fit.posteriors, fit.priors)
    np.testing.assert_allclose(np.bincount(labels, minlength=3) / len(y), fit.priors, atol=3 / len(y))


def test_training_priors_stay_put():
    train = np.array([0.2, 0.5, 0.3])
    x, _ = _corpus(train, 30_000, seed=9)
    fit = em_priors(_posteriors(x, train), train)
    np.testing.assert_allclose(fit.priors, train, atol=0.02)


def test_deterministic_and_empty():
    train = np.full(3, 1 / 3)
    x, _ = _corpus((0.3, 0.5, 0.2), 2000, seed=1)
    proba = _posteriors(x, train)
    a, b = em_priors(proba, train), em_priors(proba, train)
    assert np.array_equal(a.priors, b.priors) and a.iterations == b.iterations
    empty = em_priors(np.zeros((0, 3)), train)
    np.testing.assert_allclose(empty.priors, train)
    assert empty.iterations == 0


def test_adjust_posteriors_rows_sum_to_one():
    p = np.array([[0.2, 0.3, 0.5], [1.0, 0.0, 0.0]])
    out = adjust_posteriors(p, np.full(3, 1 / 3), np.array([0.1, 0.8, 0.1]))
    np.testing.assert_allclose(out.sum(axis=1), 1.0)
    assert out[0, 1] > p[0, 1] and out[1, 0] == 1.0


@pytest.mark.parametrize("proba,train", [(np.ones((3, 2)) / 2, np.full(3, 1 / 3)),
                                         (np.ones((3, 3)) / 3, np.array([0.5, 0.5, 0.5])),
                                         (np.ones((3, 3)) / 3, np.array([0.0, 0.5, 0.5]))])
def test_refuses_malformed_input(proba, train):
    with pytest.raises(ValidationError):
        em_priors(proba, train)


def test_shipped_model_states_its_training_priors():
    from corpuskit.enrich.tweet_model import CLASSES, TweetSentimentScorer

    scorer = TweetSentimentScorer().fit()
    priors = scorer.training_priors()
    assert priors.shape == (len(CLASSES),) and np.isclose(priors.sum(), 1.0)
    if scorer.info_["classifier"]["class_weight"] == "balanced":
        np.testing.assert_allclose(priors, 1 / 3)


def test_training_priors_follow_the_class_weighting():
    """Balanced weights: thirds; square-root balanced: in proportion to sqrt(count); none: the shares
    (the benchmark's ``training_priors`` agrees with the scorer's)."""
    import sys
    from pathlib import Path

    from corpuskit.enrich.tweet_model import CLASSES, TweetSentimentScorer

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from sentiment_lodo import training_priors

    scorer = TweetSentimentScorer().fit()
    counts = {"negative": 100, "neutral": 400, "positive": 900}
    y = np.repeat(np.arange(3), [counts[c] for c in CLASSES])
    expected = {"balanced": np.full(3, 1 / 3), "sqrt_balanced": np.array([10, 20, 30]) / 60,
                None: np.array([100, 400, 900]) / 1400}
    for weighting, want in expected.items():
        scorer.info_ = {**scorer.info_, "class_counts": counts,
                        "classifier": {**scorer.info_["classifier"], "class_weight": weighting}}
        np.testing.assert_allclose(scorer.training_priors(), want)
        np.testing.assert_allclose(training_priors(y, weighting), want)


@pytest.fixture(scope="module")
def small_path(tmp_path_factory):
    from corpuskit import open_corpus
    from corpuskit.demo import build_demo

    path = tmp_path_factory.mktemp("priors") / "small.db"
    c = open_corpus(path)
    build_demo(c, seed=3, records=400, days=28, run_stages=False, progress=False)
    c.close()
    return path


def _enriched_copy(small_path, target, **options):
    from corpuskit import open_corpus

    src = open_corpus(small_path)
    src.conn.execute("VACUUM INTO ?", (str(target),))
    src.close()
    c = open_corpus(target)
    c.enrich(progress=False, **options)
    return c


def _labels(c):
    return dict(c.conn.execute("SELECT record_id, sentiment_label FROM enrichment "
                               "WHERE sentiment_label IS NOT NULL ORDER BY record_id").fetchall())


def test_enrich_adjusts_labels_to_the_corpus_priors_and_says_so(small_path, tmp_path):
    from corpuskit.enrich.corpus_priors import latest_adjustment
    from corpuskit.enrich.tweet_model import CLASSES

    plain = _enriched_copy(small_path, tmp_path / "plain.db")
    adjusted = _enriched_copy(small_path, tmp_path / "adjusted.db", sentiment_priors="corpus")
    run_id, note, last = latest_adjustment(adjusted.conn)
    assert last and note["applied"] and note["records"] == len(_labels(adjusted))
    labels = _labels(adjusted)
    counts = {c: sum(1 for v in labels.values() if v == c) for c in CLASSES}
    for c in CLASSES:  # the label shares a researcher counts are the estimated priors
        assert abs(counts[c] - note["priors"][c] * len(labels)) <= 3, (c, counts, note)
    before = _labels(plain)
    assert sum(labels[i] != before[i] for i in labels) == note["changed"] > 0
    assert {c: round(sum(v == c for v in before.values()) / len(before), 4) for c in CLASSES} == note["unadjusted"]
    scores = "SELECT record_id, sentiment_score FROM enrichment ORDER BY record_id"
    assert adjusted.conn.execute(scores).fetchall() == plain.conn.execute(scores).fetchall()
    assert "EM prior adjustment" in adjusted.methods() and "EM prior adjustment" not in plain.methods()
    assert adjusted.manifest()["stages"]["enrich"]["settings"]["sentiment_priors"] == "corpus"
    assert "sentiment_priors" not in plain.manifest()["stages"]["enrich"]["settings"]
    plain.close()
    adjusted.close()


@pytest.mark.parametrize("options", [{"sentiment_priors": "uniform"},
                                     {"sentiment_priors": "corpus", "scorer": "vader"}])
def test_enrich_refuses_what_cannot_be_adjusted(small_path, tmp_path, options):
    with pytest.raises(ValidationError):
        _enriched_copy(small_path, tmp_path / "x.db", refit=True, **options)


def test_cli_sentiment_priors_option(small_path, tmp_path, capsys):
    from corpuskit import open_corpus
    from corpuskit.cli import main
    from corpuskit.enrich.corpus_priors import latest_adjustment

    src = open_corpus(small_path)
    src.conn.execute("VACUUM INTO ?", (str(tmp_path / "c.db"),))
    src.close()
    assert main(["enrich", "--db", str(tmp_path / "c.db"), "--sentiment-priors", "corpus"]) == 0
    c = open_corpus(tmp_path / "c.db")
    assert latest_adjustment(c.conn)[2] is True
    c.close()


class _Calibrated:
    """The shipped model with a calibration that makes every text look neutral, priors stated."""

    def __init__(self):
        from corpuskit.enrich.tweet_model import TweetSentimentScorer

        self.inner = TweetSentimentScorer().fit()

    def predict_proba(self, texts):
        return self.inner.predict_proba(texts)

    def training_priors(self):
        return self.inner.training_priors()

    def calibrate_proba(self, proba):
        p = np.asarray(proba) * [0.05, 1.0, 0.05]
        return p / p.sum(axis=1, keepdims=True)

    def calibrated_priors(self):
        return np.array([0.25, 0.5, 0.25])

    def labels_of(self, proba):
        return np.asarray(proba).argmax(axis=1)


def test_adjustment_reads_the_calibrated_probabilities(small_path, tmp_path):
    from corpuskit.enrich.corpus_priors import adjust_to_corpus_priors

    c = _enriched_copy(small_path, tmp_path / "cal.db")
    raw = adjust_to_corpus_priors(c, _Calibrated().inner, "r1")
    cal = adjust_to_corpus_priors(c, _Calibrated(), "r2")
    assert raw["trainingPriors"] == {"negative": 0.3333, "neutral": 0.3333, "positive": 0.3333}
    assert cal["trainingPriors"] == {"negative": 0.25, "neutral": 0.5, "positive": 0.25}
    # neutral is favoured 20:1 by the calibration, against 2:1 by its stated priors: EM finds a mostly neutral corpus
    assert cal["priors"]["neutral"] > max(0.8, raw["priors"]["neutral"] + 0.2)
    c.close()
