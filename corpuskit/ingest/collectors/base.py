"""What every collector shares: the incremental walk, per-page commits, state and health.

A collector subclass only knows its API: :meth:`Collector.pages` yields pages
of raw records (record-model dicts), newest first. :meth:`Collector.run`
walks those pages and, for each page, in one transaction, stores the new
records, the walk's progress in ``collect_state`` and the source's health.
A failure keeps every page already stored and marks the source unhealthy.

Incremental state, per (source, query), is a JSON object:

``newest``
    publishedAt of the newest record of the last *completed* walk; a rerun
    stops at it, so only newer items are fetched.
``newestIds``
    sourceIds published at exactly ``newest`` (items sharing that second are
    not re-stored, nor missed).
``pending``
    left by a walk that failed part way: the range it stored. The next walk
    goes down to ``newest`` again; stored items count as duplicates.
``gaps``
    ranges a walk cut by ``max_records`` skipped between its oldest item and
    the previous ``newest`` (kept so a researcher can backfill them).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime

from corpuskit.clock import from_iso, iso, parse_timestamp, wall_clock
from corpuskit.errors import CollectorError, RowRejected, ValidationError
from corpuskit.ingest.collectors import health
from corpuskit.ingest.collectors.http import HttpClient
from corpuskit.ingest.records import insert_records, normalise

_MAX_GAPS = 20


@dataclass
class CollectReport:
    """What one collection did."""

    source: str
    query: str
    pages: int = 0
    fetched: int = 0
    added: int = 0
    duplicates: int = 0
    rejected: int = 0
    rejections: list = field(default_factory=list)   # [(sourceId or '', reason)]
    complete: bool = False
    newest: str | None = None
    run_id: str | None = None
    error: str | None = None

    def summary(self) -> str:
        state = "complete" if self.complete else "incomplete"
        text = (f"{self.source} {self.query!r}: {self.pages} pages, fetched {self.fetched}, "
                f"added {self.added}, duplicates {self.duplicates}, rejected {self.rejected} "
                f"({state})")
        return text + (f"; error: {self.error}" if self.error else "")


@dataclass
class Walk:
    """What a collector's :meth:`Collector.pages` may use to narrow its requests."""

    query: str
    lower: datetime | None          # fetch only items published after this instant
    page_size: int


def load_state(conn, source: str, query: str) -> dict:
    """The stored incremental state of (source, query), ``{}`` when none."""
    row = conn.execute("SELECT state FROM collect_state WHERE source = ? AND query = ?",
                       (source, query)).fetchone()
    return json.loads(row[0]) if row else {}


def save_state(conn, source: str, query: str, state: dict, when) -> None:
    """Store the incremental state of (source, query)."""
    conn.execute(
        "INSERT INTO collect_state(source, query, state, updated_at) VALUES (?,?,?,?) "
        "ON CONFLICT(source, query) DO UPDATE SET state = excluded.state, "
        "updated_at = excluded.updated_at",
        (source, query, json.dumps(state, sort_keys=True), iso(when)),
    )


