"""The :class:`~corpuskit.corpus.Corpus` methods on one noun. Signals, their evidence, and the observations
of the run."""
from __future__ import annotations

import pandas as pd


class SignalMethods:
    """Signals, their evidence, and the observations of the run."""

    def signals(self, kind: str | None = None, topic: str | None = None,
                severity: str | None = None, status: str | None = None,
                since=None, until=None) -> pd.DataFrame:
        """Detected signals, oldest detection first.

        Columns: ``id, kind`` (volume_spike, sentiment_shift, novelty,
        divergence), ``topic`` (name or None), ``entity`` (the entity a novelty
        is about), ``source`` (the source a per-source series is about),
        ``severity`` (high, medium, low), ``sigmaScore, headline, detail``
        (dict; keys per kind: baseline, test, sigma, peakDay, ...),
        ``detectedAt, status`` (open, resolved), ``resolvedAt, acknowledged,
        narrativeId`` (the story it triggered), ``runId``, ``event`` (the id of
        the linked event the signal belongs to: the ``signal_key`` of the event's
        strongest signal, or the signal's own key when nothing is linked to it; see
        :mod:`corpuskit.analysis.signals.linking`).

        Filters: ``kind`` (``velocity``, the ``/v1`` name, means
        volume_spike), ``topic`` (a topic name), ``severity``, ``status``,
        ``since``/``until`` (on ``detectedAt``, inclusive).
        :class:`ValidationError` for a value outside its set.
        """
        from corpuskit import frames

        return frames.signals(self, kind=kind, topic=topic, severity=severity, status=status,
                              since=since, until=until)

    def signal_evidence(self, signal_id: int) -> pd.DataFrame:
        """The evidence one signal keeps: one row per record, entity, topic and story.

        Columns: ``kind`` (record, entity, topic, story), ``id``, ``label`` (a
        record's title or text start, an entity's name, a topic's display
        name, a story's headline), ``source`` and ``sentimentScore`` (records),
        ``entityType`` (entities). Records come oldest first; the signal's own
        entity is the first entity. :class:`NotFoundError` for an unknown id.
        """
        from corpuskit import frames

        return frames.signal_evidence(self, signal_id)

    def observations(self, type: str | None = None, severity: str | None = None,
                     since=None) -> pd.DataFrame:
        """Cross-topic observations, newest first.

        Columns: ``observedAt, type`` (convergence, divergence, anomaly,
        milestone, trend), ``severity, headline, detail`` (dict), ``topic``
        (from the detail, when it names one), ``test, p_value`` (a trend's last week against
        its first, a volume divergence's two topics: the exact two-rate test; else None, NaN).
        """
        from corpuskit import frames

        return frames.observations(self, type=type, severity=severity, since=since)
