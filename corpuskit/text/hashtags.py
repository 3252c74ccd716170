"""Hashtag and handle segmentation: ``#PfizerBioNTech`` -> Pfizer BioNTech, ``#covidvaccine`` -> covid vaccine.

Case boundaries come first. A tag written with capitals inside it (``ArminLaschet``, ``JeSuisCharlie``,
``NHSvaccine``) is cut only where its case changes, and each piece is kept whole, so a name is never cut
into pieces that are not words (``Laschet`` stays ``Laschet``, ``UgurSahin`` is Ugur Sahin). Adjacent
pieces that together spell a known inner-capital name (``BioNTech``, ``YouTube``) stay one piece, and so,
with a wordfreq list, do two capitalised pieces spelling a word the list ranks common (``SoundCloud``,
``BlackBerry``; not ``FoxNews``); a piece in capitals is split as a tag in capitals would be
(``FLEXCREWgotti``: FLEX CREW gotti).

A dictionary split runs only on a tag in one case, and only with a word list of the record's language:
wordfreq's list of that language when the optional ``wordfreq`` package is installed (``pip install
'corpuskit[languages]'``; about forty languages, English, Spanish, German, French, Portuguese, Italian,
Dutch, Russian and Polish among them), else, for English only, wordninja's Wikipedia list (``language``
``"en"``, or unknown, ``None``, where the split must also be made of common English words). With a
wordfreq list, a tag in lower case (``heraldodemexico``) or, six letters or more, in capitals (``ENVIVO``)
is split by a unigram model (:func:`_list_split`, settings :data:`SPLIT_PARAMS`): every piece a word
frequent enough for its length, the split much more probable than the tag whole (a tag outside the list is
an unknown word whose cost grows with its length), fewer pieces preferred; else it stays whole. Numbers
part the tag's runs of letters, each split on its own; a number of up to three digits stays on the word
before it (``tinabrito1``, ``top100femalelies``: top100 female lies). A capitalised piece whose last
letter is a one-letter word left in lower case is cut before it (``CaféyNoticias``: Café y Noticias). A
tag of a language without a list, or in a script without case, stays whole. With wordninja's list (English without
wordfreq, or language unknown), the split is a shortest-path search over the tag's characters: a piece costs what its word costs (a name from the shipped gazetteers, a recent word
or a word the caller supplies is cheap; an English word costs by its Zipf rank; an unknown piece is dear,
so that an unknown name stays whole rather than being cut into rare words). A capitalised word
(``Hochwasser``, ``Frankreich``) is split only into common words of the record's language. The pieces
keep the tag's own letters and case.
"""
from __future__ import annotations

import gzip
import json
import math
import re
from functools import lru_cache
from importlib import resources
from pathlib import Path

# Words common in today's posts that a 2019 word list ranks low or lacks.
RECENT_WORDS = (
    "covid coronavirus vaccine vaccines vaccinated vaccination vax vaxxed antivax antivaxxer booster "
    "lockdown pandemic omicron delta moderna pfizer biontech astrazeneca janssen sinovac covaxin sputnik "
    "zoom tiktok crypto bitcoin ethereum nft blockchain chatgpt openai llm gpt ai ml deepfake metaverse "
    "selfie podcast livestream streamer vlog influencer hashtag tweet retweet app apps emoji meme memes "
    "climate brexit maga blm metoo wfh esports"
).split()
# A word with a short number (covid19, GPT4, model3) is one term; a year after a word (election2020) is not.
_ALNUM_WORD = re.compile(r"^[A-Za-z]+\d{1,3}$")
_KNOWN_COST = 2.0
_UNKNOWN_BASE = 14.0
_UNKNOWN_PER_CHAR = 1.5
_CASE_SPLIT_BONUS = 2.0
_CROSS_CASE_PENALTY = 10.0
_MAX_PIECE = 24


@lru_cache(maxsize=1)
def _english_costs() -> dict[str, float]:
    import wordninja

    path = Path(wordninja.__file__).with_name("wordninja") / "wordninja_words.txt.gz"
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        words = fh.read().split()
    log_n = math.log(len(words))
    return {w: math.log((rank + 1) * log_n) for rank, w in enumerate(words)}


