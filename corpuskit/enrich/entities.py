"""Entity extraction: an offline rules + gazetteer extractor and a spaCy backend.

Positions are character offsets into the record's *analysed text*
(:func:`corpuskit.enrich.base.record_text`): ``title + "\\n" + contentText``
when the title is non-empty and differs from the text, else ``contentText``.

Aliases merge on :func:`corpuskit.query.name_keys.alias_key`: case, spacing and punctuation, a leading
``@`` and a possessive ``'s`` are ignored, so ``OpenAI``, ``Open AI``,
``@openai`` and ``OpenAI's`` are one entity. Each canonical entity has one
slug (:func:`corpuskit.query.name_keys.entity_slug` of its canonical name); ``entities.id``
doubles as the legacy numeric key, and :func:`corpuskit.query.resolve_entity_key`
accepts all three key forms.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from numbers import Integral

from corpuskit.enrich.base import ENTITY_TYPES, EntityExtractor, Mention
from corpuskit.enrich.estimator import InstanceOf, Interval
from corpuskit.errors import MissingDependencyError, ValidationError
from corpuskit.query.name_keys import POSSESSIVE, alias_key, entity_slug

_TOKEN = re.compile(r"@?[^\W_](?:[\w&+#]|[.\-'’](?=[^\W_]))*")
# token -> (surface without a possessive, alias key, characters trimmed): a pure function of the
# token, remembered because tokens repeat heavily across records; cleared when it grows past the cap
_TOKEN_KEYS: dict[str, tuple[str, str, int]] = {}
_TOKEN_KEYS_MAX = 200_000
_ACRONYM = re.compile(r"^[A-Z][A-Z.&]{0,6}$")
_MODEL = re.compile(r"^(?:\d+[A-Za-z]{0,3}|[A-Z]\d{1,4}[A-Za-z]{0,2}|Pro|Max|Ultra|Mini|Plus|Lite)$")
_TITLES = {"Dr", "Mr", "Mrs", "Ms", "Prof", "Professor", "President", "Senator", "Sen", "Rep",
           "CEO", "Judge", "Governor", "Gov", "Minister", "Chancellor", "Sir", "Dame"}
_ORG_SUFFIXES = {"Inc", "Corp", "Corporation", "Labs", "Lab", "Technologies", "Systems",
                 "University", "Institute", "Foundation", "Group", "Ventures", "Capital",
                 "Robotics", "Motors", "Bank", "Agency", "Association", "Society", "Council",
                 "Party", "Ltd", "LLC", "Company", "Industries", "Studios", "Partners"}
_NOT_NAMES = {"The", "A", "An", "This", "That", "These", "Those", "And", "Or", "But", "If", "In",
              "On", "At", "For", "With", "From", "By", "Of", "To", "As", "Is", "Are", "Was", "It",
              "Its", "New", "Why", "How", "What", "When", "Who", "Ask", "Show", "HN", "Tell",
              "My", "Our", "Your", "Their", "His", "Her", "We", "I", "You", "They", "He", "She",
              "Inside", "After", "Before", "Why", "Where", "Here", "There", "Today", "Breaking",
              "Update", "Report", "Watch", "Live", "Review", "Explained", "Thread", "Opinion", "Analysis"}


@dataclass(frozen=True)
class _Entry:
    name: str
    type: str
    case: str  # any, capital, upper
    single: bool  # the alias is written as one word (so one token may match it)
    form: str = ""  # a one-word alias as written, punctuation dropped (for spaced spellings)


def _case_rule(alias: str, canonical_lower: bool) -> str:
    bare = alias.lstrip("@")
    if alias.startswith("@") or canonical_lower and bare == bare.lower():
        return "any"
    if _ACRONYM.match(bare) and len(bare.replace(".", "")) <= 5:
        return "upper"
    if any(c.isdigit() for c in bare) or any(c.isupper() for c in bare[1:]) or bare[:1].islower():
        return "any"
    return "capital"


def _add_alias(table, alias, name, kind, lower):
    key = alias_key(alias)
    if not key:
        return
    single = " " not in alias.strip()
    form = _case_form(alias) if single else ""
    old = table.get(key)
    if old is None:
        table[key] = _Entry(name, kind, _case_rule(alias, lower), single, form)
    elif single and not old.single and old.name == name:
        table[key] = _Entry(old.name, old.type, old.case, True, form)


def _case_form(text: str) -> str:
    return re.sub(r"[^\w+#]|_", "", POSSESSIVE.sub("", text.strip().lstrip("@")))


def load_gazetteers(package: str = "corpuskit.enrich", generic: bool = False) -> tuple[dict, frozenset]:
    """The shipped gazetteers: ``({alias_key: _Entry}, first_names)``.

    ``*_generic.json`` files (lower-case subjects such as "machine learning")
    are read only when ``generic`` is true. The files are read once per process; each call
    returns a new table, which the caller may change.
    """
    entries, names = _read_gazetteers(package, generic)
    return dict(entries), names


@lru_cache(maxsize=8)
def _read_gazetteers(package: str, generic: bool) -> tuple[tuple, frozenset]:
    """:func:`load_gazetteers`' table as ``((alias_key, _Entry), ...)`` and its first names."""
    folder = resources.files(package).joinpath("gazetteers")
    table: dict[str, _Entry] = {}
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if not entry.name.endswith(".json") or (entry.name.endswith("_generic.json") and not generic):
            continue
        data = json.loads(entry.read_text(encoding="utf-8"))
        kind = data.get("type")
        if kind not in ENTITY_TYPES:
            raise ValidationError(f"gazetteer {entry.name}: type {kind!r} is not one of {ENTITY_TYPES}")
        for item in data["entities"]:
            if isinstance(item, str):
                item = {"name": item}
            name = item["name"]
            lower = name == name.lower()
            for alias in [name, *item.get("aliases", [])]:
                _add_alias(table, alias, name, kind, lower)
    names = folder.joinpath("first_names.txt").read_text(encoding="utf-8").split()
    return tuple(table.items()), frozenset(names)


