"""Imports run downward only, and nothing outside ``corpuskit.api`` needs the API.

Every module under ``corpuskit/`` is parsed with ``ast`` (imports at any depth,
function-level ones included) and mapped to a layer:

0. base: ``errors``, ``clock``, ``text``, ``version``, ``vector_index``, ``numerics`` (imports nothing of corpuskit's
   but each other);
1. ``store``;
2. ``query`` (the read layer) and ``stats`` (the statistics layer);
3. the stages: ``ingest``, ``enrich``, ``analysis``, ``narrate``, ``validate``, ``networks``;
4. the library surface: ``frames``, ``plot``, ``corpus``, ``search``, ``signals``, ``demo``,
   ``collect``, ``manifest``, ``compare`` and the package root (``corpuskit/__init__``);
5. the front ends: ``api``, ``cli`` and ``__main__`` (``python -m corpuskit`` runs the CLI, so it
   sits with it rather than with the package root).

A module may import its own layer or a lower one. Within the stages, ``enrich`` never imports
``analysis``; ``store`` never imports ``ingest``; ``analysis`` imports neither ``ingest`` nor
``narrate`` (``narrate`` asks ``analysis`` for a signal kind's prose); only ``api`` (and the CLI
beside it) imports ``corpuskit.api``. There is no cycle between
modules (strongly connected components over every import) nor between top-level packages
other than a package with itself.

One read path: ``corpuskit.api`` holds no SQL (no string that starts a statement, no
``execute`` call: its reads are library functions in ``query``, ``store`` or a stage); a
``Where`` is built only in ``corpuskit.query``; and the record conditions (``Where.text_query``,
``Where.in_topic``) are composed only by ``RecordFilter``, the one selection object.

No module switches on a signal kind's name but the registry
(``corpuskit/analysis/signals/kinds.py``) and the detector modules that declare the kinds: no
string literal outside a docstring is a kind's stored or ``/v1`` name or holds one as an SQL
literal (``'novelty'``), but for the short allow-list :data:`KIND_NAMES_ALLOWED`.
"""
from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "corpuskit"

LAYERS = {
    **dict.fromkeys(("errors", "clock", "text", "version", "vector_index", "numerics"), 0),
    "store": 1,
    **dict.fromkeys(("query", "stats"), 2),
    **dict.fromkeys(("ingest", "enrich", "analysis", "narrate", "validate", "networks"), 3),
    **dict.fromkeys(("frames", "plot", "corpus", "facade", "search", "subcorpus", "explorer", "signals", "demo", "collect", "manifest", "methods",
                     "compare", "__init__"), 4),
    **dict.fromkeys(("api", "cli", "__main__"), 5),
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The corpuskit modules ``name`` imports, anywhere in its body."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[:len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            # ``from pkg import submodule`` needs the submodule, not what pkg/__init__ imports
            targets = [f"{base}.{alias.name}" for alias in node.names]
            if any(t not in known for t in targets):
                targets.append(base)
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target.startswith("corpuskit") and target != name:
                found.add(target)
    return found


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    known = set(modules)
    return {name: _imports(name, path, known) for name, path in modules.items()}


def _top(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _layer(module: str) -> int:
    top = _top(module)
    assert top in LAYERS, f"{module}: add its top-level name {top!r} to LAYERS"
    return LAYERS[top]


def test_every_module_has_a_layer():
    for module in _modules():
        _layer(module)


def test_imports_run_downward():
    upward = sorted(f"{m} (layer {_layer(m)}) imports {t} (layer {_layer(t)})"
                    for m, targets in _graph().items() for t in targets
                    if _layer(t) > _layer(m) and t != "corpuskit")
    assert not upward, "\n".join(upward)


def test_enrich_never_imports_analysis_and_store_never_imports_ingest():
    # analysis imports neither ingest nor narrate: narrate asks the signal-kind registry (in analysis)
    # for a kind's prose, and ingest (the export) reads narrate's citation format.
    forbidden = {("enrich", "analysis"), ("store", "ingest"), ("analysis", "ingest"), ("analysis", "narrate")}
    bad = sorted(f"{m} imports {t}" for m, targets in _graph().items() for t in targets
                 if (_top(m), _top(t)) in forbidden)
    assert not bad, "\n".join(bad)


def test_only_api_imports_api():
    # The CLI is the other front end, in the API's layer: ``corpuskit search --json`` prints the
    # /api/v1/search answer, whose shape only corpuskit.api builds. No library module may.
    bad = sorted(f"{m} imports {t}" for m, targets in _graph().items() for t in targets
                 if _top(t) == "api" and _top(m) not in ("api", "cli"))
    assert not bad, "\n".join(bad)


_SQL_START = re.compile(r"^\s*(SELECT|INSERT|UPDATE|DELETE|WITH|REPLACE|CREATE|DROP|PRAGMA)\s")
#: SQL inside a longer text: a subquery, a join, or SQLite's JSON builders
_SQL_INSIDE = re.compile(r"\(SELECT\s|\bSELECT\s.+\sFROM\s|\bJOIN\s+\w+\s.*\bON\b|\bjson_(?:object|group_array)\(", re.S)
_EXECUTE = {"execute", "executemany", "executescript"}


def _trees():
    for name, path in _modules().items():
        yield name, ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _sql_in(tree) -> list[tuple[int, str]]:
    """``(line, text)`` of every SQL statement text (a string or f-string starting with a statement
    keyword) and every ``execute`` call in ``tree``."""
    found = []
    parts = {id(v) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for v in node.values}
    for node in ast.walk(tree):
        text = None
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in parts:
            text = node.value
        elif isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant):
            text = str(node.values[0].value)
        if text is not None and (_SQL_START.match(text) or _SQL_INSIDE.search(text)):
            found.append((node.lineno, text.strip()[:60]))
        if isinstance(node, ast.Call) and getattr(node.func, "attr", None) in _EXECUTE:
            found.append((node.lineno, f".{node.func.attr}(...)"))
    return found


def _calls(tree, names) -> list[int]:
    """Lines of every call of a function or method named one of ``names`` in ``tree``."""
    return [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Call)
            and getattr(node.func, "id", getattr(node.func, "attr", None)) in names]


