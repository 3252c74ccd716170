"""Workers fork with every handler's lazy imports done: no first request pays for importing scikit-learn."""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from corpuskit.api.app import HANDLER_MODULES

API = Path(__file__).resolve().parents[1] / "corpuskit" / "api"


def lazy_imports() -> set[str]:
    """corpuskit modules imported inside a function anywhere under corpuskit/api."""
    found = set()
    for path in API.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for func in ast.walk(tree):
            if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(func):
                if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("corpuskit."):
                    found.add(node.module)
    return found


def test_every_lazy_import_of_a_handler_is_preloaded():
    heavy = {m for m in lazy_imports() if not m.startswith(("corpuskit.api.errors", "corpuskit.store.limits",
                                                             "corpuskit.clock", "corpuskit.api.openapi"))}
    heavy.discard("corpuskit.api.openapi")
    assert heavy, "the scan found no lazy imports: it is not looking at the handlers"
    missing = sorted(m for m in heavy if m not in HANDLER_MODULES)
    assert missing == [], f"add to HANDLER_MODULES: {missing}"


def test_preload_imports_them_all():
    code = ("import sys; from corpuskit.api.app import preload_handlers, HANDLER_MODULES; "
            "assert 'corpuskit.analysis.clusters' not in sys.modules; preload_handlers(); "
            "print(all(m in sys.modules for m in HANDLER_MODULES))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True"
