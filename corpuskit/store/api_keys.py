"""API keys: created once, stored as a SHA-256 hash, compared in constant time.

A key is ``<prefix><43 url-safe characters>``; the prefix is ``ck_`` unless
the caller passes another (``server.py`` and the ``corpuskit`` command take it
from ``CORPUSKIT_KEY_PREFIX``). Tiers carry default limits
(free 5/minute and 100/day, research 60/minute and 5,000/day); an enterprise
key takes its limits at creation.
"""
from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass

from corpuskit.clock import iso, wall_clock
from corpuskit.errors import KeyStoreError

TIERS = {
    "free": (5, 100),
    "research": (60, 5000),
    "enterprise": (600, 100000),
}
_PREFIX_RE = re.compile(r"^[A-Za-z0-9_\-]{1,16}$")


#: the prefix of every key unless another is configured
DEFAULT_KEY_PREFIX = "ck_"


def key_prefix(prefix: str = DEFAULT_KEY_PREFIX) -> str:
    """``prefix``, checked: 1-16 letters, digits, ``_`` or ``-`` (the ``CORPUSKIT_KEY_PREFIX`` setting)."""
    if not isinstance(prefix, str) or not _PREFIX_RE.match(prefix):
        raise KeyStoreError(f"CORPUSKIT_KEY_PREFIX {prefix!r} must be 1-16 letters, digits, _ or -")
    return prefix


def hash_key(key: str) -> str:
    """The stored form of a key."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class KeyInfo:
    """What the store knows about a key (never the key itself)."""

    id: int
    name: str
    prefix: str
    tier: str
    per_minute: int
    per_day: int
    created_at: str
    last_used_at: str | None
    revoked_at: str | None

    @property
    def active(self) -> bool:
        return self.revoked_at is None


def _info(row) -> KeyInfo:
    return KeyInfo(row["id"], row["name"], row["prefix"], row["tier"], row["per_minute"],
                   row["per_day"], row["created_at"], row["last_used_at"], row["revoked_at"])


def create_key(conn, tier: str = "free", name: str = "", per_minute: int | None = None,
               per_day: int | None = None, now=None, prefix: str = DEFAULT_KEY_PREFIX) -> str:
    """Create a key starting with ``prefix`` and return it. Only its hash is stored."""
    if tier not in TIERS:
        raise KeyStoreError(f"unknown tier {tier!r}; expected free, research or enterprise")
    default_minute, default_day = TIERS[tier]
    if tier != "enterprise" and (per_minute is not None or per_day is not None):
        raise KeyStoreError("--per-minute and --per-day are set only for enterprise keys")
    per_minute = default_minute if per_minute is None else per_minute
    per_day = default_day if per_day is None else per_day
    for value, label in ((per_minute, "per-minute"), (per_day, "per-day")):
        if not isinstance(value, int) or value < 1:
            raise KeyStoreError(f"{label} limit must be a positive integer, not {value!r}")
    prefix = key_prefix(prefix)
    key = prefix + secrets.token_urlsafe(32)
    conn.execute(
        "INSERT INTO api_keys(name, prefix, key_hash, tier, per_minute, per_day, created_at) "
        "VALUES (?,?,?,?,?,?,?)",
        (name, key[: len(prefix) + 4], hash_key(key), tier, per_minute, per_day,
         iso(now or wall_clock())),
    )
    return key


def list_keys(conn) -> list[KeyInfo]:
    """Every key, oldest first."""
    return [_info(r) for r in conn.execute("SELECT * FROM api_keys ORDER BY id")]


def revoke_key(conn, ident: str, now=None) -> KeyInfo:
    """Revoke a key by numeric id, name, or the key itself."""
    row = None
    if ident.isdigit():
        row = conn.execute("SELECT * FROM api_keys WHERE id = ?", (int(ident),)).fetchone()
    if row is None:
        row = conn.execute("SELECT * FROM api_keys WHERE key_hash = ?", (hash_key(ident),)).fetchone()
    if row is None:
        rows = conn.execute("SELECT * FROM api_keys WHERE name = ?", (ident,)).fetchall()
        if len(rows) > 1:
            raise KeyStoreError(f"{len(rows)} keys are named {ident!r}; revoke by id")
        row = rows[0] if rows else None
    if row is None:
        raise KeyStoreError(f"no key matches {ident!r}")
    conn.execute("UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?) WHERE id = ?",
                 (iso(now or wall_clock()), row["id"]))
    return _info(conn.execute("SELECT * FROM api_keys WHERE id = ?", (row["id"],)).fetchone())


def has_keys(conn) -> bool:
    """Whether any key (even revoked) was ever configured."""
    return conn.execute("SELECT 1 FROM api_keys LIMIT 1").fetchone() is not None


def lookup_key(conn, key: str) -> KeyInfo | None:
    """The active key matching ``key``, or None. Constant-time on the hash."""
    if not key or len(key) > 256:
        return None
    digest = hash_key(key)
    row = conn.execute("SELECT * FROM api_keys WHERE key_hash = ?", (digest,)).fetchone()
    if row is None or not hmac.compare_digest(row["key_hash"], digest) or row["revoked_at"]:
        return None
    return _info(row)
