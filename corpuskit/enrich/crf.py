"""A CRF sequence labeller for named entities in short social-media text.

The shipped model (``corpuskit/enrich/models/wnut17_crf.crfsuite``) is a
linear-chain CRF (python-crfsuite, through sklearn-crfsuite at training time)
trained on the WNUT 2017 "Emerging and Rare Entities" data (Derczynski,
Nichols, van Erp, Limsopatham 2017) and the Broad Twitter Corpus (Derczynski,
Bontcheva, Roberts 2016), both CC-BY 4.0; ``wnut17_crf.json`` records the sets,
files and licences. The training script is ``tools/train_crf.py``. Its labels
(WNUT 2017's ``person``, ``location``, ``group``, ``corporation``, ``product``,
``creative-work``; BTC's are mapped onto them) map to corpuskit's types through
:data:`WNUT_TYPES`.

Tokens come from :func:`tokenize`, a tweet-aware tokenizer: URLs, ``@handles``
and ``#hashtags`` stay whole, a possessive or clitic (``'s``, ``’s``, ``n't``)
is its own token, letters are Unicode letters (``Uğur``, ``Şahin``, ``Karikó``).
"""
from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources
from pathlib import Path
from types import MappingProxyType

from corpuskit.errors import MissingDependencyError

MODEL_FILE = "wnut17_crf.crfsuite"
WORDS_FILE = "wnut17_common_words.txt"
INFO_FILE = "wnut17_crf.json"  # training sets and licences, the settings chosen and the figures that chose them
LEXICON_FILE = "lexicon.tsv"
DEMONYMS_FILE = "demonyms.txt"
CLUSTERS_FILE = "word_clusters.tsv"  # tools/build_word_clusters.py: word TAB fine id TAB coarse id

#: WNUT 2017 label -> corpuskit entity type
WNUT_TYPES = {"person": "person", "location": "place", "corporation": "org", "group": "org",
              "product": "product", "creative-work": "product"}

_TOKEN = re.compile(
    r"https?://\S+|www\.\S+"          # URLs
    r"|[@#][^\W_]\w*"                  # handles and hashtags (Unicode letters)
    r"|[^\W_](?:[^\W_]|[-.&_](?=[^\W_]))*(?=n['’]t\b)"  # "do" of "don't"
    r"|n['’]t\b"
    r"|[^\W_](?:[^\W_]|[-.&_](?=[^\W_]))*"          # words: Unicode letters and digits
    r"|['’][A-Za-z]{1,2}\b"           # clitics and possessives: 's ’s 're 'll
    r"|\S"                             # any other single character
)
# wordninja word costs are log((rank + 1) * log(N)): these are ranks 1,000, 10,000 and 50,000
_COST_1K, _COST_10K, _COST_50K = 9.37, 11.67, 13.28
_URL = re.compile(r"^(?:https?://|www\.)|\.(?:com|org|net|io|ly|co)(?:/|$)", re.IGNORECASE)


def tokenize(text: str) -> list[tuple[int, int, str]]:
    """``(start, end, token)`` for each token of ``text`` (character offsets)."""
    return [(m.start(), m.end(), m.group()) for m in _TOKEN.finditer(text or "")]


def _shape(word: str) -> str:
    out = []
    for ch in word:
        c = "X" if ch.isupper() else "x" if ch.isalpha() else "d" if ch.isdigit() else ch
        if not out or out[-1] != c:
            out.append(c)
    return "".join(out[:6])


