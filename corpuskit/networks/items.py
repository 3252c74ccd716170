"""What a record shares, as one comparable key: its normalised text, its URLs, its hashtag set.

Two records share an item when their keys are equal. The keys are built here once, so the
networks (``shared_url``) and the coordination test compare the same things:

- **text**: :func:`~corpuskit.text.analysis_text` of the title and text (no URLs, handles or
  a leading ``RT``), with each hashtag kept as its one word (``#VoteNow`` is ``votenow``: copies
  of one message carry the same tags, and segmenting every tag costs more than the rest of the
  read), lower-cased, punctuation and underscores dropped, spaces collapsed;
  a text of fewer than ``MIN_TEXT_WORDS`` words is no item ("lol", "[deleted]" are said by many
  people independently);
- **url**: each URL of the record (the ``url`` column and the URLs in its text), lower-case
  scheme and host without ``www.``, without a fragment, tracking parameters (``utm_*``,
  ``fbclid``, ``gclid``) or a trailing slash;
- **hashtag_set**: the sorted set of the record's hashtags (``record_hashtags``) when it has at
  least two.
"""
from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from corpuskit.text import analysis_text, find_urls
from corpuskit.text.patterns import URL_HINT

#: The shortest text (in words) that counts as an item for ``by="text"``.
MIN_TEXT_WORDS = 4
#: The fewest hashtags a record needs for its set to count as an item for ``by="hashtag_set"``.
MIN_HASHTAGS = 2
_TRACKING = re.compile(r"^(utm_\w+|fbclid|gclid|mc_cid|mc_eid|igshid|ref_src)$", re.I)
_NON_WORD = re.compile(r"[\W_]+")
_PLAIN = re.compile(r"[^@#\[&]*")


def text_key(title: str, text: str) -> str | None:
    """The normalised text of a record, or None when it is too short to be an item.

    Plain ASCII text (no markup, URL, handle, hashtag, entity or leading RT) skips the normaliser,
    whose every step would leave it as it is once punctuation is removed: the same key, faster.
    """
    body = text if not title or title == text else f"{title} {text}"
    if not (body.isascii() and _PLAIN.fullmatch(body) and not URL_HINT.search(body)
            and not body.startswith(("RT", "rt"))):
        body = analysis_text(body.replace("#", " ") if "#" in body else body)
    words = " ".join(_NON_WORD.sub(" ", body.lower()).split())
    return words if len(words.split()) >= MIN_TEXT_WORDS else None


def text_keys(titles, texts) -> list:
    """:func:`text_key` of many records at once (None where a record has no item).

    The plain ASCII texts (most of a large corpus) are keyed in pyarrow's vectorised string
    kernels, with the same steps :func:`text_key` takes on them; the others go through it one by one.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    if not len(texts):
        return []
    title = pc.fill_null(pa.array(titles, pa.large_string()), "")
    text = pc.fill_null(pa.array(texts, pa.large_string()), "")
    alone = pc.or_(pc.equal(title, ""), pc.equal(title, text))
    body = pc.if_else(alone, text, pc.binary_join_element_wise(title, text, pa.scalar(" ", pa.large_string())))
    plain = pc.and_(pc.string_is_ascii(body), pc.invert(pc.or_(
        pc.or_(pc.match_substring_regex(body, r"[@#\[&]"), pc.match_substring_regex(body, URL_HINT.pattern)),
        pc.or_(pc.starts_with(body, "RT"), pc.starts_with(body, "rt")))))
    words = pc.utf8_trim(pc.replace_substring_regex(pc.utf8_lower(body), r"[\W_]+", " "), " ")
    enough = pc.greater_equal(pc.count_substring(words, " "), MIN_TEXT_WORDS - 1)
    keys = pc.if_else(enough, words, pa.scalar(None, pa.large_string())).to_pylist()
    for i in pc.indices_nonzero(pc.invert(plain)).to_pylist():
        keys[i] = text_key(titles[i] or "", texts[i] or "")
    return keys


def url_key(url: str) -> str | None:
    """A URL without the parts that differ between shares of one page; None for no URL."""
    url = (url or "").strip()
    if not url:
        return None
    if "://" not in url:
        url = "http://" + url
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    host = (parts.hostname or "").lower()
    if host.startswith("www."):
        host = host[4:]
    if not host:
        return None
    query = urlencode(sorted((k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)
                             if not _TRACKING.match(k)))
    path = parts.path.rstrip("/")
    return urlunsplit(("", host, path, query, "")).lstrip("/")


def url_keys(url: str, title: str, text: str) -> list[str]:
    """The distinct URL keys of a record (its ``url`` column first, then its text's), in order."""
    out = []
    for raw in [url, *find_urls(title or ""), *find_urls(text or "")]:
        key = url_key(raw)
        if key and key not in out:
            out.append(key)
    return out
