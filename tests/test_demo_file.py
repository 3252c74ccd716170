"""``demo_file``: the demo written to a new file, built once per setting and corpuskit version, then
copied from the cache, every table the same as a fresh build's."""
from __future__ import annotations

import shutil
import stat

import pytest

from corpuskit import demo, open_corpus
from corpuskit.demo import demo_file

SETTING = {"seed": 3, "records": 200, "days": 28, "run_stages": ("enrich",)}


def _tables(path):
    corpus = open_corpus(path)
    try:
        return corpus.manifest()["tables"], corpus.count()
    finally:
        corpus.close()


@pytest.fixture(scope="module")
def first_build(tmp_path_factory):
    """A cache folder holding one build of SETTING, and the first call's file and summary."""
    tmp = tmp_path_factory.mktemp("demo-file")
    first = demo_file(tmp / "a.db", cache=tmp / "cache", **SETTING)
    return tmp / "cache", tmp / "a.db", first


@pytest.fixture()
def cache(tmp_path, monkeypatch, first_build):
    """A private copy of the module's cache folder (its ``demo`` subfolder), the default of
    ``demo_file`` in the test."""
    folder = tmp_path / "cache"
    shutil.copytree(first_build[0], folder)
    monkeypatch.setattr(demo, "default_cache_dir", lambda: folder)
    return folder / "demo"


@pytest.fixture()
def empty_cache(tmp_path, monkeypatch):
    monkeypatch.setattr(demo, "default_cache_dir", lambda: tmp_path / "empty")
    return tmp_path / "empty" / "demo"


def test_a_copy_from_the_cache_has_every_table_of_a_fresh_build(tmp_path, cache, first_build):
    first = first_build[2]
    second = demo_file(tmp_path / "b.db", **SETTING)
    fresh = demo_file(tmp_path / "c.db", cache=False, **SETTING)
    assert (first["cached"], second["cached"], fresh["cached"]) == (False, True, False)
    assert second["groundTruthPath"] == str((tmp_path / "b.ground_truth.json").resolve())
    assert (tmp_path / "b.ground_truth.json").read_bytes() == (tmp_path / "c.ground_truth.json").read_bytes()
    assert second["stages"] == fresh["stages"] == {"enrich": "done"}
    tables, count = _tables(tmp_path / "b.db")
    assert count == fresh["records"] > 0
    assert tables == _tables(tmp_path / "c.db")[0] == _tables(first_build[1])[0]
    assert tables["topic_assignments"]["rows"] > 0 and tables["signals"]["rows"] == tables["stories"]["rows"] == 0
    assert stat.S_IMODE((tmp_path / "b.db").stat().st_mode) == 0o600
    assert len(list(cache.glob("*.db"))) == 1


def test_a_new_corpuskit_builds_again_and_drops_the_old_build(tmp_path, cache, monkeypatch):
    old = sorted(p.name for p in cache.iterdir())
    monkeypatch.setattr(demo, "_code_digest", lambda: "another version")
    assert demo_file(tmp_path / "b.db", **SETTING)["cached"] is False
    now = sorted(p.name for p in cache.iterdir())
    assert len(now) == len(old) and not set(now) & set(old)
    assert demo_file(tmp_path / "c.db", **SETTING)["cached"] is True


def test_another_setting_is_another_build(tmp_path, cache):
    other = demo_file(tmp_path / "b.db", **{**SETTING, "seed": 4})
    assert other["cached"] is False and other["seed"] == 4
    assert len(list(cache.glob("*.db"))) == 2


def test_bad_arguments(tmp_path, empty_cache):
    cache = empty_cache
    (tmp_path / "taken.db").write_bytes(b"")
    with pytest.raises(FileExistsError):
        demo_file(tmp_path / "taken.db", **SETTING)
    with pytest.raises(ValueError, match="first stages"):
        demo_file(tmp_path / "a.db", **{**SETTING, "run_stages": ("analyse",)})
    from corpuskit.errors import ValidationError

    for bad in ({"seed": "../../x"}, {"records": 10}, {"days": 7.0}):
        with pytest.raises(ValidationError):
            demo_file(tmp_path / "a.db", **{**SETTING, **bad})
    assert not (tmp_path / "a.db").exists() and not cache.exists()


def test_a_folder_that_cannot_be_written_is_not_used(tmp_path):
    blocked = tmp_path / "file-not-folder"
    blocked.write_text("x")
    summary = demo_file(tmp_path / "a.db", cache=blocked, **SETTING)
    assert summary["cached"] is False and (tmp_path / "a.db").exists()
    assert blocked.read_text() == "x"


def test_a_failed_copy_leaves_no_file(tmp_path, cache, monkeypatch):
    class Failing:
        def execute(self, *args):
            raise OSError("disk full")

        def close(self):
            pass

    monkeypatch.setattr("corpuskit.store.connection.connect_read_only", lambda path: Failing())
    with pytest.raises(OSError, match="disk full"):
        demo_file(tmp_path / "b.db", **SETTING)
    assert not (tmp_path / "b.db").exists()


def test_a_failed_build_leaves_nothing_in_the_cache_or_at_the_path(tmp_path, empty_cache, monkeypatch):
    cache = empty_cache
    from corpuskit.errors import ValidationError

    def refused(*args, **kwargs):
        raise ValidationError("the build failed")

    monkeypatch.setattr(demo, "store_demo", refused)
    for cached in (True, False):
        with pytest.raises(ValidationError, match="build failed"):
            demo_file(tmp_path / "a.db", **SETTING, cache=cached)
        assert not list(tmp_path.glob("a.*"))
    assert not [p for p in cache.iterdir() if p.suffix != ".lock"]   # the lock file may stay


def test_two_processes_asking_at_once_build_once(tmp_path, empty_cache):
    import json
    import subprocess
    import sys

    script = ("import json, sys; from corpuskit.demo import demo_file; print(json.dumps(demo_file(sys.argv[1], "
              "seed=3, records=200, days=28, run_stages=('enrich',), cache=sys.argv[2])['cached']))")
    runs = [subprocess.Popen([sys.executable, "-c", script, str(tmp_path / f"{n}.db"), str(empty_cache.parent)],
                             stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True) for n in "ab"]
    results = [run.communicate(timeout=300) for run in runs]
    assert all(run.returncode == 0 for run in runs), [err[-2000:] for _, err in results]
    assert sorted(json.loads(out) for out, _ in results) == [False, True]
    assert _tables(tmp_path / "a.db")[0] == _tables(tmp_path / "b.db")[0]
