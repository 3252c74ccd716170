"""The reproducibility manifest: what produced a corpus's tables.

``build_manifest(corpus)`` (``Corpus.manifest()``, ``corpuskit manifest --db``)
answers, as a JSON-serialisable dict:

* ``records``: the record count and ``contentDigest``, a SHA-256 over every
  record's fields (source, sourceId, contentType, title, contentText, url,
  author, publishedAt, subreddit, language, topic hint, metadata) in a fixed
  order. ``capturedAt`` is left out: it is when a copy was made, not what it
  says, so importing the same file twice gives the same digest.
* ``tables``: per derived table, its row count and a digest of the columns
  that carry results (scores, labels, terms, headlines, texts), never run ids
  or wall-clock times, so rerunning the same stages with the same settings on
  the same records gives the same digests.
* ``stages``: each stage's last run: ``id, status, settings, model,
  startedAt, finishedAt``, ``packages``, the versions that run used, and
  ``numeric``, the numeric environment it ran under (as :func:`numeric_environment`:
  the BLAS and OpenMP libraries its process had loaded, with their kernel and thread
  counts), both recorded when the run started and again when it ended; None for
  runs made before corpuskit recorded them.
* ``models``: the fitted models stored with the corpus (the embedder...):
  ``name, model, dimensions, settings, runId``.
* ``topicEdits``: the researcher's topic edits (merge, rename, reassign_outliers), oldest first,
  each with the corpus clock when it was made (:mod:`corpuskit.enrich.topic_edits`).
* ``environment``: the versions installed now (corpuskit, numpy, pandas,
  scikit-learn, hdbscan, sqlite-vec, python, SQLite) and ``numeric``: the numeric
  environment of this process (:func:`numeric_environment` with the stages' libraries
  loaded): numpy, scipy, scikit-learn and threadpoolctl versions, the CPU (machine,
  processor name, CPU counts), and each BLAS and OpenMP library with its
  ``internalApi``, ``version``, ``architecture`` (kernel), ``threadingLayer`` and
  ``numThreads``. Library file names only, never their directories.

The environment, like paths and run times, is not part of :func:`manifest_digest`: the
same tables made under two BLAS kernels have the same digest, and two different tables
have different digests whatever produced them (``corpuskit compare`` says how they differ).
* ``clock``: the corpus clock and its mode.
"""
from __future__ import annotations

import hashlib
import json
from typing import NamedTuple

# the environment a run records, here under the names the manifest always had
from corpuskit.store.environment import (  # noqa: F401
    NUMERIC_PACKAGES, PACKAGES, numeric_environment, package_versions, run_environment)


class TableDigest(NamedTuple):
    """How one table is digested and compared: ``sql`` selects its result columns in key order,
    ``columns`` names them (as the DataFrames do) and the first ``keys`` columns identify a row
    (what :mod:`corpuskit.compare` matches the rows of two corpora by)."""

    sql: str
    columns: tuple[str, ...]
    keys: int


