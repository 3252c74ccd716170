"""The benchmarks' peers (Datasette, sqlite-utils) are found on PATH or next to Python; a missing one is an error."""
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from peers import INSTALL, peer  # noqa: E402


def test_a_missing_peer_stops_with_the_install_line(monkeypatch):
    monkeypatch.setenv("PATH", "")
    with pytest.raises(SystemExit) as info:
        peer("no-such-peer-tool")
    assert INSTALL in str(info.value) and "no-such-peer-tool" in str(info.value)


def test_a_peer_on_path_is_found(tmp_path, monkeypatch):
    tool = tmp_path / "sqlite-utils"
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert peer("sqlite-utils") == str(tool)


def test_a_peer_next_to_python_is_found_without_path(tmp_path, monkeypatch):
    tool = tmp_path / "datasette"
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", "")
    monkeypatch.setattr(sys, "executable", str(tmp_path / "python"))
    assert peer("datasette") == str(tool)


def test_a_given_path_that_does_not_exist_is_an_error(tmp_path):
    with pytest.raises(SystemExit, match="not found at"):
        peer("datasette", str(tmp_path / "nowhere" / "datasette"))


def test_bench_import_checks_its_peer_before_any_work(tmp_path):
    """Run with no sqlite-utils reachable: it stops naming the install line, before generating anything."""
    import subprocess

    bench = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_import.py"
    fake_python = tmp_path / "python"
    fake_python.symlink_to(sys.executable)
    csv = tmp_path / "x.csv"
    csv.write_text("id,title,created_at\n1,a,1/1/2016 0:00\n")
    env = dict(os.environ, PATH="")
    out = subprocess.run([str(fake_python), str(bench), "--path", str(csv), "--rows", "0"],
                         capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode != 0
    assert INSTALL in out.stderr and "sqlite-utils" in out.stderr
