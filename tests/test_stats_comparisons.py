"""Two-sample tests against hand-computed and published values, and their edges."""
import numpy as np
import pytest
from scipy import stats

from corpuskit.errors import ValidationError
from corpuskit.stats.comparisons import (FISHER_TEST, PROPORTION_Z_TEST, RATE_TEST, WELCH_TEST,
                                         rank_effect, two_proportion_test, two_rate_test, welch_test)
from corpuskit.stats.intervals import mean_interval, mean_interval_from_moments


def test_two_rate_test_is_the_exact_conditional_binomial():
    # 10 against 2 events over equal exposure: P(X >= 10 | X ~ Bin(12, 1/2)) = 79/4096, two-sided twice that
    p, test = two_rate_test(10, 2)
    assert p == pytest.approx(2 * 79 / 4096, abs=1e-9) and test == RATE_TEST
    # exposure matters: 10 events in 5 days against 2 in 1 day is the same rate
    assert two_rate_test(10, 2, 5, 1)[0] == pytest.approx(1.0)
    p, names = two_rate_test(np.array([0, 5, 30]), np.array([0, 5, 10]))
    assert np.isnan(p[0]) and p[1] == pytest.approx(1.0) and p[2] < 0.01 and list(names) == [RATE_TEST] * 3
    with pytest.raises(ValidationError, match="negative"):
        two_rate_test(-1, 3)
    with pytest.raises(ValidationError, match="exposures"):
        two_rate_test(1, 3, 0, 1)


def test_two_proportion_test_uses_z_and_fisher_for_small_tables():
    # 60/100 against 40/100: pooled p = 0.5, z = 0.2 / sqrt(0.25 * 0.02) = 2.828, p = 0.00468
    p, test = two_proportion_test(60, 100, 40, 100)
    assert p == pytest.approx(0.004678, abs=1e-5) and test == PROPORTION_Z_TEST
    # Fisher's lady tasting tea (Fisher 1935): 3 of 4 against 1 of 4, two-sided p = 34/70
    p, test = two_proportion_test(3, 4, 1, 4)
    assert p == pytest.approx(34 / 70, abs=1e-9) and test == FISHER_TEST
    p, names = two_proportion_test([0, 5], [0, 10], [1, 5], [3, 10])
    assert np.isnan(p[0]) and p[1] == pytest.approx(1.0)
    with pytest.raises(ValidationError, match="between 0 and their total"):
        two_proportion_test(5, 4, 1, 4)


def test_welch_test_matches_scipy_on_the_raw_values():
    rng = np.random.default_rng(1)
    a, b = rng.normal(0, 1, 40), rng.normal(0.6, 2, 25)
    p, test = welch_test(a.size, a.mean(), a.std(ddof=1), b.size, b.mean(), b.std(ddof=1))
    assert p == pytest.approx(stats.ttest_ind(a, b, equal_var=False).pvalue, rel=1e-9) and test == WELCH_TEST
    p, _ = welch_test([1, 5], [0.1, 0.2], [0.0, 0.3], [9, 5], [0.0, 0.2], [0.2, 0.3])
    assert np.isnan(p[0]) and p[1] == pytest.approx(1.0)
    assert np.isnan(welch_test(3, 0.5, 0.0, 3, 0.5, 0.0)[0])
    with pytest.raises(ValidationError, match="negative"):
        welch_test(3, 0, -1, 3, 0, 1)


def test_mean_interval_from_moments_equals_the_interval_of_the_values():
    values = np.array([1.0, 2.0, 3.0, 4.0])
    low, high = mean_interval_from_moments(4, values.mean(), values.std(ddof=1))
    assert (low, high) == pytest.approx(mean_interval(values))
    low, high = mean_interval_from_moments(np.array([1, 4]), np.array([0.5, 2.5]), np.array([0.0, 1.291]))
    assert np.isnan(low[0]) and np.isnan(high[0]) and low[1] == pytest.approx(0.4457, abs=1e-3)
    wide = mean_interval_from_moments(4, 2.5, values.std(ddof=1), level=0.99)
    assert wide[0] < low[1]
    with pytest.raises(ValidationError, match="level"):
        mean_interval_from_moments(4, 0, 1, level=0)


def test_the_rank_effect_is_the_share_of_pairs_and_a_one_sided_p_value():
    assert rank_effect([1, 2, 3], [4, 5, 6]) == (0.0, 0.05)
    effect, p = rank_effect([4, 5, 6], [1, 2, 3])
    assert effect == 1.0 and p == 1.0
    assert rank_effect([1, 2], [2, 1])[0] == 0.5
    assert rank_effect([1, 3], [2])[0] == 0.5                      # one pair of two above, one below
    assert rank_effect([2], [2])[0] == 0.5                         # a tie counts half
    assert all(np.isnan(rank_effect([], [1.0])))
    # against scipy on random samples: A = U / (n1 n2), p the one-sided "less" p-value
    rng = np.random.default_rng(0)
    a, c = rng.normal(0, 1, 40), rng.normal(0.5, 1, 60)
    test = stats.mannwhitneyu(a, c, alternative="less")
    assert rank_effect(a, c) == pytest.approx((test.statistic / 2400, test.pvalue))
    with pytest.raises(ValidationError):
        rank_effect([np.nan], [1.0])
