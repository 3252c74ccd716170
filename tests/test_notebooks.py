"""The notebooks as committed: executed top to bottom, outputs stored, figures shown, public API only.

The suite's one run of the notebooks is nbval's (``--nbval`` in pyproject.toml's
addopts): it re-executes every notebook and compares each stored text output with
the new one, after ``notebooks/nbval_sanitize.cfg`` masks the volatile values.
These tests read the stored outputs only: each code cell ran, in order, without
an error; each notebook still shows its figures (``image/png`` outputs, which
nbval does not compare); no output is huge; and a cell is left out of nbval's
comparison (the ``nbval-ignore-output`` tag) only when its output depends on the
shared datasets folder or on the wall clock.
"""
from __future__ import annotations

import ast
import json
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
    "09_query": 2,
    "10_validate": 2,
    "11_networks": 1,
    "12_explore": 1,
}

# Notebooks whose saved widget state is part of what they show: their widgets render from it on a
# repository browser or in a static export (regenerate them with nbconvert --execute, which saves it,
# and do not strip nb.metadata.widgets).
WIDGET_STATE = {"12_explore"}

# Cells whose stored output nbval does not compare although they do not read ../shared/datasets: their
# tables show the wall-clock time of a collection (capturedAt, last attempt), by code-cell index.
WALL_CLOCK_CELLS = {"08_collect": {9, 12, 13}}

# Stored text (every output but images) per notebook: a table printed whole, not its head, would pass this.
MAX_TEXT_BYTES = 200_000

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


def test_every_notebook_has_an_image_floor():
    assert {p.stem for p in NOTEBOOKS} == set(MIN_IMAGES)


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _code(nb: dict) -> list[dict]:
    return [cell for cell in nb["cells"] if cell["cell_type"] == "code"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_opens_with_a_title_and_selects_no_backend(path):
    nb = _load(path)
    assert nb["cells"][0]["cell_type"] == "markdown" and "".join(nb["cells"][0]["source"]).startswith("# ")
    for cell in _code(nb):
        assert "matplotlib.use(" not in "".join(cell["source"]), f"{path.name} selects a backend"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_is_committed_executed_top_to_bottom(path):
    counts = []
    for n, cell in enumerate(_code(_load(path))):
        assert cell["execution_count"] is not None, f"{path.name} code cell {n} was not run: refresh the outputs"
        counts.append(cell["execution_count"])
        errors = [out for out in cell["outputs"] if out["output_type"] == "error"]
        assert not errors, f"{path.name} code cell {n} stored an error: {errors[0]['ename']}"
        results = [out["execution_count"] for out in cell["outputs"] if out["output_type"] == "execute_result"]
        assert results in ([], [cell["execution_count"]]), f"{path.name} code cell {n}: stale result"
    assert counts == list(range(1, len(counts) + 1)), f"{path.name} was not executed once, top to bottom"


def stored_text_bytes(nb: dict) -> int:
    """UTF-8 bytes of a notebook's stored outputs, images excluded."""
    total = 0
    for cell in _code(nb):
        for out in cell["outputs"]:
            if out["output_type"] == "stream":
                total += len("".join(out["text"]).encode())
            for mime, value in out.get("data", {}).items():
                if not mime.startswith("image/"):
                    text = "".join(value) if isinstance(value, list) else json.dumps(value)
                    total += len(text.encode())
    return total


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_outputs_are_small_and_machine_free(path):
    nb = _load(path)
    assert stored_text_bytes(nb) <= MAX_TEXT_BYTES, f"{path.name}: {stored_text_bytes(nb)} bytes of text output"
    text = json.dumps([cell["outputs"] for cell in _code(nb)])
    # a temporary folder, this checkout's path or a kernel's traceback file would differ on the next run
    for pattern in (r"/tmp/", re.escape(str(ROOT)), r"ipykernel_\d+"):
        assert not re.search(pattern, text), f"{path.name} stores a machine-specific path ({pattern})"


@pytest.mark.parametrize("path", [p for p in NOTEBOOKS if p.stem in WIDGET_STATE], ids=lambda p: p.stem)
def test_notebook_keeps_the_widget_state_it_displays(path):
    nb = _load(path)
    state = nb["metadata"].get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {}).get("state", {})
    shown = [out["data"]["application/vnd.jupyter.widget-view+json"]["model_id"] for cell in _code(nb)
             for out in cell["outputs"] if "application/vnd.jupyter.widget-view+json" in out.get("data", {})]
    assert shown, f"{path.name} displays no widget"
    missing = [m for m in shown if m not in state]
    assert not missing, f"{path.name}: the state of widgets {missing} is not saved (nb.metadata.widgets was stripped?)"
    models = {m["model_name"] for m in state.values()}
    assert {"FigureModel", "ScatterModel", "HTMLModel"} <= models, f"{path.name}: the chart and panes are not saved"


def count_images(nb: dict) -> int:
    """``image/png`` outputs across a notebook's code cells."""
    return sum(1 for cell in _code(nb) for out in cell["outputs"] if "image/png" in out.get("data", {}))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_shows_its_figures(path):
    images = count_images(_load(path))
    assert images >= MIN_IMAGES[path.stem], f"{path.name} shows {images} figures, expected {MIN_IMAGES[path.stem]}"


def _names(source: str) -> tuple[set[str], set[str]]:
    """The names a cell assigns and the names it reads."""
    stored, loaded = set(), set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Name):
            (stored if isinstance(node.ctx, ast.Store) else loaded).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            stored.add(node.name)
    return stored, loaded


def shared_data_cells(path: Path) -> set[int]:
    """Code cells whose output depends on ../shared/datasets: those joining a path under it, and every
    later cell reading a name such a cell assigned."""
    tainted, cells = set(), set()
    for n, source in enumerate(_code_cells(path)):
        stored, loaded = _names(source)
        if re.search(r"\b(SHARED|shared) / ", source) or loaded & tainted:
            cells.add(n)
            tainted |= stored
    return cells


def test_shared_data_cells_are_found():
    assert shared_data_cells(ROOT / "notebooks" / "06_narratives.ipynb") == {11, 12, 13, 14}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_only_volatile_cells_escape_comparison(path):
    ignored, skipped = set(), set()
    for n, cell in enumerate(_code(_load(path))):
        tags = set(cell.get("metadata", {}).get("tags", []))
        if "nbval-ignore-output" in tags:
            ignored.add(n)
        if tags & {"nbval-skip", "raises-exception"} or re.search(r"#\s*NBVAL_", "".join(cell["source"])):
            skipped.add(n)
    assert not skipped, f"{path.name}: cells {sorted(skipped)} carry other nbval markers"
    expected = shared_data_cells(path) | WALL_CLOCK_CELLS.get(path.stem, set())
    assert ignored == expected, f"{path.name}: nbval-ignore-output on {sorted(ignored)}, expected {sorted(expected)}"