class Featurizer:
    """Token features for the CRF.

    Per token: the lower-case word, its shape, prefixes and suffixes (1-4),
    hashtag/handle/URL flags, case flags, digits, non-ASCII letters, its English
    frequency bucket, membership in the training data's common (lower-case)
    words, the types of the gazetteer names it is a word of, the name-lexicon
    tags of the word (``fname``, ``lname``, ``place``: ``tools/build_lexicon.py``),
    a demonym flag ("American", "Russians"), and the phrase matches it is part
    of (a gazetteer alias or a lexicon place of up to four tokens, as ``B``/``I``
    with the type, matched in any case). Per sentence: the document's case profile
    (mostly lower case, mostly capitalised, mostly upper case), alone and joined
    with the token's own case, and whether a capitalised token follows a
    lower-case word. Context: the words and case summaries of the tokens two
    either side, and the word bigrams around the token.

    ``gazetteer`` maps a lower-case word to the types of the gazetteer names it
    belongs to; ``common`` is a set of lower-case common words; ``phrases`` maps
    a phrase key (:func:`phrase_key`) to its tags; ``lexicon`` maps a lower-case
    word to its lexicon tags; ``demonyms`` is a set of lower-case demonyms; ``clusters`` maps a
    lower-case word to its ``(fine, coarse)`` word-cluster ids, learned from unlabelled text by
    ``tools/build_word_clusters.py`` (features ``cf=`` and ``cc=``; a model trained without them
    has an empty map).
    """

    def __init__(self, gazetteer: dict | None = None, common: frozenset | set | None = None,
                 first_names: frozenset | set | None = None, phrases: dict | None = None,
                 lexicon: dict | None = None, demonyms: frozenset | set | None = None,
                 clusters: dict | None = None):
        self.gazetteer = gazetteer or {}
        self.clusters = clusters or {}
        self.common = common or frozenset()
        self.first_names = first_names or frozenset()
        self.phrases = phrases or {}
        self.lexicon = lexicon or {}
        self.demonyms = demonyms or frozenset()

    def _frequency(self, word: str) -> str:
        """Bucket of the word's English frequency rank (wordninja's list): 0 (top 1,000) .. 4 (unknown)."""
        english = self.__dict__.get("_english")
        if english is None:
            from corpuskit.text.hashtags import _english_costs

            english = self._english = _english_costs()
        cost = english.get(word)
        if cost is None:
            return "4"
        return "0" if cost < _COST_1K else "1" if cost < _COST_10K else "2" if cost < _COST_50K else "3"

    def _token(self, word: str) -> tuple[list[str], str]:
        low = word.lower()
        feats = [f"w={low}", f"sh={_shape(word)}"]
        core = low.lstrip("@#")
        for k in (1, 2, 3, 4):
            if len(core) >= k:
                feats.append(f"p{k}={core[:k]}")
                feats.append(f"s{k}={core[-k:]}")
        first = word[:1]
        if first == "#":
            feats.append("hashtag")
        elif first == "@":
            feats.append("handle")
        elif _URL.search(word):
            feats.append("url")
        body = word.lstrip("@#")
        if body[:1].isupper():
            feats.append("cap")
            if body.isupper() and len(body) > 1:
                feats.append("allcap")
        elif body[:1].isalpha():
            feats.append("lower")
        elif not body[:1].isalnum():
            feats.append("punct")
        if any(c.isdigit() for c in body):
            feats.append("digit")
        if not body.isascii():
            feats.append("nonascii")
        for kind in self.gazetteer.get(core, ()):
            feats.append(f"gaz={kind}")
        for tag in self.lexicon.get(core, ()):
            feats.append(f"lex={tag}")
        if core in self.common:
            feats.append("common")
        if body.capitalize() in self.first_names:
            feats.append("fname")
        if is_demonym(core, self.demonyms):
            feats.append("demonym")
        feats.append(f"freq={self._frequency(core)}")
        cluster = self.clusters.get(core)
        if cluster is not None:
            feats.append(f"cf={cluster[0]}")
            feats.append(f"cc={cluster[1]}")
        summary = ("C" if "cap" in feats else "c") + ("m" if core in self.common else "r")
        return feats, summary

    def _phrase_tags(self, lows: list[str], keys: list[str] | None = None) -> list[list[str]]:
        """``B``/``I`` phrase-match features per token (longest match first, left to right);
        ``keys`` are the tokens' :func:`phrase_key` parts when the caller has them."""
        n = len(lows)
        out: list[list[str]] = [[] for _ in range(n)]
        phrases = self.phrases
        if not phrases:
            return out
        # with the keys given, a key no phrase begins with ends the search (the same matches):
        # the plain walk, without keys, is what this is checked against
        prefixes = self._phrase_prefixes() if keys is not None else None
        i = 0
        while i < n:
            if not lows[i][:1].isalnum() and lows[i][:1] not in "#@":
                i += 1
                continue
            hit = None
            key = ""
            for j in range(i, min(n, i + _MAX_PHRASE)):
                key += _PHRASE_DROP.sub("", lows[j]) if keys is None else keys[j]
                if prefixes is not None and key not in prefixes:
                    break
                tags = phrases.get(key)
                if tags is not None:
                    hit = (j, tags)
            if hit is None:
                i += 1
                continue
            j, tags = hit
            for tag in tags:
                out[i].append(f"pB={tag}")
                for k in range(i + 1, j + 1):
                    out[k].append(f"pI={tag}")
            i = j + 1
        return out

    def _phrase_prefixes(self) -> frozenset | None:
        """Every beginning of a phrase key (the empty one too) when known for these very
        ``phrases`` (:func:`build_featurizer`'s read-only table), else None."""
        known = self.__dict__.get("_prefixes")
        return known[1] if known is not None and known[0] is self.phrases else None

    def sentence(self, words: list[str]) -> list[list[str]]:
        """Feature lists (crfsuite attribute strings) of a token sequence.

        A word's own features and the strings it gives its neighbours (``-2:w=...``) are
        built once per distinct word and remembered (up to 200,000 words). When ``weighed``
        is set (the shipped tagger sets it to the attributes its model has a state feature
        for), a word's attributes and the word-pair attributes (``-1|0=...``) outside it are left
        out: crfsuite would skip them, so the tags and marginals are the same and the tagger reads
        fewer strings."""
        memo = self.__dict__.setdefault("_memo", {})
        weighed = self.__dict__.get("weighed")  # the attributes a model has weights for, when known
        own = []
        for w in words:
            found = memo.get(w)
            if found is None:
                feats, summary = self._token(w)
                low = w.lower()
                near = [f"{d}:w={low}" for d in _OFFSETS]
                if weighed is not None:
                    # crfsuite skips an attribute with no state feature when it sets a sequence,
                    # so dropping it here leaves every score and marginal bit for bit the same
                    feats = [f for f in feats if f in weighed]
                    near = [f if f in weighed else None for f in near]
                # what the word gives the token at each offset: its word (when kept), its case summary
                near = tuple((f"{d}:c={summary}",) if kept is None else (kept, f"{d}:c={summary}")
                             for kept, d in zip(near, _OFFSETS))
                found = (list(feats), summary, near, low, _PHRASE_DROP.sub("", low), _case_counts(w))
                if len(memo) < 200_000:
                    memo[w] = found
            own.append(found)
        lows = [o[3] for o in own]
        phrase = self._phrase_tags(lows, [o[4] for o in own])
        profile = _profile_of(*map(sum, zip(*(o[5] for o in own))))
        by_case = profile + "|"
        n = len(words)
        pairs = [f"{lows[i]}|{lows[i + 1]}" for i in range(n - 1)]
        if weighed is not None:  # most word pairs have no state feature: crfsuite would skip them
            after = [a if a in weighed else None for a in ("-1|0=" + p for p in pairs)]
            before = [a if a in weighed else None for a in ("0|1=" + p for p in pairs)]
        else:
            after = ["-1|0=" + p for p in pairs]
            before = ["0|1=" + p for p in pairs]
        out = []
        for i in range(n):
            mine = own[i]
            feats = mine[0] + ["bias", profile]
            if phrase[i]:
                feats += phrase[i]
            if i == 0:
                feats.append("BOS")
            elif words[i - 1] in _STOPS:
                feats.append("after_stop")
            if i == n - 1:
                feats.append("EOS")
            kind = mine[1][0]
            feats.append(by_case + kind)  # a capital in a lower-case post says more than in a headline
            if kind == "C" and i > 0 and words[i - 1][:1].isalpha() and own[i - 1][1][0] == "c":
                feats.append("cap_mid")  # capitalised right after a lower-case word
            if i >= 2:
                feats += own[i - 2][2][0]
            if i >= 1:
                feats += own[i - 1][2][1]
            if i + 1 < n:
                feats += own[i + 1][2][2]
            if i + 2 < n:
                feats += own[i + 2][2][3]
            if i > 0 and after[i - 1] is not None:
                feats.append(after[i - 1])
            if i + 1 < n and before[i] is not None:
                feats.append(before[i])
            out.append(feats)
        return out


