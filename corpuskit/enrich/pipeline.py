"""The enrichment stage: sentiment, entities, topics and embeddings for every record.

Incremental: only records without an ``enrichment`` row are processed, with
the embedder and beat centroids saved by the first run. ``refit=True``
refits the embedder (and the beats) and re-enriches everything. Records are
processed in chunks, each written in one transaction, so an interruption keeps
the finished chunks and leaves nothing half-written; the next run resumes.
Pending records are read chunk by chunk, a bounded number ahead of the writer,
and the models are fitted on at most ``FIT_SAMPLE`` records (a seeded sample of
a bigger corpus), so memory stays flat in the corpus size. With ``client=`` the
chunks are scored on a Dask cluster (:mod:`corpuskit.enrich.distributed`).
"""
from __future__ import annotations

import json
import multiprocessing
import os
import time
from collections import deque
from concurrent.futures import ProcessPoolExecutor

import numpy as np
from threadpoolctl import threadpool_limits

from corpuskit.clock import iso
from corpuskit.enrich.base import Embedder, record_text
from corpuskit.enrich.corpus_priors import adjust_to_corpus_priors, check_scorer
from corpuskit.enrich.defaults import default_assigner, default_embedder, make_extractor, make_scorer
from corpuskit.enrich.embeddings import VECTOR_DIMENSIONS, embedder_from_state, embedding_text
from corpuskit.enrich.language import UNDETERMINED, covers, default_detector
from corpuskit.query.name_keys import alias_key
from corpuskit.enrich.lineages import match_lineages
from corpuskit.enrich.resolve import apply_alias_file, record_hashtags, resolve_entities
from corpuskit.enrich.settings import FIT_SAMPLE, EnrichSettings
from corpuskit.enrich.topic_edits import apply_edits
from corpuskit.enrich.topics import (Beat, BeatAssigner, SeedTopic, beats_from_rows, discover_beats, load_beats,
                                     load_seed_words)
from corpuskit.enrich.workers import die_with_parent
from corpuskit.errors import ValidationError
from corpuskit.store import fulltext
from corpuskit.text import analysis_text
from corpuskit.text.stopwords import corpus_languages, vocabulary_languages

VERSION_KEY = "enrich.version"
#: meta key holding how the last discovery chose its topics (k and its table, merges, kept identities)
DISCOVERY_KEY = "topics.discovery"
#: meta key of the seed topics discovery was guided by (``[{"words", "label"}]``)
SEEDS_KEY = "topics.seed_words"
#: records fetched ahead of the writer for the worker pool, at most
LOOKAHEAD_RECORDS = 64_000
_TOPIC_COLUMNS = ("name", "display_name", "description", "category", "keywords", "subreddits",
                  "active", "discovered")


def _load_blas() -> None:
    """Import the libraries that bring their own BLAS, so ``threadpool_limits`` can reach them."""
    import scipy.linalg  # noqa: F401
    import sklearn.decomposition  # noqa: F401


def _fetch(conn, ids=None):
    sql = "SELECT id, title, content_text, subreddit, published_at, language, author, source FROM records"
    if ids is None:
        return conn.execute(sql + " ORDER BY id").fetchall()
    return conn.execute(sql + " WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id",
                        (json.dumps([int(i) for i in ids]),)).fetchall()


def _fit_rows(conn, seed: int, limit: int):
    """The records the models are fitted on, and whether they are the whole corpus.

    Every record when the corpus holds at most ``limit``; otherwise a seeded
    uniform sample of ``limit`` records (in id order), so fitting holds a
    bounded number of texts and vectors however big the corpus is.
    """
    ids = np.fromiter((r[0] for r in conn.execute("SELECT id FROM records ORDER BY id")), dtype=np.int64)
    if len(ids) <= limit:
        return _fetch(conn), True
    keep = ids[np.sort(np.random.default_rng(seed).choice(len(ids), limit, replace=False))]
    del ids
    rows = []
    for i in range(0, len(keep), 20_000):
        rows.extend(_fetch(conn, keep[i:i + 20_000]))
    return rows, False


def _chunks(conn, pending, chunk_size):
    """Pending records, fetched one chunk at a time: ``(rows, texts)`` per chunk."""
    for i in range(0, len(pending), chunk_size):
        rows = _fetch(conn, pending[i:i + chunk_size])
        yield rows, [record_text(r["title"], r["content_text"]) for r in rows]


def _save_model(conn, name, kind, dimensions, state, settings, run_id, now):
    conn.execute(
        "INSERT INTO models(name, kind, dimensions, state, settings, run_id, created_at) "
        "VALUES (?,?,?,?,?,?,?) ON CONFLICT(name) DO UPDATE SET kind=excluded.kind, "
        "dimensions=excluded.dimensions, state=excluded.state, settings=excluded.settings, "
        "run_id=excluded.run_id, created_at=excluded.created_at",
        (name, kind, dimensions, state, json.dumps(settings, sort_keys=True), run_id, now))


def load_embedder(conn) -> Embedder | None:
    """The embedder saved with the corpus (``models`` row ``embedder``), or None."""
    row = conn.execute("SELECT kind, state, settings FROM models WHERE name = 'embedder'").fetchone()
    if row is None:
        return None
    return embedder_from_state(row["kind"], bytes(row["state"]), json.loads(row["settings"]))