def test_sql_is_found():
    assert [t for _, t in _sql_in(ast.parse('x = "SELECT 1"\ny = f"DELETE FROM t WHERE a = {b}"\n'
                                            'conn.execute(z)\nw = "delete"\n'
                                            'v = """json_object(\'a\', (SELECT 1 FROM t))"""\n'
                                            'u = "Select records from the corpus."'))] == \
        ["SELECT 1", "DELETE FROM t WHERE a =", ".execute(...)", "json_object('a', (SELECT 1 FROM t))"]
    assert _calls(ast.parse("w = Where()\nv = query.Where('a')\nWhereas()"), {"Where"}) == [1, 2]


def test_no_sql_in_the_http_layer():
    # handlers parse parameters, call one library function (query/, store/ or a stage) and shape the JSON
    bad = sorted(f"{m}:{line}: {text}" for m, tree in _trees() if _top(m) == "api"
                 for line, text in _sql_in(tree))
    assert not bad, "\n".join(bad)


def test_where_is_built_only_in_the_read_layer():
    bad = sorted(f"{m}:{line}" for m, tree in _trees() if _top(m) != "query"
                 for line in _calls(tree, {"Where"}))
    assert not bad, "\n".join(bad)


def test_record_conditions_are_composed_only_by_record_filter():
    bad = sorted(f"{m}:{line}" for m, tree in _trees() if m != "corpuskit.query.record_filter"
                 for line in _calls(tree, {"text_query", "in_topic"}))
    assert not bad, "\n".join(bad)


