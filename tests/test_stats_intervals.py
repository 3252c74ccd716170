"""Intervals against published values and their defining properties."""
import numpy as np
import pandas as pd
import pytest

from corpuskit.errors import ValidationError
from corpuskit.stats.intervals import bootstrap_interval, mean_interval, poisson_interval, wilson_interval


def test_poisson_interval_matches_garwood_tables():
    # Garwood (1936) / Ulm (1990) exact 95% limits: k=0 -> (0, 3.689), k=5 -> (1.623, 11.668)
    low, high = poisson_interval(0)
    assert low == 0.0 and high == pytest.approx(3.689, abs=1e-3)
    low, high = poisson_interval(5)
    assert (low, high) == (pytest.approx(1.623, abs=1e-3), pytest.approx(11.668, abs=1e-3))


def test_poisson_interval_is_elementwise_and_contains_the_count():
    counts = np.array([0, 1, 10, 1000])
    low, high = poisson_interval(counts)
    assert low.shape == (4,) and np.all(low <= counts) and np.all(counts <= high)
    wide, _ = poisson_interval(10, level=0.99)
    assert wide < low[2]


def test_wilson_interval_matches_newcombe():
    # Newcombe (1998), Statistics in Medicine 17:857, table I: 81/263 -> (0.2553, 0.3662)
    low, high = wilson_interval(81, 263)
    assert (low, high) == (pytest.approx(0.2553, abs=1e-4), pytest.approx(0.3662, abs=1e-4))
    # 0/10 -> (0, 0.2775) in the same table
    low, high = wilson_interval(0, 10)
    assert low == 0.0 and high == pytest.approx(0.2775, abs=1e-4)
    assert wilson_interval(0, 3)[0] == 0.0 and wilson_interval(3, 3)[1] == 1.0   # exact at the edges


def test_wilson_interval_without_a_total_is_nan_and_bad_counts_are_refused():
    low, high = wilson_interval(np.array([0, 3]), np.array([0, 6]))
    assert np.isnan(low[0]) and np.isnan(high[0]) and low[1] < 0.5 < high[1]
    with pytest.raises(ValidationError, match="between 0 and total"):
        wilson_interval(7, 6)
    with pytest.raises(ValidationError, match="level"):
        wilson_interval(1, 2, level=1.5)


def test_mean_interval_is_students_t():
    values = [1.0, 2.0, 3.0, 4.0, np.nan]
    low, high = mean_interval(values)
    # mean 2.5, sd 1.291, t(0.975, 3) = 3.182 -> 2.5 +- 2.054
    assert (low, high) == (pytest.approx(0.4457, abs=1e-3), pytest.approx(4.5543, abs=1e-3))
    assert all(np.isnan(mean_interval([1.0])))


def test_bootstrap_interval_is_reproducible_and_covers_the_mean():
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"x": rng.normal(10, 2, size=400)})
    first = bootstrap_interval(frame, lambda f: f["x"].mean(), seed=5)
    assert first == bootstrap_interval(frame, lambda f: f["x"].mean(), seed=5)
    assert first != bootstrap_interval(frame, lambda f: f["x"].mean(), seed=6)
    assert first[0] < 10 < first[1] and first[1] - first[0] < 1
    assert all(np.isnan(bootstrap_interval(np.array([]), np.mean)))


@pytest.mark.parametrize("level", [0.95, 0.9, 0.5])
def test_bootstrap_level_is_pinned_to_the_quantiles_of_the_same_resamples(level):
    """The interval is the (1 - level)/2 and (1 + level)/2 quantiles of the very resamples the seed
    draws (recomputed here): a 95% interval read at 90% (or any other level) fails."""
    data = np.random.default_rng(3).exponential(size=60)
    low, high = bootstrap_interval(data, np.mean, level=level, resamples=400, seed=11)
    rng = np.random.default_rng(11)
    means = np.asarray([data[rng.integers(0, 60, size=60)].mean() for _ in range(400)])
    assert low == pytest.approx(np.quantile(means, (1 - level) / 2), abs=1e-12)
    assert high == pytest.approx(np.quantile(means, (1 + level) / 2), abs=1e-12)
    assert np.mean((means >= low) & (means <= high)) == pytest.approx(level, abs=0.01)
    if level == 0.95:   # the default level is 95%
        assert bootstrap_interval(data, np.mean, resamples=400, seed=11) == (low, high)


def test_the_intervals_equal_scipy_stats_bit_for_bit():
    # they compute chi2.ppf and norm.ppf through scipy.special (no scipy.stats import on a first chart)
    import numpy as np
    from scipy import stats

    from corpuskit.stats.intervals import poisson_interval, wilson_interval

    k = np.concatenate([np.arange(0, 3000), [10 ** 5, 10 ** 6]]).astype(float)
    for level in (0.5, 0.9, 0.95, 0.99):
        a = 1 - level
        low, high = poisson_interval(k, level)
        assert np.array_equal(high, stats.chi2.ppf(1 - a / 2, 2 * k + 2) / 2)
        assert np.array_equal(low[1:], stats.chi2.ppf(a / 2, 2 * k[1:]) / 2) and low[0] == 0
        n = np.arange(3, 2000, dtype=float)
        z = stats.norm.ppf(0.5 + level / 2)
        s = np.floor(n * 0.37)           # 1 .. n - 1: no end is pinned to 0 or 1
        centre = (s + z * z / 2) / (n + z * z)
        half = z * np.sqrt(s * (n - s) / n + z * z / 4) / (n + z * z)
        wl, wh = wilson_interval(s, n, level)
        np.testing.assert_allclose(wl, centre - half, rtol=1e-12)
        np.testing.assert_allclose(wh, centre + half, rtol=1e-12)
