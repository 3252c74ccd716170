"""An import's parsing in a second process, beside the writes of the first.

Reading a file's rows, mapping its layout, normalising and hashing them is Python work
that needs no connection; staging them is SQLite's. :func:`chunked` runs a chunk
function over an iterator and yields each chunk's result in order. The first
:data:`PARALLEL_AFTER` items are handled in the calling process; if the iterator has
more, the rest are handled by a worker process forked at that point, which continues
the same iterator (so a file is read once, from where the caller left off) while the
caller consumes the results: the worker parses chunk k + 1 while the caller writes
chunk k. A small import never starts a process.

- **Bounded memory:** the worker blocks when :data:`QUEUE` results are waiting, so at
  most ``QUEUE + 2`` chunks are held between the processes, whatever the file's size.
- **Same results:** the chunk function is the same in both processes, and results come
  back in order; the worker also hands back the state the caller needs at the end
  (``state()``, e.g. the import's date rules), so the caller sees what one process
  would have seen.
- **Errors:** an exception in the worker (an unreadable row, mixed date orders) is
  raised again in the caller, the same exception with the same message; one that
  cannot be pickled becomes a ``RuntimeError`` carrying the worker's traceback. A worker
  that dies without a word (killed) raises ``RuntimeError`` naming its exit code. The
  caller has written nothing to the corpus by then (an import stages its rows outside
  it, see :mod:`corpuskit.ingest.staging`), so the file is left as it was. A caller that is
  killed leaves no worker behind: the worker waits for room in the queue at most
  half a second at a time and exits when its parent is gone.
- **Where:** only where the ``fork`` start method exists (Linux, other Unixes), and only
  when a core is free (:func:`spare_core`); otherwise every chunk is handled in the calling
  process. The worker never touches the caller's
  SQLite connection, and it leaves by ``os._exit`` (multiprocessing's fork does), so no
  finaliser of the caller's objects runs in it.
"""
from __future__ import annotations

import itertools
import multiprocessing
import os
import pickle
import queue as queues
import traceback
from typing import Callable, Iterator

#: items handled in the calling process before a worker takes over the rest. Measured on
#: the Hacker News CSV (``benchmarks/bench_import_phases.py``, CPU of each process): with a
#: worker after 2,000 rows the critical path of a 10,000-row import is 0.24 s against 0.30 s in
#: one process, of 20,000 rows 0.52 against 0.59, of 50,000 rows 1.22 against 1.45; the worker
#: costs 0.02 to 0.1 CPU s more in all (pickling, the fork). Smaller files stay in one process.
PARALLEL_AFTER = 10_000
#: results waiting between the worker and the caller, at most
QUEUE = 4
#: rows a chunk function handles at a time (the staging batch of an import)
CHUNK = 2000
_END = object()
_POLL = 0.5   # seconds between checks that a silent worker is still alive


def fork_available() -> bool:
    """Whether a worker process can be forked on this platform."""
    return "fork" in multiprocessing.get_all_start_methods()


def spare_core() -> bool:
    """Whether a second core is free: at least two usable cores and a load average (last
    minute) of at most one less than their number, which counts the import itself.

    On a machine whose cores are all busy a worker gains no time (the kernel shares the cores
    out, the worker's turn is the caller's) and costs its pickling and fork: measured on 500,000
    Hacker News rows at load 9 on two cores, 32.5 s wall with a worker against 25.1 s without.
    """
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):
        return False
    return cores >= 2 and load <= cores - 1


def chunked(items: Iterator, work: Callable[[Iterator], tuple[object, bool]],
            state: Callable[[], object] | None = None, *, parallel_after: int | None = None,
            queue_size: int | None = None, on_state: Callable[[object], None] | None = None):
    """Yield ``work(items)``'s results in order until it says it is done.

    ``work`` consumes one chunk (up to :data:`CHUNK` items) from ``items`` and returns
    ``(result, done)``; ``done`` is True when ``items`` is exhausted or the caller should
    stop (e.g. a strict import that met too many bad rows). The first ``parallel_after``
    items (default :data:`PARALLEL_AFTER`, in whole chunks) are handled here, the rest by
    a forked worker holding at most ``queue_size`` (default :data:`QUEUE`) results ahead.
    When a worker took over, ``on_state`` is called with ``state()`` as the worker
    computed it, after its last result: the caller adopts it.
    """
    inline = chunks_before(parallel_after)
    size = QUEUE if queue_size is None else queue_size
    handled = 0
    while True:
        if handled == inline and fork_available() and spare_core():
            first = next(items, _END)   # a file that ended on a chunk boundary starts no worker
            if first is _END:
                return
            yield from _in_worker(itertools.chain((first,), items), work, state, size, on_state)
            return
        result, done = work(items)
        handled += 1
        yield result
        if done:
            return



def chunks_before(parallel_after: int | None) -> int:
    """How many chunks of :data:`CHUNK` rows are handled in the calling process."""
    rows = PARALLEL_AFTER if parallel_after is None else parallel_after
    return -(-rows // CHUNK)


def _in_worker(items, work, state, size, on_state):
    context = multiprocessing.get_context("fork")
    channel = context.Queue(maxsize=max(1, size))
    worker = context.Process(target=_work, args=(channel, items, work, state), daemon=True,
                             name="corpuskit-import-worker")
    worker.start()
    finished = False
    try:
        while True:
            kind, value = _receive(channel, worker)
            if kind == "chunk":
                yield value
            elif kind == "end":
                if on_state is not None and value is not None:
                    on_state(value)
                finished = True
                return
            else:
                raise value
    finally:
        if not finished and worker.is_alive():
            worker.terminate()
        worker.join()
        channel.close()
        channel.cancel_join_thread()


def _receive(channel, worker):
    while True:
        try:
            return pickle.loads(channel.get(timeout=_POLL))
        except queues.Empty:
            if worker.is_alive():
                continue
            try:   # what it sent just before it ended may still be in the pipe
                return pickle.loads(channel.get(timeout=_POLL))
            except queues.Empty:
                raise RuntimeError(f"the import's worker process ended without finishing "
                                   f"(exit code {worker.exitcode}); nothing was imported") from None


def _work(channel, items, work, state) -> None:
    """The worker: every remaining chunk, then the final state, each pickled here."""
    parent = os.getppid()
    try:
        while True:
            result, done = work(items)
            _put(channel, pickle.dumps(("chunk", result), protocol=pickle.HIGHEST_PROTOCOL), parent)
            if done:
                break
        _put(channel, pickle.dumps(("end", state() if state is not None else None),
                                   protocol=pickle.HIGHEST_PROTOCOL), parent)
    except BaseException as exc:   # noqa: BLE001 - every failure goes back to the caller
        _put(channel, _portable(exc), parent)
    channel.close()
    channel.join_thread()


def _put(channel, blob: bytes, parent: int) -> None:
    """Wait for room in the queue; leave at once if the caller is gone (killed: no one will read)."""
    while True:
        try:
            channel.put(blob, timeout=_POLL)
            return
        except queues.Full:
            if os.getppid() != parent:
                os._exit(1)


def _portable(exc: BaseException) -> bytes:
    """The pickled ``("error", exc)``, or a RuntimeError with the worker's traceback when it will not pickle."""
    try:
        blob = pickle.dumps(("error", exc), protocol=pickle.HIGHEST_PROTOCOL)
        pickle.loads(blob)
        return blob
    except Exception:   # noqa: BLE001
        text = "".join(traceback.format_exception(exc))
        return pickle.dumps(("error", RuntimeError(f"the import's worker process failed:\n{text}")))
