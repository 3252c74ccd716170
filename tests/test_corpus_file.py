"""The store, the read layer and the stages take the corpus file, never the ``Corpus`` facade.

:class:`~corpuskit.store.corpus_file.CorpusFile` is the small object below the facade
(connection, transaction, meta, clock, record count, runs, path). ``Corpus`` wraps one as
``corpus.file`` and passes it to every function of layers 1 to 3 it calls. The checks:

* every ``corpus.<name>`` (and ``self.corpus.<name>``) in ``store/``, ``query/``, ``stats/`` and the
  stages uses a name the corpus file has, so no stage calls back up into the facade (a stage
  handed a ``Corpus`` by the HTTP layer or ``frames`` works too: the facade has the same names);
* ``Corpus`` hands the functions of those layers ``self.file``, never ``self``;
* the stage entry points (import, enrich, analyse, narrate, export, sample) run on a bare
  ``CorpusFile``, which has none of the facade's methods.
"""
from __future__ import annotations

import ast
import csv
import json
from pathlib import Path

import pytest

from corpuskit import open_corpus
from corpuskit.corpus import Corpus
from corpuskit.store.corpus_file import CorpusFile

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "corpuskit"
BELOW_THE_FACADE = ("store", "query", "stats", "ingest", "enrich", "analysis", "narrate", "validate")

#: What a stage may ask of the corpus it is given. Growing it is a decision: say why in the PR.
SURFACE = {"conn", "transaction", "close", "get_meta", "set_meta", "now", "clock_mode", "set_clock_mode",
           "count", "run_stage", "path", "uri", "driver", "timeout"}


def _public(cls) -> set[str]:
    return {name for name in vars(cls) if not name.startswith("_")}


