"""The shipped tweet sentiment model: its saved settings and figures, probabilities, labels by argmax,
a floor on labelled text, the default scorer with VADER as an option, and a reproducible training run.

The SemEval tweets may not be redistributed (their README), so nothing from them is committed: the
tests that read them find them in ../shared/datasets and skip when absent."""
from pathlib import Path

import numpy as np
import pytest

import corpuskit.enrich as enrich
from corpuskit import open_corpus
from corpuskit.enrich.tweet_model import CLASSES, INFO_FILE, MODEL_FILE, TweetSentimentScorer, load_info
from corpuskit.errors import ValidationError
from tests.conftest import SHARED_DATASETS, need_shared

SEMEVAL = SHARED_DATASETS / "semeval_sentiment"
MODELS = Path(enrich.__file__).parent / "models"

# Written for this test (not from any dataset): plain, unambiguous English.
OWN = [
    ("I love this new phone, the camera is amazing!", "positive"),
    ("Best concert of my life, thank you so much", "positive"),
    ("What a beautiful morning, so happy right now :)", "positive"),
    ("Congratulations to the whole team, great win tonight", "positive"),
    ("This update is fantastic, everything runs faster", "positive"),
    ("So excited to see you all tomorrow!", "positive"),
    ("I hate waiting in this line, worst service ever", "negative"),
    ("The game was a total disaster, so disappointed", "negative"),
    ("My flight got cancelled again. This is awful", "negative"),
    ("Terrible movie, boring and way too long", "negative"),
    ("I'm sick and tired of these stupid ads", "negative"),
    ("Sad news today, he will be missed", "negative"),
    ("The meeting is scheduled for Tuesday at 3pm", "neutral"),
    ("The store opens at 9 on Saturday", "neutral"),
    ("Apple will release the new iPad in October", "neutral"),
    ("The match starts at 8pm on channel 4", "neutral"),
    ("Parliament votes on the budget bill next week", "neutral"),
    ("The report covers sales from January to March", "neutral"),
]


def test_shipped_model_is_small_and_records_how_it_was_chosen():
    assert (MODELS / MODEL_FILE).stat().st_size < 10_000_000
    info = load_info()
    assert info["classes"] == list(CLASSES)
    assert "cross-validation" in info["chosen_by"] and "5-fold" in info["chosen_by"]
    assert info["cv_figures"]["macro_recall"] >= 0.65  # the target, met in cross-validation
    assert set(info["cv_figures"]["per_class"]) == set(CLASSES)
    assert sum(map(sum, info["cv_figures"]["confusion"])) == info["tweets"]
    tried = {(str(t["features"]), str(t["classifier"])) for t in info["search"]}
    assert len(tried) == len(info["search"]) >= 5  # the search is recorded, each setting once
    chosen = max(info["search"], key=lambda t: t["cv"]["macro_recall"])
    assert chosen["cv"] == info["cv_figures"]
    scorer = TweetSentimentScorer().fit()
    assert scorer.featurizer_.settings() == info["featurizer"]
    assert scorer.coef_.shape == (info["n_features"], len(CLASSES))
    assert scorer.featurizer_.n_features_ == info["n_features"]


def test_probabilities_scores_and_labels_agree():
    scorer = TweetSentimentScorer()
    texts = [t for t, _ in OWN] + ["", "   ", None, "ok"]
    p = scorer.predict_proba(texts)
    assert p.shape == (len(texts), 3)
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    assert (p >= 0).all()
    scores, labels = scorer.score_and_label_many(texts)
    np.testing.assert_allclose(scores, p[:, 2] - p[:, 0])
    assert ((-1 <= scores) & (scores <= 1)).all()
    assert labels == [CLASSES[i] for i in p.argmax(axis=1)]  # argmax, not a cut on the score
    assert scores[len(OWN)] == 0.0 and labels[len(OWN):len(OWN) + 3] == ["neutral"] * 3
    assert scorer.score(OWN[0][0]) == pytest.approx(scores[0])
    np.testing.assert_allclose(scorer.score_many(texts), scores)


def test_floor_on_own_sentences():
    _, labels = TweetSentimentScorer().score_and_label_many([t for t, _ in OWN])
    right = sum(a == b for a, (_, b) in zip(labels, OWN))
    assert right >= 15, list(zip(labels, OWN))  # 18 sentences, three classes


