"""Which records a caller asked for, checked once: the one selection object of the read path.

:class:`RecordFilter` holds every filter a records read takes (source, topic, entity, language,
sentiment, a publication or capture window, a query-language query and explicit ids) and turns
them into a :class:`~corpuskit.query.where.Where` over ``records r LEFT JOIN enrichment e ON
e.record_id = r.id``. Frames, exports, samples, subcorpora, search's pre-filter and both HTTP
interfaces build one and nothing else; a new filter is one more field here and one more line in
:meth:`RecordFilter.where`.

:func:`series_filter` selects the records of one signal track's series (its entity, topic, source,
phrase records or term), with the index hints the detectors' evidence reads need.
"""
from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, fields
from datetime import date, datetime

from corpuskit.clock import iso, parse_timestamp
from corpuskit.errors import ValidationError
from corpuskit.query.lookups import TopicNotFound, entity_id, topic_by_name
from corpuskit.query.values import SENTIMENT_LABELS
from corpuskit.query.where import Where

_BARE_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")

#: The FROM clause the conditions of :meth:`RecordFilter.where` are written for.
RECORDS_FROM = "records r LEFT JOIN enrichment e ON e.record_id = r.id"
#: The timestamp column ``since``/``until`` bound, by :attr:`RecordFilter.dates`.
DATE_COLUMNS = {"published": "r.published_at", "captured": "r.captured_at"}
#: The fields whose conditions read the enrichment row ``e`` (the others read ``records r`` alone).
_ENRICHED = ("topic", "sentiment", "primary_topic_id")


def is_bare_date(value) -> bool:
    """Whether a bound names a day and no time: ``"2021-08-21"`` or a :class:`datetime.date`."""
    if isinstance(value, str):
        return _BARE_DATE.match(value.strip()) is not None
    return isinstance(value, date) and not isinstance(value, datetime)


def bound_timestamp(value, name: str) -> str | None:
    """A bound (``since``/``until``) as a stored ISO timestamp string; ``None`` passes.

    **The bound rule, everywhere** (``RecordFilter`` and so ``Corpus.records``, exports and
    subcorpora; the query language's ``published:[a TO b]``; ``from``/``to`` and ``since``/``until``
    of both APIs): both bounds are inclusive, so a record published exactly at ``since`` or at
    ``until`` is selected; a bare date as ``until`` covers its whole day (through ``23:59:59``, the
    stored timestamps' last second) and as ``since`` starts at its midnight (UTC)."""
    if value is None:
        return None
    try:
        stamp = iso(parse_timestamp(value))
    except ValidationError as exc:
        raise ValidationError(f"{name}: {exc}") from None
    if name == "until" and is_bare_date(value):
        return stamp[:10] + "T23:59:59Z"
    return stamp


def _record_ids(ids) -> list[int]:
    if isinstance(ids, (str, bytes)):
        raise ValidationError(f"ids must be record ids (whole numbers), not {ids!r}")
    try:
        return [int(i) for i in ids]
    except (TypeError, ValueError):
        raise ValidationError("ids must be record ids (whole numbers)") from None


