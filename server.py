"""Serve a corpus over HTTP: the bearer interface under /v1 and the keyed one under /api/v1.

    python server.py [--db PATH] [--host 127.0.0.1] [--port 8000] [--workers N] [--threads N]
                     [--max-connections N] [--max-streams N] [--cors ORIGIN] [--upgrade-url URL]

With no ``--db`` it serves ``./corpus.db``, building the demo corpus (every
stage) first when the file does not exist. When the corpus has no active API
key, the start creates a research-tier key and prints it on the last line
before serving: it is the only time that key is shown. When an active key
exists, no key is created; the start says how to make one
(``corpuskit keys create``; ``keys revoke`` ends them).

``--workers`` processes (default: one per CPU) share the listening socket, each
a waitress server (``poll()`` loop) with ``--threads`` threads and its own
connections to the corpus file. One Python process runs Python on one core at
a time, so more processes use more cores; the data and key revocations live in
the corpus file, the rate-limit counters in ``<corpus>.limits.db`` beside it,
and the rate limits stay exact across processes. The parent process only
supervises: a worker that dies is started again (after 1 s, doubling to 30 s
while workers keep dying young), SIGTERM/SIGINT stop them all, and the workers
exit when the supervisor itself dies (``kill -9`` included).
"""
from __future__ import annotations

import argparse
import gc
import logging
import os
import signal
import socket
import sys
import time
from pathlib import Path

# One BLAS thread per request thread: the server is already as parallel as the machine (a process
# per CPU, many threads each), and BLAS threads of its own only fight those for the cores (search on
# the demo: 23 -> 11 ms of CPU per request, 85 -> 180 requests/s at 8 connections). Set before numpy loads; a value
# already in the environment wins.
for _blas_threads in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_blas_threads, "1")


#: The environment variables server.py reads (the library reads none: each is passed down).
ENVIRONMENT = {
    "CORPUSKIT_WORKERS": "default of --workers",
    "CORPUSKIT_THREADS": "default of --threads (96)",
    "CORPUSKIT_HEARTBEAT_SECONDS": "seconds between heartbeats on a signal stream (default 30)",
    "CORPUSKIT_UPGRADE_URL": "where a 429 points for higher tiers when --upgrade-url is not given",
    "CORPUSKIT_KEY_PREFIX": "what API keys start with: the key made at start, and the keys accepted (default ck_)",
    "CORPUSKIT_QUANTISED_FROM": "vectors from which search uses the memory-mapped quantised index (default 250000)",
    "CORPUSKIT_SQLITE_DRIVER": "sqlite3 or sqlean: the SQLite module that opens the corpus "
                               "(default sqlite3 when it loads extensions, else sqlean)",
    "OPENBLAS/OMP/MKL_NUM_THREADS": "BLAS threads per process (default 1)",
}


def build_parser() -> argparse.ArgumentParser:
    from corpuskit.cli import environment_help

    parser = argparse.ArgumentParser(description="Serve a corpuskit corpus over HTTP.",
                                     formatter_class=argparse.RawDescriptionHelpFormatter,
                                     epilog=environment_help(ENVIRONMENT))
    parser.add_argument("--db", help="corpus file (default ./corpus.db, built from the demo when missing)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--workers", type=int,
                        default=int(os.environ.get("CORPUSKIT_WORKERS") or (os.cpu_count() or 1)),
                        help="server processes sharing the port (default: one per CPU)")
    parser.add_argument("--threads", type=int, default=int(os.environ.get("CORPUSKIT_THREADS", "96")),
                        help="worker threads per process; each open signal stream holds one (default 96)")
    parser.add_argument("--max-connections", type=int, default=None,
                        help="open connections per process before new ones get a 503 "
                             "(default 8192, lowered to fit the open-file limit)")
    parser.add_argument("--max-streams", type=int, default=None,
                        help="open signal streams per process (default: a third of --threads); "
                             "beyond it a stream request gets a 503")
    parser.add_argument("--max-streams-per-key", type=int, default=None,
                        help="open signal streams per API key in each process (default 4); beyond it a 429")
    parser.add_argument("--idle-timeout", type=float, default=300.0,
                        help="seconds an idle keep-alive connection stays open (default 300)")
    parser.add_argument("--cors", action="append", default=[], metavar="ORIGIN",
                        help="allow browser calls from ORIGIN (repeatable; '*' for any); "
                             "/api/v1/status allows any origin regardless")
    parser.add_argument("--upgrade-url", default=os.environ.get("CORPUSKIT_UPGRADE_URL") or None,
                        help="URL a 429 answer points to for higher tiers (default: "
                             "CORPUSKIT_UPGRADE_URL, the corpus's upgrade_url meta value, "
                             "else /docs#keyed-headers on the host the client called)")
    parser.add_argument("--no-key", action="store_true", help="never create a key at start")
    parser.add_argument("--now", help="fix the corpus clock (ISO 8601)")
    return parser


