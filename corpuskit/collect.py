"""Live collection and bulk dumps, as the notebooks and scripts use them.

* :func:`collect` (one source and query, incremental), :data:`COLLECTORS`,
  :func:`get_collector`, :class:`CollectReport`, :func:`load_state`;
* :class:`Scheduler`, :class:`Job`, :func:`load_config`, :func:`print_round`:
  collecting on a schedule (``corpuskit collect --every``), and :func:`every_stage`, what a
  schedule runs after a round that added records;
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
from corpuskit.ingest.collectors import scheduler as _scheduler
from corpuskit.ingest.collectors.scheduler import Job, load_config, print_round
from corpuskit.ingest.dumps import import_dump

__all__ = ["COLLECTORS", "CollectReport", "HttpClient", "Job", "ReplayServer", "Scheduler", "collect",
           "every_stage", "get_collector", "import_dump", "load_config", "load_state", "print_round",
           "source_health"]


def every_stage(corpus) -> dict:
    """Every stage, in order, quietly: ``corpus.run(progress=False)`` (what a schedule runs after a
    round that added records, with ``run_pipeline``)."""
    return corpus.run(progress=False)


class Scheduler(_scheduler.Scheduler):
    __doc__ = (_scheduler.Scheduler.__doc__ or "") + """
    Here ``pipeline`` defaults to :func:`every_stage`.
    """

    def __init__(self, jobs, every, rounds: int | None = None, run_pipeline: bool = False,
                 pipeline=None, **options):
        super().__init__(jobs, every, rounds=rounds, run_pipeline=run_pipeline,
                         pipeline=pipeline or every_stage, **options)