class GazetteerExtractor(EntityExtractor):
    """Offline entities: shipped gazetteers plus three rules.

    Rules, applied to text the gazetteers left unmatched: a title (``Dr``,
    ``CEO``, ``Senator``...) or a known first name followed by capitalised
    words gives a person; capitalised words ending in an organisation word
    (``Inc``, ``Labs``, ``University``...) or ``University of X`` give an org.

    Parameters
    ----------
    extra : dict, optional
        More entries, ``{name: type}`` or ``{name: (type, [aliases])}``.
    rules : bool
        Apply the person, org and product-model rules (default True).
    generic_concepts : bool
        Also tag generic lower-case subjects ("machine learning", "privacy")
        as concepts (default False: they are topics more than named entities).
    """

    model_name = "corpuskit-gazetteer-1"
    #: the gazetteers and rules are English
    languages = frozenset({"en"})
    _parameter_constraints = {"extra": [None, InstanceOf(dict)], "rules": [InstanceOf(bool)],
                              "generic_concepts": [InstanceOf(bool)]}

    def __init__(self, extra: dict | None = None, rules: bool = True, generic_concepts: bool = False):
        self.extra = extra
        self.rules = rules
        self.generic_concepts = generic_concepts

    def _tables(self):
        if getattr(self, "table_", None) is None:
            self._validate_params()
            table, first = load_gazetteers(generic=self.generic_concepts)
            for name, spec in (self.extra or {}).items():
                kind, aliases = (spec, []) if isinstance(spec, str) else spec
                if kind not in ENTITY_TYPES:
                    raise ValidationError(f"entity type {kind!r} of {name!r} is not one of {ENTITY_TYPES}")
                lower = name == name.lower()
                for alias in [name, *aliases]:
                    table.pop(alias_key(alias), None)
                    _add_alias(table, alias, name, kind, lower)
            prefixes = set()
            for key in table:
                prefixes.update(key[:i] for i in range(1, len(key) + 1))
            self.table_, self.first_names_, self.prefixes_ = table, first, prefixes
        return self.table_

    def extract(self, text: str) -> list[Mention]:
        return self.extract_with_table_starts(text)[0]

    def extract_with_table_starts(self, text: str) -> tuple[list[Mention], set[int]]:
        """:meth:`extract`, and the character offsets where the alias table alone names something
        (the positions an extractor with ``rules=False`` and the same tables finds), from one
        tokenisation and, unless a product model extended a name, one scan."""
        self._tables()
        text = text or ""
        tokens = []  # (start, end, surface, key)
        memo = _TOKEN_KEYS
        if len(memo) > _TOKEN_KEYS_MAX:
            memo.clear()
        for m in _TOKEN.finditer(text):
            word = m.group()
            known = memo.get(word)
            if known is None:
                surface, trim = word, 0
                if surface.endswith(("'s", "’s", "'S", "’S")):
                    surface, trim = surface[:-2], 2
                low = surface.lower()
                known = memo[word] = (surface, low if low.isalnum() and low.isascii() else alias_key(surface), trim)
            tokens.append((m.start(), m.end() - known[2], known[0], known[1]))
        found, used, extended = self._scan(text, tokens, self.rules)
        if extended:  # the plain scan resumes after the bare name, so it may differ from here on
            table_starts = {pos for _, positions in self._scan(text, tokens, False)[0].values() for pos in positions}
        else:
            table_starts = {pos for _, positions in found.values() for pos in positions}
        if self.rules:
            # a rule's name never crosses punctuation ("On Max Perkins, One of ...")
            joined = [k > 0 and text[tokens[k - 1][1]:tokens[k][0]].strip() in ("", "." if tokens[k - 1][2] in _TITLES
                                                                               else "") for k in range(len(tokens))]
            self._apply_rules(tokens, used, found, joined)
        return self._mentions(found), table_starts

    def _scan(self, text, tokens, extend: bool) -> tuple[dict, list, bool]:
        """The alias-table matches of ``tokens``, longest first from the left: ``(found, used,
        extended)``; ``extend`` lets a product take a following model ("iPhone 17")."""
        table, prefixes = self.table_, self.prefixes_
        found: dict[str, list] = {}
        used = [False] * len(tokens)
        extended = False
        i = 0
        while i < len(tokens):
            acc, best = "", None
            j = i
            while j < len(tokens) and j - i < 6:
                acc += tokens[j][3]
                if acc not in prefixes:
                    break
                entry = table.get(acc)
                if (entry is not None and (j > i or entry.single)
                        and self._case_ok(entry, tokens[i][2], text[tokens[i][0]:tokens[j][1]])
                        and (j == i or not entry.single or entry.case == "any" and not entry.form
                             or "".join(_case_form(t[2]) for t in tokens[i:j + 1]) == entry.form)):
                    best = (j, entry)
                j += 1
            if best is None:
                i += 1
                continue
            j, entry = best
            name = entry.name
            if entry.type == "product" and extend:  # a model of a product line: "iPhone 17"
                while j + 1 < len(tokens) and j - i < 4 and _MODEL.match(tokens[j + 1][2]) \
                        and tokens[j + 1][0] == tokens[j][1] + 1:
                    j += 1
                    extended = True
                    name = f"{name} {tokens[j][2]}"
            start, end = tokens[i][0], tokens[j][1]
            self._add(found, name, entry.type, text[start:end], start)
            for k in range(i, j + 1):
                used[k] = True
            i = j + 1
        return found, used, extended

    @staticmethod
    def _mentions(found) -> list[Mention]:
        out = []
        for (name, kind), (surfaces, positions) in found.items():
            out.append(Mention(key=entity_slug(name), name=name, type=kind, surface=surfaces[0],
                               positions=tuple(sorted(positions)), aliases=tuple(sorted(set(surfaces)))))
        out.sort(key=lambda m: m.positions[0])
        return out

    @staticmethod
    def _add(found, name, kind, surface, start):
        slot = found.setdefault((name, kind), ([], []))
        slot[0].append(surface)
        slot[1].append(start)

    @staticmethod
    def _case_ok(entry: _Entry, first: str, surface: str) -> bool:
        if entry.case == "any" or first.startswith("@"):
            return True
        if entry.case == "upper":
            letters = [c for c in surface if c.isalpha()]
            return all(c.isupper() for c in letters)
        return surface[:1].isupper()

    def _apply_rules(self, tokens, used, found, joined=None) -> None:
        n = len(tokens)

        def capital(k):
            return (k < n and not used[k] and tokens[k][2][:1].isupper()
                    and tokens[k][2] not in _NOT_NAMES and not tokens[k][2].startswith("@"))

        def linked(k):
            """The next word of a name: capitalised, and nothing but a space before it."""
            return capital(k) and (joined is None or joined[k])

        i = 0
        while i < n:
            if used[i]:
                i += 1
                continue
            word = tokens[i][2]
            if (word in _TITLES or word in self.first_names_) and linked(i + 1):
                start = i + 1 if word in _TITLES else i
                j = i + 1
                while j + 1 < n and j - start < 2 and linked(j + 1) and tokens[j + 1][2] not in _ORG_SUFFIXES:
                    j += 1
                if j > start or word in _TITLES:
                    self._person_or_org(tokens, used, found, start, j)
                    i = j + 1
                    continue
            if word == "University" and i + 2 < n and tokens[i + 1][2] == "of" and linked(i + 2):
                self._emit(tokens, used, found, i, i + 2, "org")
                i += 3
                continue
            if capital(i):
                j = i
                while j + 1 < n and j - i < 3 and linked(j + 1):
                    j += 1
                if j > i and tokens[j][2] in _ORG_SUFFIXES:
                    self._emit(tokens, used, found, i, j, "org")
                    i = j + 1
                    continue
            i += 1

    def _person_or_org(self, tokens, used, found, start, end):
        kind = "org" if tokens[end][2] in _ORG_SUFFIXES else "person"
        self._emit(tokens, used, found, start, end, kind)

    def _emit(self, tokens, used, found, start, end, kind):
        name = " ".join(t[2] for t in tokens[start:end + 1])
        entry = self.table_.get(alias_key(name))
        if entry is not None:
            name, kind = entry.name, entry.type
        self._add(found, name, kind, name, tokens[start][0])
        for k in range(start, end + 1):
            used[k] = True


