"""Continuous collection: a set of source queries run every N minutes.

A config file (TOML) lists the collections::

    every = "15m"            # optional; --every overrides it
    run_pipeline = true      # optional; run enrich/analyse/narrate after a round that added records

    [[collect]]
    source = "hackernews"
    query = "sqlite"
    max = 200                # any collector option may follow (tags, lang, hl, base_url ...)

    [[collect]]
    source = "reddit"
    query = "science+technology"
    topic = "science"

Each round runs every collection in turn. A failing source is recorded as
unhealthy (with the reason) and the round goes on with the others. Rounds
start on a fixed grid (start + k * every); a round that overruns its slot is
followed at once by the next.
"""
from __future__ import annotations

import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from corpuskit.clock import iso, wall_clock
from corpuskit.errors import CorpusKitError, ValidationError

_INTERVAL = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|sec|m|min|h|d)?\s*$", re.IGNORECASE)
_UNITS = {"s": 1, "sec": 1, "m": 60, "min": 60, "h": 3600, "d": 86400}
_JOB_KEYS = {"source", "query", "topic", "since", "max"}


def parse_interval(text) -> float:
    """Seconds in ``"90s"``, ``"15m"``, ``"2h"``, ``"1d"`` or a bare number of seconds."""
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        seconds = float(text)
    else:
        match = _INTERVAL.match(str(text or ""))
        if not match:
            raise ValidationError(
                f"interval {text!r} not understood; use e.g. 30s, 15m, 2h or 1d")
        seconds = float(match.group(1)) * _UNITS[(match.group(2) or "s").lower()]
    if seconds <= 0:
        raise ValidationError(f"interval {text!r} must be positive")
    return seconds


@dataclass
class Job:
    """One scheduled collection: a source, a query and the collector's options."""

    source: str
    query: str = ""
    topic: str | None = None
    since: str | None = None
    max_records: int | None = None
    options: dict = field(default_factory=dict)

    def collector(self):
        from corpuskit.ingest.collectors import get_collector

        return get_collector(self.source, query=self.query, topic=self.topic, since=self.since,
                             max_records=self.max_records, **self.options)

    @classmethod
    def from_dict(cls, spec: dict, where: str = "job") -> "Job":
        if not isinstance(spec, dict) or not spec.get("source"):
            raise ValidationError(f"{where}: every [[collect]] entry needs a source")
        options = {k: v for k, v in spec.items() if k not in _JOB_KEYS}
        job = cls(source=str(spec["source"]), query=str(spec.get("query", "")),
                  topic=spec.get("topic"), since=spec.get("since"),
                  max_records=int(spec["max"]) if spec.get("max") is not None else None,
                  options=options)
        job.collector()._check()
        return job


@dataclass
class ScheduleConfig:
    """A parsed config file."""

    jobs: list
    every: float | None = None
    run_pipeline: bool = False


def load_config(path) -> ScheduleConfig:
    """Read and check a collect config (TOML); see the module docstring."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    path = Path(path)
    if not path.exists():
        raise ValidationError(f"{path}: no such config file")
    try:
        spec = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ValidationError(f"{path}: not valid TOML: {exc}") from exc
    entries = spec.get("collect") or []
    if not isinstance(entries, list) or not entries:
        raise ValidationError(f"{path}: no [[collect]] entries")
    jobs = [Job.from_dict(e, f"{path} [[collect]] #{i + 1}") for i, e in enumerate(entries)]
    every = parse_interval(spec["every"]) if spec.get("every") is not None else None
    return ScheduleConfig(jobs=jobs, every=every, run_pipeline=bool(spec.get("run_pipeline", False)))


@dataclass
class RoundReport:
    """What one round did."""

    number: int
    started_at: str
    reports: list = field(default_factory=list)     # CollectReport of each job that ran
    errors: list = field(default_factory=list)      # (source, query, message)
    pipeline: object = None

    @property
    def added(self) -> int:
        return sum(r.added for r in self.reports)

    def summary(self) -> str:
        text = f"round {self.number} ({self.started_at}): added {self.added}"
        if self.errors:
            text += "; failed: " + ", ".join(f"{s} {q!r}" for s, q, _ in self.errors)
        return text


class Scheduler:
    """Runs ``jobs`` every ``every`` seconds, ``rounds`` times (forever when None).

    Parameters
    ----------
    jobs : list of Job
    every : float or str
        Seconds between round starts, or an interval like ``"15m"``.
    rounds : int, optional
        Stop after this many rounds.
    run_pipeline : bool
        After a round that added records, run ``pipeline(corpus)``.
    pipeline : callable
        Needed with ``run_pipeline``: the stages are above the collectors, so the library
        surface passes them down (:class:`corpuskit.collect.Scheduler` runs every stage by
        default, :func:`corpuskit.collect.every_stage`).
    sleep, clock : callables
        ``time.sleep``/``time.monotonic`` unless given.
    on_round : callable, optional
        Called with each :class:`RoundReport` (the CLI prints it).
    client_factory : callable, optional
        ``client_factory(source)`` gives the HttpClient of a job (tests).
    """

    def __init__(self, jobs, every, rounds: int | None = None, run_pipeline: bool = False,
                 pipeline=None, sleep=None, clock=None, on_round=None, client_factory=None):
        self.jobs = jobs
        self.every = every
        self.rounds = rounds
        self.run_pipeline = run_pipeline
        self.pipeline = pipeline
        self.sleep = sleep
        self.clock = clock
        self.on_round = on_round
        self.client_factory = client_factory

    def run(self, corpus) -> "Scheduler":
        """Run the rounds; the reports are in ``rounds_``. Returns self."""
        every = parse_interval(self.every)
        if self.rounds is not None and int(self.rounds) < 1:
            raise ValidationError("rounds must be at least 1")
        if not self.jobs:
            raise ValidationError("nothing to collect: no jobs")
        if self.run_pipeline and self.pipeline is None:
            raise ValidationError("run_pipeline needs pipeline= (corpuskit.collect.every_stage runs every stage)")
        sleep = self.sleep or time.sleep
        clock = self.clock or time.monotonic
        self.rounds_ = []
        start = clock()
        number = 0
        while self.rounds is None or number < int(self.rounds):
            number += 1
            report = self._round(corpus, number)
            self.rounds_.append(report)
            if self.on_round is not None:
                self.on_round(report)
            if self.rounds is not None and number >= int(self.rounds):
                break
            elapsed = clock() - start
            next_slot = (int(elapsed // every) + 1) * every
            sleep(max(0.0, next_slot - elapsed))
        return self

    def _round(self, corpus, number: int) -> RoundReport:
        report = RoundReport(number=number, started_at=iso(wall_clock()))
        for job in self.jobs:
            collector = job.collector()
            if self.client_factory is not None:
                collector.client = self.client_factory(job.source)
            try:
                collector.run(corpus)
            except CorpusKitError as exc:
                report.errors.append((job.source, job.query, str(exc)))
            partial = getattr(collector, "report_", None)
            if partial is not None:
                report.reports.append(partial)
        if self.run_pipeline and report.added > 0:
            report.pipeline = self.pipeline(corpus)
        return report


def print_round(report: RoundReport, stream=None) -> None:
    """Print a round's summary and each collection's line (the CLI's ``on_round``)."""
    stream = stream or sys.stdout
    for item in report.reports:
        print("  " + item.summary(), file=stream)
    print(report.summary(), file=stream, flush=True)
