"""The query language: Lucene / Media Cloud syntax compiled to one SQL condition on ``records r``.

Syntax (parsed by luqum): bare terms, ``"exact phrases"``, ``AND`` / ``OR`` / ``NOT`` and ``-term``
(``+term`` is the term), parentheses, trailing wildcards (``vacc*``), proximity (``"pfizer booster"~5``:
the words within 5 tokens of each other, in any order) and the fields

- ``source:reddit``, ``author:alice``, ``lang:en`` (``records.language``);
- ``topic:vaccines`` (the read layer's topic membership rule), ``entity:"Pfizer"`` (records that mention
  the entity, by canonical name, case-insensitive, or slug), ``sentiment:negative``;
- ``published:[2021-01-01 TO 2021-02-01]`` (inclusive; ``{}`` exclusive; ``*`` open; a bound given as a
  date covers that whole day), or ``published:2021-01-05`` (one day).

Bare terms side by side are AND-ed (``pfizer moderna`` = ``pfizer AND moderna``); ``AND`` binds tighter
than ``OR``. Text is matched on the full-text index (:mod:`corpuskit.store.fulltext`): title, text and
hashtags/handles, case- and diacritic-insensitive, word by word (a term with punctuation, such as
``covid-19`` or ``@BioNTech_Group``, is the phrase of its words). A field's value may be a group:
``source:(reddit OR hackernews)``.

:func:`compile_query` is the one compiler: the library, the CLI and both HTTP interfaces call it (through
:meth:`corpuskit.query.Where.text_query`). Text parts become FTS5 expressions bound as one parameter
each, every term quoted; field values are bound parameters. A syntax error raises
:class:`QuerySyntaxError` naming the column, with a caret line under the query.
"""
from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from datetime import timedelta
from functools import lru_cache

from corpuskit.clock import iso, parse_timestamp
from corpuskit.errors import ValidationError
from corpuskit.query.fulltext import MATCH_CONDITION, has_token, quoted, term
from corpuskit.query.membership import PRIMARY_TOPIC_BY_NAME
from corpuskit.query.values import SENTIMENT_LABELS

#: The fields a query may name.
FIELDS = ("source", "author", "lang", "topic", "entity", "sentiment", "published")
MAX_QUERY_LENGTH = 2000
_DATE_ONLY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_POSITION = re.compile(r"at position (\d+)")
_PARSE_LOCK = threading.Lock()   # luqum's parser keeps state while it parses


class QuerySyntaxError(ValidationError):
    """A query that cannot be parsed or compiled; ``column`` is 1-based (``message`` has a caret line)."""

    def __init__(self, query: str, column: int, reason: str):
        self.query, self.column, self.reason = query, column, reason
        line = query.replace("\n", " ").replace("\t", " ")
        super().__init__(f"query syntax error at column {column}: {reason}\n  {line}\n  "
                         + " " * (column - 1) + "^")


@dataclass(frozen=True)
class CompiledQuery:
    """A query as a condition on ``records r``: ``sql`` with ``?`` placeholders and ``args`` in order."""

    text: str
    sql: str
    args: tuple


# -- compiled parts ------------------------------------------------------------------
@dataclass(frozen=True)
class _Fts:        # records matching an FTS5 expression (negated: not matching it)
    expr: str
    negated: bool = False


@dataclass(frozen=True)
class _Sql:
    cond: str
    args: tuple


def _as_sql(part) -> _Sql:
    if isinstance(part, _Sql):
        return part
    cond = f"NOT ({MATCH_CONDITION})" if part.negated else MATCH_CONDITION
    return _Sql(cond, (part.expr,))


def _and(parts) -> object:
    fts = [p for p in parts if isinstance(p, _Fts)]
    pos = [p.expr for p in fts if not p.negated]
    neg = [p.expr for p in fts if p.negated]
    merged = []
    if pos:
        expr = " AND ".join(f"({e})" for e in pos) if len(pos) > 1 else pos[0]
        for e in neg:
            expr = f"({expr}) NOT ({e})"
        merged.append(_Fts(expr))
    else:
        merged.extend(_Fts(e, True) for e in neg)
    rest = [p for p in parts if isinstance(p, _Sql)]
    if not rest and len(merged) == 1:
        return merged[0]
    sqls = [_as_sql(p) for p in merged + rest]
    return _Sql("(" + " AND ".join(s.cond for s in sqls) + ")", sum((s.args for s in sqls), ()))


