"""How a story quotes a post so a reader can trust it: attributed, whole, claims as claims, no abuse.

Rules, stated once (the extractive writer follows them; :func:`quoted_text` undoes them for tracing):

- **Attributed.** Every quote is what posts said, never the story's voice:
  ``A Reddit post said: “...” [n]``; where several of the story's records say the
  same (their quotable sentences are near duplicates, see
  :func:`corpuskit.narrate.quotes.near_duplicate`), by count: ``3 posts (Reddit,
  Twitter) said: “...” [n]``.
- **Claims are claims.** A quote that makes a factual claim (:func:`is_claim`: a
  number that is not a year or a version, a comparison in "times", or a word of :data:`CLAIM_CUES` such as
  "causes", "proves", "study") is introduced with *claimed*; a question with
  *asked*; anything else with *said*. A record's **title** is reported news (the headline of
  what was linked), not the poster's claim: a quote from a title is introduced with *was
  headlined* (or *asked* for a question), never *claimed*.
- **Whole.** A quote is a whole sentence as the sentence splitter found it (it
  starts with a capital letter, digit or quotation mark, and its source did not cut
  it), or it is visibly an excerpt: ``said, in part: “... …”``. A source text cut
  with ``…`` or ``...`` (``... more infe…``) loses its last word: no quote ends
  inside a word.
- **No abuse.** A sentence with a word of the small profanity and insult lexicon
  (:data:`ABUSE_WORDS`, matched on whole words, with ``*`` masks such as ``f*ck``)
  is not quoted unless the story is about abuse (:func:`about_abuse`: its
  subject names one of :data:`ABUSE_SUBJECTS` or a lexicon word).
"""
from __future__ import annotations

import re

#: Profanity and insults never quoted in a story that is not about them (lower case, whole words).
ABUSE_WORDS = frozenset({
    "fuck", "fucking", "fucked", "fucker", "fuckers", "motherfucker", "shit", "shitty", "bullshit", "bitch",
    "bitches", "asshole", "assholes", "bastard", "bastards", "cunt", "cunts", "dick", "dickhead", "prick",
    "twat", "wanker", "wankers", "whore", "slut", "retard", "retarded", "retards", "idiot", "idiots",
    "moron", "morons", "imbecile", "dumbass", "jackass", "scumbag", "scum", "piss", "pissed", "douche",
    "douchebag", "stfu", "wtf",
})
#: Words whose presence in a story's subject makes the story about abuse (then abuse may be quoted).
ABUSE_SUBJECTS = frozenset({"abuse", "abusive", "harassment", "insult", "insults", "profanity", "slur",
                            "slurs", "troll", "trolls", "trolling", "toxicity", "toxic", "hate"})
#: Words and patterns that make a sentence a factual claim (with any number, see :func:`is_claim`).
CLAIM_CUES = frozenset({
    "cause", "causes", "caused", "causing", "prove", "proves", "proved", "proven", "confirm", "confirms",
    "confirmed", "study", "studies", "evidence", "percent", "fact", "facts", "shows",
    "showed", "increase", "increases", "increased", "reduce", "reduces", "reduced", "kill", "kills",
    "killed", "cure", "cures", "cured", "linked", "effective", "ineffective", "infected", "deaths",
    "according", "statistics", "million", "billion",
})

_WORD = re.compile(r"[^\W_]+(?:[*'][^\W_]+)*", re.UNICODE)
_MASKED = re.compile(r"\b[fs]\*+[a-z]*\b|\bf[u*]c?k\w*\b", re.IGNORECASE)
_NUMBER = re.compile(r"\d")
_TIMES = re.compile(r"\b\d+(?:\.\d+)?\s*(?:x|times)\b|\b(?:twice|half)\s+as\b", re.IGNORECASE)
_WHOLE_START = re.compile(r"^[\"'(\[]?[^\W_a-z]")
_UNIT = re.compile(r"^(?P<lead>[A-Z0-9][^“”]*? post[^“”]*? (?:said|claimed|asked|(?:was|were) headlined)(?:, in part)?): “(?P<quote>.*)”$", re.S)


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text or "")]


