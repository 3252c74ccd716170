"""The key store: shown once, stored hashed, tiers, revocation."""
import pytest

from corpuskit.errors import KeyStoreError
from corpuskit.store import api_keys


def test_create_stores_only_a_hash(corpus):
    key = api_keys.create_key(corpus.conn, tier="free", name="alice")
    assert key.startswith("ck_") and len(key) > 40
    stored = [tuple(r) for r in corpus.conn.execute("SELECT * FROM api_keys")]
    assert all(key not in str(row) for row in stored)
    info = api_keys.lookup_key(corpus.conn, key)
    assert (info.tier, info.per_minute, info.per_day, info.name) == ("free", 5, 100, "alice")


def test_tiers_and_enterprise_limits(corpus):
    research = api_keys.lookup_key(corpus.conn, api_keys.create_key(corpus.conn, tier="research"))
    assert (research.per_minute, research.per_day) == (60, 5000)
    ent = api_keys.lookup_key(corpus.conn, api_keys.create_key(corpus.conn, tier="enterprise",
                                                               per_minute=1000, per_day=9))
    assert (ent.per_minute, ent.per_day) == (1000, 9)


@pytest.mark.parametrize("kwargs, message", [
    ({"tier": "gold"}, "unknown tier"),
    ({"tier": "free", "per_minute": 50}, "only for enterprise"),
    ({"tier": "enterprise", "per_minute": 0}, "positive integer"),
])
def test_bad_creation(corpus, kwargs, message):
    with pytest.raises(KeyStoreError, match=message):
        api_keys.create_key(corpus.conn, **kwargs)


def test_unknown_and_revoked_keys_do_not_resolve(corpus):
    key = api_keys.create_key(corpus.conn, name="bob")
    assert api_keys.lookup_key(corpus.conn, "ck_wrong") is None
    assert api_keys.lookup_key(corpus.conn, "") is None
    assert api_keys.lookup_key(corpus.conn, "x" * 10000) is None
    api_keys.revoke_key(corpus.conn, "bob")
    assert api_keys.lookup_key(corpus.conn, key) is None
    assert api_keys.has_keys(corpus.conn)
    with pytest.raises(KeyStoreError, match="no key matches"):
        api_keys.revoke_key(corpus.conn, "nobody")


def test_revoke_by_id_and_by_key(corpus):
    k1 = api_keys.create_key(corpus.conn)
    k2 = api_keys.create_key(corpus.conn)
    api_keys.revoke_key(corpus.conn, "1")
    api_keys.revoke_key(corpus.conn, k2)
    assert api_keys.lookup_key(corpus.conn, k1) is None and api_keys.lookup_key(corpus.conn, k2) is None


def test_configurable_prefix(corpus):
    assert api_keys.create_key(corpus.conn, prefix="lab_").startswith("lab_")
    with pytest.raises(KeyStoreError, match="CORPUSKIT_KEY_PREFIX"):
        api_keys.create_key(corpus.conn, prefix="bad prefix!")
