"""Clusters: HDBSCAN per topic over dimension-reduced embeddings, with lineages across runs.

For each topic (a record belongs to its primary topic, ``enrichment.topic_id``):

1. read the records' 512-d embeddings from ``record_vectors``;
2. reduce them with an exact PCA (deterministic signs) to ``n_components`` dimensions (HDBSCAN over
   raw 512-d vectors neither scales nor separates well) and L2-normalise;
3. run HDBSCAN (``min_cluster_size`` defaults to 2% of the topic's records,
   between 10 and 100);
4. describe every cluster: top terms by class-based TF-IDF over the
   normalised text (the topics' terms, :mod:`corpuskit.enrich.topic_terms`), a summary label
   built from them as topics' labels are ("Head: second, third", passing over light verbs, weak
   words and the corpus's title formats such as "Ask HN", :func:`corpus_formats`; the title of
   the record closest to the centroid is kept as ``metadata.centralTitle``),
   the mean silhouette of its members on the reduced space (sampled when
   large), 2-D map coordinates. A cluster with no usable term (its words all
   stop words, URL parts or other debris) is not reported: its records count
   as unclustered;
5. give it a lineage id: a cluster whose members overlap a cluster of the
   topic's previous run with Jaccard >= ``lineage_jaccard`` (one-to-one,
   best overlap first) keeps that lineage, otherwise it gets a new id derived
   from the topic, the run and its members.

Every run's clusters are kept (``clusters`` with ``run_id``); the read rule
is that only the latest run is served (:func:`latest_clusters`). Incremental:
a topic whose records are unchanged since its last fit, or only grew by at
most ``refit_growth`` (a fraction), is not re-fitted; its clusters are copied
into the new run with ``metadata.refit = false``.
"""
from __future__ import annotations

import hashlib
import json

import numpy as np

from corpuskit.clock import iso
from corpuskit.enrich.base import record_text
from corpuskit.enrich.lineages import match_lineages
from corpuskit.enrich.topic_terms import class_tfidf_terms, format_prefixes, readable_label
from corpuskit.errors import ValidationError
from corpuskit.query import topic_by_name

STATE_KEY = "clusters_state"
DIMENSIONS = 512


#: sqlite-vec's own tables behind ``record_vectors``: where each row is, and its vectors 1,024 a blob
VECTOR_ROWIDS, VECTOR_CHUNKS = "record_vectors_rowids", "record_vectors_vector_chunks00"


