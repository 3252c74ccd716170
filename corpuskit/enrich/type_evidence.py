"""What the corpus's own text says about the type of a name, read once per resolution.

Two kinds of evidence, each a pattern of the text around a name, never the name alone:

- **An acronym's expansion**, written beside it in parentheses: "the International Renewable Energy
  Agency (IRENA)", "ARDS (acute respiratory distress syndrome)". The expansion's initials (small
  words such as "of", "and" skipped; a hyphenated word gives one letter or one per part) must spell
  the acronym. Its last word decides: an organisation's head noun (:data:`ORG_HEADS`) gives ``org``,
  a place's head noun gives ``place``; anything else, or an expansion written in lower case, gives
  ``concept`` ("brain-computer interface (BCI)").
- **An institution's context**: "researchers at X", "a study by X", "head of X"; for a name typed
  person "X scientists", "X researchers" too ("Johns Hopkins researchers"; after an acronym that
  names a subject as often: "HIV researchers"); for an acronym "X says", "X warns" ("NASA says").
  Two such places make the name an organisation.
- **A piece of software's context**, for the names asked about as possible products: a version
  after it ("Rails 5.0.0.rc1", "Swift 3.0", "Fedora v25"), a software noun after it ("Scala
  library", "OS X's kernel", "Django app") or a verb of writing or running software before it
  ("written in Haskell", "ported to Nim", "install Darktable"). Two such places make it a product.

:func:`read_type_evidence` returns ``{folded name: type}`` for the names asked about; resolution
(:mod:`corpuskit.enrich.resolve`) applies it only to names no gazetteer knows.
"""
from __future__ import annotations

import re
from collections import Counter

# the last word of the name of an organisation ("Johns Hopkins University", "Food and Drug Administration")
ORG_HEADS = frozenset({
    "university", "universities", "institute", "institutes", "hospital", "foundation", "college", "school",
    "agency", "administration", "association", "society", "council", "commission", "committee", "department",
    "ministry", "bureau", "corporation", "company", "inc", "ltd", "llc", "labs", "lab", "laboratory",
    "laboratories", "museum", "library", "academy", "party", "bank", "authority", "office", "service",
    "services", "organization", "organisation", "union", "federation", "board", "center", "centre",
    "centers", "centres", "network", "group", "press", "times", "post", "journal", "magazine", "news",
    "clinic", "medicine", "force", "army", "navy", "police", "court", "parliament", "senate", "congress",
    "media", "airlines", "airways", "motors", "entertainment", "studios", "pictures", "holdings", "capital",
    "partners", "ventures", "industries", "technologies", "brothers",
})
# the last word of the name of a law: never a place or a person ("Investigatory Powers Bill")
LAW_HEADS = frozenset({"bill", "act", "law", "amendment", "directive", "treaty", "regulation", "regulations", "protocol",
                       "accord", "convention"})
# the last word of the name of a piece of software ("Linode API", "Android Studio", "Sublime Text"
# has none): a product, never a person or a place
SOFTWARE_HEADS = frozenset({"api", "apis", "sdk", "app", "ide", "studio", "framework", "os", "browser", "compiler",
                            "toolkit", "plugin", "cli"})
# the last word of a place's expansion ("District of Columbia (DC)" has none; "Bay Area (BA)" has)
PLACE_HEADS = frozenset({"city", "county", "state", "states", "area", "region", "province", "republic",
                         "kingdom", "island", "islands", "valley", "emirates"})
_SMALL = frozenset({"of", "and", "the", "for", "on", "in", "at", "to", "a", "an", "&", "de", "du", "la"})
ACRONYM = re.compile(r"[A-Z][A-Z&]{1,5}")
_CUES_BEFORE = (r"(?:researchers|scientists|engineers|doctors|physicians|experts|professors?|students|team)"
                r" (?:at|from)|(?:study|report|survey|paper|studies|research) (?:by|from|led by)"
                r"|(?:head|director|chief|spokesperson|spokesman|spokeswoman|officials?) (?:of|for|at)")
_CUES_AFTER = (r"researchers|scientists|engineers|doctors|physicians|experts|professors?|students"
               r"|officials|spokesperson|spokesman|spokeswoman|director|chief|administrator")
# an organisation speaking or acting: evidence for an acronym only ("Ajit Pai says" is a person)
_ACTS = (r"says|said|warns|warned|announces|announced|confirms|confirmed|admits|admitted|denies|denied"
         r"|sues|sued|fines|fined|approves|approved|bans|banned|urges|urged|hires|funds|awards|proposes")
