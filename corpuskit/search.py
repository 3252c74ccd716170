"""Search: the ``/api/v1/search`` answer, computed from the corpus's vectors (semantic, the default),
from the full-text index's BM25 ranking (``mode="keyword"``), or from both fused by reciprocal rank
(``mode="hybrid"``, :func:`rrf_fuse`); a query-language ``query`` filters the candidates in every mode.

``record_vectors`` (sqlite-vec ``vec0``) is the store of record. For speed the
search path keeps, per corpus file, an in-process copy of the vectors as one
float32 matrix whose rows are ordered by (source, publishedAt, id), with the
filter columns beside it (source offsets, published time, primary topic). A
source filter is then a contiguous slice, a ``days`` filter a binary search
inside it, and ranking an exact matrix-vector product plus ``argpartition``
over just the rows that pass every filter: filters apply before the top-k cut,
and the answer is exact (the same ranking a full cosine scan gives). The copy
is rebuilt when the enrichment version stamp (bumped by every enrichment
write) changes; checking it costs one primary-key read per query.

Choices where the interface leaves room:
- ``topic`` filters on the record's primary topic (the ``topic`` a result shows).
- A record matches when it passes the filters and its cosine with the query
  reaches the relevance floor, :data:`RELEVANCE_FLOOR` (0.2) unless the
  embedder states its own (a ``relevance_floor`` attribute) or the caller
  passes ``min_relevance``. ``totalMatched`` counts the matching records and
  ``results`` are the best of them, so ``hasMore`` is true exactly when
  ``totalMatched`` exceeds the results returned. The floor was chosen from
  measured score distributions (``benchmarks/bench_search_floor.py``): with the
  default embedder about half of all records have some positive cosine with
  any query (10,843 of the 20,000 demo records on average, by sharing one
  word), while on the labelled demo 0.2 gives the best balance of precision
  (0.69) and recall (0.62) against the query's theme, and on the real Hacker
  News file 91% of the records above 0.2 contain a query word (3% of those
  above 0).
- ``href`` is the ``/api/v1/discourse`` query that returns the record
  (its source and exact ``capturedAt`` as ``since`` and ``until``).
- ``limit`` above 50 is clamped to 50; below 1 is an error.

At scale (a corpus file with at least ``quantised_from`` vectors, :data:`QUANTISED_FROM` by default;
``server.py`` and the ``corpuskit`` command take it from ``CORPUSKIT_QUANTISED_FROM``) the in-process copy would cost every server process
2 GB a million records. There search uses :mod:`corpuskit.vector_index` instead: one memory-mapped folder
beside the corpus (``<corpus>.search/``) shared through the page cache by every process, binary codes
for a first pass over the filtered rows (the closest :data:`corpuskit.vector_index.DEFAULT_CANDIDATES`),
int8 vectors for a second (the best :data:`corpuskit.vector_index.DEFAULT_RERANK`), and the exact cosine
for the rows left. The answer is exact whenever the filters leave at most
:data:`corpuskit.vector_index.EXACT_ROWS` rows; otherwise ``totalMatched`` counts by the int8 cosine among the
first pass's rows (a lower bound) and the ranking is approximate (recall@10 is printed by
``benchmarks/bench_scale.py``).
"""
from __future__ import annotations

import json
import os
import re
import tempfile
import threading
import time
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import numpy as np

from corpuskit.errors import StageNotRunError, ValidationError
from corpuskit.numerics import dot_rows
from corpuskit.query import (SOURCE_KINDS, RecordFilter, TopicNotFound, compile_query, is_source_name,
                             topic_by_name)
from corpuskit.query.fulltext import bm25_ranking
from corpuskit.query.subsets import matching_ids
from corpuskit.vector_index import VectorIndex, index_dir, read_index, write_index

MIN_QUERY, MAX_QUERY = 3, 500
#: Cosine a record needs to match (count in ``totalMatched``, be a result); see the module docstring.
RELEVANCE_FLOOR = 0.2
MAX_LIMIT = 50
EXCERPT_CHARS = 240
#: Vectors from which a file corpus is searched through the memory-mapped quantised index.
QUANTISED_FROM = 250_000
#: Rows read back at a time while the memory-mapped index is written (:func:`write_search_index`).
BUILD_BLOCK = 65_536

