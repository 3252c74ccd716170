"""The reproducibility manifest: same inputs and settings, same digests; versions of every stage's run."""
import json

from corpuskit import open_corpus
from corpuskit.cli import main
from corpuskit.demo import build_demo


def _demo(path, seed):
    c = open_corpus(path)
    build_demo(c, seed=seed, records=400, days=30, progress=False)
    return c


def test_rerun_on_the_same_inputs_gives_the_same_digests(tmp_path):
    a, b = _demo(tmp_path / "a.db", 3), _demo(tmp_path / "b.db", 3)
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


def test_the_content_digest_ignores_when_a_copy_was_made(tmp_path):
    a = _demo(tmp_path / "a.db", 5)
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


def test_manifest_command(tmp_path, capsys):
    _demo(tmp_path / "a.db", 3).close()
    assert main(["manifest", "--db", str(tmp_path / "a.db")]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["records"]["count"] == 400
    assert main(["manifest", "--db", str(tmp_path / "a.db"), "-o", str(tmp_path / "m.json")]) == 0
    assert json.loads((tmp_path / "m.json").read_text())["records"] == printed["records"]
