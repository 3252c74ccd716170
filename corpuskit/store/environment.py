"""What a stage run and the manifest record of the process they ran in: package versions and the
numeric environment (the BLAS and OpenMP libraries, their kernels and thread counts).

Here, in the store layer, because :meth:`CorpusFile.run_stage <corpuskit.store.corpus_file.CorpusFile.run_stage>`
writes :func:`run_environment` under the meta key ``versions:<run id>`` when a run starts and ends;
:mod:`corpuskit.manifest` reports it (and re-exports these names).
"""
from __future__ import annotations

import platform
import sqlite3
from importlib import metadata

#: The packages whose versions :func:`package_versions` reports.
PACKAGES = ("corpuskit", "numpy", "pandas", "scikit-learn", "hdbscan", "sqlite-vec")


def _versions(names) -> dict:
    """``{name: installed version}`` for ``names`` (None for one not installed)."""
    out = {}
    for name in names:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = None
    return out


def package_versions() -> dict:
    """Installed versions of the packages a result depends on, plus Python and SQLite."""
    out = _versions(PACKAGES)
    if out.get("corpuskit") is None:
        from corpuskit.version import __version__

        out["corpuskit"] = __version__
    out["python"] = platform.python_version()
    out["sqlite"] = sqlite3.sqlite_version
    return out


#: The numeric libraries whose versions :func:`numeric_environment` reports.
NUMERIC_PACKAGES = ("numpy", "scipy", "scikit-learn", "threadpoolctl")


def numeric_environment(load: bool = False) -> dict:
    """The numeric environment of this process: what a float result can depend on.

    ``numpy, scipy, scikit-learn, threadpoolctl``: their versions; ``machine``
    (``platform.machine()``), ``processor`` (the CPU's model name where the system
    says it cheaply: ``/proc/cpuinfo``, else ``platform.processor()``; None when
    neither does), ``cpuCount`` and ``cpusAvailable`` (those this process may run on);
    ``blas`` and ``openmp``: one entry per library loaded in the process, as
    threadpoolctl reports it: ``internalApi`` (openblas, mkl, blis, ...), ``version``,
    ``architecture`` (the kernel the library chose for this CPU, e.g. Haswell, SkylakeX),
    ``threadingLayer``, ``numThreads`` (the threads it would use now), ``library`` (the
    file's name, never its directory) and ``package`` (the wheel that ships it, from a
    ``<package>.libs`` directory; None otherwise). Sorted, so equal environments compare equal.

    ``load`` imports scipy.linalg and scikit-learn first, the libraries the stages use
    that bring their own BLAS and OpenMP, so that every kernel a stage could run is listed;
    without it only the libraries this process has loaded already are.
    """
    import os

    from threadpoolctl import threadpool_info

    if load:
        import scipy.linalg  # noqa: F401
        import sklearn.decomposition  # noqa: F401
    out = _versions(NUMERIC_PACKAGES)
    out["machine"] = platform.machine() or None
    out["processor"] = _processor_name()
    out["cpuCount"] = os.cpu_count()
    out["cpusAvailable"] = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    libraries = {"blas": [], "openmp": []}
    for info in threadpool_info():
        path = info.get("filepath") or ""
        folder = os.path.basename(os.path.dirname(path))
        package = folder.rsplit(".", 1)[0] if folder.endswith((".libs", ".dylibs")) else None
        libraries.setdefault(info.get("user_api") or "other", []).append({
            "internalApi": info.get("internal_api"), "version": info.get("version"),
            "architecture": info.get("architecture"), "threadingLayer": info.get("threading_layer"),
            "numThreads": info.get("num_threads"), "library": os.path.basename(path) or None,
            "package": package})
    for api, entries in libraries.items():
        out[api] = sorted(entries, key=lambda e: (e["package"] or "", e["library"] or "", e["version"] or ""))
    return out


def _processor_name() -> str | None:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                key, _, value = line.partition(":")
                if key.strip() in ("model name", "Model", "cpu model") and value.strip():
                    return value.strip()
    except OSError:
        pass
    name = platform.processor()
    return name if name and name != platform.machine() else None


def run_environment() -> dict:
    """What a stage run records (meta ``versions:<run id>``): :func:`package_versions` and,
    under ``numeric``, :func:`numeric_environment` of the libraries loaded in the run's process."""
    return {**package_versions(), "numeric": numeric_environment()}
