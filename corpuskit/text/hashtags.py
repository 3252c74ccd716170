"""Hashtag segmentation: ``#PfizerBioNTech`` -> Pfizer BioNTech, ``#covidvaccine`` -> covid vaccine.

A hashtag is split by a shortest-path search over its characters. A piece costs what its word costs: a
name from the shipped gazetteers, a recent word or a word the caller supplies (the corpus's own vocabulary)
is cheap; an English word costs by its Zipf rank in wordninja's Wikipedia word list; an unknown piece is
dear, so that an unknown name stays whole rather than being cut into rare words. CamelCase steers the
search: a split at a case change is cheaper, a piece that spans one (other than a known name such as
"BioNTech" or "YouTube") is dearer. The pieces keep the tag's own letters and case.
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

    def split(self, tag: str) -> list[str]:
        """The words of ``tag`` (with or without its ``#``), in the tag's own case."""
        tag = tag.lstrip("#")
        if len(tag) <= 3 or not any(c.isalpha() for c in tag):
            return [tag] if tag else []
        if "_" in tag:
            return [w for part in tag.split("_") if part for w in self.split(part)]
        if not tag.isascii():
            cuts = [0, *_camel_breaks(tag), len(tag)]
            return [tag[a:b] for a, b in zip(cuts, cuts[1:])]
        return list(self._split_cached(tag))

    @lru_cache(maxsize=65536)
    def _split_cached(self, tag: str) -> tuple[str, ...]:
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


def segment_hashtag(tag: str, segmenter: HashtagSegmenter | None = None) -> list[str]:
    """``#PfizerBioNTech`` -> ['Pfizer', 'BioNTech']; ``#covidvaccine`` -> ['covid', 'vaccine']."""
    return (segmenter or _DEFAULT).split(tag)