class Collector:
    """Base class of the live collectors (one subclass per source).

    Parameters
    ----------
    query : str
        What to collect; its meaning is the source's (search words, subreddits...).
    topic : str, optional
        Topic hint stored on every collected record.
    since : date, datetime or str, optional
        Collect nothing published before this instant.
    max_records : int, optional
        Stop after this many items in one run.
    base_url : str, optional
        Override the API address (else env ``CORPUSKIT_<SOURCE>_BASE_URL``, else the public one).
    page_size : int, optional
        Items per request (the source's maximum by default).
    client : HttpClient, optional
        A configured client (tests pass one with a fake ``sleep``).
    timeout, max_attempts, min_interval : optional
        Override the client's defaults for this source.
    progress : bool
        Show a progress bar per page.
    """

    name = ""
    default_base_url = ""
    default_page_size = 100
    min_interval = 1.0            # seconds between requests: the source's documented limit
    query_required = True

    def __init__(self, query: str = "", topic: str | None = None, since=None,
                 max_records: int | None = None, base_url: str | None = None,
                 page_size: int | None = None, client: HttpClient | None = None,
                 timeout: float | None = None, max_attempts: int | None = None,
                 min_interval: float | None = None, progress: bool = False):
        self.query = query
        self.topic = topic
        self.since = since
        self.max_records = max_records
        self.base_url = base_url
        self.page_size = page_size
        self.client = client
        self.timeout = timeout
        self.max_attempts = max_attempts
        self.min_interval = min_interval if min_interval is not None else type(self).min_interval
        self.progress = progress

    # -- what a subclass provides -------------------------------------------
    def pages(self, client: HttpClient, walk: Walk):
        """Yield lists of raw record dicts (the record model), newest first."""
        raise NotImplementedError

    def state_key(self) -> str:
        """The key of this collection in ``collect_state`` (the normalised query)."""
        return " ".join(str(self.query or "").split())

    # -- shared machinery -----------------------------------------------------
    def resolved_base_url(self) -> str:
        """Constructor argument (the ``corpuskit`` command's ``CORPUSKIT_<NAME>_BASE_URL``), else the
        public API."""
        return (self.base_url or self.default_base_url).rstrip("/")

    def make_client(self) -> HttpClient:
        if self.client is not None:
            return self.client
        kwargs = {"min_interval": self.min_interval}
        if self.timeout is not None:
            kwargs["timeout"] = self.timeout
        if self.max_attempts is not None:
            kwargs["max_attempts"] = self.max_attempts
        return HttpClient(self.name, **kwargs)

    def _check(self) -> None:
        if self.query_required and not self.state_key():
            raise ValidationError(f"{self.name}: a query is required")
        if self.max_records is not None and int(self.max_records) < 1:
            raise ValidationError(f"{self.name}: max_records must be at least 1")

    def run(self, corpus) -> "Collector":
        """Collect into ``corpus``; the result is in ``report_``. Returns self.

        Raises :class:`CollectorError` after storing whatever came before the failure
        (``report_`` then says what was kept).
        """
        self._check()
        client = self.make_client()
        key = self.state_key()
        report = CollectReport(self.name, key)
        self.report_ = report
        conn = corpus.conn
        since = parse_timestamp(self.since) if self.since is not None else None
        state = load_state(conn, self.name, key)
        watermark = from_iso(state["newest"]) if state.get("newest") else None
        seen_at_mark = set(state.get("newestIds", []))
        lower = max([d for d in (watermark, since) if d is not None], default=None)
        walk = Walk(query=key, lower=lower, page_size=self.page_size or self.default_page_size)
        corpus.set_clock_mode("live")
        health.record_attempt(conn, self.name, wall_clock())
        run_newest = None            # (published, [ids]) newest stored by this walk
        run_oldest = None
        reached_bottom = False
        pages = self.pages(client, walk)
        settings = {"source": self.name, "query": key, "topic": self.topic,
                    "since": iso(since) if since else None, "max": self.max_records}
        try:
            with corpus.run_stage("collect", settings) as run_id:
                report.run_id = run_id
                bar = _progress(self.progress, f"collect {self.name}")
                for raw_page in pages:
                    captured = iso(wall_clock())
                    report.pages += 1
                    keep = []
                    for raw in raw_page:
                        try:
                            rec = normalise(raw, source=self.name, captured_at=captured,
                                            topic=self.topic)
                        except RowRejected as exc:
                            report.rejected += 1
                            report.rejections.append((str(raw.get("sourceId") or ""), exc.reason))
                            continue
                        published = from_iso(rec["publishedAt"])
                        if (since is not None and published < since) or (
                                watermark is not None and (published < watermark or (
                                    published == watermark and rec["sourceId"] in seen_at_mark))):
                            reached_bottom = True
                            continue
                        keep.append(rec)
                    if self.max_records is not None:
                        room = self.max_records - report.fetched
                        if len(keep) > room:
                            keep = keep[:room]
                            reached_bottom = False   # items above the watermark were left out
                    report.fetched += len(keep)
                    for rec in keep:
                        run_newest = _newer(run_newest, rec)
                        stamp = rec["publishedAt"]
                        run_oldest = stamp if run_oldest is None or stamp < run_oldest else run_oldest
                    capped = self.max_records is not None and report.fetched >= self.max_records
                    with corpus.transaction():
                        added, dupes = insert_records(conn, keep, run_id)
                        report.added += added
                        report.duplicates += dupes
                        pending = {"newest": run_newest[0] if run_newest else None,
                                   "oldest": run_oldest}
                        save_state(conn, self.name, key, {**state, "pending": pending},
                                   wall_clock())
                    bar.update(len(keep))
                    if reached_bottom or capped:
                        break
                else:
                    reached_bottom = True
                pages.close()
                bar.close()
                report.complete = True
                state = self._advance(state, run_newest, run_oldest, watermark, reached_bottom)
                report.newest = state.get("newest")
                with corpus.transaction():
                    save_state(conn, self.name, key, state, wall_clock())
                    health.record_success(conn, self.name, wall_clock(), report.added)
        except CollectorError as exc:
            report.error = str(exc)
            health.record_failure(conn, self.name, wall_clock(), str(exc))
            raise
        except Exception as exc:
            message = f"{self.name}: {exc.__class__.__name__}: {exc}"
            report.error = message
            health.record_failure(conn, self.name, wall_clock(), message)
            raise CollectorError(message) from exc
        return self

    @staticmethod
    def _advance(state, run_newest, run_oldest, watermark, reached_bottom) -> dict:
        """The state after a walk that ended normally."""
        new = {k: v for k, v in state.items() if k != "pending"}
        if run_newest is None:
            return new
        newest, ids = run_newest
        if state.get("newest") and newest < state["newest"]:
            return new
        if state.get("newest") == newest:
            ids = sorted(set(ids) | set(state.get("newestIds", [])))
        new["newest"], new["newestIds"] = newest, sorted(ids)
        if watermark is not None and not reached_bottom and run_oldest:
            gaps = new.get("gaps", []) + [{"after": iso(watermark), "before": run_oldest}]
            new["gaps"] = gaps[-_MAX_GAPS:]
        return new


def _newer(current, rec):
    stamp, sid = rec["publishedAt"], rec["sourceId"] or ""
    if current is None or stamp > current[0]:
        return (stamp, [sid])
    if stamp == current[0]:
        return (stamp, current[1] + [sid])
    return current


class _NoBar:
    def update(self, n):
        pass

    def close(self):
        pass


def _progress(enabled: bool, desc: str):
    if not enabled:
        return _NoBar()
    from tqdm.auto import tqdm

    return tqdm(desc=desc, unit="rec")
