"""A WHERE clause built from optional filters, with its parameters in order."""
from __future__ import annotations

from corpuskit.query.language import CompiledQuery, compile_query
from corpuskit.query.membership import PRIMARY_TOPIC_RULE

_BOUNDS = {"since": ">=", "until": "<="}


class Where:
    """Conditions joined by AND; each method skips a ``None`` value and returns ``self``.

    ``where.sql()`` is ``" WHERE a AND b"`` (or ``""`` with no condition) and
    ``where.args`` the parameters in the same order. A new filter (a text
    query, say) is one more method here
    (:meth:`text_query` is the query language).
    """

    def __init__(self, *conditions: str):
        self.conditions: list[str] = list(conditions)
        self.args: list = []

    def add(self, condition: str, *args) -> "Where":
        """Add ``condition`` (with ``?`` placeholders) and its parameters."""
        self.conditions.append(condition)
        self.args.extend(args)
        return self

    def equal(self, column: str, value) -> "Where":
        """``column = value`` unless ``value`` is None."""
        return self if value is None else self.add(f"{column} = ?", value)

    def bound(self, column: str, side: str, value) -> "Where":
        """``column >= value`` (``side`` "since") or ``column <= value`` ("until"), unless None."""
        return self if value is None else self.add(f"{column} {_BOUNDS[side]} ?", value)

    def in_topic(self, topic_id, name) -> "Where":
        """Records in the topic ``name`` (id ``topic_id``) by :data:`PRIMARY_TOPIC_RULE`, unless None."""
        return self if name is None else self.add(PRIMARY_TOPIC_RULE, topic_id, name)

    def text_query(self, query) -> "Where":
        """Records matching ``query`` (query-language text or a compiled query), unless None.

        Compiled by :func:`corpuskit.query.compile_query`; the condition reads ``records r``. Raises
        :class:`~corpuskit.query.QuerySyntaxError` for a malformed query.
        """
        if query is None:
            return self
        compiled = query if isinstance(query, CompiledQuery) else compile_query(query)
        return self.add(compiled.sql, *compiled.args)

    def __bool__(self) -> bool:
        return bool(self.conditions)

    def joined(self, empty: str = "") -> str:
        """The conditions joined by AND (``empty`` when there is none)."""
        return " AND ".join(self.conditions) or empty

    def sql(self) -> str:
        """``" WHERE ..."``, or ``""`` when there is no condition."""
        return (" WHERE " + self.joined()) if self.conditions else ""