def _corpus_attributes(tree: ast.AST):
    """``(line, name)`` of each ``corpus.<name>`` and ``<x>.corpus.<name>`` in ``tree``."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute):
            continue
        base = node.value
        if (isinstance(base, ast.Name) and base.id == "corpus") or (
                isinstance(base, ast.Attribute) and base.attr in ("corpus", "_corpus")):
            yield node.lineno, node.attr


def _facade_uses(tree: ast.AST, where: str) -> list[str]:
    return [f"{where}:{line} uses corpus.{name}, which the corpus file has not"
            for line, name in _corpus_attributes(tree) if name not in SURFACE]


def _modules_below_the_facade():
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE)
        if rel.parts[0] in BELOW_THE_FACADE:
            yield rel, ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def test_the_corpus_file_has_the_surface_and_the_facade_keeps_it():
    instance_attributes = {"path", "uri", "driver", "timeout"}   # set in __init__
    assert _public(CorpusFile) | instance_attributes == SURFACE
    missing = sorted(SURFACE - {name for name in dir(Corpus) if not name.startswith("_")})
    assert not missing, f"Corpus lost the corpus file's names {missing}"


def test_no_stage_uses_a_facade_only_name():
    bad = [use for rel, tree in _modules_below_the_facade() for use in _facade_uses(tree, str(rel))]
    assert not bad, "\n".join(bad)


def test_the_check_sees_a_call_back_up_into_the_facade():
    tree = ast.parse("def export(corpus, path):\n    with corpus.transaction():\n"
                     "        return corpus.manifest(), self.corpus.run()\n")
    assert _facade_uses(tree, "x.py") == ["x.py:3 uses corpus.manifest, which the corpus file has not",
                                          "x.py:3 uses corpus.run, which the corpus file has not"]


def _imported_below_the_facade(function: ast.FunctionDef) -> set[str]:
    names = set()
    for node in ast.walk(function):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[1:2] and \
                node.module.split(".")[1] in BELOW_THE_FACADE:
            names.update(alias.asname or alias.name for alias in node.names)
    return names


def _facade_methods():
    """The methods of ``Corpus`` and of its per-noun mixins (``corpuskit/facade/``)."""
    for path in [PACKAGE / "corpus.py", *sorted((PACKAGE / "facade").glob("*.py"))]:
        for cls in (n for n in ast.parse(path.read_text(encoding="utf-8")).body if isinstance(n, ast.ClassDef)):
            yield from (n for n in cls.body if isinstance(n, ast.FunctionDef))


def test_the_facade_hands_down_its_file():
    bad, handed = [], 0
    for method in _facade_methods():
        below = _imported_below_the_facade(method)
        for call in (n for n in ast.walk(method) if isinstance(n, ast.Call)):
            if isinstance(call.func, ast.Name) and call.func.id in below:
                passed = [ast.unparse(a) for a in [*call.args, *(k.value for k in call.keywords)]]
                handed += "self.file" in passed
                if "self" in passed:
                    bad.append(f"Corpus.{method.name} passes the facade (self) to {call.func.id}")
    assert handed > 20 and not bad, "\n".join(bad)


def test_the_stages_run_on_a_bare_corpus_file(tmp_path):
    from corpuskit.analysis.pipeline import analyse_corpus
    from corpuskit.enrich.pipeline import enrich_corpus
    from corpuskit.ingest.demo import store_demo
    from corpuskit.ingest.export import export_bundle, export_table
    from corpuskit.ingest.importers import import_file
    from corpuskit.manifest import build_manifest
    from corpuskit.narrate.pipeline import narrate_corpus
    from corpuskit.validate import agreement, draw_sample, import_sheet, write_coding_sheet

    file = CorpusFile(tmp_path / "bare.db")
    assert not hasattr(file, "records") and not hasattr(file, "run") and not hasattr(file, "manifest")
    summary = store_demo(file, seed=3, records=400, days=28)
    assert summary["records"] == file.count() == 400 and summary["stages"] == {}
    assert file.clock_mode == "frozen" and file.get_meta("beats")
    enrich_corpus(file, progress=False)
    analyse_corpus(file, progress=False)
    narrate_corpus(file, progress=False)
    stages = [r[0] for r in file.conn.execute("SELECT stage FROM runs WHERE status = 'done' ORDER BY rowid")]
    assert stages == ["demo", "enrich", "analyse", "narrate"]
    assert file.conn.execute("SELECT count(*) FROM enrichment").fetchone()[0] == 400

    assert export_table(file, tmp_path / "records.jsonl") == 400
    copy = CorpusFile(tmp_path / "copy.db")
    assert import_file(copy, tmp_path / "records.jsonl").added == 400 and copy.count() == 400
    report = export_bundle(file, tmp_path / "bundle", format="jsonl", manifest=lambda: build_manifest(file))
    assert report.rows["records"] == 400
    manifest = json.loads((tmp_path / "bundle" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["records"]["count"] == 400 and set(manifest["stages"]) == set(stages)

    codebook = {"name": "bare", "variables": {"stance": {"values": ["for", "against"]}}}
    sample = draw_sample(file, 6, by="source", seed=1, name="s", codebook=codebook)
    assert len(sample) == 6
    for coder in ("ann", "bob"):
        sheet = tmp_path / f"{coder}.csv"
        assert write_coding_sheet(file, "s", sheet) == 6
        with open(sheet, encoding="utf-8", newline="") as fh:
            rows = list(csv.reader(fh))
        with open(sheet, "w", encoding="utf-8", newline="") as fh:
            csv.writer(fh).writerows([rows[0]] + [row[:2] + ["for"] + row[3:] for row in rows[1:]])
        assert import_sheet(file, sheet, "s", coder) == 6
    assert set(agreement(file, "s", resamples=20)["variable"]) == {"stance"}
    file.close()
    copy.close()


def test_the_facade_wraps_one_corpus_file(tmp_path):
    corpus = open_corpus(tmp_path / "c.db", now="2026-01-02T03:04:05Z")
    assert isinstance(corpus.file, CorpusFile) and corpus.path == corpus.file.path == tmp_path / "c.db"
    assert corpus.conn is corpus.file.conn and corpus.clock_mode == corpus.file.clock_mode == "fixed"
    assert corpus.now() == corpus.file.now() and corpus.count() == corpus.file.count() == 0
    assert corpus.uri == corpus.file.uri == str(tmp_path / "c.db")
    memory = [open_corpus(":memory:") for _ in range(2)]
    assert memory[0].uri != memory[1].uri   # two in-memory corpora are two files (and two search indexes)
    for other in memory:
        other.close()
    with corpus.run_stage("probe") as run_id:
        assert run_id == "probe-1"
    assert corpus.file.get_meta(f"versions:{run_id}")["numeric"] is not None
    with pytest.raises(Exception, match="clock mode must be frozen or live"):
        corpus.set_clock_mode("fixed")
    assert repr(corpus) == f"Corpus({str(tmp_path / 'c.db')!r})"
    corpus.close()
