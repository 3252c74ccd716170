"""The reproducibility manifest: same inputs and settings, same digests; versions of every stage's run."""
import json

import pytest

from corpuskit import open_corpus
from corpuskit.cli import main
from corpuskit.demo import build_demo


def _demo(path, seed):
    c = open_corpus(path)
    build_demo(c, seed=seed, records=400, days=30, progress=False)
    return c


@pytest.fixture(scope="module")
def seed3(tmp_path_factory):
    """The path of a 400-record demo (seed 3) with every stage run, built once for this module's
    readers; each test opens its own connection and writes nothing."""
    path = tmp_path_factory.mktemp("manifest") / "seed3.db"
    _demo(path, 3).close()
    return path


def test_rerun_on_the_same_inputs_gives_the_same_digests(tmp_path, seed3):
    a, b = open_corpus(seed3), _demo(tmp_path / "b.db", 3)
    ma, mb = a.manifest(), b.manifest()
    assert ma["records"] == mb["records"] and ma["records"]["count"] == 400
    assert ma["tables"] == mb["tables"]
    assert all(t["rows"] > 0 for name, t in ma["tables"].items())
    for stage in ("enrich", "analyse", "narrate"):
        run = ma["stages"][stage]
        assert run["status"] == "done" and run["id"] == mb["stages"][stage]["id"]
        assert run["settings"] == mb["stages"][stage]["settings"]
        assert {"corpuskit", "numpy", "scikit-learn", "hdbscan", "sqlite-vec", "python"} <= set(run["packages"])
    assert ma["environment"]["python"] and ma["models"]
    json.dumps(ma)   # JSON-ready
    other = _demo(tmp_path / "c.db", 4).manifest()
    assert other["records"]["contentDigest"] != ma["records"]["contentDigest"]
    assert other["tables"]["signals"]["digest"] != ma["tables"]["signals"]["digest"]


def test_the_content_digest_ignores_when_a_copy_was_made(tmp_path, seed3):
    a = open_corpus(seed3)
    a.export(tmp_path / "a.jsonl")
    b, c = open_corpus(tmp_path / "b.db"), open_corpus(tmp_path / "c.db")
    b.import_file(tmp_path / "a.jsonl")
    c.add_records(list(reversed([r for r in open_corpus(tmp_path / "b.db").records()
                                 .drop(columns=["id", "sentimentScore", "sentimentLabel", "entities"])
                                 .assign(publishedAt=lambda f: f["publishedAt"].dt.strftime("%Y-%m-%dT%H:%M:%SZ"),
                                         capturedAt=None)
                                 .to_dict(orient="records")])))
    assert a.manifest()["records"] == b.manifest()["records"] == c.manifest()["records"]
    b.enrich(progress=False)
    assert b.manifest()["records"] == a.manifest()["records"]   # enrichment does not touch the records


