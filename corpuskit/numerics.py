"""Arithmetic whose outcome does not depend on the BLAS kernel or the thread count.

OpenBLAS picks its kernels per CPU (Haswell, SkylakeX, Sandybridge, Prescott, ...), and each sums a
product in its own order. In float32 that moves a result by about 1e-7 of its size, enough to flip a
cut-off, a nearest centroid or a rounded digest; in float64 it moves it by about 1e-16. So every
learned transform whose output is thresholded, stored or digested is fitted and applied in float64,
and a value is cast to float32 only where it is stored. A value that decides something (a cut-off, a
rank) is first rounded to the precision it is stored with (:func:`stored`, :func:`rounded`), so the
decision is made on the very number a reader sees, the same on every machine.
"""
from __future__ import annotations

import numpy as np

#: rows of a float32 matrix widened to float64 at a time by :func:`dot_rows`: 1 MiB of 512-d rows stays
#: in cache (100,000 rows: 33 ms, as fast as a float32 product; 2,048 rows a block took 197 ms)
DOT_BLOCK = 256


def as64(x) -> np.ndarray:
    """``x`` as a float64 array (no copy when it already is one)."""
    return np.asarray(x, dtype=np.float64)


def stored(x) -> np.ndarray:
    """``x`` as it is stored: rounded to float32, returned as float32."""
    return np.asarray(x, dtype=np.float64).astype(np.float32)


def rounded(x, decimals: int = 6) -> np.ndarray:
    """``x`` (float64) rounded to ``decimals`` places, as a table stores and digests it."""
    return np.round(np.asarray(x, dtype=np.float64), decimals)


def unit_rows(matrix) -> np.ndarray:
    """Rows of ``matrix`` scaled to unit length in float64 (zero rows stay zero)."""
    m = np.asarray(matrix, dtype=np.float64)
    # elementwise products and numpy's own pairwise sum: no BLAS call, the same on every CPU
    norms = np.sqrt((m * m).sum(axis=-1, keepdims=True))
    return m / np.where(norms > 0, norms, 1.0)


def dot_rows(matrix, vector) -> np.ndarray:
    """``matrix @ vector`` in float64 for a float32 ``matrix`` (widened a block of rows at a time, so
    memory stays flat): one score per row that is the same under every kernel to ~1e-16."""
    vector = np.asarray(vector, dtype=np.float64)
    n = len(matrix)
    out = np.empty(n, dtype=np.float64)
    for lo in range(0, n, DOT_BLOCK):
        out[lo:lo + DOT_BLOCK] = np.asarray(matrix[lo:lo + DOT_BLOCK], dtype=np.float64) @ vector
    return out


def mean_rows(matrix) -> np.ndarray:
    """The mean row of ``matrix``, accumulated in float64."""
    return np.asarray(matrix).mean(axis=0, dtype=np.float64)