@lru_cache(maxsize=1)
def _gazetteer_words() -> frozenset[str]:
    words: set[str] = set(RECENT_WORDS)
    # the folder by path from the top package: importing corpuskit.enrich would load scikit-learn
    # (0.7 s of CPU) into every import that indexes a hashtag
    folder = resources.files("corpuskit") / "enrich" / "gazetteers"
    for item in folder.iterdir():
        if not item.name.endswith(".json"):
            continue
        for entry in json.loads(item.read_text(encoding="utf-8")).get("entities", []):
            names = [entry] if isinstance(entry, str) else [entry["name"], *entry.get("aliases", [])]
            for name in names:
                parts = re.findall(r"[^\W_]+", name.lstrip("@"))
                if len(parts) == 1:
                    words.add(parts[0].lower())
                else:
                    words.update(p.lower() for p in parts if len(p) >= 4)
    return frozenset(words)


def _case_cuts(tag: str) -> list[int]:
    """Where a CamelCase tag may change word, in any script: aB, and both sides of the last capital of a run
    followed by lower case (NHSvaccine: NHS|vaccine; HNShow: HN|Show)."""
    cuts = []
    for i in range(1, len(tag)):
        prev, cur = tag[i - 1], tag[i]
        nxt = tag[i + 1] if i + 1 < len(tag) else ""
        if cur.isupper() and (prev.islower() or (prev.isupper() and nxt.islower())):
            cuts.append(i)
        elif prev.isupper() and cur.islower() and i >= 2 and tag[i - 2].isupper():
            cuts.append(i)
    return cuts


def _camel_breaks(tag: str) -> list[int]:
    """Positions of a lower-to-upper change (aB): a piece spanning one ignores the writer's own word break."""
    return [i for i in range(1, len(tag)) if tag[i - 1].islower() and tag[i].isupper()]


class HashtagSegmenter:
    """Split hashtags into words; ``extra_words`` (e.g. a corpus's vocabulary) are treated as known words."""

    def __init__(self, extra_words=()):
        self.extra_words = extra_words

    def _known(self) -> frozenset[str]:
        known = getattr(self, "_known_", None)
        if known is None:
            known = _gazetteer_words() | {w.lower() for w in self.extra_words}
            self._known_ = known
        return known

    def split(self, tag: str, language: str | None = None) -> list[str]:
        """The words of ``tag`` (with or without its ``#`` or ``@``), in the tag's own case.

        ``language`` is the record's language code (``"de"``, ``"en"``, ...) or ``None`` when unknown;
        it decides whether a tag in one case may be cut with a word list (see the module's rules).
        """
        tag = tag.lstrip("#@")
        if len(tag) <= 3 or not any(c.isalpha() for c in tag):
            return [tag] if tag else []
        if "_" in tag:
            return [w for part in tag.split("_") if part for w in self.split(part, language)]
        return list(self._split_cached(tag, _language_key(language)))

    @lru_cache(maxsize=65536)
    def _split_cached(self, tag: str, language: str) -> tuple[str, ...]:
        costs = None if language == "und" else _language_costs(language)
        pieces = _case_pieces(tag, None if language in _WORD_LISTS else costs)
        if len(pieces) > 1:
            if costs is None:
                return tuple(w for piece in self._merge_known(pieces) for w in _year_split(piece))
            # a piece in capitals is then split as a tag in capitals would be (FLEXCREW|gotti: FLEX CREW); a
            # piece in lower case stays whole (EFEdeportes: not de portes in an English record)
            pieces = _merge_listed(self._merge_known(_letter_words(pieces, costs)), costs)
            return tuple(w for piece in pieces for w in (
                (piece.isupper() and self._one_case_split(piece, costs)) or _year_split(piece)))
        if costs is not None:
            split = self._one_case_split(tag, costs)
            if split is not None or tag.islower() or tag.isupper():
                return split or tuple(_year_split(tag))
        if language not in _WORD_LISTS or not tag.isascii() or not tag.islower():
            # another language, a script without case, a capitalised word (Laschet, Hochwasser) or
            # one in capitals (NASCAR): whole, but for a year after a word (Election2020)
            return tuple(_year_split(tag))
        split = self._dictionary_split(tag)
        # a split with a single letter, or (language unknown) a rare word, is more often a name cut wrongly
        limit = math.inf if language == "en" else _common_cost()
        return split if _all_words(split, self._known(), limit) else tuple(_year_split(tag))

    def _one_case_split(self, tag: str, costs: dict[str, float]) -> tuple[str, ...] | None:
        """The unigram split of ``tag`` when it is in lower case, or in capitals and long enough
        (``SPLIT_PARAMS["capitals"]`` letters), in a script with case; else None."""
        letters = [c for c in tag if c.isalpha()]
        if not letters or not all(c.lower() != c.upper() for c in letters):
            return None
        if tag.islower() or (tag.isupper() and tag.isalpha() and len(tag) >= SPLIT_PARAMS["capitals"]):
            return _list_split(tag, costs, known=self._known())
        return None

    def _merge_known(self, pieces: list[str]) -> list[str]:
        """Join adjacent case pieces that together spell a known name (Bio N Tech -> BioNTech)."""
        known, out, i = self._known(), [], 0
        while i < len(pieces):
            for j in range(len(pieces), i + 1, -1):
                joined = "".join(pieces[i:j])
                if joined.lower() in known and j - i > 1:
                    out.append(joined)
                    i = j
                    break
            else:
                out.append(pieces[i])
                i += 1
        return out

    def _dictionary_split(self, tag: str) -> tuple[str, ...]:
        known, english = self._known(), _english_costs()
        lower = tag.lower()
        breaks = _camel_breaks(tag)
        case_cuts = set(_case_cuts(tag))
        n = len(tag)
        best = [0.0] + [math.inf] * n
        back = [0] * (n + 1)
        for j in range(1, n + 1):
            if j < n and tag[j - 1].isdigit() and tag[j].isdigit():
                continue  # never cut inside a number
            for i in range(max(0, j - _MAX_PIECE), j):
                if best[i] == math.inf:
                    continue
                cost = best[i] + self._piece_cost(tag[i:j], lower[i:j], known, english)
                if any(i < c < j for c in breaks) and lower[i:j] not in known:
                    cost += _CROSS_CASE_PENALTY
                if i in case_cuts:
                    cost -= _CASE_SPLIT_BONUS
                if cost < best[j]:
                    best[j], back[j] = cost, i
        pieces, j = [], n
        while j > 0:
            pieces.append(tag[back[j]:j])
            j = back[j]
        return tuple(reversed(pieces))

    @staticmethod
    def _piece_cost(piece: str, low: str, known, english) -> float:
        if low in known:
            return _KNOWN_COST
        if low in english:
            return english[low]
        if piece.isdigit():
            return _KNOWN_COST
        if _ALNUM_WORD.match(piece):
            letters = low.rstrip("0123456789")
            if letters in known or letters in english:
                return _KNOWN_COST + 1.0
        return _UNKNOWN_BASE + _UNKNOWN_PER_CHAR * len(piece)


