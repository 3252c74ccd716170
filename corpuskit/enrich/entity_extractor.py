"""The default entity extractor: gazetteers, a CRF, hashtags and handles, and corpus-level promotion.

Evidence:

1. ``#hashtags`` and ``@handles`` resolved through the alias table: the tag
   itself (``#OpenAI``), else its segmented words (``#PfizerBioNTech`` ->
   Pfizer and BioNTech; ``@BioNTech_Group`` -> BioNTech);
2. known names: the shipped gazetteers
   (:class:`~corpuskit.enrich.entities.GazetteerExtractor`, Unicode-aware,
   possessives in any apostrophe, its person and org rules) and the names
   promoted from the corpus by :meth:`HybridExtractor.fit` (below);
3. the WNUT 2017 CRF (:mod:`corpuskit.enrich.crf`), run on each line
   (memoised), decoded by token marginals (``max_outside``). The gazetteers, a
   name lexicon (first names, surnames, places) and a demonym list are among
   its features, so it weighs them with everything else it sees.

The merge: where a CRF span and a known name cover the same words, the span
is the entity and the known name gives its canonical name and type; where the
CRF's span contains shorter known names ("Xiaomi Mi 6" around "Xiaomi") the
CRF's span wins when every token is inside an entity with at least
``span_confidence``, else the known names do; where a known name overlaps a
CRF span otherwise, the known name wins; each fills in where the other found
nothing. A CRF span is dropped when it is a demonym ("American", "Russians":
not an entity in the WNUT guidelines nor in corpuskit's types), a lone generic
head ("University", "Street"), a unit of measure after a number ("2.0 GHz"), one word this corpus writes in lower case
("deny"), one ordinary lower-case English word that no gazetteer or name list
knows ("sea", not "china" or "alex"), a run of ordinary words on a Title Case
headline ("Newborn Brain Function"), or, below ``lower_confidence``, one common
word opening a sentence.

A gazetteer name that is also a common English word is skipped at the start of
a sentence ("Arm is sore") unless the CRF marks it too or the corpus writes it
capitalised more often than in lower case (``trusted_``).

Text is read through :func:`corpuskit.text.display_text` (HTML entities such
as ``&amp;`` unescaped, Unicode NFC, typographic apostrophes folded); positions
are still offsets into the record's analysed text.

Corpus-level promotion (``fit``): a capitalised span (Unicode letters, up to
four words, or a CamelCase hashtag) that no gazetteer knows becomes an entity
when it is seen at least ``min_count`` times, by at least ``min_authors``
distinct authors on at least ``min_days`` distinct days, and it is written
capitalised more often than in lower case away from the start of a sentence. A
one-word candidate must also not be one of the ~3,000 most frequent English
words, nor be mostly sentence-initial while also seen in lower case (so "Arm"
of "Arm is sore" and "Deny" stay out). Headline lines in Title Case give no
evidence.
Its type is a rule's where one applies (a title or known first name: person;
an organisation word: org), else the CRF's label over up to ``type_sample``
texts that contain it when at least 3 votes and 60% agree (or 2 or more are
unanimous), else person for a name opening with a first name of the wider
Census and world lists, else concept.
Titles ("CEO", "Sen"), days, months and post conventions ("RT", "TIL") are never promoted, nor is a
phrase hashtag ("#GetVaccinated", "#CovidVaccine": its last word an ordinary English word, its first
no listed first name), which would otherwise make "Get Vaccinated" in a text an entity.
"""
from __future__ import annotations

import itertools
import re
from collections import Counter, defaultdict
from functools import lru_cache
from numbers import Integral, Real

from corpuskit.enrich.base import ENTITY_TYPES, EntityExtractor, Mention
from corpuskit.enrich.crf import WNUT_TYPES, CrfTagger, is_demonym, load_common_words, load_demonyms, tokenize
from corpuskit.enrich.entities import _NOT_NAMES, _ORG_SUFFIXES, _TITLES, GazetteerExtractor
from corpuskit.enrich.estimator import InstanceOf, Interval
from corpuskit.enrich.name_shapes import census_names, fold, name_like, surname_like
from corpuskit.errors import ValidationError
from corpuskit.query.name_keys import alias_key, entity_slug
from corpuskit.text import STOP_WORDS, display_text, segment_hashtag
from corpuskit.text.hashtags import _english_costs

