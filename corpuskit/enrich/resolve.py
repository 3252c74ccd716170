"""Entity resolution: one entity per real thing, every merge recorded with its reason.

The extractor's mentions are kept as extracted (``mention_origins``: one row per record and
extracted entity, the *origin*). :func:`resolve_entities` maps every origin to the entities it
stands for and rebuilds ``mentions`` from them, so it can be replayed at any time (each enrich
ends with it) and a researcher's overrides (``entity_overrides``) hold across runs.

Rules, in order:

1. **Same name once folded** (accents dropped, case, spacing and punctuation ignored; a handle's
   ``@``, underscores and a trailing ``Group``/``Official``/``HQ``... dropped): ``Karikó`` and
   ``Kariko``, ``Uğur Şahin`` and ``UgurSahin``, ``@BioNTech_Group`` and ``BioNTech``. Reasons
   ``diacritics``, ``spelling``, ``handle``, ``hashtag``.
2. **Hashtags** (an origin every one of whose mentions is written ``#Tag``): the tag folded whole
   (or without a leading ``Dr``) names an entity, or its words
   (:func:`corpuskit.text.hashtags.segment_hashtag`) are covered by entities of the corpus:
   ``#PfizerBioNTech`` -> Pfizer + BioNTech. A tag that names no thing (``#CovidVaccine``) gives no
   entity mention (reason ``hashtag only``); it stays in the ``hashtags`` table.
3. **Surname alone**, linked to the full name of a person (a name with person evidence, below)
   when it is the last word of exactly one such name in the corpus (``surname``). A full name
   that is a title and one word ("Prince Charles") owns no surname. The link needs the two in one
   record or on one day, as a first name does, unless the full name starts with a title or a
   first name of the public list and the surname is neither a common English word, nor one the
   corpus writes in lower case as often as capitalised, nor itself a listed first name
   ("Princeton Bitcoin" does not take every "Bitcoin", nor "Martin David" every "David";
   "Elizabeth Warren" takes "Warren").
4. **First name alone**, linked when it is the first word of exactly one full name of a person
   whose last word is no common or corpus-lower-case word ("Joshua Trees" owns no "Joshua"),
   no full name owns it as a surname, it is neither a gazetteer name nor a common English word
   (``corpuskit/data/common_english_words.txt``) nor written in lower case as often as
   capitalised in the corpus, and it co-occurs with that full name in one record or on one day
   (``first name``): "Elon" joins "Elon Musk" only where the corpus shows them together.
5. **Short forms**: a two-word name with that surname whose first word starts the full name's
   first word (``Kati Kariko`` -> ``Katalin Karikó``; ``short form``).
6. **Absorbed fragments**: a name that is another entity plus a leading or trailing word that is a
   place of the gazetteers (or a leading place's possessive without its apostrophe, "Indias"), when
   that entity is not a place, nor one word that is a common English word or one the corpus writes
   in lower case as often as capitalised (``Russia SputnikV`` -> ``SputnikV``; "China Censor"
   stays); or another entity plus a trailing such common word, written in lower case ("GitHub
   acquire") or, for a name mentioned once, a capitalised one ending in ``s`` ("Facebook Freaks";
   ``absorbed fragment``).

7. **Names cut short**: a mention whose text goes on with the name of another entity of the
   corpus that starts with the mention's ("Google" read in "Google Home") is a mention of the
   longest such name written there, unless that name is a place or a person's, or the mention's
   entity is a person (:func:`_longer_names`; no reason: the mention moves, not the entity).
8. **Ordinary words**: a lone demonym phrase ("Russians", "Chinese startup"), a hyphenated word
   of common words ("Censorship-Free") or a common word written in lower case names nothing
   (reason ``ordinary words``).

**Person evidence.** A name of two or more words is a person when it starts with a title ("Dr",
"Senator", "Prince"...) or a first name of the public list ("Steve Jobs"), or when every word is
written like a name and none is a common English word or one the corpus writes in lower case as
often as capitalised ("Katalin Karikó" is; "Brain Drain", "Cable Robot", "Deep Fake", "All-electric
Mini Cooper" are not), or when it has two or three words, the first a name of the larger Census
list (``gazetteers/census_first_names.txt``: every US Census 1990 first name but the demo
vocabulary's words; with ``gazetteers/world_first_names.txt``, the Latin-script first names of
Faker's locales, MIT: "Uğur", "Katalin"; here without the common English words the corpus writes in lower case, the
words it writes in lower case as often as capitalised, the gazetteer names, the listed first
names and the one-word names of the corpus's entities of other types: "Ruby", "Chase") written like a name, the others capitalised words ("Larry Page", "Mitch McConnell" are;
"Hope Diamond", "Travis CI", "TED Talks", "Ruby Bug" are not). That list backs no one-word name
and links no surname or first name. A group typed person without evidence from any of its names takes the
type of its other forms, else ``concept``, and owns no surname or first name. A one-word name
stays a person only when it is a first name of the public list, or the first or last word of a
full name of a person that starts with a title or such a first name, or is mentioned at least
twice ("Bitcoin", typed person by the labeller in headlines and once seen as "Princeton Bitcoin",
is not).

The canonical name of a group is its best-written form: not a hashtag or handle, several words
over one, with its diacritics, properly cased (a lower-case start with an inner capital,
"iPhone", over the capitalised "Iphone" whenever the corpus writes it so at all), then the most
mentioned. The type is the one most
mentions carry over all of the group's forms (hashtag forms count only when the group has no other).
"""
from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from corpuskit.clock import iso
from corpuskit.enrich.name_shapes import census_names as _census_names
from corpuskit.enrich.name_shapes import fold
from corpuskit.enrich.name_shapes import name_like as _name_like
from corpuskit.enrich.name_shapes import surname_like as _surname_like
from corpuskit.errors import ValidationError
from corpuskit.query.name_keys import alias_key, entity_slug
from corpuskit.text.hashtags import segment_hashtag
from corpuskit.text.patterns import HASHTAG
from corpuskit.text.terms import COMMON_WORDS, STOP_WORDS

_TYPE_ORDER = ("person", "org", "product", "place", "concept")
_HANDLE_TAILS = {"group", "official", "hq", "inc", "team", "news", "global", "uk", "us", "corp", "co"}
_TITLE_PREFIXES = ("dr", "prof")


def _handle_fold(name: str) -> str:
    parts = [p for p in re.split(r"[_\s]+", name.lstrip("@")) if p]
    while len(parts) > 1 and fold(parts[-1]) in _HANDLE_TAILS:
        parts.pop()
    return fold("".join(parts))


def _words(name: str) -> list[str]:
    return [w for w in re.split(r"[\s]+", name.strip()) if w]


@dataclass
class _Origin:
    id: int
    slug: str
    name: str
    type: str
    mentions: int
    tagged: int
    forms: Counter = field(default_factory=Counter)

    @property
    def hashtag(self) -> bool:
        return self.tagged >= self.mentions > 0

    @property
    def handle(self) -> bool:
        return self.name.startswith("@") or all(f.startswith("@") for f in self.forms) and bool(self.forms)


def _inner_capital(word: str) -> bool:
    """A capital after a lower-case letter: "iPhone", "GitHub", "BioNTech" (not "Iphone", not "NASA")."""
    return any(a.islower() and b.isupper() for a, b in zip(word, word[1:]))


def _lower_camel(word: str) -> bool:
    """Written on purpose with a lower-case start and an inner capital ("iPhone", "eBay", "iOS"):
    a headline's "Iphone" is that name capitalised."""
    return word[:1].islower() and (_inner_capital(word) or word[1:2].isupper())


def _form_score(form: str, from_tag: bool, mentions: int):
    words = _words(form)
    letters = [c for c in form if c.isalpha()]
    shouted = len(letters) > 5 and all(c.isupper() for c in letters)
    proper = all(w[:1].isupper() or _lower_camel(w) for w in words) and not shouted
    return (not from_tag and not form.startswith("@"), len(words) > 1, any(ord(c) > 127 for c in letters),
            proper, any(_lower_camel(w) for w in words), mentions, form)