_lock = threading.Lock()
_indexes: dict = {}


@dataclass
class SearchIndex:
    """The in-process copy of a corpus's vectors and filter columns."""

    stamp: tuple
    embedder: object
    matrix: np.ndarray      # (n, 512) float32, rows ordered by source, published, id
    ids: np.ndarray         # int64 record ids
    published: np.ndarray   # int64 unix seconds
    topics: np.ndarray      # int64 primary topic id, -1 for none
    spans: dict             # source -> (start, end) row range
    quantised: VectorIndex | None = None  # set at scale: ranking goes through it


def _stamp(conn) -> tuple:
    # Every enrichment write (vectors, a refit's new model) sets enrich.version
    # to a value unique to its run and chunk, so this one cheap read is enough.
    # (Reading the models row would walk its whole embedder blob: ~40 ms.)
    row = conn.execute("SELECT value FROM meta WHERE key = 'enrich.version'").fetchone()
    return (row[0] if row else None,)


def build_index(conn, stamp=None) -> SearchIndex:
    """Load the vectors and filter columns of the corpus behind ``conn``."""
    embedder = _warm_embedder(conn)
    vec_ids, vectors = load_vectors(conn)
    order, ids, published, topics, spans = _row_order(conn, vec_ids)
    matrix = vectors[order] if len(order) else np.zeros((0, vectors.shape[1]), dtype=np.float32)
    return SearchIndex(stamp=stamp if stamp is not None else _stamp(conn), embedder=embedder,
                       matrix=np.ascontiguousarray(matrix), ids=ids, published=published,
                       topics=topics, spans=spans)


def _warm_embedder(conn):
    from corpuskit.enrich.pipeline import load_embedder

    embedder = load_embedder(conn)
    if embedder is None:
        raise StageNotRunError("this corpus has no embeddings yet: run corpus.enrich() "
                               "(or `corpuskit enrich --db FILE`) before searching")
    embedder.transform(["warm up"])  # imports and builds the vectorizer now, not in a query
    return embedder


def _row_order(conn, vec_ids: np.ndarray, block: int = 65_536):
    """The search order of the stored vectors, from the filter columns alone: ``(order, ids, published,
    topics, spans)``, where row ``i`` of the index is vector ``order[i]`` of ``vec_ids``. Rows are the
    records that have a vector, ordered by (source, published_at, id)."""
    by_id = np.argsort(vec_ids, kind="stable")
    sorted_ids = vec_ids[by_id]
    parts, spans, start, last, base = [], {}, 0, None, 0
    cursor = conn.execute(
        "SELECT r.id, r.source, r.published_at, coalesce(e.topic_id, -1) FROM records r "
        "LEFT JOIN enrichment e ON e.record_id = r.id ORDER BY r.source, r.published_at, r.id")
    while len(sorted_ids) and (rows := cursor.fetchmany(block)):
        rec = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
        at = np.searchsorted(sorted_ids, rec)
        found = np.flatnonzero((at < len(sorted_ids)) & (sorted_ids[np.minimum(at, len(sorted_ids) - 1)] == rec))
        if not len(found):
            continue
        kept = [rows[i] for i in found.tolist()]
        for j, r in enumerate(kept):
            if r[1] != last:
                if last is not None:
                    spans[last] = (start, base + j)
                last, start = r[1], base + j
        base += len(kept)
        parts.append((by_id[at[found]], rec[found],
                       np.array([r[2][:19] for r in kept], dtype="datetime64[s]").astype(np.int64),
                       np.fromiter((r[3] for r in kept), dtype=np.int64, count=len(kept))))
    if last is not None:
        spans[last] = (start, base)
    columns = [np.concatenate([p[k] for p in parts]) if parts else np.zeros(0, np.int64) for k in range(4)]
    return (*columns, spans)


