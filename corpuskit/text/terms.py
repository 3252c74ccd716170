"""Terms for vocabularies (topics, cluster terms, keywords): lower-case words of the analysis text.

A term has a letter, two characters or more, and is not a stop word (scikit-learn's list with the
auxiliaries ``does``, ``did``, ``doing`` that it lacks), a contraction or its fragment (``don``,
``isn``), a URL part (``https``, ``www``, ``amp``) or a social-media token (``rt``, ``via``).
Phrases are made only of words that stood next to each other: a removed stop word, URL, handle, emoji,
number or punctuation mark ends a phrase. Words of every script are terms, in their written form (lower
case); a Chinese or Japanese run counts as its overlapping character pairs
(:func:`corpuskit.text.unicode.split_cjk`).

:data:`LIGHT_VERBS` (``says``, ``using``) and :data:`WEAK_WORDS` (``new``, ``time``, ``years``) are
terms, and count in topic models and coherence (records say them together), but name nothing alone:
labels pass over them (:func:`label_word`). :data:`COMMON_WORDS`, the single words common in general
English (``corpuskit/data/common_english_words.txt``, from a word-frequency list: "simple", "work",
"man", "free"), name nothing alone either unless the corpus writes them as a name
(:func:`generic_word`; :func:`corpuskit.enrich.topic_terms.label_terms`).
"""
from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources

from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

from corpuskit.text.normalise import _analysis
from corpuskit.text.stopwords import current_languages, stop_words
from corpuskit.text.unicode import CJK_RUN, split_cjk

CONTRACTIONS = frozenset(
    "don't doesn't didn't isn't aren't wasn't weren't haven't hasn't hadn't won't wouldn't can't couldn't "
    "shouldn't mustn't mightn't needn't shan't ain't i'm i've i'll i'd you're you've you'll you'd he's he'll "
    "he'd she's she'll she'd it's it'll it'd we're we've we'll we'd they're they've they'll they'd that's "
    "that'll there's there'll here's what's what'll who's who'll where's when's why's how's let's y'all "
    "dont doesnt didnt isnt arent wasnt werent havent hasnt hadnt wont wouldnt cant couldnt shouldnt aint "
    "im ive youre youve theyre theyve thats theres whats lets".split()
)
CONTRACTION_FRAGMENTS = frozenset(
    "don doesn didn isn aren wasn weren haven hasn hadn won wouldn couldn shouldn mustn mightn needn shan "
    "ain ll ve re nt".split()
)
# URLs are removed whole before tokens are made; these catch their parts written loose ("https : //",
# "example . com") and entities that escaped unescaping. Real words stay: "net" (net neutrality), "bit".
URL_PARTS = frozenset(
    "http https www com org html htm php asp aspx amp nbsp quot apos gt lt utm html5 tco ly goo gl "
    "youtu".split()
)
SOCIAL_WORDS = frozenset("rt via cc dm pm lol lmao omg tbh imo imho smh btw fyi gonna wanna gotta yeah "
                         "yep nope ok okay just really got get gets getting thing things".split())
# scikit-learn's list holds content words that topics need ("side effects", "fire", "system", "computer").
CONTENT_WORDS = frozenset(
    "side show fire bill system computer interest part name front top bottom amount detail".split()
)
AUXILIARIES = frozenset("does did doing".split())
# Verbs that say how something was reported or done, not what about: as label heads they read "Says: Trump,
# China" and "Released: support, beta" on the real files.
LIGHT_VERBS = frozenset(
    "say says said saying tell tells told suggest suggests suggested suggesting reveal reveals revealed find "
    "finds finding according reportedly use uses used using make makes making want wants wanted need needs "
    "needed know knows knew let like likes think thinks try tries trying tried going help helps helped announce "
    "announces announced launches launched released".split()
)
# Generic adjectives and nouns of time, amount and person: part of names ("New York", "years ago",
# "young people") but a label made of them alone names nothing ("New: New York, city").
WEAK_WORDS = frozenset(
    "new old big best good better great high higher low long little real time times year years day days "
    "people way ways lot lots different".split()
)
#: The head of a catch-all topic's label ("Miscellaneous: data, science"): a topic no term names.
MISCELLANEOUS = "Miscellaneous"

COMMON_WORDS = frozenset(
    line.strip() for line in resources.files("corpuskit").joinpath("data", "common_english_words.txt")
    .read_text(encoding="utf-8").splitlines() if line.strip() and not line.startswith("#"))
STOP_WORDS = ((frozenset(ENGLISH_STOP_WORDS) - CONTENT_WORDS) | CONTRACTIONS | CONTRACTION_FRAGMENTS | URL_PARTS
              | SOCIAL_WORDS | AUXILIARIES)

# Words with inner apostrophes or hyphens stay whole ("don't", "self-driving", "covid-19").
_WORD = re.compile(r"[^\W_](?:[\w+#]|['\-](?=[^\W_]))*")
_BOUNDARY = re.compile(r"[.!?,;:()\[\]{}\"|/\\&<>=*~^]+|\s[-\u2013\u2014]\s")
_HAS_LETTER = re.compile(r"[^\W\d_]")