class _Groups:
    """Union-find over origins with the reason each one joined."""

    def __init__(self, ids):
        self.parent = {i: i for i in ids}

    def find(self, i):
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def union(self, keep, other) -> bool:
        a, b = self.find(keep), self.find(other)
        if a == b:
            return False
        self.parent[b] = a
        return True


def _load(conn) -> dict[int, _Origin]:
    conn.execute("INSERT OR IGNORE INTO entity_origins(origin_id, name, type) "
                 "SELECT e.id, e.name, e.type FROM entities e WHERE e.id IN (SELECT origin_id FROM mention_origins)")
    origins = {}
    for r in conn.execute(
            "SELECT o.origin_id, e.slug, g.name, g.type, sum(o.mention_count), sum(o.tagged) "
            "FROM mention_origins o JOIN entities e ON e.id = o.origin_id "
            "JOIN entity_origins g ON g.origin_id = o.origin_id GROUP BY o.origin_id ORDER BY o.origin_id"):
        origins[r[0]] = _Origin(r[0], r[1], r[2], r[3], r[4], r[5])
    for oid, surface, n in conn.execute(
            "SELECT origin_id, surface, sum(mention_count) FROM mention_origins WHERE tagged < mention_count "
            "GROUP BY origin_id, surface"):
        origins[oid].forms[surface] += n
    return origins


def plan(origins: dict[int, _Origin], overrides=(), places=frozenset(), known=frozenset(),
         first_names=frozenset(), common=frozenset(), together=None, lowered=frozenset(),
         census_names=frozenset(), evidence=None, headline_only=frozenset()) -> dict:
    """The resolution of ``origins``: ``{origin id: (target origin ids, reason or None)}`` plus the
    canonical name and type of every target, as ``{"map": ..., "names": ..., "types": ...}``.

    ``overrides`` are ``(action, target origin ids, alias origin ids)``; ``places`` folded place
    names (a word that is one may be an absorbed fragment); ``known`` folded names of the
    gazetteers (a known name is never a surname, first name or fragment of another);
    ``first_names`` folded first names of the public list; ``common`` lower-case words that name
    nothing alone (common English words the corpus also writes in lower case); ``lowered`` words
    the corpus writes in lower case as often as capitalised; ``together(origin id, origin ids)``
    tells whether the first origin shares a record or a day with any of the others (None: never,
    so no first name links); ``census_names`` folded first names of the larger Census list
    (``gazetteers/census_first_names.txt``), weak person evidence only (see :func:`_person_evidence`;
    those in ``common``, ``lowered`` or ``known``, and those the corpus has as a one-word entity of
    another type, do not count): "Larry Page" is a person; it backs
    no one-word name and links no surname or first name that the listed names would not.
    ``evidence`` is ``{folded name: type}`` read from the corpus's text
    (:func:`corpuskit.enrich.type_evidence.read_type_evidence`), used by :func:`_evidence_types`;
    ``headline_only`` origin ids of names of ordinary words or clauses seen only on Title Case lines
    (:func:`_headline_only`): one left alone in its group names nothing when it is a clause or not
    typed concept ("GMOs Are Fine", "General Skills"; reason ``headline words``).
    """
    split = {a for action, _, aliases in overrides if action == "split" for a in aliases}
    plain = [o for o in origins.values() if not o.hashtag]
    groups = _Groups(origins)
    reasons: dict[int, str] = {}
    by_key: dict[str, int] = {}
    for o in sorted(plain, key=lambda o: (-o.mentions, o.id)):
        if o.id in split:
            continue
        key = _handle_fold(o.name) if o.handle else fold(o.name)
        if not key:
            continue
        if key in by_key:
            rep = origins[by_key[key]]
            groups.union(rep.id, o.id)
            reasons[o.id] = ("handle" if o.handle else "diacritics"
                             if _ascii_fold(o.name) == _ascii_fold(rep.name) and o.name != rep.name
                             else "spelling")
        else:
            by_key[key] = o.id
    _join_plurals(origins, by_key, groups, reasons, split, known)
    # canonical form and type of each group of plain names
    names, types = _canonical(origins, groups)
    # a Census name the corpus also has as a one-word entity ("Ruby", "Chase", "Mario", whatever its
    # extracted type) backs no person: a first name is rarely written alone, a language or a bank is
    things = {fold(origins[i].name) for i in by_key.values() if len(_words(origins[i].name)) == 1}
    census = census_names - common - lowered - known - first_names - things
    roots = {groups.find(i) for i in by_key.values()}
    members = _members(origins, groups)
    for root in roots:
        if types[root] == "person" and not _person_evidence(members[root], first_names, common, lowered,
                                                            census=census):
            types[root] = _fallback_type(members[root])
    makers = {fold(names[r]) for r in roots if types[r] in ("org", "product") and len(_words(names[r])) == 1}
    # the wider first names retype only once the names are linked: "Kati Kariko" (typed place) is still
    # the short form of "Katalin Karikó", not a second owner of the surname
    _evidence_types(names, types, roots, first_names, places, makers, evidence, known, frozenset(), common | lowered)
    roots = _join_nicknames(names, types, roots, groups, reasons, together, members)
    members = _members(origins, groups)
    # surnames and first names link as before: only the listed first names make a name strong
    strong = {root for root in roots if _person_evidence(members[root], first_names, common, lowered) == 2}
    surname, first = defaultdict(set), defaultdict(set)
    for root in roots:
        words = _untitled(_words(names[root]))
        if types[root] == "person" and len(words) >= 2:
            surname[fold(words[-1])].add(root)
            if words[-1].lower() not in common | lowered:  # "Joshua Trees" owns no "Joshua"
                first[fold(words[0])].add(root)

    def shown_together(oid, owner):
        return together is not None and together(oid, sorted(o.id for o in members[owner]))
    totals = _group_mentions(origins, groups)
    for root in sorted(roots, key=lambda r: (-totals[r], r)):
        if root in split or groups.find(root) != root:
            continue
        words = _words(names[root])
        target, reason = None, None
        if fold(names[root]) in known:
            continue
        if len(words) == 1 and _name_like(words[0]) and types[root] in ("place", "concept") \
                and fold(words[0]) not in places:
            # "Netanyahu" typed a place, "Sahin" a concept: the surname of a person whose name opens
            # with a title or a listed first name, where shown with that person, and not written alone
            # ten times as often ("Tim Apple" takes no "Apple")
            owners = surname.get(fold(words[0]), set())
            owner = next(iter(owners), None)
            if len(owners) == 1 and owner in strong and totals[root] <= 10 * totals[owner] \
                    and shown_together(root, owner):
                target, reason = owner, "surname"
        elif len(words) == 1 and types[root] == "person" and _name_like(words[0]):
            key = fold(words[0])
            bare = words[0].lower() in common | lowered  # a common word links only where shown with the name
            if len(surname.get(key, ())) == 1:
                owner = next(iter(surname[key]))
                # a listed first name alone ("David") is a surname only where shown with the full name
                if owner in strong and not bare and key not in first_names or shown_together(root, owner):
                    target, reason = owner, "surname"
            elif key not in surname and len(first.get(key, ())) == 1 and not bare:
                owner = next(iter(first[key]))
                if shown_together(root, owner):
                    target, reason = owner, "first name"
        elif len(words) == 2 and types[root] != "person" or len(words) == 2 and root not in surname.get(
                fold(words[-1]), ()):
            owners = surname.get(fold(words[-1]), set()) - {root}
            if len(owners) == 1:
                owner = next(iter(owners))
                short, full = fold(words[0]), fold(_untitled(_words(names[owner]))[0])
                if 2 <= len(short) < len(full) and full.startswith(short[:3]) and short[0] == full[0]:
                    target, reason = owner, "short form"
        if target is None and len(words) >= 2:
            target = _absorbed(words, by_key, groups, places, types, root, common | lowered, totals[root] <= 1)
            reason = "absorbed fragment" if target is not None else None
        if target is not None and groups.find(target) != root:
            groups.union(groups.find(target), root)
            reasons[root] = reason
    tag_targets = _tag_targets(origins, split, by_key, surname, groups)
    # a researcher's merges
    for action, targets, aliases in overrides:
        if action != "merge" or not targets:
            continue
        keep = groups.find(targets[0])
        for a in aliases:
            tag_targets.pop(a, None)
            if groups.find(a) != keep:
                root = groups.find(a)
                groups.parent[root] = keep
                reasons[a] = "user merge"
                if root != a:
                    reasons.setdefault(root, "user merge")
    # words of full names that are people by a title or a listed first name, or seen at least twice
    totals = _group_mentions(origins, groups)
    seen = {r for r in roots if r in strong or totals[r] >= 2}
    backed = {k for table in (surname, first) for k, owners in table.items() if owners & seen}
    names, types = _canonical(origins, groups, names, first_names, common, lowered, backed, census)
    _evidence_types(names, types, names.keys(), first_names, places, makers, evidence, known, census,
                    common | lowered)
    ordinary = _ordinary_names(origins, common | lowered, known, common)
    out = _targets(origins, groups, reasons, tag_targets, types, headline_only or frozenset(), ordinary)
    return {"map": out, "names": names, "types": types}