_STOPS = {".", "!", "?", ":", ";", "…", "\"", "|", "(", ")", "[", "]", "-", "–", "—", "RT", "•", "*"}
_POSSESSIVE_TOKEN = re.compile(r"^['’][sS]$")
_LINK = re.compile(r"^(?:https?://|www\.)")
_MAX_RUN = 4
_MIN_VOTES, _VOTE_SHARE = 3, 0.6  # the CRF types a promoted name only when it agrees with itself
_TITLE_KEYS = frozenset(t.lower() for t in _TITLES)
# days, months and their abbreviations, and the conventions of posts ("RT", "PSA", "TIL"):
# capitalised and frequent, but not names of an entity
_NEVER_PROMOTED = frozenset("""monday tuesday wednesday thursday friday saturday sunday mon tue tues wed thu thur
thurs fri sat sun january february march april may june july august september october november december jan feb
mar apr jun jul aug sep sept oct nov dec rt mt ht cc via ff fb lol lmao lmfao rofl omg omfg wtf smh tbt fyi imo
imho tldr tl dr ama eli5 til psa ftw irl btw idk iirc afaik ootd nsfw ok okay""".split())
_COST_10K = 11.67  # wordninja's cost of the 10,000th word
_COST_50K = 13.28  # and of the 50,000th
_COMMON_COST = 10.5  # wordninja's cost of about the 3,000th most frequent English word
_LEADING = _NOT_NAMES - {"New"}  # words that open a sentence, not a name ("New York" stays whole)
# generic head words of names: alone, they are the fragment of a name the CRF cut short
_FRAGMENTS = frozenset({"University", "College", "School", "Institute", "Academy", "Hospital", "Street", "St",
                        "Road", "Avenue", "Boulevard", "Park", "Square", "House", "Church", "Lake", "River",
                        "Mountain", "Mount", "City", "County", "State", "Center", "Centre", "Airport",
                        "Station", "Bridge", "Tower", "Museum", "Library", "Hall", "Club", "Team",
                        "Company", "Group", "Foundation", "Party", "Bank", "Inc", "Corp", "Ltd", "LLC",
                        "Department", "Ministry", "Agency", "Council", "Court", "Office", "Island",
                        "Islands", "Beach", "Valley", "North", "South", "East", "West"})
# units of measure: after a number ("2.0 GHz", "100 Mbps") a measure, not a product's name
_UNITS = frozenset({"Hz", "kHz", "MHz", "GHz", "THz", "KB", "kB", "MB", "GB", "TB", "PB", "Kbps", "Mbps", "Gbps",
                    "Tbps", "mph", "kph", "km", "cm", "mm", "nm", "kg", "mg", "ml", "mAh", "Wh", "kWh", "MWh",
                    "GWh", "kW", "MW", "GW", "TW", "fps", "dpi", "rpm", "FPS", "RPM", "MP", "TFLOPS"})
# words a tag may add to the names it is made of ("@BioNTech_Group", "#AppleOfficial")
_TAG_AFFIXES = frozenset({"group", "official", "inc", "corp", "co", "hq", "news", "team", "global", "labs",
                          "app", "media", "press", "live", "tv", "us", "uk", "eu", "the"})
_SMALL = {"a", "an", "the", "of", "in", "on", "at", "to", "for", "and", "or", "but", "with", "by",
          "from", "is", "are", "vs", "via", "as", "it", "its", "be", "my", "your"}


def _display(text: str) -> str:
    """:func:`display_text` line by line (line breaks end sentences and titles)."""
    if "\n" not in text:
        return display_text(text)
    return "\n".join(filter(None, (display_text(line) for line in text.split("\n"))))


def aligned_display(text: str) -> tuple[str, list[int] | None]:
    """``(display_text(text), offsets)``: ``offsets[i]`` is the position in ``text`` of the
    clean text's character ``i`` (None when the two are identical)."""
    clean = _display(text)
    if clean == text:
        return clean, None
    offsets, j, n = [], 0, len(text)
    for ch in clean:
        k = j
        while k < n and not _same_char(ch, text[k]):
            k += 1
        if k < n:
            j = k
        offsets.append(min(j, n - 1) if n else 0)
        if k < n:
            j += 1
    return clean, offsets


def _same_char(a: str, b: str) -> bool:
    if a == b:
        return True
    if a == "'" and b in "’‘`´ʼ":
        return True
    if a == '"' and b in "“”„«»":
        return True
    if a == " " and b.isspace():
        return True
    import unicodedata

    return unicodedata.normalize("NFD", b)[:1] == unicodedata.normalize("NFD", a)[:1] and b.isalpha()


@lru_cache(maxsize=1)
def _common_words() -> frozenset:
    """About 3,000 most frequent English words (wordninja's list) and the CRF's common words."""
    english = _english_costs()
    return load_common_words() | {w for w, cost in english.items() if cost < _COMMON_COST}


@lru_cache(maxsize=1)
def _wide_first_names() -> frozenset:
    """Folded first names of the Census and world lists (``gazetteers/census_first_names.txt``,
    ``gazetteers/world_first_names.txt``) less the common English words: weak person evidence."""
    return census_names() - {fold(w) for w in _common_words()}


def _wide_person(name: str) -> bool:
    """Two or three words written like a name, the first a first name of the wider lists
    (:func:`_wide_first_names`): "Uğur Şahin", not "Rubik Cube" nor "Hope Diamond"."""
    words = name.split()
    return 2 <= len(words) <= 3 and name_like(words[0]) and fold(words[0]) in _wide_first_names() and all(
        surname_like(w) and w.lower() not in _common_words() for w in words[1:])


def _filler(word: str) -> bool:
    """A lower-case stop word, or punctuation: never the edge of a name."""
    return not word[:1].isalnum() or word.islower() and word in STOP_WORDS


_BREAKS = frozenset({",", ";", "|", "(", ")", "[", "]", "\"", "!", "?", "–", "—", "•"})