def load_vectors(conn, dimensions: int = 512) -> tuple[np.ndarray, np.ndarray]:
    """Every stored vector: ``(record ids, (n, dimensions) float32 matrix)``.

    Reads sqlite-vec's chunk tables directly (one blob per 1,024 vectors: ~30x
    faster than scanning the virtual table row by row), checks a sample
    against the virtual table, and falls back to the plain scan when the
    layout is not the one expected. Holds every vector: the memory-mapped
    index is written by :func:`write_search_index`, which streams.
    """
    with tempfile.TemporaryFile() as raw:
        ids, offsets = _vector_file(conn, raw, dimensions)
        matrix = next(_gather(raw.fileno(), offsets, dimensions, max(len(ids), 1)), None)
    return ids, matrix if matrix is not None else np.zeros((0, dimensions), dtype=np.float32)


def _vector_file(conn, raw, dimensions: int) -> tuple[np.ndarray, np.ndarray]:
    """Copy every stored vector into the open binary file ``raw`` with sequential writes; returns
    ``(record ids, byte offset of each vector in raw)``. The chunk tables are copied blob by blob, a
    sample of rows is checked against the virtual table, and when the layout is not the expected
    one the file is rewritten from the plain scan of ``record_vectors`` (one vector at a time)."""
    row_bytes = dimensions * 4
    try:
        ids, offsets = _copy_vector_chunks(conn, raw, dimensions)
        sample = np.linspace(0, len(ids) - 1, num=min(len(ids), 16)).astype(np.int64) if len(ids) else []
        for i in sample:
            row = conn.execute("SELECT embedding FROM record_vectors WHERE record_id = ?",
                               (int(ids[i]),)).fetchone()
            stored = os.pread(raw.fileno(), row_bytes, int(offsets[i]))
            if row is None or bytes(row[0]) != stored:
                raise LookupError("vec0 chunk layout differs")
        count = conn.execute("SELECT count(*) FROM record_vectors_rowids").fetchone()[0]
        if count != len(ids):
            raise LookupError("vec0 rowids and chunks disagree")
        return ids, offsets
    except Exception:
        raw.seek(0)
        raw.truncate()
        ids = []
        for record_id, embedding in conn.execute("SELECT record_id, embedding FROM record_vectors"):
            if len(embedding) != row_bytes:
                raise ValueError(f"stored vector of {len(embedding)} bytes, expected {row_bytes}")
            raw.write(embedding)
            ids.append(record_id)
        raw.flush()
        return np.array(ids, dtype=np.int64), np.arange(len(ids), dtype=np.int64) * row_bytes


