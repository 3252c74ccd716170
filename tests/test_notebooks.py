"""The notebooks: each runs top to bottom, shows its figures, and uses only the public API.

Executing a notebook here (nbclient, the ``python3`` kernel of this
interpreter, from the ``notebooks/`` folder) is the suite's one run of the
notebooks: a cell that raises fails the test, as ``nbval --nbval-lax`` did, and
the ``image/png`` outputs are counted so a notebook that silently stops
drawing (a non-interactive backend, a figure never shown) fails too.
"""
from __future__ import annotations

import ast
import json
import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))

# The figures each notebook shows on the demo corpus alone (the real-data
# sections add more where ../shared/datasets exists; they are not counted).
MIN_IMAGES = {
    "01_ingest": 1,
    "02_enrich": 2,
    "03_cluster": 2,
    "04_signals": 4,
    "05_snapshots": 5,
    "06_narratives": 1,
    "07_api": 1,
    "08_collect": 1,
}

# What a notebook may import from corpuskit: the package and its documented public modules.
PUBLIC_MODULES = {"corpuskit", "corpuskit.plot", "corpuskit.signals", "corpuskit.api", "corpuskit.enrich",
                  "corpuskit.demo", "corpuskit.collect", "corpuskit.errors"}


def _code_cells(path: Path) -> list[str]:
    nb = json.loads(path.read_text(encoding="utf-8"))
    cells = []
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            src = "".join(cell["source"])
            # IPython magics and shell escapes are not Python
            cells.append("\n".join("" if line.lstrip().startswith(("%", "!")) else line
                                   for line in src.splitlines()))
    return cells


def corpuskit_imports(source: str) -> set[str]:
    """Every ``corpuskit...`` module a piece of code imports or reaches by attribute."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.split(".")[0] == "corpuskit"}
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "corpuskit":
            found.add(node.module)
            # `from corpuskit import analysis` reaches a submodule too
            if node.module == "corpuskit":
                found |= {f"corpuskit.{a.name}" for a in node.names if a.name[0].islower()
                          and a.name not in ("open_corpus",)}
    # attribute access such as corpuskit.analysis.signals after `import corpuskit`
    found |= {m.group(0) for m in re.finditer(r"\bcorpuskit(?:\.[a-z_]+)+", source)
              if not m.group(0).startswith(("corpuskit.open_corpus", "corpuskit.__"))}
    return found


def test_import_check_rejects_internals():
    assert corpuskit_imports("from corpuskit.analysis.signals.evaluate import signals_frame") == {
        "corpuskit.analysis.signals.evaluate"}
    assert corpuskit_imports("import corpuskit\nx = corpuskit.analysis.clusters.latest_clusters") >= {
        "corpuskit.analysis.clusters.latest_clusters"}
    assert corpuskit_imports("from corpuskit import narrate") == {"corpuskit", "corpuskit.narrate"}
    assert corpuskit_imports("import corpuskit\nc = corpuskit.open_corpus(':memory:')") == {"corpuskit"}
    assert corpuskit_imports("from corpuskit import plot\nfrom corpuskit.demo import build_demo") <= PUBLIC_MODULES


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_imports_only_public_modules(path):
    used = set()
    for source in _code_cells(path):
        used |= corpuskit_imports(source)
    assert used <= PUBLIC_MODULES, f"{path.name} reaches into {sorted(used - PUBLIC_MODULES)}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_is_committed_without_outputs_or_a_backend(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [] and cell["execution_count"] is None, f"{path.name}: strip outputs"
            assert 'matplotlib.use(' not in "".join(cell["source"]), f"{path.name} selects a backend"
    assert nb["cells"][0]["cell_type"] == "markdown" and "".join(nb["cells"][0]["source"]).startswith("# ")


def test_every_notebook_has_an_image_floor():
    assert {p.stem for p in NOTEBOOKS} == set(MIN_IMAGES)


def count_images(nb) -> int:
    """``image/png`` outputs across a notebook's code cells."""
    return sum(1 for cell in nb.cells if cell.cell_type == "code"
               for out in cell.get("outputs", []) if "image/png" in out.get("data", {}))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_and_shows_its_figures(path, monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("matplotlib")
    # The kernel inherits the environment: this checkout first on the path, no backend forced.
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    monkeypatch.delenv("MPLBACKEND", raising=False)
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(nb, kernel_name="python3", timeout=900,
                                     resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    images = count_images(nb)
    print(f"{path.name}: {images} figures")
    assert images >= MIN_IMAGES[path.stem], f"{path.name} showed {images} figures, expected {MIN_IMAGES[path.stem]}"