def _ordinary_names(origins, bare, known=frozenset(), common=frozenset()) -> frozenset:
    """Origin ids of names no gazetteer knows (``known``) that name nothing whatever their capitals:
    a demonym, its plural or a demonym followed only by lower-case words of ``bare`` (common words
    the corpus writes in lower case: "Russians", "Chinese startup"; not "European Union"), or one
    hyphenated word whose parts are all such words of two letters or more, or demonyms
    ("Censorship-Free", "Co-Founder", "Canadian-American"; not "T-Mobile"), or one common English
    word the corpus also writes in lower case (``common``), written so ("debunker")."""
    from corpuskit.enrich.crf import is_demonym, load_demonyms

    demonyms = load_demonyms()
    out = set()
    for o in origins.values():
        words = _words(o.name)
        if o.hashtag or not words or fold(o.name) in known:
            continue
        if is_demonym(words[0].lower(), demonyms) and all(w.islower() and w in bare for w in words[1:]):
            out.add(o.id)
        elif len(words) == 1 and words[0].isalpha() and words[0].islower() and words[0] in common:
            out.add(o.id)
        elif len(words) == 1 and "-" in words[0] and all(
                len(p) > 1 and (p in bare or is_demonym(p, demonyms)) for p in _name_parts(words)):
            out.add(o.id)
    return frozenset(out)


def _targets(origins, groups, reasons, tag_targets, types, headline, ordinary=frozenset()) -> dict:
    """``{origin id: (target origin ids, reason or None)}`` once the groups are final: a lone name of
    headline words, or of ordinary words (``ordinary``, :func:`_ordinary_names`), names nothing, a
    hashtag goes to what it names, any other origin to its group."""
    out = {}
    sizes = Counter(groups.find(o.id) for o in origins.values())
    for o in origins.values():
        if o.id in ordinary and groups.find(o.id) == o.id and sizes[o.id] == 1:
            out[o.id] = ([], "ordinary words")
            continue
        clause = any(w.lower() in _CLAUSE_WORDS for w in _words(o.name)[1:])
        if o.id in headline and groups.find(o.id) == o.id and sizes[o.id] == 1 and (
                clause or types.get(o.id) != "concept"):
            out[o.id] = ([], "headline words")
            continue
        if o.id in tag_targets:
            targets = sorted({groups.find(t) for t in tag_targets[o.id]})
            out[o.id] = (targets, "hashtag" if targets else "hashtag only")
            continue
        root = groups.find(o.id)
        if root == o.id:
            out[o.id] = ([o.id], None)
        else:
            out[o.id] = ([root], reasons.get(o.id) or _chain_reason(o.id, groups, reasons))
    return out


# the last word of a name of a place or a building, never of a person's ("Martin Place", "Grant Park")
_PLACE_HEADS = frozenset({"place", "street", "st", "road", "rd", "avenue", "ave", "square", "park", "bridge",
                          "station", "airport", "county", "city", "lake", "river", "island", "beach", "valley",
                          "mountain", "hill", "hills", "heights", "plaza", "centre", "center", "tower", "hall",
                          "gardens", "harbour", "harbor", "bay", "falls"})


def _evidence_types(names, types, roots, first_names, places, makers=frozenset(), evidence=None,
                    known=frozenset(), census=frozenset(), bare=frozenset()) -> None:
    """Types by evidence, in place: a name of two or more words whose first word (after titles) is a
    listed first name is a person, not a place or a concept ("Kati Kariko", "Mike Brown"), unless its
    last word names a place ("Martin Place": a place); a known place of the gazetteers typed person or
    concept is a place unless a title or a listed first name opens it ("Ferguson", "London"); a
    name typed person that opens with a one-word organisation or product of the corpus (``makers``)
    and no listed first name is that maker's product ("Nvidia Tegra", "Google Fiber").

    For names no gazetteer knows (``known``), and no title nor listed first name opens: a name
    ending in a law's head noun is a concept ("Investigatory Powers Bill"), one ending in an
    institution's head noun an organisation ("Imperial College", "Justice Department"); an all-caps
    acronym takes the type its expansion or its institution contexts in the text give
    (``evidence``: "NOAA", "ARDS"), a name typed person the organisation its contexts show ("Johns
    Hopkins researchers"); an acronym of three or more letters typed place with no such evidence,
    that spells no multi-word place of the corpus ("SF", "NYC" do), is a concept ("CBD", "THC");
    a name typed place of two or more words that no gazetteer knows, with no gazetteer place among
    its words, ending in a common word the corpus writes in lower case (``bare``) that names no
    kind of place, is a concept ("ASCII Art", "Electron Microscope"; not "Black Forest");
    a name of two or more words ending in a software head noun (``SOFTWARE_HEADS``: "Linode API",
    "Android Studio"), not an organisation, is a product; a name typed concept or place that the
    text writes as software (``evidence`` ``product``:
    "Rails 5.0", "written in Scala"), not only of words of ``bare`` (common words the corpus
    writes in lower case), is a product; a name typed organisation that opens with a one-word
    organisation or product of the corpus (``makers``), has no place among its words and ends in no
    institution's head noun nor a common plural ("Employees", "Searches") is that maker's product
    ("Apple Pencil", "Nintendo NX"; not "Wikimedia Foundation", "NHS England", "Amazon Employees"); a name
    typed person that opens with a multi-word organisation of the corpus is part of it
    ("Johns Hopkins Medicine").

    A name of two or three words that opens with a first name of the wider lists (``census``:
    the Census and world first names less the corpus's common, lower-case and gazetteer words),
    written like a name, its other words capitalised like surnames and none a word of ``bare``,
    is a person, not a place or a concept ("Uğur Şahin"; not "Hope Diamond")."""
    from corpuskit.enrich.type_evidence import ACRONYM, LAW_HEADS, ORG_HEADS, SOFTWARE_HEADS, initials

    evidence = evidence or {}
    place_initials = {initials(_words(names[r])) for r in roots
                      if types[r] == "place" and len(_words(names[r])) >= 2}
    for root in roots:
        words = _words(names[root])
        rest = _untitled(words)
        titled = len(rest) < len(words)
        opens_first = len(rest) >= 2 and fold(rest[0]) in first_names and all(
            w[:1].isupper() for w in rest[1:])
        key = fold(names[root])
        unknown = key not in known and not titled and not opens_first
        acronym = bool(ACRONYM.fullmatch(names[root]))
        opens_weak = 2 <= len(words) <= 3 and not titled and fold(words[0]) in census and _name_like(words[0]) \
            and all(_surname_like(w) and not set(_name_parts([w])) & bare for w in words[1:])
        if unknown and len(words) >= 2 and words[-1].lower() in LAW_HEADS:
            types[root] = "concept"
        elif unknown and len(words) >= 2 and words[-1].lower() in _INSTITUTION_HEADS:
            types[root] = "org"
        elif unknown and len(words) >= 2 and words[-1].lower() in SOFTWARE_HEADS and types[root] != "org" \
                and not all(p in bare for p in _name_parts(words[:-1])):
            types[root] = "product"
        elif unknown and key in evidence and (acronym or types[root] == "person"):
            types[root] = evidence[key]
        elif unknown and evidence.get(key) == "product" and types[root] in ("concept", "place") \
                and not all(p in bare for p in _name_parts(words)):
            types[root] = "product"
        elif unknown and evidence.get(key) == "concept" and types[root] == "place" and len(words) == 1 \
                and key not in places:
            types[root] = "concept"
        elif unknown and evidence.get(key) == "org" and types[root] == "concept" and len(words) == 1 \
                and not set(_name_parts(words)) & bare:
            types[root] = "org"
        elif unknown and acronym and types[root] == "place" and len(names[root].replace("&", "")) >= 3 \
                and names[root] not in place_initials:
            types[root] = "concept"
        elif unknown and types[root] == "place" and len(words) >= 2 and words[-1].lower() in bare \
                and words[-1].lower() not in _PLACE_HEADS | _LAND_WORDS and not any(fold(w) in places for w in words):
            types[root] = "concept"
        elif len(words) >= 2 and words[-1].lower() in _PLACE_HEADS and not titled:
            if types[root] == "person":
                types[root] = "place"
        elif (opens_first or opens_weak and key not in places) and types[root] in ("place", "concept"):
            types[root] = "person"
        elif types[root] == "person" and len(words) >= 2 and fold(words[0]) in makers and not opens_first:
            types[root] = "product"
        elif unknown and types[root] == "org" and len(words) >= 2 and fold(words[0]) in makers \
                and words[-1].lower().strip(".") not in ORG_HEADS and not any(fold(w) in places for w in words) \
                and not (words[-1].endswith("s") and words[-1].lower() in bare):
            types[root] = "product"
        elif types[root] in ("person", "concept") and fold(names[root]) in places and not titled \
                and not opens_first:
            types[root] = "place"
    institutions = {fold(names[r]) for r in roots if types[r] == "org" and len(_words(names[r])) >= 2}
    for root in roots:
        words = _words(names[root])
        if types[root] == "person" and len(words) >= 3 and _untitled(words) == words \
                and fold(words[0]) not in first_names \
                and any(fold(" ".join(words[:k])) in institutions for k in range(2, len(words))):
            types[root] = "org"