_NAME = r"([A-Z][\w&.'\u2019-]*(?: [A-Z][\w&.'\u2019-]*){0,5})"
_BEFORE = re.compile(rf"\b(?i:{_CUES_BEFORE}) (?:the )?{_NAME}")
_AFTER = re.compile(rf"{_NAME}(?:['\u2019]s?)? (?i:({_CUES_AFTER}|{_ACTS}))\b")
_ACT_WORDS = frozenset(_ACTS.split("|"))
_EXPANDED = re.compile(r"((?:[\w'\u2019-]+[ ,]+){1,10}?)\(\s*([A-Z][A-Z&]{1,5})s?\s*\)")
# what every match of _EXPANDED holds: a text without it is not searched (most have none; the search
# tries every word as the start of an expansion)
_EXPANDED_TAIL = re.compile(r"\(\s*[A-Z][A-Z&]{1,5}s?\s*\)")
_EXPANDING = re.compile(r"\b([A-Z][A-Z&]{1,5}) \(([^()]{4,90})\)")
_MIN_CONTEXTS = 2
_SOFTWARE_NOUNS = (r"app|apps|library|libraries|framework|frameworks|api|sdk|plugin|plugins|extension|extensions"
                   r"|update|release|beta|version|compiler|runtime|interpreter|browser|client|package|module"
                   r"|codebase|kernel|distro|bindings|port|fork|repl|debugger|ide|toolchain"
                   r"|server|servers|cluster|clusters|config|configuration|instance|instances|container|daemon"
                   r"|repo|repository|docs|documentation|binary|binaries|scripts?|queries|database|backend"
                   r"|pipeline|jobs?|deployment|installation")
_SOFT_NAME = r"([A-Z][\w.+#'\u2019-]*(?: [A-Z][\w.+#'\u2019-]*){0,2}|[a-z][\w+#-]*[a-z0-9])"
_VERSIONED = re.compile(rf"{_SOFT_NAME}(?:['\u2019]s)? (?:v?\d+(?:\.\d+)+[\w.-]*|v\d+\b|(?i:{_SOFTWARE_NOUNS})\b)")
# what names software outright, one text enough: a version after it ("Nginx 1.9.11"), or a definition
# ("Pony is an open-source, actor-model programming language", "X: a kernel written in D",
# "Peachpie (PHP compiler to .NET)")
_KINDS = r"language|framework|library|database|compiler|editor|runtime|interpreter|toolkit|engine|kernel|shell"
_STRONG = re.compile(rf"([A-Z][\w.+#-]*)(?: v?\d+(?:\.\d+)+[\w.-]*\b|(?: is|:) an? (?:[\w-]+,? ){{0,6}}?(?i:{_KINDS})\b"
                     rf"| \([^()]{{0,40}}\b(?i:{_KINDS})\b)")
# a place's context: "in X", "near X", "from X", "visited X"
_PLACE_CUE = re.compile(r"\b(?i:in|near|from|across|around|throughout|outside|inside|visit|visiting|visited)"
                        r" (?:the )?([A-Z][\w'\u2019-]*)")
_RUN_IN = re.compile(r"\b(?i:written in|built in|built with|implemented in|rewritten in|rewrite in|coded in"
                     r"|programming in|programmed in|ported to|port of|fork of|install|installing|compiled with"
                     r"|deploy|deploying|deployed|configure|configuring|running|migrated to|switched to)"
                     rf" {_SOFT_NAME}")


def initials(words) -> str:
    """The capital letters ``words`` abbreviate to: small words skipped, each hyphenated part one
    letter ("per- and polyfluoroalkyl substances" -> "PPS"; "Food and Drug Administration" -> "FDA")."""
    return "".join(p[0].upper() for w in words if w.lower() not in _SMALL
                   for p in w.split("-") if p and p[0].isalpha())


def _expansion_type(words) -> str:
    """The type an acronym's expansion gives: its head noun's, ``concept`` in lower case or else."""
    head = words[-1].lower().strip(".,")
    if not all(w[:1].isupper() or w.lower() in _SMALL for w in words):
        return "concept"
    if head in ORG_HEADS:
        return "org"
    if head in PLACE_HEADS:
        return "place"
    return "concept"


def _expansion(before: str, acronym: str) -> list[str] | None:
    """The shortest run of words ending ``before`` whose initials spell ``acronym`` (with or without
    the letters of its hyphenated parts), or None."""
    words = [w.strip(",") for w in before.split() if w.strip(",")]
    for k in range(1, len(words) + 1):
        run = words[-k:]
        if run[0].lower() in _SMALL:
            continue
        whole = "".join(w[0].upper() for w in run if w.lower() not in _SMALL and w[0].isalpha())
        if acronym.replace("&", "") in (initials(run), whole):
            return run
    return None


