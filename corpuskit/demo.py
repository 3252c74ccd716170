"""The demo corpus: a deterministic generator with planted events, and checks against them.

>>> import corpuskit
>>> from corpuskit.demo import build_demo, ground_truth
>>> corpus = corpuskit.open_corpus(":memory:")                       # doctest: +SKIP
>>> build_demo(corpus, seed=7, records=3000, days=60, progress=False)  # doctest: +SKIP

* :func:`build_demo`: generate records (same seed, same records) across seven
  source kinds, plant events, and by default run every stage;
* :func:`demo_file`: the same, written to a new corpus file, built once per setting and
  version of corpuskit and copied from a cache after that;
* :func:`ground_truth`: the planted events and beats the generator wrote;
* :func:`enrichment_quality`: entity precision/recall, primary-topic accuracy
  and sentiment agreement against the generator's labels;
* :func:`evaluate_signals`: detected signals scored against the planted events.
"""
from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from contextlib import contextmanager
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from time import perf_counter

from corpuskit.analysis.signals.evaluate import evaluate as evaluate_signals
from corpuskit.enrich.quality import demo_quality as enrichment_quality
from corpuskit.ingest.demo import store_demo

__all__ = ["build_demo", "demo_file", "enrichment_quality", "evaluate_signals", "ground_truth"]

STAGES = ("enrich", "analyse", "narrate")


def build_demo(corpus, seed: int = 7, records: int = 20000, days: int = 60, events: bool = True,
               run_stages: bool | tuple = True, progress: bool = True) -> dict:
    """Generate the demo corpus into ``corpus`` (which must hold no records) and run the stages.

    Stores the records (one transaction), the beat definitions (meta ``beats``),
    the ground truth (meta ``demo_ground_truth`` and, for a file corpus,
    ``<db stem>.ground_truth.json`` beside it, see :func:`~corpuskit.ingest.demo.ground_truth_path`;
    the summary's ``groundTruthPath`` gives its absolute path), freezes the
    corpus clock (:func:`corpuskit.ingest.demo.store_demo` does all that), then runs every
    stage (``corpus.run``) when ``run_stages`` is true, or the first ones of enrich, analyse and
    narrate that it names (``("enrich",)``). Returns a JSON-ready summary.
    """
    stages = _stages(run_stages)
    summary = store_demo(corpus.file, seed=seed, records=records, days=days, events=events)
    for stage in stages:
        t0 = perf_counter()
        corpus.run(progress=progress, stages=(stage,))
        summary["stages"][stage] = "done"
        summary["timings"][stage] = round(perf_counter() - t0, 3)
    return summary


def demo_file(path, seed: int = 7, records: int = 20000, days: int = 60, events: bool = True,
              run_stages: bool | tuple = True, cache: bool | str | os.PathLike = True) -> dict:
    """Write the demo corpus to a new corpus file at ``path``, as :func:`build_demo` builds it.

    The first call with a setting builds it (no progress bars) into the cache folder, keyed by the
    setting, the bytes of the installed corpuskit (code and models) and the versions of the
    numerical libraries; later calls copy that file (``VACUUM INTO``), so the notebooks and a
    researcher's reruns build each demo once. Every table is the same as a fresh build's (the
    build is deterministic). A second process asking for a setting being built waits for that
    build. ``cache`` is the folder (``True``: :func:`default_cache_dir`; ``False``: build into
    ``path``, no cache); builds of an older corpuskit with the same setting are removed when a new
    one is written, and a folder that cannot be written is not used.

    Returns the build's summary (its ``timings`` are those of the build that made the cached
    file; ``cached`` says whether it was copied), its ``groundTruthPath`` beside ``path``.
    Raises :class:`FileExistsError` when ``path`` exists.
    """
    from corpuskit import open_corpus
    from corpuskit.ingest.demo import check_demo_params, ground_truth_path
    from corpuskit.store.connection import connect_read_only, create_private

    path = Path(path)
    if path.exists():
        raise FileExistsError(f"{path} exists: demo_file writes a new corpus file")
    stages = _stages(run_stages)
    check_demo_params(seed, records, days)
    setting = {"seed": int(seed), "records": int(records), "days": int(days), "events": bool(events),
               "stages": list(stages)}
    folder = _writable(default_cache_dir() if cache is True else Path(cache) if cache else None)
    if folder is None:
        with _removed_on_failure(path):
            corpus = open_corpus(path)
            try:
                return {**build_demo(corpus, progress=False, **_build_args(setting)), "cached": False}
            finally:
                corpus.close()
    built, summary, cached = _cached_build(folder, setting)
    source = connect_read_only(built)
    try:
        with _removed_on_failure(path):
            create_private(path)
            source.execute("VACUUM INTO ?", (str(path),))
    finally:
        source.close()
    truth = ground_truth_path(path)
    truth.write_bytes(ground_truth_path(built).read_bytes())
    return {**summary, "groundTruthPath": str(truth), "cached": cached}


