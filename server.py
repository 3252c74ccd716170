"""Serve a corpus over HTTP: the bearer interface under /v1 and the keyed one under /api/v1.

    python server.py [--db PATH] [--host 127.0.0.1] [--port 8000] [--workers N] [--threads N]

With no ``--db`` it serves ``./corpus.db``, building the demo corpus (every
stage) first when the file does not exist. Each start creates a research-tier
API key and prints it on the last line before serving: it is the only time
that key is shown (``corpuskit keys create`` makes more; ``keys revoke`` ends them).

``--workers`` processes (default: one per CPU) share the listening socket, each
a waitress server with ``--threads`` threads and its own connections to the
corpus file. One Python process runs Python on one core at a time, so more
processes use more cores; everything they share (rate-limit counters, key
revocations, the data) lives in the corpus file, and the rate limits stay exact
across processes.
"""
from __future__ import annotations

import argparse
import gc
import logging
import os
import signal
import socket
import sys
from pathlib import Path

# One BLAS thread per request thread: the server is already as parallel as the machine (a process
# per CPU, many threads each), and BLAS threads of its own only fight those for the cores (search on
# the demo: 23 -> 11 ms of CPU per request, 85 -> 180 requests/s at 8 connections). Set before numpy loads; a value
# already in the environment wins.
for _blas_threads in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_blas_threads, "1")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description="Serve a corpuskit corpus over HTTP.")
    parser.add_argument("--db", help="corpus file (default ./corpus.db, built from the demo when missing)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--workers", type=int,
                        default=int(os.environ.get("CORPUSKIT_WORKERS") or (os.cpu_count() or 1)),
                        help="server processes sharing the port (default: one per CPU)")
    parser.add_argument("--threads", type=int, default=int(os.environ.get("CORPUSKIT_THREADS", "96")),
                        help="worker threads per process; each open signal stream holds one (default 96)")
    parser.add_argument("--no-key", action="store_true", help="do not create a key at start")
    parser.add_argument("--now", help="fix the corpus clock (ISO 8601)")
    return parser


def listening_socket(host: str, port: int) -> socket.socket:
    """A bound, listening TCP socket every worker process accepts from."""
    info = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    sock = socket.socket(info[0], socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(info[4])
    sock.listen(1024)
    sock.setblocking(False)
    return sock


def serve_worker(db_path, now, sock: socket.socket, threads: int) -> None:
    """One server process: its own corpus connections, a waitress server on ``sock``."""
    import waitress

    from corpuskit import open_corpus
    from corpuskit.api import create_app

    corpus = open_corpus(db_path, now=now)
    heartbeat = float(os.environ.get("CORPUSKIT_HEARTBEAT_SECONDS", "30"))
    app = create_app(corpus, heartbeat_seconds=heartbeat)
    # Everything loaded so far lives as long as the process: keep it out of the
    # cyclic collector's way, so collections only walk what requests allocate.
    gc.collect()
    gc.freeze()
    waitress.serve(app, sockets=[sock], threads=threads, channel_timeout=3600,
                   connection_limit=1000, ident="corpuskit")


def run_workers(db_path, now, sock: socket.socket, threads: int, workers: int) -> int:
    """Fork ``workers`` server processes and wait; SIGTERM/SIGINT stop them all."""
    children = []
    for _ in range(workers):
        pid = os.fork()
        if pid == 0:  # the child serves until it is told to stop
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            code = 0
            try:
                serve_worker(db_path, now, sock, threads)
            except BaseException:
                logging.getLogger("corpuskit.server").exception("server process %d failed", os.getpid())
                code = 1
            finally:
                logging.shutdown()
                os._exit(code)
        children.append(pid)

    def stop(signum, frame):
        for child in children:
            try:
                os.kill(child, signal.SIGTERM)
            except ProcessLookupError:
                pass

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    status = 0
    remaining = set(children)
    while remaining:
        try:
            pid, code = os.wait()
        except ChildProcessError:
            break
        except InterruptedError:
            continue
        remaining.discard(pid)
        if code and not status:
            status = 1
            stop(None, None)  # one worker failed: stop the others rather than serve at part strength
    return status


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")

    from corpuskit import open_corpus
    from corpuskit.api import create_app
    from corpuskit.errors import CorpusKitError
    from corpuskit.store.keys import create_key

    if args.workers < 1 or args.threads < 1:
        print("server.py: error: --workers and --threads must be at least 1", file=sys.stderr)
        return 2
    try:
        if args.db is None:
            path = Path("corpus.db")
            fresh = not path.exists()
            corpus = open_corpus(path, now=args.now)
            if fresh:
                from corpuskit.ingest.demo import build_demo

                print(f"building the demo corpus in {path.resolve()} (first start only)...", flush=True)
                summary = build_demo(corpus, progress=True)
                print(f"demo corpus ready: {summary.get('records')} records", flush=True)
        else:
            path = Path(args.db)
            corpus = open_corpus(path, now=args.now)
        heartbeat = float(os.environ.get("CORPUSKIT_HEARTBEAT_SECONDS", "30"))
        create_app(corpus, heartbeat_seconds=heartbeat)  # fail here, before forking, on bad settings
        key = None if args.no_key else create_key(corpus.conn, tier="research", name="server.py start")
    except CorpusKitError as exc:
        print(f"server.py: error: {exc}", file=sys.stderr)
        return 2
    served = corpus.path
    corpus.close()  # each worker opens its own connections; none may cross a fork

    sock = listening_socket(args.host, args.port)
    workers = args.workers if hasattr(os, "fork") else 1
    print(f"serving {served} on http://{args.host}:{args.port}  (/v1, /api/v1; status: /api/v1/status; "
          f"{workers} process{'es' if workers > 1 else ''} x {args.threads} threads)", flush=True)
    if key:
        print("API key for this run (research tier; shown once):", flush=True)
        print(key, flush=True)
    if workers == 1:
        serve_worker(path, args.now, sock, args.threads)
        return 0
    return run_workers(path, args.now, sock, args.threads, workers)


if __name__ == "__main__":
    sys.exit(main())
