"""corpuskit's own Krippendorff's alpha (corpuskit.validate.alpha) against the krippendorff package as
an oracle (a dev dependency only), the paper's worked example, its edge cases and its bootstrap interval."""
from __future__ import annotations

import numpy as np
import pytest

from corpuskit.errors import ValidationError
from corpuskit.stats.intervals import bootstrap_interval
from corpuskit.validate import krippendorff_alpha, krippendorff_alpha_interval

N = np.nan
LEVELS = ("nominal", "ordinal", "interval", "ratio")
# Krippendorff (2011), section C: 4 observers (rows), 12 units (columns), values 1-5, missing data.
PAPER = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, N, N, N],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, N, 3],
    [N, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, N],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, N],
]


def _reliability_data(seed: int, coders: int, units: int, kind: str, missing: float) -> np.ndarray:
    """coders x units: each coder copies the unit's true value or (25%) draws another; NaN holes."""
    rng = np.random.default_rng(seed)
    if kind == "int":
        truth = rng.integers(0, 5, size=units).astype(float)
        noise = rng.integers(0, 5, size=(coders, units)).astype(float)
    else:   # floats on a 0.1 grid (a few dozen distinct values: the oracle is V x V x units in memory)
        truth = np.round(rng.uniform(0.0, 3.0, size=units), 1)
        noise = np.round(truth + rng.normal(0.0, 0.6, size=(coders, units)), 1)
        noise = np.abs(noise)   # ratio data: non-negative
    data = np.where(rng.random((coders, units)) < 0.75, truth, noise)
    data[rng.random((coders, units)) < missing] = np.nan
    return data


SHAPES = [(2, 4, "int", 0.0), (2, 60, "int", 0.1), (5, 6, "int", 0.3), (5, 150, "int", 0.25),
          (2, 40, "float", 0.0), (5, 80, "float", 0.2), (3, 300, "float", 0.4)]


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("coders, units, kind, missing", SHAPES)
def test_alpha_matches_the_krippendorff_package(level, coders, units, kind, missing):
    krippendorff = pytest.importorskip("krippendorff")
    checked = 0
    for seed in range(6):
        data = _reliability_data(seed, coders, units, kind, missing)
        pairable = data[:, (~np.isnan(data)).sum(axis=0) >= 2]
        if np.unique(pairable[~np.isnan(pairable)]).size < 2:
            continue            # alpha undefined: the package raises or divides by zero, see below
        expected = float(krippendorff.alpha(reliability_data=data, level_of_measurement=level))
        assert krippendorff_alpha(data, level) == pytest.approx(expected, abs=1e-9, rel=0)
        checked += 1
    assert checked >= 3


@pytest.mark.parametrize("level", ["nominal", "ordinal"])
def test_alpha_with_a_domain_matches_the_package(level):
    # a scale with unobserved ranks, listed in scale order (not sorted): the ordinal metric follows it
    krippendorff = pytest.importorskip("krippendorff")
    domain = [4.0, 0.0, 3.0, 1.0, 7.0, 2.0]
    for seed in range(5):
        data = _reliability_data(seed, 3, 50, "int", 0.2)
        expected = float(krippendorff.alpha(reliability_data=data, value_domain=domain, level_of_measurement=level))
        assert krippendorff_alpha(data, level, domain) == pytest.approx(expected, abs=1e-9, rel=0)
    if level == "ordinal":      # the order matters at the ordinal level
        assert krippendorff_alpha(data, level, domain) != pytest.approx(krippendorff_alpha(data, level, sorted(domain)))


def test_domain_is_not_used_at_interval_and_ratio_levels():
    assert krippendorff_alpha(PAPER, "interval", domain=[1, 2]) == krippendorff_alpha(PAPER, "interval")
    assert krippendorff_alpha(PAPER, "ratio", domain=[5, 4, 3, 2, 1]) == krippendorff_alpha(PAPER, "ratio")


@pytest.mark.parametrize("level, expected", [("nominal", 0.743), ("ordinal", 0.815),
                                             ("interval", 0.849), ("ratio", 0.797)])
def test_the_papers_example_with_none_for_missing(level, expected):
    with_none = [[None if v != v else v for v in row] for row in PAPER]
    assert round(krippendorff_alpha(with_none, level), 3) == expected
    assert krippendorff_alpha(with_none, level) == krippendorff_alpha(PAPER, level)
    # the paper's nominal computation: n = 40 pairable values, marginals n_c = 9, 13, 10, 5, 3, the
    # coincidence diagonal 7 + 10 + 8 + 4 + 3 = 32, alpha = ((n - 1) * 32 - sum n_c (n_c - 1)) /
    # (n (n - 1) - sum n_c (n_c - 1)) = (39 * 32 - 344) / (1560 - 344)
    assert krippendorff_alpha(PAPER, "nominal", domain=[1, 2, 3, 4, 5]) == pytest.approx(904 / 1216, abs=1e-12)