_DEFAULT = HashtagSegmenter()
#: languages whose word list is wordninja's English one
_WORD_LISTS = ("en", "und")


@lru_cache(maxsize=8)
def _language_costs(language: str) -> dict[str, float] | None:
    """``{word: cost}`` of ``language``'s wordfreq list, a word's cost its negative log10 frequency (a
    Zipf frequency of 3, once in a million words, costs 6; a word's form without diacritics costs what
    the word does), or None when wordfreq is not installed or has no list for the language."""
    try:
        from wordfreq import available_languages, get_frequency_dict
    except ImportError:
        return None
    if language not in available_languages("large") and language not in available_languages("small"):
        return None
    wordlist = "large" if language in available_languages("large") else "small"
    from corpuskit.text.folding import search_fold

    costs: dict[str, float] = {}
    for word, freq in get_frequency_dict(language, wordlist).items():
        if word.isalpha() and freq > 0:
            cost, folded = -math.log10(freq), search_fold(word)
            for form in (word,) if folded == word else (word, folded):
                if cost < costs.get(form, math.inf):  # a form shared by several words: the commonest's cost
                    costs[form] = cost
    return costs


#: The unigram split of a one-case tag (see :func:`_list_split`). Chosen by leaving one language-and-kind
#: part of tests/data/segmentation_labelled.tsv out at a time (benchmarks/bench_segmentation_params.py):
#: ``piece``: the extra cost of each piece (a length prior: fewer, longer words); ``floors``: the Zipf
#: frequency a piece of one, two, three, four, and five or more letters must reach; ``whole``: the Zipf
#: frequency at which the tag itself is a word and stays whole; ``margin``: a tag in the list but rarer is
#: split only when the split costs less than the tag itself plus this margin (in log10 units); ``unknown``:
#: the cost per letter of a tag outside the list (split only when the split costs less: hochwasser in an
#: English record is not hoc hwa ss er); ``capitals``: the fewest letters a tag (or a case piece) in
#: capitals needs before it is split (``FLEXTHURSDAY``: FLEX THURSDAY; ``CDMX`` stays whole); ``join``:
#: the Zipf frequency at which two capitalised pieces spelling a listed word stay one (``SoundCloud``).
SPLIT_PARAMS = {"piece": 1.5, "floors": (6.0, 4.0, 2.5, 2.5, 1.5), "whole": 2.5, "margin": 5.0,
                "unknown": 1.75, "capitals": 6, "join": 3.0}


