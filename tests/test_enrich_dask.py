"""Enrichment on a Dask cluster: identical tables to the local path, resumable, clear errors.

The cluster is a ``LocalCluster`` of 2 workers with 1 thread each, in this
process (``processes=False``: spawning worker processes costs 10-20 s on a busy
2-core machine) but talking over TCP, so the models, the chunks and the results
are pickled and sent exactly as they would be to remote workers.
"""
from __future__ import annotations

import json
import sys

import pytest

from corpuskit import open_corpus
from corpuskit.cli import main
from corpuskit.enrich.entities import GazetteerExtractor
from corpuskit.errors import ClusterError, MissingDependencyError, ValidationError
from corpuskit.demo import build_demo
from tests.test_enrich_pipeline import Exploding  # fails on the chunk holding a given text

INSTALL = r"pip install 'corpuskit\[dask\]'"


def small_demo(records=300, seed=5, path=":memory:"):
    c = open_corpus(path)
    build_demo(c, seed=seed, records=records, days=30, run_stages=False, progress=False)
    return c


def enrichment_tables(c) -> dict:
    """Every table the enrich stage writes, row by row (vectors as their bytes)."""
    out = {}
    for table, order in (("enrichment", "record_id"), ("topics", "id"),
                         ("topic_assignments", "record_id, topic_id"), ("entities", "id"),
                         ("mentions", "record_id, entity_id"), ("entity_aliases", "alias_key"),
                         ("models", "name")):
        out[table] = [tuple(r) for r in c.conn.execute(f"SELECT * FROM {table} ORDER BY {order}")]
    out["record_vectors"] = [tuple(r) for r in c.conn.execute(
        "SELECT record_id, embedding FROM record_vectors ORDER BY record_id")]
    return out


@pytest.fixture(scope="module")
def dask_client():
    distributed = pytest.importorskip("distributed", reason="needs the dask extra")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, protocol="tcp",
                                  host="127.0.0.1", dashboard_address=":0") as cluster:
        with distributed.Client(cluster, set_as_default=False) as client:
            yield client


@pytest.mark.parametrize("fit_sample", [100_000, 250], ids=["whole-corpus-fit", "sampled-fit"])
def test_dask_tables_identical_to_local(dask_client, fit_sample):
    local, remote = small_demo(), small_demo()
    first = local.enrich(progress=False, chunk_size=100, workers=1, fit_sample=fit_sample)
    on_dask = remote.enrich(progress=False, chunk_size=100, client=dask_client, fit_sample=fit_sample)
    assert on_dask["recordsEnriched"] == first["recordsEnriched"] == 300
    a, b = enrichment_tables(local), enrichment_tables(remote)
    assert all(a[t] for t in a) and a == b
    # an incremental run: the saved models are loaded, the workers embed the new records
    for c in (local, remote):
        c.add_records([{"source": "reddit", "sourceId": f"new{i}", "title": f"Rocket launch {i}",
                        "contentText": f"SpaceX and NASA watch the rocket reach orbit, day {i}.",
                        "publishedAt": "2026-03-02T12:00:00Z", "subreddit": "space"} for i in range(150)])
    assert local.enrich(progress=False, chunk_size=64, workers=1)["recordsEnriched"] == 150
    assert remote.enrich(progress=False, chunk_size=64, client=dask_client)["recordsEnriched"] == 150
    assert enrichment_tables(local) == enrichment_tables(remote)


def test_dask_failure_keeps_finished_chunks_and_resumes(dask_client):
    remote, local = small_demo(200), small_demo(200)
    target = remote.conn.execute(
        "SELECT content_text FROM records ORDER BY id LIMIT 1 OFFSET 130").fetchone()[0]
    with pytest.raises(RuntimeError, match="simulated crash"):
        remote.enrich(progress=False, chunk_size=50, client=dask_client, extractor=Exploding(target[:60]))
    written = remote.conn.execute("SELECT count(*), max(record_id) FROM enrichment").fetchone()
    assert written[0] == 100  # the two chunks before the failing one, whole
    assert remote.conn.execute("SELECT count(*) FROM record_vectors").fetchone()[0] == 100
    last_run = remote.conn.execute("SELECT status FROM runs ORDER BY rowid DESC LIMIT 1").fetchone()[0]
    assert last_run == "failed"
    resumed = remote.enrich(progress=False, chunk_size=50, client=dask_client)
    assert resumed["recordsEnriched"] == 100 and resumed["totalEnriched"] == 200
    local.enrich(progress=False, chunk_size=50, workers=1)
    a, b = enrichment_tables(local), enrichment_tables(remote)
    # run ids differ (two runs against one); everything else is the same
    for t in ("topics", "topic_assignments", "entities", "mentions", "entity_aliases", "record_vectors"):
        assert a[t] == b[t], t
    assert [r[:5] for r in a["enrichment"]] == [r[:5] for r in b["enrichment"]]


