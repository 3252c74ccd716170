"""Leave one dataset out for the entity CRF: every setting chosen on the other sets, scored on the one left out.

Run by ``python benchmarks/bench_entities.py --lodo`` (see there). Three labelled sets of tweets:

========== ============================================= ======================================
set        training part (may train a shipped model)      evaluation part (never trained on)
========== ============================================= ======================================
WNUT-17    ``wnut17/train.conll`` (CC BY 4.0)             ``wnut17/dev.conll``
BTC        ``btc.train.conll`` + ``btc.dev.conll`` (CC BY) ``btc.test.conll`` (section F)
WNUT-16    none: GPL-3.0, evaluation only                 ``ner_wnut16/test.conll``
========== ============================================= ======================================

Types are mapped to corpuskit's (person, place, org, product, concept). WNUT-17: person ->
person, location -> place, corporation and group -> org, product -> product, creative-work ->
product or concept. BTC: PER -> person, LOC -> place, ORG -> org (trained as WNUT-17's
``corporation``). WNUT-16: person -> person, geo-loc -> place, facility -> place or org, company
and sportsteam -> org, musicartist -> person or org (a singer or a band), product -> product,
movie and tvshow -> product or concept; ``other`` is no type of ours: its spans are neither
counted as gold nor held against a prediction that matches one exactly. A set is scored only on
the types it annotates (BTC has no product: a predicted product is not held against it).
Spans match exactly, token for token; untyped F1 ignores the type.

Settings searched: ``c1``, ``c2`` and the marginal-decoding threshold ``max_outside`` (1.0 = Viterbi
.. 0.5), chosen by the shipped model's own procedure (``tools/train_crf.py``: leave one dataset out
over the training sets it is given, or k-fold cross-validation when it is given one). The grid is
the shipped model's (``C1S`` x ``C2S`` x ``THRESHOLDS``, 150 L-BFGS iterations). No word clusters:
those learned from the shared corpora cannot be shipped (their terms allow research only).

Two tables, both printed:

* **dataset left out** (strict, the headline): for each left-out set the procedure runs on the
  *other* datasets' training parts only (WNUT-17 left out: BTC alone, chosen by 3-fold CV within
  it, so the CRF has never seen a product or a creative work; WNUT-16 left out: WNUT-17 train and
  BTC train + dev, chosen by leaving each of them out), and only then is the left-out set's
  evaluation part scored. Nothing of the left-out dataset is trained on or read to choose.
* **text left out**: one CRF, the procedure run on every licensed training part (WNUT-17 train,
  BTC train + dev), scored on each evaluation part: the shipped model's situation on WNUT-17 test.
  Its setting was chosen on the training parts only, so no evaluation part chose it.
"""
from __future__ import annotations

import time
from pathlib import Path

from train_crf import C1S, C2S, THRESHOLDS  # tools/: the shipped model's grid

#: L-BFGS iterations and the folds of the cross-validation used where one training set remains, as shipped
ITERATIONS, FOLDS = 150, 3
REFERENCES = ("WNUT-17 test, typed F1: 2017 winner 0.419; BERTweet 0.565; "
              "our WNUT-17 dev figure before this procedure 0.425 (CRF trained on WNUT-17 train)")

GOLD = {
    "WNUT-17": {"person": {"person"}, "location": {"place"}, "corporation": {"org"}, "group": {"org"},
                "product": {"product"}, "creative-work": {"product", "concept"}},
    "BTC": {"PER": {"person"}, "LOC": {"place"}, "ORG": {"org"}},
    "WNUT-16": {"person": {"person"}, "geo-loc": {"place"}, "facility": {"place", "org"}, "company": {"org"},
                "sportsteam": {"org"}, "musicartist": {"person", "org"}, "product": {"product"},
                "movie": {"product", "concept"}, "tvshow": {"product", "concept"}, "other": None},
}


def load_sets(shared: Path) -> dict:
    """``{set: {"train": LabelledSet or None, "eval": docs}}`` of the sets present under ``shared``
    (``train_crf.LabelledSet``: the training part, labels mapped to the CRF's)."""
    from train_crf import load_set, read_conll

    out = {}
    wnut17 = shared / "wnut17"
    if (wnut17 / "train.conll").exists() and (wnut17 / "dev.conll").exists():
        out["WNUT-17"] = {"train": load_set("WNUT-17", "wnut17", [wnut17 / "train.conll"]),
                          "eval": read_conll(wnut17 / "dev.conll")}
    btc = shared / "ner_more" / "ner_btc"
    if (btc / "btc.test.conll").exists():
        out["BTC"] = {"train": load_set("BTC", "btc", [btc / "btc.train.conll", btc / "btc.dev.conll"]),
                      "eval": read_conll(btc / "btc.test.conll")}
    wnut16 = shared / "ner_more" / "ner_wnut16" / "test.conll"
    if wnut16.exists():
        out["WNUT-16"] = {"train": None, "eval": read_conll(wnut16)}  # GPL-3.0: never trained on
    return out