def _upsert_topics(conn, beats, now) -> dict:
    for b in beats:
        conn.execute(
            "INSERT INTO topics(name, display_name, description, category, keywords, subreddits, "
            "active, discovered, created_at) VALUES (?,?,?,?,?,?,?,?,?) ON CONFLICT(name) DO UPDATE SET "
            "display_name=excluded.display_name, description=excluded.description, "
            "category=excluded.category, keywords=excluded.keywords, subreddits=excluded.subreddits, "
            "active=excluded.active, discovered=excluded.discovered",
            (b.name, b.display_name, b.description, b.category, json.dumps(b.keywords),
             json.dumps(b.subreddits), int(b.active), int(b.discovered), now))
    return {r["name"]: r["id"] for r in conn.execute("SELECT id, name FROM topics")}


#: a rediscovered topic keeps the id and name of the earlier topic whose records it shares at
#: this Jaccard overlap or more (one-to-one, best overlap first), as cluster lineages do
IDENTITY_JACCARD = 0.3


def keep_identity(conn, beats: list[Beat], record_ids, labels) -> dict:
    """Give rediscovered beats the name and label of the stored discovered topic they continue.

    ``labels`` are the discovery's per-record beat indexes for ``record_ids``;
    the stored topics' members are the records' current primary topics. A
    beat whose members overlap a stored topic's at ``IDENTITY_JACCARD`` or
    more takes its name (hence its id) and display name; an unmatched beat
    whose name a stored topic holds gets a suffix. Returns ``{new index: old name}``.
    """
    old: dict[str, set] = {}
    for rid, name in conn.execute("SELECT e.record_id, t.name FROM enrichment e JOIN topics t "
                                  "ON t.id = e.topic_id WHERE t.discovered = 1"):
        old.setdefault(name, set()).add(rid)
    if not old:
        return {}
    ids = np.asarray(record_ids)
    new = {b: set(ids[np.asarray(labels) == b].tolist()) for b in range(len(beats))}
    matched = match_lineages({b: m for b, m in new.items() if m}, old, IDENTITY_JACCARD)
    display = dict(conn.execute("SELECT name, display_name FROM topics WHERE discovered = 1").fetchall())
    taken = set(display) | {b.name for b in beats}
    for b, beat in enumerate(beats):
        if b in matched:
            beat.name, beat.display_name = matched[b], display[matched[b]]
        elif beat.name in display:
            suffix = 2
            while f"{beat.name}-{suffix}" in taken:
                suffix += 1
            beat.name = f"{beat.name}-{suffix}"
            taken.add(beat.name)
    return matched


def _same_beats(a: list[Beat], b: list[Beat]) -> bool:
    return [vars(x) for x in a] == [vars(x) for x in b]


def _wipe(conn) -> None:
    """Drop every enrichment row (a refit re-enriches everything with the new models)."""
    for table in ("enrichment", "topic_assignments", "mentions", "record_vectors", "mention_origins",
                  "record_hashtags"):
        conn.execute(f"DELETE FROM {table}")
    conn.execute("UPDATE entities SET mention_count = 0, first_seen = NULL, last_seen = NULL")


def _seed_topics(corpus, seed_words, refit: bool, first: bool):
    """The seed topics this run discovers with (given, else stored for a refit), or None."""
    stored = corpus.get_meta(SEEDS_KEY)
    if seed_words is None:
        return [SeedTopic(**s) for s in stored] if stored and (refit or first) else None
    seeds = load_seed_words(seed_words)
    if not (refit or first) and [vars(s) for s in seeds] != stored:
        raise ValidationError("this corpus's topics were fitted without these seed words; pass "
                              "refit=True (--refit) to discover the topics again with them")
    return seeds


