"""Class priors of an unlabelled corpus by EM (Saerens, Latinne, Decaestecker 2002).

A classifier's probabilities carry the class priors it was trained under. The shipped tweet
sentiment model is trained with balanced class weights, so it behaves as if the three classes
were equally common; on a corpus that is mostly neutral, its argmax labels then over-count the
positive and negative classes. :func:`em_priors` re-estimates the priors from the corpus's own
unlabelled probabilities and gives the posteriors adjusted to them:

- E step: ``p'(c|x) = p(c|x) * q(c) / t(c)``, renormalised over the classes, where ``t`` are
  the training priors and ``q`` the current corpus priors;
- M step: ``q(c) = mean over the corpus of p'(c|x)``;

from ``q = t`` until ``q`` moves less than ``tol``. The adjusted posteriors' mean is the share
estimate; their argmax is a label that respects the corpus's priors.

Saerens, M., Latinne, P., Decaestecker, C. (2002), "Adjusting the Outputs of a Classifier to New
a Priori Probabilities: A Simple Procedure", Neural Computation 14(1).
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from corpuskit.errors import ValidationError

__all__ = ["PriorFit", "adjust_posteriors", "em_priors", "labels_for_priors"]


class PriorFit(NamedTuple):
    """What :func:`em_priors` returns."""

    priors: np.ndarray  #: the estimated corpus priors (sum to 1)
    posteriors: np.ndarray  #: the probabilities adjusted to them
    iterations: int  #: EM steps taken


def adjust_posteriors(proba, train_priors, priors) -> np.ndarray:
    """``proba`` (rows of class probabilities under ``train_priors``) re-weighted to ``priors``."""
    proba = np.asarray(proba, dtype=float)
    w = np.asarray(priors, dtype=float) / np.asarray(train_priors, dtype=float)
    out = proba * w
    total = out.sum(axis=1, keepdims=True)
    return np.divide(out, total, out=np.full_like(out, 1.0 / out.shape[1]), where=total > 0)


def em_priors(proba, train_priors, tol: float = 1e-6, max_iter: int = 1000) -> PriorFit:
    """The class priors of the texts behind ``proba`` (one row of class probabilities per text,
    produced under ``train_priors``), estimated by EM, with the adjusted posteriors.

    Deterministic: no randomness, starts from ``train_priors``. An empty ``proba`` returns the
    training priors unchanged."""
    proba = np.asarray(proba, dtype=float)
    t = np.asarray(train_priors, dtype=float)
    if proba.ndim != 2 or proba.shape[1] != t.size:
        raise ValidationError(f"proba must have one column per class ({t.size}); got shape {proba.shape}")
    if np.any(t <= 0) or not np.isclose(t.sum(), 1.0):
        raise ValidationError("train_priors must be positive and sum to 1")
    if len(proba) == 0:
        return PriorFit(t.copy(), proba.copy(), 0)
    q = t.copy()
    for step in range(1, max_iter + 1):
        post = adjust_posteriors(proba, t, q)
        new = post.mean(axis=0)
        moved = float(np.abs(new - q).max())
        q = new
        if moved < tol:
            break
    return PriorFit(q, adjust_posteriors(proba, t, q), step)


def labels_for_priors(posteriors, priors, max_iter: int = 500) -> np.ndarray:
    """A class per row whose counts match ``priors`` (to within a row or two per class): the argmax
    of ``log(posteriors) + b``, with one offset ``b`` per class found by damped fixed-point steps.

    The argmax of prior-adjusted posteriors alone over-counts the commonest class (it maximises
    accuracy, not share fidelity); the offsets keep each text's ranking of classes and move only
    the borderline texts, so that counting the labels gives the estimated shares."""
    p = np.log(np.clip(np.asarray(posteriors, dtype=float), 1e-12, None))
    n, k = p.shape
    if n == 0:
        return np.zeros(0, dtype=int)
    target = np.asarray(priors, dtype=float) * n
    b = np.zeros(k)
    best = (np.inf, p.argmax(axis=1))
    for _ in range(max_iter):
        labels = (p + b).argmax(axis=1)
        counts = np.bincount(labels, minlength=k)
        miss = float(np.abs(counts - target).sum())
        if miss < best[0]:
            best = (miss, labels)
        if miss <= k:
            break
        b += 0.5 * (np.log(np.maximum(target, 0.5)) - np.log(np.maximum(counts, 0.5)))
    return best[1]
