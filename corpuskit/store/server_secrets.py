"""Secrets a server keeps in the corpus's ``meta`` table (the ``/v1`` id and cursor keys).

Each is written once, by whichever process asks first (``INSERT OR IGNORE``: a
second writer keeps the first one's value), and only read after that, so a
server's reads never wait for a writer once its secrets exist.
"""
from __future__ import annotations


def stored_secret(conn, meta_key: str, make) -> str:
    """The ``meta`` value under ``meta_key``; stored as ``make()`` (a new secret, as stored JSON
    text) first when there is none."""
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (meta_key,)).fetchone()
    if row is None:  # write only the first time: a read must not wait for another writer
        conn.execute("INSERT OR IGNORE INTO meta(key, value) VALUES (?, ?)", (meta_key, make()))
        row = conn.execute("SELECT value FROM meta WHERE key = ?", (meta_key,)).fetchone()
    return row[0]