class SpacyExtractor(EntityExtractor):
    """spaCy named entities mapped to corpuskit's five types (needs the ``spacy`` extra).

    Labels map as PERSON -> person; ORG -> org; PRODUCT, WORK_OF_ART -> product;
    GPE, LOC, FAC -> place; NORP, EVENT, LAW -> concept; the multilingual ``xx_ent_wiki_sm``
    model's PER -> person. Others are dropped. The languages covered are the model's own (its name's
    prefix: ``en_core_web_sm`` English, ``de_core_news_sm`` German); an ``xx_`` model covers every
    language.
    """

    LABELS = {"PERSON": "person", "PER": "person", "ORG": "org", "PRODUCT": "product", "WORK_OF_ART": "product",
              "GPE": "place", "LOC": "place", "FAC": "place", "NORP": "concept",
              "EVENT": "concept", "LAW": "concept"}
    _parameter_constraints = {"model": [InstanceOf(str)], "batch_size": [Interval(Integral, 1)]}

    def __init__(self, model: str = "en_core_web_sm", batch_size: int = 256):
        self.model = model
        self.batch_size = batch_size

    @property
    def model_name(self) -> str:
        return f"spacy/{self.model}"

    @property
    def languages(self) -> frozenset | None:
        """The model's language (its name's prefix), or None for a multilingual ``xx_`` model."""
        prefix = str(self.model).split("_")[0].lower()
        return None if prefix == "xx" or len(prefix) != 2 else frozenset({prefix})

    def _nlp(self):
        nlp = getattr(self, "nlp_", None)
        if nlp is None:
            self._validate_params()
            try:
                import spacy
            except ImportError as exc:
                raise MissingDependencyError(
                    "the spaCy entity extractor needs the spacy extra: pip install 'corpuskit[spacy]'"
                ) from exc
            try:
                nlp = spacy.load(self.model, disable=["parser", "lemmatizer"])
            except OSError as exc:
                raise MissingDependencyError(
                    f"spaCy model {self.model!r} is not installed: python -m spacy download {self.model}"
                ) from exc
            self.nlp_ = nlp
        return nlp

    def extract(self, text: str) -> list[Mention]:
        return self.extract_many([text])[0]

    def extract_many(self, texts) -> list[list[Mention]]:
        out = []
        for doc in self._nlp().pipe(list(texts), batch_size=self.batch_size):
            found: dict = {}
            for ent in doc.ents:
                kind = self.LABELS.get(ent.label_)
                name = POSSESSIVE.sub("", ent.text.strip().lstrip("@"))
                if kind is None or not alias_key(name):
                    continue
                GazetteerExtractor._add(found, name, kind, ent.text, ent.start_char)
            merged: dict = {}
            for (name, kind), (surfaces, positions) in found.items():
                key = (alias_key(name), kind)
                slot = merged.setdefault(key, (name, [], []))
                slot[1].extend(surfaces)
                slot[2].extend(positions)
            out.append(sorted(
                (Mention(key=entity_slug(name), name=name, type=kind[1], surface=surfaces[0],
                         positions=tuple(sorted(positions)), aliases=tuple(sorted(set(surfaces))))
                 for kind, (name, surfaces, positions) in merged.items()),
                key=lambda m: m.positions[0]))
        return out
