"""NB-LR: one-vs-rest logistic regressions on naive-Bayes log-count-ratio scaled features.

Wang & Manning (2012), "Baselines and Bigrams: Simple, Good Sentiment and Topic Classification"
(NBSVM), with a logistic regression in place of the SVM (no interpolation). For each class ``k``,
``r_k = log((p_k / |p_k|_1) / (q_k / |q_k|_1))`` where ``p_k = alpha + `` the number of class-``k``
training texts holding each feature and ``q_k`` the same over the other classes; the binary
classifier for ``k`` reads the features multiplied column-wise by ``r_k``. Only the first
``n_sparse`` columns (the n-gram blocks, non-negative) are scaled: the dense lexicon columns after
them are standardised values, not counts, and are kept as they are. The three one-vs-rest
probabilities are normalised to sum to 1.
"""
from __future__ import annotations

import numpy as np
import scipy.sparse as sp


def log_count_ratios(x, y, n_classes: int, n_sparse: int, alpha: float = 1.0) -> np.ndarray:
    """``(n_classes, n_columns)`` ratios ``r_k`` of a training matrix ``x`` with labels ``y``: the
    log-count ratio of presence counts on the first ``n_sparse`` columns, 1 on the others."""
    x = sp.csr_matrix(x)
    present = sp.csr_matrix(((x.data > 0).astype(np.float64), x.indices, x.indptr), shape=x.shape)
    y = np.asarray(y)
    out = np.ones((n_classes, x.shape[1]))
    total = np.asarray(present.sum(axis=0)).ravel()[:n_sparse]
    for k in range(n_classes):
        in_k = np.asarray(present[y == k].sum(axis=0)).ravel()[:n_sparse]
        p, q = alpha + in_k, alpha + (total - in_k)
        out[k, :n_sparse] = np.log((p / p.sum()) / (q / q.sum()))
    return out


class NBLogistic:
    """One binary logistic regression per class on :func:`log_count_ratios`-scaled features.

    ``C`` and ``class_weight`` (``"balanced"`` or None) are each binary classifier's; ``n_sparse``
    is the number of leading count columns the ratios scale."""

    def __init__(self, C: float = 1.0, class_weight="balanced", n_sparse: int = 0, alpha: float = 1.0,
                 tol: float = 1e-3):
        self.C, self.class_weight, self.n_sparse, self.alpha, self.tol = C, class_weight, n_sparse, alpha, tol

    def fit(self, x, y):
        """Fit the ratios and the binary classifiers on ``x``, ``y`` (labels 0..k-1); returns self."""
        from sklearn.linear_model import LogisticRegression

        y = np.asarray(y)
        self.classes_ = np.arange(int(y.max()) + 1)
        self.r_ = log_count_ratios(x, y, len(self.classes_), self.n_sparse, self.alpha)
        self.coef_ = np.zeros((len(self.classes_), x.shape[1]))
        self.intercept_ = np.zeros(len(self.classes_))
        for k in self.classes_:
            clf = LogisticRegression(C=self.C, class_weight=self.class_weight, max_iter=2000, tol=self.tol,
                                     solver="lbfgs")
            clf.fit(sp.csr_matrix(x) @ sp.diags(self.r_[k]), (y == k).astype(int))
            # r is folded into the weights: the scaled input times w equals the input times r * w
            self.coef_[k] = clf.coef_[0] * self.r_[k]
            self.intercept_[k] = clf.intercept_[0]
        return self

    def predict_proba(self, x) -> np.ndarray:
        """The one-vs-rest probabilities of ``x``, each row normalised to sum to 1."""
        z = np.asarray(sp.csr_matrix(x) @ self.coef_.T) + self.intercept_
        p = 1.0 / (1.0 + np.exp(-z))
        return p / p.sum(axis=1, keepdims=True)