_OFFSETS = (-2, -1, 1, 2)
_STOPS = frozenset((".", "!", "?", ":", "\"", "RT"))
_MAX_PHRASE = 4
_PHRASE_DROP = re.compile(r"[^\w+]|_")


def phrase_key(text: str) -> str:
    """Key of a phrase for :meth:`Featurizer._phrase_tags`: lower case, letters, digits and ``+`` only."""
    return _PHRASE_DROP.sub("", text.lower())


def phrase_prefixes(phrases) -> frozenset:
    """The beginnings of the keys of ``phrases``, the empty string and each key included."""
    return frozenset({""} | {key[:i] for key in phrases for i in range(1, len(key) + 1)})


def _case_profile(words: list[str]) -> str:
    """``case=lower`` / ``case=title`` / ``case=upper`` / ``case=mixed``: how the document writes its words."""
    return _profile_of(*map(sum, zip(*map(_case_counts, words))))


def _case_counts(word: str) -> tuple[int, int, int]:
    """``(starts with a letter, ... a capital, is all capitals of two or more)`` as 0 or 1."""
    if not word[:1].isalpha():
        return 0, 0, 0
    return 1, int(word[:1].isupper()), int(word.isupper() and len(word) > 1)


def _profile_of(letters: int = 0, caps: int = 0, upper: int = 0) -> str:
    """:func:`_case_profile` from its counts of words starting with a letter, of those capitalised
    and of those in capitals."""
    if letters < 3:
        return "case=short"
    if upper >= 0.6 * letters:
        return "case=upper"
    if caps <= 0.1 * letters:
        return "case=lower"
    if caps >= 0.6 * letters:
        return "case=title"
    return "case=mixed"


