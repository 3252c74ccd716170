"""A memory-mapped search index beside the corpus file: binary codes for a first pass, exact re-rank.

sqlite-vec's ``record_vectors`` stays the store of record. For speed at a million records, search reads a
folder beside the corpus, ``<corpus>.search/``, written once per enrichment version and memory-mapped by
every server process (the operating system's page cache holds one copy, shared by all of them):

- ``vectors.f32``: the float32 vectors, rows ordered by (source, publishedAt, id), so that a source filter
  is a contiguous slice and a ``days`` filter a binary search inside it;
- ``codes.u64``: one bit per dimension, the sign of the vector minus the corpus mean (64 bytes a record at
  512 dimensions, 1/32 of the floats);
- ``ids.i64``, ``published.i64``, ``topics.i64``: the filter columns; ``index.json``: the version stamp,
  sizes, the mean and the source spans.

A query ranks the rows that pass the filters by Hamming distance between codes (XOR and a bit count), keeps
the ``candidates`` closest, and re-ranks those by the exact cosine from the float vectors. With at most
``candidates`` rows passing the filters the answer is exact. The folder is rebuilt, into a temporary
folder renamed into place, when the corpus's enrichment version changes.
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

FORMAT = 1
#: Rows re-ranked exactly after the Hamming pass. On the 1,000,000-record demo, recall@10 against an exact
#: scan was 0.89 with 4,096 and 0.97 with 8,192 or 16,384 (ten seeded queries).
DEFAULT_CANDIDATES = 16384
CHUNK = 65_536


@dataclass
class VectorIndex:
    """A loaded (memory-mapped) index; see the module docstring for the layout."""

    stamp: list
    vectors: np.ndarray     # (n, d) float32, memory-mapped
    codes: np.ndarray       # (n, d/64) uint64, memory-mapped
    ids: np.ndarray
    published: np.ndarray
    topics: np.ndarray
    spans: dict
    mean: np.ndarray

    @property
    def size(self) -> int:
        return len(self.ids)

    def encode(self, query: np.ndarray) -> np.ndarray:
        """The binary code of ``query`` (a float vector)."""
        return _pack(((query - self.mean) > 0)[None, :])[0]

    def rank(self, query: np.ndarray, source=None, topic_id=None, since=None, limit: int = 20,
             candidates: int = DEFAULT_CANDIDATES, floor: float = 0.0) -> tuple[np.ndarray, np.ndarray, int]:
        """Filtered top-``limit``: ``(record ids, cosines, matched count)``.

        ``matched`` counts the filtered rows among the re-ranked candidates whose cosine is positive and
        at least ``floor``; it is exact whenever the filters leave at most ``candidates`` rows.
        """
        start, end = (0, self.size) if source is None else self.spans.get(source, (0, 0))
        if since is not None and source is not None:
            start += int(np.searchsorted(self.published[start:end], since, side="left"))
        if end <= start:
            return np.zeros(0, np.int64), np.zeros(0, np.float32), 0
        rows = None
        if since is not None and source is None:
            rows = np.flatnonzero(self.published[start:end] >= since) + start
        if topic_id is not None:
            in_topic = np.flatnonzero(self.topics[start:end] == topic_id) + start
            rows = in_topic if rows is None else np.intersect1d(rows, in_topic, assume_unique=True)
        count = (end - start) if rows is None else len(rows)
        if count == 0:
            return np.zeros(0, np.int64), np.zeros(0, np.float32), 0
        if count > candidates:
            code = self.encode(query)
            if rows is None:
                dist = np.empty(count, dtype=np.int32)
                for lo in range(start, end, CHUNK):
                    hi = min(lo + CHUNK, end)
                    dist[lo - start:hi - start] = np.bitwise_count(self.codes[lo:hi] ^ code).sum(axis=1)
                near = np.argpartition(dist, candidates - 1)[:candidates] + start
            else:
                dist = np.bitwise_count(self.codes[rows] ^ code).sum(axis=1)
                near = rows[np.argpartition(dist, candidates - 1)[:candidates]]
            rows = np.sort(near)
        elif rows is None:
            rows = np.arange(start, end)
        scores = self.vectors[rows] @ query
        keep = (scores >= floor) & (scores > 0)
        matched = int(keep.sum())
        rows, scores = rows[keep], scores[keep]
        k = min(limit, len(rows))
        if k == 0:
            return np.zeros(0, np.int64), np.zeros(0, np.float32), matched
        top = np.argpartition(-scores, k - 1)[:k] if k < len(rows) else np.arange(len(rows))
        ids = self.ids[rows[top]]
        order = np.lexsort((ids, -scores[top]))
        return ids[order], scores[top][order].astype(np.float32), matched


def _pack(bits: np.ndarray) -> np.ndarray:
    """Pack a (n, d) boolean array into (n, ceil(d/64)) uint64 words."""
    n, d = bits.shape
    width = -(-d // 64) * 64
    if width != d:
        bits = np.pad(bits, ((0, 0), (0, width - d)))
    return np.packbits(bits, axis=1).view(np.uint64).reshape(n, width // 64)


def index_dir(corpus_path) -> Path:
    """Where the index of the corpus file ``corpus_path`` lives."""
    path = Path(corpus_path)
    return path.with_name(path.name + ".search")


def write_index(folder: Path, stamp, ids, published, topics, spans: dict, vector_chunks, dimensions: int) -> None:
    """Write an index into ``folder`` (replaced atomically). ``vector_chunks`` yields (rows, d) float32 arrays
    in row order, so that a million vectors never need to sit in memory at once."""
    folder = Path(folder)
    tmp = Path(tempfile.mkdtemp(prefix=folder.name + ".", dir=folder.parent))
    try:
        n = len(ids)
        vectors = np.lib.format.open_memmap(tmp / "vectors.npy", mode="w+", dtype=np.float32, shape=(n, dimensions))
        total, pos = np.zeros(dimensions, np.float64), 0
        for chunk in vector_chunks:
            vectors[pos:pos + len(chunk)] = chunk
            total += chunk.sum(axis=0, dtype=np.float64)
            pos += len(chunk)
        if pos != n:
            raise ValueError(f"vector chunks held {pos} rows, expected {n}")
        mean = (total / max(n, 1)).astype(np.float32)
        codes = np.lib.format.open_memmap(tmp / "codes.npy", mode="w+", dtype=np.uint64,
                                          shape=(n, -(-dimensions // 64)))
        for lo in range(0, n, CHUNK):
            codes[lo:lo + CHUNK] = _pack(vectors[lo:lo + CHUNK] > mean)
        vectors.flush()
        codes.flush()
        del vectors, codes
        for name, arr in (("ids", ids), ("published", published), ("topics", topics)):
            np.save(tmp / f"{name}.npy", np.asarray(arr, dtype=np.int64))
        (tmp / "index.json").write_text(json.dumps({
            "format": FORMAT, "stamp": list(stamp), "size": int(n), "dimensions": int(dimensions),
            "mean": mean.tolist(), "spans": {k: list(v) for k, v in spans.items()},
        }), encoding="utf-8")
        for f in tmp.iterdir():
            os.chmod(f, 0o600)
        old = folder.with_name(folder.name + ".old")
        if folder.exists():
            shutil.rmtree(old, ignore_errors=True)
            folder.rename(old)
        tmp.rename(folder)
        shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def read_index(folder: Path, stamp) -> VectorIndex | None:
    """The index in ``folder`` if it exists and was written for ``stamp``; else None."""
    folder = Path(folder)
    try:
        meta = json.loads((folder / "index.json").read_text(encoding="utf-8"))
        if meta.get("format") != FORMAT or meta.get("stamp") != list(stamp):
            return None
        load = {name: np.load(folder / f"{name}.npy", mmap_mode="r")
                for name in ("vectors", "codes", "ids", "published", "topics")}
    except (OSError, ValueError, KeyError):
        return None
    return VectorIndex(stamp=meta["stamp"], vectors=load["vectors"], codes=load["codes"], ids=load["ids"],
                       published=load["published"], topics=load["topics"],
                       spans={k: tuple(v) for k, v in meta["spans"].items()},
                       mean=np.asarray(meta["mean"], dtype=np.float32))