def default_cache_dir() -> Path:
    """The folder :func:`demo_file` keeps its builds in by default: ``~/.cache/corpuskit``."""
    return Path.home() / ".cache" / "corpuskit"


def _writable(folder: Path | None) -> Path | None:
    """``folder / "demo"``, made if missing, or None when there is no folder or it cannot be written."""
    if folder is None:
        return None
    try:
        (folder / "demo").mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return folder / "demo" if os.access(folder / "demo", os.W_OK) else None


def _stages(run_stages) -> tuple:
    if run_stages is True or run_stages is False:
        return STAGES if run_stages else ()
    stages = tuple(run_stages)
    if stages != STAGES[:len(stages)]:
        raise ValueError(f"run_stages names the first stages of {', '.join(STAGES)} in order, not {stages!r}")
    return stages


def _build_args(setting: dict) -> dict:
    return {"seed": setting["seed"], "records": setting["records"], "days": setting["days"],
            "events": setting["events"], "run_stages": tuple(setting["stages"])}


def _cached_build(folder: Path, setting: dict) -> tuple[Path, dict, bool]:
    """The build of ``setting`` in ``folder`` (built now if absent): its file, its summary, and whether it
    was there already. A second process asking for the same setting meanwhile waits for the first
    one's build (where the system has ``fcntl``; elsewhere both build, and the last rename wins)."""
    from corpuskit import open_corpus
    from corpuskit.ingest.demo import ground_truth_path
    from corpuskit.store.file_lock import held

    name = "demo-s{seed}-r{records}-d{days}-e{events:d}-{n}".format(n=len(setting["stages"]), **setting)
    key = hashlib.sha256(json.dumps([setting, _code_digest()], sort_keys=True).encode()).hexdigest()[:16]
    built, described = folder / f"{name}-{key}.db", folder / f"{name}-{key}.json"
    if built.exists() and described.exists():
        return built, json.loads(described.read_text(encoding="utf-8")), True
    with held(folder / f"{name}-{key}.lock"):
        if built.exists() and described.exists():  # built by another process while this one waited
            return built, json.loads(described.read_text(encoding="utf-8")), True
        work = folder / f"{name}-{key}.{os.getpid()}.building.db"
        with _removed_on_failure(work):
            corpus = open_corpus(work)
            try:
                summary = build_demo(corpus, progress=False, **_build_args(setting))
            finally:
                corpus.close()
        os.replace(ground_truth_path(work), ground_truth_path(built))
        os.replace(work, built)
        described.write_text(json.dumps(summary), encoding="utf-8")
    for old in folder.glob(f"{name}-*"):
        if not old.name.startswith(f"{name}-{key}"):
            old.unlink(missing_ok=True)
    return built, summary, False


@contextmanager
def _removed_on_failure(path: Path):
    """Remove the corpus file at ``path`` and the files SQLite and the demo keep beside it when the
    block fails: nothing half-written is left behind."""
    from corpuskit.ingest.demo import ground_truth_path
    from corpuskit.store.connection import COMPANION_SUFFIXES

    try:
        yield
    except BaseException:
        for leftover in (path, *(Path(f"{path}{s}") for s in COMPANION_SUFFIXES), ground_truth_path(path)):
            leftover.unlink(missing_ok=True)
        raise


@lru_cache(maxsize=1)
def _code_digest() -> str:
    """The bytes of the installed corpuskit package and the versions it computes with."""
    digest = hashlib.sha256()
    package = Path(__file__).resolve().parent
    for file in sorted(package.rglob("*")):
        if file.is_file() and "__pycache__" not in file.parts:
            digest.update(file.relative_to(package).as_posix().encode())
            digest.update(file.read_bytes())
    for library in ("numpy", "scipy", "scikit-learn", "hdbscan", "sqlite-vec"):
        try:
            digest.update(f"{library}={metadata.version(library)}".encode())
        except metadata.PackageNotFoundError:
            digest.update(f"{library}=none".encode())
    digest.update(sqlite3.sqlite_version.encode())
    return digest.hexdigest()


def ground_truth(corpus) -> dict:
    """The demo's ground truth: ``{beats: [...], events: [{id, kind, beat, start, end, ...}]}``.

    Empty lists for a corpus that is not a demo.
    """
    return corpus.get_meta("demo_ground_truth") or {"beats": [], "events": []}
