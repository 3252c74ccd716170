"""Post-hoc settings of a probabilistic classifier, chosen on held-out probabilities.

Two independent corrections of class probabilities ``p`` (rows sum to 1), both learned from
out-of-sample probabilities and gold labels of several held-out sets (for the tweet model: each
SemEval year left out in turn):

- :func:`fit_temperature`: bias-corrected temperature scaling (Alexandari, Kundaje, Shrikumar
  2020; plain temperature scaling, Guo et al. 2017, with ``bias=False``): calibrated
  ``softmax(log p / T + b)``, ``T`` and ``b`` minimising the held-out negative log-likelihood. What
  EM prior adjustment (:mod:`corpuskit.enrich.priors`) needs: it trusts the probabilities.
- :func:`fit_class_offsets`: one additive offset a class on ``log p`` whose argmax maximises the
  mean over the held-out sets of macro-averaged recall (each set counts once). Macro recall is not
  maximised by the most probable class when the classes are unequally hard; the offsets move the
  decision boundaries, not the probabilities.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = ["Calibration", "apply_calibration", "apply_offsets", "fit_class_offsets", "fit_temperature",
           "macro_recall"]


class Calibration(NamedTuple):
    """What :func:`fit_temperature` returns."""

    temperature: float  #: ``T``: log-probabilities are divided by it
    bias: np.ndarray  #: ``b``: added to the scaled log-probabilities (zeros without bias correction)
    priors: np.ndarray  #: the class shares of the labels fitted on: the priors the calibrated output assumes


def _log(p) -> np.ndarray:
    return np.log(np.clip(np.asarray(p, dtype=float), 1e-12, None))


def _softmax(z) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def apply_calibration(proba, cal: Calibration) -> np.ndarray:
    """``softmax(log proba / T + b)``: probabilities calibrated by ``cal``."""
    proba = np.asarray(proba, dtype=float)
    if len(proba) == 0:
        return proba.copy()
    return _softmax(_log(proba) / cal.temperature + cal.bias)


def fit_temperature(proba, y, bias: bool = True) -> Calibration:
    """Temperature (and, with ``bias``, one bias a class, the last fixed at 0) minimising the mean
    negative log-likelihood of the gold classes ``y`` under :func:`apply_calibration`. Deterministic
    (L-BFGS from ``T = 1``, ``b = 0``)."""
    from scipy.optimize import minimize

    z = _log(proba)
    y = np.asarray(y, dtype=int)
    n, k = z.shape
    onehot = np.zeros((n, k))
    onehot[np.arange(n), y] = 1.0
    n_bias = k - 1 if bias else 0

    def loss(theta):
        inv_t, b = np.exp(theta[0]), np.concatenate([theta[1:], np.zeros(k - n_bias)])
        s = z * inv_t + b
        s = s - s.max(axis=1, keepdims=True)
        log_norm = np.log(np.exp(s).sum(axis=1))
        nll = float((log_norm - s[np.arange(n), y]).mean())
        q = np.exp(s - log_norm[:, None])
        d = (q - onehot) / n  # d loss / d s
        grad = [float((d * z).sum() * inv_t)] + list(d.sum(axis=0)[:n_bias])
        return nll, np.array(grad)

    res = minimize(loss, np.zeros(1 + n_bias), jac=True, method="L-BFGS-B")
    b = np.concatenate([res.x[1:], np.zeros(k - n_bias)])
    return Calibration(float(np.exp(-res.x[0])), b, np.bincount(y, minlength=k) / n)


def macro_recall(y, pred, k: int) -> float:
    """Mean over the ``k`` classes of the share of each class's rows labelled as it (classes absent
    from ``y`` left out)."""
    y, pred = np.asarray(y), np.asarray(pred)
    present = [c for c in range(k) if (y == c).any()]
    return float(np.mean([(pred[y == c] == c).mean() for c in present]))


def apply_offsets(proba, offsets) -> np.ndarray:
    """The class of each row by ``argmax(log proba + offsets)``."""
    return (_log(proba) + np.asarray(offsets, dtype=float)).argmax(axis=1)


def fit_class_offsets(probas, ys, grid=None, fixed: int = 1) -> tuple[np.ndarray, float]:
    """``(offsets, mean macro recall)``: the offsets on log-probabilities, one a class (class
    ``fixed`` at 0), maximising the mean over the held-out sets ``(probas[i], ys[i])`` of their
    macro recall, searched over ``grid`` for every other class (default -1 to 1 by 0.05). Ties go to
    the smallest sum of absolute offsets, then the first in grid order: no offsets when nothing
    beats them."""
    grid = np.round(np.arange(-1.0, 1.0001, 0.05), 4) if grid is None else np.asarray(grid, dtype=float)
    logs = [_log(p) for p in probas]
    ys = [np.asarray(y, dtype=int) for y in ys]
    k = logs[0].shape[1]
    free = [c for c in range(k) if c != fixed]
    best = (-np.inf, np.inf, np.zeros(k))
    for values in np.array(np.meshgrid(*[grid] * len(free), indexing="ij")).reshape(len(free), -1).T:
        offsets = np.zeros(k)
        offsets[free] = values
        score = float(np.mean([macro_recall(y, (z + offsets).argmax(axis=1), k) for z, y in zip(logs, ys)]))
        size = float(np.abs(offsets).sum())
        if score > best[0] + 1e-12 or (abs(score - best[0]) <= 1e-12 and size < best[1]):
            best = (score, size, offsets)
    return best[2], best[0]
