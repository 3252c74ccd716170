"""The same tables on any machine: a demo built under three OpenBLAS kernels and one or two threads gives
the same digest for every table (issue 39). Three builds cover it: each kernel once, the first with one
thread and the others with two. Each build runs in its own process, because OpenBLAS reads
``OPENBLAS_CORETYPE`` and its thread count once, when it loads."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest

#: kernels every x86-64 CPU runs (SkylakeX needs AVX-512, which CI machines may lack)
KERNELS = ("Haswell", "Sandybridge", "Prescott")
RECORDS, DAYS = 1500, 28

BUILD = """
import json, sys
import corpuskit
from corpuskit.demo import build_demo
from threadpoolctl import threadpool_info
corpus = corpuskit.open_corpus(sys.argv[1])
build_demo(corpus, seed=7, records=int(sys.argv[2]), days=int(sys.argv[3]), progress=False)
manifest = corpus.manifest()
json.dump({"records": manifest["records"], "tables": manifest["tables"],
           "blas": sorted({(i.get("architecture") or "") for i in threadpool_info()
                           if i.get("internal_api") == "openblas"}),
           "threads": sorted({i.get("num_threads") for i in threadpool_info()})}, sys.stdout)
"""


def _openblas() -> bool:
    from threadpoolctl import threadpool_info

    return any(i.get("internal_api") == "openblas" for i in threadpool_info())


def _build(tmp: Path, kernel: str, threads: int) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENBLAS_", "OMP_", "MKL_"))}
    env.update(OPENBLAS_CORETYPE=kernel, OPENBLAS_NUM_THREADS=str(threads), OMP_NUM_THREADS=str(threads))
    root = Path(__file__).resolve().parents[1]
    env["PYTHONPATH"] = os.pathsep.join([str(root)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    db = tmp / f"demo-{kernel}-{threads}.db"
    done = subprocess.run([sys.executable, "-c", BUILD, str(db), str(RECORDS), str(DAYS)], env=env, cwd=tmp,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


@pytest.mark.skipif(not _openblas(), reason="numpy is not linked against OpenBLAS: OPENBLAS_CORETYPE has no effect")
def test_every_table_digest_is_the_same_under_every_kernel_and_thread_count(tmp_path):
    runs = [(KERNELS[0], 1)] + [(kernel, 2) for kernel in KERNELS[1:]]
    with ThreadPoolExecutor(max_workers=2) as pool:
        built = dict(zip(runs, pool.map(lambda kt: _build(tmp_path, *kt), runs)))
    # the kernel and thread count really were the ones asked for (Prescott is OpenBLAS's Katmai kernel)
    kernels = {kt: b["blas"] for kt, b in built.items()}
    assert len({tuple(k) for k in kernels.values()}) == len(KERNELS), kernels
    assert {tuple(b["threads"]) for b in built.values()} == {(1,), (2,)}
    reference = built[runs[0]]
    assert reference["tables"]["topic_assignments"]["rows"] > 0 and reference["tables"]["clusters"]["rows"] > 0
    for kt, b in built.items():
        assert b["records"] == reference["records"], kt
        differ = sorted(t for t in reference["tables"] if b["tables"][t] != reference["tables"][t])
        assert not differ, f"{kt}: digests differ from {runs[0]} in {differ}"


def test_dot_rows_is_a_float64_product_independent_of_the_block_size(monkeypatch):
    from corpuskit import numerics

    rng = np.random.default_rng(3)
    matrix = rng.standard_normal((1000, 64)).astype(np.float32)
    query = rng.standard_normal(64).astype(np.float32)
    exact = matrix.astype(np.float64) @ query.astype(np.float64)
    got = numerics.dot_rows(matrix, query)
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, exact, rtol=0, atol=1e-12)
    monkeypatch.setattr(numerics, "DOT_BLOCK", 7)
    np.testing.assert_allclose(numerics.dot_rows(matrix, query), exact, rtol=0, atol=1e-12)
    assert numerics.dot_rows(matrix[:0], query).shape == (0,)


def test_unit_rows_and_stored_values():
    from corpuskit.numerics import rounded, stored, unit_rows

    m = np.array([[3.0, 4.0], [0.0, 0.0]])
    np.testing.assert_array_equal(unit_rows(m), [[0.6, 0.8], [0.0, 0.0]])
    assert stored(np.array([0.1])).dtype == np.float32
    assert rounded(np.array([0.123456789]), 4)[0] == 0.1235


def test_a_cut_off_decides_on_the_stored_confidence():
    """A confidence a hair under the cut-off, stored as the cut-off itself, is kept: the assignment is
    decided on the 4-place value the table stores, so a kernel's last-bit difference cannot flip it."""
    from corpuskit.enrich.topics import Beat, BeatAssigner

    beats = [Beat(name="a", display_name="A", keywords=["x"]), Beat(name="b", display_name="B", keywords=["y"])]
    centroids = np.array([[1.0, 0.0], [0.0, 1.0]])
    assigner = BeatAssigner(min_confidence=0.1, secondary_confidence=0.6, weights=(0.0, 0.0, 1.0),
                            similarity_full=1.0).fit(beats, [], [], None, centroids=centroids)
    just_under = 0.1 - 1e-9
    picks = assigner.assign(["z"], [None], np.array([[just_under, 0.05]]))[0]
    assert picks == [(0, 0.1)]
