"""Enrichment on a Dask cluster: chunks scored on the workers, written back by the caller.

:func:`corpuskit.enrich.pipeline.enrich_corpus` with ``client=`` (or
``corpuskit enrich --dask ADDRESS``) fits or loads the corpus's models in the
calling process, as the local path does, then ships them once to every worker
and submits one task per chunk of pending records. Each task computes what the
local path computes for a chunk (sentiment, entities, embeddings, topic
assignments and themes); the calling process collects the results in chunk
order and writes each chunk in one transaction, exactly as it writes a local
chunk. Only the calling process touches the corpus file, so the workers need
no shared disk, and an interrupted run keeps its finished chunks and resumes.

Workers must run the same corpuskit (and scikit-learn, numpy) versions as the
caller: the task function and the models are pickled by reference to their
modules. Dask is optional: ``pip install 'corpuskit[dask]'``.
"""
from __future__ import annotations

import os
import weakref

from corpuskit.errors import ClusterError, MissingDependencyError, ValidationError

INSTALL_LINE = "pip install 'corpuskit[dask]'"


def _distributed():
    """The ``distributed`` package, or a :class:`MissingDependencyError` naming the install line."""
    try:
        import distributed
    except ImportError as exc:
        raise MissingDependencyError(
            f"enrichment on a Dask cluster needs the dask extra: {INSTALL_LINE}") from exc
    return distributed


def connect(client, timeout: float = 30.0):
    """A ``dask.distributed.Client`` for ``client``; returns ``(client, owned)``.

    Parameters
    ----------
    client : Client or str
        A connected ``Client`` (used as is, ``owned`` False), a scheduler
        address (``tcp://host:8786``, ``host:8786``) or the path of a
        scheduler file (``scheduler.json``, as written by ``dask scheduler
        --scheduler-file`` or dask-mpi); a ``Client`` made here is ``owned``:
        the caller closes it.
    timeout : float
        Seconds to wait for the scheduler.
    """
    distributed = _distributed()
    if isinstance(client, distributed.Client):
        if client.status not in ("running", "connecting"):
            raise ClusterError(f"the Dask client is {client.status}, not running")
        return client, False
    if not isinstance(client, (str, os.PathLike)) or not str(client).strip():
        raise ValidationError("client must be a dask.distributed.Client, a scheduler address "
                              f"(tcp://host:8786) or a scheduler file, not {client!r}")
    target = str(client).strip()
    kwargs = {"timeout": timeout, "set_as_default": False}
    if target.endswith(".json"):
        if not os.path.isfile(target):
            raise ValidationError(f"no Dask scheduler file at {target}")
        kwargs["scheduler_file"] = target
    else:
        kwargs["address"] = target
    try:
        return distributed.Client(**kwargs), True
    except (OSError, TimeoutError, ValueError) as exc:
        raise ClusterError(f"cannot reach the Dask scheduler at {target}: {exc}") from exc


class DaskChunkMap:
    """Runs chunk tasks on a Dask cluster through an executor's ``submit``/``shutdown``.

    ``state`` (the fitted models) is sent once to every worker; each
    ``submit(fn, *args)`` runs ``fn(state, *args)`` on a worker and returns a
    future whose ``result()`` gives the answer (or raises the task's error).
    Tasks are submitted impure, so two identical chunks are still two tasks,
    and run roughly in submission order.

    Parameters
    ----------
    client : dask.distributed.Client
    state : object
        Anything picklable the task function needs on every worker.
    wait_seconds : float
        How long to wait for a first worker when the cluster has none yet (a
        batch queue may take a while to start them); then :class:`ClusterError`.
    """

    def __init__(self, client, state, wait_seconds: float = 600.0):
        self.client = client
        if not client.nthreads():
            try:
                client.wait_for_workers(1, timeout=wait_seconds)
            except TimeoutError as exc:
                raise ClusterError(f"no Dask worker joined the scheduler at {client.scheduler.address} "
                                   f"within {wait_seconds:g} s") from exc
        self._state = client.scatter([state], broadcast=True, hash=False)[0]
        self._futures = weakref.WeakSet()

    @property
    def threads(self) -> int:
        """Worker threads the cluster has now (0 while it is still starting)."""
        return sum(self.client.nthreads().values())

    def submit(self, fn, *args):
        """Run ``fn(state, *args)`` on a worker; returns a future."""
        future = self.client.submit(fn, self._state, *args, pure=False)
        self._futures.add(future)
        return future

    def result(self, future):
        """The answer of a task; a worker that cannot import a module becomes a :class:`ClusterError`."""
        try:
            return future.result()
        except ImportError as exc:  # unpickling the models or the task on a worker without corpuskit
            raise ClusterError(
                f"a Dask worker cannot import {exc.name or 'a module'} ({exc}): install the same corpuskit "
                "version (and numpy, scikit-learn) on every worker as on this machine") from exc

    def shutdown(self, wait: bool = True, cancel_futures: bool = False) -> None:
        """Cancel unfinished tasks (when ``cancel_futures``) and release the shipped state."""
        if cancel_futures:
            pending = [f for f in list(self._futures) if not f.done()]
            if pending:
                try:
                    self.client.cancel(pending)
                except Exception:  # noqa: BLE001 - a lost scheduler has nothing left to cancel
                    pass
        self._futures = weakref.WeakSet()
        self._state.release()
