"""Pseudonymising an export: authors become salted hashes; handles and profile links leave the text.

A :class:`Pseudonymiser` holds one salt. :meth:`~Pseudonymiser.pseudonym`
maps a name to ``u_`` + the first 16 hex digits of HMAC-SHA256(salt, name),
the name folded to lower case without a leading ``@`` (handles are
case-insensitive on the platforms that have them), so one account has one
pseudonym throughout an export, and another salt gives unrelated ones.

:meth:`~Pseudonymiser.text` rewrites free text:

* profile links (``twitter.com/NAME``, ``x.com/NAME``, ``reddit.com/u/NAME`` and
  ``/user/NAME``, ``bsky.app/profile/NAME``, ``t.me/NAME``, ``youtube.com/@NAME``,
  ``/c/NAME`` and ``/user/NAME``, and any ``https://HOST/@NAME`` as Mastodon
  instances write them): the name in the link becomes the pseudonym, the rest
  of the link (a status id, say) is kept;
* handles (``@NAME``, ``@NAME@instance``), not part of an e-mail address: they
  become ``@`` + the pseudonym; Reddit's ``u/NAME`` becomes ``u/`` + the pseudonym;
* a whole value equal to a known author (an entity named after an account,
  say) becomes the pseudonym.

:meth:`~Pseudonymiser.terms`, for labels and term lists derived from the text
(topic keywords, cluster terms, entity names), also replaces every word equal
to a known author's name.

Names written in the text without ``@`` are not detected. Platform ids
(``sourceId``, a status number in a link) are kept: they can be looked up on
the platform, so a pseudonymised export is not anonymous.
"""
from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets

_NAME = r"[A-Za-z0-9_][A-Za-z0-9_.\-]*[A-Za-z0-9_]|[A-Za-z0-9_]"
# (prefix kept, the name) for each form of profile link; reserved first path segments are not names
_RESERVED = {"i", "home", "search", "hashtag", "intent", "share", "explore", "settings", "watch", "channel",
             "results", "playlist", "shorts", "embed", "r", "comments", "s", "joinchat", "login", "about"}
_PROFILE = re.compile(
    r"(?P<prefix>https?://(?:[a-z0-9-]+\.)*"
    r"(?:(?:twitter\.com|x\.com|t\.me)/"
    r"|(?:reddit\.com)/(?:u|user)/"
    r"|bsky\.app/profile/"
    r"|(?:youtube\.com)/(?:c/|user/|@)"
    r"|[a-z0-9.-]+\.[a-z]{2,}/@))"
    r"(?P<name>" + _NAME + r")(?:@[a-z0-9.-]+\.[a-z]{2,})?",
    re.IGNORECASE)
_HANDLE = re.compile(r"(?<![\w@/.])@(?P<name>" + _NAME + r")(?:@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+)?")
# Reddit's way of naming an account in text: u/name or /u/name
_REDDIT_USER = re.compile(r"(?<![\w/.])(?P<prefix>/?u/)(?P<name>[A-Za-z0-9_\-]+)")


def new_salt() -> str:
    """A random salt (32 hex digits) for one export."""
    return secrets.token_hex(16)


class Pseudonymiser:
    """Salted pseudonyms for ``authors`` (the export's author names) and the text that names them."""

    def __init__(self, salt: str, authors=()):
        if not isinstance(salt, str) or not salt:
            from corpuskit.errors import ValidationError

            raise ValidationError("salt must be a non-empty string")
        self.salt = salt
        self._key = salt.encode("utf-8")
        self.authors = {self._fold(a) for a in authors if a and self._fold(a)}

    @staticmethod
    def _fold(name: str) -> str:
        return str(name).strip().lstrip("@").lower()

    def pseudonym(self, name: str) -> str:
        """``u_`` + 16 hex digits of HMAC-SHA256(salt, folded name)."""
        digest = hmac.new(self._key, self._fold(name).encode("utf-8"), hashlib.sha256).hexdigest()
        return "u_" + digest[:16]

    def author(self, value):
        """An author column's value: its pseudonym ('' and None stay as they are)."""
        return self.pseudonym(value) if value else value

    def _profile(self, m: re.Match) -> str:
        name = m.group("name")
        if name.lower() in _RESERVED:
            return m.group(0)
        return m.group("prefix") + self.pseudonym(name)

    def text(self, value: str) -> str:
        """``value`` with profile links, handles and a value equal to a known author pseudonymised."""
        if not value:
            return value
        if self._fold(value) in self.authors:
            return self.pseudonym(value)
        if "@" not in value and "/" not in value:
            return value
        value = _PROFILE.sub(self._profile, value)
        value = _REDDIT_USER.sub(lambda m: m.group("prefix") + self.pseudonym(m.group("name")), value)
        return _HANDLE.sub(lambda m: "@" + self.pseudonym(m.group("name")), value)

    def terms(self, value: str) -> str:
        """A label or term list derived from the text: :meth:`text`, then every word equal to a
        known author's name (``qbert-77`` in "grid, qbert-77, vote") becomes its pseudonym."""
        value = self.text(value)
        if not value or not self.authors:
            return value
        return _WORD.sub(lambda m: self.pseudonym(m.group(0)) if m.group(0).lower() in self.authors
                         else m.group(0), value)

    def json_text(self, value: str | None, terms: bool = False) -> str | None:
        """A JSON document with every string in it (keys kept) passed through :meth:`text` (or
        :meth:`terms`); values under a key that names an account (author, user, username,
        screen_name, handle, ...) become pseudonyms."""
        if value is None:
            return None
        step = self.terms if terms else self.text
        return json.dumps(self._walk(json.loads(value), None, step), ensure_ascii=False, sort_keys=True)

    def _walk(self, obj, key, step):
        if isinstance(obj, dict):
            return {k: self._walk(v, k, step) for k, v in obj.items()}
        if isinstance(obj, list):
            return [self._walk(v, key, step) for v in obj]
        if isinstance(obj, str):
            if key is not None and _ACCOUNT_KEY.search(str(key)):
                return self.author(obj)
            return step(obj)
        return obj


_WORD = re.compile(r"[\w][\w.\-]*[\w]|\w")
_ACCOUNT_KEY = re.compile(r"author|user|screen_?name|handle|username|account|owner|channel|did\b|profile",
                          re.IGNORECASE)