def _copy_vector_chunks(conn, raw, dimensions: int, block: int = 65_536):
    row_bytes = dimensions * 4
    chunk_ids, size = [], None
    for rowid, blob in conn.execute("SELECT rowid, vectors FROM record_vectors_vector_chunks00 ORDER BY rowid"):
        if size is None:
            size = len(blob)
        if len(blob) != size or size % row_bytes:
            raise LookupError("vec0 chunks of uneven size")
        raw.write(blob)
        chunk_ids.append(rowid)
    raw.flush()
    chunk_ids = np.array(chunk_ids, dtype=np.int64)
    cursor = conn.execute("SELECT coalesce(id, rowid), chunk_id, chunk_offset FROM record_vectors_rowids "
                          "WHERE chunk_id IS NOT NULL ORDER BY rowid")
    parts = []
    while rows := cursor.fetchmany(block):
        parts.append(np.array(rows, dtype=np.int64).reshape(-1, 3))
    layout = np.concatenate(parts) if parts else np.zeros((0, 3), np.int64)
    slot = np.searchsorted(chunk_ids, layout[:, 1])
    if len(layout) and (np.any(slot >= len(chunk_ids)) or np.any(chunk_ids[np.minimum(slot, len(chunk_ids) - 1)]
                                                                 != layout[:, 1])
                        or np.any(layout[:, 2] < 0) or np.any(layout[:, 2] >= size // row_bytes)):
        raise LookupError("vec0 rowids point outside the chunks")
    return layout[:, 0].copy(), slot * (size or 0) + layout[:, 2] * row_bytes


def _gather(fd: int, offsets: np.ndarray, dimensions: int, block: int):
    """Yield the vectors at byte ``offsets`` of the file ``fd``, in that order, ``block`` rows at a time:
    each block's offsets are read in file order with ``os.preadv``, one read per contiguous run."""
    row_bytes = dimensions * 4
    for lo in range(0, len(offsets), block):
        want = offsets[lo:lo + block]
        order = np.argsort(want, kind="stable")
        ordered = want[order]
        got = np.empty((len(want), dimensions), dtype=np.float32)
        view = memoryview(got).cast("B")
        breaks = np.flatnonzero(np.diff(ordered) != row_bytes) + 1
        for s, e in zip(np.concatenate(([0], breaks)).tolist(), np.concatenate((breaks, [len(want)])).tolist()):
            if os.preadv(fd, [view[s * row_bytes:e * row_bytes]], int(ordered[s])) != (e - s) * row_bytes:
                raise OSError("short read from the temporary vector file")
        out = np.empty_like(got)
        out[order] = got
        del got, view
        yield out


def write_search_index(conn, folder, stamp, dimensions: int = 512) -> None:
    """Write the memory-mapped index of the corpus behind ``conn`` into ``folder`` without holding its
    vectors: they are copied to a temporary file beside ``folder`` (sequential writes), the row order
    is computed from the filter columns, and :data:`BUILD_BLOCK` rows at a time are read back in that
    order and handed to :func:`corpuskit.vector_index.write_index`."""
    folder = Path(folder)
    with tempfile.TemporaryFile(dir=folder.parent) as raw:
        vec_ids, offsets = _vector_file(conn, raw, dimensions)
        order, ids, published, topics, spans = _row_order(conn, vec_ids)
        write_index(folder, stamp, ids, published, topics, spans,
                    _gather(raw.fileno(), offsets[order], dimensions, BUILD_BLOCK), dimensions)


def search_index(corpus, quantised_from: int | None = None) -> SearchIndex:
    """The cached index of ``corpus``, rebuilt when its enrichment changed; a file corpus with at
    least ``quantised_from`` vectors (default :data:`QUANTISED_FROM`) is searched through the
    memory-mapped quantised index."""
    conn = corpus.conn
    stamp = _stamp(conn)
    key = corpus.uri
    index = _indexes.get(key)
    if index is None or index.stamp != stamp:
        with _lock:
            index = _indexes.get(key)
            if index is None or index.stamp != stamp:
                index = _indexes[key] = _load_or_build(corpus, stamp, quantised_from)
    return index


def warm_search(corpus, quantised_from: int | None = None) -> float | None:
    """Load the embedder and load or map the search index of ``corpus`` now, so that the first
    search of this process does not; returns the seconds it took, or None when the corpus has no
    embeddings yet (nothing to warm). Call it once per serving process, before it takes requests.

    A memory-mapped index has the arrays every query scans whole (the binary codes, ids, dates and
    topics) and the int8 vectors its candidates are scored with read in once, page by page (the
    float vectors, read for a few hundred rows a query, are left to the page cache), and one query
    is run through it, so that neither the embedder's first call nor those pages wait for the
    first search.
    """
    t0 = time.perf_counter()
    try:
        index = search_index(corpus, quantised_from)
    except StageNotRunError:
        return None
    mapped = getattr(index, "quantised", None)
    if mapped is not None:
        for array in (mapped.codes, mapped.ids, mapped.published, mapped.topics, mapped.scaled):
            flat = np.asarray(array).reshape(-1).view(np.uint8)
            int(flat[::4096].sum())   # one byte of each page: the page is read now
    search(corpus, "warm up the search index", limit=1, quantised_from=quantised_from)
    return time.perf_counter() - t0


def _load_or_build(corpus, stamp, quantised_from=None) -> SearchIndex:
    path = str(corpus.path)
    vectors = corpus.conn.execute("SELECT count(*) FROM record_vectors_rowids").fetchone()[0]
    if path == ":memory:" or vectors < (QUANTISED_FROM if quantised_from is None else quantised_from):
        return build_index(corpus.conn, stamp)
    return quantised_index(corpus, stamp)


def quantised_index(corpus, stamp=None) -> SearchIndex:
    """The memory-mapped index beside the corpus file, written first if missing or stale.

    One process writes it (an exclusive ``flock`` on ``<corpus>.search.lock``); the others wait and map
    what it wrote.
    """
    from corpuskit.store.file_lock import held

    conn = corpus.conn
    stamp = list(stamp if stamp is not None else _stamp(conn))
    folder = index_dir(corpus.path)
    mapped, embedder = read_index(folder, stamp), None
    if mapped is None:
        with held(folder.with_name(folder.name + ".lock")):
            mapped = read_index(folder, stamp)
            if mapped is None:
                embedder = _warm_embedder(conn)
                write_search_index(conn, folder, stamp)
                mapped = read_index(folder, stamp)
    if embedder is None:
        embedder = _warm_embedder(conn)
    return SearchIndex(stamp=tuple(stamp), embedder=embedder, matrix=mapped.vectors, ids=mapped.ids,
                       published=mapped.published, topics=mapped.topics, spans=mapped.spans,
                       quantised=mapped)


def check_params(q, source=None, days=None, limit=20) -> tuple[str, int]:
    """Validate search parameters; returns ``(q stripped, limit clamped)``."""
    if not isinstance(q, str):
        raise ValidationError("q parameter is required")
    q = q.strip()
    if len(q) < MIN_QUERY:
        raise ValidationError(f"q must be at least {MIN_QUERY} characters (got {len(q)})")
    if len(q) > MAX_QUERY:
        raise ValidationError(f"q must be at most {MAX_QUERY} characters (got {len(q)})")
    if source is not None and not is_source_name(source):
        raise ValidationError(f"invalid source {source!r}: a source is a lower-case slug; the known "
                              f"kinds are {', '.join(SOURCE_KINDS)}")
    if days is not None and (isinstance(days, bool) or not isinstance(days, int) or days < 1):
        raise ValidationError(f"days must be a positive integer, not {days!r}")
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise ValidationError(f"limit must be a positive integer, not {limit!r}")
    return q, min(limit, MAX_LIMIT)


def rank(index: SearchIndex, query: np.ndarray, source=None, topic_id=None, since=None,
         limit=20, floor: float = 0.0, allowed: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, int]:
    """Exact filtered top-``limit``: ``(record ids, cosines, matched count)``.

    A record matches when its cosine is at least ``floor`` (and above 0) and, when ``allowed`` (a
    sorted id array) is given, its id is in it. At scale (``index.quantised``) the ranking goes
    through the quantised first pass (see the module docstring); there ``allowed`` filters the
    best :data:`FUSION_DEPTH` rows of that pass.
    """
    if index.quantised is not None:
        if allowed is None:
            return index.quantised.rank(query, source=source, topic_id=topic_id, since=since, limit=limit,
                                        floor=floor)
        ids, scores, _ = index.quantised.rank(query, source=source, topic_id=topic_id, since=since,
                                              limit=max(limit, FUSION_DEPTH), floor=floor)
        keep = np.isin(ids, allowed)
        return ids[keep][:limit], scores[keep][:limit], int(keep.sum())
    start, end = (0, len(index.ids)) if source is None else index.spans.get(source, (0, 0))
    mask = None
    if since is not None:
        if source is not None:  # rows of one source are sorted by time: cut the slice
            start += int(np.searchsorted(index.published[start:end], since, side="left"))
        else:
            mask = index.published[start:end] >= since
    if allowed is not None:
        inside = np.isin(index.ids[start:end], allowed)
        mask = inside if mask is None else mask & inside
    if topic_id is not None:
        hit = index.topics[start:end] == topic_id
        mask = hit if mask is None else mask & hit
    if end <= start:
        return np.zeros(0, np.int64), np.zeros(0, np.float32), 0
    if mask is not None:
        rows = np.flatnonzero(mask)
        if len(rows) * 3 < end - start:
            scores = dot_rows(index.matrix[start + rows], query)
        else:
            scores = dot_rows(index.matrix[start:end], query)[rows]
        rows = rows + start
    else:
        rows = None
        scores = dot_rows(index.matrix[start:end], query)
    positive = (scores >= floor) & (scores > 0)
    matched = int(positive.sum())
    k = min(limit, matched)
    if k == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.float32), matched
    masked = np.where(positive, scores, -np.inf)
    top = np.argpartition(-masked, k - 1)[:k] if k < len(masked) else np.arange(len(masked))
    top = top[np.isfinite(masked[top])]
    positions = top if rows is None else rows[top] - start
    ids = index.ids[start + positions]
    order = np.lexsort((ids, -scores[top]))
    return ids[order], scores[top][order], matched


def _excerpt(text: str) -> str:
    text = " ".join((text or "").split())
    if len(text) <= EXCERPT_CHARS:
        return text
    cut = text.rfind(" ", 0, EXCERPT_CHARS)
    return text[: cut if cut > EXCERPT_CHARS // 2 else EXCERPT_CHARS].rstrip(" ,;:") + "…"


def relevance_floor(embedder) -> float:
    """The cosine a record needs to match a query embedded by ``embedder``."""
    floor = getattr(embedder, "relevance_floor", None)
    return RELEVANCE_FLOOR if floor is None else float(floor)


def search(corpus, q: str, source: str | None = None, topic: str | None = None,
           days: int | None = None, limit: int = 20, min_relevance: float | None = None,
           quantised_from: int | None = None, mode: str = "semantic",
           query: str | None = None) -> "SearchHits":
    """Rank records by relevance to ``q``: a :class:`SearchHits`, most relevant first.

    Parameters
    ----------
    q : str
        Query text, 3 to 500 characters (after trimming).
    source : str, optional
        Only records of this source kind.
    topic : str, optional
        Only records whose primary topic has this name (unknown name: no results).
    days : int, optional
        Only records published in the last ``days`` days of the corpus clock.
    limit : int
        Results wanted, 1 to 50 (larger values are clamped to 50).
    min_relevance : float, optional
        The cosine a record needs to match (count in ``totalMatched`` and be
        returned); default :data:`RELEVANCE_FLOOR` (0.2) or the embedder's own
        ``relevance_floor``. 0 matches every record with a positive cosine.
    quantised_from : int, optional
        Vectors from which a file corpus is searched through the quantised
        index (default :data:`QUANTISED_FROM`; see :func:`search_index`).
    mode : str
        ``"semantic"`` (default): cosine similarity, ``relevance`` the cosine.
        ``"keyword"``: the full-text index's BM25 ranking of the words of ``q``,
        ``relevance`` the BM25 score. ``"hybrid"``: reciprocal-rank fusion
        (:func:`rrf_fuse`, k = :data:`RRF_K`) of the best :data:`FUSION_DEPTH`
        records of each ranking, ``relevance`` the fused score. In the keyword
        and hybrid modes ``totalMatched`` counts the records the rankings
        returned (at most :data:`FUSION_DEPTH` from each).
    query : str, optional
        A query-language string: only records it matches are ranked, in every
        mode.

    The ``/api/v1/search`` answer is shaped from it in ``corpuskit.api``.
    Raises :class:`ValidationError` for bad parameters and
    :class:`StageNotRunError` when the corpus has not been enriched.
    """
    q, limit = check_params(q, source, days, limit)
    if mode not in MODES:
        raise ValidationError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
    if query is not None and (not isinstance(query, str) or not query.strip()):
        raise ValidationError("query must be a non-empty query-language string")
    if min_relevance is not None and (isinstance(min_relevance, bool) or
                                      not isinstance(min_relevance, (int, float)) or
                                      not 0 <= min_relevance <= 1):
        raise ValidationError(f"min_relevance must be a number from 0 to 1, not {min_relevance!r}")
    if mode != "semantic" or query is not None:
        return _fused_search(corpus, q, source, topic, days, limit, min_relevance, quantised_from, mode, query)
    index = search_index(corpus, quantised_from)
    floor = relevance_floor(index.embedder) if min_relevance is None else float(min_relevance)
    t0 = time.perf_counter()
    query = index.embedder.transform([q])[0].astype(np.float32)
    t1 = time.perf_counter()
    conn = corpus.conn
    topic_id = _topic_id(conn, topic)
    since = None
    if days is not None:
        since = int((corpus.now() - timedelta(days=days)).timestamp())
    ids, scores, matched = (np.zeros(0, np.int64), np.zeros(0), 0) if not query.any() else \
        rank(index, query, source=source, topic_id=topic_id, since=since, limit=limit, floor=floor)
    results = _results(conn, ids, scores)
    t2 = time.perf_counter()
    return SearchHits(rows=results, query=q, total_matched=matched,
                      embedding_ms=int(round((t1 - t0) * 1000)), search_ms=int(round((t2 - t1) * 1000)))


#: The search modes: cosine only, BM25 only, or both fused by reciprocal rank.
MODES = ("semantic", "hybrid", "keyword")
#: The constant of reciprocal-rank fusion (Cormack, Clarke & Buettcher 2009).
RRF_K = 60
#: Records taken from each ranking before fusion (keyword and hybrid modes).
FUSION_DEPTH = 200


#: The keyword ranking's weight in hybrid fusion when the query is name-like (:func:`name_like`).
#: Chosen on the Hacker News file's 20 names (the smallest of 1, 1.25, 1.5, 2, 3, 4 with every name
#: at target) and checked on the Reddit file's (20 of 20 at target); see docs/api.md.
NAME_KEYWORD_WEIGHT = 4.0
_NAME_WORD = re.compile(r"[^\W\d_][\w'&.\-]*|\d[\w'&.\-]*")


def name_like(q: str) -> bool:
    """True when ``q`` reads as a proper name: one to four words, each starting with a capital
    letter or a digit (``Donald Trump``, ``T-Mobile``, ``NASA``, ``3M``), and nothing else."""
    words = q.split()
    if not 1 <= len(words) <= 4:
        return False
    return all(_NAME_WORD.fullmatch(w) and (w[0].isupper() or w[0].isdigit()) for w in words)


def rrf_fuse(rankings, k: float = RRF_K, weights=None) -> list[tuple[int, float]]:
    """Reciprocal-rank fusion (Cormack, Clarke & Buettcher 2009): ``[(id, score)]``, best first.

    Each ranking is a sequence of ids (or ``(id, score)`` pairs), best first; a record's fused
    score is the sum over the rankings that hold it of ``w / (k + rank)``, ranks from 1 (an id
    repeated within one ranking counts once, at its first place, and the ids after it keep
    consecutive ranks), ``w`` the ranking's weight in ``weights`` (default 1 each). Ties are
    broken by the smaller id, so the order is deterministic.
    """
    if isinstance(k, bool) or not isinstance(k, (int, float)) or not k > 0:
        raise ValidationError(f"k must be a positive number, not {k!r}")
    rankings = list(rankings)
    weights = [1.0] * len(rankings) if weights is None else list(weights)
    if len(weights) != len(rankings) or not all(
            not isinstance(w, bool) and isinstance(w, (int, float)) and w > 0 for w in weights):
        raise ValidationError(f"weights must be one positive number per ranking, not {weights!r}")
    scores: dict[int, float] = {}
    for ranking, weight in zip(rankings, weights):
        seen: set[int] = set()
        for item in ranking:
            rid = int(item[0] if isinstance(item, (tuple, list)) else item)
            if rid in seen:
                continue
            seen.add(rid)
            scores[rid] = scores.get(rid, 0.0) + weight / (k + len(seen))
    return sorted(scores.items(), key=lambda pair: (-pair[1], pair[0]))


def _keyword_ranker():
    """The full-text index's BM25 ranking (a seam the tests replace)."""
    return bm25_ranking


def _compile_query(text: str):
    """The read layer's :class:`~corpuskit.query.CompiledQuery` for a query-language string."""
    return compile_query(text)


def _topic_id(conn, topic: str | None) -> int | None:
    """The id of the topic named ``topic`` (None for no filter; -2, which no record has, when unknown)."""
    if topic is None:
        return None
    try:
        return topic_by_name(conn, topic)["id"]
    except TopicNotFound:
        return -2  # an unknown topic matches nothing


def _fused_search(corpus, q, source, topic, days, limit, min_relevance, quantised_from, mode, query):
    """:func:`search` in the keyword and hybrid modes, and in any mode with a ``query`` filter."""
    conn = corpus.conn
    topic_id = _topic_id(conn, topic)
    since = None if days is None else corpus.now() - timedelta(days=days)
    compiled = None if query is None else _compile_query(query)
    # the pre-filter: the records the vector index's own filters (source, primary topic, since) and the
    # query language leave; topic is the enriched primary topic, the one the index knows
    where = RecordFilter(source=source, primary_topic_id=topic_id, since=since, query=compiled).where(conn)
    allowed = None if compiled is None else matching_ids(conn, RecordFilter(query=compiled).where(conn))
    depth = max(limit, FUSION_DEPTH)
    t0 = time.perf_counter()
    semantic = keyword = None
    embedding_ms = 0
    if mode != "keyword":
        index = search_index(corpus, quantised_from)
        floor = relevance_floor(index.embedder) if min_relevance is None else float(min_relevance)
        vector = index.embedder.transform([q])[0].astype(np.float32)
        embedding_ms = int(round((time.perf_counter() - t0) * 1000))
        semantic = (np.zeros(0, np.int64), np.zeros(0), 0) if not vector.any() else rank(
            index, vector, source=source, topic_id=topic_id,
            since=None if since is None else int(since.timestamp()),
            limit=limit if mode == "semantic" else depth, floor=floor, allowed=allowed)
    if mode != "semantic":
        keyword = [(int(rid), float(score)) for rid, score in
                   _keyword_ranker()(conn, q, limit=depth, where=where or None)]
    if mode == "semantic":
        ids, scores, matched, digits = semantic[0], semantic[1], semantic[2], 4
    elif mode == "keyword":
        ids = np.array([r for r, _ in keyword[:limit]], dtype=np.int64)
        scores = np.array([s for _, s in keyword[:limit]], dtype=float)
        matched, digits = len(keyword), 4
    else:
        fused = rrf_fuse([semantic[0].tolist(), keyword], k=RRF_K,
                         weights=(1.0, NAME_KEYWORD_WEIGHT if name_like(q) else 1.0))
        top = fused[:limit]
        ids = np.array([r for r, _ in top], dtype=np.int64)
        scores = np.array([s for _, s in top], dtype=float)
        matched, digits = len(fused), 6
    results = _results(conn, ids, scores, digits)
    total_ms = int(round((time.perf_counter() - t0) * 1000))
    return SearchHits(rows=results, query=q, total_matched=matched, embedding_ms=embedding_ms,
                      search_ms=max(total_ms - embedding_ms, 0))


#: The fields of one search hit, in order (see :class:`SearchHits`).
HIT_FIELDS = ("id", "source", "contentType", "title", "excerpt", "url", "author", "topic",
              "topicDisplayName", "category", "relevance", "publishedAt", "capturedAt", "subreddit",
              "sentimentLabel")


@dataclass(frozen=True)
class SearchHits:
    """The records that matched a query, most relevant first, as plain data.

    ``rows`` are dicts with :data:`HIT_FIELDS` (``id`` the integer record id);
    ``total_matched`` counts every record that reached the relevance floor,
    of which ``rows`` are the first ``limit``.
    """

    rows: list
    query: str
    total_matched: int
    embedding_ms: int
    search_ms: int

    @property
    def has_more(self) -> bool:
        """True when more records matched than ``rows`` holds."""
        return self.total_matched > len(self.rows)


def _results(conn, ids, scores, digits: int = 4) -> list[dict]:
    if len(ids) == 0:
        return []
    rows = {r["id"]: r for r in conn.execute(
        "SELECT r.id, r.source, r.content_type, r.title, r.content_text, r.url, r.author, "
        "r.published_at, r.captured_at, r.subreddit, e.sentiment_label, t.name AS topic, "
        "t.display_name, t.category FROM records r LEFT JOIN enrichment e ON e.record_id = r.id "
        "LEFT JOIN topics t ON t.id = e.topic_id WHERE r.id IN (SELECT value FROM json_each(?))",
        (json.dumps([int(i) for i in ids]),))}
    out = []
    for rid, score in zip(ids.tolist(), scores.tolist()):
        r = rows.get(rid)
        if r is None:  # deleted since the index was built
            continue
        out.append({
            "id": rid, "source": r["source"], "contentType": r["content_type"],
            "title": r["title"] or _excerpt(r["content_text"])[:120],
            "excerpt": _excerpt(r["content_text"]), "url": r["url"],
            "author": r["author"], "topic": r["topic"], "topicDisplayName": r["display_name"],
            "category": r["category"], "relevance": round(float(score), digits),
            "publishedAt": r["published_at"], "capturedAt": r["captured_at"], "subreddit": r["subreddit"],
            "sentimentLabel": r["sentiment_label"],
        })
    return out
