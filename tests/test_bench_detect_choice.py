"""How benchmarks/bench_detect.py chooses a setting on the groups it may read (no data needed)."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from bench_detect import choose, lodo  # noqa: E402


def _grid(per_candidate: list) -> np.ndarray:
    """``[candidate][group]`` standard scores -> ``S[candidate, threshold, group, profile]`` (one threshold,
    the same figure for the three profiles)."""
    a = np.asarray(per_candidate, dtype=float)
    return np.repeat(a[:, None, :, None], 3, axis=3)


def test_mean_takes_the_best_mean_and_maximin_the_best_worst_group():
    # candidate 0: mean 70, worst 40; candidate 1: mean 65, worst 60
    grid = _grid([[90, 80, 40, 70], [70, 65, 60, 65]])
    assert choose(grid, [0, 1, 2, 3], 0, "mean")[0] == 0
    assert choose(grid, [0, 1, 2, 3], 0, "maximin")[0] == 1
    assert choose(grid, [0, 1, 2, 3], 0, "maximin")[2] == pytest.approx(65.0)   # reports the mean


def test_maximin_breaks_a_tied_worst_group_by_the_mean_then_the_earlier_candidate():
    grid = _grid([[50, 60, 70, 0], [50, 80, 90, 0], [50, 80, 90, 0]])
    assert choose(grid, [0, 1, 2], 0, "maximin")[0] == 1


def test_the_left_out_group_never_enters_its_choice():
    # group 3 would favour candidate 1 by far; leaving it out, the other three favour candidate 0
    grid = _grid([[70, 70, 70, 0], [60, 60, 60, 100]])
    folds = dict(lodo(grid, "maximin"))
    assert folds["artificialWithAnomaly"]["standard"][0] == 0
    assert folds["artificialWithAnomaly"]["standard"][2] == 0.0


def test_an_unknown_criterion_is_refused():
    with pytest.raises(ValueError):
        choose(_grid([[1, 2, 3, 4]]), [0, 1], 0, "median")
