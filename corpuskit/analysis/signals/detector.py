"""The :class:`Detector` base: what the replay asks of every detector, and what corpuskit knows about its kind.

A detector stores its parameters in ``__init__`` (they are its settings: the
replay fingerprints ``vars(detector)``), names its ``kind`` and turns the daily
series into :class:`~corpuskit.analysis.signals.track.Track` objects.
Detectors run together; ``peers`` (every detector of the run) lets one range
of the surge scorer leave to another what that one claims
(see :meth:`Detector.novelty_range`).

The class that defines a kind also declares, as class attributes and class methods,
everything the rest of corpuskit does differently for that kind: its names (``kind``,
``v1_name``), its sign convention (``sign``) and what it measures (``measure``), its
prose (:meth:`Detector.prose`), its evidence (:meth:`Detector.record_span`,
:meth:`Detector.evidence_records`, :meth:`Detector.episode_series`), how ``/v1``
shows its detail (``v1_fields``), whether it says a name is new (``names_new_entity``),
how it is matched to a planted event (:meth:`Detector.detects_planted`) and, optionally,
how it scores a researcher's own series (``score_series``, for
:func:`corpuskit.signals.detect`). It is registered once (a shipped kind by its place in
:mod:`~corpuskit.analysis.signals.shipped`, any other with
:func:`~corpuskit.analysis.signals.kinds.register`); everything else asks
:mod:`~corpuskit.analysis.signals.kinds`. The defaults here are those of a kind
nobody declared (a custom detector's): a rising count, its series' records as evidence,
the detector's own headline as prose.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, ClassVar, Sequence

from corpuskit.analysis.signals.evidence import series_records
from corpuskit.analysis.signals.track import Track
from corpuskit.stats.thresholds import NOVELTY_MAX_BASELINE, OPEN_SIGMA

if TYPE_CHECKING:   # the series module pulls in the text and statistics stack; the registry imports this one
    from corpuskit.analysis.signals.series import DailySeries


@dataclass(frozen=True)
class RecordSpan:
    """The stretch of a series' records behind a signal: the days ``first`` to ``last``, or, with
    ``hour`` (``YYYY-MM-DDTHH:00:00Z``), that hour of the day ``first``."""

    first: str
    last: str
    hour: str | None = None


@dataclass(frozen=True)
class SignalWords:
    """What a kind's :meth:`~Detector.prose` writes from, worded by :func:`corpuskit.narrate.prose.signal_prose`.

    ``signal`` is the stored row (``detail`` decoded), ``beat``/``entity`` the story's topic and
    entity (or None); ``short`` and ``full`` name the subject for a headline and for a sentence;
    ``day`` is the detail's day as a reader writes it (``22 November 2019``), ``window`` the
    baseline days and ``strength`` the severity and sigma (``high severity, 5.2 sigma``).
    """

    signal: dict
    detail: dict
    beat: dict | None
    entity: dict | None
    short: str
    full: str
    day: str
    window: int
    strength: str


class Detector(ABC):
    """One kind of signal over the daily series, and the facts of its kind (see the module docstring)."""

    #: The stored name of the kind (``signals.kind``): lower case, digits and ``_``.
    kind: ClassVar[str] = ""
    #: Its name in ``/v1`` (``None``: ``/v1`` does not serve the kind).
    v1_name: ClassVar[str | None] = None
    #: ``"up"``: a one-sided test, only a rise above the baseline is a signal; ``"both"``: a move
    #: either way is one (the sigma is ``|z|``; the detail says which way).
    sign: ClassVar[str] = "up"
    #: ``"count"``: records counted per period (the signal fires on the record that crossed the
    #: threshold count; its records are the episode's first day, week or hour); ``"mean"``: a mean of
    #: sentiment scores (it fires at the end of the day; its records are the after window, ``afterDays``
    #: ending on the peak day).
    measure: ClassVar[str] = "count"
    #: An open signal of the kind says its entity is new (``/api/v1`` entity profiles'
    #: ``noveltyActive``, the entities a story round covers), and links with the other signals on
    #: that entity whatever their records (:mod:`.linking`).
    names_new_entity: ClassVar[bool] = False
    #: ``/v1`` signal detail: ``{field: detail keys tried in order}`` lifted to the top of the object
    #: (with ``quality`` and ``event``; a lifted ``summary`` defaults to the headline); ``None``: the
    #: stored detail is served whole under ``detail``.
    v1_fields: ClassVar[dict | None] = None
    #: ``score_series(series, rhythm, cycles, min_history, materiality, form) -> (scores, plan)``: the kind's
    #: test on a researcher's pandas series (:func:`corpuskit.signals.detect`); ``None``: it has none.
    score_series: ClassVar[Callable | None] = None
    #: ``detect``'s default ``threshold`` for the kind (the sigma at which ``fired`` is set).
    series_threshold: ClassVar[float] = OPEN_SIGMA

    @abstractmethod
    def tracks(self, series: DailySeries, peers: Sequence["Detector"] = ()) -> list[Track]:
        """The tracks whose sigma reaches ``OPEN_SIGMA`` on some day."""

    def novelty_range(self) -> int | None:
        """Most baseline mentions of a name this detector reports as new (``None``: it claims no range)."""
        return None

    # -- the kind's facts ------------------------------------------------------------------------
    @classmethod
    def record_span(cls, detail: dict, start: str, peak: str) -> RecordSpan:
        """The records behind an episode that started on ``start`` and peaked on ``peak``: a count's
        first day (its week, for a weekly surge), a mean's after window ending on the peak day."""
        if cls.measure == "mean":
            return RecordSpan(after_start(detail, peak), peak)
        return RecordSpan(detail["weekStart"] if detail.get("scale") == "week" else start, start)

    @classmethod
    def evidence_records(cls, conn, evidence: dict, span: RecordSpan, detail: dict, limit: int) -> list[int]:
        """Ids of the records kept as a signal's evidence (at most ``limit``, in a fixed order): by
        default the series' records of ``span`` in the order they arrived."""
        return series_records(conn, evidence, span, limit)

    @classmethod
    def episode_series(cls, signal: dict) -> list[tuple[dict, str, str]] | None:
        """``[(series filter, first day, last day), ...]`` whose records make a stored signal's episode
        (``signal`` as :func:`~.linking.load_signals` reads it, with its ``span``); ``None`` when the
        row does not name its series. A mean's: its topic over the after window of its first day to
        its peak; a count's: the series :meth:`series_name` names, over its span."""
        detail = signal["detail"]
        first, last = signal["span"]
        if cls.measure == "mean":
            if signal.get("topic_id") is None:
                return None
            peak = detail.get("peakDay") or last
            return [({"topic_id": signal["topic_id"]}, after_start(detail, first), peak)]
        series = cls.series_name(signal)
        if series == "topic" and signal.get("topic_id") is not None:
            return [({"topic_id": signal["topic_id"]}, first, last)]
        if series == "source" and signal.get("source"):
            led = {"topic_id": signal["topic_id"]} if signal.get("topic_id") is not None else {}
            return [({"source": signal["source"], **led}, first, last)]
        if series == "entity" and signal.get("entity_id") is not None:
            return [({"entity_id": signal["entity_id"]}, first, last)]
        if series == "term" and detail.get("term"):
            return [({"term": detail["term"]}, first, last)]
        return None

    @classmethod
    def series_name(cls, signal: dict) -> str | None:
        """Which series a stored count signal tested: ``entity`` when it has an entity, else ``term``."""
        return "entity" if signal.get("entity_id") else "term"

    @classmethod
    def prose(cls, words: SignalWords) -> tuple[str, str] | None:
        """``(headline, framing sentence)`` in plain English, or ``None`` when the detail lacks the
        figures (the story then rewords the detector's own headline)."""
        return None

    @classmethod
    def detects_planted(cls, event: dict, detail: dict) -> bool:
        """Whether a signal of this kind, on the event's beat and day, found the demo's planted
        ``event`` (its ground truth): by default, always."""
        return True


def after_start(detail: dict, day: str) -> str:
    """First day of a mean's after window ending on ``day`` (``afterDays`` long)."""
    from corpuskit.analysis.signals.series import shift_day

    return shift_day(day, -(int(detail.get("afterDays", 1)) - 1))


def novelty_bound(peers: Sequence[Detector]) -> int:
    """The novelty range of a run: the largest one a peer claims (``NOVELTY_MAX_BASELINE`` if none does)."""
    claimed = [r for r in (p.novelty_range() for p in peers if isinstance(p, Detector)) if r is not None]
    return max(claimed) if claimed else NOVELTY_MAX_BASELINE
