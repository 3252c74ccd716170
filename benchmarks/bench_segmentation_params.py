"""How the one-case split's settings (:data:`corpuskit.text.hashtags.SPLIT_PARAMS`) were chosen, without
fitting them to the labelled list they are measured on.

    PYTHONPATH=. /work/main/.venv/bin/python benchmarks/bench_segmentation_params.py

Leave one language-and-kind part of ``tests/data/segmentation_labelled.tsv`` out at a time: choose the
settings on a grid that score best (exact, then no wrong cut, over the pooled rows) on the other parts,
and score the left-out part with them. Printed: each left-out part's exact score with the settings chosen
without it, their mean and the worst, then the settings chosen on every part, and where they stand.
Needs ``wordfreq``.
"""
from __future__ import annotations

import itertools
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GRID = {
    "piece": (0.5, 1.0, 1.5),
    "z3": (2.5, 3.0),
    "z4": (2.5, 3.0),
    "z5": (1.5, 2.0),
    "whole": (2.5, 3.0),
    "margin": (4.0, 5.0, 6.0),
    # no value that never keeps an unknown tag whole (99 was one): the list holds no word of another
    # language in an English record, and such a value cuts hochwasser into hoc hwa ss er
    # (tests/test_segmentation_labelled.py)
    "unknown": (1.25, 1.5, 1.75, 2.0),
    "capitals": (6, 5),
    "join": (99.0, 3.5, 3.0),
}
#: the floors of a piece of one and two letters, held: a letter is a word only where it stands out from
#: its alphabet (a and i in English, y, a and o in Spanish, at 7 or more; other letters 5.0-5.9)
Z1, Z2 = 6.0, 4.0


def main() -> int:
    from corpuskit.text import hashtags
    from corpuskit.text.segmentation_eval import _letter_cuts, read_labelled

    rows = read_labelled(ROOT / "tests" / "data" / "segmentation_labelled.tsv")
    used = []
    originals = {name: getattr(hashtags, name) for name in ("_list_split", "_letter_words", "_merge_listed")}

    def spy(name):
        def call(*args, **kwargs):
            used.append(name)
            return originals[name](*args, **kwargs)
        return call

    def segment(row):
        hashtags.HashtagSegmenter._split_cached.cache_clear()
        return hashtags.segment_hashtag(row["tag"], language=row["language"])

    gold = [_letter_cuts(r["words"].split()) for r in rows]
    for name in originals:
        setattr(hashtags, name, spy(name))
    current = dict(hashtags.SPLIT_PARAMS)
    # the fewest capitals of the grid, so that every tag the split may reach reaches it here
    hashtags.SPLIT_PARAMS = {**current, "capitals": min(GRID["capitals"])}
    varying, fixed_ok = [], []
    for i, row in enumerate(rows):
        used.clear()
        cuts = _letter_cuts(segment(row))
        fixed_ok.append((cuts == gold[i], cuts <= gold[i]))
        if used:  # the settings can change this row's split
            varying.append(i)
    for name, function in originals.items():
        setattr(hashtags, name, function)
    hashtags.SPLIT_PARAMS = current
    if not varying:
        print("no tag reaches the word-list split (is wordfreq installed?)", file=sys.stderr)
        return 1
    groups = sorted({(r["language"], r["kind"]) for r in rows})
    settings = [dict(zip(GRID, values)) for values in itertools.product(*GRID.values())]
    results = []  # per setting: {row: (exact, no wrong cut)} for the rows the settings can change
    try:
        for s in settings:
            hashtags.SPLIT_PARAMS = {"piece": s["piece"], "floors": (Z1, Z2, s["z3"], s["z4"], s["z5"]),
                                     "whole": s["whole"], "margin": s["margin"],
                                     "unknown": s["unknown"], "capitals": s["capitals"],
                                     "join": s["join"]}
            out = {}
            for i in varying:
                cuts = _letter_cuts(segment(rows[i]))
                out[i] = (cuts == gold[i], cuts <= gold[i])
            results.append(out)
    finally:
        hashtags.SPLIT_PARAMS = current
        hashtags.HashtagSegmenter._split_cached.cache_clear()

    def score(k, members):
        exact = sum(results[k].get(i, fixed_ok[i])[0] for i in members)
        safe = sum(results[k].get(i, fixed_ok[i])[1] for i in members)
        return exact, safe

    def choose(members):
        return max(range(len(settings)), key=lambda k: (*score(k, members), -k))

    held = []
    for group in groups:
        train = [i for i, r in enumerate(rows) if (r["language"], r["kind"]) != group]
        test = [i for i, r in enumerate(rows) if (r["language"], r["kind"]) == group]
        k = choose(train)
        exact = score(k, test)[0] / len(test)
        held.append(exact)
        print(f"left out {'/'.join(group):<12s} n={len(test):3d}  exact {exact:.3f}  with {settings[k]}")
    print(f"left-out parts: mean exact {sum(held) / len(held):.3f}, worst {min(held):.3f}")
    everything = list(range(len(rows)))
    k = choose(everything)
    exact, safe = score(k, everything)
    print(f"chosen on every part: {settings[k]}: exact {exact / len(rows):.3f}, no wrong cut {safe / len(rows):.3f}")
    print(f"corpuskit's SPLIT_PARAMS: {current}; rows the settings can change: {len(varying)} of {len(rows)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