# the last word of the name of a natural place ("Black Forest", "Gulf of California"): besides _PLACE_HEADS,
# the common words a place typed by the labeller may end in
_LAND_WORDS = frozenset({"forest", "desert", "sea", "ocean", "mountains", "canyon", "coast", "peninsula", "gulf",
                         "strait", "lakes", "sound", "reef", "glacier", "basin", "plateau", "delta", "cape", "point",
                         "gate", "district", "quarter", "village", "town", "country", "land", "north", "south",
                         "east", "west"})

# the last word of the name of an institution, which no person's name ends in
_INSTITUTION_HEADS = frozenset({"university", "institute", "hospital", "foundation", "college", "agency",
                                "administration", "association", "society", "council", "commission",
                                "department", "ministry", "bureau", "laboratory", "museum", "academy", "clinic"})


def _join_plurals(origins, by_key, groups, reasons, split, known=frozenset(), ratio: int = 5) -> None:
    """Join a plural written with an ``s`` after an acronym or a name with an inner capital to that
    name ("APIs" -> "API", "iPhones" -> "iPhone"; reason ``plural``), and one-word ``Xs`` to ``X``
    written so, at least ``ratio`` times as often (a possessive without its apostrophe, "Apples
    encryption", or a plural, "Teslas"). Otherwise a plain capitalised word is left alone: "Mars" is
    no plural of a "Mar" written as rarely, nor "Ars" of "AR"; nor is a gazetteer name ("Americas")
    or the ``Xs`` of a person typed an organisation, product or place ("McDonalds"; "Putins", typed
    concept, is Putin's)."""
    for key, oid in sorted(by_key.items()):
        name = origins[oid].name.lstrip("@")
        stem = name[:-1]
        if not name.endswith("s") or " " in name or oid in split or fold(stem) not in by_key:
            continue
        owner = by_key[fold(stem)]
        # "McDonalds" (typed org), "Americas" name other things; "Putins" (typed concept) is Putin's
        if origins[owner].type == "person" and origins[oid].type in ("org", "product", "place") or key in known:
            continue
        if not (len(stem) >= 2 and stem.isupper() or _inner_capital(stem) or _lower_camel(stem)
                or origins[owner].name == stem and origins[owner].mentions >= ratio * origins[oid].mentions):
            continue  # "Ars" is no plural of "AR"
        if groups.find(owner) != groups.find(oid):
            groups.union(owner, oid)
            reasons[oid] = "plural"


def _nicknames() -> dict[str, frozenset]:
    """``{folded short form: folded formal names}`` of ``gazetteers/nicknames.txt``."""
    from importlib import resources

    text = resources.files("corpuskit.enrich").joinpath("gazetteers", "nicknames.txt").read_text(encoding="utf-8")
    out = defaultdict(set)
    for line in text.splitlines():
        formal, sep, shorts = line.partition(":")
        if sep and not line.startswith("#"):
            for short in shorts.split():
                out[fold(short)].add(fold(formal))
    return {k: frozenset(v) for k, v in out.items()}


def _join_nicknames(names, types, roots, groups, reasons, together, members) -> set:
    """Join a person's name written with a short given name to the one full name of that surname with
    the formal given name ("Mike Brown" -> "Michael Brown"), where the two share a record or a day;
    returns the roots left."""
    full = defaultdict(set)
    for root in roots:
        words = _untitled(_words(names[root]))
        if types[root] == "person" and len(words) >= 2:
            full[(fold(words[0]), fold(words[-1]))].add(root)
    short_forms = _nicknames()
    for root in sorted(roots):
        words = _untitled(_words(names[root]))
        if types[root] != "person" or len(words) < 2 or groups.find(root) != root:
            continue
        owners = {o for formal in short_forms.get(fold(words[0]), ()) for o in full.get((formal, fold(words[-1])), ())}
        owners = {groups.find(o) for o in owners} - {root}
        if len(owners) == 1 and together is not None:
            owner = next(iter(owners))
            if together(root, sorted(o.id for o in members[owner])):
                groups.union(owner, root)
                reasons[root] = "nickname"
    return {groups.find(r) for r in roots}


def _members(origins, groups) -> defaultdict:
    """``{group root: [origins]}``."""
    members = defaultdict(list)
    for o in origins.values():
        members[groups.find(o.id)].append(o)
    return members


def _tag_targets(origins, split, by_key, surname, groups) -> dict[int, list[int]]:
    """The entities each hashtag origin names: the tag folded whole, the tag without a title, the
    surname of exactly one full name (``#Smith`` links to no one when two full names share it), or
    the entities its words are covered by; an empty list when it names no thing."""
    out: dict[int, list[int]] = {}
    for o in origins.values():
        if not o.hashtag or o.id in split:
            continue
        key = fold(o.name)
        found = by_key.get(key)
        if found is None and key.startswith(_TITLE_PREFIXES):
            for p in _TITLE_PREFIXES:
                if key.startswith(p) and key[len(p):] in by_key:
                    found = by_key[key[len(p):]]
                    break
        if found is None and key in surname and len(surname[key]) == 1:
            found = next(iter(surname[key]))
        if found is not None:
            out[o.id] = [groups.find(found)]
            continue
        cover = _cover([fold(p) for p in segment_hashtag(o.name)], by_key)
        out[o.id] = sorted({groups.find(t) for t in cover}) if cover else []
    return out


