"""The regular expressions that find URLs, @handles, #hashtags and emoji in social-media text."""
from __future__ import annotations

import re

# Top-level domains that mark a bare domain ("example.com/path", "t.co/xyz") without a scheme. Matched in
# lower case only, so that "ASP.NET" or "U.S." stay words.
_TLDS = (
    "com|org|net|edu|gov|mil|int|io|co|ai|app|dev|info|biz|me|tv|ly|gl|gd|to|fm|news|xyz|site|online|tech|"
    "us|uk|ca|au|nz|ie|de|fr|es|it|nl|be|ch|at|se|no|fi|dk|pl|pt|ru|ua|cn|jp|kr|in|br|mx|ar|za|eu|ws|sh|cc|li"
)
URL = re.compile(
    r"(?:https?://|www\.)[^\s<>\"]+"
    r"|(?<![\w@.\-/])(?:[a-z0-9](?:[a-z0-9\-]*[a-z0-9])?\.)+(?:" + _TLDS + r")\b(?:/[^\s<>\"]*)?"
)
# Bluesky handles carry dots (@alice.bsky.social); an e-mail address is not a handle.
HANDLE = re.compile(r"(?<![\w@])@([A-Za-z0-9_](?:[A-Za-z0-9_.\-]*[A-Za-z0-9_])?)")
# A hashtag needs a letter (so "#1" is a rank, not a tag) and may hold any script's letters.
HASHTAG = re.compile(r"(?<![\w#&])#(\w*[^\W\d_]\w*)")
EMOJI = re.compile(
    "["
    "\U0001F000-\U0001FAFF"  # pictographs, emoticons, transport, supplemental symbols, flags' letters
    "\u2600-\u27BF"          # miscellaneous symbols and dingbats
    "\u2B00-\u2BFF"          # arrows and stars
    "\u2300-\u23FF"          # technical symbols used as emoji (watch, hourglass)
    "\uFE0E\uFE0F\u200D\u20E3"  # variation selectors, joiner, keycap
    "]+"
)
# Cheap tests that let most texts skip the costlier patterns.
URL_HINT = re.compile(r"://|www\.|[a-z0-9]\.(?:" + _TLDS + r")\b")
_URL_TRAIL = ".,;:!?)]}'\""


def _trim_url(url: str) -> str:
    url = url.rstrip(_URL_TRAIL)
    return url


def find_urls(text: str) -> list[str]:
    """Every URL in ``text``: with a scheme, starting ``www.``, or a bare domain such as ``t.co/x1``."""
    return [_trim_url(m.group(0)) for m in URL.finditer(text or "")]


def find_handles(text: str) -> list[str]:
    """Every ``@handle`` in ``text``, without the ``@`` (e-mail addresses are not handles)."""
    return [m.group(1) for m in HANDLE.finditer(text or "")]


def find_hashtags(text: str) -> list[str]:
    """Every ``#hashtag`` in ``text``, without the ``#`` (``#1`` and HTML's ``&#39;`` are not tags)."""
    return [m.group(1) for m in HASHTAG.finditer(text or "")]
