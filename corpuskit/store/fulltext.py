"""The full-text index: an FTS5 table over the records, kept in step with ``records``.

``records_fts`` (migration 0009) has one row per record, its rowid the record's id, and three columns:

- ``title``: the title as :func:`corpuskit.text.display_text` gives it (or as stored when that yields
  the same tokens: ASCII text without ``&``);
- ``body``: the text, likewise (URLs, @handles and #hashtags stay, so ``#PfizerBioNTech`` is indexed
  as the token ``pfizerbiontech`` and ``@BioNTech_Group`` as ``biontech group``);
- ``tags``: every #hashtag and @handle of title and text as written, then its parts as the normaliser's
  hashtag segmenter splits it (``#PfizerBioNTech`` -> ``Pfizer BioNTech``), so ``pfizer`` finds it.

Non-ASCII text is folded first by :func:`corpuskit.text.folding.search_fold` (NFKC, case folding so that
``ß`` is ``ss``, diacritics removed), the folding the query compiler applies to every word, KWIC to its
matches and keyness to its terms. Chinese and Japanese are written without spaces, where the tokenizer
would read a whole clause as one token: each run of Han or kana is indexed as its overlapping character
pairs and its last character (``コウメ太夫`` -> ``コウ ウメ メ太 太夫 夫``), and a query word in those
scripts is the phrase of its pairs, so ``太夫`` finds every record holding it inside a clause (a
substring match, the scheme of Lucene's CJK analyzer; measured in ``benchmarks/bench_languages.py``).
The tokenizer is ``unicode61 remove_diacritics 2``: Unicode-aware,
case-folded, diacritics removed ("Sahin" finds "Şahin", "strasse" finds "Straße"). It is a regular FTS5 table that stores its own copy of these columns: the
stdlib ``sqlite3`` ships SQLite 3.40, older than the ``contentless_delete`` option (3.43), and a
contentless or external-content table can only forget a row when given back the exact values it
indexed, which a Python normaliser (whose word lists may change between versions) cannot promise.
A regular table deletes by rowid, so the triggers of migration 0009 keep it in step on every delete
and update, made by corpuskit or by any other SQLite client; the copy costs disk space (measured in
``benchmarks/bench_import_index.py``).

Rows are added by the import paths (the staging table computes the columns before the write lock is
taken, see :mod:`corpuskit.ingest.staging`) and by :func:`sync`, which indexes any record that has no
index row yet (collectors, records written by other tools, records whose text was updated).
"""
from __future__ import annotations

#: The FTS5 table.
TABLE = "records_fts"
#: Its columns, in order.
COLUMNS = ("title", "body", "tags")
_BATCH = 2000


def _tags(text: str, language=None) -> str:
    if "#" not in text and "@" not in text:
        return ""
    # imported here: ``corpuskit.text`` loads scikit-learn, which the read layer must not pull in
    from corpuskit.text.hashtags import segment_hashtag
    from corpuskit.text.patterns import HANDLE, HASHTAG

    written, parts = [], []
    for match in HASHTAG.finditer(text):
        written.append("#" + match.group(1))
        parts.extend(segment_hashtag(match.group(1), language=language))
    for match in HANDLE.finditer(text):
        # a handle is found by its case parts too: baerbock finds @ABaerbock
        written.append("@" + match.group(1))
        parts.extend(segment_hashtag(match.group(1), language=language))
    return " ".join(written + parts)


def _indexed(text) -> str:
    """``display_text(text)``, or ``text`` itself when the tokenizer would read the same tokens from it.

    For ASCII text with no ``&`` the display form differs only in whitespace and control characters,
    which the tokenizer treats as separators either way; skipping it makes indexing cheaper.
    """
    if text is None:
        return ""
    text = str(text)
    if text.isascii() and "&" not in text:
        return text
    from corpuskit.text.normalise import display_text

    return display_text(text)


def document(title, text, language=None) -> tuple[str, str, str]:
    """The ``(title, body, tags)`` values indexed for a record with this title, text and language (the
    language decides whether a one-case hashtag may be cut with a word list, see ``segment_hashtag``)."""
    title, body = _indexed(title), _indexed(text)
    tags = _tags(title + " \n " + body, language)
    return _folded(title), _folded(body), _folded(tags)


def _folded(text: str) -> str:
    """Non-ASCII text as :func:`~corpuskit.text.folding.search_fold` gives it (``Straße``: ``strasse``),
    the form every query word is folded to, with Chinese and Japanese runs as overlapping character
    pairs (:func:`~corpuskit.text.unicode.cjk_pairs`); ASCII text as it is (the tokenizer folds its case)."""
    if text.isascii():
        return text
    from corpuskit.text.folding import search_fold
    from corpuskit.text.unicode import cjk_pairs

    return cjk_pairs(search_fold(text), tail=True)


def index_rows(conn, rows) -> int:
    """Index ``(id, title, text)`` or ``(id, title, text, language)`` rows (ids not yet in the index);
    returns how many."""
    n = 0
    batch = []
    for rid, title, text, *language in rows:
        batch.append((rid, *document(title, text, *language)))
        if len(batch) >= _BATCH:
            n += _insert(conn, batch)
            batch = []
    return n + _insert(conn, batch)


def _insert(conn, batch) -> int:
    if batch:
        conn.executemany(f"INSERT INTO main.{TABLE} (rowid, title, body, tags) VALUES (?, ?, ?, ?)", batch)
    return len(batch)


def missing_ids(conn, after: int = 0) -> list[int]:
    """Ids (above ``after``) of records with no index row, ascending."""
    return [r[0] for r in conn.execute(
        f"SELECT id FROM main.records WHERE id > ? AND id NOT IN "
        f"(SELECT id FROM main.{TABLE}_content WHERE id > ?) ORDER BY id", (after, after))]


def sync(conn, after: int = 0) -> int:
    """Index every record (with id above ``after``) that has no index row yet; returns how many.

    Call inside a transaction.
    """
    ids = missing_ids(conn, after)
    if not ids:
        return 0
    n = 0
    for start in range(0, len(ids), _BATCH):
        chunk = ids[start:start + _BATCH]
        rows = conn.execute("SELECT id, title, content_text, language FROM main.records WHERE id IN "
                            "(SELECT value FROM json_each(?)) ORDER BY id", (_json(chunk),)).fetchall()
        n += index_rows(conn, [tuple(r) for r in rows])
    return n


def reindex_tags(conn, ids) -> int:
    """Index again the records ``ids`` that hold a #hashtag or @handle (their language, which decides how
    a one-case tag is split, was just found); returns how many. Call inside a transaction."""
    stale = [r[0] for r in conn.execute(
        "SELECT id FROM main.records WHERE id IN (SELECT value FROM json_each(?)) AND "
        "(instr(coalesce(title, '') || coalesce(content_text, ''), '#') > 0 OR "
        "instr(coalesce(title, '') || coalesce(content_text, ''), '@') > 0) ORDER BY id", (_json(ids),))]
    if not stale:
        return 0
    conn.execute(f"DELETE FROM main.{TABLE} WHERE rowid IN (SELECT value FROM json_each(?))", (_json(stale),))
    return sync(conn, after=stale[0] - 1)


def rebuild(conn) -> int:
    """Empty the index and index every record again; returns how many. Call inside a transaction."""
    conn.execute(f"DELETE FROM main.{TABLE}")
    return sync(conn)


def _json(ids) -> str:
    return "[" + ",".join(str(int(i)) for i in ids) + "]"
