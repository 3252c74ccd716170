"""Live collection and bulk dumps, as the notebooks and scripts use them.

* :func:`collect` (one source and query, incremental), :data:`COLLECTORS`,
  :func:`get_collector`, :class:`CollectReport`, :func:`load_state`;
* :class:`Scheduler`, :class:`Job`, :func:`load_config`, :func:`print_round`:
  collecting on a schedule (``corpuskit collect --every``);
* :func:`source_health`: per-source health as ``/v1/sources`` shows it;
* :class:`HttpClient` (retries, backoff, ``Retry-After``) and
  :class:`ReplayServer` (a local stand-in for the APIs, for offline tests);
* :func:`import_dump`: Pushshift, Bluesky firehose and Hacker News item dumps.

Errors are :class:`corpuskit.errors.CollectorError`.
"""
from __future__ import annotations

from corpuskit.ingest.collectors import COLLECTORS, collect, get_collector, source_health
from corpuskit.ingest.collectors.base import CollectReport, load_state
from corpuskit.ingest.collectors.http import HttpClient
from corpuskit.ingest.collectors.replay import ReplayServer
from corpuskit.ingest.collectors.scheduler import Job, Scheduler, load_config, print_round
from corpuskit.ingest.dumps import import_dump

__all__ = ["COLLECTORS", "CollectReport", "HttpClient", "Job", "ReplayServer", "Scheduler", "collect",
           "get_collector", "import_dump", "load_config", "load_state", "print_round", "source_health"]