def _list_split(tag: str, costs: dict[str, float], params=None, known=frozenset()) -> tuple[str, ...] | None:
    """The one-case ``tag`` cut into words of ``costs`` (its language's list) by a unigram model, or None
    when it stays whole: the tag is itself a common word, no cut makes every piece a word frequent enough
    for its length, or the tag is in the list and the best cut is not more probable than it by the margin.
    Of the cuts, the most probable wins, each piece costing its negative log10 frequency plus a constant
    (so that ``justinbieber`` is justin bieber, not just in bieber). ``known``
    words (gazetteer names, the caller's words) count as words of the lowest floor. A number at the end
    stays on the last word (``tinabrito1``: tina brito1)."""
    params = params or SPLIT_PARAMS
    if not tag.isalpha():
        return _split_around_numbers(tag, costs, params, known)
    lower, n = tag.lower(), len(tag)
    whole = costs.get(lower, math.inf)
    if 9.0 - whole >= params["whole"]:
        return None
    floors, extra = params["floors"], params["piece"]
    limits = [9.0 - f for f in floors]
    best = [0.0] + [math.inf] * n
    back = [0] * (n + 1)
    for j in range(1, n + 1):
        for i in range(max(0, j - _MAX_PIECE), j):
            if best[i] == math.inf or (i == 0 and j == n):
                continue
            piece = lower[i:j]
            cost = costs.get(piece, math.inf)
            if cost > limits[min(len(piece), len(limits)) - 1]:
                cost = limits[-1] if piece in known and len(piece) >= 3 else math.inf
            if best[i] + cost + extra < best[j]:
                best[j], back[j] = best[i] + cost + extra, i
    # a tag outside the list is an unknown word, dearer the longer it is
    if whole == math.inf:
        whole = params["unknown"] * n - params["margin"]
    if best[n] == math.inf or best[n] - extra >= whole + params["margin"]:
        return None
    pieces, j = [], n
    while j > 0:
        pieces.append(tag[back[j]:j])
        j = back[j]
    pieces.reverse()
    # one letter is a word (y, o, a) or an initial at most once, and never the last piece
    # (hzamarron is not h zama r ron, Univ_espect not espec t)
    if sum(len(p) == 1 for p in pieces) > 1 or len(pieces[-1]) == 1:
        return None
    return tuple(pieces)


def _split_around_numbers(tag: str, costs, params, known) -> tuple[str, ...] | None:
    """A one-case ``tag`` of letters and numbers, each run of letters split on its own (``top100femalelies``:
    top100 female lies), or None when no run is cut. A number of one to three digits stays on the word
    before it (on the word after it at the start: ``3words``), a longer one is a word of its own."""
    runs = re.findall(r"[^\W\d_]+|\d+|.", tag)
    if any(not (r.isalpha() or r.isdigit()) for r in runs):
        return None
    words, cut = [], False
    for run in runs:
        if run.isdigit():
            words.append(run)
            continue
        split = _list_split(run, costs, params, known)
        cut = cut or split is not None
        words.extend(split or (run,))
    if not cut:
        return None
    out: list[str] = []
    for word in words:
        if word.isdigit() and len(word) <= 3 and out and not out[-1].isdigit():
            out[-1] += word
        elif out and out[-1].isdigit() and len(out[-1]) <= 3 and len(out) == 1:
            out[-1] += word
        else:
            out.append(word)
    return tuple(out)


# a piece of an unknown-language or capitalised tag's split must be at least this common (English rank)
_COMMON_RANK = 20000
_YEAR = re.compile(r"^(\D+?)(\d{4,})$")


def _language_key(language) -> str:
    """``"en"``, ``"und"`` (unknown) or the primary subtag of any other code."""
    if not language or str(language).lower() in ("und", "none", "unknown"):
        return "und"
    return str(language).lower().replace("_", "-").split("-")[0]


def _case_pieces(tag: str, costs=None) -> list[str]:
    """``tag`` cut at its case changes, in any script with case: aB, and where a run of capitals meets
    lower case, before its last capital (``ABaerbock``: A|Baerbock, ``HNShow``: HN|Show) unless only the
    lower-case part is a word (``NHSvaccine``: NHS|vaccine); ``costs``, the record's language's word
    list when it has one besides English, decides that too (``MILENIOForos``: MILENIO|Foros)."""
    cuts = []
    for i in range(1, len(tag)):
        prev, cur = tag[i - 1], tag[i]
        if cur.isupper() and prev.islower():
            cuts.append(i)
        elif cur.islower() and prev.isupper() and i >= 2 and tag[i - 2].isupper():
            end = i
            while end < len(tag) and tag[end].islower():
                end += 1
            lower = tag[i:end]
            cuts.append(i if _lower_run_is_word(tag[i - 2::-1], tag[i - 1], lower, costs) else i - 1)
    cuts = [0, *cuts, len(tag)]
    return [tag[a:b] for a, b in zip(cuts, cuts[1:]) if b > a]


