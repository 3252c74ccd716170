"""Threshold search: the smallest count whose score reaches a sigma.

Every score here grows with the count (a bigger count is never less
surprising against the same baseline), so the search doubles an upper bound
until it scores, then bisects.
"""
from __future__ import annotations

from typing import Callable


def smallest_reaching(score: Callable[[int], float], sigma: float, start: int, guess: int,
                      limit: int) -> int:
    """Smallest count from ``start`` whose ``score(count)`` reaches ``sigma``; ``limit`` if none below it.

    ``guess`` is a first upper bound (raised to ``start``); it is doubled, up
    to ``limit``, while it does not score. From ``start`` up to ``limit``,
    ``score`` is never called at ``limit`` itself, so a caller that knows the
    observed count reached the threshold passes that count as ``limit``.
    """
    lo, hi = start, max(start, guess)
    while hi < limit and score(hi) < sigma:
        lo, hi = hi, min(hi * 2 + 1, limit)
    while lo < hi:
        mid = (lo + hi) // 2
        if score(mid) >= sigma:
            hi = mid
        else:
            lo = mid + 1
    return lo