@dataclass(frozen=True)
class RecordFilter:
    """Records by

    - ``source`` (a source name);
    - ``topic`` (a topic name, by the primary-topic membership rule: the enriched primary topic,
      else the topic hint of a record never given one), or ``primary_topic_id`` (the enriched
      primary topic's id only, as the search index knows it: a record not yet enriched never
      matches; an id no topic has matches nothing);
    - ``entity`` (records that mention it: an entity id, name, slug or alias);
    - ``language`` (``records.language``) and ``sentiment`` (one of the sentiment labels);
    - ``since``/``until`` (inclusive bounds, any timestamp form) on ``publishedAt``, or on
      ``capturedAt`` when ``dates`` is ``"captured"``;
    - ``query`` (a query-language text or a compiled query, see :func:`~corpuskit.query.compile_query`);
    - ``ids`` (explicit record ids).

    Every field is optional; ``None`` means no condition.
    """

    source: str | None = None
    topic: str | None = None
    since: object = None
    until: object = None
    query: object = None
    sentiment: str | None = None
    language: str | None = None
    entity: object = None
    ids: object = None
    primary_topic_id: int | None = None
    dates: str | None = None

    def _selecting(self):
        return ((f.name, getattr(self, f.name)) for f in fields(self) if f.name != "dates")

    def __bool__(self) -> bool:
        return any(value is not None for _, value in self._selecting())

    @property
    def reads_enrichment(self) -> bool:
        """Whether a condition reads the enrichment row ``e`` (else ``records r`` alone suffices)."""
        return any(getattr(self, name) is not None for name in _ENRICHED)

    @property
    def date_column(self) -> str:
        """The column ``since``/``until`` bound (see :data:`DATE_COLUMNS`)."""
        try:
            return DATE_COLUMNS[self.dates or "published"]
        except KeyError:
            raise ValidationError(f"dates must be one of {', '.join(DATE_COLUMNS)}, not {self.dates!r}") from None

    @property
    def counts_stored(self) -> bool:
        """Whether only ``source``, ``topic`` and ``sentiment`` are set: the filters the counts
        analyse keeps cover (:func:`~corpuskit.query.stored_record_count`)."""
        return all(value is None for name, value in self._selecting()
                   if name not in ("source", "topic", "sentiment"))

    def topic_id(self, conn) -> int | None:
        """The id of the topic ``topic`` names; None for no topic filter, or for a topic no topic
        row has but some imported record's hint names (enrichment has not made it yet); else
        :class:`~corpuskit.query.TopicNotFound` naming the topics."""
        if self.topic is None:
            return None
        try:
            return topic_by_name(conn, self.topic)["id"]
        except TopicNotFound:
            if conn.execute("SELECT 1 FROM records WHERE topic = ? LIMIT 1",
                            (str(self.topic),)).fetchone() is None:
                raise
            return None

    def where(self, conn) -> Where:
        """The conditions over :data:`RECORDS_FROM`; :class:`ValidationError` for a bad value.

        ``topic`` must name a topic of the corpus, or a topic hint some imported record carries
        (see :meth:`topic_id`); ``entity`` an entity (:class:`~corpuskit.query.EntityNotFound`).
        """
        where = Where().text_query(self.query)
        if self.source is not None:
            if not isinstance(self.source, str) or not self.source:
                raise ValidationError(f"source must be a source name, not {self.source!r}")
            where.equal("r.source", self.source)
        if self.sentiment is not None:
            if self.sentiment not in SENTIMENT_LABELS:
                raise ValidationError(f"sentiment must be one of {', '.join(SENTIMENT_LABELS)}, "
                                      f"not {self.sentiment!r}")
            where.equal("e.sentiment_label", self.sentiment)
        if self.topic is not None:
            where.in_topic(self.topic_id(conn), str(self.topic))
        where.equal("e.topic_id", self.primary_topic_id)
        if self.language is not None:
            where.equal("r.language", str(self.language).lower())
        if self.entity is not None:
            where.add("r.id IN (SELECT record_id FROM mentions WHERE entity_id = ?)",
                      entity_id(conn, self.entity))
        if self.ids is not None:
            where.add("r.id IN (SELECT value FROM json_each(?))", json.dumps(_record_ids(self.ids)))
        column = self.date_column
        for bound, name in ((self.since, "since"), (self.until, "until")):
            where.bound(column, name, bound_timestamp(bound, name))
        return where

    def describe(self) -> dict:
        """The filters that are set, bounds as stored timestamps: ``{"source": ..., "since": ...}``
        (``ids`` as how many there are)."""
        out = {}
        for name, value in asdict(self).items():
            if value is not None:
                if name == "query":
                    value = getattr(value, "text", value)
                elif name == "ids":
                    value = len(_record_ids(value))
                out[name] = bound_timestamp(value, name) if name in ("since", "until") else value
        return out

    def record_ids_sql(self, conn) -> tuple[str, list]:
        """``(sql, args)``: a ``SELECT r.id`` of the matching records, to use as ``IN (...)``."""
        where = self.where(conn)
        return f"SELECT r.id FROM {RECORDS_FROM}{where.sql()}", list(where.args)


def series_filter(evidence: dict) -> tuple[str, str, list]:
    """``(joins, condition, args)``: the records of a signal track's series, over ``records r``.

    ``evidence`` names the series: ``entity_id``, ``topic_id`` (the enriched primary topic),
    ``record_ids`` (a phrase's records, as the phrase test read them), ``term`` (in the title or
    text) and ``source``. Topic and source are written ``+column`` so that SQLite does not drive
    the query from their indexes (a topic or a source holds a large share of the corpus: 0.6 s a
    query at 500,000 records) but from the day or time range every caller adds (a day's records:
    about 2 ms).
    """
    joins, where = "JOIN enrichment e ON e.record_id = r.id", Where()
    if "entity_id" in evidence:
        joins += " JOIN mentions m ON m.record_id = r.id"
        where.add("m.entity_id = ?", evidence["entity_id"])
    if "topic_id" in evidence:
        where.add("+e.topic_id = ?", evidence["topic_id"])
    if "record_ids" in evidence:
        where.add("r.id IN (SELECT value FROM json_each(?))", json.dumps(evidence["record_ids"]))
    if "term" in evidence:
        where.add("instr(r.title || ' ' || r.content_text, ?) > 0", evidence["term"])
    if "source" in evidence:
        where.add("+r.source = ?", evidence["source"])
    return joins, where.joined("1"), where.args