def _or(parts) -> object:
    if all(isinstance(p, _Fts) and not p.negated for p in parts):
        return _Fts(" OR ".join(f"({p.expr})" for p in parts))
    sqls = [_as_sql(p) for p in parts]
    return _Sql("(" + " OR ".join(s.cond for s in sqls) + ")", sum((s.args for s in sqls), ()))


def _not(part) -> object:
    if isinstance(part, _Fts):
        return _Fts(part.expr, not part.negated)
    return _Sql(f"NOT ({part.cond})", part.args)


# -- the compiler ----------------------------------------------------------------------
class _Compiler:
    def __init__(self, text: str, stem: str | None = None):
        self.text = text
        self.stem = stem

    def error(self, node, reason: str) -> QuerySyntaxError:
        pos = getattr(node, "pos", None)
        return QuerySyntaxError(self.text, (pos or 0) + 1, reason)

    def compile(self, node, field=None):
        from luqum import tree

        kind = type(node)
        if kind in (tree.AndOperation, tree.UnknownOperation):
            return _and([self.compile(c, field) for c in node.children])
        if kind is tree.OrOperation:
            return _or([self.compile(c, field) for c in node.children])
        if kind in (tree.Not, tree.Prohibit):
            return _not(self.compile(node.a, field))
        if kind is tree.Plus:
            return self.compile(node.a, field)
        if kind in (tree.Group, tree.FieldGroup):
            return self.compile(node.expr, field)
        if kind is tree.SearchField:
            return self.field(node)
        if field is not None:
            return self.field_value(field, node)
        if kind is tree.Word:
            return _Fts(self.word(node))
        if kind is tree.Phrase:
            return _Fts(self.phrase(node))
        if kind is tree.Proximity and type(node.term) is tree.Phrase:
            words = [w for w in re.findall(r"\w+", node.term.value[1:-1])]
            if len(words) < 2:
                return _Fts(self.phrase(node.term))
            return _Fts("NEAR(" + " ".join(term(w) for w in words) + f", {int(node.degree or 0)})")
        if kind in (tree.Fuzzy, tree.Proximity):
            raise self.error(node, "fuzzy terms (term~N) are not supported; use a trailing * wildcard")
        if kind is tree.Boost:
            raise self.error(node, "boosts (^N) are not supported")
        if kind is tree.Regex:
            raise self.error(node, "regular expressions (/.../) are not supported")
        if kind is tree.Range:
            raise self.error(node, "a range needs a field: published:[2021-01-01 TO 2021-02-01]")
        raise self.error(node, f"{node} is not supported here")

    def word(self, node) -> str:
        value = node.value
        if "?" in value or "*" in value.rstrip("*") or value.startswith("*"):
            raise self.error(node, f"only a trailing * wildcard is supported, not {value!r}")
        prefix = value.endswith("*")
        stem = value.rstrip("*").replace("\\", "")
        if not has_token(stem):
            raise self.error(node, f"the term {value!r} has no letter or digit to search for")
        if self.stem is not None and not prefix:
            from corpuskit.text.stemming import stem as snowball

            stemmed = snowball(stem, self.stem)
            if has_token(stemmed):
                return quoted(stemmed) + " *"   # the word's stem as a prefix: laschet finds Laschets
        return term(stem, prefix)

    def phrase(self, node) -> str:
        inner = node.value[1:-1].replace('\\"', '"')
        if not has_token(inner):
            raise self.error(node, f"the phrase {node.value} has no letter or digit to search for")
        return term(inner)

    def field(self, node):
        name = node.name.lower()
        if name not in FIELDS:
            raise self.error(node, f"unknown field {node.name!r}; the fields are {', '.join(FIELDS)}")
        return self.compile(node.expr, name)

    def field_value(self, field: str, node):
        from luqum import tree

        kind = type(node)
        if field == "published":
            if kind is tree.Range:
                return self.published(node, node.low, node.high, node.include_low, node.include_high)
            if kind in (tree.Word, tree.Phrase):
                return self.published(node, node, node, True, True)
        if kind is tree.Word:
            value = node.value
            if any(c in value for c in "*?"):
                raise self.error(node, f"{field}: wildcards are not supported in a field value")
        elif kind is tree.Phrase:
            value = node.value[1:-1]
        else:
            raise self.error(node, f"{field}: expected a value, a \"quoted value\" or a group of them")
        value = value.replace("\\", "")
        if field == "source":
            return _Sql("r.source = ?", (value,))
        if field == "author":
            return _Sql("r.author = ? COLLATE NOCASE", (value,))
        if field == "lang":
            return _Sql("r.language = ?", (value.lower(),))
        if field == "topic":
            return _Sql(PRIMARY_TOPIC_BY_NAME, (value, value))
        if field == "entity":
            return _Sql("r.id IN (SELECT m.record_id FROM mentions m JOIN entities en ON en.id = m.entity_id "
                        "WHERE en.name = ? COLLATE NOCASE OR en.slug = ?)", (value, value.lower()))
        label = value.lower()
        if label not in SENTIMENT_LABELS:
            raise self.error(node, f"sentiment must be one of {', '.join(SENTIMENT_LABELS)}, not {value!r}")
        return _Sql("r.id IN (SELECT record_id FROM enrichment WHERE sentiment_label = ?)", (label,))

    def published(self, node, low, high, include_low, include_high):
        conds, args = [], []
        for bound, upper, inclusive in ((low, False, include_low), (high, True, include_high)):
            value = bound.value.strip('"')
            if value == "*":
                continue
            try:
                stamp = parse_timestamp(value)
            except ValidationError as exc:
                raise self.error(bound, f"published: {exc}") from None
            whole_day = _DATE_ONLY.match(value) is not None
            if upper:
                if whole_day and inclusive:
                    conds.append("r.published_at < ?")
                    stamp += timedelta(days=1)
                else:
                    conds.append("r.published_at <= ?" if inclusive else "r.published_at < ?")
            else:
                if whole_day and not inclusive:
                    conds.append("r.published_at >= ?")
                    stamp += timedelta(days=1)
                else:
                    conds.append("r.published_at >= ?" if inclusive else "r.published_at > ?")
            args.append(iso(stamp))
        return _Sql("(" + " AND ".join(conds) + ")" if conds else "1", tuple(args))