def _chain_reason(oid, groups, reasons):
    return reasons.get(oid, "spelling")


def _ascii_fold(name: str) -> str:
    text = unicodedata.normalize("NFKD", name)
    return "".join(c for c in text if not unicodedata.combining(c)).lower()


def _group_mentions(origins, groups) -> defaultdict:
    """Mentions of each group, by its root (0 for a root with none), in one pass over the origins."""
    totals = defaultdict(int)
    for o in origins.values():
        totals[groups.find(o.id)] += o.mentions
    return totals


_PERSON_TITLES = {t.lower() for t in ("Dr", "Mr", "Mrs", "Ms", "Prof", "Professor", "President", "Senator", "Sen",
                                      "Rep", "Judge", "Governor", "Gov", "Minister", "Chancellor", "Sir", "Dame",
                                      "Prince", "Princess", "King", "Queen", "Pope", "Lord", "Lady", "Saint")}


def _untitled(words: list[str]) -> list[str]:
    """``words`` without leading titles ("Prince Charles" -> ["Charles"])."""
    i = 0
    while i < len(words) - 1 and words[i].rstrip(".").lower() in _PERSON_TITLES:
        i += 1
    return words[i:]


def _name_parts(words) -> list[str]:
    """The lower-case parts of ``words`` split at hyphens, apostrophes and dots."""
    return [p.lower() for w in words for p in re.split(r"[-'\u2019.]", w) if p]


def _person_evidence(group, first_names, common, lowered=frozenset(), name_words=None, census=frozenset()) -> int:
    """How strongly a group's names show a person, the best of its names of two or more words:
    2 for one that starts with a title or a first name of the public list; 1 for one whose words
    are all written like a name and none is a common word (``common``) or one the corpus writes in
    lower case as often as capitalised (``lowered``): "Brain Drain", "Cable Robot" give 0.
    A group of one-word names gives 1 when ``name_words`` is None (it keeps its extracted type),
    else when its word is a listed first name or in ``name_words`` (folded words of the corpus's
    full names of people: "Bitcoin" alone is no person).
    ``census`` (folded Census first names, already without common, corpus-lower-case and gazetteer
    words) gives 1 to a name of two or three words that starts with one written like a name and whose
    other words are capitalised words ("Larry Page", "Mitch McConnell"; not "Travis CI", "TED Talks",
    "Lloyd S"); it never backs a one-word name."""
    found, multi = 0, False
    for o in group:
        if o.hashtag:
            continue
        words = _words(o.name.lstrip("@"))
        if len(words) < 2:
            continue
        multi = True
        rest = _untitled(words)
        if len(rest) < len(words) or fold(rest[0]) in first_names:
            return 2
        if not any(p in common or p in lowered for p in _name_parts(rest)) and all(
                _name_like(w) or len(w) == 2 and w[0].isupper() and w[1].islower() for w in rest):
            found = 1
        elif len(rest) == len(words) <= 3 and fold(words[0]) in census and _name_like(words[0]) and all(
                _surname_like(w) for w in words[1:]):
            found = 1
    if multi:
        return found
    single = [o.name.lstrip("@") for o in group if not o.hashtag]
    return int(name_words is None or any(fold(n) in first_names or fold(n) in name_words for n in single))


def _fallback_type(group) -> str:
    """The type most mentions of a group carry other than person, else concept."""
    votes = Counter()
    for o in group:
        if o.type != "person":
            votes[o.type] += o.mentions
    return max(votes, key=lambda t: (votes[t], -_TYPE_ORDER.index(t))) if votes else "concept"


def _canonical(origins, groups, previous=None, first_names=frozenset(), common=frozenset(), lowered=frozenset(),
               name_words=None, census=frozenset()):
    """Best-written form and evidence-weighted type of every group; a group keeps a name it already
    had. A group typed person without person evidence (:func:`_person_evidence`) is retyped."""
    members = defaultdict(list)
    for o in origins.values():
        members[groups.find(o.id)].append(o)
    names, types = {}, {}
    for root, group in members.items():
        if previous and root in previous:
            names[root] = previous[root]
        else:
            forms = Counter()
            tagged = set()
            for o in group:
                if o.hashtag:
                    forms[o.name] += o.mentions
                    tagged.add(o.name)
                else:
                    forms[o.name.lstrip("@")] += o.mentions
                    for f, n in o.forms.items():
                        if f.strip() and not f.startswith("@") and fold(f) == fold(o.name):
                            forms[f.strip()] += n
            # a plural joined to its name ("iPhones") never names the group
            shown = [f for f in forms if not (f.endswith("s") and f[:-1] in forms)] or list(forms)
            names[root] = max(shown, key=lambda f: _form_score(f, f in tagged, forms[f]))
        votes = Counter()
        evidence = [o for o in group if not o.hashtag] or group
        for o in evidence:
            votes[o.type] += o.mentions
        types[root] = max(votes, key=lambda t: (votes[t], -_TYPE_ORDER.index(t)))
        if types[root] == "person" and not _person_evidence(group, first_names, common, lowered, name_words,
                                                            census):
            types[root] = _fallback_type(group)
    return names, types


def _absorbed(words, by_key, groups, places, types, root, bare=frozenset(), once=False):
    """The entity a name is made of plus one word that names nothing of it: a leading or trailing
    gazetteer place word, or a leading place's possessive written without its apostrophe ("Russia
    SputnikV", "Indias Pied Piper"), when that entity is not a place itself ("North Korea", "Arctic
    Canada" stay) nor a bare word of ``bare`` ("China Censor" is no fragment of "Censor"); or a
    trailing word of ``bare`` (common words the corpus writes in lower case) written in lower case
    ("GitHub acquire"), or, for a name mentioned ``once``, a capitalised plural or verb of them
    ending in ``s`` ("Facebook Freaks", "Dow Jones Servers"; "Oxford University", "Burger King",
    an "Apple Watch" written twice stay)."""
    for rest, dropped, leading in ((words[1:], words[0], True), (words[:-1], words[-1], False)):
        if len(rest) == 1 and rest[0].lower() in bare:
            continue
        found = by_key.get(fold(" ".join(rest)))
        if found is None or groups.find(found) == root:
            continue
        word = fold(dropped)
        if word in places or leading and word.endswith("s") and word[:-1] in places:
            if types.get(groups.find(found)) != "place":
                return groups.find(found)
        elif not leading and dropped.isalpha() and dropped.lower() in bare and (
                dropped.islower() or once and dropped[1:].islower() and dropped.endswith("s")):
            return groups.find(found)
    return None


def _cover(pieces, by_key):
    """Origins whose names cover ``pieces`` end to end (longest runs first), or None."""
    out, i = [], 0
    while i < len(pieces):
        for j in range(len(pieces), i, -1):
            found = by_key.get("".join(pieces[i:j]))
            if found is not None:
                out.append(found)
                i = j
                break
        else:
            return None
    return out


def _overrides(conn, origins) -> list:
    slugs = {o.slug: o.id for o in origins.values()}
    found = []
    for action, target, alias in conn.execute(
            "SELECT action, target, alias FROM entity_overrides ORDER BY id"):
        if target in slugs and alias in slugs:
            found.append((action, [slugs[target]], [slugs[alias]]))
    return found


