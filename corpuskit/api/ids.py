"""Opaque, stable identifiers for ``/v1``: ``rec_…``, ``sto_…``, ``sig_…``, ``top_…``, ``ent_…``, ``arc_…``.

An id is ``<kind>_<token>``: the token is base32 of the 64-bit integer key
passed through a keyed 4-round Feistel permutation (per corpus and kind),
followed by a 5-byte keyed tag.
The same row always has the same id in the same corpus file, the integer is
never visible, and a malformed, tampered, foreign or wrong-kind id decodes to
``None`` (the handler then answers 404).
"""
from __future__ import annotations

import base64
import binascii
import functools
import hashlib
import hmac
import re
import secrets
import threading
import weakref

from corpuskit.errors import StoreError
from corpuskit.store.server_secrets import stored_secret

KINDS = ("rec", "sto", "sig", "top", "ent", "arc")
_SECRET_META_KEY = "api_id_secret"
# 13 bytes are 104 bits: the 21st base32 character carries 4 bits and a zero pad bit, so it is
# one of the 16 even-valued characters; any other last character would decode to the same id.
_TOKEN_RE = re.compile(r"^[a-z2-7]{20}[acegikmoqsuwy246]$")
_TAG_BYTES = 5
_secrets: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()   # corpus -> {meta key: secret}
_lock = threading.Lock()


def corpus_secret(corpus, meta_key: str = _SECRET_META_KEY) -> bytes:
    """The corpus's API secret named ``meta_key`` (created and stored in ``meta`` on first use)."""
    cache = _secrets.get(corpus)
    if cache is not None:
        value = cache.get(meta_key)
        if value is not None:
            return value
    with _lock:
        stored = stored_secret(corpus.conn, meta_key, lambda: '"' + secrets.token_hex(32) + '"')
        value = bytes.fromhex(stored.strip('"'))
        _secrets.setdefault(corpus, {})[meta_key] = value
    return value


def prepare_secrets(corpus, *meta_keys: str) -> None:
    """Make the secrets named ``meta_keys`` (default: the id secret) now, before serving.

    Created on first use instead, the first request needing one had to write
    the corpus and so waited for any import or stage holding its write lock (and
    answered 500 ``database is locked`` past the busy timeout). Raises
    :class:`~corpuskit.errors.StoreError` when another process holds the lock
    past the corpus's timeout.
    """
    for meta_key in meta_keys or (_SECRET_META_KEY,):
        try:
            corpus_secret(corpus, meta_key)
        except Exception as exc:  # sqlite3's or sqlean's OperationalError
            if "locked" not in str(exc) and "busy" not in str(exc):
                raise
            raise StoreError(f"cannot prepare {corpus.path} for serving ({exc}): another process is "
                             "writing it; start the server again when it is done") from exc


def _round(secret: bytes, kind: str, i: int, half: int) -> int:
    digest = hashlib.blake2b(half.to_bytes(4, "big"), digest_size=4, key=secret[:32],
                             person=f"{kind}{i}".encode()[:16]).digest()
    return int.from_bytes(digest, "big")


def _permute(secret: bytes, kind: str, value: int, inverse: bool = False) -> int:
    left, right = value >> 32, value & 0xFFFFFFFF
    rounds = range(3, -1, -1) if inverse else range(4)
    for i in rounds:
        if inverse:
            left, right = right ^ _round(secret, kind, i, left), left
        else:
            left, right = right, left ^ _round(secret, kind, i, right)
    return (left << 32) | right


def _tag(secret: bytes, kind: str, payload: bytes) -> bytes:
    return hmac.new(secret, kind.encode() + b"|" + payload, hashlib.sha256).digest()[:_TAG_BYTES]


def encode_id(corpus, kind: str, int_id: int) -> str:
    """The opaque id of row ``int_id`` of ``kind`` (one of :data:`KINDS`)."""
    if kind not in KINDS:
        raise ValueError(f"unknown id kind {kind!r}")
    return _encode(corpus_secret(corpus), kind, int(int_id))


@functools.lru_cache(maxsize=200_000)
def _encode(secret: bytes, kind: str, int_id: int) -> str:
    payload = _permute(secret, kind, int_id).to_bytes(8, "big", signed=False)
    token = base64.b32encode(payload + _tag(secret, kind, payload)).decode("ascii").rstrip("=").lower()
    return f"{kind}_{token}"


def decode_id(corpus, kind: str, text) -> int | None:
    """The integer behind an id of ``kind``, or None when it is not one of ours."""
    if not isinstance(text, str) or len(text) != len(kind) + 22 or not text.startswith(kind + "_"):
        return None
    token = text[len(kind) + 1:]
    if not _TOKEN_RE.match(token):
        return None
    try:
        blob = base64.b32decode(token.upper() + "===")
    except (binascii.Error, ValueError):
        return None
    payload, tag = blob[:8], blob[8:]
    secret = corpus_secret(corpus)
    if not hmac.compare_digest(tag, _tag(secret, kind, payload)):
        return None
    return _permute(secret, kind, int.from_bytes(payload, "big"), inverse=True)