def _prepare(corpus, run_id, refit, beats_arg, n_topics, seed, embedder, assigner, progress,
             fit_sample=FIT_SAMPLE, seed_words=None, merge_topics=True, topic_method="nmf"):
    """Load or fit the embedder and the beats; returns ``(embedder, assigner, topic ids, refitted,
    known)``, ``known`` the ids and vectors of every record when they were all embedded here."""
    conn = corpus.conn
    now = iso(corpus.now())
    saved = None if refit else load_embedder(conn)
    if saved is not None and embedder is not None and saved.model_name != embedder.model_name:
        raise ValidationError(
            f"this corpus was embedded with {saved.model_name}; pass refit=True to re-embed "
            f"everything with {embedder.model_name}")
    all_rows, all_vectors, complete = None, None, False

    def corpus_vectors(model):
        nonlocal all_rows, all_vectors, complete
        if all_vectors is None:
            all_rows, complete = _fit_rows(conn, seed, fit_sample)
            all_vectors = model.transform([embedding_text(r["title"], r["content_text"]) for r in all_rows])
        return all_rows, all_vectors

    fitted = saved is None
    if fitted:
        model = embedder if embedder is not None else default_embedder(seed)
        all_rows, complete = _fit_rows(conn, seed, fit_sample)
        texts = [embedding_text(r["title"], r["content_text"]) for r in all_rows]
        model.fit(texts)
        if model.dimensions != VECTOR_DIMENSIONS:
            raise ValidationError(f"embedder gives {model.dimensions} dimensions; the vector table holds "
                                  f"{VECTOR_DIMENSIONS}")
        all_vectors = model.transform(texts)
    else:
        model = saved

    if beats_arg is not None:
        definitions = load_beats(beats_arg)
    elif corpus.get_meta("beats") is not None:
        definitions = load_beats(corpus.get_meta("beats"))
    else:
        definitions = None
    stored = beats_from_rows(conn.execute(
        "SELECT * FROM topics WHERE active = 1 OR discovered = 0 ORDER BY id").fetchall())
    topic_state = conn.execute("SELECT state, settings FROM models WHERE name = 'topics'").fetchone()

    discovered = discovery = None
    seeds = _seed_topics(corpus, seed_words, refit, fitted or not stored)
    if definitions is None and stored and all(b.discovered for b in stored) and not refit and not fitted:
        definitions = [b for b in stored if b.active]
    if definitions is None and stored and not any(b.discovered for b in stored) and not refit:
        definitions = stored
    if definitions is None:
        rows, vectors = corpus_vectors(model)
        texts = [record_text(r["title"], r["content_text"]) for r in rows]
        details: dict = {}
        definitions, centroids, labels = discover_beats(texts, vectors, n_topics=n_topics, seed=seed,
                                                        details=details, seed_words=seeds, merge=merge_topics,
                                                        method=topic_method,
                                                        authors=[r["author"] for r in rows],
                                                        sources=sorted({r["source"] for r in rows if r["source"]}))
        details["kept"] = keep_identity(conn, definitions, [r["id"] for r in rows], labels)
        discovery = {"k": details["k"], "grid": details["grid"], "merged": [[int(c) for c in g] for g in details["merged"]],
                     "dissolved": details["dissolved"], "nearDuplicates": details.get("nearDuplicates", 0),
                     "keptIdentity": {definitions[b].name: old for b, old in details["kept"].items()},
                     "topics": len(definitions), "runId": run_id, "method": details.get("method"), "floor": details.get("floor"),
                     "note": topics_note(n_topics, details, len(definitions), merge_topics)}
        discovered = centroids
    is_discovered = all(b.discovered for b in definitions)
    custom = assigner
    if assigner is None:
        assigner = default_assigner(is_discovered, given_k=n_topics is not None)

    refit_topics = fitted or refit or topic_state is None or not _same_beats(definitions, stored)
    if not refit_topics:
        names, centroids = BeatAssigner.centroids_from_state(bytes(topic_state["state"]))
        if names != [b.name for b in definitions]:
            refit_topics = True
        else:
            if custom is None:   # the cut-off the topics were fitted with (a given k assigns every record)
                assigner.min_confidence = json.loads(topic_state["settings"]).get(
                    "min_confidence", assigner.min_confidence)
            assigner.fit(definitions, [], [], None, centroids=centroids)
    if refit_topics:
        rows, vectors = corpus_vectors(model)
        assigner.fit(definitions, [record_text(r["title"], r["content_text"]) for r in rows],
                     [r["subreddit"] for r in rows], vectors, embed=model.transform,
                     centroids=discovered)

    with corpus.transaction():
        if fitted or refit:
            _wipe(conn)
            state = model.to_state()
            _save_model(conn, "embedder", model.model_name, VECTOR_DIMENSIONS, state, model.settings(),
                        run_id, now)
        if refit_topics:
            if is_discovered:
                # beats discovered by an earlier run that this one did not find again retire
                conn.execute("UPDATE topics SET active = 0 WHERE discovered = 1")
            ids = _upsert_topics(conn, definitions, now)
            _save_model(conn, "topics", assigner.model_name, VECTOR_DIMENSIONS, assigner.to_state(),
                        {"beats": [b.name for b in definitions], "discovered": is_discovered,
                         "min_confidence": assigner.min_confidence,
                         "secondary_confidence": assigner.secondary_confidence,
                         "weights": list(assigner.weights)}, run_id, now)
            corpus.set_meta(VERSION_KEY, f"{run_id}:topics")
            if discovery is not None:
                corpus.set_meta(DISCOVERY_KEY, discovery)
                corpus.set_meta(SEEDS_KEY, [vars(s) for s in seeds] if seeds else None)
        ids = {r["name"]: r["id"] for r in conn.execute("SELECT id, name FROM topics")}
    known = None
    if all_vectors is not None and complete:
        known = (np.fromiter((r["id"] for r in all_rows), dtype=np.int64, count=len(all_rows)), all_vectors)
    return model, assigner, [ids[b.name] for b in definitions], fitted or refit, known


_WORKER: dict = {}


def _worker_init(scorer, extractor, parent_pid: int) -> None:
    die_with_parent(parent_pid)  # a killed enrich leaves no worker behind
    _WORKER["scorer"], _WORKER["extractor"] = scorer, extractor


def _analyse(texts, languages):
    """Sentiment and entities of one chunk (runs in a worker process)."""
    return sentiment_and_entities(_WORKER["scorer"], _WORKER["extractor"], texts, languages)


def sentiment_and_entities(scorer, extractor, texts, languages):
    """Sentiment scores and labels and entity mentions of ``texts``, each step reading only the
    texts whose language it covers (:func:`corpuskit.enrich.language.covers`).

    Returns ``(scores, labels, mentions, entities_skipped)``: a float array with NaN where the
    scorer does not cover the text's language, a list of labels (None there; otherwise what the
    scorer's :meth:`~corpuskit.enrich.base.SentimentScorer.score_and_label_many` gives: the argmax
    of a probabilistic scorer's classes, VADER's ±0.05 cut), a list of mention lists (empty where
    skipped) and a list of booleans (True where the extractor skipped the text)."""
    texts = list(texts)
    scores = np.full(len(texts), np.nan)
    labels: list = [None] * len(texts)
    kept = [i for i, lang in enumerate(languages) if covers(scorer.languages, lang)]
    if kept:
        kept_scores, kept_labels = scorer.score_and_label_many([texts[i] for i in kept])
        scores[kept] = kept_scores
        for i, label in zip(kept, kept_labels):
            labels[i] = label
    mentions: list = [[] for _ in texts]
    skipped = [not covers(extractor.languages, lang) for lang in languages]
    kept = [i for i, skip in enumerate(skipped) if not skip]
    if kept:
        for i, found in zip(kept, extractor.extract_many([texts[i] for i in kept])):
            mentions[i] = found
    return scores, labels, mentions, skipped