def _software_contexts(text: str, products: set, found: Counter, lowered: dict | None = None) -> None:
    """Count in ``found`` each name of ``products`` that ``text`` writes in a software context
    (the longest known name of the run, one count a name and text; a version or a definition,
    :data:`_STRONG`, counts twice); a one-word name counts
    written in lower case too ("install nginx", "hadoop cluster": ``lowered`` maps the lower-case
    form to the name)."""
    lowered = lowered or {}
    seen = set()
    for pattern, from_end in ((_VERSIONED, True), (_RUN_IN, False)):
        for m in pattern.finditer(text):
            run = m.group(1).split()
            for k in range(len(run), 0, -1):
                name = " ".join(run[-k:] if from_end else run[:k]).rstrip(".,'\u2019")
                if name in products or name in lowered:
                    seen.add(lowered.get(name, name))
                    break
    strong = {m.group(1).rstrip(".") for m in _STRONG.finditer(text)} & products
    found.update(seen | strong)
    found.update(strong)


def read_type_evidence(texts, acronyms, names, products=(), short_orgs=(), places=(), actors=()) -> dict[str, str]:
    """``{name: type}`` from ``texts`` (an iterable of strings) for ``acronyms`` (all-caps names:
    expansions, institution contexts and acts), ``names`` (other names: institution contexts
    only) and ``products`` (names that may be software: ``product`` from two texts that write
    them in a software context). A name whose expansions disagree keeps the most written one
    (ties: ``concept``). An acronym of ``short_orgs`` (short ones typed organisation: "UI",
    "API") with no expansion and not one institution context or act is a ``concept``; a name of
    ``places`` (one-word names typed place) that no text writes after "in", "near", "from",
    "visited"... is a ``concept``, and a name of ``actors`` (one-word names typed concept) that a
    text writes acting ("DoorDash says", "X sues") an ``org`` (when nothing else types them)."""
    acronyms, names, products = set(acronyms), set(names), set(products)
    short_orgs, places, actors = set(short_orgs) & acronyms, set(places), set(actors)
    if not acronyms and not names and not products and not places and not actors:
        return {}
    placed, acted = set(), set()
    expanded: dict[str, Counter] = {}
    contexts: Counter = Counter()
    software: Counter = Counter()
    lowered = {p.lower(): p for p in products if " " not in p and not p.islower()}
    # every software context counts a name the text holds as written: a text holding none is not searched
    written = sorted(products | set(lowered))
    for text in texts:
        if not text:
            continue
        if products and any(map(text.__contains__, written)):
            _software_contexts(text, products, software, lowered)
        if places:
            placed.update(m.group(1) for m in _PLACE_CUE.finditer(text) if m.group(1) in places)
        if acronyms:
            for m in _EXPANDED.finditer(text) if _EXPANDED_TAIL.search(text) else ():
                if m.group(2) in acronyms:
                    run = _expansion(m.group(1), m.group(2))
                    if run:
                        expanded.setdefault(m.group(2), Counter())[_expansion_type(run)] += 1
            for m in _EXPANDING.finditer(text):
                if m.group(1) in acronyms:
                    words = m.group(2).split()
                    if initials(words) == m.group(1).replace("&", ""):
                        expanded.setdefault(m.group(1), Counter())[_expansion_type(words)] += 1
        for m in _BEFORE.finditer(text):
            run = m.group(1).split()
            for k in range(len(run), 0, -1):  # "researchers at Johns Hopkins Identify": the longest known
                name = " ".join(run[:k]).rstrip(".,'\u2019")
                if name in names or name in acronyms:
                    contexts[name] += 1
                    break
        for m in _AFTER.finditer(text):
            run = m.group(1).split()
            acting = m.group(2).lower() in _ACT_WORDS
            for k in range(len(run)):  # "Why Johns Hopkins researchers": the longest known tail
                name = " ".join(run[k:]).rstrip(".,'\u2019")
                # "HIV researchers", "UX experts": after an acronym only an act is evidence
                if name in acronyms and acting or name in names and not acting:
                    contexts[name] += 1
                    break
                if name in actors and acting:
                    acted.add(name)
                    break
    out = {}
    for name, votes in expanded.items():
        out[name] = max(votes, key=lambda t: (votes[t], t == "concept"))
    for name, n in contexts.items():
        if n >= _MIN_CONTEXTS and name not in out:
            out[name] = "org"
    for name, n in software.items():
        if n >= _MIN_CONTEXTS and name not in out:
            out[name] = "product"
    for name in sorted(short_orgs):
        if name not in out and not contexts[name]:
            out[name] = "concept"
    for name in sorted(places - placed):
        out.setdefault(name, "concept")
    for name in sorted(acted):
        out.setdefault(name, "org")
    return out