def test_floor_on_labelled_tweets():
    """A floor on 600 labelled tweets of one file. The shipped model was fitted on all of them, so
    this checks the loaded model works as saved; the cross-validated figure is its quality."""
    from train_sentiment import figures, read_semeval

    need_shared(SEMEVAL / "twitter-2016devtest-A.txt")
    texts, labels = read_semeval(SEMEVAL)
    rng = np.random.default_rng(3)
    pick = rng.permutation(len(texts))[:600]
    _, predicted = TweetSentimentScorer().score_and_label_many([texts[i] for i in pick])
    fig = figures([CLASSES.index(labels[i]) for i in pick], [CLASSES.index(p) for p in predicted])
    assert fig["macro_recall"] >= 0.75


def test_vader_also_reads_probabilities_through_the_base():
    vader = enrich.VaderScorer()
    scores, labels = vader.score_and_label_many(["I love it", "I hate it", "It is Tuesday"])
    assert labels == ["positive", "negative", "neutral"]
    with pytest.raises(NotImplementedError, match="VaderScorer gives no class probabilities"):
        vader.predict_proba(["x"])


def test_english_only():
    assert TweetSentimentScorer.languages == frozenset({"en"}) == enrich.VaderScorer.languages


def test_non_english_is_null_and_counted_not_scored():
    """Records the model does not cover (a given language other than English) get a NULL score and
    label and are counted as skipped; English records (given or detected) carry the model's labels."""
    c = open_corpus(":memory:")
    texts = [("I love this, what a wonderful day!", "en"), ("Me encanta este día maravilloso", "es"),
             ("Das ist eine schreckliche Nachricht", "de"), ("Worst service ever, so angry", "und")]
    c.add_records([{"source": "news", "contentText": t, "language": lang, "publishedAt": f"2021-03-0{i + 1}"}
                   for i, (t, lang) in enumerate(texts)])
    summary = c.enrich(progress=False, workers=1, beats=[{"name": "news", "keywords": ["day"]}])
    rows = c.conn.execute("SELECT r.language, e.sentiment_score, e.sentiment_label FROM enrichment e "
                          "JOIN records r ON r.id = e.record_id ORDER BY r.id").fetchall()
    assert [r[0] for r in rows] == ["en", "es", "de", "en"]  # the undetermined one is detected as English
    assert [(r[1], r[2]) for r in rows[1:3]] == [(None, None), (None, None)]
    assert rows[0][2] == "positive" and rows[0][1] > 0 and rows[3][2] == "negative" and rows[3][1] < 0
    assert summary["skipped"]["sentiment"] == 2
    assert c.manifest()["languages"]["skipped"]["sentiment"] == 2


def test_default_scorer_and_named_options():
    assert isinstance(enrich.default_scorer(), TweetSentimentScorer)
    assert isinstance(enrich.make_scorer(None), TweetSentimentScorer)
    assert isinstance(enrich.make_scorer("model"), TweetSentimentScorer)
    assert isinstance(enrich.make_scorer("vader"), enrich.VaderScorer)
    mine = enrich.VaderScorer(max_chars=50)
    assert enrich.make_scorer(mine) is mine
    with pytest.raises(ValidationError, match="scorer must be one of"):
        enrich.make_scorer("roberta")
    with pytest.raises(ValidationError, match="is not a SentimentScorer"):
        enrich.make_scorer(object())


def test_missing_model_folder_says_how_to_train(tmp_path):
    with pytest.raises(ValidationError, match="python tools/train_sentiment.py"):
        TweetSentimentScorer(model_dir=str(tmp_path)).fit()


def _small_corpus():
    c = open_corpus(":memory:")
    texts = ["I love this, what a wonderful launch!", "This is a terrible, awful mess.",
             "The committee meets on Tuesday.", "Great news for the team, so happy",
             "Worst day ever, everything broke", "The report lists the figures for March."]
    c.add_records([{"source": "news", "contentText": f"{t} ({i})", "publishedAt": f"2021-03-{1 + i % 20:02d}"}
                   for i, t in enumerate(texts * 5)])
    return c


