"""``benchmarks/bench_sentiment.py --lodo`` on a few SemEval lines of three years and a few airline
tweets: every year is left out once, settings are chosen on the others, the table has the worst,
the mean and the references, and the airline shares are printed with and without EM adjustment.
Skips when ../shared is absent (the tweets are not redistributed)."""
import sys
from pathlib import Path

import numpy as np

from tests.conftest import SHARED_DATASETS, need_shared

SEMEVAL = SHARED_DATASETS / "semeval_sentiment"
AIRLINE = SHARED_DATASETS / "sentiment_more" / "sent_airline" / "Tweets.csv"
BENCH = Path(__file__).resolve().parents[1] / "benchmarks"


def _small_data(tmp_path):
    data = tmp_path / "semeval"
    data.mkdir()
    for name in ("twitter-2013dev-A.txt", "twitter-2015test-A.txt", "twitter-2016dev-A.txt"):
        lines = (SEMEVAL / name).read_text(encoding="utf-8").splitlines()[:120]
        (data / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    airline = tmp_path / "airline.csv"
    lines = AIRLINE.read_text(encoding="utf-8").splitlines()
    airline.write_text("\n".join(lines[:301]) + "\n", encoding="utf-8")
    return data, airline


def test_lodo_command_prints_every_year_the_worst_and_the_shares(tmp_path, capsys):
    need_shared(SEMEVAL / "twitter-2013dev-A.txt")
    need_shared(AIRLINE)
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))
    import bench_sentiment

    data, airline = _small_data(tmp_path)
    assert bench_sentiment.main(["--lodo", "--data", str(data), "--airline", str(airline), "--inner-cap", "80"]) == 0
    out = capsys.readouterr().out
    assert out.count("left out: settings chosen on the other years") == 3
    table = out[out.index("left out  "):out.index("class shares of each year")]
    rows = {line.split()[0]: line for line in table.splitlines() if line[:4] in ("2013", "2015", "2016", "wors", "mean")}
    assert set(rows) == {"2013", "2015", "2016", "worst", "mean"}
    scores = [float(rows[y].split()[2]) for y in ("2013", "2015")]
    assert "time split" in rows["2016"]
    worst = float(rows["worst"].split()[1])
    assert worst <= min(scores) and "RoBERTa-base" in out and "71.3" in out
    assert "evaluation only), shipped model" in out and "resampled mostly neutral" in out
    assert out.count("EM on calibrated probabilities (") == 2 and out.count("the model's labels (argmax with") == 2
    # the labels with offsets chosen on the other years have their own worst and mean
    assert float(rows["worst"].split()[2]) <= min(float(rows[y].split()[6]) for y in ("2013", "2015"))
    assert float(rows["mean"].split()[2]) >= float(rows["worst"].split()[2])
    assert all("balanced" in rows[y] and "; offsets " in rows[y] for y in ("2013", "2015", "2016"))
    assert "EM, bias-corrected temperature" in out and "TV worst / mean" in out


def test_inner_rows_cap_each_other_year():
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))
    from sentiment_lodo import inner_rows

    folds = np.array([2013] * 10 + [2014] * 3 + [2016] * 8)
    rows = inner_rows(folds, 2016, cap=4, seed=1)
    assert sorted(set(folds[rows].tolist())) == [2013, 2014]
    assert (folds[rows] == 2013).sum() == 4 and (folds[rows] == 2014).sum() == 3
    assert np.array_equal(rows, inner_rows(folds, 2016, cap=4, seed=1))
    assert len(inner_rows(folds, 2013, cap=None, seed=1)) == 11


def test_variants_time_split_screen_and_ensemble_of_memoised_members(tmp_path, capsys):
    """``sentiment_variants.py --time-split``: one row per variant, scored on the last year and the airline
    tweets; an ``lr+nblr`` variant's probabilities are the mean of its members' as one fit gives them."""
    need_shared(SEMEVAL / "twitter-2013dev-A.txt")
    need_shared(AIRLINE)
    if str(BENCH) not in sys.path:
        sys.path.insert(0, str(BENCH))
    import sentiment_variants
    from train_sentiment import FoldCache, dense_columns, read_semeval_years, year_folds

    from corpuskit.enrich.tweet_model import CLASSES

    data, airline = _small_data(tmp_path)
    names = ["base", "nblr_C1", "lr+nblr_C0.5,1"]
    assert sentiment_variants.main(["--data", str(data), "--airline", str(airline), "--time-split",
                                    "--variants", *names]) == 0
    out = capsys.readouterr().out
    table = out[out.index("variant  "):]
    rows = {line.split()[0]: line.split()[1:] for line in table.splitlines()[2:] if line.strip()}
    assert set(rows) == set(names) and all(len(v) == 2 for v in rows.values())
    assert all(0 < float(x) <= 100 for v in rows.values() for x in v)

    texts, labels, years = read_semeval_years(data)
    y = np.array([CLASSES.index(label) for label in labels])
    folds = year_folds(texts, years)
    cache = FoldCache(texts, y, folds, splits=[(np.flatnonzero(folds < 2016), np.flatnonzero(folds == 2016))])
    memo: dict = {}
    members = [sentiment_variants.fitted_proba(cache, n, memo)[0] for n in ("base", "nblr_C1")]
    mean = sentiment_variants.fitted_proba(cache, "lr+nblr_C0.5,1", memo)[0]
    feat = sentiment_variants.BASE
    one_fit, = cache.predict_proba(cache.matrices(feat), (0.5, 1.0), "balanced", form="lr+nblr",
                                   n_dense=dense_columns(feat))
    np.testing.assert_allclose(mean, (members[0] + members[1]) / 2)
    np.testing.assert_allclose(mean, one_fit, atol=1e-9)
    assert not np.allclose(members[0], members[1])