# Each derived table's digest covers these result columns, in this row order (its key first).
TABLE_DIGESTS = {
    "enrichment": TableDigest(
        "SELECT e.record_id, round(e.sentiment_score, 6), e.sentiment_label, t.name, e.themes "
        "FROM enrichment e LEFT JOIN topics t ON t.id = e.topic_id ORDER BY e.record_id",
        ("recordId", "sentimentScore", "sentimentLabel", "topic", "themes"), keys=1),
    "topics": TableDigest(
        "SELECT name, display_name, category, keywords, discovered FROM topics ORDER BY name",
        ("name", "displayName", "category", "keywords", "discovered"), keys=1),
    "topic_assignments": TableDigest(
        "SELECT ta.record_id, t.name, round(ta.confidence, 6) FROM topic_assignments ta "
        "JOIN topics t ON t.id = ta.topic_id ORDER BY ta.record_id, t.name",
        ("recordId", "topic", "confidence"), keys=2),
    "entities": TableDigest(
        "SELECT slug, name, type, mention_count, first_seen, last_seen FROM entities ORDER BY slug",
        ("slug", "name", "type", "mentionCount", "firstSeen", "lastSeen"), keys=1),
    "mentions": TableDigest(
        "SELECT m.record_id, en.slug, m.surface, m.mention_count, m.positions FROM mentions m "
        "JOIN entities en ON en.id = m.entity_id ORDER BY m.record_id, en.slug",
        ("recordId", "entity", "surface", "mentionCount", "positions"), keys=2),
    "clusters": TableDigest(
        "SELECT t.name, c.cluster_label, c.record_count, c.top_terms, c.summary_label FROM clusters c "
        "JOIN topics t ON t.id = c.topic_id WHERE c.run_id = (SELECT run_id FROM clusters "
        "ORDER BY id DESC LIMIT 1) ORDER BY t.name, c.cluster_label",
        ("topic", "clusterLabel", "recordCount", "topTerms", "summaryLabel"), keys=2),
    "signals": TableDigest(
        "SELECT signal_key, kind, severity, round(sigma_score, 4), headline, detected_at, status, "
        "resolved_at FROM signals ORDER BY signal_key",
        ("signalKey", "kind", "severity", "sigmaScore", "headline", "detectedAt", "status", "resolvedAt"),
        keys=1),
    "snapshots": TableDigest(
        "SELECT t.name, s.date, s.total_records, s.volume_by_source, s.sentiment_positive, "
        "s.sentiment_neutral, s.sentiment_negative, round(s.avg_sentiment, 6), s.platform_count, "
        "s.top_entities, s.signal_count FROM snapshots s JOIN topics t ON t.id = s.topic_id "
        "ORDER BY t.name, s.date",
        ("topic", "date", "totalRecords", "volumeBySource", "sentimentPositive", "sentimentNeutral",
         "sentimentNegative", "avgSentiment", "platformCount", "topEntities", "signalCount"), keys=2),
    "observations": TableDigest(
        "SELECT observation_key, type, severity, headline, observed_at FROM observations "
        "ORDER BY observation_key",
        ("observationKey", "type", "severity", "headline", "observedAt"), keys=1),
    "stories": TableDigest(
        "SELECT story_key, version, kind, headline, lede, body, publish_at FROM stories "
        "WHERE is_current = 1 ORDER BY story_key",
        ("storyKey", "version", "kind", "headline", "lede", "body", "publishAt"), keys=1),
}

#: The records' ``contentDigest``. Their key, ``(source, sourceId)``, is not unique for records
#: imported without a sourceId (``""`` here): :mod:`corpuskit.compare` matches those as whole rows.
RECORDS_DIGEST = TableDigest(
    "SELECT source, coalesce(source_id, ''), content_type, title, content_text, url, author, published_at, "
    "coalesce(subreddit, ''), language, coalesce(topic, ''), metadata FROM records "
    "ORDER BY source, coalesce(source_id, ''), content_hash, published_at",
    ("source", "sourceId", "contentType", "title", "contentText", "url", "author", "publishedAt",
     "subreddit", "language", "topic", "metadata"), keys=2)


def encode_row(row) -> str:
    """A row as the canonical JSON :func:`digest_rows` hashes (two rows are equal when these are)."""
    return json.dumps(list(row), ensure_ascii=False, separators=(",", ":"), default=str)


def digest_rows(rows) -> str:
    """SHA-256 (hex) of rows, each encoded as canonical JSON (:func:`encode_row`) on its own line."""
    h = hashlib.sha256()
    for row in rows:
        h.update(encode_row(row).encode())
        h.update(b"\n")
    return h.hexdigest()


def _digest(conn, sql: str) -> tuple[int, str]:
    rows = conn.execute(sql).fetchall()
    return len(rows), digest_rows(tuple(r) for r in rows)


def language_summary(conn) -> dict:
    """Records per language code (``und``: undetermined), the share in a known language other than
    English, the enriched records each English-only step skipped (NULL sentiment, no mentions), and
    per language what each of those steps scored and skipped (``coverage``)."""
    from corpuskit.enrich.pipeline import language_counts, language_coverage, non_english_share

    records = language_counts(conn)
    skipped = conn.execute("SELECT count(*) - count(sentiment_score), coalesce(sum(entities_skipped), 0) "
                           "FROM enrichment").fetchone()
    return {"records": records, "nonEnglishShare": non_english_share(records),
            "skipped": {"sentiment": skipped[0], "entities": skipped[1]},
            "coverage": language_coverage(conn)}


