"""The analysis stage: clusters, signals, snapshots and observations in one atomic run.

The steps run in this order, each reading what the one before wrote:

1. :func:`corpuskit.analysis.clusters.cluster_corpus`: clusters per topic;
2. :func:`corpuskit.analysis.signals.detect_signals`: signals, replayed day by day;
3. :func:`corpuskit.analysis.snapshots.build_snapshots`: daily snapshot rows
   (their ``signalCount`` needs step 2);
4. :func:`corpuskit.analysis.observations.build_observations`.

The stage is atomic without holding the write lock while it computes: the
steps run on private copies of the tables they write
(:func:`corpuskit.store.staged.staged_writes`, one read snapshot), and their
changes land in one short write transaction at the end. If any step fails,
nothing of the run is kept but its ``runs`` row, marked ``failed``.
Each step is incremental on its own (clusters are carried over for topics that
barely changed, signal replay resumes where it stopped, snapshots rewrite only
the days whose inputs changed, observations update only the rows that
changed), so re-analysing after one new day costs a fraction of a full run.
The steps read their terms without the stop words of the corpus's languages
(:func:`corpuskit.text.stopwords.vocabulary_languages`), whether the stage is run
alone or by :meth:`~corpuskit.corpus.Corpus.run`.
After the steps, every run rewrites the per-entity sums over all mentions
(:mod:`.entity_aggregates`) when their inputs changed; the entity answers read
them while they hold, and the record counts by day, topic, source and sentiment
(:mod:`.record_counts`), which the topic, source and sentiment filters' totals
and the topic trends read while they hold, and the corpus-wide keyness term counts
(:mod:`.term_counts`), which keyness against the rest of the corpus reads while they hold. The other corpus aggregates
(:mod:`.corpus_stats`) are computed on request and need no stored step.
"""
from __future__ import annotations

from time import perf_counter

from corpuskit.analysis.entity_aggregates import build_entity_aggregates
from corpuskit.analysis.record_counts import build_record_counts
from corpuskit.analysis.term_counts import build_term_counts
from corpuskit.errors import ValidationError
from corpuskit.store.staged import staged_writes

STEPS = ("clusters", "signals", "snapshots", "observations")
#: Every table the steps write, parents before the tables that refer to them.
WRITES = ("clusters", "cluster_members", "signals", "signal_evidence", "signal_events", "snapshots",
          "observations", "entity_aggregates", "record_counts", "topic_day_counts", "meta")


def _clusters(corpus, run_id, seed, progress, options):
    from corpuskit.analysis.clusters import cluster_corpus

    return cluster_corpus(corpus, run_id, seed=seed, progress=progress, **options)


def _signals(corpus, run_id, seed, progress, options):
    from corpuskit.analysis.signals import detect_signals

    return detect_signals(corpus, run_id, progress=progress, **options)


def _snapshots(corpus, run_id, seed, progress, options):
    from corpuskit.analysis.snapshots import build_snapshots

    return build_snapshots(corpus, run_id, progress=progress, **options)


def _observations(corpus, run_id, seed, progress, options):
    from corpuskit.analysis.observations import build_observations

    return build_observations(corpus, run_id, progress=progress, **options)


RUNNERS = {"clusters": _clusters, "signals": _signals, "snapshots": _snapshots,
           "observations": _observations}


def _check_settings(settings: dict) -> tuple[list, dict]:
    unknown = sorted(set(settings) - set(STEPS) - {"steps"})
    if unknown:
        raise ValidationError(
            f"unknown analyse setting(s) {', '.join(unknown)}; expected steps or per-step "
            f"options named {', '.join(STEPS)}")
    steps = settings.get("steps") or STEPS
    if isinstance(steps, str):
        steps = [s.strip() for s in steps.split(",") if s.strip()]
    bad = [s for s in steps if s not in STEPS]
    if bad:
        raise ValidationError(f"unknown analyse step(s) {', '.join(bad)}; expected {', '.join(STEPS)}")
    options = {}
    for step in STEPS:
        value = settings.get(step) or {}
        if not isinstance(value, dict):
            raise ValidationError(f"options for {step} must be a dict of keyword arguments")
        options[step] = value
    return [s for s in STEPS if s in steps], options


def analyse_corpus(corpus, progress: bool = True, seed: int = 0, **settings) -> dict:
    """Run the analysis stage on ``corpus``; returns a summary.

    Parameters
    ----------
    progress : bool
        Show tqdm progress bars (one for the stage, and each step's own).
    seed : int
        Seed for the clusterer (every other step is deterministic by construction).
    steps : list of str, optional
        A subset of ``clusters, signals, snapshots, observations`` (run in
        that order); all by default.
    clusters, signals, snapshots, observations : dict, optional
        Keyword arguments passed to that step's function.

    Returns ``{runId, steps: {step: step summary}, seconds: {step: s, total: s}}``.
    Raises :class:`ValidationError` for unknown settings; any failure leaves
    the corpus unchanged but for the run's ``failed`` row. Other writers wait
    only for the last step, which applies the changes.
    """
    from tqdm.auto import tqdm

    from corpuskit.enrich.pipeline import language_counts
    from corpuskit.text.stopwords import corpus_languages, vocabulary_languages

    steps, options = _check_settings(settings)
    recorded = {"seed": seed, **settings}
    summary = {"steps": {}, "seconds": {}}
    started = perf_counter()
    with vocabulary_languages(corpus_languages(language_counts(corpus.conn))), \
            corpus.run_stage("analyse", recorded) as run_id:
        with staged_writes(corpus.conn, WRITES):
            summary["runId"] = run_id
            bar = tqdm(steps, desc="analyse", unit="step", disable=not progress)
            for step in bar:
                bar.set_postfix_str(step)
                t0 = perf_counter()
                summary["steps"][step] = RUNNERS[step](corpus, run_id, seed, progress,
                                                       options[step])
                summary["seconds"][step] = round(perf_counter() - t0, 3)
            bar.close()
            t0 = perf_counter()
            summary["entityAggregates"] = build_entity_aggregates(corpus)
            summary["entityAggregates"]["seconds"] = round(perf_counter() - t0, 3)
            t0 = perf_counter()
            summary["recordCounts"] = build_record_counts(corpus)
            summary["recordCounts"]["seconds"] = round(perf_counter() - t0, 3)
        # counted outside the staged block: it reads texts for as long as it needs without holding
        # the other writers back, and takes the write lock only to write what it counted
        t0 = perf_counter()
        summary["termCounts"] = build_term_counts(corpus)
        summary["termCounts"]["seconds"] = round(perf_counter() - t0, 3)
    summary["seconds"]["total"] = round(perf_counter() - started, 3)
    return summary