def detect_languages(corpus, detector, ids, chunk_size: int = 5000) -> int:
    """Give the records ``ids`` whose language is undetermined (``und``: the file gave none) the
    language ``detector`` finds; returns how many were examined. Each chunk is one transaction.

    A short text (under :data:`SHORT_TEXT` letters) or one the detector cannot tell then takes its
    author's or the corpus's dominant language instead (:func:`apply_language_prior`): "Vielen Dank"
    from a German politician is German, not the English the detector guesses. The records holding a
    hashtag or handle are then indexed again, their tags split in their language."""
    conn = corpus.conn
    examined, weak, found_ids = 0, [], []
    for i in range(0, len(ids), chunk_size):
        rows = conn.execute(
            "SELECT id, title, content_text FROM records WHERE id IN (SELECT value FROM json_each(?)) "
            "AND language = ? ORDER BY id", (json.dumps([int(x) for x in ids[i:i + chunk_size]]),
                                            UNDETERMINED)).fetchall()
        if not rows:
            continue
        texts = [record_text(r["title"], r["content_text"]) for r in rows]
        found = detector.detect_many(texts)
        weak.extend(r["id"] for r, text, lang in zip(rows, texts, found)
                    if lang == UNDETERMINED or sum(c.isalpha() for c in analysis_text(text)) < SHORT_TEXT)
        with corpus.transaction():
            conn.executemany("UPDATE records SET language = ? WHERE id = ?",
                             [(lang, r["id"]) for lang, r in zip(found, rows) if lang != UNDETERMINED])
        examined += len(rows)
        found_ids.extend(r["id"] for r in rows)
    with corpus.transaction():
        if weak:
            apply_language_prior(conn, weak)
        if found_ids and hasattr(detector, "probabilities"):
            prefer_prior_when_close(conn, detector, found_ids)
        # the index split their one-case tags before their language was known (lopezobrador_)
        fulltext.reindex_tags(conn, found_ids)
    return examined


#: a detected text with fewer letters than this takes its author's or corpus's dominant language
SHORT_TEXT = 40
#: the share of an author's (or the corpus's) other records a language must exceed to be their prior
PRIOR_SHARE = 0.5
#: the records with a confidently detected or given language an author needs for a prior of their own
PRIOR_RECORDS = 3


def _priors(conn, excluded: str):
    """``(prior of an author, corpus prior)``: the dominant language (:func:`_dominant`) of an author's
    records, and of the corpus's, whose language is known, the records ``excluded`` (a JSON list) left out."""
    counts = conn.execute(
        "SELECT author, language, count(*) FROM records WHERE language != ? AND id NOT IN "
        "(SELECT value FROM json_each(?)) GROUP BY author, language", (UNDETERMINED, excluded)).fetchall()
    by_author: dict = {}
    overall: dict = {}
    for author, language, n in counts:
        by_author.setdefault(author, {})[language] = n
        overall[language] = overall.get(language, 0) + n
    corpus_prior = _dominant(overall, 1)
    return (lambda author: _dominant(by_author.get(author, {}), PRIOR_RECORDS) or corpus_prior), corpus_prior


def apply_language_prior(conn, weak_ids) -> int:
    """Give each record of ``weak_ids`` (short or undetermined texts) its author's dominant language,
    or else the corpus's: the language of more than :data:`PRIOR_SHARE` of the other records (the
    author's: at least :data:`PRIOR_RECORDS` of them) whose language is known. A record with neither
    keeps what the detector said. Returns how many records changed language."""
    weak = json.dumps(sorted(int(i) for i in weak_ids))
    prior_of, _ = _priors(conn, weak)
    changes = []
    for rid, author, language in conn.execute(
            "SELECT id, author, language FROM records WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id",
            (weak,)):
        prior = prior_of(author)
        if prior and prior != language:
            changes.append((prior, rid))
    conn.executemany("UPDATE records SET language = ? WHERE id = ?", changes)
    return len(changes)


#: a detected language gives way to the author's or corpus's dominant one when that is at least this
#: fraction as probable for the text (Aragonese, Galician or Latin for a Spanish news account's tweet)
PRIOR_RATIO = 0.05


def prefer_prior_when_close(conn, detector, ids) -> int:
    """Give each record of ``ids`` whose detected language is not its author's (or else the corpus's)
    dominant language that dominant language when the detector finds it almost as probable: at least
    :data:`PRIOR_RATIO` times the detected language's probability. A close call between neighbours
    (Spanish and Aragonese, Portuguese and Galician) then goes the way the rest of the author's writing
    goes; a text plainly in another language (an English quote in a Spanish feed) keeps its language.
    Returns how many records changed language."""
    prior_of, _ = _priors(conn, "[]")
    changes = []
    rows = conn.execute(
        "SELECT id, author, language, title, content_text FROM records WHERE id IN "
        "(SELECT value FROM json_each(?)) AND language != ? ORDER BY id",
        (json.dumps(sorted(int(i) for i in ids)), UNDETERMINED)).fetchall()
    for rid, author, language, title, text in rows:
        prior = prior_of(author)
        if not prior or prior == language:
            continue
        probabilities = detector.probabilities(record_text(title, text))
        if probabilities.get(prior, 0.0) >= PRIOR_RATIO * probabilities.get(language, 1.0):
            changes.append((prior, rid))
    conn.executemany("UPDATE records SET language = ? WHERE id = ?", changes)
    return len(changes)


