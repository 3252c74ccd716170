"""Serve a corpus over HTTP: the bearer interface under /v1 and the keyed one under /api/v1.

    python server.py [--db PATH] [--host 127.0.0.1] [--port 8000] [--threads N]

With no ``--db`` it serves ``./corpus.db``, building the demo corpus (every
stage) first when the file does not exist. Each start creates a research-tier
API key and prints it on the last line before serving: it is the only time
that key is shown (``corpuskit keys create`` makes more; ``keys revoke`` ends them).
"""
from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description="Serve a corpuskit corpus over HTTP.")
    parser.add_argument("--db", help="corpus file (default ./corpus.db, built from the demo when missing)")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--threads", type=int, default=int(os.environ.get("CORPUSKIT_THREADS", "96")),
                        help="worker threads; each open signal stream holds one (default 96)")
    parser.add_argument("--no-key", action="store_true", help="do not create a key at start")
    parser.add_argument("--now", help="fix the corpus clock (ISO 8601)")
    return parser


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")

    from corpuskit import open_corpus
    from corpuskit.api import create_app
    from corpuskit.errors import CorpusKitError
    from corpuskit.store.keys import create_key

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
            corpus = open_corpus(args.db, now=args.now)
        heartbeat = float(os.environ.get("CORPUSKIT_HEARTBEAT_SECONDS", "30"))
        app = create_app(corpus, heartbeat_seconds=heartbeat)
        key = None if args.no_key else create_key(corpus.conn, tier="research", name="server.py start")
    except CorpusKitError as exc:
        print(f"server.py: error: {exc}", file=sys.stderr)
        return 2

    import waitress

    print(f"serving {corpus.path} on http://{args.host}:{args.port}  (/v1, /api/v1; status: /api/v1/status)",
          flush=True)
    if key:
        print("API key for this run (research tier; shown once):", flush=True)
        print(key, flush=True)
    waitress.serve(app, host=args.host, port=args.port, threads=args.threads,
                   channel_timeout=3600, connection_limit=1000, ident="corpuskit")
    return 0


if __name__ == "__main__":
    sys.exit(main())
