"""Writing the memory-mapped search index streams: the same files as from the whole matrix, in bounded blocks,
through the chunk tables or the plain scan."""
from __future__ import annotations

import shutil

import numpy as np
import pytest

import corpuskit.search as S
import corpuskit.vector_index as V
from corpuskit import open_corpus
from corpuskit.vector_index import index_dir, read_index, write_index


@pytest.fixture
def corpus(demo_copy):
    return demo_copy


def _files(folder) -> dict:
    return {f.name: f.read_bytes() for f in sorted(folder.iterdir())}


def _reference(corpus, tmp_path, rows: int = 65536) -> dict:
    """The files written from the whole in-process matrix (how the index was written before it streamed)."""
    full = S.build_index(corpus.conn)
    folder = tmp_path / "reference.search"
    write_index(folder, list(full.stamp), full.ids, full.published, full.topics, full.spans,
                (full.matrix[i:i + rows] for i in range(0, len(full.ids), rows)), full.matrix.shape[1])
    return _files(folder)


def _streamed(corpus) -> dict:
    folder = index_dir(corpus.path)
    shutil.rmtree(folder, ignore_errors=True)
    index = S.quantised_index(corpus)
    assert index.quantised is not None and index.quantised.size == len(index.ids)
    return _files(folder)


def test_streamed_index_is_the_whole_matrix_index_byte_for_byte(corpus, tmp_path):
    expected = _reference(corpus, tmp_path)
    files = _streamed(corpus)
    assert files == expected and set(files) == {"vectors.npy", "codes.npy", "scaled.npy", "ids.npy",
                                                 "published.npy", "topics.npy", "index.json"}
    full, mapped = S.build_index(corpus.conn), read_index(index_dir(corpus.path), list(S._stamp(corpus.conn)))
    assert np.array_equal(mapped.vectors, full.matrix) and np.array_equal(mapped.ids, full.ids)
    assert mapped.spans == full.spans and np.array_equal(mapped.published, full.published)
    # independently of the build: rows are the records with a vector, ordered by (source, published_at, id)
    vectors = dict(corpus.conn.execute("SELECT record_id, embedding FROM record_vectors").fetchall())
    meta = corpus.conn.execute("SELECT r.id, r.source, r.published_at, coalesce(e.topic_id, -1) FROM records r "
                               "LEFT JOIN enrichment e ON e.record_id = r.id").fetchall()
    rows = sorted((r for r in meta if r[0] in vectors), key=lambda r: (r[1], r[2], r[0]))
    assert mapped.ids.tolist() == [r[0] for r in rows] and len(rows) > 100
    assert mapped.topics.tolist() == [r[3] for r in rows]
    for i in range(0, len(rows), 97):
        assert mapped.vectors[i].tobytes() == bytes(vectors[rows[i][0]])


def test_small_blocks_give_the_same_files_and_stay_bounded(corpus, tmp_path, monkeypatch):
    expected = _reference(corpus, tmp_path)
    sizes = []
    write = V.write_index

    def spy(folder, stamp, ids, published, topics, spans, chunks, dimensions):
        def counted():
            for chunk in chunks:
                sizes.append(len(chunk))
                yield chunk
        return write(folder, stamp, ids, published, topics, spans, counted(), dimensions)

    monkeypatch.setattr(S, "write_index", spy)
    monkeypatch.setattr(S, "BUILD_BLOCK", 97)   # not a divisor of CHUNK: the mean is summed on a re-read
    assert _streamed(corpus) == expected
    assert max(sizes) == 97 and len(sizes) == -(-sum(sizes) // 97)


def test_write_index_sums_on_its_own_grid(corpus, tmp_path, monkeypatch):
    """With a small CHUNK (the block write_index reads back), aligned and unaligned chunks agree."""
    monkeypatch.setattr(V, "CHUNK", 256)
    expected = _reference(corpus, tmp_path, rows=256)
    assert _reference(corpus, tmp_path, rows=1000) == expected
    monkeypatch.setattr(S, "BUILD_BLOCK", 256)
    assert _streamed(corpus) == expected


def test_layout_mismatch_falls_back_to_the_plain_scan(corpus, tmp_path, monkeypatch):
    expected = _reference(corpus, tmp_path)
    copy = S._copy_vector_chunks
    calls = []

    def shifted(conn, raw, dimensions):   # a chunk layout other than the one expected: offsets one row off
        ids, offsets = copy(conn, raw, dimensions)
        calls.append(len(ids))
        return ids, offsets + dimensions * 4

    monkeypatch.setattr(S, "_copy_vector_chunks", shifted)
    monkeypatch.setattr(S, "BUILD_BLOCK", 300)
    assert _streamed(corpus) == expected and calls


def test_missing_chunk_table_falls_back_to_the_plain_scan(corpus, tmp_path, monkeypatch):
    expected = _reference(corpus, tmp_path)

    def missing(conn, raw, dimensions):
        conn.execute("SELECT vectors FROM no_such_chunks").fetchall()

    monkeypatch.setattr(S, "_copy_vector_chunks", missing)
    assert _streamed(corpus) == expected


def test_a_stored_vector_of_the_wrong_size_is_a_clear_error(corpus, tmp_path):
    import tempfile

    with tempfile.TemporaryFile() as raw, pytest.raises(ValueError, match="2048 bytes, expected 256"):
        S._vector_file(corpus.conn, raw, 64)   # 512-dimension vectors read as 64: layout and scan both refuse


def test_corpus_without_vectors_writes_an_empty_index(tmp_path):
    c = open_corpus(tmp_path / "e.db")
    c.add_records([{"source": "reddit", "sourceId": "1", "title": "", "contentText": "one post",
                    "publishedAt": "2026-01-01T00:00:00Z"}])
    folder = index_dir(c.path)
    S.write_search_index(c.conn, folder, ["v"])
    index = read_index(folder, ["v"])
    assert index.size == 0 and index.vectors.shape == (0, 512) and index.spans == {}
    c.close()