@lru_cache(maxsize=500_000)
def _term(word: str, languages: tuple[str, ...] = ()) -> str | None:
    word = word.lower()
    if word.endswith("'s"):
        word = word[:-2]
    if len(word) < 2 or word in STOP_WORDS or not _HAS_LETTER.search(word):
        return None
    if languages and word in stop_words(languages):
        return None
    if "'" in word:
        return None  # a contraction not in the list (y'know, o'clock): a function word, not a term
    return word


# Stages read a text's terms more than once (fit, then transform); a pass over a corpus larger than
# the cache gets no hits from an LRU anyway, so the cache stays small enough to cost little memory.
@lru_cache(maxsize=20_000)
def _runs(text: str, languages: tuple[str, ...] = ()) -> tuple[tuple[str, ...], ...]:
    runs: list[tuple[str, ...]] = []
    for clause in _BOUNDARY.split(_analysis(text, False, None, " | ")):
        run: list[str] = []
        words = _WORD.findall(clause)
        # a Chinese or Japanese clause is one \w run: its character pairs
        if not clause.isascii() and CJK_RUN.search(clause):
            words = [part for word in words for part in split_cjk(word)]
        for word in words:
            term = _term(word, languages)
            if term is None:
                if run:
                    runs.append(tuple(run))
                run = []
            else:
                run.append(term)
        if run:
            runs.append(tuple(run))
    return tuple(runs)


def term_tokens(text) -> list[str]:
    """The terms of ``text`` in order (see the module doc for what counts as a term)."""
    return [t for run in _runs(text or "", current_languages()) for t in run]


def term_runs(text, languages=None) -> tuple[tuple[str, ...], ...]:
    """The runs of adjacent terms of ``text`` that :func:`term_phrases` makes its phrases from (a phrase
    never crosses from one run to the next); ``languages`` as there."""
    return _runs(text or "", current_languages() if languages is None else tuple(languages))


def term_phrases(text, ngram_range: tuple[int, int] = (1, 2), languages=None) -> list[str]:
    """Terms and phrases of adjacent terms of ``text``, lengths from ``ngram_range``; ``languages`` whose
    stop words are removed besides English's (default: :func:`~corpuskit.text.stopwords.current_languages`)."""
    lo, hi = ngram_range
    if lo < 1 or hi < lo:
        raise ValueError(f"ngram_range must be (lo, hi) with 1 <= lo <= hi, got {ngram_range!r}")
    out: list[str] = []
    for run in term_runs(text, languages):
        for n in range(lo, hi + 1):
            out.extend(" ".join(run[i:i + n]) for i in range(len(run) - n + 1))
    return out


class _Analyzer:
    """A picklable analyzer for scikit-learn's CountVectorizer/TfidfVectorizer(analyzer=...)."""

    def __init__(self, ngram_range, languages=()):
        self.ngram_range = tuple(ngram_range)
        self.languages = tuple(languages)

    def __call__(self, doc) -> list[str]:
        return term_phrases(doc, self.ngram_range, getattr(self, "languages", ()))

    def __repr__(self) -> str:
        return f"term_analyzer(ngram_range={self.ngram_range!r})"


def term_analyzer(ngram_range: tuple[int, int] = (1, 2)) -> _Analyzer:
    """An ``analyzer=`` callable for scikit-learn vectorizers that yields :func:`term_phrases`, with the
    stop words of the languages in effect when it is made (:func:`~corpuskit.text.stopwords.vocabulary_languages`)."""
    term_phrases("", ngram_range)
    return _Analyzer(ngram_range, current_languages())


# the inflected light verbs: a phrase ending in one is a clause ("study finds"); a base form may be a noun
# ending a name ("cannabis use", "tech help")
_NAME_NOTHING = LIGHT_VERBS | WEAK_WORDS
_CLAUSE_ENDS = frozenset(w for w in LIGHT_VERBS if w.endswith(("s", "ed", "ing"))) | {"said", "told", "knew"}


def label_word(term: str) -> bool:
    """True when ``term`` can stand in a label: not only light verbs and weak words ("says", "new",
    "best time") and not a clause ending in an inflected light verb ("study finds", "stop using"),
    while a phrase with a content word ("new york", "years ago", "cannabis use") can."""
    words = term.split()
    return bool(words) and words[-1] not in _CLAUSE_ENDS and not _NAME_NOTHING.issuperset(words)


def generic_word(term: str) -> bool:
    """True for a single word common in general English (:data:`COMMON_WORDS`, or a weak word or light
    verb), or a phrase of such words with a weak word or light verb in it ("new study", "years ago"; not
    "social media"): it may be a term, but a label made of it names nothing unless it is a name ("Apple")."""
    words = term.split()
    if len(words) == 1:
        return term in COMMON_WORDS or term in _NAME_NOTHING
    # a phrase of common words with a weak word or light verb in it ("new study", "years ago")
    return bool(words) and all(w in COMMON_WORDS or w in _NAME_NOTHING for w in words) and \
        bool(_NAME_NOTHING.intersection(words))