def test_manifest_command(tmp_path, capsys, seed3):
    assert main(["manifest", "--db", str(seed3)]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["records"]["count"] == 400
    assert main(["manifest", "--db", str(seed3), "-o", str(tmp_path / "m.json")]) == 0
    assert json.loads((tmp_path / "m.json").read_text())["records"] == printed["records"]


# The digest SQL as it stood before each table's key columns were declared beside it (TableDigest):
# declaring them must not change one byte of what is digested.
_DIGEST_SQL_BEFORE_KEYS = {
    "enrichment": "SELECT e.record_id, round(e.sentiment_score, 6), e.sentiment_label, t.name, e.themes "
                  "FROM enrichment e LEFT JOIN topics t ON t.id = e.topic_id ORDER BY e.record_id",
    "topics": "SELECT name, display_name, category, keywords, discovered FROM topics ORDER BY name",
    "topic_assignments": "SELECT ta.record_id, t.name, round(ta.confidence, 6) FROM topic_assignments ta "
                         "JOIN topics t ON t.id = ta.topic_id ORDER BY ta.record_id, t.name",
    "entities": "SELECT slug, name, type, mention_count, first_seen, last_seen FROM entities ORDER BY slug",
    "mentions": "SELECT m.record_id, en.slug, m.surface, m.mention_count, m.positions FROM mentions m "
                "JOIN entities en ON en.id = m.entity_id ORDER BY m.record_id, en.slug",
    "clusters": "SELECT t.name, c.cluster_label, c.record_count, c.top_terms, c.summary_label FROM clusters c "
                "JOIN topics t ON t.id = c.topic_id WHERE c.run_id = (SELECT run_id FROM clusters "
                "ORDER BY id DESC LIMIT 1) ORDER BY t.name, c.cluster_label",
    "signals": "SELECT signal_key, kind, severity, round(sigma_score, 4), headline, detected_at, status, "
               "resolved_at FROM signals ORDER BY signal_key",
    "snapshots": "SELECT t.name, s.date, s.total_records, s.volume_by_source, s.sentiment_positive, "
                 "s.sentiment_neutral, s.sentiment_negative, round(s.avg_sentiment, 6), s.platform_count, "
                 "s.top_entities, s.signal_count FROM snapshots s JOIN topics t ON t.id = s.topic_id "
                 "ORDER BY t.name, s.date",
    "observations": "SELECT observation_key, type, severity, headline, observed_at FROM observations "
                    "ORDER BY observation_key",
    "stories": "SELECT story_key, version, kind, headline, lede, body, publish_at FROM stories "
               "WHERE is_current = 1 ORDER BY story_key",
}
_RECORDS_SQL_BEFORE_KEYS = (
    "SELECT source, coalesce(source_id, ''), content_type, title, content_text, url, author, published_at, "
    "coalesce(subreddit, ''), language, coalesce(topic, ''), metadata FROM records "
    "ORDER BY source, coalesce(source_id, ''), content_hash, published_at")


def test_declaring_the_keys_left_every_digest_as_it_was(seed3):
    from corpuskit.manifest import RECORDS_DIGEST, TABLE_DIGESTS, digest_rows

    assert {name: spec.sql for name, spec in TABLE_DIGESTS.items()} == _DIGEST_SQL_BEFORE_KEYS
    assert RECORDS_DIGEST.sql == _RECORDS_SQL_BEFORE_KEYS
    demo = open_corpus(seed3)
    manifest = demo.manifest()
    conn = demo.conn
    for name, sql in _DIGEST_SQL_BEFORE_KEYS.items():
        rows = [tuple(r) for r in conn.execute(sql)]
        assert rows and manifest["tables"][name] == {"rows": len(rows), "digest": digest_rows(rows)}, name
        assert len(conn.execute(sql).description) == len(TABLE_DIGESTS[name].columns), name
    records = [tuple(r) for r in conn.execute(_RECORDS_SQL_BEFORE_KEYS)]
    assert manifest["records"]["contentDigest"] == digest_rows(records)
    assert len(RECORDS_DIGEST.columns) == len(records[0])


_LIBRARY_KEYS = {"internalApi", "version", "architecture", "threadingLayer", "numThreads", "library", "package"}


def test_the_manifest_records_the_numeric_environment_now_and_per_run(seed3):
    from corpuskit.manifest import manifest_digest, numeric_environment

    demo = open_corpus(seed3)
    manifest = demo.manifest()
    numeric = manifest["environment"]["numeric"]
    assert {"numpy", "scipy", "scikit-learn", "threadpoolctl", "machine", "processor", "cpuCount",
            "cpusAvailable", "blas", "openmp"} <= set(numeric)
    assert numeric["numpy"] and numeric["scipy"] and numeric["scikit-learn"] and numeric["machine"]
    assert numeric["blas"], "numpy's BLAS is always loaded"
    for library in numeric["blas"] + numeric["openmp"]:
        assert set(library) == _LIBRARY_KEYS
        assert library["numThreads"] >= 1 and "/" not in library["library"] and "\\" not in library["library"]
    assert {lib["internalApi"] for lib in numeric["blas"]} <= {"openblas", "mkl", "blis", "flexiblas", "accelerate"}
    assert str(seed3.parent) not in json.dumps(numeric) and "site-packages" not in json.dumps(numeric)
    # each run: its packages, and the kernels it ran under (enrich holds BLAS to one thread)
    enrich = manifest["stages"]["enrich"]
    assert "numeric" not in enrich["packages"] and enrich["numeric"]["blas"]
    assert {lib["numThreads"] for lib in enrich["numeric"]["blas"]} == {1}
    assert all(lib["package"] is None or isinstance(lib["package"], str) for lib in enrich["numeric"]["blas"])
    for stage in ("analyse", "narrate"):
        assert manifest["stages"][stage]["numeric"]["machine"] == numeric["machine"]
    json.dumps(manifest)
    # the environment is no part of the manifest digest
    other = json.loads(json.dumps(manifest))
    other["environment"]["numeric"]["blas"][0]["architecture"] = "SomeOtherKernel"
    other["stages"]["enrich"]["numeric"] = None
    assert manifest_digest(other) == manifest_digest(manifest)
    assert numeric_environment()["blas"]   # without load: what is loaded already
