"""What each enrichment instrument is, for methods text: name, what it does, its training data, its
measured accuracy and the benchmark that measured it, and what to cite.

Every text that names an instrument (the export codebook, plot labels, run notes, the methods
paragraph) asks :func:`instrument` with the ``model_name`` the enrich run recorded
(``runs.settings``: ``scorer``, ``extractor``, ``detector``), never a hand-typed name. The figures of
the shipped models are read from the metadata written beside them at training
(``corpuskit/enrich/models/*.json``); the language detector's are the held-out figures recorded in
``docs/languages.md`` (:data:`_DETECTOR_FIGURES`, checked against that page by a test). An
instrument this module does not know (a researcher's own scorer) is named by its ``model_name`` and
described as supplied by the researcher: its data and accuracy are theirs to state.
"""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

_MODELS = Path(__file__).resolve().parent / "models"

#: The language detector's held-out figures as ``docs/languages.md`` records them (a test checks
#: that the page still says so).
_DETECTOR_FIGURES = ("wrong among stated languages 0.5-1.0 % per fold, `und` 13 %",
                     "five-fold cross-validation (python benchmarks/bench_language.py)")

#: What each role is called in prose.
ROLES = {"scorer": "sentiment", "extractor": "entities", "detector": "language", "embedder": "embeddings"}


@lru_cache(maxsize=None)
def _model_json(name: str) -> dict:
    with open(_MODELS / name, encoding="utf-8") as fh:
        return json.load(fh)


def _tweet_model() -> dict:
    meta = _model_json("tweet_sentiment.json")
    cv = meta["cv_figures"]
    cal = meta.get("calibration")
    label = "the most probable class"
    accuracy = f"macro-averaged recall {cv['macro_recall']:.3f}, accuracy {cv['accuracy']:.3f}"
    benchmark = f"{meta['chosen_by']}, on its training data (recorded in tweet_sentiment.json)"
    if cal:
        label += " after per-class offsets chosen by leaving one SemEval year out"
        accuracy += (f"; with each SemEval year left out, macro-averaged recall worst "
                     f"{cal['nested_offsets_worst']:.3f}, mean {cal['nested_offsets_mean']:.3f}")
        benchmark += ("; the years left out by tools/train_sentiment.py (offsets chosen on the other years, "
                      "recorded in tweet_sentiment.json)")
    return {
        "what": "a multinomial logistic regression on word and character n-grams and lexicon cues, shipped "
                f"with corpuskit; score = P(positive) - P(negative), label = {label}",
        "training": f"{meta['data']} ({meta['tweets']:,} tweets)",
        "accuracy": accuracy,
        "benchmark": benchmark,
        "cite": "Rosenthal, Farra, Nakov (2017), SemEval-2017 Task 4: Sentiment Analysis in Twitter",
        "short": "tweet model",
    }


def _vader() -> dict:
    return {
        "what": "VADER's compound score, a rule-based English lexicon, labelled at the usual +-0.05 cut",
        "training": "none (a hand-built lexicon; nothing learned from data)",
        "accuracy": "no figure recorded with corpuskit",
        "benchmark": "python benchmarks/bench_sentiment.py measures it on SemEval 2013-2016",
        "cite": "Hutto, Gilbert (2014), VADER: A Parsimonious Rule-based Model for Sentiment Analysis of "
                "Social Media Text, ICWSM",
        "short": "VADER",
    }


def _hybrid() -> dict:
    meta = _model_json("wnut17_crf.json")
    if "lodo_figures" in meta:  # trained on several sets: each scored by the CRF fitted on the others
        held = "; ".join(f"{name} {f['typed']['f1']:.3f} (P {f['typed']['precision']:.3f}, "
                         f"R {f['typed']['recall']:.3f})" for name, f in sorted(meta["lodo_figures"].items()))
        accuracy = f"the CRF's typed F1 on each training set left out, fitted on the others: {held}"
    else:
        cv = meta["cv_figures"]["typed"]
        accuracy = f"the CRF's typed F1 {cv['f1']:.3f} (P {cv['precision']:.3f}, R {cv['recall']:.3f}) by cross-validation"
    sets = meta.get("training_sets", [])
    return {
        "what": "gazetteers of public name lists and a linear-chain CRF, resolved to one entity per name",
        "training": f"the CRF: {meta['data']}; fitted on {meta['fitted_on']}",
        "accuracy": f"{accuracy}; settings chosen by {meta['chosen_by']}",
        "benchmark": "wnut17_crf.json; python benchmarks/bench_entities.py --lodo",
        "cite": "; ".join(dict.fromkeys(r["cite"] for r in sets if r.get("cite"))),
        "short": "gazetteers and CRF",
    }


def _gazetteer() -> dict:
    return {"what": "gazetteers of public name lists only", "training": "none (name lists)",
            "accuracy": "no figure recorded with corpuskit", "benchmark": "python benchmarks/bench_entities.py",
            "cite": "", "short": "gazetteers"}


def _langid() -> dict:
    figures, bench = _DETECTOR_FIGURES
    return {
        "what": "py3langid's language identifier: ISO 639-1 codes, `und` below a confidence of 0.2, run as the "
                "first step of enrich on records whose file gave no language",
        "training": "py3langid's shipped model (langid.py, Lui and Baldwin 2012)",
        "accuracy": figures, "benchmark": bench,
        "cite": "Lui, Baldwin (2012), langid.py: An Off-the-shelf Language Identification Tool, ACL",
        "short": "py3langid",
    }


def _tfidf() -> dict:
    return {"what": "TF-IDF then truncated SVD to 512 dimensions, fitted on this corpus",
            "training": "this corpus's own texts", "accuracy": "not applicable (unsupervised)",
            "benchmark": "", "cite": "", "short": "TF-IDF and SVD"}


_KNOWN = {"tweet-sentiment-lr-1": _tweet_model, "vader-3.3": _vader, "corpuskit-hybrid-1": _hybrid,
          "corpuskit-gazetteer-1": _gazetteer, "py3langid-0.4-iso639-1": _langid,
          "corpuskit-tfidf-svd-512": _tfidf}


def instrument(role: str, model_name: str | None) -> dict:
    """``{role, name, known, what, training, accuracy, benchmark, cite, short}`` of the instrument a
    run recorded as ``model_name`` for ``role`` (``scorer``, ``extractor``, ``detector``,
    ``embedder``). ``short`` is what a label says (``"tweet model"``, ``"VADER"``); ``None`` (no run)
    gives ``known`` False and ``short`` ``"not run"``."""
    base = {"role": role, "name": model_name}
    if model_name is None:
        return base | {"known": False, "what": "not run", "training": "", "accuracy": "", "benchmark": "",
                       "cite": "", "short": "not run"}
    build = _KNOWN.get(model_name)
    if build is None:
        return base | {"known": False, "what": f"a {ROLES.get(role, role)} instrument supplied by the researcher",
                       "training": "stated by the researcher", "accuracy": "stated by the researcher",
                       "benchmark": "", "cite": "", "short": model_name}
    return base | {"known": True} | build()


def label(role: str, model_name: str | None) -> str:
    """A short label naming the instrument and its recorded name: ``"tweet model, tweet-sentiment-lr-1"``."""
    info = instrument(role, model_name)
    if not info["known"]:
        return info["short"]
    return f"{info['short']}, {model_name}"
