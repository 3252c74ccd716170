"""Segmentation accuracy on a labelled list of hashtags and handles (``tests/data/segmentation_labelled.tsv``).

Two figures per language and kind: **exact**, the share of tags split into exactly the labelled words
(case ignored), and **no wrong cut**, the share whose cuts are all among the labelled cuts (a tag kept
whole counts here: it loses a split but invents no word such as "Las chet").
"""
from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path

from corpuskit.text.hashtags import segment_hashtag


def _cuts(words) -> set[int]:
    out, pos = set(), 0
    for w in list(words)[:-1]:
        pos += len(w)
        out.add(pos)
    return out


def read_labelled(path) -> list[dict]:
    """The rows of a labelled TSV (columns tag, kind, language, words, source)."""
    with Path(path).open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


def segmentation_scores(rows, segmenter=None) -> dict:
    """``{(language, kind): (n, exact, no_wrong_cut), ..., ("all", "all"): ...}`` and the misses."""
    n, exact, safe, misses = Counter(), Counter(), Counter(), []
    for row in rows:
        got = segment_hashtag(row["tag"], segmenter, language=row["language"])
        gold = row["words"].split()
        for key in ((row["language"], row["kind"]), ("all", "all")):
            n[key] += 1
            exact[key] += [w.lower() for w in got] == [w.lower() for w in gold]
            safe[key] += _cuts(got) <= _cuts(gold)
        if [w.lower() for w in got] != [w.lower() for w in gold]:
            misses.append((row["language"], row["tag"], got, gold))
    scores = {k: (n[k], exact[k] / n[k], safe[k] / n[k]) for k in sorted(n)}
    return {"scores": scores, "misses": misses}