def _components(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one member (Tarjan, iterative)."""
    index, low, on_stack, stack, out, counter = {}, {}, set(), [], [], [0]
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            advanced = False
            for nxt in edges:
                if nxt not in graph:
                    continue
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                members = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    members.append(member)
                    if member == node:
                        break
                if len(members) > 1:
                    out.append(sorted(members))
    return out


def test_components_finds_a_cycle():
    assert _components({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _components({"a": {"b"}, "b": set()}) == []


def test_no_cycle_between_modules():
    # The package root re-exports the library; a module importing ``corpuskit`` itself is the only
    # edge left out (every module is, by Python's import machinery, below its package's __init__).
    graph = {m: {t for t in targets if t != "corpuskit"} for m, targets in _graph().items()}
    cycles = _components(graph)
    assert not cycles, cycles


def test_no_cycle_between_packages():
    packages: dict[str, set[str]] = {}
    for module, targets in _graph().items():
        packages.setdefault(_top(module), set()).update(
            _top(t) for t in targets if t != "corpuskit" and _top(t) != _top(module))
    cycles = _components(packages)
    assert not cycles, cycles


#: Modules that may name a signal kind besides the registry and the detector modules that declare the
#: kinds: path under corpuskit/ -> (the names it may write, or None for any; why).
KIND_NAMES_ALLOWED = {
    "ingest/demo.py": (None, "the demo plants its events (its ground truth) by the kind a detector should find"),
    "ingest/demo_vocab.py": (None, "the words of the demo's planted events, per planted kind"),
    "query/values.py": ({"divergence"}, "an observation type (OBSERVATION_TYPES), not the signal kind"),
    "analysis/observations.py": ({"divergence"}, "the observation type, not the signal kind"),
}


def _kind_literals(source: str, names: set[str]) -> list[tuple[int, set[str], str]]:
    """``(line, names, literal)`` for every string literal of ``source`` outside a docstring that is a
    name of ``names`` or holds one as an SQL literal (``'novelty'``)."""
    tree = ast.parse(source)
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            hits = {n for n in names if node.value == n or f"'{n}'" in node.value}
            if hits:
                found.append((node.lineno, hits, node.value))
    return sorted(found, key=lambda f: f[0])


def test_kind_literals_finds_a_switch():
    names = {"novelty", "velocity"}
    source = ('"""A docstring may say novelty."""\n'
              'def f(kind):\n    """So may this one: velocity."""\n'
              '    if kind == "novelty":\n        return "SELECT 1 WHERE kind = \'novelty\'"\n'
              '    return {"velocity": 1}.get(kind, "a novelty-free sentence")\n')
    assert [(line, hits) for line, hits, _ in _kind_literals(source, names)] == [
        (4, {"novelty"}), (5, {"novelty"}), (6, {"velocity"})]


def test_no_kind_switch_outside_the_registry():
    from corpuskit.analysis.signals import kinds

    names = set(kinds.kind_names()) | set(kinds.v1_kinds())
    declaring = {Path(sys.modules[kinds.signal_kind(n).__module__].__file__).resolve() for n in kinds.kind_names()}
    exempt = declaring | {Path(kinds.__file__).resolve()}
    bad = []
    for path in _modules().values():
        if path.resolve() in exempt:
            continue
        rel = path.relative_to(PACKAGE).as_posix()
        allowed = KIND_NAMES_ALLOWED.get(rel, (set(), ""))[0]
        for line, hits, literal in _kind_literals(path.read_text(encoding="utf-8"), names):
            if allowed is not None and not hits <= allowed:
                bad.append(f"corpuskit/{rel}:{line} names the signal kind {', '.join(sorted(hits))}: {literal[:60]!r}"
                           " (ask corpuskit.analysis.signals.kinds instead)")
    assert not bad, "\n".join(bad)


BLOCK_API = r"""
import importlib, pkgutil, sys

class BlockApi:
    def find_spec(self, name, path=None, target=None):
        if name == "corpuskit.api" or name.startswith("corpuskit.api."):
            raise ImportError(f"{name} is blocked: only corpuskit.api may import it")
        return None

sys.meta_path.insert(0, BlockApi())
import corpuskit
failed = []
for info in pkgutil.walk_packages(corpuskit.__path__, "corpuskit."):
    if info.name == "corpuskit.api" or info.name.startswith("corpuskit.api.") or info.name == "corpuskit.__main__":
        continue
    try:
        importlib.import_module(info.name)
    except ImportError as exc:
        if "blocked" in str(exc):
            failed.append(f"{info.name}: {exc}")
print("\n".join(failed))
sys.exit(1 if failed else 0)
"""


def test_every_module_outside_api_imports_without_the_api():
    done = subprocess.run([sys.executable, "-c", BLOCK_API], cwd=ROOT, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