def _split_at_breaks(spans, words):
    """CRF spans cut at punctuation that never sits inside a name ("Max Perkins, One of" ->
    "Max Perkins", "One of"): each part is judged on its own, and a part after a cut that is
    one common word ("One") is dropped."""
    common = _common_words()
    for a, b, label, conf in spans:
        start = a
        for k in range(a, b + 1):
            if words[k] in _BREAKS:
                if k > start:
                    yield start, k - 1, label, conf
                start = k + 1
        if start <= b and not (start > a and start == b and words[b].lower() in common):
            yield start, b, label, conf


def _lines(tokens, text):
    """``(first, end)`` token ranges of the lines of ``text`` (the CRF reads a line whole, as it
    read a whole post in training)."""
    if "\n" not in text:  # one line
        if tokens:
            yield 0, len(tokens)
        return
    first = 0
    for k in range(1, len(tokens) + 1):
        if k == len(tokens) or "\n" in text[tokens[k - 1][1]:tokens[k][0]]:
            yield first, k
            first = k


def _rule_type(words: list[str], gaz) -> str | None:
    """The gazetteer rules' type of a name: a known first name + surname is a person, a name
    ending in an organisation word ("Labs", "University") an org."""
    if len(words) > 1 and words[0] in gaz.first_names_ and words[1][:1].isupper():
        return "person"
    if len(words) > 1 and words[-1] in _ORG_SUFFIXES:
        return "org"
    return None


def _is_cap(word: str) -> bool:
    return word[:1].isupper() and any(c.isalpha() for c in word)


def _initial(tokens, i, text) -> bool:
    """Is token ``i`` at the start of a sentence (or line)?"""
    if i == 0:
        return True
    prev = tokens[i - 1]
    return (prev[2] in _STOPS or prev[2].startswith("@") and i == 1 or _LINK.match(prev[2]) is not None
            or text.find("\n", prev[1], tokens[i][0]) >= 0)


def capital_runs(tokens, text):
    """``(first, last, initial)`` of each run of capitalised words (handles, URLs and
    leading function words such as "The" excluded; a possessive ends a run)."""
    out, i, n = [], 0, len(tokens)
    while i < n:
        word = tokens[i][2]
        if not _is_cap(word) or word[0] in "@#" or _LINK.match(word) or word in _LEADING:
            i += 1
            continue
        j = i
        while (j + 1 < n and j - i + 1 < _MAX_RUN and _is_cap(tokens[j + 1][2])
               and tokens[j + 1][2][0] not in "@#" and tokens[j + 1][0] == tokens[j][1] + 1
               and tokens[j + 1][2] not in _LEADING):
            j += 1
        out.append((i, j, _initial(tokens, i, text)))
        i = j + 1
    return out


def title_case_lines(tokens, text) -> set[int]:
    """Indices of tokens on lines written in Title Case (a headline: most words capitalised),
    where capitals say nothing about names."""
    n, find = len(tokens), text.find
    if "\n" not in text:  # one line: the loop below, without looking for line breaks
        return set(range(n)) if _title_case([t[2] for t in tokens]) else set()
    out, line, start = set(), [], 0
    for k in range(n + 1):
        if k == n or find("\n", start, tokens[k][0]) >= 0:
            if _title_case([tokens[i][2] for i in line]):
                out.update(line)
            line = []
        if k < n:
            line.append(k)
            start = tokens[k][1]
    return out


def _title_case(line: list[str]) -> bool:
    """Is a line of these tokens written in Title Case (four or more words, three in four capitalised)?"""
    # a word here starts with a letter, so it is capitalised (_is_cap) when that letter is
    words = [w for w in line if w[:1].isalpha() and w.lower() not in _SMALL]
    return len(words) >= 4 and sum(w[0].isupper() for w in words) >= 0.75 * len(words)


def _surface(tokens, a, b, text) -> str:
    return text[tokens[a][0]:tokens[b][1]]


