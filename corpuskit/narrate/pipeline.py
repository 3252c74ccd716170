"""The narrate stage: stories of every kind, their versions and slugs, arcs, links back to signals.

Run it with ``corpus.narrate()`` or ``corpuskit narrate --db DB``. One run is
one ``narrate`` stage run, atomic: it writes private copies of its tables
(:func:`corpuskit.store.staged.staged_writes`) and applies the changes in one
short write transaction at the end, so other writers are not kept waiting
while it composes; a failure leaves the corpus as it was (but for the run's
``failed`` row). The stage is deterministic (the corpus clock, sorted iteration, no
randomness) and incremental: a story whose evidence is unchanged is not
rewritten (see :mod:`corpuskit.narrate.versions`); when the pool a story is
drawn from (its candidate record ids, figures, and the state of every signal)
is the one its current version was made from, even the ranking is skipped.

Story fields (rules stated here once):

- ``publish_at``: the evidence time, the later of the trigger signal's
  ``detected_at`` and the newest cited record's ``published_at``;
  ``generated_at``: the corpus clock when the version was written.
- ``read_min``: words of the body (markers removed) / 200, rounded up, at least 1.
- ``featured``: the lead story, and dispatches of high-severity signals.
- ``signal_count``: open signals on the story's entity (entity narratives) or beat (others).
- ``source_count``: distinct source kinds among the cited records.
- ``category``: the beat's category (``general`` without a beat).
- ``refs``: the beat, then the subject entity and the most-mentioned entities of the cited records.
- ``entity_id``: the entity of an entity narrative, or of the signal behind a dispatch or the
  lead (so the stories about an entity include them); ``entityName`` is shown for entity
  narratives only.
- Each trigger signal gets ``signals.narrative_id`` (its dispatch, else the lead, else a
  beat or entity narrative) and a ``signal_evidence`` row (``ref_kind = 'story'``) per
  current story it triggered.
"""
from __future__ import annotations

import hashlib
import json
import math

from tqdm.auto import tqdm

from corpuskit.clock import from_iso, iso
from corpuskit.errors import ValidationError
from corpuskit.narrate import evidence as ev
from corpuskit.narrate.arcs import build_arcs
from corpuskit.narrate.citations import external_citations, renumber, strip_markers
from corpuskit.narrate.periods import periods_for
from corpuskit.narrate.credibility import author_count_cache, credibility_scores
from corpuskit.narrate.versions import StoryDraft, evidence_hash, write_version
from corpuskit.narrate.writer import ExtractiveWriter, StoryWriter, check_text
from corpuskit.store.staged import staged_writes

_KIND_PRIORITY = {"dispatch": 0, "lead_story": 1, "beat_narrative": 2, "entity_narrative": 3}

#: Every table the stage writes, parents before the tables that refer to them.
WRITES = ("signals", "signal_evidence", "stories", "story_citations", "story_slugs", "arcs", "arc_stories")