def is_demonym(word: str, demonyms) -> bool:
    """Is ``word`` (lower case) a demonym, its plural or possessive ("americans", "russian's")?"""
    if word in demonyms:
        return True
    for tail in ("'s", "’s", "s", "es"):
        if word.endswith(tail) and word[: -len(tail)] in demonyms:
            return True
    return False


def gazetteer_words(load_gazetteers=None) -> tuple[dict, frozenset]:
    """``({lower word: {wnut-free corpuskit types}}, first_names)`` from the shipped gazetteers (as
    ``load_gazetteers`` reads them: :func:`corpuskit.enrich.entities.load_gazetteers` by default)."""
    if load_gazetteers is None:
        from corpuskit.enrich.entities import load_gazetteers

    table, first = load_gazetteers()
    words: dict[str, set] = {}
    for entry in table.values():
        for word in re.findall(r"[^\W_]+", entry.name.lower()):
            if len(word) > 1:
                words.setdefault(word, set()).add(entry.type)
    return {w: tuple(sorted(k)) for w, k in words.items()}, first


def load_demonyms() -> frozenset:
    """The shipped demonyms (``gazetteers/demonyms.txt``), lower case."""
    path = resources.files("corpuskit.enrich").joinpath("gazetteers").joinpath(DEMONYMS_FILE)
    words = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            words.extend(w.lower() for w in line.split())
    return frozenset(words)


def load_lexicon() -> list[tuple[str, str]]:
    """The shipped name lexicon: ``[(phrase, tag)]`` (see ``tools/build_lexicon.py``)."""
    path = resources.files("corpuskit.enrich").joinpath("models").joinpath(LEXICON_FILE)
    if not path.is_file():
        return []
    return [tuple(line.split("\t", 1)) for line in path.read_text(encoding="utf-8").splitlines() if "\t" in line]


def load_clusters(path=None) -> dict:
    """Word clusters from ``path`` (default: a ``word_clusters.tsv`` beside the shipped model, which
    this release does not ship): ``{lower-case word: (fine id, coarse id)}``, empty when absent."""
    path = Path(path) if path is not None else \
        resources.files("corpuskit.enrich").joinpath("models").joinpath(CLUSTERS_FILE)
    if not path.is_file():
        return {}
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        parts = line.split("\t")
        if len(parts) == 3:
            out[parts[0]] = (parts[1], parts[2])
    return out


def build_featurizer(common: frozenset | set, clusters: bool | None = None, clusters_path=None) -> Featurizer:
    """The featurizer of the shipped model, with the training data's ``common`` words; ``clusters``
    adds the word-cluster features (None: as the shipped model's settings say), read from
    ``clusters_path`` (see :func:`load_clusters`). The tables from the shipped files are built once
    per process and shared, read-only, by every featurizer built here."""
    from corpuskit.enrich import entities

    if clusters is None:
        clusters = load_info().get("clusters", False)
    # keyed on the gazetteer reader: one replaced (a benchmark blind to the demo's names) builds its own
    gaz_words, first, phrases, lexicon, demonyms, prefixes = _shipped_tables(entities.load_gazetteers)
    featurizer = Featurizer(gaz_words, common, first, phrases=phrases, lexicon=lexicon, demonyms=demonyms,
                            clusters=_clusters(None if clusters_path is None else str(clusters_path))
                            if clusters else None)
    featurizer._prefixes = (phrases, prefixes)
    return featurizer