def _lower_run_is_word(before: str, capital: str, lower: str, costs=None) -> bool:
    """Whether a run of capitals ends before ``lower`` (NHS|vaccine, EFE|deportes) rather than before its
    last capital (A|Baerbock, INE|Mexico, HN|Show): the capital and the lower case make no common word, and
    the lower case alone is one, or the capitals (``before`` is the run before the last, reversed) are
    three or more and the lower case four or more letters."""
    words, common = _english_costs(), _common_cost()
    if words.get((capital + lower).lower(), math.inf) <= common:
        return False
    if costs is not None and (capital + lower).lower() in costs and \
            costs[(capital + lower).lower()] <= costs.get(lower, math.inf):
        return False
    run = len(before) - len(before.lstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZ")) + 1
    return words.get(lower, math.inf) <= common or (run >= 3 and len(lower) >= 4)


def _letter_words(pieces: list[str], costs: dict[str, float], params=None) -> list[str]:
    """Case pieces with a one-letter word the writer left in lower case cut off (``CaféyNoticias``: Café y
    Noticias; ``AzucenaxMilenio``: Azucena x Milenio): a capitalised piece before another piece, not a word
    of ``costs`` itself, whose last letter is a word as frequent as a one-letter piece must be and whose
    other letters are a word."""
    params = params or SPLIT_PARAMS
    one, word = 9.0 - params["floors"][0], 9.0 - params["floors"][-1]
    out = []
    for k, piece in enumerate(pieces):
        low = piece.lower()
        if (k < len(pieces) - 1 and len(piece) >= 4 and piece[0].isupper() and piece[1:].islower()
                and piece[1:].isalpha() and low not in costs and costs.get(low[-1], math.inf) <= one
                and costs.get(low[:-1], math.inf) <= word):
            out.extend((piece[:-1], piece[-1]))
        else:
            out.append(piece)
    return out


def _merge_listed(pieces: list[str], costs: dict[str, float], params=None) -> list[str]:
    """Adjacent capitalised pieces of three letters or more that together spell a word of ``costs`` (the
    record's language's list) at least as frequent as Zipf ``SPLIT_PARAMS["join"]`` joined into one: a
    name written with an inner capital (``SoundCloud``, ``BlackBerry``), not ``Fox News`` or ``Sin
    Embargo``, which the list holds too, but rarely."""
    params = params or SPLIT_PARAMS
    limit, out = 9.0 - params["join"], []
    for piece in pieces:
        if (out and _capitalised(out[-1]) and _capitalised(piece) and len(out[-1]) >= 3 and len(piece) >= 3
                and costs.get((out[-1] + piece).lower(), math.inf) <= limit):
            out[-1] += piece
        else:
            out.append(piece)
    return out


def _capitalised(piece: str) -> bool:
    return piece[:1].isupper() and piece[1:].islower() and piece.isalpha()


def _year_split(piece: str) -> list[str]:
    """A word followed by a number of four or more digits is two terms (Election2020); COVID19 is one."""
    match = _YEAR.match(piece)
    if match and any(c.isalpha() for c in match.group(1)):
        return [match.group(1), match.group(2)]
    return [piece]


@lru_cache(maxsize=1)
def _common_cost() -> float:
    return math.log((_COMMON_RANK + 1) * math.log(len(_english_costs())))


def _all_words(pieces, known, limit: float) -> bool:
    """Every piece is a known word, an English word costing under ``limit`` (or a number), and none is a
    single letter other than "a" and "i"."""
    english = _english_costs()
    return all((p.lower() in known or p.isdigit() or english.get(p.lower(), math.inf) < limit)
               and (len(p) > 1 or p.lower() in "ai" or p.isdigit()) for p in pieces)


def segment_hashtag(tag: str, segmenter: HashtagSegmenter | None = None,
                    language: str | None = None) -> list[str]:
    """``#PfizerBioNTech`` -> ['Pfizer', 'BioNTech']; ``#covidvaccine`` -> ['covid', 'vaccine'];
    ``#ArminLaschet`` -> ['Armin', 'Laschet']; ``#hochwasser`` in a German record stays whole."""
    return (segmenter or _DEFAULT).split(tag, language)