def is_abusive(sentence: str) -> bool:
    """Whether ``sentence`` has a word of :data:`ABUSE_WORDS` (or a masked profanity such as ``f*ck``)."""
    return bool(_MASKED.search(sentence or "")) or any(w in ABUSE_WORDS for w in _words(sentence))


def about_abuse(subject_terms) -> bool:
    """Whether a story whose subject is ``subject_terms`` (phrases) is about abuse."""
    words = {w for term in subject_terms or () for w in _words(str(term))}
    return bool(words & (ABUSE_SUBJECTS | ABUSE_WORDS))


def is_claim(sentence: str) -> bool:
    """Whether ``sentence`` states a fact a reader should take as a claim (a number, "N times", a cue word)."""
    text = (sentence or "").strip()
    if text.endswith("?"):
        return False
    figures = _figures(text)
    return bool(_NUMBER.search(figures) or _TIMES.search(text)) or any(w in CLAIM_CUES for w in _words(text))


def _figures(text: str) -> str:
    """``text`` without years, dates in brackets and version numbers (``(2015)``, ``Windows 10``, ``9.6``)."""
    text = re.sub(r"\((?:[^()]*\d{4}[^()]*)\)", " ", text)
    text = re.sub(r"\b(?:1[89]|20)\d{2}\b", " ", text)
    return re.sub(r"\b[A-Za-z][\w.+-]*\s+v?\d+(?:\.\d+)*\b(?![,.]?\d|\s*(?:%|x\b|times|percent|people|users))", " ", text)


def whole(sentence: str) -> tuple[str, bool]:
    """``(text, is_whole)``: the sentence, or its longest part that ends on a whole word, and whether it is a
    whole sentence. A text cut by its source (ending in ``…`` or ``...`` inside a word) loses the cut word."""
    text = (sentence or "").strip()
    cut = False
    if text.endswith(("…", "...")):
        body = text[:-1] if text.endswith("…") else text[:-3]
        if body and not body[-1].isspace() and body[-1].isalnum():
            body = body.rsplit(None, 1)[0] if len(body.split()) > 1 else body  # drop the cut word
        text, cut = body.rstrip(" ,;:-"), True
    is_whole = not cut and bool(_WHOLE_START.match(text))
    return text, is_whole


def _number_word(n: int) -> str:
    return {2: "Two", 3: "Three", 4: "Four", 5: "Five", 6: "Six"}.get(n, str(n))


def attribute(sentence: str, sources: list[str], title: bool = False) -> str:
    """The quote as the story writes it (without its marker): ``<who> <verb>: “<text>”``.

    ``sources``: the display names of the source kinds of the posts that said it (one per post; the quoted
    post first). ``title``: the sentence is (part of) the post's title, a headline the post reports,
    so it ``was headlined`` rather than ``claimed``.
    """
    text, is_whole = whole(sentence)
    if text.rstrip("\"')").endswith("?"):
        verb = "asked"
    elif title:
        verb = "was headlined" if len(sources) <= 1 else "were headlined"
    else:
        verb = "claimed" if is_claim(text) else "said"
    if not is_whole:
        verb += ", in part"
        text = f"{text} …" if not text.endswith("…") else text
    if len(sources) > 1:
        kinds = ", ".join(sorted(set(sources)))
        who = f"{_number_word(len(sources))} posts ({kinds})"
    else:
        name = sources[0] if sources else "one"
        name = name[:-len(" sites")] if name.endswith(" sites") else name  # "a news post"
        who = f"{'An' if name[:1].lower() in 'aeiou' else 'A'} {name} post"
    return f"{who} {verb}: “{text}”"


def quoted_text(unit: str) -> str:
    """The quoted words of an attributed unit (:func:`attribute`), for tracing to the record; a unit that is
    not attributed is returned as it is. An excerpt's ``…`` is removed."""
    match = _UNIT.match(unit.strip())
    if match is None:
        return unit
    quote = match["quote"]
    if match["lead"].endswith(", in part") and quote.endswith(" …"):
        quote = quote[:-2]
    return quote