def bound_socket(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host:port``, not yet listening: taken before the demo is built and a
    key is made, so a port in use fails at once and no key is created that nobody sees."""
    info = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    sock = socket.socket(info[0], socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(info[4])
    except OSError:
        sock.close()
        raise
    return sock


def start_listening(sock: socket.socket) -> socket.socket:
    """``sock`` listening, non-blocking: every worker process accepts from it."""
    sock.listen(4096)
    sock.setblocking(False)
    return sock


def warm_search_at_start(corpus, quantised_from) -> str:
    """Load the embedder and the search index once, before the workers fork (they inherit both, so
    no worker's first search loads them); returns the line to print: the time it took."""
    from corpuskit.search import warm_search

    try:
        seconds = warm_search(corpus, quantised_from)
    except Exception as exc:  # an unreadable embedder fails the searches, not the whole server
        return f"search not warmed: {type(exc).__name__}: {exc}"
    if seconds is None:
        return "search not warmed: the corpus has no embeddings yet"
    return f"search warmed (embedder loaded, index mapped) in {seconds:.2f} s"


def serve_worker(db_path, now, sock: socket.socket, options: dict) -> None:
    """One server process: its own corpus connections, a capped waitress server on ``sock``."""
    from corpuskit import open_corpus
    from corpuskit.api import create_app
    from corpuskit.api.wsgi_server import make_server

    corpus = open_corpus(db_path, now=now, driver=options["driver"])
    app = create_app(corpus, **options["app"])
    server = make_server(app, sock, threads=options["threads"], max_connections=options["max_connections"],
                         idle_timeout=options["idle_timeout"])
    # Everything loaded so far lives as long as the process: keep it out of the
    # cyclic collector's way, so collections only walk what requests allocate.
    gc.collect()
    gc.freeze()
    server.run()


def _child(db_path, now, sock, options) -> int:
    """Fork one worker; the parent gets its pid, the child never returns.

    The worker exits when the supervisor dies (``kill -9`` included): no worker
    serves on unsupervised, holding the port a new ``server.py`` needs.
    """
    supervisor = os.getpid()
    pid = os.fork()
    if pid:
        return pid
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    code = 0
    try:
        from corpuskit.enrich.workers import die_with_parent

        die_with_parent(supervisor)
        serve_worker(db_path, now, sock, options)
    except BaseException:
        logging.getLogger("corpuskit.server").exception("server process %d failed", os.getpid())
        code = 1
    finally:
        logging.shutdown()
        os._exit(code)


#: A worker that ran at least this long before dying resets the restart delay.
HEALTHY_SECONDS = 60.0
MAX_RESTART_DELAY = 30.0


def run_workers(db_path, now, sock: socket.socket, options: dict, workers: int) -> int:
    """Fork ``workers`` server processes and keep them running.

    A worker that dies (crash, ``kill -9``, out of memory) is replaced after a
    delay of 1 s, doubled for each further death within :data:`HEALTHY_SECONDS`
    of its start (at most :data:`MAX_RESTART_DELAY`). SIGTERM/SIGINT stop every
    worker and return 0.
    """
    log = logging.getLogger("corpuskit.server")
    started: dict[int, float] = {}
    for _ in range(workers):
        started[_child(db_path, now, sock, options)] = time.monotonic()
    stopping = False

    def stop(signum, frame):
        nonlocal stopping
        stopping = True
        for child in list(started):
            try:
                os.kill(child, signal.SIGTERM)
            except ProcessLookupError:
                pass

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    delay = 0.5  # the first young death waits 1 s
    pending = 0  # workers to start again once the delay has passed
    restart_at = 0.0
    while started or (pending and not stopping):
        if pending and not stopping and time.monotonic() >= restart_at:
            for _ in range(pending):
                started[_child(db_path, now, sock, options)] = time.monotonic()
            pending = 0
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            pid, status = 0, 0
        except InterruptedError:
            continue
        if pid == 0:
            time.sleep(0.1 if not pending else min(0.1, max(0.0, restart_at - time.monotonic())))
            continue
        born = started.pop(pid, None)
        if born is None or stopping:
            continue
        lived = time.monotonic() - born
        reason = (f"signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status)
                  else f"exit status {os.WEXITSTATUS(status)}")
        delay = 1.0 if lived >= HEALTHY_SECONDS else min(delay * 2, MAX_RESTART_DELAY)
        log.error("server process %d ended (%s) after %.1f s; starting a new one in %.0f s",
                  pid, reason, lived, delay)
        if not pending:
            restart_at = time.monotonic() + delay
        pending += 1
    return 0


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")

    from corpuskit import open_corpus
    from corpuskit.api import create_app
    from corpuskit.api.app import preload_handlers
    from corpuskit.api.wsgi_server import connection_cap, raise_fd_limit
    from corpuskit.cli import env_int
    from corpuskit.errors import CorpusKitError
    from corpuskit.store.api_keys import create_key, list_keys

    if args.workers < 1 or args.threads < 1:
        print("server.py: error: --workers and --threads must be at least 1", file=sys.stderr)
        return 2
    for name in ("max_connections", "max_streams", "max_streams_per_key"):
        value = getattr(args, name)
        if value is not None and value < 1:
            print(f"server.py: error: --{name.replace('_', '-')} must be at least 1", file=sys.stderr)
            return 2
    if args.max_streams is not None and args.max_streams >= args.threads:
        print("server.py: error: --max-streams must be below --threads (each stream holds a thread)",
              file=sys.stderr)
        return 2
    if not args.idle_timeout > 0:
        print("server.py: error: --idle-timeout must be positive", file=sys.stderr)
        return 2
    try:
        bound = bound_socket(args.host, args.port)
    except OSError as exc:
        print(f"server.py: error: cannot listen on {args.host}:{args.port}: {exc.strerror or exc} "
              "(another server there? choose one with --port)", file=sys.stderr)
        return 2
    fd_limit = raise_fd_limit()
    driver = os.environ.get("CORPUSKIT_SQLITE_DRIVER") or None
    key_prefix = os.environ.get("CORPUSKIT_KEY_PREFIX", "ck_")
    try:
        if args.db is None:
            path = Path("corpus.db")
            fresh = not path.exists()
            corpus = open_corpus(path, now=args.now, driver=driver)
            if fresh:
                from corpuskit.demo import build_demo

                print(f"building the demo corpus in {path.resolve()} (first start only)...", flush=True)
                summary = build_demo(corpus, progress=True)
                print(f"demo corpus ready: {summary.get('records')} records", flush=True)
        else:
            path = Path(args.db)
            corpus = open_corpus(path, now=args.now, driver=driver)
        heartbeat = float(os.environ.get("CORPUSKIT_HEARTBEAT_SECONDS", "30"))
        host_url = f"[{args.host}]" if ":" in args.host else args.host
        app_options = {
            "heartbeat_seconds": heartbeat,
            "cors_origins": tuple(args.cors),
            "upgrade_url": args.upgrade_url,
            "max_streams": args.max_streams or max(1, args.threads // 3),
            "max_streams_per_key": args.max_streams_per_key or 4,
            "key_prefix": key_prefix,
            "quantised_from": env_int("CORPUSKIT_QUANTISED_FROM"),
        }
        create_app(corpus, **app_options)  # fail here, before forking, on bad settings
        preload_handlers()  # workers fork with the handlers' imports done
        warmed = warm_search_at_start(corpus, app_options["quantised_from"])
        active = [k for k in list_keys(corpus.conn) if k.active]
        key = None
        if not active and not args.no_key:
            key = create_key(corpus.conn, tier="research", name="server.py start", prefix=key_prefix)
    except CorpusKitError as exc:
        bound.close()
        print(f"server.py: error: {exc}", file=sys.stderr)
        return 2
    served = corpus.path
    print(warmed, flush=True)
    corpus.close()  # each worker opens its own connections; none may cross a fork

    options = {"app": app_options, "threads": args.threads, "driver": driver,
               "max_connections": connection_cap(args.max_connections, fd_limit),
               "idle_timeout": args.idle_timeout}
    sock = start_listening(bound)
    workers = args.workers if hasattr(os, "fork") else 1
    print(f"serving {served} on http://{host_url}:{args.port}  (/v1, /api/v1; status: /api/v1/status; "
          f"{workers} process{'es' if workers > 1 else ''} x {args.threads} threads, "
          f"up to {options['max_connections']} connections each)", flush=True)
    if key:
        print("API key for this run (research tier; shown once):", flush=True)
        print(key, flush=True)
    elif active:
        print(f"{len(active)} active API key{'s' if len(active) > 1 else ''} in this corpus (none created); "
              f"a new one: corpuskit keys create --db {served} --tier research", flush=True)
    if not hasattr(os, "fork"):  # pragma: no cover - Windows: one process, no supervisor
        serve_worker(path, args.now, sock, options)
        return 0
    return run_workers(path, args.now, sock, options, workers)


if __name__ == "__main__":
    sys.exit(main())