class Narrator:
    """Writes the stories of a corpus (the narrate stage as an estimator).

    Parameters
    ----------
    writer : StoryWriter, optional
        Turns evidence into text; :class:`ExtractiveWriter` by default.
    beat_window_days : int
        Window of a beat narrative's evidence, and of "active beat".
    min_beat_records : int
        Records a beat needs in its window to be active.
    entity_window_days : int
        Window for entity prominence and entity narrative evidence.
    top_entities : int
        Entities with the most mentions that get a narrative.
    signal_window_days : int
        Days before a signal fired from which similar records may be pulled in.
    dispatch_severities : tuple of str
        Severities whose signals get a dispatch.
    max_citations : int
        Most records cited by one story (at least 2).
    lead_recent_days : int
        When no notable signal is open, the lead is the strongest one detected in these last days.
    arc_active_days, arc_dormant_days : int
        Arc status thresholds (see :mod:`corpuskit.narrate.arcs`).

    Attributes
    ----------
    summary_ : dict
        Counts of the last run: stories per kind written and unchanged, skipped subjects, arcs.
    """

    def __init__(self, writer: StoryWriter | None = None, beat_window_days: int = 7,
                 min_beat_records: int = 5, entity_window_days: int = 30, top_entities: int = 5,
                 signal_window_days: int = 3, dispatch_severities=("high", "medium"),
                 max_citations: int = 6, lead_recent_days: int = 7, arc_active_days: int = 7,
                 arc_dormant_days: int = 30):
        self.writer = writer
        self.beat_window_days = beat_window_days
        self.min_beat_records = min_beat_records
        self.entity_window_days = entity_window_days
        self.top_entities = top_entities
        self.signal_window_days = signal_window_days
        self.dispatch_severities = dispatch_severities
        self.max_citations = max_citations
        self.lead_recent_days = lead_recent_days
        self.arc_active_days = arc_active_days
        self.arc_dormant_days = arc_dormant_days

    def settings(self) -> dict:
        """The parameters as recorded with the run."""
        writer = self.writer if self.writer is not None else ExtractiveWriter()
        writer_settings = getattr(writer, "settings", None)
        return {
            "writer": getattr(writer, "name", type(writer).__name__),
            **({"writerSettings": writer_settings()} if callable(writer_settings) else {}),
            "beat_window_days": self.beat_window_days, "min_beat_records": self.min_beat_records,
            "entity_window_days": self.entity_window_days, "top_entities": self.top_entities,
            "signal_window_days": self.signal_window_days,
            "dispatch_severities": list(self.dispatch_severities), "max_citations": self.max_citations,
            "lead_recent_days": self.lead_recent_days, "arc_active_days": self.arc_active_days, "arc_dormant_days": self.arc_dormant_days,
        }

    def _check(self):
        for name in ("beat_window_days", "min_beat_records", "entity_window_days", "signal_window_days",
                     "lead_recent_days", "arc_active_days", "arc_dormant_days"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ValidationError(f"{name} must be a positive integer, not {value!r}")
        if not isinstance(self.top_entities, int) or self.top_entities < 0:
            raise ValidationError(f"top_entities must be a non-negative integer, not {self.top_entities!r}")
        if not isinstance(self.max_citations, int) or self.max_citations < 2:
            raise ValidationError(f"max_citations must be an integer of at least 2, not {self.max_citations!r}")
        if self.arc_dormant_days < self.arc_active_days:
            raise ValidationError("arc_dormant_days must be at least arc_active_days")
        bad = set(self.dispatch_severities) - {"high", "medium", "low"}
        if bad:
            raise ValidationError(f"unknown dispatch severities {sorted(bad)}; use high, medium, low")
        if self.writer is not None and not callable(getattr(self.writer, "write", None)):
            raise ValidationError("writer must have a write(evidence) method (see StoryWriter)")

    # -- the subjects of this run ---------------------------------------------
    def _subjects(self, conn, now, skip_for, period=None):
        """``(label, thunk)`` pairs, each thunk returning StoryEvidence, UNCHANGED or None, in a fixed order."""
        if period is not None:
            return self._period_subjects(conn, period, skip_for)
        subjects = []
        k, window = self.max_citations, self.signal_window_days
        lead = ev.lead_signal(conn, now, self.lead_recent_days)
        if lead is not None:
            subjects.append(("lead", lambda s=lead: ev.signal_evidence(
                conn, s, "lead_story", "lead", k, window, skip=skip_for("lead"))))
        for beat, n in ev.active_beats(conn, now, self.beat_window_days, self.min_beat_records):
            signal = self._strongest_open(conn, topic_id=beat["id"])
            key = f"beat:{beat['name']}"
            subjects.append((key, lambda b=beat, n=n, s=signal, key=key: ev.beat_evidence(
                conn, b, n, now, k, self.beat_window_days, s, skip=skip_for(key))))
        for entity, mentions in ev.prominent_entities(conn, now, self.entity_window_days, self.top_entities):
            signal = self._strongest_open(conn, entity_id=entity["id"])
            key = f"entity:{entity['slug']}"
            subjects.append((key, lambda e=entity, m=mentions, s=signal, key=key: ev.entity_evidence(
                conn, e, m, now, k, self.entity_window_days, s, skip=skip_for(key))))
        for signal in ev.notable_signals(conn, tuple(self.dispatch_severities)):
            key = f"dispatch:{signal['signal_key']}"
            subjects.append((key, lambda s=signal, key=key: ev.signal_evidence(
                conn, s, "dispatch", key, k, window, skip=skip_for(key))))
        return subjects

    def _period_subjects(self, conn, period, skip_for):
        """The subjects of one period's stories: its lead, beats and entities, as at its end.

        Signals count when detected in the period (their status today is not what it was then);
        clusters and open-novelty entities (computed on the whole corpus) are left out; every
        window is the period itself, so no record after ``period.as_of`` is read.
        """
        now, days, k = period.as_of, period.days, self.max_citations
        start, until = iso(period.start), iso(now)
        prefix = period_key(period, "")
        subjects = []
        lead = ev.lead_signal_between(conn, start, until)
        if lead is not None:
            key = prefix + "lead"
            subjects.append((key, lambda s=lead, key=key: ev.signal_evidence(
                conn, s, "lead_story", key, k, self.signal_window_days, skip=skip_for(key), until=until)))
        for beat, n in ev.active_beats(conn, now, days, self.min_beat_records):
            signal = ev.strongest_between(conn, start, until, topic_id=beat["id"])
            key = f"{prefix}beat:{beat['name']}"
            subjects.append((key, lambda b=beat, n=n, s=signal, key=key: ev.beat_evidence(
                conn, b, n, now, k, days, s, skip=skip_for(key), clusters=False, story_key=key)))
        for entity, mentions in ev.prominent_entities(conn, now, days, self.top_entities, novel=False):
            signal = ev.strongest_between(conn, start, until, entity_id=entity["id"])
            key = f"{prefix}entity:{entity['slug']}"
            subjects.append((key, lambda e=entity, m=mentions, s=signal, key=key: ev.entity_evidence(
                conn, e, m, now, k, days, s, skip=skip_for(key), story_key=key)))
        return subjects

    @staticmethod
    def _strongest_open(conn, topic_id=None, entity_id=None):
        column, value = ("entity_id", entity_id) if entity_id is not None else ("topic_id", topic_id)
        row = conn.execute(
            f"SELECT * FROM signals WHERE status = 'open' AND {column} = ? {ev.STRONGEST} LIMIT 1", (value,)
        ).fetchone()
        return ev.signal_dict(row) if row else None

    # -- one story ---------------------------------------------------------------
    def _draft(self, conn, writer, evidence, signal_count: int, digest: str, period=None) -> StoryDraft:
        label = evidence.story_key
        fields = check_text(writer.write(evidence), len(evidence.records), label)
        body, order = renumber(fields["body"], len(evidence.records))
        records = [evidence.records[n - 1] for n in order]
        cred = credibility_scores(conn, records, until=None if period is None else iso(period.as_of))
        beat, entity, signal = evidence.beat, evidence.entity, evidence.signal
        refs = []
        if beat is not None:
            refs.append({"refType": "beat", "refSlug": beat["name"], "displayText": beat["display_name"]})
        ents = ([entity] if entity is not None else []) + evidence.entities
        seen = set()
        for e in ents:
            if e["slug"] not in seen and len(seen) < 5:
                seen.add(e["slug"])
                refs.append({"refType": "entity", "refSlug": e["slug"], "displayText": e["name"]})
        times = [r.published_at for r in records] + ([signal["detected_at"]] if signal else [])
        words = len(strip_markers(body).split())
        kind = evidence.kind
        if kind == "lead_story":
            base = f"lead {fields['headline']}"
        elif kind == "beat_narrative":
            base = f"{beat['name']} beat report"
        elif kind == "entity_narrative":
            base = f"{entity['slug']} narrative"
        else:
            base = signal["headline"]
        metadata = {
            "summary": fields["summary"],
            "framing": list(fields.get("framing") or []),
            "headlineSource": fields.get("headlineSource"),
            "figures": evidence.figures,
            "writer": fields.get("writer") or getattr(writer, "name", type(writer).__name__),
        }
        if isinstance(fields.get("writerNote"), dict):
            metadata["writerNote"] = fields["writerNote"]
        if signal is not None:
            metadata["triggerSignalKey"] = signal["signal_key"]
        if period is not None:
            metadata["period"] = period.to_dict()
            base = f"{period.label} {base}"
        if evidence.cluster is not None:
            metadata["cluster"] = {"id": evidence.cluster["id"], "lineageId": evidence.cluster["lineage_id"]}
        return StoryDraft(
            story_key=evidence.story_key, kind=kind, headline=fields["headline"].strip(),
            lede=fields["lede"].strip(), body=body, evidence_hash=digest, publish_at=max(times),
            base_slug=base, topic_id=beat["id"] if beat else None,
            entity_id=entity["id"] if entity else None,
            category=beat["category"] if beat else "general",
            signal_severity=signal["severity"] if signal else None,
            trigger_signal_id=signal["id"] if signal and period is None else None,
            featured=kind == "lead_story" or (kind == "dispatch" and signal["severity"] == "high"),
            signal_count=signal_count, source_count=len({r.source for r in records}),
            read_min=max(1, math.ceil(words / 200)), metadata=metadata, refs=refs,
            external_citations=external_citations(records),
            citations=[(r.id, r.confidence, r.inferred, cred[r.id]) for r in records],
        )

    # -- the run -------------------------------------------------------------------
    def run(self, corpus, progress: bool = True, periods=None) -> "Narrator":
        """Write the corpus's stories, versions, slugs and arcs; returns self (see ``summary_``).

        ``periods`` (a list of :class:`~corpuskit.narrate.periods.Period`): instead of the stories
        of now, write each period's lead, beat and entity narratives as at the period's end (see
        :meth:`_period_subjects`): keyed ``period:<label>:<subject>``, dated ``period.as_of``,
        versioned like the others; no dispatches or arcs, and no signal links.
        """
        self._check()
        writer = self.writer if self.writer is not None else ExtractiveWriter()
        reset = getattr(writer, "reset_budget", None)
        if callable(reset):
            reset()  # a writer with a per-run budget (the LLM writer) starts afresh
        conn = corpus.conn
        now = corpus.now()
        generated_at = iso(now)
        summary = {"written": {}, "unchanged": {}, "skipped": []}
        with corpus.run_stage("narrate", self.settings()) as run_id, staged_writes(conn, WRITES), \
                ev.vector_chunk_cache(), author_count_cache():
            signals_state = _signals_fingerprint(conn)

            def skip_for(story_key):
                def skip(pool_hash):
                    row = conn.execute("SELECT json_extract(metadata, '$.poolHash') FROM stories "
                                       "WHERE story_key = ? AND is_current = 1", (story_key,)).fetchone()
                    return row is not None and row[0] == _combine(pool_hash, signals_state)
                return skip

            plan = ([(None, item) for item in self._subjects(conn, now, skip_for)] if periods is None else
                    [(p, item) for p in periods for item in self._subjects(conn, now, skip_for, period=p)])
            for period, (label, gather) in tqdm(plan, desc="narrate", disable=not progress):
                evidence = gather()
                if evidence is None:
                    summary["skipped"].append(label)
                    continue
                if evidence == ev.UNCHANGED:
                    kind = conn.execute("SELECT kind FROM stories WHERE story_key = ? AND is_current = 1",
                                        (label,)).fetchone()[0]
                    summary["unchanged"][kind] = summary["unchanged"].get(kind, 0) + 1
                    continue
                between = None if period is None else (iso(period.start), iso(period.as_of))
                if evidence.kind == "entity_narrative":
                    count = ev.open_signal_count(conn, entity_id=evidence.entity["id"], between=between)
                else:
                    count = ev.open_signal_count(conn, topic_id=evidence.beat["id"] if evidence.beat else None,
                                                 between=between)
                digest = evidence_hash(evidence, count)
                current = conn.execute(
                    "SELECT evidence_hash FROM stories WHERE story_key = ? AND is_current = 1",
                    (evidence.story_key,)).fetchone()
                bucket = "unchanged"
                if current is None or current[0] != digest:
                    draft = self._draft(conn, writer, evidence, count, digest, period=period)
                    draft.metadata["poolHash"] = _combine(evidence.pool_hash, signals_state)
                    _, created = write_version(conn, draft, run_id,
                                               generated_at if period is None else iso(period.as_of))
                    bucket = "written" if created else "unchanged"
                summary[bucket][evidence.kind] = summary[bucket].get(evidence.kind, 0) + 1
            if periods is None:
                self._link_signals(conn)
                summary["arcs"] = build_arcs(conn, now, run_id, self.arc_active_days, self.arc_dormant_days)
            else:
                summary["periods"] = [p.to_dict() for p in periods]
            summary["runId"] = run_id
        summary["stories"] = conn.execute("SELECT count(*) FROM stories").fetchone()[0]
        summary["current"] = dict(conn.execute(
            "SELECT kind, count(*) FROM stories WHERE is_current = 1 GROUP BY kind ORDER BY kind").fetchall())
        self.summary_ = summary
        return self

    @staticmethod
    def _link_signals(conn):
        rows = conn.execute(
            "SELECT trigger_signal_id, id, kind FROM stories WHERE is_current = 1 AND trigger_signal_id "
            "IS NOT NULL ORDER BY trigger_signal_id, id"
        ).fetchall()
        conn.execute("DELETE FROM signal_evidence WHERE ref_kind = 'story'")
        best = {}
        for signal_id, story_id, kind in rows:
            conn.execute("INSERT OR IGNORE INTO signal_evidence VALUES (?, 'story', ?)", (signal_id, story_id))
            rank = (_KIND_PRIORITY[kind], story_id)
            if signal_id not in best or rank < best[signal_id]:
                best[signal_id] = rank
        stale = [r[0] for r in conn.execute("SELECT id FROM signals WHERE narrative_id IS NOT NULL")
                 if r[0] not in best]
        for signal_id in stale:
            conn.execute("UPDATE signals SET narrative_id = NULL WHERE id = ?", (signal_id,))
        for signal_id, (_, story_id) in sorted(best.items()):
            conn.execute("UPDATE signals SET narrative_id = ? WHERE id = ? AND narrative_id IS NOT ?",
                         (story_id, signal_id, story_id))


def _signals_fingerprint(conn) -> str:
    """Hash of every signal's state: a change anywhere disables the unchanged-pool shortcut."""
    digest = hashlib.sha256()
    for row in conn.execute("SELECT id, status, severity, round(sigma_score, 3), topic_id, entity_id, "
                            "headline FROM signals ORDER BY id"):
        digest.update(json.dumps(tuple(row)).encode("utf-8"))
    return digest.hexdigest()


def _combine(pool_hash: str, signals_state: str) -> str:
    return hashlib.sha256(f"{pool_hash}|{signals_state}".encode("utf-8")).hexdigest()


PERIOD_PREFIX = "period:"


def period_key(period, subject: str) -> str:
    """The story key of ``subject`` (``lead``, ``beat:<name>``, ``entity:<slug>``) in ``period``."""
    return f"{PERIOD_PREFIX}{period.label}:{subject}"


def narrate_corpus(corpus, progress: bool = True, writer: StoryWriter | None = None, period=None,
                   since=None, until=None, every=None, **settings) -> dict:
    """Run the narrate stage on ``corpus``; returns the run summary.

    ``settings`` are :class:`Narrator` parameters. With ``period``, ``since``/``until`` or
    ``every`` (see :func:`corpuskit.narrate.periods.periods_for`) the stories of those periods
    of the corpus's history are written instead of the stories of now.
    """
    periods = None
    if any(v is not None for v in (period, since, until, every)):
        first, last = corpus.conn.execute("SELECT min(published_at), max(published_at) FROM records").fetchone()
        periods = periods_for(period, since, until, every, first=from_iso(first) if first else None,
                              last=min(from_iso(last), corpus.now()) if last else None)
    return Narrator(writer=writer, **settings).run(corpus, progress=progress, periods=periods).summary_