@lru_cache(maxsize=2)
def _shipped_tables(load_gazetteers) -> tuple:
    """``(gazetteer words, first names, phrases, lexicon, demonyms, phrase prefixes)`` of
    :func:`build_featurizer` from the gazetteers ``load_gazetteers`` reads, read-only."""
    gaz_words, first = gazetteer_words(load_gazetteers)
    table, _ = load_gazetteers()
    phrases: dict[str, set] = {}
    for key, entry in table.items():
        phrases.setdefault(phrase_key(key), set()).add(entry.type)
    lexicon: dict[str, set] = {}
    for phrase, tag in load_lexicon():
        if " " in phrase or tag == "place":
            phrases.setdefault(phrase_key(phrase), set()).add("lex-" + tag)
        if " " not in phrase:
            lexicon.setdefault(phrase.lower(), set()).add(tag)
    phrases = MappingProxyType({k: tuple(sorted(v)) for k, v in phrases.items() if k})
    return (MappingProxyType(gaz_words), first, phrases,
            MappingProxyType({k: tuple(sorted(v)) for k, v in lexicon.items()}), load_demonyms(),
            phrase_prefixes(phrases))


def _clusters(path: str | None):
    """:func:`load_clusters` of ``path``, read once per process for the shipped file (None)."""
    return _shipped_clusters() if path is None else load_clusters(path)


@lru_cache(maxsize=1)
def _shipped_clusters() -> MappingProxyType:
    return MappingProxyType(load_clusters())


def load_common_words() -> frozenset:
    """The common-word list shipped with the model (lower-case words seen mostly lower case)."""
    path = resources.files("corpuskit.enrich").joinpath("models").joinpath(WORDS_FILE)
    return frozenset(path.read_text(encoding="utf-8").split())


def load_info() -> dict:
    """The shipped model's training sets, settings and the figures that chose them (``wnut17_crf.json``)."""
    import json

    path = resources.files("corpuskit.enrich").joinpath("models").joinpath(INFO_FILE)
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def spans_from_tags(tags: list[str]) -> list[tuple[int, int, str]]:
    """BIO tags -> ``(first token, last token, label)`` spans; a stray ``I-`` starts a span."""
    spans = []
    start, label = None, None
    for i, tag in enumerate(list(tags) + ["O"]):
        if tag == "O" or tag.startswith("B-") or (tag.startswith("I-") and tag[2:] != label):
            if start is not None:
                spans.append((start, i - 1, label))
                start, label = None, None
            if tag != "O":
                start, label = i, tag[2:]
    return spans


def decode(tags: list[str], marginals: list[dict], max_outside: float = 1.0):
    """Spans ``(first, last, label, confidence)`` from the Viterbi ``tags`` and per-token label
    ``marginals``.

    ``max_outside=1`` keeps the Viterbi path. Below 1, a token is inside an entity when
    Viterbi says so or its probability of ``O`` is below ``max_outside``; a span starts where
    the previous token is outside or the token's ``B-`` mass exceeds its ``I-`` mass, and takes
    the type with the most ``B-``/``I-`` mass over its tokens. Confidence is the lowest
    probability, over the span's tokens, of being inside an entity.
    """
    inside = [1.0 - m.get("O", 0.0) for m in marginals]
    if max_outside >= 1.0:
        return [(a, b, label, min(inside[a:b + 1])) for a, b, label in spans_from_tags(tags)]
    on = [tags[k] != "O" or 1.0 - inside[k] < max_outside for k in range(len(tags))]
    out, start = [], None
    for k in range(len(tags) + 1):
        begins = k < len(tags) and on[k] and (
            start is None or sum(p for lab, p in marginals[k].items() if lab[:2] == "B-")
            > sum(p for lab, p in marginals[k].items() if lab[:2] == "I-"))
        if start is not None and (k == len(tags) or not on[k] or begins):
            mass: dict[str, float] = {}
            for j in range(start, k):
                for lab, p in marginals[j].items():
                    if lab != "O":
                        mass[lab[2:]] = mass.get(lab[2:], 0.0) + p
            label = min(mass, key=lambda t: (-mass[t], t))
            out.append((start, k - 1, label, min(inside[start:k])))
            start = None
        if k < len(tags) and on[k] and start is None:
            start = k
    return out


