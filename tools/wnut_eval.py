"""Scoring an entity extractor on WNUT 2017-style CoNLL data (token TAB BIO tag, blank line between documents).

Each document is read as its tokens joined by spaces; a predicted mention counts
when its span starts and ends exactly on a gold span's first and last token. Types:
person -> person, location -> place, corporation and group -> org, product ->
product, creative-work -> product or concept. Used by ``benchmarks/bench_entities.py``
and the WNUT dev floor test. Data: WNUT 2017 (Derczynski, Nichols, van Erp,
Limsopatham 2017), CC-BY 4.0; it is read from a path, never shipped.
"""
from __future__ import annotations

from pathlib import Path

#: WNUT 2017 labels -> the corpuskit types a prediction may carry to match them
GOLD_TYPES = {"person": {"person"}, "location": {"place"}, "corporation": {"org"}, "group": {"org"},
              "product": {"product"}, "creative-work": {"product", "concept"}}


def conll_documents(path) -> list[tuple[str, list[tuple[int, int]], set]]:
    """``(text, token character spans, {(first token, last token, WNUT label)})`` per document."""
    from corpuskit.enrich.crf import spans_from_tags
    from train_crf import read_conll

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such CoNLL file")
    out = []
    for words, tags in read_conll(path):
        starts, pos = [], 0
        for w in words:
            starts.append(pos)
            pos += len(w) + 1
        token_spans = [(s, s + len(w)) for s, w in zip(starts, words)]
        gold = {(a, b, label) for a, b, label in spans_from_tags(tags)}
        out.append((" ".join(words), token_spans, gold))
    return out


def predicted_spans(text: str, token_spans, mentions) -> set:
    """``{(first token, last token, type)}`` of the mentions; spans off token edges are kept
    as unmatched (``(-1, position, type)``) so they still count against precision."""
    starts = {s: i for i, (s, _) in enumerate(token_spans)}
    ends = {e: i for i, (_, e) in enumerate(token_spans)}
    out = set()
    for m in mentions:
        surfaces = sorted(set(m.aliases) | {m.surface}, key=len, reverse=True)
        for p in m.positions:
            length = next((len(s) for s in surfaces if text.startswith(s, p)), len(m.surface))
            a, b = starts.get(p, -1), ends.get(p + length, -1)
            out.add((a, b, m.type) if a >= 0 and b >= 0 else (-1, p, m.type))
    return out


def span_scores(docs, predictions) -> dict:
    """``{"typed" | "untyped": (precision, recall, F1)}`` of exact-span matches."""
    out = {}
    for typed in (True, False):
        tp = fp = fn = 0
        for (_, _, gold), pred in zip(docs, predictions):
            matched_gold, matched_pred = set(), set()
            for g in sorted(gold):
                for p in sorted(pred):
                    if p in matched_pred or p[:2] != g[:2]:
                        continue
                    if not typed or p[2] in GOLD_TYPES.get(g[2], ()):
                        matched_gold.add(g)
                        matched_pred.add(p)
                        break
            tp += len(matched_gold)
            fn += len(gold) - len(matched_gold)
            fp += len(pred) - len(matched_pred)
        prec = tp / (tp + fp) if tp + fp else 0.0
        rec = tp / (tp + fn) if tp + fn else 0.0
        out["typed" if typed else "untyped"] = (prec, rec, 2 * prec * rec / (prec + rec) if prec + rec else 0.0)
    return out


def score_extractor(extractor, docs) -> dict:
    """:func:`span_scores` of ``extractor.extract_many`` on :func:`conll_documents` output."""
    found = extractor.extract_many([d[0] for d in docs])
    return span_scores(docs, [predicted_spans(text, spans, m) for (text, spans, _), m in zip(docs, found)])
