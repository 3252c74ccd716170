"""Leave-one-file-out scoring on NAB: every setting and the threshold chosen without the file scored.

For each file held out, the setting (one of a list of candidate settings of
``detect``, each a ``{file: (timestamps, scores)}``) and the threshold are
chosen together to maximise NAB's standard raw score on the other files; the
held-out file is then scored at that setting and threshold. The held-out raw
scores are summed and normalised like NAB's table, so the figure reads on the
same 0-100 scale as the in-sample one, but no number in it saw the file it
scores.
"""
from __future__ import annotations

import numpy as np

from nab_scorer import load_profiles, load_windows, normalised, prepare, sweep


def raw_at(files: list, threshold: float, weights: dict) -> float:
    """NAB raw score of ``files`` detected at ``score >= threshold`` (the same sum as :func:`sweep`)."""
    total = 0.0
    for f in files:
        hit = (f.scores >= threshold) & f.scored
        for w in range(f.n_windows):
            inside = hit & (f.window == w)
            total += weights["tpWeight"] * np.nanmax(f.tp_part[inside]) if inside.any() \
                else -weights["fnWeight"]
        outside = hit & (f.window < 0)
        total += weights["fpWeight"] * float(np.nansum(f.fp_part[outside]))
    return total


def lofo(candidates: dict, nab, profile: str = "standard") -> tuple[float, list]:
    """``(normalised score, folds)`` of the leave-one-file-out choice among ``candidates``.

    ``candidates``: ``{setting name: {file: (timestamps, scores)}}``, every
    candidate over the same files. ``folds``: per held-out file, the setting
    and threshold chosen on the others, the normalised score there, and the
    held-out file's raw score and window count.
    """
    weights = load_profiles(nab)[profile]
    windows = load_windows(nab)
    prepared = {name: {f: prepare(ts, sc, windows[f]) for f, (ts, sc) in per.items()}
                for name, per in candidates.items()}
    files = sorted(next(iter(candidates.values())))
    order = list(candidates)
    raw_total, n_windows, folds = 0.0, 0, []
    for held in files:
        rest = [f for f in files if f != held]
        best = None
        for name in order:
            rows = [prepared[name][f] for f in rest]
            threshold, raw = sweep(rows, weights)
            if best is None or raw > best[2] + 1e-9:  # ties: the earlier (simpler) candidate
                best = (name, threshold, raw, sum(r.n_windows for r in rows))
        name, threshold, raw, rest_windows = best
        held_rows = prepared[name][held]
        held_raw = raw_at([held_rows], threshold, weights)
        raw_total += held_raw
        n_windows += held_rows.n_windows
        folds.append((held, name, threshold, normalised(raw, rest_windows, weights), held_raw,
                      held_rows.n_windows))
    return normalised(raw_total, n_windows, weights), folds
