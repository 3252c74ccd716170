"""The leave-one-file-out choice of FLOOR_SHARE and the weekly multiplier (benchmarks/signals_lofo.py):
the pair chosen meets every target on the files it is chosen on, then has the fewest strong false
signals; a held-out file never takes part in its own choice; the shipped defaults are the pair
chosen on every file."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import signals_lofo as L  # noqa: E402


def _result(recall=1.0, high=0.0, strong=0.0, week_recall=None):
    rec = {row: recall for row in L.TARGETS}
    if week_recall is not None:
        rec["new name 10/week"] = week_recall
    return {"recall": rec, "high": high, "strong": strong}


def _scores():
    # file a: every pair meets the targets, fewer strong signals at a larger floor
    # file b: the largest floors miss the weekly name; file c: like a, but the weekly name needs the smallest floor
    scores = {f: {} for f in "abc"}
    for floor, week in L.GRID:
        scores["a"][(floor, week)] = _result(strong=1.0 - floor * 10)
        scores["b"][(floor, week)] = _result(strong=0.5, week_recall=0.0 if floor >= 0.02 else 1.0)
        scores["c"][(floor, week)] = _result(strong=0.1, week_recall=1.0 if floor == L.GRID[0][0] else 0.5)
    return scores


def test_choice_meets_the_targets_then_has_fewest_strong_signals():
    scores = _scores()
    assert L.choose(scores, ["a"]) == (max(f for f, _ in L.GRID), max(w for _, w in L.GRID))
    floor, _ = L.choose(scores, ["a", "b"])
    assert floor == max(f for f, _ in L.GRID if f < 0.02)
    assert L.choose(scores, ["a", "b", "c"])[0] == L.GRID[0][0]


def test_a_held_out_file_takes_no_part_in_its_choice():
    scores = _scores()
    folds, chosen = L.lofo(scores)
    by = {held: setting for held, setting, _ in folds}
    assert by["c"] == L.choose(scores, ["a", "b"]) and by["a"] == L.choose(scores, ["b", "c"])
    # c held out: the pair chosen on a and b misses c's weekly target, and the table says so
    assert not L.meets([r for h, _, r in folds if h == "c"][0])
    assert chosen == L.choose(scores, ["a", "b", "c"])
    rows = L.rows(folds, chosen, scores, chosen)
    assert len(rows) == 9 and all(len(r) == len(L.HEADERS) for r in rows)


def test_no_pair_meets_the_targets_then_the_best_worst_recall():
    scores = {f: {s: _result(recall=0.5 + s[0], high=2.0) for s in L.GRID} for f in "ab"}
    assert L.choose(scores, ["a", "b"])[0] == max(f for f, _ in L.GRID)


def test_the_shipped_defaults_are_a_candidate():
    from corpuskit.analysis.signals.volume import VolumeSpikeDetector

    det = VolumeSpikeDetector()
    assert (det.floor_share, det.week_multiplier) in L.GRID