def _dominant(counts: dict, at_least: int) -> str | None:
    """The language of more than :data:`PRIOR_SHARE` of ``counts``'s records, when they are ``at_least``."""
    total = sum(counts.values())
    if total < at_least:
        return None
    language, n = min(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return language if n / total > PRIOR_SHARE else None


def _model_chunk(model, assigner, texts, rows, vectors=None):
    """Vectors (unless given), topic assignments and themes of one chunk."""
    if vectors is None:
        vectors = model.transform([embedding_text(r["title"], r["content_text"]) for r in rows])
    return vectors, assigner.assign(texts, [r["subreddit"] for r in rows], vectors), assigner.themes(texts)


def _score_chunk(models, texts, rows, vectors=None):
    """Everything the local path computes for one chunk, on a Dask worker.

    ``rows`` are plain dicts (``title, content_text, subreddit``): sqlite rows do not pickle.
    """
    scorer, extractor, model, assigner = models
    with threadpool_limits(limits=1):
        return (sentiment_and_entities(scorer, extractor, texts, [r["language"] for r in rows])
                + _model_chunk(model, assigner, texts, rows, vectors))


def _known_vectors(known, rows):
    """The vectors ``_prepare`` already computed for ``rows``, or None."""
    if known is None:
        return None
    return known[1][np.searchsorted(known[0], np.array([r["id"] for r in rows], dtype=np.int64))]


class _CorpusTexts:
    """Every record's enrichment text in id order, streamed anew on each iteration (re-iterable)."""

    def __init__(self, conn):
        self.conn = conn

    def __iter__(self):
        rows = self.conn.execute("SELECT title, content_text FROM records ORDER BY id")
        return (record_text(t, c) for t, c in rows)


def _fit_extractor(corpus, extractor, run_id, everything: bool) -> None:
    """Corpus-level entity promotion: fitted on every record when the corpus is (re)fitted
    and saved as the ``entities`` model; an incremental run reuses the saved names."""
    if not extractor.learns_from_corpus:
        return
    conn = corpus.conn
    if not everything:
        row = conn.execute("SELECT settings FROM models WHERE name = 'entities'").fetchone()
        if row is not None:
            extractor.restore_fit(json.loads(row["settings"]))
            return
    # aligned cursors streamed side by side: memory holds the candidates' counts, never the corpus
    def column(sql):
        return (r[0] for r in conn.execute(f"SELECT {sql} FROM records ORDER BY id"))

    extractor.fit(_CorpusTexts(conn), authors=column("author"), days=column("substr(published_at, 1, 10)"))
    with corpus.transaction():
        _save_model(conn, "entities", extractor.model_name, None, b"", extractor.settings(), run_id,
                    iso(corpus.now()))


def _default_workers(pending: int) -> int:
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return 2 if cpus >= 2 and pending >= 3000 else 1


class _ChunkFeed:
    """Chunks of pending records kept at most ``limit`` ahead of the writer, each with its future.

    Iterating yields ``(rows, texts, future)`` in chunk order; ``future`` is
    None when no ``submit`` was started (the chunk is scored inline), so the
    texts of a million records are never all in memory at once.
    """

    def __init__(self, source):
        self.source = source
        self.ahead: deque = deque()
        self.submit = None
        self.limit = 1

    def start(self, submit, limit) -> None:
        """Score coming chunks with ``submit(rows, texts) -> future``, ``limit`` (an int, or a
        callable read at each refill) chunks ahead."""
        self.submit, self.limit = submit, limit
        self._fill()

    def _fill(self) -> None:
        limit = max(1, self.limit() if callable(self.limit) else self.limit)
        while len(self.ahead) < limit:
            item = next(self.source, None)
            if item is None:
                return
            self.ahead.append(item + (self.submit(*item) if self.submit is not None else None,))

    def __iter__(self):
        while True:
            self._fill()
            if not self.ahead:
                return
            yield self.ahead.popleft()


class _EntityWriter:
    """Maps canonical slugs to entity ids, creating entities on first sight."""

    def __init__(self, conn, now):
        self.conn = conn
        self.now = now
        self.ids = {r["slug"]: r["id"] for r in conn.execute("SELECT id, slug FROM entities")}

    def entity_id(self, mention) -> int:
        found = self.ids.get(mention.key)
        if found is None:
            cur = self.conn.execute(
                "INSERT INTO entities(slug, name, type, mention_count, updated_at) VALUES (?,?,?,0,?)",
                (mention.key, mention.name, mention.type, self.now))
            found = self.ids[mention.key] = cur.lastrowid
        return found


def _write_chunk(corpus, rows, analysed, vectors, assignments, topic_ids, writer, run_id,
                 version, themes):
    conn = corpus.conn
    ids = [r["id"] for r in rows]
    id_json = json.dumps(ids)
    with corpus.transaction():
        for table in ("topic_assignments", "mentions", "record_vectors", "mention_origins", "record_hashtags"):
            conn.execute(f"DELETE FROM {table} WHERE record_id IN (SELECT value FROM json_each(?))",
                         (id_json,))
        enrichment, topic_rows, mention_rows, alias_rows, tag_rows = [], [], [], {}, []
        touched: dict[int, list] = {}
        scores, labels, mentions, skipped = analysed
        for row, score, label, found, skip, picks, record_themes in zip(rows, scores, labels, mentions, skipped,
                                                                        assignments, themes):
            rid = row["id"]
            primary = topic_ids[picks[0][0]] if picks else None
            score = None if np.isnan(score) else float(score)
            enrichment.append((rid, None if score is None else round(score, 4), None if score is None else label,
                               primary, json.dumps(record_themes, ensure_ascii=False), run_id, int(skip)))
            topic_rows.extend((rid, topic_ids[b], conf) for b, conf in picks)
            text = record_text(row["title"], row["content_text"])
            tag_rows.extend(record_hashtags(rid, text))
            for m in found:
                eid = writer.entity_id(m)
                tagged = sum(1 for p in m.positions if p > 0 and text[p - 1:p] == "#")
                mention_rows.append((rid, eid, m.surface, m.mention_count, json.dumps(list(m.positions)), tagged))
                for surface in m.aliases:
                    alias_rows.setdefault(alias_key(surface), (eid, surface))
                agg = touched.setdefault(eid, [0, row["published_at"], row["published_at"]])
                agg[0] += m.mention_count
                agg[1] = min(agg[1], row["published_at"])
                agg[2] = max(agg[2], row["published_at"])
        conn.executemany(
            "INSERT OR REPLACE INTO enrichment(record_id, sentiment_score, sentiment_label, topic_id, "
            "themes, run_id, entities_skipped) VALUES (?,?,?,?,?,?,?)", enrichment)
        conn.executemany("INSERT INTO topic_assignments(record_id, topic_id, confidence) VALUES (?,?,?)",
                         topic_rows)
        conn.executemany("INSERT INTO mentions(record_id, entity_id, surface, mention_count, positions) "
                         "VALUES (?,?,?,?,?)", [m[:5] for m in mention_rows])
        conn.executemany("INSERT INTO mention_origins(record_id, origin_id, surface, mention_count, positions, "
                         "tagged) VALUES (?,?,?,?,?,?)", mention_rows)
        conn.executemany("INSERT INTO record_hashtags(record_id, tag, written) VALUES (?,?,?)", tag_rows)
        conn.executemany("INSERT OR IGNORE INTO entity_aliases(alias_key, entity_id, surface) VALUES (?,?,?)",
                         [(k, e, s) for k, (e, s) in alias_rows.items() if k])
        conn.executemany(
            "UPDATE entities SET mention_count = mention_count + ?, "
            "first_seen = min(coalesce(first_seen, ?), ?), last_seen = max(coalesce(last_seen, ?), ?), "
            "updated_at = ? WHERE id = ?",
            [(c, lo, lo, hi, hi, writer.now, eid) for eid, (c, lo, hi) in sorted(touched.items())])
        conn.executemany("INSERT INTO record_vectors(record_id, embedding) VALUES (?, ?)",
                         [(rid, vectors[i].tobytes()) for i, rid in enumerate(ids)])
        corpus.set_meta(VERSION_KEY, version)


def enrich_corpus(corpus, settings: EnrichSettings | None = None, **options) -> dict:
    """Enrich the records of ``corpus`` that are not enriched yet.

    Parameters
    ----------
    corpus : Corpus
    settings : EnrichSettings, optional
        The run's options (default: :class:`~corpuskit.enrich.settings.EnrichSettings`'
        defaults).
    **options
        Fields of :class:`~corpuskit.enrich.settings.EnrichSettings` replacing
        those of ``settings``: ``progress, refit, beats, n_topics, chunk_size,
        seed, embedder, scorer, extractor, assigner, workers, client, fit_sample, sentiment_priors``.

    Returns
    -------
    dict
        ``recordsEnriched, totalEnriched, topics, discoveredTopics, entities,
        outliers`` (enriched records that fit no topic: no primary topic, no
        assignment), ``model, dimensions, refitted, runId, seconds, recordsPerSecond``, ``fitSeconds`` (loading or
        fitting the embedder and the topics, discovery included), ``languageExamined`` (records
        whose language was detected this run), ``skipped`` (``{"sentiment": n, "entities": n}``:
        records of this run each English-only step left out, their sentiment NULL or their
        mentions empty), ``languages`` (records per language code in the corpus) and
        ``coverage`` (per language: the enriched records, and how many sentiment scored and skipped and
        entity extraction read and skipped, :func:`language_coverage`), ``nonEnglishShare``, ``topicEdits`` (``{"applied": n, "skipped": [edits]}``: the recorded
        topic edits replayed after the records were written, see :mod:`corpuskit.enrich.topic_edits`).
    """
    config = EnrichSettings.of(settings, **options)
    progress, refit, beats, n_topics = config.progress, config.refit, config.beats, config.n_topics
    chunk_size, seed, embedder, assigner = config.chunk_size, config.seed, config.embedder, config.assigner
    workers, client, fit_sample = config.workers, config.client, config.fit_sample
    started = time.perf_counter()
    scorer = make_scorer(config.scorer)
    extractor = make_extractor(config.extractor)
    conn = corpus.conn
    recorded = {"refit": refit, "chunk_size": chunk_size, "seed": seed, "n_topics": n_topics,
                "seed_words": config.seed_words if isinstance(config.seed_words, str) else (
                    "given" if config.seed_words is not None else None),
                "beats": beats if isinstance(beats, str) else ("given" if beats is not None else None),
                "scorer": scorer.model_name, "extractor": extractor.model_name,
                "fit_sample": fit_sample, "cluster": "dask" if client is not None else None}
    if config.sentiment_priors == "corpus":  # recorded only when on: default runs' settings stay as they were
        check_scorer(scorer)
        recorded["sentiment_priors"] = "corpus"
    done, fit_seconds, skips, detected = 0, 0.0, [0, 0], 0
    detector = config.detector if config.detector is not None else default_detector()
    recorded["detector"] = detector.model_name
    _load_blas()
    # One BLAS thread: on a small, shared machine OpenBLAS threads thrash (a QR that takes
    # 1 s single-threaded took 20 s with 2 threads under load). The stage is serial anyway.
    with threadpool_limits(limits=1), corpus.run_stage("enrich", recorded) as run_id:
        pending_count = conn.execute(
            "SELECT count(*) FROM records r WHERE NOT EXISTS "
            "(SELECT 1 FROM enrichment e WHERE e.record_id = r.id)").fetchone()[0]
        model_row = conn.execute("SELECT 1 FROM models WHERE name = 'embedder'").fetchone()
        if corpus.count() == 0 or (pending_count == 0 and not refit and beats is None and model_row
                                   and config.seed_words is None):
            model, refitted = load_embedder(conn), False
        else:
            everything = refit or model_row is None  # a (re)fit re-enriches every record
            pending = np.fromiter((r[0] for r in conn.execute(
                "SELECT r.id FROM records r" + ("" if everything else
                " WHERE NOT EXISTS (SELECT 1 FROM enrichment e WHERE e.record_id = r.id)")
                + " ORDER BY r.id")), dtype=np.int64)
            detected = detect_languages(corpus, detector, pending)  # before any chunk is read
            feed = _ChunkFeed(_chunks(conn, pending, chunk_size))
            workers = _default_workers(len(pending)) if workers is None and client is None else workers
            _fit_extractor(corpus, extractor, run_id, everything)
            pool = cluster = owned = None
            if client is not None:
                from corpuskit.enrich.distributed import connect

                client, owned = connect(client)
            elif workers > 1 and len(pending) > chunk_size:
                # sentiment and entities need no fitted model: they start now, in worker
                # processes, while this process fits the embedder and the beats
                pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"),
                                           initializer=_worker_init, initargs=(scorer, extractor, os.getpid()))
                feed.start(lambda rows, texts: pool.submit(_analyse, texts, [r["language"] for r in rows]),
                           max(2 * workers, LOOKAHEAD_RECORDS // chunk_size))
            bar = None
            try:
                fit_started = time.perf_counter()
                # topics and their labels leave out the stop words of every language of the corpus
                with vocabulary_languages(corpus_languages(language_counts(conn))):
                    model, assigner, topic_ids, refitted, known = _prepare(
                        corpus, run_id, refit, beats, n_topics, seed, embedder, assigner, progress,
                        fit_sample, config.seed_words, *config.discovery())
                fit_seconds = time.perf_counter() - fit_started
                if client is not None:
                    from corpuskit.enrich.distributed import DaskChunkMap

                    cluster = DaskChunkMap(client, (scorer, extractor, model, assigner))

                    def submit(rows, texts):  # the whole chunk is scored on the cluster
                        plain = [{k: r[k] for k in ("title", "content_text", "subreddit", "language")}
                                 for r in rows]
                        return cluster.submit(_score_chunk, texts, plain, _known_vectors(known, rows))

                    # twice the cluster's threads (read again as workers join), within the look-ahead
                    feed.start(submit, lambda: min(max(2, 2 * cluster.threads),
                                                   max(2, LOOKAHEAD_RECORDS // chunk_size)))
                writer = _EntityWriter(conn, iso(corpus.now()))
                if progress and len(pending):
                    from tqdm.auto import tqdm

                    bar = tqdm(total=len(pending), desc="enrich", unit="rec")
                for n, (rows, texts, future) in enumerate(feed):
                    if cluster is not None:
                        *analysed, vectors, picks, themes = cluster.result(future)
                    else:
                        if future is not None:
                            analysed = future.result()
                        else:
                            analysed = sentiment_and_entities(scorer, extractor, texts,
                                                              [r["language"] for r in rows])
                        vectors, picks, themes = _model_chunk(model, assigner, texts, rows,
                                                              _known_vectors(known, rows))
                    _write_chunk(corpus, rows, analysed, vectors, picks, topic_ids, writer,
                                 run_id, f"{run_id}:{n}", themes)
                    skips[0] += int(np.isnan(analysed[0]).sum())
                    skips[1] += int(sum(analysed[3]))
                    done += len(rows)
                    if bar is not None:
                        bar.update(len(rows))
            finally:
                if bar is not None:
                    bar.close()
                if pool is not None:
                    pool.shutdown(wait=True, cancel_futures=True)
                if cluster is not None:
                    cluster.shutdown(cancel_futures=True)
                if owned:
                    client.close()
        if config.aliases is not None:
            apply_alias_file(corpus, config.aliases)
        if done or config.aliases is not None:
            corpus.set_meta(f"resolution:{run_id}", resolve_entities(corpus))
        skipped = {"sentiment": skips[0], "entities": skips[1]}
        corpus.set_meta(f"skipped:{run_id}", {"languageExamined": detected, "skipped": skipped,
                                              "scorer": sorted(scorer.languages or []) or "all",
                                              "extractor": sorted(extractor.languages or []) or "all"})
        edits = apply_edits(corpus)   # the researcher's merges, renames and reassignments, kept
        if config.sentiment_priors == "corpus":
            adjust_to_corpus_priors(corpus, scorer, run_id)
    return _summary(conn, started, done=done, model=model, refitted=refitted, run_id=run_id,
                    fit_seconds=fit_seconds, detected=detected, skipped=skipped, edits=edits)


def _summary(conn, started: float, *, done, model, refitted, run_id, fit_seconds, detected, skipped,
             edits) -> dict:
    """What :func:`enrich_corpus` returns: this run's figures beside the corpus's counts."""
    languages = language_counts(conn)
    seconds = time.perf_counter() - started
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (DISCOVERY_KEY,)).fetchone()
    discovery = json.loads(row[0]) if row else {}
    counts = conn.execute(
        "SELECT (SELECT count(*) FROM enrichment), (SELECT count(*) FROM topics WHERE active = 1), "
        "(SELECT count(*) FROM topics WHERE active = 1 AND discovered = 1), "
        "(SELECT count(*) FROM entities WHERE mention_count > 0), "
        "(SELECT count(*) FROM enrichment WHERE topic_id IS NULL)").fetchone()
    return {
        "recordsEnriched": done, "totalEnriched": counts[0], "topics": counts[1],
        "discoveredTopics": counts[2], "entities": counts[3], "outliers": counts[4],
        "model": model.model_name if model is not None else None, "dimensions": VECTOR_DIMENSIONS,
        "refitted": bool(done and refitted), "runId": run_id, "seconds": round(seconds, 3),
        "recordsPerSecond": round(done / seconds, 1) if done and seconds > 0 else None,
        "fitSeconds": round(fit_seconds, 3),
        "languageExamined": detected, "skipped": skipped, "languages": languages,
        "coverage": language_coverage(conn), "nonEnglishShare": non_english_share(languages),
        "topicEdits": {"applied": edits["applied"], "skipped": edits["skipped"]},
        "topicsNote": discovery.get("note") if discovery.get("runId") == run_id else None,
        "topicFloor": discovery.get("floor") if discovery.get("runId") == run_id else None,
    }


def topics_note(asked, details: dict, kept: int, merge: bool) -> str | None:
    """Why a discovery asked for ``asked`` topics keeps ``kept``, or None when it keeps them all."""
    if not asked or kept == asked:
        return None
    from corpuskit.enrich.topics import MERGE_CENTROID, MERGE_TERMS

    merged = details.get("merged") or []
    parts = []
    if merged:
        parts.append(f"{sum(len(g) for g in merged)} near-duplicate topics were merged into {len(merged)} "
                     f"(centroid cosine at least {MERGE_CENTROID} and term cosine at least {MERGE_TERMS})")
    if details.get("dissolved"):
        parts.append(f"{len(details['dissolved'])} with fewer than 1% of the records were dissolved")
    made = details.get("k")
    why = "; ".join(parts) or (f"NMF found {made} topics with members" if made else "no topic had members")
    tail = (" Leave merge_topics unset or False (corpuskit run without --merge-topics) to keep every topic."
            if merge else "")
    return f"asked for {asked} topics, kept {kept}: {why}.{tail}"


def language_counts(conn) -> dict:
    """``{language code: records}`` of the corpus, largest first (``und``: undetermined)."""
    rows = conn.execute("SELECT language, count(*) FROM records GROUP BY language "
                        "ORDER BY count(*) DESC, language").fetchall()
    return {r[0]: r[1] for r in rows}


def language_coverage(conn) -> dict:
    """Per language code, the enriched records and what each language-bound step did with them:
    ``{"es": {"records": n, "sentiment": {"scored": a, "skipped": b}, "entities": {"read": c,
    "skipped": d}}, ...}``, largest first (sentiment and entities are the English-only steps today)."""
    rows = conn.execute(
        "SELECT r.language, count(*), count(e.sentiment_score), coalesce(sum(e.entities_skipped), 0) "
        "FROM records r JOIN enrichment e ON e.record_id = r.id GROUP BY r.language "
        "ORDER BY count(*) DESC, r.language").fetchall()
    return {language or UNDETERMINED: {"records": n, "sentiment": {"scored": scored, "skipped": n - scored},
                                       "entities": {"read": n - skipped, "skipped": skipped}}
            for language, n, scored, skipped in rows}


def coverage_line(coverage: dict, limit: int = 6) -> str:
    """``coverage`` (:func:`language_coverage`) in one line: ``es 33,100 (sentiment 0, entities 0 read);
    en 400 (sentiment 400, entities 400 read)``, the ``limit`` largest languages."""
    parts = [f"{lang} {c['records']:,} (sentiment {c['sentiment']['scored']:,}, entities "
             f"{c['entities']['read']:,} read)" for lang, c in list(coverage.items())[:limit]]
    more = len(coverage) - limit
    return "; ".join(parts) + (f"; {more} more" if more > 0 else "")


def non_english_share(languages: dict) -> float:
    """Share of the records whose language is known and not English (``und`` counts as neither)."""
    total = sum(languages.values())
    return round((total - languages.get("en", 0) - languages.get(UNDETERMINED, 0)) / total, 4) if total else 0.0
