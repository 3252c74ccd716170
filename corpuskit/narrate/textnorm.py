"""The text normaliser as narrate uses it: :mod:`corpuskit.text` when present.

``display_text`` (for quotes and prose) and ``term_tokens`` (for relevance and
overlap tests) come from the shared normaliser :mod:`corpuskit.text`. Until
that package is on the path this module provides equivalents with the same
contract, so narrate behaves the same either way.
"""
from __future__ import annotations

try:  # the shared normaliser
    from corpuskit.text import display_text, term_tokens
except ImportError:  # pragma: no cover - exercised only before corpuskit.text lands
    import html
    import re
    import unicodedata

    _ZERO_WIDTH = re.compile("[\u200b-\u200f\u2060\ufeff\u00ad]")
    _CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
    _QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
                             "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"'})
    _URL = re.compile(r"(?:https?://|www\.)\S+|\b[\w-]+\.(?:com|org|net|io|co|ly|gov|edu)(?:/\S*)?\b",
                      re.IGNORECASE)
    _HANDLE = re.compile(r"(?<![\w@])@\w+")
    _WORD = re.compile(r"[^\W_]+(?:'[^\W_]+)?")
    _URL_PARTS = frozenset("http https www com org net html htm php amp nbsp quot gt lt utm".split())
    _CONTRACTION_BITS = frozenset("don isn aren didn doesn wasn weren hasn haven hadn won wouldn shouldn "
                                  "couldn mustn ll ve re".split())
    STOP_WORDS = frozenset("""a about above after again against all am an and any are as at be because been
        before being below between both but by can could did do does doing down during each few for from
        further had has have having he her here hers herself him himself his how i if in into is it its
        itself just me more most my myself no nor not now of off on once only or other our ours ourselves
        out over own same she should so some such than that the their theirs them themselves then there
        these they this those through to too under until up very was we were what when where which while
        who whom why will with would you your yours yourself yourselves also get got one via""".split())

    def display_text(text) -> str:
        """HTML entities unescaped (twice), NFC, ASCII quotes, no zero-width/control chars, spaces collapsed."""
        out = str(text or "")
        for _ in range(3):
            unescaped = html.unescape(out)
            if unescaped == out:
                break
            out = unescaped
        out = unicodedata.normalize("NFC", out).translate(_QUOTES)
        out = _CONTROL.sub(" ", _ZERO_WIDTH.sub("", out))
        return re.sub(r"\s+", " ", out).strip()

    def term_tokens(text) -> list[str]:
        """Lower-case informative word tokens: no stop words, URL parts, handles, numbers or fragments."""
        flat = _HANDLE.sub(" ", _URL.sub(" ", display_text(text)))
        flat = flat.replace("#", " ")
        out = []
        for word in _WORD.findall(flat.lower()):
            word = word.split("'")[0] if word.endswith(("'s", "'t", "'re", "'ll", "'ve", "'d", "'m")) else word
            if (len(word) < 2 or word.isdigit() or word in STOP_WORDS or word in _URL_PARTS
                    or word in _CONTRACTION_BITS):
                continue
            out.append(word)
        return out

__all__ = ["display_text", "term_tokens"]