def _read_chunks(conn, wanted: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """``(found, matrix)`` of the sorted ids ``wanted`` read from sqlite-vec's chunk tables: each
    row's chunk and offset looked up by id, then each chunk's blob read once and its wanted rows
    copied out (a lookup through the virtual table reads a chunk for every row: ~12x slower than
    a scan, ~100x slower than this). None when the tables are not there or a probe of up to 16
    rows disagrees with the virtual table (the caller then reads through it)."""
    try:
        chunk = np.full(len(wanted), -1, dtype=np.int64)
        offset = np.zeros(len(wanted), dtype=np.int64)
        for lo in range(0, len(wanted), 500):
            part = wanted[lo:lo + 500].tolist()
            rows = conn.execute(
                f"SELECT rowid, chunk_id, chunk_offset FROM {VECTOR_ROWIDS} WHERE rowid IN "
                f"({','.join('?' * len(part))}) AND id IS NULL AND chunk_id IS NOT NULL", part).fetchall()
            if rows:
                where = np.array([tuple(r) for r in rows], dtype=np.int64)
                pos = np.searchsorted(wanted, where[:, 0])
                chunk[pos], offset[pos] = where[:, 1], where[:, 2]
        found = chunk >= 0
        matrix = None
        for cid in np.unique(chunk[found]).tolist():
            blob = conn.execute(f"SELECT vectors FROM {VECTOR_CHUNKS} WHERE rowid = ?", (cid,)).fetchone()[0]
            if matrix is None:
                dims = conn.execute("SELECT length(embedding) FROM record_vectors WHERE record_id = ?",
                                    (int(wanted[np.argmax(found)]),)).fetchone()[0] // 4
                matrix = np.empty((len(wanted), dims), dtype=np.float32)
            rows = np.flatnonzero(chunk == cid)
            matrix[rows] = np.frombuffer(blob, dtype=np.float32).reshape(-1, matrix.shape[1])[offset[rows]]
        if matrix is None:
            return found, np.zeros((len(wanted), DIMENSIONS), dtype=np.float32)
        probe = np.flatnonzero(found)
        for i in probe[np.linspace(0, len(probe) - 1, num=min(len(probe), 16)).astype(np.int64)].tolist():
            row = conn.execute("SELECT embedding FROM record_vectors WHERE record_id = ?",
                               (int(wanted[i]),)).fetchone()
            if row is None or not np.array_equal(np.frombuffer(row[0], dtype=np.float32), matrix[i]):
                return None
        return found, matrix
    except Exception:  # noqa: BLE001 - another sqlite-vec layout: read through the virtual table
        return None


def read_vectors(conn, record_ids, scan_all: bool | None = None,
                 batch: int = 4096) -> tuple[np.ndarray, np.ndarray]:
    """``(ids, matrix)`` of the stored embeddings of ``record_ids`` (ids without one are dropped).

    Reads sqlite-vec's chunk tables directly, each chunk once (:func:`_read_chunks`); when
    their layout is not the expected one, reads through the virtual table: by id for a few
    records and a whole-table scan (faster per row) when ``record_ids`` is a large share of
    it, or when ``scan_all`` says so (``scan_all=False`` always reads by id).
    Rows are copied in batches into one preallocated float32 matrix, so peak
    memory is the matrix itself plus one batch (not every blob, their join and
    a reordered copy, which was three times the matrix at a million records).
    """
    wanted = np.unique(np.fromiter((int(r) for r in record_ids), dtype=np.int64))
    direct = _read_chunks(conn, wanted) if scan_all is None and len(wanted) else None
    if direct is not None:
        found, matrix = direct
        return wanted[found], (matrix if found.all() else matrix[found])
    if scan_all is None:
        total = conn.execute("SELECT count(*) FROM record_vectors").fetchone()[0]
        scan_all = len(wanted) > 0.2 * total
    if scan_all:
        cursors = [conn.execute("SELECT record_id, embedding FROM record_vectors")]
    else:
        cursors = (conn.execute("SELECT record_id, embedding FROM record_vectors WHERE record_id IN "
                                f"({','.join('?' * len(part))})", part.tolist())
                   for part in (wanted[s:s + 500] for s in range(0, len(wanted), 500)))
    matrix, found = None, np.zeros(len(wanted), dtype=bool)
    for cursor in cursors:
        while rows := cursor.fetchmany(batch):
            rids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
            pos = np.minimum(np.searchsorted(wanted, rids), max(len(wanted) - 1, 0))
            keep = (wanted[pos] == rids) if len(wanted) else np.zeros(len(rows), dtype=bool)
            if not keep.any():
                continue
            block = np.frombuffer(b"".join(r[1] for r, k in zip(rows, keep) if k), dtype=np.float32)
            if matrix is None:
                matrix = np.empty((len(wanted), len(rows[int(np.argmax(keep))][1]) // 4), dtype=np.float32)
            matrix[pos[keep]] = block.reshape(int(keep.sum()), -1)
            found[pos[keep]] = True
    if matrix is None:
        return np.zeros(0, dtype=np.int64), np.zeros((0, DIMENSIONS), dtype=np.float32)
    if not found.all():  # compact in place, in slices (each slice reads only rows at or after it)
        index = np.flatnonzero(found)
        for s in range(0, len(index), 65536):
            part = index[s:s + 65536]
            matrix[s:s + len(part)] = matrix[part]
        matrix = matrix[:len(index)]
    return wanted[found], matrix


def _ids_hash(ids) -> str:
    return hashlib.sha256(",".join(map(str, sorted(int(i) for i in ids))).encode()).hexdigest()[:16]


def reduce_dimensions(vectors: np.ndarray, n_components: int) -> np.ndarray:
    """Exact PCA to ``n_components`` dimensions, then L2-normalised rows.

    Computed from the ``d x d`` covariance matrix (one pass over the data and a
    small eigendecomposition: much faster than an SVD of the data for
    ``n >> d``), with each component's sign fixed so its largest loading is
    positive: the same vectors always give the same coordinates.
    """
    mean, components = fit_reduction(vectors, n_components)
    return apply_reduction(vectors, mean, components)


def fit_reduction(vectors: np.ndarray, n_components: int) -> tuple[np.ndarray, np.ndarray]:
    """``(mean, components)`` of :func:`reduce_dimensions`'s PCA, to project other rows with
    :func:`apply_reduction` (a large topic's rows, in batches, with the PCA of its sample)."""
    x = np.asarray(vectors, dtype=np.float32)
    n, d = x.shape
    k = max(1, min(n_components, n - 1, d))
    mean = x.mean(axis=0, dtype=np.float64).astype(np.float32)
    centred = np.empty(x.shape, dtype=np.float64)
    np.subtract(x, mean, out=centred)
    from scipy.linalg import eigh
    from threadpoolctl import threadpool_limits

    # one BLAS thread: these matrices are small, and threads fighting over shared cores cost 10x;
    # float64 throughout, so the components are the same under every BLAS kernel (corpuskit.numerics)
    with threadpool_limits(1):
        cov = (centred.T @ centred) / max(n - 1, 1)
        del centred
        values, vecs = eigh(cov, subset_by_index=(d - k, d - 1))
    components = vecs[:, np.argsort(values)[::-1]]
    signs = np.sign(components[np.abs(components).argmax(axis=0), np.arange(k)])
    return mean, components * np.where(signs == 0, 1, signs)


def apply_reduction(vectors: np.ndarray, mean: np.ndarray, components: np.ndarray) -> np.ndarray:
    """Rows projected on a :func:`fit_reduction` PCA and L2-normalised (float64)."""
    x = np.asarray(vectors, dtype=np.float32)
    # the float32 difference, widened as it is written: the values of ``(x - mean).astype(float64)``
    # without its float32 copy of the matrix (40 MiB for a 20,000-record sample)
    centred = np.empty(x.shape, dtype=np.float64)
    np.subtract(x, mean, out=centred)
    reduced = centred @ components
    del centred
    norms = np.linalg.norm(reduced, axis=1, keepdims=True)
    return reduced / np.where(norms > 0, norms, 1.0)


#: a large topic's vectors are projected this many rows at a time
REDUCE_BATCH = 8192
#: and read this many at a time (64 MiB of 512-d float32 vectors)
READ_BATCH = 32768


def reduce_topic(conn, record_ids, n_components: int, fit_sample: int,
                 seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(ids, reduced, fitted)`` of one topic's records, read from ``record_vectors``.

    A topic of at most ``fit_sample`` records is read whole and reduced by
    :func:`reduce_dimensions` (``fitted`` all True). A larger one never holds its
    512-d vectors at once: the PCA is fitted on a seeded sample of ``fit_sample``
    records (``fitted`` marks them; :class:`TopicClusterer` fits HDBSCAN on the same
    sample), and the other records are read and projected ``REDUCE_BATCH`` at a time,
    so memory grows with the topic by ``n_components`` floats a record, not 512.
    """
    ids = np.unique(np.fromiter((int(r) for r in record_ids), dtype=np.int64))
    if len(ids) <= fit_sample:
        found, vectors = read_vectors(conn, ids)
        return found, (reduce_dimensions(vectors, n_components) if len(found) >= 2
                       else np.zeros((len(found), 1))), np.ones(len(found), dtype=bool)
    sample = np.zeros(len(ids), dtype=bool)
    sample[np.random.default_rng(seed).choice(len(ids), fit_sample, replace=False)] = True
    sample_ids, vectors = read_vectors(conn, ids[sample])
    mean, components = fit_reduction(vectors, n_components)
    parts = [(sample_ids, apply_reduction(vectors, mean, components))]
    del vectors
    rest = ids[~sample]
    # read READ_BATCH rows at a time (each read touches most of the store's chunks), projected
    # REDUCE_BATCH at a time: the same products, bit for bit, as reading REDUCE_BATCH at a time
    step = max(REDUCE_BATCH, READ_BATCH // REDUCE_BATCH * REDUCE_BATCH)
    for lo in range(0, len(rest), step):
        block = rest[lo:lo + step]
        block_ids, block_vectors = read_vectors(conn, block)
        for sub in range(0, len(block), REDUCE_BATCH):
            keep = np.isin(block_ids, block[sub:sub + REDUCE_BATCH])
            parts.append((block_ids[keep], apply_reduction(block_vectors[keep], mean, components)))
        del block_vectors
    found = np.concatenate([p[0] for p in parts])
    order = np.argsort(found, kind="stable")
    reduced = np.concatenate([p[1] for p in parts])[order]
    fitted = np.zeros(len(found), dtype=bool)
    fitted[:len(sample_ids)] = True
    return found[order], reduced, fitted[order]


#: rows outside a large topic's sample given a cluster by :func:`assign_nearest` at a time
PREDICT_BATCH = 50_000


def assign_nearest(points: np.ndarray, labels: np.ndarray, queries: np.ndarray, min_samples: int,
                   batch: int = PREDICT_BATCH) -> np.ndarray:
    """Cluster labels of ``queries`` from the clustered ``points`` (HDBSCAN's ``labels``, -1 noise).

    A query takes the label of its nearest point (Euclidean, in the reduced space) unless that
    point is noise or farther from it than the cluster's own spread, then it is noise (-1). A
    cluster's spread is the largest core distance of its points: the distance to a point's
    ``min_samples``-th nearest point, itself counted, as HDBSCAN measures density. One KD-tree
    over ``points``, queried ``batch`` rows at a time; deterministic (no randomness, ties fixed
    by the tree built from the same points).
    """
    from sklearn.neighbors import KDTree

    points = np.ascontiguousarray(points, dtype=np.float64)
    labels = np.asarray(labels, dtype=np.int64)
    out = np.full(len(queries), -1, dtype=np.int64)
    clusters = labels[labels >= 0]
    if not len(clusters) or not len(queries):
        return out
    tree = KDTree(points)
    k = max(1, min(int(min_samples), len(points)))
    core = tree.query(points, k=k)[0][:, -1]
    spread = np.zeros(int(clusters.max()) + 1)
    np.maximum.at(spread, clusters, core[labels >= 0])
    for lo in range(0, len(queries), batch):
        dist, nearest = tree.query(np.asarray(queries[lo:lo + batch], dtype=np.float64), k=1)
        found = labels[nearest[:, 0]]
        inside = (found >= 0) & (dist[:, 0] <= spread[np.maximum(found, 0)])
        out[lo:lo + batch] = np.where(inside, found, -1)
    return out


class TopicClusterer:
    """HDBSCAN over PCA-reduced embeddings of one topic's records.

    Parameters
    ----------
    n_components : int
        Dimensions kept by the seeded PCA before clustering.
    min_cluster_size : int, optional
        HDBSCAN's smallest cluster; default ``clip(2% of records, 10, 100)``.
    min_samples : int, optional
        HDBSCAN's density parameter; default ``min(5, min_cluster_size)``.
    silhouette_sample : int
        Most points used for the silhouette.
    fit_sample : int
        A topic with more records is clustered on a seeded sample of this many
        (HDBSCAN's cost grows faster than its input: a 140,000-record topic took
        minutes); every other record then gets the cluster of its nearest sample
        point in the reduced space, or none (:func:`assign_nearest`). Topics at or under it are
        clustered whole, exactly as before. :func:`cluster_corpus` also fits the
        PCA of such a topic on the sample (:func:`reduce_topic`), so its memory
        does not grow with the topic's 512-d vectors.
    seed : int
        Seeds the silhouette sample and the fit sample (the PCA is exact).
    """

    def __init__(self, n_components: int = 15, min_cluster_size: int | None = None,
                 min_samples: int | None = None, silhouette_sample: int = 2000, fit_sample: int = 20000,
                 seed: int = 0):
        self.n_components = n_components
        self.min_cluster_size = min_cluster_size
        self.min_samples = min_samples
        self.silhouette_sample = silhouette_sample
        self.fit_sample = fit_sample
        self.seed = seed

    def fit(self, vectors: np.ndarray) -> "TopicClusterer":
        """Reduce and cluster; sets ``reduced_``, ``labels_``, ``coords_``, ``silhouettes_``."""
        n = len(vectors)
        if n < 3:
            raise ValidationError(f"need at least 3 records to cluster, got {n}")
        fitted = np.ones(n, dtype=bool)
        if n > self.fit_sample:
            fitted = np.zeros(n, dtype=bool)
            fitted[np.random.default_rng(self.seed).choice(n, self.fit_sample, replace=False)] = True
        return self.fit_reduced(reduce_dimensions(vectors, self.n_components), fitted)

    def fit_reduced(self, reduced: np.ndarray, fitted: np.ndarray) -> "TopicClusterer":
        """Cluster rows already reduced (:func:`reduce_topic`): HDBSCAN is fitted on the rows
        ``fitted`` marks, and when that is not all of them every other row gets the cluster of
        its nearest fitted row, or none (:func:`assign_nearest`, ``PREDICT_BATCH`` rows at a time)."""
        import hdbscan

        n = len(reduced)
        if n < 3:
            raise ValidationError(f"need at least 3 records to cluster, got {n}")
        sample = np.flatnonzero(fitted)
        mcs = self.min_cluster_size or int(np.clip(round(0.02 * len(sample)), 10, 100))
        mcs = max(2, min(mcs, len(sample)))
        ms = self.min_samples or min(5, mcs)
        if len(sample) == n:
            model = hdbscan.HDBSCAN(min_cluster_size=mcs, min_samples=ms, core_dist_n_jobs=1)
            self.labels_ = model.fit_predict(reduced)
        else:
            model = hdbscan.HDBSCAN(min_cluster_size=mcs, min_samples=ms, core_dist_n_jobs=1)
            labels = np.full(n, -1, dtype=np.int64)
            labels[sample] = model.fit_predict(reduced[sample])
            rest = np.flatnonzero(~fitted)
            labels[rest] = assign_nearest(reduced[sample], labels[sample], reduced[rest], ms)
            self.labels_ = labels
        self.reduced_ = reduced
        self.coords_ = reduced[:, :2]
        self.silhouettes_ = self._silhouettes(reduced, self.labels_)
        return self

    def _silhouettes(self, reduced, labels) -> dict:
        """Mean silhouette per cluster label on the reduced space (see module docstring)."""
        from sklearn.metrics import silhouette_samples

        clusters = sorted(set(labels.tolist()) - {-1})
        if not clusters:
            return {}
        scoring = labels.copy()
        if len(clusters) == 1:
            if (labels == -1).sum() < 2:
                return {clusters[0]: 0.0}
            points = np.arange(len(labels))  # one cluster: scored against the unclustered rest
        else:
            points = np.flatnonzero(labels >= 0)
        if len(points) > self.silhouette_sample:
            rng = np.random.default_rng(self.seed)
            points = np.sort(rng.choice(points, self.silhouette_sample, replace=False))
        if len(set(scoring[points].tolist())) < 2:
            return {c: 0.0 for c in clusters}
        values = silhouette_samples(reduced[points], scoring[points], metric="euclidean")
        out = {}
        overall = float(values[scoring[points] >= 0].mean())
        for c in clusters:
            mine = values[scoring[points] == c]
            out[c] = round(float(mine.mean()) if len(mine) else overall, 4)
        return out


def cluster_corpus(corpus, run_id: str, seed: int = 0, progress: bool = False,
                   n_components: int = 15, min_cluster_size: int | None = None,
                   min_samples: int | None = None, top_terms: int = 8,
                   lineage_jaccard: float = 0.3, refit_growth: float = 0.1,
                   min_topic_records: int = 20, silhouette_sample: int = 2000,
                   fit_sample: int = 20000) -> dict:
    """Cluster every topic's records and store the clusters under ``run_id``.

    See the module docstring. Returns ``{topics, fitted, carried, skipped,
    clusters, records, clustered}``. Writes in one transaction.
    """
    conn = corpus.conn
    params = {"n_components": n_components, "min_cluster_size": min_cluster_size,
              "min_samples": min_samples, "top_terms": top_terms, "seed": seed,
              "silhouette_sample": silhouette_sample, "fit_sample": fit_sample}
    now = iso(corpus.now())
    state = corpus.get_meta(STATE_KEY) or {}
    topics = conn.execute("SELECT id, name FROM topics ORDER BY id").fetchall()
    members: dict[int, list[int]] = {}
    for rid, tid in conn.execute("SELECT record_id, topic_id FROM enrichment WHERE topic_id IS NOT NULL "
                                 "ORDER BY record_id"):
        members.setdefault(tid, []).append(rid)
    summary = {"topics": 0, "fitted": 0, "carried": 0, "skipped": 0, "clusters": 0, "records": 0,
               "clustered": 0}
    new_state = {}
    with corpus.transaction():
        conn.execute("DELETE FROM clusters WHERE run_id = ?", (run_id,))
        to_fit = []
        for tid, tname in topics:
            ids = members.get(tid, [])
            summary["topics"] += 1
            summary["records"] += len(ids)
            previous = state.get(str(tid))
            if len(ids) < min_topic_records:
                summary["skipped"] += 1
                continue
            if previous and previous.get("params") == params and _unchanged(previous, ids, refit_growth):
                n = _carry(conn, previous["run_id"], tid, run_id)
                if n or previous.get("clusters") == 0:
                    new_state[str(tid)] = {**previous, "run_id": run_id}
                    summary["carried"] += 1
                    summary["clusters"] += n
                    summary["clustered"] += conn.execute(
                        "SELECT coalesce(sum(record_count), 0) FROM clusters WHERE run_id=? AND topic_id=?",
                        (run_id, tid)).fetchone()[0]
                    continue
            to_fit.append((tid, tname, ids))
        formats = corpus_formats(conn) if to_fit else []
        if progress:
            from tqdm.auto import tqdm

            to_fit = tqdm(to_fit, desc="clusters", unit="topic")
        for tid, tname, ids in to_fit:
            # one topic's vectors at a time (a large topic's in batches): never the corpus's
            found, reduced, fitted = reduce_topic(conn, ids, n_components, fit_sample, seed)
            if len(found) < min_topic_records:
                summary["skipped"] += 1
                continue
            model = TopicClusterer(n_components=n_components, min_cluster_size=min_cluster_size,
                                   min_samples=min_samples, silhouette_sample=silhouette_sample,
                                   fit_sample=fit_sample, seed=seed).fit_reduced(reduced, fitted)
            del reduced
            n, clustered = _store_topic(conn, corpus, run_id, tid, tname, found, model, top_terms,
                                        lineage_jaccard, now, formats)
            new_state[str(tid)] = {"params": params, "run_id": run_id, "fitted_count": len(ids),
                                   "max_id": int(max(ids)), "ids_hash": _ids_hash(ids), "clusters": n}
            summary["fitted"] += 1
            summary["clusters"] += n
            summary["clustered"] += clustered
        corpus.set_meta(STATE_KEY, new_state)
    return summary


def _unchanged(previous: dict, ids: list[int], refit_growth: float) -> bool:
    """True when the records fitted last time are all still here and growth is small."""
    old = [i for i in ids if i <= previous["max_id"]]
    if len(old) != previous["fitted_count"] or _ids_hash(old) != previous["ids_hash"]:
        return False
    grown = len(ids) - len(old)
    return grown <= refit_growth * max(previous["fitted_count"], 1)


def _carry(conn, old_run: str, topic_id: int, run_id: str) -> int:
    """Copy a topic's clusters (and members) from ``old_run`` into ``run_id``; returns the count."""
    rows = conn.execute("SELECT id, cluster_label, lineage_id, record_count, top_terms, summary_label, "
                        "metadata, created_at FROM clusters WHERE run_id=? AND topic_id=? ORDER BY id",
                        (old_run, topic_id)).fetchall()
    for row in rows:
        meta = json.loads(row["metadata"])
        meta["refit"] = False
        cur = conn.execute(
            "INSERT INTO clusters(run_id, topic_id, cluster_label, lineage_id, record_count, top_terms, "
            "summary_label, metadata, created_at) VALUES (?,?,?,?,?,?,?,?,?)",
            (run_id, topic_id, row["cluster_label"], row["lineage_id"], row["record_count"],
             row["top_terms"], row["summary_label"], json.dumps(meta, sort_keys=True), row["created_at"]))
        conn.execute("INSERT INTO cluster_members(cluster_id, record_id) SELECT ?, record_id "
                     "FROM cluster_members WHERE cluster_id = ?", (cur.lastrowid, row["id"]))
    return len(rows)


def _previous_clusters(conn, topic_id: int, run_id: str) -> dict[str, set]:
    """Lineage id -> member set of the topic's clusters in its most recent other run."""
    row = conn.execute("SELECT run_id FROM clusters WHERE topic_id = ? AND run_id != ? "
                       "ORDER BY id DESC LIMIT 1", (topic_id, run_id)).fetchone()
    if row is None:
        return {}
    out: dict[str, set] = {}
    for lineage, rid in conn.execute(
            "SELECT c.lineage_id, m.record_id FROM clusters c JOIN cluster_members m ON m.cluster_id = c.id "
            "WHERE c.run_id = ? AND c.topic_id = ?", (row[0], topic_id)):
        out.setdefault(lineage, set()).add(rid)
    return out


#: At most this many records of each cluster (and of the unclustered) are read for the terms:
#: word frequencies settle long before, and tokenising a 140,000-record topic in full took minutes.
TERMS_SAMPLE = 3000


def _terms_sample(labels, size: int = TERMS_SAMPLE) -> np.ndarray:
    """Positions of at most ``size`` members of each label, a seeded sample, in their order."""
    rng = np.random.default_rng(0)
    keep = []
    for label in np.unique(labels):
        members = np.flatnonzero(labels == label)
        if len(members) > size:
            members = np.sort(rng.choice(members, size, replace=False))
        keep.append(members)
    return np.sort(np.concatenate(keep)) if keep else np.arange(0)


#: the corpus's title formats ("Ask HN:") are found on at most this many records (every n-th by id)
FORMATS_SAMPLE = 20_000


def corpus_formats(conn) -> list[str]:
    """The title formats of the corpus (:func:`~corpuskit.enrich.topic_terms.format_prefixes`), from
    every n-th record by id, at most ``FORMATS_SAMPLE``: labels pass over them."""
    top = conn.execute("SELECT coalesce(max(id), 0) FROM records").fetchone()[0]
    stride = max(1, top // FORMATS_SAMPLE)
    return format_prefixes([t for (t,) in conn.execute(
        "SELECT coalesce(nullif(title, ''), content_text) FROM records WHERE id % ? = 0 ORDER BY id", (stride,))])


def _texts(conn, ids) -> dict[int, tuple]:
    """``{id: (title, content_text)}`` of ``ids``, read 500 at a time."""
    ids = [int(i) for i in ids]
    out = {}
    for lo in range(0, len(ids), 500):
        part = ids[lo:lo + 500]
        out.update((r[0], (r[1], r[2])) for r in conn.execute(
            f"SELECT id, title, content_text FROM records WHERE id IN ({','.join('?' * len(part))})", part))
    return out


def _doc(texts, record_id) -> str:
    """A record's text as enrichment reads it (a title equal to the text once)."""
    return record_text(*texts[int(record_id)])


def _store_topic(conn, corpus, run_id, topic_id, topic_name, ids, model, top_n, threshold, now, formats=()):
    labels = model.labels_
    clusters = sorted(set(labels.tolist()) - {-1})
    if not clusters:
        return 0, 0
    # the texts read are the terms' sample and each cluster's first 400 members (the label's
    # examples), never every member's: a large topic's texts took hundreds of MiB
    sample = _terms_sample(labels)
    firsts = {c: np.flatnonzero(labels == c)[:400] for c in clusters}
    texts = _texts(conn, ids[np.union1d(sample, np.concatenate(list(firsts.values())))])
    terms = class_tfidf_terms([_doc(texts, ids[i]) for i in sample], labels[sample], top_n=top_n)
    labels = np.where(np.isin(labels, [c for c in clusters if not terms.get(c)]), -1, labels)
    clusters = [c for c in clusters if terms.get(c)]
    if not clusters:
        return 0, 0
    new_members = {c: set(ids[labels == c].tolist()) for c in clusters}
    lineages = match_lineages(new_members, _previous_clusters(conn, topic_id, run_id), threshold)
    clustered = 0
    for c in clusters:
        mask = labels == c
        member_ids = ids[mask]
        points = model.reduced_[mask]
        centroid = points.mean(axis=0)
        central = int(member_ids[np.argmin(np.linalg.norm(points - centroid, axis=1))])
        central_text = texts.get(central) or _texts(conn, [central])[central]
        title = (central_text[0] or central_text[1] or "").strip()
        top = terms[c]
        label_text = readable_label(top, [_doc(texts, ids[i]) for i in firsts[c]], formats=formats)
        lineage = lineages.get(c) or "lin-" + hashlib.sha256(
            f"{topic_name}|{run_id}|{c}|{_ids_hash(member_ids)}".encode()).hexdigest()[:12]
        xy = model.coords_[mask].mean(axis=0)
        meta = {"silhouetteScore": model.silhouettes_.get(c, 0.0),
                "centralTitle": title if len(title) <= 120 else title[:117].rstrip() + "...", "x": round(float(xy[0]), 4),
                "y": round(float(xy[1]), 4), "centralRecordId": central, "refit": True,
                "topicRecords": int(len(ids)), "noise": int((labels == -1).sum())}
        cur = conn.execute(
            "INSERT INTO clusters(run_id, topic_id, cluster_label, lineage_id, record_count, top_terms, "
            "summary_label, metadata, created_at) VALUES (?,?,?,?,?,?,?,?,?)",
            (run_id, topic_id, int(c), lineage, int(mask.sum()), json.dumps(top), label_text,
             json.dumps(meta, sort_keys=True), now))
        conn.executemany("INSERT INTO cluster_members(cluster_id, record_id) VALUES (?, ?)",
                         [(cur.lastrowid, int(r)) for r in member_ids])
        clustered += int(mask.sum())
    return len(clusters), clustered


def _cluster_dict(row) -> dict:
    meta = json.loads(row["metadata"])
    meta["lineageId"] = row["lineage_id"]
    return {"id": row["id"], "runId": row["run_id"], "topic": row["topic"],
            "clusterLabel": row["cluster_label"], "recordCount": row["record_count"],
            "topTerms": json.loads(row["top_terms"]), "summaryLabel": row["summary_label"],
            "metadata": meta, "createdAt": row["created_at"]}


def latest_run(corpus) -> str | None:
    """The run id of the most recent clustering run (``None`` before any)."""
    row = corpus.conn.execute("SELECT run_id FROM clusters ORDER BY id DESC LIMIT 1").fetchone()
    return row[0] if row else None


def latest_clusters(corpus, topic: str | None = None, limit: int = 50) -> list[dict]:
    """Clusters of the latest run in the keyed spec's Cluster shape, largest first.

    ``metadata`` holds ``silhouetteScore`` (closer to 1 is better), ``lineageId``
    and the map coordinates ``x``/``y``. Unknown topic names give an empty list.
    """
    if limit < 1:
        raise ValidationError(f"limit must be at least 1, not {limit}")
    run = latest_run(corpus)
    if run is None:
        return []
    sql = ("SELECT c.*, t.name AS topic FROM clusters c JOIN topics t ON t.id = c.topic_id "
           "WHERE c.run_id = ?")
    args: list = [run]
    if topic is not None:
        sql += " AND t.name = ?"
        args.append(topic)
    sql += " ORDER BY c.record_count DESC, t.name, c.cluster_label LIMIT ?"
    args.append(int(limit))
    return [_cluster_dict(r) for r in corpus.conn.execute(sql, args)]


def cluster_points(corpus, topic: str, run_id: str | None = None):
    """Members of a topic's clusters (latest run) with 2-D map coordinates, as a DataFrame.

    Columns: ``record_id, clusterLabel, x, y, title`` (``clusterLabel`` -1 for
    the topic's unclustered records). The coordinates are recomputed with the
    same seeded reduction the clustering used.
    """
    import pandas as pd

    conn = corpus.conn
    run_id = run_id or latest_run(corpus)
    tid = topic_by_name(conn, topic)["id"]
    ids = [r[0] for r in conn.execute("SELECT record_id FROM enrichment WHERE topic_id = ? ORDER BY record_id",
                                      (tid,))]
    settings = corpus.get_meta(STATE_KEY, {}).get(str(tid), {}).get("params", {})
    found, reduced, _ = reduce_topic(conn, ids, settings.get("n_components", 15),
                                     settings.get("fit_sample", 20000), settings.get("seed", 0))
    labels = dict(conn.execute(
        "SELECT m.record_id, c.cluster_label FROM clusters c JOIN cluster_members m ON m.cluster_id = c.id "
        "WHERE c.run_id = ? AND c.topic_id = ?", (run_id, tid)).fetchall())
    if len(found) < 3:
        return pd.DataFrame(columns=["record_id", "clusterLabel", "x", "y", "title"])
    titles = dict(conn.execute(f"SELECT id, title FROM records WHERE id IN ({','.join(map(str, found.tolist()))})"))
    return pd.DataFrame({"record_id": found, "clusterLabel": [labels.get(int(i), -1) for i in found],
                         "x": reduced[:, 0], "y": reduced[:, 1],
                         "title": [titles.get(int(i), "") for i in found]})