def _case_use(conn, origins, sample: int = 100_000) -> tuple[frozenset, frozenset]:
    """``(lowered, written lower)`` over the words of the extracted names:
    those the corpus writes in lower case at least as often as capitalised ("drain", "robot",
    "parse", "censor": common words here, whatever a word list says), and those it writes in lower
    case at all (a word list's "obama" or "louis", never written so, is a name here). Read from
    every record, or from every k-th record id of a corpus of more than ``sample`` records (about
    ``sample`` of them: how a word is written shows long before a million records)."""
    wanted = {p for o in origins.values() if not o.hashtag for p in _name_parts(_words(o.name))}
    lower, upper = Counter(), Counter()
    word = re.compile(r"[^\W\d_]+")
    step = max(1, conn.execute("SELECT count(*) FROM records").fetchone()[0] // sample)
    for title, text in conn.execute("SELECT title, content_text FROM records WHERE id % ? = 0 ORDER BY id",
                                    (step,)):
        for token in word.findall(f"{title or ''} {text or ''}"):
            key = token.lower()
            if key in wanted:
                if token.islower():
                    lower[key] += 1
                else:
                    upper[key] += 1
    return frozenset(k for k, n in lower.items() if n >= upper[k]), frozenset(lower)


def _together(conn):
    """``together(origin id, origin ids)``: whether the origin is mentioned in a record, or on a
    day, where one of the others is."""
    def together(oid, others) -> bool:
        return conn.execute(
            "SELECT 1 FROM mention_origins a JOIN records ra ON ra.id = a.record_id "
            "WHERE a.origin_id = ? AND EXISTS (SELECT 1 FROM records rb JOIN mention_origins b "
            "ON b.record_id = rb.id WHERE rb.day = ra.day AND b.origin_id IN "
            "(SELECT value FROM json_each(?))) LIMIT 1", (oid, json.dumps(others))).fetchone() is not None
    return together


def _vocabulary() -> tuple[frozenset, frozenset]:
    """Folded place names of the gazetteers (the corpus's own place guesses proved too noisy: "Lambda",
    "Earth", "CPUs") and every folded gazetteer name."""
    from corpuskit.enrich.entities import load_gazetteers

    table, _ = load_gazetteers()
    known = frozenset(table) | {fold(e.name) for e in table.values()}
    places = {fold(e.name) for e in table.values() if e.type == "place"}
    places |= {k for k, e in table.items() if e.type == "place"}
    return frozenset(places), frozenset(fold(k) for k in known)


def _text_evidence(conn, origins, known, written_lower=frozenset(), sample: int = 100_000) -> dict:
    """``{folded name: type}`` the text gives the acronyms, the names typed person and those typed
    concept or place (as software) that no gazetteer knows (:func:`corpuskit.enrich.type_evidence.read_type_evidence`), read from every
    record or about ``sample`` evenly spaced ones; the short acronyms typed organisation, and the
    one-word names typed place the corpus also writes in lower case (``written_lower``), are
    asked whether any text gives them an organisation's or a place's context, the one-word names
    typed concept whether one acts."""
    from corpuskit.enrich.type_evidence import ACRONYM, read_type_evidence

    plain = [o for o in origins.values() if not o.hashtag and fold(o.name) not in known]
    acronyms = {o.name for o in plain if ACRONYM.fullmatch(o.name)}
    people = {o.name for o in plain if o.type == "person" and len(_words(o.name)) >= 2}
    # a one-word name typed person may end up a concept ("Haskell": no person evidence)
    software = {o.name for o in plain if not ACRONYM.fullmatch(o.name) and (
        o.type in ("concept", "place") or o.type == "person" and len(_words(o.name)) == 1)}
    short_orgs = {o.name for o in plain if o.type == "org" and o.name in acronyms and len(o.name) <= 3}
    # a word the corpus also writes in lower case ("hipster", "openssl"), not an unlisted country
    places = {o.name for o in plain if o.type == "place" and len(_words(o.name)) == 1 and o.name not in acronyms
              and o.name.lower() in written_lower}
    actors = {o.name for o in plain if o.type == "concept" and len(_words(o.name)) == 1 and o.name not in acronyms}
    if not acronyms and not people and not software and not places and not actors:
        return {}
    step = max(1, conn.execute("SELECT count(*) FROM records").fetchone()[0] // sample)
    texts = (f"{title or ''}\n{text or ''}" for title, text in conn.execute(
        "SELECT title, content_text FROM records WHERE id % ? = 0 ORDER BY id", (step,)))
    found = read_type_evidence(texts, acronyms, people, software, short_orgs, places, actors)
    return {fold(name): kind for name, kind in sorted(found.items())}


# words that make a headline's capitalised run a clause, never a name ("GMOs Are Fine", "Crooks Go Deep")
_CLAUSE_WORDS = frozenset({"is", "are", "was", "were", "be", "been", "has", "have", "had", "will", "would", "can",
                           "could", "does", "did", "do", "should", "may", "might", "must", "go", "goes", "gets",
                           "who", "which", "whose", "whom"})


def _headline_only(conn, origins, known, written_lower, first_names) -> frozenset:
    """Origin ids of names of two or more words, that no gazetteer knows, written only on Title Case
    lines of the text, where capitals say nothing (:func:`corpuskit.enrich.entity_extractor.title_case_lines`),
    when they are a clause (a word of :data:`_CLAUSE_WORDS` after the first: "GMOs Are Fine") or
    ordinary words only: each among the 10,000 most frequent English words, written in lower case
    somewhere in the corpus (``written_lower``), no listed first name and no one-word name of the
    corpus's entities ("General Skills"; not "Larry Wall", "Apple Pencil" nor "New Jersey" where the
    corpus never writes "jersey")."""
    from corpuskit.enrich.base import record_text
    from corpuskit.enrich.crf import tokenize
    from corpuskit.enrich.entity_extractor import _COST_10K, title_case_lines
    from corpuskit.text.hashtags import _english_costs

    costs = _english_costs()
    things = {fold(o.name) for o in origins.values() if not o.hashtag and len(_words(o.name)) == 1}

    def ordinary(w):
        return costs.get(w.lower(), 99.0) < _COST_10K and w.lower() in written_lower and fold(w) not in things

    def candidate(o):
        words = _words(o.name)
        if o.hashtag or fold(o.name) in known or len(words) < 2 or any(fold(w) in first_names for w in words):
            return False
        return any(w.lower() in _CLAUSE_WORDS for w in words[1:]) or all(
            ordinary(w) or w.lower() in STOP_WORDS for w in words)

    candidates = sorted(o.id for o in origins.values() if candidate(o))
    seen, elsewhere, lines = set(), set(), {}
    # one pass over the candidates' mentions; a record holding several of them is read once
    for oid, rid, positions, title, body in conn.execute(
            "SELECT m.origin_id, m.record_id, m.positions, r.title, r.content_text FROM mention_origins m "
            "JOIN records r ON r.id = m.record_id WHERE m.origin_id IN (SELECT value FROM json_each(?)) "
            "ORDER BY m.origin_id, m.record_id", (json.dumps(candidates),)):
        seen.add(oid)
        if oid in elsewhere:
            continue
        if rid not in lines:
            text = record_text(title, body)
            tokens = tokenize(text)
            lines[rid] = ({t[0]: i for i, t in enumerate(tokens)}, title_case_lines(tokens, text))
        starts, headline = lines[rid]
        if any(starts.get(p) not in headline for p in json.loads(positions)):
            elsewhere.add(oid)
    return frozenset(seen - elsewhere)


def resolve_entities(corpus) -> dict:
    """Resolve the corpus's extracted entities and rebuild ``mentions``, ``entity_merges`` and the
    ``hashtags`` table; returns ``{"origins", "entities", "merged", "hashtagOnly", "headlineWords",
    "ordinaryWords"}``."""
    conn = corpus.conn
    with corpus.transaction():
        origins = _load(conn)
        places, known = _vocabulary()
        from corpuskit.enrich.entities import load_gazetteers

        first_names = frozenset(fold(n) for n in load_gazetteers()[1])
        lowered, written_lower = _case_use(conn, origins)
        result = plan(origins, _overrides(conn, origins), places, known, first_names,
                      (COMMON_WORDS | STOP_WORDS) & written_lower, _together(conn), lowered, _census_names(),
                      _text_evidence(conn, origins, known, written_lower), _headline_only(conn, origins, known, written_lower, first_names))
        mapping = result["map"]
        conn.execute("DELETE FROM mentions")
        people = {root for root, kind in result["types"].items() if kind == "person"}
        _write_mentions(conn, mapping, people, _longer_names(conn, mapping, result["names"], result["types"]))
        conn.execute("UPDATE entities SET mention_count = 0, first_seen = NULL, last_seen = NULL "
                     "WHERE id IN (SELECT origin_id FROM entity_origins)")
        for root, name in result["names"].items():
            if mapping.get(root, ([None],))[0] == [root]:
                conn.execute("UPDATE entities SET name = ?, type = ? WHERE id = ?",
                             (name, result["types"][root], root))
        conn.execute(
            "UPDATE entities SET (mention_count, first_seen, last_seen) = (SELECT sum(m.mention_count), "
            "min(r.published_at), max(r.published_at) FROM mentions m JOIN records r ON r.id = m.record_id "
            "WHERE m.entity_id = entities.id) WHERE id IN (SELECT DISTINCT entity_id FROM mentions)")
        conn.execute("DELETE FROM entity_merges")
        merges = []
        for oid, (targets, reason) in sorted(mapping.items()):
            if reason is None:
                continue
            o = origins[oid]
            for t in targets or [None]:
                merges.append((oid, o.name, o.type, t, reason, o.mentions))
        conn.executemany("INSERT INTO entity_merges(origin_id, origin_name, origin_type, entity_id, reason, "
                         "mentions) VALUES (?,?,?,?,?,?)", merges)
        _write_aliases(conn, origins, mapping)
        _write_hashtags(conn, origins, mapping)
    return {"origins": len(origins), "entities": sum(1 for t, r in mapping.values() if r is None),
            "merged": sum(1 for t, r in mapping.values()
                          if r not in (None, "hashtag only", "headline words", "ordinary words")),
            "hashtagOnly": sum(1 for t, r in mapping.values() if r == "hashtag only"),
            "headlineWords": sum(1 for t, r in mapping.values() if r == "headline words"),
            "ordinaryWords": sum(1 for t, r in mapping.values() if r == "ordinary words")}


def _longer_names(conn, mapping, names, types) -> dict:
    """``{(record id, origin id): {position: (entity, as written)}}``: mentions cut short, where the text goes on
    with the name of another entity of the corpus that starts with the mention's entity's name
    ("Google" read in "Google Home", "Apple" in "Apple Pay": the labeller saw the known name and
    stopped). The longest such name written there wins; a place never lengthens a name that is not
    one ("Google" in "Google Italy" stays), nor a person's."""
    from corpuskit.enrich.base import record_text

    roots = [r for r, (targets, reason) in mapping.items() if reason is None and r in names]
    by_words = {tuple(fold(w) for w in _words(names[r])): r for r in sorted(roots)}
    longer: dict[int, list] = defaultdict(list)
    for words, root in sorted(by_words.items()):
        for k in range(1, len(words)):
            short = by_words.get(words[:k])
            if short is not None and types.get(root) not in ("place", "person") and types.get(short) != "person":
                longer[short].append(root)
    if not longer:
        return {}
    origins = sorted(o for o, (targets, reason) in mapping.items() if len(targets) == 1 and targets[0] in longer)
    moves: dict = {}
    for rid, oid, positions, title, body in conn.execute(
            "SELECT m.record_id, m.origin_id, m.positions, r.title, r.content_text FROM mention_origins m "
            "JOIN records r ON r.id = m.record_id WHERE m.origin_id IN (SELECT value FROM json_each(?)) "
            "ORDER BY m.record_id, m.origin_id", (json.dumps(origins),)):
        text = record_text(title, body)
        for p in json.loads(positions):
            best = None
            for root in longer[mapping[oid][0][0]]:
                name = names[root]
                piece = text[p:p + len(name)]
                after = text[p + len(name):p + len(name) + 1]
                if alias_key(piece) == alias_key(name) and not (after.isalnum() or after == "-") and (
                        best is None or len(name) > len(names[best])):
                    best = root
            if best is not None:
                moves.setdefault((rid, oid), {})[p] = (best, text[p:p + len(names[best])])
    return moves


def _write_mentions(conn, mapping, people=frozenset(), moves=None, batch: int = 20_000) -> None:
    """Rebuild ``mentions`` from ``mention_origins`` through ``mapping``, one record at a time.
    A mention of a person in ``people`` written as one lower-case word ("mark an historic moment",
    "Debian jessie") is no mention of that person; a mention cut short goes to the longer name the
    text writes there (``moves``, :func:`_longer_names`).

    The origins are read in (record, origin) order, so a record's mentions are complete when the
    next record starts: memory holds one record's mentions and one batch of rows to insert, never
    the corpus's (which took gigabytes at a million records on every incremental enrich).
    """
    sql = ("INSERT INTO mentions(record_id, entity_id, surface, mention_count, positions) "
           "VALUES (?,?,?,?,?)")
    pending: list[tuple] = []
    current, slots = None, {}

    def flush():
        pending.extend((current, eid, s, n, json.dumps(sorted(p))) for eid, (s, n, p) in sorted(slots.items()))
        if len(pending) >= batch:
            conn.executemany(sql, pending)
            pending.clear()

    for rid, oid, surface, count, positions in conn.execute(
            "SELECT record_id, origin_id, surface, mention_count, positions FROM mention_origins "
            "ORDER BY record_id, origin_id"):
        if rid != current:
            if current is not None:
                flush()
            current, slots = rid, {}
        moved = (moves or {}).get((rid, oid), {})
        for target in mapping.get(oid, ([oid], None))[0]:
            if target in people and surface.isalpha() and surface.islower():
                continue
            kept = [p for p in json.loads(positions) if p not in moved]
            if kept:
                slot = slots.setdefault(target, [surface, 0, set()])
                slot[1] += count if len(kept) == len(json.loads(positions)) else len(kept)
                slot[2].update(kept)
        for p, (longer, written) in sorted(moved.items()):
            slot = slots.setdefault(longer, [written, 0, set()])
            slot[1] += 1
            slot[2].add(p)
    if current is not None:
        flush()
    if pending:
        conn.executemany(sql, pending)


def _write_aliases(conn, origins, mapping) -> None:
    """Every name and surface of an origin finds the entity it resolved to (a hashtag only: itself)."""
    keys = {}
    for oid, surface in conn.execute("SELECT DISTINCT origin_id, surface FROM mention_origins "
                                     "ORDER BY origin_id, surface"):
        keys.setdefault((alias_key(surface), oid), surface)
    for o in origins.values():
        keys.setdefault((alias_key(o.name), o.id), o.name)
    rows = {}
    for (key, oid), surface in sorted(keys.items()):
        targets = mapping.get(oid, ([oid], None))[0] or [oid]
        if key and (key not in rows or mapping[oid][1] is None):
            rows[key] = (targets[0], surface)
    # other spellings the extractor saw (not the first of a record) follow their entity
    moved = [(targets[0], oid) for oid, (targets, reason) in sorted(mapping.items()) if reason and targets]
    conn.executemany("UPDATE entity_aliases SET entity_id = ? WHERE entity_id = ?", moved)
    conn.executemany("INSERT OR REPLACE INTO entity_aliases(alias_key, entity_id, surface) VALUES (?,?,?)",
                     [(k, e, s) for k, (e, s) in sorted(rows.items())])


def record_hashtags(record_id: int, text: str) -> list[tuple]:
    """``(record_id, tag, written)`` rows for each distinct hashtag of ``text`` (tag: lower case)."""
    seen = {}
    for m in HASHTAG.finditer(text or ""):
        seen.setdefault(m.group(1).lower(), m.group(1))
    return [(record_id, tag, written) for tag, written in sorted(seen.items())]


def _write_hashtags(conn, origins, mapping) -> None:
    slugs = {r[0]: r[1] for r in conn.execute("SELECT id, slug FROM entities WHERE mention_count > 0")}
    resolved: dict[str, list] = {}
    for o in origins.values():
        if o.hashtag:
            resolved[o.name.lower()] = sorted(slugs[t] for t in mapping[o.id][0] if t in slugs)
    conn.execute("DELETE FROM hashtags")
    conn.execute(
        "INSERT INTO hashtags(tag, written, records, first_seen, last_seen) "
        "SELECT h.tag, (SELECT h2.written FROM record_hashtags h2 WHERE h2.tag = h.tag GROUP BY h2.written "
        "ORDER BY count(*) DESC, h2.written LIMIT 1), count(*), min(r.published_at), max(r.published_at) "
        "FROM record_hashtags h JOIN records r ON r.id = h.record_id GROUP BY h.tag")
    # a tag no hashtag-only origin decided names the entity its words are an alias of ("#AI" where
    # "AI" is also written plainly)
    aliases = dict(conn.execute("SELECT alias_key, entity_id FROM entity_aliases").fetchall())
    for (tag,) in conn.execute("SELECT tag FROM hashtags ORDER BY tag").fetchall():
        if tag not in resolved and aliases.get(alias_key(tag)) in slugs:
            resolved[tag] = [slugs[aliases[alias_key(tag)]]]
    conn.executemany("UPDATE hashtags SET entities = ? WHERE tag = ?",
                     [(json.dumps(v), k) for k, v in sorted(resolved.items()) if v])


def read_alias_file(path) -> list[tuple[str, str, list[str]]]:
    """An alias file: ``Name = alias, alias`` merges, ``Name != alias, alias`` splits; blank lines
    and lines starting with ``#`` are skipped. Returns ``(action, name, aliases)``;
    :class:`ValidationError` naming the line for anything else."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise ValidationError(f"cannot read alias file {path}: {exc.strerror}") from exc
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        match = re.fullmatch(r"(.+?)\s*(!=|=)\s*(.+)", line)
        aliases = [a.strip() for a in match.group(3).split(",") if a.strip()] if match else []
        if not match or not match.group(1).strip() or not aliases:
            raise ValidationError(f"alias file {path}, line {n}: expected 'Name = alias, ...' or "
                                  f"'Name != alias, ...', got {line!r}")
        out.append(("split" if match.group(2) == "!=" else "merge", match.group(1).strip(), aliases))
    return out


def origin_slug(conn, name: str) -> str | None:
    """The slug of the extracted entity named ``name`` (as extracted, or its slug), or None."""
    row = conn.execute("SELECT e.slug FROM entity_origins g JOIN entities e ON e.id = g.origin_id "
                       "WHERE g.name = ? OR e.slug = ? ORDER BY g.origin_id LIMIT 1",
                       (name, entity_slug(name))).fetchone()
    if row is None:
        row = conn.execute("SELECT e.slug FROM entity_aliases a JOIN entities e ON e.id = a.entity_id "
                           "WHERE a.alias_key = ?", (alias_key(name),)).fetchone()
    return row[0] if row else None


def add_override(corpus, action: str, target: str, alias: str) -> None:
    """Record a researcher's override (``merge``: ``alias`` into ``target``; ``split``: ``alias`` off
    ``target``), both extracted names or slugs; :class:`ValidationError` when either is unknown."""
    if action not in ("merge", "split"):
        raise ValidationError(f"override action must be 'merge' or 'split', not {action!r}")
    conn = corpus.conn
    slugs = []
    for name in (target, alias):
        if not isinstance(name, str) or not name.strip():
            raise ValidationError(f"an entity name must be a non-empty string, not {name!r}")
        slug = origin_slug(conn, name.strip())
        if slug is None:
            raise ValidationError(f"no entity named {name!r} in this corpus")
        slugs.append(slug)
    if slugs[0] == slugs[1]:
        raise ValidationError(f"{target!r} and {alias!r} are the same extracted entity")
    with corpus.transaction():
        opposite = "split" if action == "merge" else "merge"
        conn.execute("DELETE FROM entity_overrides WHERE action = ? AND alias = ?", (opposite, slugs[1]))
        conn.execute("INSERT OR IGNORE INTO entity_overrides(action, target, alias, created_at) VALUES (?,?,?,?)",
                     (action, slugs[0], slugs[1], iso(corpus.now())))


def apply_alias_file(corpus, path) -> int:
    """Record every override of an alias file (:func:`read_alias_file`); returns how many."""
    n = 0
    for action, name, aliases in read_alias_file(path):
        for alias in aliases:
            add_override(corpus, action, name, alias)
            n += 1
    return n


def entity_aliases(conn, entity_id: int) -> list[dict]:
    """Every surface form of ``entity_id`` with its count, most written first (ties by the form).

    ``surface`` is the form as the text writes it at a mention ("Ugur Sahin", "#DrSahin",
    "Şahin"), ``mentions`` how many mentions are written so; ``name, type`` are the extracted entity
    it came from, ``reason`` why that extracted entity joined this one (None: the entity's own, and
    a mention cut short that the text shows to be of this entity, "Google" read in "Google Home").
    Each stored mention position is read back from the record's text, so the counts add up to the
    entity's mentions (hashtags that name two entities count for each)."""
    from corpuskit.enrich.base import record_text

    origins = {r[0]: (r[1], r[2], None) for r in conn.execute(
        "SELECT origin_id, name, type FROM entity_origins WHERE origin_id = ?", (entity_id,))}
    for oid, name, kind, reason in conn.execute(
            "SELECT origin_id, origin_name, origin_type, reason FROM entity_merges WHERE entity_id = ? "
            "ORDER BY origin_id", (entity_id,)):
        origins[oid] = (name, kind, reason)
    if not origins:
        return []
    marks = ",".join("?" * len(origins))
    ids = sorted(origins)
    known = defaultdict(set)
    for oid, surface in conn.execute(f"SELECT DISTINCT origin_id, surface FROM mention_origins "
                                     f"WHERE origin_id IN ({marks})", ids):
        known[oid].add(surface)
    extra = {s for (s,) in conn.execute("SELECT surface FROM entity_aliases WHERE entity_id = ?", (entity_id,))}
    # the positions the entity's mentions hold: a mention cut short that went to a longer name
    # (:func:`_longer_names`) counts there, under the form written, not under its origin's entity
    held = defaultdict(set)
    for rid, positions in conn.execute("SELECT record_id, positions FROM mentions WHERE entity_id = ?", (entity_id,)):
        held[rid].update(json.loads(positions))
    counts = Counter()
    for rid, oid, surface, positions, title, body in conn.execute(
            f"SELECT m.record_id, m.origin_id, m.surface, m.positions, r.title, r.content_text FROM mention_origins m "
            f"JOIN records r ON r.id = m.record_id WHERE m.origin_id IN ({marks}) ORDER BY m.record_id", ids):
        text = record_text(title, body)
        own = sorted(known[oid] | {origins[oid][0]}, key=lambda f: (-len(f), f))
        # the extracted entity's own forms first: another form of the entity may run past the
        # mention ("Jony" read as "Jony Ive")
        forms = own + sorted(extra - set(own), key=lambda f: (-len(f), f))
        for p in json.loads(positions):
            if p in held[rid]:
                counts[(_written_at(text, p, forms, surface), oid)] += 1
                held[rid].discard(p)
    name = origins.get(entity_id, (None,))[0]
    moved_in = sorted((rid, p) for rid, ps in held.items() for p in ps)
    if moved_in and name is not None:
        forms = sorted(extra | {name}, key=lambda f: (-len(f), f))
        for rid, p in moved_in:
            title, body = conn.execute("SELECT title, content_text FROM records WHERE id = ?", (rid,)).fetchone()
            counts[(_written_at(record_text(title, body), p, forms, name), entity_id)] += 1
    rows = [{"surface": written, "mentions": n, "name": origins[oid][0], "type": origins[oid][1],
             "reason": origins[oid][2]} for (written, oid), n in counts.items()]
    return sorted(rows, key=lambda r: (-r["mentions"], r["surface"], r["name"]))


def _written_at(text: str, position: int, forms, fallback: str) -> str:
    """The first form of ``forms`` that ``text`` writes at ``position``, as written there
    (case and accents of the text; alias keys compared), else ``fallback``."""
    for form in forms:
        piece = text[position:position + len(form)]
        if piece and alias_key(piece) == alias_key(form):
            return piece
    return fallback