#: the weighed attributes of the last model file read, by (path, size, modification time)
_WEIGHED: dict[tuple, frozenset] = {}


def weighed_attributes(tagger) -> frozenset[str]:
    """The attributes ``tagger`` (an open ``pycrfsuite.Tagger``) has a state feature for, read from
    its text dump. ``Tagger.info()`` gives the same set but parses every line of the dump with
    regular expressions, which takes ten seconds or more on the shipped model; this reads only the
    state-feature lines (``  (12) word.lower=apple --> B-corporation: 0.52``)."""
    import os
    import tempfile

    fd, path = tempfile.mkstemp(suffix=".crfdump")
    os.close(fd)
    try:
        tagger.dump(path)
        out, inside = set(), False
        with open(path, encoding="utf-8", errors="replace") as dump:
            for line in dump:
                if not inside:
                    inside = line.startswith("STATE_FEATURES")
                elif line.startswith("}"):
                    break
                else:
                    out.add(line[line.index(") ") + 2:line.rindex(" --> ")])
        return frozenset(out)
    finally:
        os.unlink(path)


class CrfTagger:
    """The shipped CRF: ``tag(words) -> BIO tags`` and ``spans(words)`` with marginal confidence.

    Loads lazily from package data (or ``model_path``); safe to pickle (the
    tagger reloads in a worker process).
    """

    def __init__(self, model_path: str | None = None):
        self.model_path = model_path

    def _load(self):
        tagger = getattr(self, "tagger_", None)
        if tagger is None:
            try:
                import pycrfsuite
            except ImportError as exc:  # pragma: no cover - a core dependency
                raise MissingDependencyError(
                    "the CRF entity tagger needs python-crfsuite: pip install sklearn-crfsuite") from exc
            tagger = pycrfsuite.Tagger()
            if self.model_path is not None:
                tagger.open(str(self.model_path))
                stamp = Path(self.model_path).resolve()
            else:
                ref = resources.files("corpuskit.enrich").joinpath("models").joinpath(MODEL_FILE)
                with resources.as_file(ref) as path:
                    tagger.open(str(path))
                    stamp = Path(path).resolve()
            stat = stamp.stat()
            key = (str(stamp), stat.st_size, stat.st_mtime_ns)
            if key not in _WEIGHED:   # one read per model file and process: every extractor shares it
                _WEIGHED.clear()
                _WEIGHED[key] = weighed_attributes(tagger)
            self.featurizer_ = build_featurizer(load_common_words())
            self.featurizer_.weighed = _WEIGHED[key]
            self.all_labels_ = sorted(tagger.labels())
            self.max_outside_ = float(load_info().get("max_outside", 1.0)) if self.model_path is None else 1.0
            self.tagger_ = tagger
        return tagger

    def spans(self, words: list[str], max_outside: float | None = None) -> list[tuple[int, int, str, float]]:
        """``(first, last, wnut label, confidence)`` of each labelled span.

        ``max_outside`` defaults to the value chosen at training (``tools/train_crf.py``, shipped
        with the model). Below 1, decoding is by token marginals: a token
        whose probability of being outside any entity is below ``max_outside``
        takes its most probable entity tag (more recall than the Viterbi path,
        which is what ``max_outside=1`` gives). Confidence is the lowest
        probability, over the span's tokens, of being inside an entity.
        """
        if not words:
            return []
        tagger = self._load()
        tags = tagger.tag(self.featurizer_.sentence(words))
        max_outside = self.max_outside_ if max_outside is None else max_outside
        marginal = tagger.marginal
        labels = self.all_labels_
        marginals = []
        for k, tag in enumerate(tags):
            p_out = marginal("O", k)
            if tag != "O" or p_out < max_outside < 1.0:  # only tokens that may be inside need every label
                marginals.append({lab: marginal(lab, k) for lab in labels})
            else:
                marginals.append({"O": p_out})
        return decode(tags, marginals, max_outside)

    def __getstate__(self):
        return {"model_path": self.model_path}