def _parse(text: str):
    from luqum.exceptions import IllegalCharacterError, ParseError
    from luqum.parser import parser

    try:
        with _PARSE_LOCK:
            return parser.parse(text)
    except (ParseError, IllegalCharacterError) as exc:
        message = str(exc)
        match = _POSITION.search(message)
        column = int(match.group(1)) + 1 if match else len(text) + 1
        reason = re.sub(r"^Syntax error in input\s*:\s*", "", message).rstrip("!")
        reason = re.sub(r"\s*at position \d+$", "", reason).replace("  ", " ")
        reason = re.sub(r"\s*at the end$", " at the end", reason)
        raise QuerySyntaxError(text, column, reason) from None


@lru_cache(maxsize=512)
def compile_query(text: str, stem: str | None = None) -> CompiledQuery:
    """Compile a query to a condition on ``records r`` (``r`` is the ``records`` table's alias).

    Returns a :class:`CompiledQuery` whose ``sql`` and ``args`` the read layer adds to a WHERE
    clause (:meth:`corpuskit.query.Where.text_query`); the condition reads only ``r`` and subqueries,
    so it fits any statement over ``records r``. Raises :class:`QuerySyntaxError` (a
    :class:`~corpuskit.errors.ValidationError`) with the column of the problem. ``stem`` (a language
    code, :mod:`corpuskit.text.stemming`) matches each bare word by its Snowball stem as a prefix.
    """
    if not isinstance(text, str):
        raise ValidationError(f"a query must be a string, not {type(text).__name__}")
    if not text.strip():
        raise QuerySyntaxError(text, 1, "the query is empty")
    if len(text) > MAX_QUERY_LENGTH:
        raise QuerySyntaxError(text[:80], 1, f"the query is longer than {MAX_QUERY_LENGTH} characters")
    if stem is not None:
        from corpuskit.text.stemming import check_language

        stem = check_language(stem)
    compiler = _Compiler(text, stem)
    part = _as_sql(compiler.compile(_parse(text)))
    return CompiledQuery(text, part.cond, part.args)
