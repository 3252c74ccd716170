"""Configuration in one place: only the corpuskit command (and server.py, outside the package)
reads environment variables; the library takes every setting as a parameter."""
import ast
import subprocess
import sys
from pathlib import Path

import corpuskit

PACKAGE = Path(corpuskit.__file__).resolve().parent
READERS = {"environ", "environb", "getenv", "getenvb"}


def environment_reads(source: str) -> list[int]:
    """Line numbers where ``source`` reads the process environment (``os.environ``, ``os.getenv``,
    or ``environ``/``getenv`` imported from ``os``)."""
    tree = ast.parse(source)
    imported = {alias.asname or alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                and node.module == "os" for alias in node.names if alias.name in READERS}
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in READERS and isinstance(node.value, ast.Name) \
                and node.value.id == "os":
            lines.append(node.lineno)
        elif isinstance(node, ast.Name) and node.id in imported:
            lines.append(node.lineno)
    return lines


def test_the_check_finds_each_way_of_reading_the_environment():
    assert environment_reads("import os\nx = os.environ.get('A')\n") == [2]
    assert environment_reads("import os\nx = os.getenv('A')\n") == [2]
    assert environment_reads("from os import environ\nx = environ.get('A')\n") == [2]
    assert environment_reads("from os import getenv as g\nx = g('A')\n") == [2]
    # a WSGI request's environ is not the process environment
    assert environment_reads("def f(request):\n    return request.environ.get('HTTP_HOST')\n") == []


def test_only_the_command_reads_environment_variables():
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        if relative == "cli.py":
            continue
        lines = environment_reads(path.read_text(encoding="utf-8"))
        if lines:
            found[relative] = lines
    assert found == {}, f"environment read outside cli.py (pass the value as a parameter): {found}"
    assert environment_reads((PACKAGE / "cli.py").read_text(encoding="utf-8"))  # the command does read it


def test_every_variable_the_command_reads_is_documented():
    from corpuskit.cli import ENVIRONMENT, build_parser

    text = (PACKAGE / "cli.py").read_text(encoding="utf-8")
    read = {node.args[0].value for node in ast.walk(ast.parse(text))
            if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str) and node.args[0].value.isupper()
            and ast.unparse(node.func) in ("os.environ.get", "env_int")}
    assert read and read <= set(ENVIRONMENT)
    helptext = build_parser().format_help()
    docs = (PACKAGE.parent / "docs" / "api.md").read_text(encoding="utf-8")
    for name in ENVIRONMENT:
        assert name in helptext and f"`{name}`" in docs, name


def test_every_variable_the_server_reads_is_documented():
    server = PACKAGE.parent / "server.py"
    tree = ast.parse(server.read_text(encoding="utf-8"))
    table = next(ast.literal_eval(node.value) for node in tree.body if isinstance(node, ast.Assign)
                 and [t.id for t in node.targets if isinstance(t, ast.Name)] == ["ENVIRONMENT"])
    read = {node.args[0].value for node in ast.walk(tree)
            if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str) and node.args[0].value.startswith("CORPUSKIT_")}
    assert read and read <= set(table)
    helptext = subprocess.run([sys.executable, str(server), "--help"], capture_output=True, text=True,
                              check=True).stdout
    docs = (PACKAGE.parent / "docs" / "api.md").read_text(encoding="utf-8")
    for name in table:
        assert name in helptext and f"`{name}`" in docs, name