def score(name: str, docs, predicted) -> dict:
    """``{"typed": (P, R, F1), "untyped": ...}`` of ``predicted`` spans ``(first, last, wnut label, ...)``
    against the gold of set ``name`` (types mapped as the module docstring says)."""
    from corpuskit.enrich.crf import WNUT_TYPES, spans_from_tags

    table = GOLD[name]
    allowed = set().union(*(v for v in table.values() if v))
    out = {}
    for typed in (True, False):
        tp = fp = fn = 0
        for (_, tags), spans in zip(docs, predicted):
            gold = {(a, b): table[label] for a, b, label in spans_from_tags(tags)}
            ignored = {k for k, v in gold.items() if v is None}
            pred = {(a, b): WNUT_TYPES.get(label, "concept") for a, b, label, *_ in spans}
            pred = {k: v for k, v in pred.items() if v in allowed and k not in ignored}
            for k, kind in pred.items():
                hit = k in gold and gold[k] is not None and (not typed or kind in gold[k])
                tp += hit
                fp += not hit
            fn += sum(1 for v in gold.values() if v is not None)
        fn -= tp
        p = tp / (tp + fp) if tp + fp else 0.0
        r = tp / (tp + fn) if tp + fn else 0.0
        out["typed" if typed else "untyped"] = (p, r, 2 * p * r / (p + r) if p + r else 0.0)
    return out


def procedure(training, fitter, c1s=C1S, c2s=C2S, folds=FOLDS, log=None) -> tuple[dict, tuple]:
    """The shipped model's procedure on ``training`` (``train_crf.LabelledSet`` list): the chosen
    setting and the ``(crf, featurizer)`` fitted with it on every training set."""
    from train_crf import choose_setting

    chosen = choose_setting(training, c1s, c2s, THRESHOLDS, folds, fitter, log=log or (lambda line: None))
    return chosen, fitter(training, chosen["c1"], chosen["c2"])


def scored(name: str, docs, model, tau: float) -> dict:
    """Set ``name``'s figures (:func:`score`) of ``model`` decoded at ``tau`` on ``docs``."""
    from train_crf import predict

    from corpuskit.enrich.crf import decode

    return score(name, docs, [decode(v, m, tau) for v, m in predict(model, docs)])


def _table(title, rows) -> list[str]:
    lines = [title, f"  {'left out':<10} {'chosen without it':<40} {'typed F1':>8} {'P':>6} {'R':>6} "
                    f"{'untyped F1':>10}"]
    for name, chosen, f in rows:
        t, u = f["typed"], f["untyped"]
        setting = f"c1={chosen['c1']} c2={chosen['c2']} max_outside={chosen['max_outside']}"
        lines.append(f"  {name:<10} {setting:<40} {t[2]:>8.3f} {t[0]:>6.3f} {t[1]:>6.3f} {u[2]:>10.3f}")
    typed = [f["typed"][2] for _, _, f in rows]
    untyped = [f["untyped"][2] for _, _, f in rows]
    worst = min(range(len(rows)), key=lambda i: typed[i])
    lines.append(f"  worst: {rows[worst][0]} typed F1 {typed[worst]:.3f} (untyped {untyped[worst]:.3f}); "
                 f"mean typed F1 {sum(typed) / len(typed):.3f} (untyped {sum(untyped) / len(untyped):.3f})")
    return lines


def run(shared: Path, strict: bool = True, iterations: int = ITERATIONS, c1s=C1S, c2s=C2S,
        folds: int = FOLDS) -> int:
    """Print the leave-one-dataset-out tables (see the module docstring); ``iterations`` of L-BFGS
    per CRF fit (the shipped model's 150 by default), over the grid ``c1s`` x ``c2s`` x
    :data:`THRESHOLDS`; ``strict`` False prints only the text-left-out table."""
    from train_crf import Fitter

    sets = load_sets(shared)
    if len(sets) < 2:
        print(f"skipped: fewer than two labelled entity sets under {shared}")
        return 0
    print("sets: " + "; ".join(f"{n} train {len(s['train'].docs) if s['train'] else 0} / eval {len(s['eval'])} "
                               f"documents" for n, s in sets.items()))
    print(f"grid: c1 {list(c1s)} x c2 {list(c2s)} x max_outside {list(THRESHOLDS)}; {iterations} iterations; "
          f"{folds}-fold CV where one training set remains")
    t0 = time.perf_counter()
    fitter = Fitter(iterations)
    everything = [s["train"] for s in sets.values() if s["train"] is not None]
    chosen, pooled = procedure(everything, fitter, c1s, c2s, folds, log=print)
    pooled_rows = [(name, chosen, scored(name, s["eval"], pooled, chosen["max_outside"])) for name, s in sets.items()]
    print(f"[procedure on every training part: {time.perf_counter() - t0:.0f} s]")
    for line in _table("text left out (CRF trained on every licensed training part; settings chosen on the "
                       "training parts):", pooled_rows):
        print(line)
    if strict:
        rows = []
        for name, s in sets.items():
            training = [t for other, o in sets.items() if other != name and (t := o["train"]) is not None]
            if len(training) == len(everything):  # no training part of its own: the pooled run is strict
                rows.append((name, chosen, pooled_rows[list(sets).index(name)][2]))
                continue
            left_chosen, model = procedure(training, fitter, c1s, c2s, folds)
            rows.append((name, left_chosen, scored(name, s["eval"], model, left_chosen["max_outside"])))
            print(f"[{name} left out: {left_chosen['chosen_by']}; {time.perf_counter() - t0:.0f} s]", flush=True)
        for line in _table("dataset left out (the procedure run only on the other datasets' training parts):",
                           rows):
            print(line)
    print("reference: " + REFERENCES)
    return 0
