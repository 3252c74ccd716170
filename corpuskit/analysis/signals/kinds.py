"""The registry of signal kinds: the one place the rest of corpuskit asks what a kind does.

Each kind is declared once, by the :class:`~corpuskit.analysis.signals.detector.Detector`
subclass that finds it, in its own module of :mod:`corpuskit.analysis.signals`: its names,
sign, prose and evidence are its class attributes and class methods (see :mod:`.detector`).
The shipped kinds are registered by listing their class in :mod:`.shipped`, in the order every
list shows them: ``volume_spike`` (``velocity`` in ``/v1``, :mod:`.volume`),
``sentiment_shift`` (:mod:`.sentiment`), ``novelty`` (:mod:`.novelty`) and ``divergence``
(:mod:`.divergence`); a researcher's detector registers its kind with the :func:`register`
decorator, and comes after them.

Nothing outside the registry and the detectors switches on a kind's name
(``tests/test_layers.py`` checks it): the lifecycle, quality flags, naming, linking and
the evaluation ask :func:`signal_kind`; the narrate stage asks it for a signal's prose;
the HTTP layer and the frames read the lists below. A kind registered later appears in them
from then on.

It lives in ``analysis`` (layer 3) beside the detectors because a kind's facts are code
of its detector; ``narrate``, the library surface and the front ends may import it,
and ``analysis`` imports neither ``ingest`` nor ``narrate``, so that stays acyclic. Importing
it is light: the shipped detectors (and the statistics stack they import) are loaded on the
first lookup.
"""
from __future__ import annotations

import re
import threading
from collections.abc import Mapping, Sequence

from corpuskit.analysis.signals.detector import Detector

_REGISTRY: dict[str, type[Detector]] = {}
_LOADING = threading.RLock()
_loaded = False
_NAME = re.compile(r"[a-z][a-z0-9_]*\Z")      # a kind's names go into SQL and URLs as they are
SIGNS = ("up", "both")
MEASURES = ("count", "mean")


def _registry() -> dict[str, type[Detector]]:
    """The registered kinds, the shipped ones first (loaded from :mod:`.shipped` on first use)."""
    global _loaded
    if not _loaded:
        with _LOADING:
            if not _loaded:
                from corpuskit.analysis.signals.shipped import SHIPPED

                for cls in SHIPPED:
                    _add(cls)
                _loaded = True
    return _REGISTRY


def register(cls: type[Detector]) -> type[Detector]:
    """Class decorator: register the kind ``cls`` declares (its ``kind`` and the facts of :class:`Detector`).

    Raises ``ValueError`` for a malformed declaration, or a name (stored or ``/v1``) another
    registered class already holds.
    """
    with _LOADING:
        _registry()
        return _add(cls)


def _add(cls):
    if not (isinstance(cls, type) and issubclass(cls, Detector)):
        raise ValueError(f"{cls!r} is not a Detector subclass")
    name, v1 = cls.kind, cls.v1_name
    if not isinstance(name, str) or not _NAME.match(name):
        raise ValueError(f"{cls.__name__}.kind must be a lower-case name ([a-z][a-z0-9_]*), got {name!r}")
    if v1 is not None and (not isinstance(v1, str) or not _NAME.match(v1)):
        raise ValueError(f"{cls.__name__}.v1_name must be None or a lower-case name, got {v1!r}")
    if cls.sign not in SIGNS or cls.measure not in MEASURES:
        raise ValueError(f"{cls.__name__}: sign must be one of {SIGNS} and measure one of {MEASURES}")
    held = _REGISTRY.get(name)
    if held is not None and held is not cls:
        raise ValueError(f"signal kind {name!r} is already registered by {held.__qualname__}")
    if v1 is not None and any(k.v1_name == v1 for k in _REGISTRY.values() if k is not held):
        raise ValueError(f"/v1 name {v1!r} is already taken")
    _REGISTRY[name] = cls
    return cls


def unregister(name: str) -> type[Detector] | None:
    """Remove the kind ``name`` (a test's own kind); returns its class, or ``None``."""
    with _LOADING:
        return _registry().pop(name, None)


def signal_kind(name) -> type[Detector]:
    """The class that declares kind ``name``; the :class:`Detector` base (a kind nobody declared:
    the defaults) when none does."""
    return _registry().get(name, Detector)


def kind_names() -> tuple[str, ...]:
    """Stored names of every registered kind, in registration order."""
    return tuple(_registry())


def v1_kinds() -> dict[str, str]:
    """``{/v1 name: stored name}`` of the kinds ``/v1`` serves."""
    return {k.v1_name: name for name, k in _registry().items() if k.v1_name is not None}


def new_entity_kinds() -> tuple[str, ...]:
    """The kinds whose open signal says its entity is new (``names_new_entity``)."""
    return tuple(name for name, k in _registry().items() if k.names_new_entity)


def series_kinds() -> tuple[str, ...]:
    """The kinds :func:`corpuskit.signals.detect` runs on a pandas series (they have ``score_series``)."""
    return tuple(name for name, k in _registry().items() if k.score_series is not None)


def sql_names(names) -> str:
    """``'a', 'b'``: kind names as SQL literals, for an ``IN (...)`` (names are checked by :func:`register`)."""
    return ", ".join(f"'{n}'" for n in names)


class _Live:
    """A container whose contents ``read()`` gives afresh each time it is used."""

    def __init__(self, read):
        self._read = read

    def __getitem__(self, i):
        return self._read()[i]

    def __len__(self):
        return len(self._read())

    def __repr__(self):
        return repr(self._read())


class _Names(_Live, Sequence):
    """A tuple of names read from the registry each time it is used (a kind registered later is in it)."""


class _Table(_Live, Mapping):
    """A dict read from the registry each time it is used."""

    def __iter__(self):
        return iter(self._read())


#: Stored names of the registered kinds (a live view of :func:`kind_names`).
SIGNAL_KINDS = _Names(kind_names)
#: ``{/v1 name: stored name}`` (a live view of :func:`v1_kinds`).
V1_KINDS = _Table(v1_kinds)
#: The kinds :func:`corpuskit.signals.detect` runs (a live view of :func:`series_kinds`).
SERIES_KINDS = _Names(series_kinds)
#: ``{stored name: /v1 name}`` of the kinds ``/v1`` serves.
STORED_TO_V1 = _Table(lambda: {stored: v1 for v1, stored in v1_kinds().items()})
