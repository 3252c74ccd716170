"""The statistics layer: windows, sums, the Šidák correction, threshold search and the z tests."""
from __future__ import annotations

import numpy as np
import pytest

from corpuskit.stats.correction import sidak
from corpuskit.stats.count_model import count_sigma, tail_sigma
from corpuskit.stats.threshold_search import smallest_reaching
from corpuskit.stats.windows import lagged, recent_lags, rolling_sum, seasonal_lags, trailing_sum
from corpuskit.stats.z_scores import binomial_z, mean_z, poisson_z, robust_z, welch_z


def test_lagged_windows_are_the_same_values_however_built():
    rng = np.random.default_rng(3)
    values = rng.poisson(4, (3, 30)).astype(float)
    values[1, 7] = np.nan
    for lags in (recent_lags(5), seasonal_lags(1, 5), recent_lags(4, lag=2), np.array([3, 1, 2])):
        got = lagged(values, lags)
        idx = np.arange(30)[:, None] - lags[None, :]
        want = np.where(idx >= 0, values[:, np.maximum(idx, 0)], np.nan)
        np.testing.assert_array_equal(got, want)
    assert recent_lags(3).tolist() == [3, 2, 1] and seasonal_lags(24, 3).tolist() == [24, 48, 72]
    assert lagged(np.zeros((2, 0)), recent_lags(3)).shape == (2, 0, 3)


def test_rolling_sums_partial_and_complete():
    values = np.array([1.0, 2.0, 3.0, np.nan, 5.0, 6.0])
    assert rolling_sum(values, 2).tolist() == [0, 1, 3, 5, 3, 5]
    assert trailing_sum(values, 2).tolist() == [1, 3, 5, 3, 5, 11]
    complete = trailing_sum(values, 2, complete=True)
    np.testing.assert_array_equal(complete, [np.nan, 3, 5, np.nan, np.nan, 11])
    np.testing.assert_array_equal(trailing_sum(values, 1, complete=True), values)
    np.testing.assert_array_equal(rolling_sum(values, 2, lag=1, complete=True), [np.nan, np.nan, 3, 5, np.nan, np.nan])
    two = np.vstack([values, values * 2])
    np.testing.assert_array_equal(trailing_sum(two, 2, complete=True)[1], complete * 2)


def test_threshold_search_finds_the_first_count_that_scores():
    mu, var = 5.0, 9.0

    def score(c):
        return float(tail_sigma(c, mu, var))

    linear = next(c for c in range(0, 1000) if score(c) >= 3.0)
    assert smallest_reaching(score, 3.0, 0, 6, 10 ** 7) == linear
    assert smallest_reaching(score, 3.0, 2, 2, 10 ** 7) == linear
    # below an observed count (the limit): the first that scores, else the count itself
    assert smallest_reaching(score, 3.0, 0, linear + 5, linear + 5) == linear
    assert smallest_reaching(score, 3.0, 0, linear - 1, linear - 1) == linear - 1
    assert smallest_reaching(score, 3.0, linear + 3, linear, linear) == linear + 3


def test_sidak_keeps_one_look_and_the_order_of_the_deep_tail():
    sigma = np.array([3.0, 3.0, 6.0, 1.0])
    out = sidak(sigma, np.array([1, 24, 24, 24]))
    assert out[0] == 3.0
    assert 1.7 < out[1] < 2.0 and 5.2 < out[2] < 6.0 and out[3] < 1.0
    assert np.array_equal(sidak(sigma, 1), sigma)
    deep = np.array([37.0, 38.5, 39.0, 40.0])             # the count model's capped normal tail
    assert np.all(np.diff(sidak(deep, 24)) > 0)
    np.testing.assert_array_equal(sidak(deep[1:], 24), deep[1:])
    # the correction is monotone in the number of looks and in sigma
    assert np.all(np.diff(sidak(np.full(4, 3.0), np.array([1, 2, 8, 24]))) < 0)
    assert np.all(np.diff(sidak(np.linspace(0, 39, 80), 24)) > 0)


def test_z_tests():
    window = np.array([10.0, 12, 10, 9, 10, 100, 11])      # one spike does not widen the robust scale
    z, median = robust_z(25.0, window)
    assert median == 10.0 and z == pytest.approx((25 - 10) / np.sqrt(10))
    assert robust_z(np.array([25.0, 10.0]), np.vstack([window, window]))[0][1] == 0.0
    assert poisson_z(30.0, 10.0) == pytest.approx(20 / np.sqrt(40))
    assert binomial_z(10.0, 20.0, 0.5) == 0.0
    z, mean_b = mean_z(10.0, 5.0, 100.0, 0.0, 100 * 0.04, 0.05)
    assert mean_b == 0.0 and z == pytest.approx(0.5 / (0.2 / np.sqrt(10)))
    z, m0, m1 = welch_z((50.0, 0.0, 50 * 0.04), (50.0, 10.0, 50 * 0.04 + 50 * 0.04), 0.05)
    assert (m0, m1) == (0.0, 0.2) and z == pytest.approx(0.2 / np.sqrt(0.04 / 50 + 0.04 / 50))


def test_count_sigma_reads_any_window_order():
    rng = np.random.default_rng(4)
    base = rng.poisson(5, (200, 21)).astype(float)
    a, _, _ = count_sigma(np.full(200, 14.0), base)
    b, _, _ = count_sigma(np.full(200, 14.0), base[:, ::-1])
    np.testing.assert_allclose(a, b, rtol=1e-12)