def test_orientation_is_coders_by_units():
    # two coders who agree on 9 units of 10 (nominal): coders are rows, units columns
    first = [0, 1, 0, 1, 0, 1, 0, 1, 0, 1]
    second = [0, 1, 0, 1, 0, 1, 0, 1, 0, 0]
    alpha = krippendorff_alpha([first, second])
    # by hand: o00 = 10 (5 units), o11 = 8 (4 units), o01 = o10 = 1 (1 unit); n = 20, n0 = 11, n1 = 9;
    # alpha = 1 - (n - 1) (o01 + o10) / (2 n0 n1) = 1 - 19 * 2 / 198
    assert alpha == pytest.approx(1 - 38 / 198)
    assert krippendorff_alpha(np.array([first, second]).T) != pytest.approx(alpha)


def test_perfect_and_systematic_disagreement():
    assert krippendorff_alpha([[1, 2, 3, 1], [1, 2, 3, 1]], "ordinal") == pytest.approx(1.0)
    assert krippendorff_alpha([[0, 1, 0, 1], [1, 0, 1, 0]]) < 0


@pytest.mark.parametrize("level", LEVELS)
def test_undefined_alpha_is_nan(level):
    assert np.isnan(krippendorff_alpha([[3, 3, 3], [3, 3, N]], level))          # a single value
    assert np.isnan(krippendorff_alpha([[1, N, 3], [N, 2, N]], level))          # no unit coded twice
    assert np.isnan(krippendorff_alpha([[1, 2, 3]], level))                     # one coder
    assert np.isnan(krippendorff_alpha(np.empty((2, 0)), level))                # no unit
    assert np.isnan(krippendorff_alpha([[N, N], [N, N]], level))                # nothing coded
    # a lone value in a unit coded once does not count: the pairable values are all 2
    assert np.isnan(krippendorff_alpha([[2, 2, 5], [2, 2, N]], level))


def test_bad_inputs_raise():
    with pytest.raises(ValidationError, match="level of measurement"):
        krippendorff_alpha(PAPER, "nominl")
    with pytest.raises(ValidationError, match="level of measurement"):
        krippendorff_alpha_interval(PAPER, "Ordinal")
    with pytest.raises(ValidationError, match="coders x units"):
        krippendorff_alpha([1, 2, 3])
    with pytest.raises(ValidationError, match="numbers"):
        krippendorff_alpha([["a", "b"], ["a", "a"]])
    with pytest.raises(ValidationError, match="infinite"):
        krippendorff_alpha([[1, np.inf], [1, 2]], "interval")
    with pytest.raises(ValidationError, match="outside the domain"):
        krippendorff_alpha(PAPER, "ordinal", domain=[1, 2, 3, 4])
    with pytest.raises(ValidationError, match="distinct"):
        krippendorff_alpha(PAPER, "nominal", domain=[1, 2, 2, 3, 4, 5])
    with pytest.raises(ValidationError, match="ci"):
        krippendorff_alpha_interval(PAPER, ci=1.0)
    with pytest.raises(ValidationError, match="resamples"):
        krippendorff_alpha_interval(PAPER, resamples=0)
    assert issubclass(ValidationError, ValueError)      # callers catching ValueError still do


@pytest.mark.parametrize("level", LEVELS)
def test_bootstrap_interval_contains_the_estimate_and_is_seeded(level):
    data = _reliability_data(1, 3, 80, "int", 0.2)
    alpha = krippendorff_alpha(data, level)
    low, high = krippendorff_alpha_interval(data, level, resamples=400, seed=7)
    assert low <= alpha <= high and low < high
    assert krippendorff_alpha_interval(data, level, resamples=400, seed=7) == (low, high)
    assert krippendorff_alpha_interval(data, level, resamples=400, seed=8) != (low, high)
    # the same draws as the generic bootstrap over units that agreement() uses, so the same interval
    same = bootstrap_interval(data.T, lambda units: krippendorff_alpha(units.T, level), resamples=400, seed=7)
    assert same == pytest.approx((low, high), abs=1e-12)


def test_bootstrap_interval_narrows_with_more_units():
    widths = []
    for units in (30, 300, 3000):
        low, high = krippendorff_alpha_interval(_reliability_data(4, 3, units, "int", 0.1), "ordinal",
                                                resamples=300, seed=0)
        widths.append(high - low)
    assert widths[0] > widths[1] > widths[2]
    assert widths[1] < widths[0] / 2 and widths[2] < widths[1] / 2       # about 1 / sqrt(units)


def test_bootstrap_interval_of_undefined_alpha_is_nan():
    assert all(np.isnan(krippendorff_alpha_interval([[1, 1, 1], [1, 1, 1]], resamples=20)))
    assert all(np.isnan(krippendorff_alpha_interval(np.empty((2, 0)), resamples=20)))
    low, high = krippendorff_alpha_interval(PAPER, "nominal", ci=0.5, resamples=200)
    wide = krippendorff_alpha_interval(PAPER, "nominal", ci=0.95, resamples=200)
    assert wide[0] <= low <= high <= wide[1]