def build_manifest(corpus) -> dict:
    """The manifest of ``corpus`` (see the module docstring)."""
    conn = corpus.conn
    count, content = _digest(conn, RECORDS_DIGEST.sql)
    tables = {}
    for name, spec in TABLE_DIGESTS.items():
        n, digest = _digest(conn, spec.sql)
        tables[name] = {"rows": n, "digest": digest}
    stages = {}
    for row in conn.execute(
            "SELECT id, stage, status, settings, model, started_at, finished_at FROM runs "
            "ORDER BY started_at, rowid"):
        packages = corpus.get_meta(f"versions:{row[0]}")
        numeric = packages.pop("numeric", None) if isinstance(packages, dict) else None
        stages[row[1]] = {"id": row[0], "status": row[2], "settings": json.loads(row[3] or "{}"),
                          "model": row[4], "startedAt": row[5], "finishedAt": row[6],
                          "packages": packages, "numeric": numeric}
    return {
        "corpus": str(corpus.path),
        "records": {"count": count, "contentDigest": content},
        "tables": tables,
        "stages": dict(sorted(stages.items())),
        "models": [{"name": r[0], "model": r[1], "dimensions": r[2], "settings": json.loads(r[3] or "{}"),
                    "runId": r[4]} for r in conn.execute(
            "SELECT name, kind, dimensions, settings, run_id FROM models ORDER BY name")],
        "languages": language_summary(conn),
        "topicEdits": _topic_edits(corpus),
        "environment": {**package_versions(), "numeric": numeric_environment(load=True)},
        "clock": {"now": corpus.now().strftime("%Y-%m-%dT%H:%M:%SZ"), "mode": corpus.clock_mode},
    }


# -- citing --------------------------------------------------------------------------------------
#: How the tool is cited; CITATION.cff at the top of the repository says the same (a test checks).
CITATION_TITLE = "corpuskit: a research toolkit for corpora of public discourse"
CITATION_AUTHOR = "corpuskit contributors"
CITATION_LICENSE = "MIT"
CITATION_RELEASED = "2026-11-25"


def manifest_digest(manifest: dict) -> str:
    """SHA-256 (hex) of what a manifest says about the corpus's content: the record count and
    content digest and every derived table's rows and digest. Paths, run times and the
    environment are left out, so the same records and results give the same digest anywhere."""
    content = {"records": manifest["records"], "tables": manifest["tables"]}
    return digest_rows([[json.dumps(content, sort_keys=True, separators=(",", ":"))]])


def citation(corpus) -> dict:
    """How to cite corpuskit for work on ``corpus``: ``version``, ``manifestDigest`` (see
    :func:`manifest_digest`), ``apa`` and ``bibtex`` (both naming the version and the digest)."""
    from corpuskit.version import __version__

    digest = manifest_digest(build_manifest(corpus))
    year = CITATION_RELEASED[:4]
    apa = (f"{CITATION_AUTHOR} ({year}). {CITATION_TITLE} (Version {__version__}) [Computer software]. "
           f"Corpus manifest digest: {digest}.")
    bibtex = "\n".join([
        f"@software{{corpuskit_{__version__.replace('.', '_')},",
        f"  author  = {{{{{CITATION_AUTHOR}}}}},",
        f"  title   = {{{{{CITATION_TITLE}}}}},",
        f"  version = {{{__version__}}},",
        f"  year    = {{{year}}},",
        f"  license = {{{CITATION_LICENSE}}},",
        f"  note    = {{Corpus manifest digest {digest}}}",
        "}"])
    return {"version": __version__, "manifestDigest": digest, "apa": apa, "bibtex": bibtex}


def _topic_edits(corpus) -> list:
    # imported here: ``corpuskit.enrich`` loads scikit-learn (about a second), and every stage
    # run imports this module for :func:`package_versions`, a file import too
    from corpuskit.enrich.topic_edits import recorded_edits

    return recorded_edits(corpus)
