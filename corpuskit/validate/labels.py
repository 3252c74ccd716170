"""corpuskit's automatic labels against people's gold values, and the corrected corpus shares.

:func:`validate_labels` pairs, for each record of a sample with a gold value,
the gold class with corpuskit's label (sentiment label; primary topic, ``none``
when it has none; the type of the entity a record mentions most, ``none`` when
it names none) and reports:

* precision, recall and F1 per class, macro-F1 and accuracy;
* the confusion matrix (rows: gold, columns: corpuskit);
* Krippendorff's alpha between corpuskit and the gold values (the codebook's level);
* the **corrected share** of each class in the whole corpus. With ``M[i, j]``
  the share of gold class ``i`` that corpuskit labels ``j`` (measured on the
  sample) and ``q`` corpuskit's label shares over the corpus, the true shares
  ``p`` solve ``M' p = q`` (the misclassification-matrix method, Buonaccorsi
  2010, *Measurement Error*, ch. 3); the solution is clipped to the simplex
  (negatives to 0, then rescaled to sum to 1). For two classes it is the
  Rogan-Gladen (1978) estimator ``(q + Sp - 1) / (Se + Sp - 1)``.

Every figure carries a percentile bootstrap interval from resampling the
sample's records (seeded). The correction assumes the error rates by true class
measured on the sample hold across the corpus: a sample drawn at random, or
stratified by something other than corpuskit's own label.
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pandas as pd

from corpuskit.errors import ValidationError
from corpuskit.query.coding import LABEL_KINDS, automatic_labels, label_counts, sample_row
from corpuskit.validate.agreement import krippendorff_alpha
from corpuskit.validate.adjudicate import gold
from corpuskit.validate.samples import sample_codebook

_DEFAULT_VARIABLE = {"sentiment": ("sentiment",), "topic": ("topic",),
                     "entities": ("entity_type", "entities", "entity")}


@dataclass(frozen=True)
class ValidationResult:
    """What :func:`validate_labels` measured.

    ``per_class``: class, support (gold), precision, recall, f1, each with
    ``_low``/``_high``. ``summary``: statistic (accuracy, macro_f1, alpha), value,
    low, high. ``confusion``: counts, rows gold, columns corpuskit. ``corrected``:
    class, observed (corpuskit's share of the corpus), corrected, corrected_low,
    corrected_high, records (corpus records with a label).
    """

    kind: str
    sample: str
    variable: str
    classes: list
    pairs: pd.DataFrame
    confusion: pd.DataFrame
    per_class: pd.DataFrame
    summary: pd.DataFrame
    corrected: pd.DataFrame


def _scores(gold_idx: np.ndarray, pred_idx: np.ndarray, k: int) -> np.ndarray:
    """precision, recall, f1 per class (3 x k), then accuracy and macro-F1."""
    matrix = np.zeros((k, k))
    np.add.at(matrix, (gold_idx, pred_idx), 1)
    tp = np.diag(matrix)
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = tp / matrix.sum(axis=0)
        recall = tp / matrix.sum(axis=1)
        f1 = 2 * precision * recall / (precision + recall)
    f1 = np.where((precision == 0) & (recall == 0), 0.0, f1)
    present = matrix.sum(axis=1) > 0
    macro = float(np.nanmean(f1[present])) if present.any() else float("nan")
    return np.concatenate([precision, recall, f1, [tp.sum() / len(gold_idx), macro]])


def corrected_shares(gold_idx, pred_idx, observed: np.ndarray) -> np.ndarray:
    """True class shares from corpuskit's ``observed`` shares and the sample's misclassification matrix.

    ``M[i, j] = P(corpuskit j | gold i)`` from the pairs; solves ``M' p = observed``
    by least squares and clips the answer to the simplex. NaN when a class has no
    gold example or ``M`` is singular.
    """
    k = len(observed)
    matrix = np.zeros((k, k))
    np.add.at(matrix, (np.asarray(gold_idx), np.asarray(pred_idx)), 1)
    rows = matrix.sum(axis=1)
    if np.any(rows == 0):
        return np.full(k, np.nan)
    rates = matrix / rows[:, None]
    if abs(np.linalg.det(rates)) < 1e-9:
        return np.full(k, np.nan)
    p = np.linalg.solve(rates.T, np.asarray(observed, dtype=float))
    p = np.clip(p, 0.0, None)
    return p / p.sum() if p.sum() > 0 else np.full(k, np.nan)


def _variable_for(book, kind, variable):
    if variable is not None:
        return book.variable(variable)
    for name in _DEFAULT_VARIABLE[kind]:
        if name in book.variables:
            return book.variables[name]
    raise ValidationError(f"the codebook has no variable named {' or '.join(_DEFAULT_VARIABLE[kind])}; "
                          "say which one holds the gold values with variable=")


def validate_labels(corpus, kind: str, sample: str, variable: str | None = None, resamples: int = 1000,
                    seed: int = 0, level: float = 0.95) -> ValidationResult:
    """Compare corpuskit's ``kind`` labels (sentiment, topic, entities) with the gold values of ``sample``."""
    if kind not in LABEL_KINDS:
        raise ValidationError(f"kind must be one of {', '.join(LABEL_KINDS)}, not {kind!r}")
    book = sample_codebook(corpus, sample)
    if book is None:
        raise ValidationError(f"sample {sample!r} has no codebook")
    var = _variable_for(book, kind, variable)
    golden = gold(corpus, sample, var.name)
    if golden.empty:
        raise ValidationError(f"sample {sample!r} has no gold values for {var.name!r}; run adjudicate first")
    labels = {rid: (lab or "none") for rid, lab in
              automatic_labels(corpus.conn, sample_row(corpus.conn, sample)["id"], kind).items()}
    pairs = pd.DataFrame({"recordId": golden["recordId"], "gold": golden["value"],
                          "corpuskit": golden["recordId"].map(labels)}).dropna()
    if pairs.empty:
        raise ValidationError(f"no record of sample {sample!r} with a gold value has a {kind} label; "
                              "run enrich first")
    classes = list(var.values)
    foreign = sorted(set(pairs["corpuskit"]) - set(classes))
    if foreign:
        raise ValidationError(f"corpuskit labels {', '.join(foreign)} that {var.name!r} does not list "
                              f"({', '.join(classes)}); the codebook must name every {kind} label")
    k = len(classes)
    index = {c: i for i, c in enumerate(classes)}
    g = pairs["gold"].map(index).to_numpy()
    p = pairs["corpuskit"].map(index).to_numpy()
    counts = label_counts(corpus.conn, kind)
    counts = {(lab or "none"): c for lab, c in counts.items()}
    total = sum(counts.values())
    observed = np.array([counts.get(c, 0) / total for c in classes]) if total else np.full(k, np.nan)
    numeric = lambda gi, pi: krippendorff_alpha(  # noqa: E731
        np.vstack([[var.numeric(classes[i]) for i in gi], [var.numeric(classes[i]) for i in pi]]),
        var.level, [float(i) for i in range(k)] if var.level in ("nominal", "ordinal") else None)

    def everything(gi, pi):
        return np.concatenate([_scores(gi, pi, k), [numeric(gi, pi)], corrected_shares(gi, pi, observed)])

    point = everything(g, p)
    rng = np.random.default_rng(seed)
    draws = []
    for _ in range(int(resamples)):
        rows = rng.integers(0, len(g), size=len(g))
        draws.append(everything(g[rows], p[rows]))
    draws = np.asarray(draws)
    with warnings.catch_warnings():          # a statistic NaN in every resample (no such class)
        warnings.simplefilter("ignore", RuntimeWarning)
        low = np.nanquantile(draws, (1 - level) / 2, axis=0)
        high = np.nanquantile(draws, 0.5 + level / 2, axis=0)
    matrix = np.zeros((k, k), dtype=int)
    np.add.at(matrix, (g, p), 1)
    confusion = pd.DataFrame(matrix, index=pd.Index(classes, name="gold"),
                             columns=pd.Index(classes, name="corpuskit"))
    per_class = pd.DataFrame({"class": classes, "support": matrix.sum(axis=1)})
    for j, name in enumerate(("precision", "recall", "f1")):
        sl = slice(j * k, (j + 1) * k)
        per_class[name], per_class[f"{name}_low"], per_class[f"{name}_high"] = point[sl], low[sl], high[sl]
    summary = pd.DataFrame({"statistic": ["accuracy", "macro_f1", "alpha"],
                            "value": point[3 * k:3 * k + 3], "low": low[3 * k:3 * k + 3],
                            "high": high[3 * k:3 * k + 3]})
    sl = slice(3 * k + 3, 4 * k + 3)
    corrected = pd.DataFrame({"class": classes, "observed": observed, "corrected": point[sl],
                              "corrected_low": low[sl], "corrected_high": high[sl], "records": total})
    return ValidationResult(kind=kind, sample=sample, variable=var.name, classes=classes,
                            pairs=pairs.reset_index(drop=True), confusion=confusion,
                            per_class=per_class, summary=summary, corrected=corrected)
