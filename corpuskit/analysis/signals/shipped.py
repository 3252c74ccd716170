"""The kinds corpuskit ships, registered by listing the class that declares each one.

In the order every list of kinds shows them (the registry, ``/v1`` and ``/api/v1`` enums, the
frames' checks). :mod:`.kinds` imports this module on its first lookup, so that importing the
registry (the HTTP layer, the narrate stage) does not load the statistics stack the detectors
need; ``corpuskit.api.app.preload_handlers`` imports it before a server's workers fork.
"""
from __future__ import annotations

from corpuskit.analysis.signals.divergence import DivergenceDetector
from corpuskit.analysis.signals.novelty import NoveltyDetector
from corpuskit.analysis.signals.sentiment import SentimentShiftDetector
from corpuskit.analysis.signals.volume import VolumeSpikeDetector

SHIPPED = (VolumeSpikeDetector, SentimentShiftDetector, NoveltyDetector, DivergenceDetector)
