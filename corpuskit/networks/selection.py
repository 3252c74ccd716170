"""The records a network or a coordination run reads: a filter turned into one streamed SELECT."""
from __future__ import annotations

from corpuskit.errors import ValidationError
from corpuskit.query.record_filter import RECORDS_FROM, RecordFilter

#: Columns every selection yields, in this order (``topic`` is the primary topic's name, or None).
BASE_COLUMNS = ("id", "author", "published_at", "sentiment", "topic")
_BASE_SQL = ("r.id, r.author, r.published_at, e.sentiment_score, "
             "(SELECT t.name FROM topics t WHERE t.id = e.topic_id)")


def record_filter(since=None, until=None, query=None) -> RecordFilter:
    """The :class:`RecordFilter` of a network call; ``query`` may be a text or a Subcorpus."""
    text = getattr(query, "q", query)
    if text is not None and not isinstance(text, str) and not hasattr(text, "sql"):
        raise ValidationError(f"query must be a query-language text or a Subcorpus, not {type(query).__name__}")
    return RecordFilter(since=getattr(query, "since", None) if since is None else since,
                        until=getattr(query, "until", None) if until is None else until, query=text)


def select(conn, rfilter: RecordFilter, extra: tuple[str, ...] = (), condition: str | None = None,
           lean: bool = False, ordered: bool = True):
    """A cursor over the selected records, oldest first then by id: :data:`BASE_COLUMNS` and ``extra``
    (``lean``: only ``id, author, published_at`` before ``extra``; ``ordered=False``: in no order).

    ``extra`` are SQL expressions over ``records r``; ``condition`` is one more SQL condition.
    Records without an author are left out: a network and a group are made of accounts.
    """
    where = rfilter.where(conn)
    where.add("r.author != ''")
    if condition:
        where.add(condition)
    columns = ", ".join(("r.id, r.author, r.published_at" if lean else _BASE_SQL, *extra))
    order = " ORDER BY r.published_at, r.id" if ordered else ""
    return conn.execute(f"SELECT {columns} FROM {RECORDS_FROM}{where.sql()}{order}", where.args)
