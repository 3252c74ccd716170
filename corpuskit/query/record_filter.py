"""Which records a caller asked for: source, topic and a publication window, checked once.

:class:`RecordFilter` holds the filters a records read or an export takes and
turns them into a :class:`~corpuskit.query.where.Where` over
``records r LEFT JOIN enrichment e ON e.record_id = r.id``. A new filter (the
query language, say) is one more field here and one more line in
:meth:`RecordFilter.where`.
"""
from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from datetime import date, datetime

from corpuskit.clock import iso, parse_timestamp
from corpuskit.errors import ValidationError
from corpuskit.query.lookups import TopicNotFound, topic_by_name
from corpuskit.query.where import Where

_BARE_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")

#: The FROM clause the conditions of :meth:`RecordFilter.where` are written for.
RECORDS_FROM = "records r LEFT JOIN enrichment e ON e.record_id = r.id"


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


@dataclass(frozen=True)
class RecordFilter:
    """Records by ``source`` (a source name), ``topic`` (a topic name, by the primary-topic
    membership rule) and ``since``/``until`` (inclusive bounds on ``publishedAt``, any timestamp
    form) and ``query`` (a query-language text or a compiled query, see
    :func:`~corpuskit.query.compile_query`). Every field is optional; ``None`` means no condition."""

    source: str | None = None
    topic: str | None = None
    since: object = None
    until: object = None
    query: object = None

    def __bool__(self) -> bool:
        return any(v is not None for v in asdict(self).values())

    def where(self, conn) -> Where:
        """The conditions over :data:`RECORDS_FROM`; :class:`ValidationError` for a bad value.

        ``topic`` must name a topic of the corpus, or a topic hint some imported record
        carries (enrichment has not made the topic yet); else
        :class:`~corpuskit.query.TopicNotFound` naming the topics.
        """
        where = Where().text_query(self.query)
        if self.source is not None:
            if not isinstance(self.source, str) or not self.source:
                raise ValidationError(f"source must be a source name, not {self.source!r}")
            where.equal("r.source", self.source)
        if self.topic is not None:
            try:
                tid = topic_by_name(conn, self.topic)["id"]
            except TopicNotFound:
                if conn.execute("SELECT 1 FROM records WHERE topic = ? LIMIT 1",
                                (str(self.topic),)).fetchone() is None:
                    raise
                tid = None
            where.in_topic(tid, str(self.topic))
        for bound, name in ((self.since, "since"), (self.until, "until")):
            where.bound("r.published_at", name, bound_timestamp(bound, name))
        return where

    def describe(self) -> dict:
        """The filters that are set, bounds as stored timestamps: ``{"source": ..., "since": ...}``."""
        out = {}
        for name, value in asdict(self).items():
            if value is not None:
                if name == "query":
                    value = getattr(value, "text", value)
                out[name] = bound_timestamp(value, name) if name in ("since", "until") else value
        return out

    def record_ids_sql(self, conn) -> tuple[str, list]:
        """``(sql, args)``: a ``SELECT r.id`` of the matching records, to use as ``IN (...)``."""
        where = self.where(conn)
        return f"SELECT r.id FROM {RECORDS_FROM}{where.sql()}", list(where.args)
