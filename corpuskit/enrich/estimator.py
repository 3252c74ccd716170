"""Declared parameters of the enrichment steps, checked in one place (scikit-learn's convention).

A step's ``__init__`` only stores its arguments. Its class declares what
each may hold in ``_parameter_constraints`` (``{name: [constraint, ...]}``,
a value passes when any constraint accepts it; ``None`` in the list accepts
None), and :meth:`Estimator._validate_params` checks them when the step is
fitted or first used, raising :class:`~corpuskit.errors.ValidationError`.
"""
from __future__ import annotations

import inspect
from numbers import Integral, Real

from corpuskit.errors import ValidationError


class Interval:
    """Numbers of ``kind`` (``Integral`` or ``Real``) between ``low`` and ``high`` (None: unbounded),
    both ends included; booleans are not numbers here."""

    def __init__(self, kind, low=None, high=None):
        self.kind, self.low, self.high = kind, low, high

    def accepts(self, value) -> bool:
        """Whether ``value`` is such a number."""
        if isinstance(value, bool) or not isinstance(value, self.kind):
            return False
        return (self.low is None or value >= self.low) and (self.high is None or value <= self.high)

    def __str__(self) -> str:
        name = "an integer" if self.kind is Integral else "a number"
        if self.low is not None and self.high is not None:
            return f"{name} in [{self.low}, {self.high}]"
        if self.low is not None:
            return f"{name} >= {self.low}"
        return f"{name} <= {self.high}" if self.high is not None else name


class InstanceOf:
    """Values of one of ``types``."""

    def __init__(self, *types):
        self.types = types

    def accepts(self, value) -> bool:
        """Whether ``value`` is an instance of one of the types."""
        return isinstance(value, self.types)

    def __str__(self) -> str:
        return " or ".join(f"a {t.__name__}" for t in self.types)


class Pair:
    """Tuples or lists of two integers ``(a, b)`` with ``1 <= a <= b`` (an n-gram range)."""

    def accepts(self, value) -> bool:
        """Whether ``value`` is such a pair."""
        return (isinstance(value, (tuple, list)) and len(value) == 2
                and all(isinstance(v, Integral) and not isinstance(v, bool) for v in value)
                and 1 <= value[0] <= value[1])

    def __str__(self) -> str:
        return "a pair (a, b) of integers with 1 <= a <= b"


class Weights:
    """Sequences of ``size`` non-negative numbers."""

    def __init__(self, size: int):
        self.size = size

    def accepts(self, value) -> bool:
        """Whether ``value`` is such a sequence."""
        return (isinstance(value, (tuple, list)) and len(value) == self.size
                and all(isinstance(v, Real) and not isinstance(v, bool) and v >= 0 for v in value))

    def __str__(self) -> str:
        return f"{self.size} non-negative numbers"


class Estimator:
    """Parameters stored by ``__init__``, declared in ``_parameter_constraints``, checked by
    :meth:`_validate_params`; fitted state lives in attributes ending in ``_``."""

    #: ``{parameter: [constraint, ...]}``; ``None`` in a list accepts None
    _parameter_constraints: dict = {}

    @classmethod
    def _param_names(cls) -> list[str]:
        signature = inspect.signature(cls.__init__)
        return [p.name for p in signature.parameters.values()
                if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]

    def get_params(self) -> dict:
        """The constructor's parameters and their values."""
        return {name: getattr(self, name) for name in self._param_names()}

    def _validate_params(self) -> None:
        """Raise ValidationError naming the first parameter whose value no declared constraint accepts."""
        for name, constraints in self._parameter_constraints.items():
            value = getattr(self, name)
            if any(value is None if c is None else c.accepts(value) for c in constraints):
                continue
            allowed = " or ".join("None" if c is None else str(c) for c in constraints)
            raise ValidationError(f"{type(self).__name__}: {name} must be {allowed}, not {value!r}")
