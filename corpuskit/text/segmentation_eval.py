"""Segmentation accuracy on a labelled list of hashtags and handles (``tests/data/segmentation_labelled.tsv``).

Three figures per language and kind: **exact**, the share of tags whose cuts between two letters are
exactly the labelled ones (case ignored; where a number meets letters is not scored: ``COVID19`` and
``Las10`` are one token, ``Tokyo 2020`` two, a convention of the tokenizer rather than a word boundary,
and the labels follow no single one), **no wrong cut**, the share whose cuts between letters are all
among the labelled ones (a tag kept whole counts here: it loses a split but invents no word such as
"Las chet"), and **strict**, every cut as labelled, numbers included.
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


def _letter_cuts(words) -> set[int]:
    """The cuts with no digit on either side."""
    tag = "".join(words)
    return {c for c in _cuts(words) if not tag[c - 1].isdigit() and not tag[c].isdigit()}


def read_labelled(path) -> list[dict]:
    """The rows of a labelled TSV (columns tag, kind, language, words, source)."""
    with Path(path).open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


def segmentation_scores(rows, segmenter=None) -> dict:
    """``{"scores": {(language, kind): (n, exact, no_wrong_cut, strict), ..., ("all", "all"): ...},
    "misses": [(language, tag, got, labelled), ...]}`` (a miss: not exact)."""
    n, exact, safe, strict, misses = Counter(), Counter(), Counter(), Counter(), []
    for row in rows:
        got = segment_hashtag(row["tag"], segmenter, language=row["language"])
        gold = row["words"].split()
        for key in ((row["language"], row["kind"]), ("all", "all")):
            n[key] += 1
            exact[key] += _letter_cuts(got) == _letter_cuts(gold)
            safe[key] += _letter_cuts(got) <= _letter_cuts(gold)
            strict[key] += [w.lower() for w in got] == [w.lower() for w in gold]
        if _letter_cuts(got) != _letter_cuts(gold):
            misses.append((row["language"], row["tag"], got, gold))
    scores = {k: (n[k], exact[k] / n[k], safe[k] / n[k], strict[k] / n[k]) for k in sorted(n)}
    return {"scores": scores, "misses": misses}