class HybridExtractor(EntityExtractor):
    """Gazetteers + CRF + hashtags/handles + corpus-level promotion (see the module docstring).

    Parameters
    ----------
    crf : bool
        Use the WNUT 2017 CRF (default True).
    max_outside : float
        CRF decoding by token marginals: a token whose probability of being
        outside any entity is below this takes its best entity tag (default
        None: the value chosen by cross-validation on WNUT 2017 train, shipped
        with the model; 1.0 is plain Viterbi decoding).
    lower_confidence : float
        One common word opening a sentence ("Deny it", "Arm is sore") is kept
        as a CRF span only when it is inside an entity with at least this
        probability (default 0.5; other spans need only pass ``max_outside``).
        An all-lower-case span ("networks") is not held to it: by 3-fold
        cross-validation of the whole extractor on WNUT 2017 train
        (``python tools/extractor_cv.py``) that guard cost 0.003
        typed F1 (0.526 against 0.529).
    span_confidence : float
        Where a CRF span contains a shorter known name ("Xiaomi Mi 6" around the
        gazetteer's "Xiaomi"), the CRF's span wins when each of its tokens is
        inside an entity with at least this probability; below it the known
        name wins. A leading article or title word ("The") stays in a CRF span
        only at this confidence (default 0.5).
    rules_fill : bool
        With the CRF on, the gazetteer's person and org rules (a first name or
        title followed by capitalised words; capitalised words ending in an
        organisation word) only fill in where no CRF span or known name is, and
        not when the guess opens with a common word ("Will Be Released")
        (default True; False: the CRF alone decides unknown names).
    promote : bool
        Let :meth:`fit` promote frequent proper-noun candidates (default True).
    min_count, min_authors, min_days : int
        Promotion thresholds (defaults 5, 3, 2). Without authors, distinct
        texts count as authors; without days, the day test is skipped.
    type_sample : int
        Texts per promoted name that the CRF reads to type it (default 20).
    extra, generic_concepts : optional
        Passed to :class:`~corpuskit.enrich.entities.GazetteerExtractor`.
    """

    model_name = "corpuskit-hybrid-1"
    #: the gazetteers and the CRF (trained on English WNUT 2017) are English
    languages = frozenset({"en"})
    learns_from_corpus = True
    _parameter_constraints = {
        "crf": [InstanceOf(bool)], "max_outside": [None, Interval(Real, 0, 1)],
        "lower_confidence": [Interval(Real, 0, 1)], "span_confidence": [Interval(Real, 0, 1)],
        "rules_fill": [InstanceOf(bool)], "promote": [InstanceOf(bool)],
        "min_count": [Interval(Integral, 0)], "min_authors": [Interval(Integral, 0)],
        "min_days": [Interval(Integral, 0)], "type_sample": [Interval(Integral, 0)],
        "extra": [None, InstanceOf(dict)], "generic_concepts": [InstanceOf(bool)]}

    def __init__(self, crf: bool = True, max_outside: float | None = None,
                 lower_confidence: float = 0.5, span_confidence: float = 0.5, rules_fill: bool = True,
                 promote: bool = True,
                 min_count: int = 5, min_authors: int = 3, min_days: int = 2, type_sample: int = 20,
                 extra: dict | None = None, generic_concepts: bool = False):
        self.crf = crf
        self.max_outside = max_outside
        self.lower_confidence = lower_confidence
        self.span_confidence = span_confidence
        self.rules_fill = rules_fill
        self.promote = promote
        self.min_count = min_count
        self.min_authors = min_authors
        self.min_days = min_days
        self.type_sample = type_sample
        self.extra = extra
        self.generic_concepts = generic_concepts

    # ----------------------------------------------------------------- parts
    def _parts(self):
        gaz = getattr(self, "gazetteer_", None)
        if gaz is None:
            self._validate_params()
            gaz = GazetteerExtractor(extra=self.extra, generic_concepts=self.generic_concepts)
            gaz._tables()
            self.gazetteer_ = gaz
            self.tagger_ = CrfTagger() if self.crf else None
            self.lexicon_ = {}
            if self.tagger_ is not None:
                self.tagger_._load()
                self.lexicon_ = self.tagger_.featurizer_.lexicon
            self.demonyms_ = load_demonyms()
            self.memo_ = {}
            if not hasattr(self, "promoted_"):
                self.promoted_ = {}
            if not hasattr(self, "trusted_"):
                self.trusted_ = frozenset()
            if not hasattr(self, "lowered_"):
                self.lowered_ = frozenset()
        return gaz

    def settings(self) -> dict:
        """The parameters and the promoted names (saved with a corpus's enrich run)."""
        return {"min_count": self.min_count, "min_authors": self.min_authors, "min_days": self.min_days,
                "max_outside": self.max_outside,
                "lower_confidence": self.lower_confidence, "span_confidence": self.span_confidence,
                "crf": self.crf,
                "promoted": {k: list(v) for k, v in sorted(getattr(self, "promoted_", {}).items())},
                "trusted": sorted(getattr(self, "trusted_", ())),
                "lowered": sorted(getattr(self, "lowered_", ()))}

    def restore_fit(self, saved: dict):
        """Take the promoted, trusted and lowered names from ``saved`` (:meth:`settings` of an
        earlier fit) unless this extractor was fitted or restored already; returns self."""
        if "promoted_" not in self.__dict__:
            self.promoted_ = {k: tuple(v) for k, v in saved.get("promoted", {}).items()}
            self.trusted_ = frozenset(saved.get("trusted", ()))
            self.lowered_ = frozenset(saved.get("lowered", ()))
        return self

    # ------------------------------------------------------------------- fit
    def fit(self, texts, authors=None, days=None):
        """Learn the corpus's promoted names from ``texts`` (with their authors and days).

        Returns self; ``promoted_`` maps an alias key to ``(name, type)``.
        """
        self._validate_params()
        self._parts()
        self.promoted_, self.trusted_, self.lowered_ = {}, frozenset(), frozenset()
        if not self.promote:
            return self
        # texts, authors and days may be iterables (a corpus streams them); sized ones must agree.
        for name, values in (("authors", authors), ("days", days)):
            if values is not None and hasattr(values, "__len__") and hasattr(texts, "__len__") \
                    and len(values) != len(texts):
                raise ValidationError(f"fit: {name} must have one entry per text")
        table = self.gazetteer_.table_
        common = _common_words()
        count, initial, known_inside, known_total = Counter(), Counter(), Counter(), Counter()
        surfaces: dict[str, Counter] = defaultdict(Counter)
        who: dict[str, set] = defaultdict(set)
        when: dict[str, set] = defaultdict(set)
        lower = Counter()
        if iter(texts) is texts:  # a one-shot iterator: the typing pass below reads the texts again
            texts = list(texts)
        rows = zip(texts, itertools.repeat(None) if authors is None else authors,
                   itertools.repeat(None) if days is None else days)
        for n, (raw, author, day) in enumerate(rows):
            text = _display(raw or "")
            tokens = tokenize(text)
            for _, _, word in tokens:
                if word.islower():
                    lower[word] += 1
            for key, surface, is_initial in self._candidates(tokens, text):
                if key in table:
                    known_inside[key] += not is_initial
                    known_total[key] += 1
                    continue
                count[key] += 1
                initial[key] += is_initial
                surfaces[key][surface] += 1
                # only whether a key reaches min_authors / min_days counts: a set stops growing
                # there (a name every author writes held every author's name, a million at scale)
                if len(who[key]) < self.min_authors:
                    who[key].add(author if author else ("text", n))
                if days is not None and len(when[key]) < self.min_days:
                    when[key].add(day)
        chosen = {}
        for key, c in count.items():
            if (c < self.min_count or len(who[key]) < self.min_authors
                    or (days is not None and len(when[key]) < self.min_days)
                    or len(key) < 2 or key.isdigit() or key in _TITLE_KEYS or key in _NEVER_PROMOTED):
                continue
            inside = c - initial[key]
            single = " " not in max(surfaces[key], key=len)
            if lower[key] >= inside:  # written in lower case as often: a common word
                continue
            if single and (key in common or inside * 2 < c and lower[key]):
                continue  # a common English word ("Repair"), or mostly sentence-initial ("Deny")
            name = min(surfaces[key].items(), key=lambda kv: (-kv[1], kv[0]))[0]
            chosen[key] = name
        self.promoted_ = self._types(dict(sorted(chosen.items())), texts)
        # gazetteer names that are also common words, written capitalised more often than in
        # lower case in this corpus: trusted at the start of a sentence too
        self.trusted_ = frozenset(k for k, n in known_total.items() if k in common and n > lower[k])
        # one-word capitalised candidates this corpus writes in lower case at least as often
        # as capitalised mid-sentence ("Deny" of "Deny it", "deny"): common words here
        self.lowered_ = frozenset(k for k, c in count.items() if lower[k]
                                  and " " not in max(surfaces[k], key=len) and lower[k] >= c - initial[k])
        return self

    def _candidates(self, tokens, text):
        headline = title_case_lines(tokens, text)
        for a, b, is_initial in capital_runs(tokens, text):
            if a in headline:
                continue
            surface = _surface(tokens, a, b, text)
            yield alias_key(surface), surface, is_initial
        for _, _, word in tokens:
            if (word.startswith("#") and len(word) > 2 and any(c.isupper() for c in word[1:])
                    and not self._phrase_hashtag(word[1:])):
                yield alias_key(word), word[1:], False

    def _phrase_hashtag(self, body: str) -> bool:
        """A hashtag that is a phrase, not a name: two or more words (:func:`segment_hashtag`), the
        last an ordinary English word (among the 50,000 most frequent) and the first no listed first
        name ("GetVaccinated", "CovidVaccine", "ModernaVaccine", "BlackLivesMatter"; not
        "MikeBrown" or "JoeBiden"). It stays a hashtag and is never promoted to an entity."""
        parts = [p for piece in body.split("_") if piece for p in segment_hashtag(piece)]
        if len(parts) < 2 or parts[0].capitalize() in self.gazetteer_.first_names_ or parts[-1].isupper():
            return False
        return _english_costs().get(parts[-1].lower(), 99.0) < _COST_50K

    def _types(self, chosen: dict, texts) -> dict:
        """``{key: (name, type)}`` for the promoted names, in one pass over ``texts``.

        A name's type comes from a gazetteer rule (a title, a first name, an organisation word), else from
        the CRF's labels on it over up to ``type_sample`` texts that mention it (kept when at least
        ``_MIN_VOTES`` labels agree on ``_VOTE_SHARE`` of the votes, or two or more are unanimous),
        else ``person`` for two or three words written like a name opening with a first name of the
        wider Census and world lists ("Uğur Şahin"; :func:`_wide_person`), else ``concept``.
        """
        types, pending = {}, {}
        for key, name in chosen.items():
            ruled = self.gazetteer_.extract(name)
            if len(ruled) == 1 and ruled[0].surface == name:
                types[key] = ruled[0].type
            elif name.split()[0] in self.gazetteer_.first_names_:
                types[key] = "person"
            else:
                pending[key] = name
        votes: dict[str, Counter] = defaultdict(Counter)
        if self.tagger_ is not None and pending:
            by_name = {name: key for key, name in pending.items()}
            names = re.compile("|".join(re.escape(n) for n in sorted(by_name, key=lambda n: (-len(n), n))))
            seen, open_keys = Counter(), set(pending)
            for raw in texts:
                if not open_keys:
                    break
                text = _display(raw or "")
                present = {by_name[m.group(0)] for m in names.finditer(text)} & open_keys
                if not present:
                    continue
                tokens = tokenize(text)
                words = [t[2] for t in tokens]
                # spans read at the tagger's own max_outside: the extractor's lines when it keeps that
                spans = self._tagged(tuple(words)) if self.max_outside is None else self.tagger_.spans(words)
                for a, b, label, _ in spans:
                    key = alias_key(_surface(tokens, a, b, text))
                    if key in present:
                        votes[key][WNUT_TYPES.get(label, "concept")] += 1
                for key in present:
                    seen[key] += 1
                    if seen[key] >= self.type_sample:
                        open_keys.discard(key)
        for key, name in pending.items():
            # no telling vote: a name that opens with a first name of the wider lists is a person
            first = name.split()[0].lower()
            known = alias_key(first) in self.gazetteer_.table_ or "place" in self.lexicon_.get(first, ())
            types[key] = "person" if _wide_person(name) and not known else "concept"
            if votes[key]:
                kind, n = min(votes[key].items(), key=lambda kv: (-kv[1], ENTITY_TYPES.index(kv[0])))
                total = sum(votes[key].values())
                if n >= _MIN_VOTES and n >= _VOTE_SHARE * total or n >= 2 and n == total:
                    types[key] = kind
        return {key: (name, types[key]) for key, name in chosen.items()}

    # --------------------------------------------------------------- extract
    def _tagged(self, words: tuple) -> list:
        """The CRF's spans of one line's ``words`` at ``max_outside``, remembered (up to 50,000
        lines): typing in :meth:`fit` reads a one-line text whole, as extraction reads it again."""
        found = self.memo_.get(words)
        if found is None:
            found = self.tagger_.spans(list(words), self.max_outside)
            if len(self.memo_) < 50_000:
                self.memo_[words] = found
        return found

    def _crf_spans(self, tokens, clean) -> tuple[list, set, set]:
        """``(spans, marked, headline)``: the CRF's spans ``(first, last, wnut label, confidence)``
        over ``tokens``, one line at a time (memoised), trimmed and filtered (see the module
        docstring); the character offsets where any raw span started; the indices of tokens on
        Title Case lines."""
        spans = []
        for first, k in _lines(tokens, clean):  # a name never spans lines
            found = self._tagged(tuple(t[2] for t in tokens[first:k]))
            spans.extend((a + first, b + first, label, conf) for a, b, label, conf in found)
        if not spans:
            return [], set(), set()
        words = [t[2] for t in tokens]
        headline = title_case_lines(tokens, clean)
        marked = {tokens[a][0] for a, _, _, _ in spans}  # where the CRF saw a name at all
        out = []
        for a, b, label, conf in _split_at_breaks(spans, words):
            while b > a and _POSSESSIVE_TOKEN.match(words[b]):
                b -= 1
            # an article or title word at the edge stays only when the CRF is sure of it ("The Three Stooges")
            while a <= b and (_filler(words[a]) or words[a] in _LEADING and conf < self.span_confidence):
                a += 1
            while b >= a and _filler(words[b]):
                b -= 1
            # a lower-case ordinary word beside a capitalised name is not part of it ("Xbox team",
            # "to land Boeing 737")
            while (b > a and words[b].islower() and not words[b - 1].islower()
                   and _english_costs().get(words[b], 99.0) < _COST_10K):
                b -= 1
            while (a < b and words[a].islower() and not words[a + 1].islower()
                   and _english_costs().get(words[a], 99.0) < _COST_10K):
                a += 1
            if b < a or words[a][0] == "@" or _LINK.match(words[a]):
                continue
            if is_demonym(words[b].lower().lstrip("#"), self.demonyms_):
                continue  # "American", "South Asian": a nationality names no entity of the five types
            if a == b and words[a] in _FRAGMENTS:
                continue  # a lone generic head ("University", "Street") is the fragment of a name
            if a == b and words[a] in _UNITS and a > 0 and words[a - 1][:1].isdigit():
                continue  # "2.0 GHz": a unit after a number
            if self._weak(tokens, clean, a, b, conf) or (
                    a in headline and conf < self.span_confidence
                    and any(_english_costs().get(t[2].lower(), 99.0) < _COST_10K for t in tokens[a:b + 1])):
                continue  # on a Title Case line, an unsure span of ordinary words ("Newborn Brain Function")
            out.append((a, b, label, conf))
        return self._consistent(words, out), marked, headline

    def _consistent(self, words, spans):
        """One name, one reading per text: a span the CRF is sure of (``span_confidence``) also
        labels the text's other occurrences of the same words, written the same way, that no span
        covers ("Lena ... Lena")."""
        sure = {tuple(words[a:b + 1]): (label, conf) for a, b, label, conf in spans
                if conf >= self.span_confidence and any(w[:1].isalpha() for w in words[a:b + 1])}
        if not sure:
            return spans
        covered = {k for a, b, _, _ in spans for k in range(a, b + 1)}
        extra = []
        for seq, (label, conf) in sorted(sure.items(), key=lambda kv: -len(kv[0])):
            n = len(seq)
            for i in range(len(words) - n + 1):
                if tuple(words[i:i + n]) == seq and not covered.intersection(range(i, i + n)):
                    extra.append((i, i + n - 1, label, conf))
                    covered.update(range(i, i + n))
        return sorted(spans + extra)

    @staticmethod
    def _plain_words_beside(tokens, a, b, names) -> bool:
        """Does span ``a..b`` hold an ordinary English word outside the known ``names`` in it?
        On a Title Case line that is a headline's words ("The Tesla Boss Made"), not a longer name
        ("Elon Musk" around "Musk")."""
        for start, end, word in tokens[a:b + 1]:
            if any(n[0] <= start and end <= n[1] for n in names):
                continue
            if word[:1].isalpha() and _english_costs().get(word.lower(), 99.0) < _COST_10K:
                return True
        return False

    def _known_word(self, word: str, places: bool = True) -> bool:
        """A word the gazetteers know, or the name lexicon knows as a first name (or a place)
        (surnames are too often ordinary words: "baker")."""
        low = word.lower().lstrip("#")
        return alias_key(low) in self.gazetteer_.table_ or bool(
            ({"fname", "place"} if places else {"fname"}).intersection(self.lexicon_.get(low, ())))

    def _weak(self, tokens, clean, a, b, conf) -> bool:
        """A CRF span to drop: one word (not an acronym) this corpus writes in lower case, unknown
        to the gazetteers and first names, or a common word opening a sentence ("deny", "Gene
        therapy"; not "emma" or "Jackie said"); one lower-case English word that no gazetteer or
        first-name list knows ("sea", but not "china" or "alex"); and, below ``lower_confidence``,
        one common word opening a sentence ("Arm is sore"). An all-lower-case span is not dropped
        for its case alone: 3-fold cross-validation of the whole extractor on WNUT 2017 train
        (``tools/extractor_cv.py``) scored that guard 0.526 typed F1 against 0.529."""
        words = [t[2] for t in tokens[a:b + 1]]
        low = words[0].lower()
        acronym = len(words[0]) > 1 and words[0].isupper()  # "LA" is not "la"
        if a == b and low in self.lowered_ and not acronym and (
                not self._known_word(words[0], places=False)
                or _initial(tokens, a, clean) and low in _common_words()):
            return True
        if (a == b and words[0].islower() and _english_costs().get(words[0], 99.0) < _COST_50K
                and not self._known_word(words[0], places=False)):
            return True
        return (conf < self.lower_confidence and a == b and low in _common_words() and low not in self.trusted_
                and _initial(tokens, a, clean))

    def extract(self, text: str) -> list[Mention]:
        gaz = self._parts()
        raw = text or ""
        clean, offsets = aligned_display(raw)
        found: dict[tuple, tuple[list, list]] = {}
        taken: list[tuple[int, int]] = []  # clean-text character spans already claimed

        def free(start, end):
            return all(end <= s or start >= e for s, e in taken)

        def add(name, kind, surface, start, end):
            slot = found.setdefault((name, kind), ([], []))
            slot[0].append(surface)
            slot[1].append(start if offsets is None else offsets[start])
            taken.append((start, end))

        tokens = tokenize(clean)
        common = _common_words()
        token_at = {t[0]: i for i, t in enumerate(tokens)}
        crf_spans, headline = [], set()
        if self.tagger_ is not None and tokens:
            crf_spans, _, headline = self._crf_spans(tokens, clean)
        crf_starts = {tokens[a][0] for a, _, _, _ in crf_spans}

        # 1. hashtags and handles that the alias table resolves
        for start, end, word in tokens:
            if word[0] in "#@" and len(word) > 1:
                for name, kind in self._resolve_tag(word):
                    add(name, kind, word, start, end)

        # 2. known names: gazetteer matches, then names promoted from the corpus
        known = []  # (start, end, name, kind, surface)
        guessed = []  # the same, from the gazetteer's person and org rules: they only fill in
        gazetteer_mentions, table_hits = gaz.extract_with_table_starts(clean)
        for m in gazetteer_mentions:
            for pos in m.positions:
                surface = next((s for s in m.aliases if clean.startswith(s, pos)), m.surface)
                if (" " not in surface and surface[1:].islower() and surface.lower() in common
                        and surface.lower() not in self.trusted_ and pos not in crf_starts
                        and pos in token_at and _initial(tokens, token_at[pos], clean)):
                    continue  # "Arm is sore": a common word opening a sentence, and the CRF disagrees
                ruled = self.tagger_ is not None and pos not in table_hits  # "iPhone 17" stays known
                (guessed if ruled else known).append((pos, pos + len(surface), m.name, m.type, surface))
        promoted = self.promoted_
        if promoted:
            for a, b, _ in capital_runs(tokens, clean):
                start, end = tokens[a][0], tokens[b][1]
                hit = promoted.get(alias_key(clean[start:end]))
                if hit is not None:
                    known.append((start, end, hit[0], hit[1], clean[start:end]))
            for start, end, word in tokens:
                if word[0] == "#":
                    hit = promoted.get(alias_key(word))
                    if hit is not None:
                        known.append((start, end, hit[0], hit[1], word))

        # 3. merge: the CRF decides a span it is sure of; a known name decides its own span and
        #    canonical name; each fills in where the other has nothing
        dropped = set()
        chosen = []
        for a, b, label, conf in crf_spans:
            start, end = tokens[a][0], tokens[b][1]
            overlapping = [k for k, g in enumerate(known) if g[0] < end and start < g[1]]
            exact = [k for k in overlapping if known[k][:2] == (start, end)]
            if exact or not overlapping:
                chosen.append((start, end, label))
                continue
            inside = all(start <= known[k][0] and known[k][1] <= end for k in overlapping)
            if inside and conf >= self.span_confidence and not (
                    a in headline and self._plain_words_beside(tokens, a, b, [known[k] for k in overlapping])):
                dropped.update(overlapping)  # "Xiaomi Mi 6" over the gazetteer's "Xiaomi"
                # a known name that ends the span is its head and gives the type ("Allwinner Linux")
                head = [known[k][3] for k in overlapping if known[k][1] == end]
                chosen.append((start, end, label if not head else ("type", head[0])))
        for k, (start, end, name, kind, surface) in enumerate(known):
            if k not in dropped and free(start, end):
                add(name, kind, surface, start, end)
        for start, end, label in chosen:
            if not free(start, end):
                continue
            surface = clean[start:end]
            name = surface.lstrip("#")
            key = alias_key(name)
            if not key:
                continue
            entry = gaz.table_.get(key)
            hit = promoted.get(key)
            if entry is not None:
                name, kind = entry.name, entry.type
            elif hit is not None:
                name, kind = hit
            elif isinstance(label, tuple):
                kind = label[1]
            else:
                kind = _rule_type(name.split(), gaz) or WNUT_TYPES.get(label, "concept")
            add(name, kind, surface, start, end)
        for start, end, name, kind, surface in guessed if self.rules_fill else ():
            # a rule's guess fills in where the CRF found nothing, unless it opens with a common
            # word that is also a first name ("Will Be Released", "Max Out Monday")
            if free(start, end) and surface.split()[0].lower() not in common:
                add(name, kind, surface, start, end)
        return self._mentions(found)

    def _table_only(self) -> GazetteerExtractor:
        """The gazetteer without its rules: a tag resolves to names the alias table knows, never to
        a name guessed from its words ("@amandaguido" is not "Amanda Guido")."""
        plain = self.__dict__.get("plain_")
        if plain is None:
            plain = self.plain_ = GazetteerExtractor(extra=self.extra, generic_concepts=self.generic_concepts,
                                                     rules=False)
            plain.table_, plain.first_names_, plain.prefixes_ = (self.gazetteer_.table_, self.gazetteer_.first_names_,
                                                                 self.gazetteer_.prefixes_)
        return plain

    def _resolve_tag(self, word: str) -> list[tuple[str, str]]:
        """Entities named by a hashtag or handle: the whole tag, else its segmented words."""
        table = self.gazetteer_.table_
        entry = table.get(alias_key(word))
        if entry is not None:
            return [(entry.name, entry.type)]
        hit = self.promoted_.get(alias_key(word))
        if hit is not None:
            return [hit]
        body = word[1:]
        parts = []
        for piece in body.split("_"):
            if piece:
                parts.extend(segment_hashtag(piece))
        if len(parts) < 2:
            return []
        phrase = " ".join(p if not p.islower() else p.capitalize() for p in parts)
        found = self._table_only().extract(phrase)
        # the tag must be made of the names (and generic affixes such as "Group" or "Official"):
        # "#PfizerBioNTech" and "@BioNTech_Group" name their entities, "@thisisiceland" does not
        covered = [False] * len(phrase)
        for m in found:
            for pos in m.positions:
                surface = next((a for a in m.aliases if phrase.startswith(a, pos)), m.surface)
                covered[pos:pos + len(surface)] = [True] * len(surface)
        pos = 0
        for part in phrase.split(" "):
            if not all(covered[pos:pos + len(part)]) and part.lower() not in _TAG_AFFIXES:
                return []
            pos += len(part) + 1
        out = []
        for m in found:
            if (m.name, m.type) not in out:
                out.append((m.name, m.type))
        return out

    @staticmethod
    def _mentions(found) -> list[Mention]:
        merged: dict[str, list] = {}
        for (name, kind), (surfaces, positions) in found.items():
            slug = entity_slug(name)
            slot = merged.setdefault(slug, [name, kind, [], []])
            slot[2].extend(surfaces)
            slot[3].extend(positions)
        out = []
        for slug, (name, kind, surfaces, positions) in merged.items():
            order = sorted(range(len(positions)), key=lambda i: positions[i])
            out.append(Mention(key=slug, name=name, type=kind, surface=surfaces[order[0]],
                               positions=tuple(sorted(positions)), aliases=tuple(sorted(set(surfaces)))))
        out.sort(key=lambda m: (m.positions[0], m.key))
        return out

    def __getstate__(self):
        state = {k: v for k, v in self.__dict__.items() if not k.endswith("_")}
        for name in ("promoted_", "trusted_", "lowered_"):
            if name in self.__dict__:
                state[name] = self.__dict__[name]
        return state
