"""The leave-one-file-out choice of the materiality floor (form and scale) and the weekly multiplier
(benchmarks/signals_lofo.py): the setting chosen meets every target on the files it is chosen on, then
has the fewest strong false signals; a held-out file never takes part in its own choice; every floor
form is a candidate; the shipped defaults are a candidate."""
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
    # (only the share form meets anything here, so the choice is among shares)
    scores = {f: {} for f in "abc"}
    for s in L.GRID:
        form, floor, _ = s
        if form != "share":
            for f in "abc":
                scores[f][s] = _result(strong=0.0, week_recall=0.0)
            continue
        scores["a"][s] = _result(strong=1.0 - floor * 10)
        scores["b"][s] = _result(strong=0.5, week_recall=0.0 if floor >= 0.02 else 1.0)
        scores["c"][s] = _result(strong=0.1, week_recall=1.0 if floor == L.GRID[0][1] else 0.5)
    return scores


SHARES = L.FORMS["share"]


def test_choice_meets_the_targets_then_has_fewest_strong_signals():
    scores = _scores()
    assert L.choose(scores, ["a"]) == ("share", max(SHARES), max(L.WEEK_MULTIPLIERS))
    _, floor, _ = L.choose(scores, ["a", "b"])
    assert floor == max(f for f in SHARES if f < 0.02)
    assert L.choose(scores, ["a", "b", "c"])[1] == L.GRID[0][1]


def test_every_form_is_a_candidate_and_a_form_that_carries_wins():
    """A form meeting every target on every file with fewer strong signals is chosen over the share."""
    assert {form for form, _, _ in L.GRID} == {"share", "sqrt", "expected"}
    scores = _scores()
    for f in "abc":
        scores[f][("sqrt", 0.2, 2.0)] = _result(strong=0.05)
    assert L.choose(scores, ["a", "b", "c"]) == ("sqrt", 0.2, 2.0)
    folds, _ = L.lofo(scores)
    assert all(setting == ("sqrt", 0.2, 2.0) and L.meets(r) for _, setting, r in folds)


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
    scores = {f: {s: _result(recall=0.5 + (s[1] if s[0] == "share" else 0.0), high=2.0) for s in L.GRID}
              for f in "ab"}
    assert L.choose(scores, ["a", "b"])[:2] == ("share", max(SHARES))


def test_the_shipped_defaults_are_a_candidate():
    assert L.current_setting() in L.GRID