def test_cli_enrich_on_a_dask_scheduler_address(dask_client, tmp_path, capsys):
    path = tmp_path / "c.db"
    small_demo(150, path=path).close()
    address = dask_client.scheduler.address
    assert main(["enrich", "--db", str(path), "--dask", address, "--quiet"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["recordsEnriched"] == summary["totalEnriched"] == 150
    local = small_demo(150)
    local.enrich(progress=False, workers=1)
    remote = open_corpus(path)
    settings = remote.conn.execute("SELECT settings FROM runs WHERE stage = 'enrich'").fetchone()[0]
    assert json.loads(settings)["cluster"] == "dask"
    a, b = enrichment_tables(local), enrichment_tables(remote)
    assert a["record_vectors"] == b["record_vectors"] and a["mentions"] == b["mentions"]
    assert [r[:5] for r in a["enrichment"]] == [r[:5] for r in b["enrichment"]]
    remote.close()


def test_missing_dask_names_the_install_line(monkeypatch, tmp_path, capsys):
    monkeypatch.setitem(sys.modules, "distributed", None)  # `import distributed` now fails
    c = small_demo(100)
    with pytest.raises(MissingDependencyError, match=INSTALL):
        c.enrich(progress=False, client="tcp://127.0.0.1:8786")
    assert c.conn.execute("SELECT count(*) FROM enrichment").fetchone()[0] == 0
    path = tmp_path / "c.db"
    small_demo(100, path=path).close()
    assert main(["enrich", "--db", str(path), "--dask", "tcp://127.0.0.1:8786", "--quiet"]) == 2
    assert "pip install 'corpuskit[dask]'" in capsys.readouterr().err


def test_bad_cluster_arguments(tmp_path):
    pytest.importorskip("distributed", reason="needs the dask extra")
    from corpuskit.enrich.distributed import connect

    c = small_demo(100)
    with pytest.raises(ValidationError, match="exclusive"):
        c.enrich(progress=False, client="tcp://127.0.0.1:8786", workers=2)
    with pytest.raises(ValidationError, match="scheduler address"):
        c.enrich(progress=False, client=42)
    with pytest.raises(ValidationError, match="no Dask scheduler file"):
        c.enrich(progress=False, client=str(tmp_path / "missing-scheduler.json"))
    with pytest.raises(ClusterError, match="cannot reach the Dask scheduler"):
        connect("tcp://127.0.0.1:9", timeout=1)
    assert c.conn.execute("SELECT count(*) FROM enrichment").fetchone()[0] == 0


class WithoutCorpuskit(GazetteerExtractor):
    """Fails as a worker without corpuskit installed would, when it unpickles the models."""

    def extract_many(self, texts):
        raise ModuleNotFoundError("No module named 'corpuskit'", name="corpuskit")


def test_worker_without_corpuskit_is_a_clear_error(dask_client):
    c = small_demo(100)
    with pytest.raises(ClusterError, match="cannot import corpuskit.*same corpuskit version"):
        c.enrich(progress=False, chunk_size=50, client=dask_client, extractor=WithoutCorpuskit())
    assert c.conn.execute("SELECT count(*) FROM enrichment").fetchone()[0] == 0


def test_a_cluster_without_workers_is_a_clear_error():
    distributed = pytest.importorskip("distributed", reason="needs the dask extra")
    from corpuskit.enrich.distributed import DaskChunkMap

    with distributed.LocalCluster(n_workers=0, processes=False, protocol="tcp", host="127.0.0.1",
                                  dashboard_address=":0") as cluster:
        with distributed.Client(cluster, set_as_default=False) as client:
            with pytest.raises(ClusterError, match="no Dask worker joined"):
                DaskChunkMap(client, ("models",), wait_seconds=0.5)