@pytest.mark.parametrize("option, model", [(None, TweetSentimentScorer.model_name), ("model",
                                           TweetSentimentScorer.model_name), ("vader", "vader-3.3")])
def test_enrich_stores_the_chosen_scorer_and_manifest_names_it(option, model):
    c = _small_corpus()
    c.enrich(progress=False, workers=1, scorer=option,
             beats=[{"name": "news", "keywords": ["report", "launch"]}])
    rows = c.conn.execute("SELECT r.content_text, e.sentiment_score, e.sentiment_label FROM enrichment e "
                          "JOIN records r ON r.id = e.record_id ORDER BY r.id").fetchall()
    texts = [r[0] for r in rows]
    scorer = enrich.make_scorer(option)
    scores, labels = scorer.score_and_label_many(texts)
    assert [r[2] for r in rows] == labels
    np.testing.assert_allclose([r[1] for r in rows], np.round(scores, 4))
    assert {r[2] for r in rows} == {"positive", "negative", "neutral"}
    assert c.manifest()["stages"]["enrich"]["settings"]["scorer"] == model


def _two_years_sample(tmp_path):
    """250 tweets of SemEval 2013 dev and of 2016 dev in a folder, as the training command reads them."""
    need_shared(SEMEVAL / "twitter-2013dev-A.txt")
    data = tmp_path / "data"
    data.mkdir()
    for name in ("twitter-2013dev-A.txt", "twitter-2016dev-A.txt"):
        lines = (SEMEVAL / name).read_text(encoding="utf-8").splitlines()[:250]
        (data / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return data


def test_training_reproduces_its_model(tmp_path):
    """Two runs of the training command on the same data write byte-identical models that load."""
    from train_sentiment import main

    data = _two_years_sample(tmp_path)
    args = ["--folds", "3", "--features", '[{"word_ngrams": [1, 2], "char_ngrams": [2, 4], "negation": true, '
            '"lexicon": true}]', "--lexicon-weights", "0.3", "--C", "1.0", "2.0", "--class-weights", "balanced"]
    outs = []
    for run in ("a", "b"):
        assert main([str(data), "--out", str(tmp_path / run), *args]) == 0
        outs.append(((tmp_path / run / MODEL_FILE).read_bytes(), (tmp_path / run / INFO_FILE).read_text()))
    assert outs[0] == outs[1]
    info = load_info(tmp_path / "a")
    assert info["features"]["char_ngrams"] == [2, 4] and info["classifier"]["C"] in (1.0, 2.0)
    assert len(info["search"]) == 2
    p = TweetSentimentScorer(model_dir=str(tmp_path / "a")).predict_proba(["good", "bad"])
    np.testing.assert_allclose(p.sum(axis=1), 1.0)


def test_training_can_choose_by_leaving_a_year_out(tmp_path):
    """``--select years``: each SemEval year held out once, the chosen setting has the best mean."""
    from train_sentiment import main

    data = _two_years_sample(tmp_path)
    args = ["--select", "years", "--features", '[{"word_ngrams": [1, 2], "char_ngrams": null, "negation": true, '
            '"lexicon": true}]', "--lexicon-weights", "0.3", "--C", "0.1", "1.0", "--class-weights", "balanced"]
    assert main([str(data), "--out", str(tmp_path / "m"), *args]) == 0
    info = load_info(tmp_path / "m")
    assert info["chosen_by"].startswith("leave one SemEval year out (2013, 2016")
    assert all(len(t["cv"]["per_split"]) == 2 for t in info["search"])
    best = max(info["search"], key=lambda t: t["cv"]["mean_split"])
    assert best["classifier"] == {k: v for k, v in info["classifier"].items() if k != "kind"}


def test_year_folds_put_a_repeated_text_in_its_earliest_year():
    from train_sentiment import year_folds, year_splits

    folds = year_folds(["Good day!", "rain again", "good day!!", "new phone"], [2016, 2013, 2013, 2015])
    assert folds.tolist() == [2013, 2013, 2013, 2015]
    splits = year_splits(folds)
    assert [(a.tolist(), b.tolist()) for a, b in splits] == [([3], [0, 1, 2]), ([0, 1, 2], [3])]


def test_training_refuses_a_folder_without_data(tmp_path):
    from train_sentiment import read_semeval

    with pytest.raises(FileNotFoundError, match="no twitter"):
        read_semeval(tmp_path)


@pytest.mark.parametrize("option, model", [([], TweetSentimentScorer.model_name),
                                           (["--sentiment", "vader"], "vader-3.3")])
def test_cli_sentiment_option(tmp_path, capsys, option, model):
    from corpuskit.cli import main

    db = str(tmp_path / "c.db")
    c = open_corpus(db)
    c.add_records([{"source": "news", "contentText": f"A wonderful, happy day number {i}",
                    "publishedAt": f"2021-03-{1 + i:02d}"} for i in range(12)])
    c.close()
    assert main(["enrich", "--db", db, "--quiet", *option]) == 0
    capsys.readouterr()
    c = open_corpus(db)
    assert c.manifest()["stages"]["enrich"]["settings"]["scorer"] == model
    assert {r[0] for r in c.conn.execute("SELECT sentiment_label FROM enrichment")} == {"positive"}
    c.close()
    with pytest.raises(SystemExit):
        main(["enrich", "--db", db, "--sentiment", "roberta"])


def _model_with(tmp_path, calibration):
    """A copy of the shipped model whose metadata carries ``calibration`` (None: no entry)."""
    import json
    import shutil

    folder = tmp_path / "model"
    folder.mkdir(parents=True)
    shutil.copy(MODELS / MODEL_FILE, folder / MODEL_FILE)
    info = load_info()
    info.pop("calibration", None)
    if calibration is not None:
        info["calibration"] = calibration
    (folder / INFO_FILE).write_text(json.dumps(info), encoding="utf-8")
    return str(folder)


def test_labels_follow_the_models_offsets_and_calibration(tmp_path):
    texts = [t for t, _ in OWN] + ["so so", "ok then", "meh", "not bad", ""]
    plain = TweetSentimentScorer(model_dir=_model_with(tmp_path / "a", None))
    p = plain.predict_proba(texts)
    assert plain.score_and_label_many(texts)[1] == [CLASSES[i] for i in p.argmax(axis=1)]
    np.testing.assert_array_equal(plain.calibrate_proba(p), p)
    np.testing.assert_allclose(plain.calibrated_priors(), plain.training_priors())
    cal = {"offsets": [0.0, 2.0, 0.0], "temperature": 2.0, "bias": [0.3, -0.2, 0.0], "priors": [0.2, 0.5, 0.3]}
    moved = TweetSentimentScorer(model_dir=_model_with(tmp_path / "b", cal))
    np.testing.assert_allclose(moved.predict_proba(texts), p)  # probabilities and scores are the model's own
    scores, labels = moved.score_and_label_many(texts)
    np.testing.assert_allclose(scores, p[:, 2] - p[:, 0])
    logp = np.log(np.clip(p, 1e-12, None))  # an empty text is certainly neutral: log 0 read as log 1e-12
    expected = [CLASSES[i] for i in (logp + [0.0, 2.0, 0.0]).argmax(axis=1)]
    assert labels == expected and labels.count("neutral") > list(p.argmax(axis=1)).count(1)
    assert labels[-1] == "neutral"
    z = logp / 2.0 + [0.3, -0.2, 0.0]
    np.testing.assert_allclose(moved.calibrate_proba(p), np.exp(z) / np.exp(z).sum(axis=1, keepdims=True), atol=1e-9)
    np.testing.assert_allclose(moved.calibrated_priors(), [0.2, 0.5, 0.3])


def test_calibration_by_leaving_a_year_out_is_recorded(tmp_path):
    """By default a trained model has no calibration; ``--calibrate-only`` rewrites its metadata with
    offsets, temperature and the per-year figures (the arrays stay as they were), as ``--calibrate
    years`` writes them at training."""
    from train_sentiment import main

    data = _two_years_sample(tmp_path)
    args = ["--features", '[{"word_ngrams": [1, 2], "char_ngrams": null, "negation": true, "lexicon": true}]',
            "--lexicon-weights", "0.3", "--C", "1.0", "--class-weights", "balanced", "--folds", "3"]
    assert main([str(data), "--out", str(tmp_path / "m"), *args]) == 0
    assert "calibration" not in load_info(tmp_path / "m")
    arrays = (tmp_path / "m" / MODEL_FILE).read_bytes()
    assert main([str(data), "--out", str(tmp_path / "m"), "--calibrate-only"]) == 0
    cal = load_info(tmp_path / "m")["calibration"]
    assert (tmp_path / "m" / MODEL_FILE).read_bytes() == arrays
    assert set(cal["years"]) == {"2013", "2016"} and len(cal["offsets"]) == 3 and cal["offsets"][1] == 0
    assert cal["temperature"] > 0 and np.isclose(sum(cal["priors"]), 1.0)
    for key in ("argmax", "offsets", "nested_offsets"):
        assert cal[f"{key}_worst"] == min(v[key] for v in cal["years"].values())
    # offsets fitted on both years are at least as good on their mean as none at all
    assert cal["offsets_mean"] >= cal["argmax_mean"]
    assert main([str(data), "--out", str(tmp_path / "n"), "--calibrate", "years", *args]) == 0  # the same way
    assert load_info(tmp_path / "n")["calibration"] == cal
    scorer = TweetSentimentScorer(model_dir=str(tmp_path / "m")).fit()
    np.testing.assert_allclose(scorer.offsets_, cal["offsets"])


def test_squeeze_and_placeholders_change_only_their_own_reading():
    """``squeeze`` cuts letter runs to two, ``placeholders`` gives links and @handles a word; both off by
    default, and neither key is saved when off (a model trained without them loads as it was)."""
    from corpuskit.enrich.tweet_features import URL_TOKEN, USER_TOKEN, TweetFeaturizer, squeeze

    assert squeeze("sooo goooood, cool!!") == "soo good, cool!!"
    text = "@amy sooo goooood, see http://example.com/a"
    plain_words, _, plain_dense = TweetFeaturizer(vader=False).parts([text])
    words, chars, dense = TweetFeaturizer(vader=False, squeeze=True, placeholders=True).parts([text])
    assert {USER_TOKEN, URL_TOKEN, "good", "soo good"} <= set(words[0])
    assert not {USER_TOKEN, URL_TOKEN, "good"} & set(plain_words[0])
    assert " good" in chars[0] and " gooo" not in chars[0]
    # "goood" reads as "good" in the lexicon once squeezed: one more positive word; the rest unchanged
    assert dense[0][4] == plain_dense[0][4] + 1
    _, _, marked_only = TweetFeaturizer(vader=False, placeholders=True).parts([text])
    np.testing.assert_array_equal(marked_only, plain_dense)
    assert "squeeze" not in TweetFeaturizer().settings() and "placeholders" not in TweetFeaturizer().settings()
    on = TweetFeaturizer(squeeze=True, placeholders=True).settings()
    assert on["squeeze"] is True and on["placeholders"] is True
    assert TweetFeaturizer(**on).settings() == on


def test_sqrt_balanced_class_weights_are_half_way_to_balanced():
    from train_sentiment import class_weights_of

    y = np.array([0] * 10 + [1] * 40 + [2] * 50)
    w = class_weights_of("sqrt_balanced", y)
    np.testing.assert_allclose([w[0], w[1], w[2]], np.sqrt(100 / (3 * np.array([10, 40, 50]))))
    assert class_weights_of("balanced", y) == "balanced" and class_weights_of(None, y) is None


def test_threads_scoring_at_once_load_the_model_once(monkeypatch):
    """Scorers shared by a local Dask cluster's threads: the model is read once, and no thread scores
    before the whole model is in place (reading it in two threads at once also tripped CPython 3.11's
    AST recursion check inside numpy's header parser)."""
    import threading
    import time

    import corpuskit.enrich.tweet_model as tweet_model

    reads, real_load = [], np.load

    def slow_load(*args, **kwargs):
        reads.append(threading.get_ident())
        time.sleep(0.2)
        return real_load(*args, **kwargs)

    monkeypatch.setattr(tweet_model.np, "load", slow_load)
    monkeypatch.setattr(tweet_model, "_READ", {})  # as in a fresh process: no scorer read the model yet
    scorer, start, results = TweetSentimentScorer(), threading.Barrier(6), []

    def score():
        start.wait()
        results.append(scorer.score_and_label_many(["what a lovely day", "this is awful"]))

    threads = [threading.Thread(target=score) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(reads) == 1
    assert len(results) == 6
    for scores, labels in results:
        assert np.array_equal(scores, results[0][0]) and list(labels) == list(results[0][1])


def test_a_rewritten_model_file_is_read_again(tmp_path):
    """Scorers share the arrays of a model file they read alike; a file rewritten in place (a
    retrained model) is read anew, not served from what an earlier scorer read."""
    folder = _model_with(tmp_path, None)
    texts = ["what a lovely day", "this is awful", "meh"]
    first = TweetSentimentScorer(model_dir=folder)
    before = first.predict_proba(texts)
    with np.load(Path(folder) / MODEL_FILE) as arrays:
        state = {k: arrays[k] for k in arrays.files}
    state["coef"] = -state["coef"]  # the same file, the same size, other weights
    with open(Path(folder) / MODEL_FILE, "wb") as fh:
        np.savez_compressed(fh, **state)
    after = TweetSentimentScorer(model_dir=folder).predict_proba(texts)
    assert not np.allclose(after, before)
    np.testing.assert_array_equal(first.predict_proba(texts), before)  # the first scorer keeps its model
    again = TweetSentimentScorer(model_dir=folder)
    again._load()
    assert not again.coef_.flags.writeable  # shared arrays cannot be changed under another scorer


def test_nb_log_count_ratios_by_hand():
    from nb_logistic import log_count_ratios

    # columns 0-1 counts, column 2 a dense cue (kept unscaled); presence, not counts, is summed
    x = np.array([[1.0, 0.0, -2.0], [0.0, 1.0, 0.5], [3.0, 1.0, 0.0]])
    r = log_count_ratios(x, np.array([0, 1, 1]), 2, n_sparse=2)
    # class 0: p = 1 + [1, 0], q = 1 + [1, 2]; r = log((p / 3) / (q / 5))
    np.testing.assert_allclose(r[0], [np.log(5 / 3), np.log(5 / 9), 1.0])
    # class 1: p = 1 + [1, 2], q = 1 + [1, 0]
    np.testing.assert_allclose(r[1], [np.log(3 / 5), np.log(9 / 5), 1.0])


def test_nb_logistic_folds_its_ratios_into_the_weights():
    import scipy.sparse as sp
    from nb_logistic import NBLogistic, log_count_ratios
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(3)
    y = np.repeat([0, 1, 2], 30)
    x = rng.poisson(0.3, size=(90, 12)).astype(float)
    x[np.arange(90), y] += 2  # each class has a word of its own
    x = np.hstack([x, rng.normal(size=(90, 2))])
    model = NBLogistic(C=0.7, n_sparse=12).fit(sp.csr_matrix(x), y)
    p = model.predict_proba(sp.csr_matrix(x))
    r = log_count_ratios(x, y, 3, 12)
    # the one-vs-rest models fitted on the scaled inputs, read by hand
    raw = np.column_stack([LogisticRegression(C=0.7, class_weight="balanced", max_iter=2000, tol=1e-3)
                           .fit(x * r[k], (y == k).astype(int)).predict_proba(x * r[k])[:, 1] for k in range(3)])
    np.testing.assert_allclose(p, raw / raw.sum(axis=1, keepdims=True), rtol=1e-6)
    assert (p.argmax(axis=1) == y).mean() > 0.9


def test_ensemble_form_is_the_mean_of_both_models():
    import scipy.sparse as sp
    from train_sentiment import _fit_predict

    rng = np.random.default_rng(5)
    y = np.repeat([0, 1, 2], 20)
    x = sp.csr_matrix(rng.poisson(0.5, size=(60, 9)).astype(float))
    lr = _fit_predict(x, y, x, 0.5, "balanced", "lr")
    nb = _fit_predict(x, y, x, 0.2, "balanced", "nblr", n_dense=0)
    np.testing.assert_allclose(_fit_predict(x, y, x, (0.5, 0.2), "balanced", "lr+nblr"), (lr + nb) / 2)
    assert not np.allclose(lr, nb)
    with pytest.raises(ValueError, match="unknown model form"):
        _fit_predict(x, y, x, 0.5, "balanced", "svm")
