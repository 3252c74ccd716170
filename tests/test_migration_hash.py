"""Migration 0007 writes content keys with its own frozen hash, which still equals the importer's."""
from corpuskit.ingest.records import content_hash
from corpuskit.store.schema import migration_0007_content_hash

ROWS = [
    ("reddit", "ada", "A title", "Some text about widgets.", "2024-03-01T12:00:00Z"),
    ("hackernews", "", "", "No author, no title.", "2015-06-30T23:59:59Z"),
    ("bluesky", None, None, None, "2026-01-01T00:00:00Z"),
    ("news", "Zoë", "Ünïcode ☃", "Text with\x1fa separator and\nnewlines.", "2020-02-29T06:07:08Z"),
]


def test_frozen_hash_equals_importer_hash():
    for row in ROWS:
        assert migration_0007_content_hash(*row) == content_hash(*row)


def test_frozen_hash_known_value():
    # Pinned: a change to the frozen copy would rewrite old files differently.
    assert migration_0007_content_hash(*ROWS[0]) == "4f285f9cf9e93c766bdf9ab28f7a0f81"
