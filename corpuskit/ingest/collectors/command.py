"""The ``corpuskit collect`` command: one collection, or a schedule (``--every``)."""
from __future__ import annotations

import sys

from corpuskit.errors import CollectorError, ValidationError


def parse_options(items) -> dict:
    """``["tags=comment", "page_size=50"]`` -> ``{"tags": "comment", "page_size": 50}``."""
    options = {}
    for item in items or ():
        if "=" not in item:
            raise ValidationError(f"--option {item!r}: expected KEY=VALUE")
        key, value = (part.strip() for part in item.split("=", 1))
        if not key:
            raise ValidationError(f"--option {item!r}: empty key")
        options[key.replace("-", "_")] = int(value) if value.isdigit() else value
    return options


def run_collect(args, corpus, source_options: dict | None = None, pipeline=None) -> int:
    """Carry out ``corpuskit collect`` with parsed ``args`` on ``corpus``.

    ``source_options`` maps a source to collector options every collection of
    it gets unless the command line or the config file sets them
    (``{"youtube": {"api_key": ...}}``: what the command read from the environment).
    ``pipeline(corpus)`` runs after a scheduled round that added records when the command
    line or the config file asks for it (the CLI passes :func:`corpuskit.collect.every_stage`).
    """
    from dataclasses import replace

    from corpuskit.ingest.collectors import get_collector
    from corpuskit.ingest.collectors.scheduler import (
        Job, Scheduler, load_config, parse_interval, print_round)

    source_options = source_options or {}

    options = parse_options(args.option)
    if args.base_url:
        options["base_url"] = args.base_url
    if args.config or args.every:
        config = load_config(args.config) if args.config else None
        jobs = list(config.jobs) if config else []
        if args.source:
            jobs.append(Job.from_dict({"source": args.source, "query": args.query,
                                       "topic": args.topic, "since": args.since,
                                       "max": args.max, **options}, "command line"))
        every = parse_interval(args.every) if args.every else (config.every if config else None)
        if every is None:
            raise ValidationError("a schedule needs --every (or 'every' in the config file)")
        if not jobs:
            raise ValidationError("nothing to collect: give SOURCE or --config with [[collect]] entries")
        jobs = [replace(job, options={**source_options.get(job.source, {}), **job.options}) for job in jobs]
        run_pipeline = args.run_pipeline or bool(config and config.run_pipeline)
        print(f"collecting {len(jobs)} source queries every {every:g} s"
              + (f" for {args.rounds} rounds" if args.rounds else " until interrupted"), flush=True)
        scheduler = Scheduler(jobs, every, rounds=args.rounds, run_pipeline=run_pipeline,
                              pipeline=pipeline, on_round=print_round)
        scheduler.run(corpus)
        return 1 if scheduler.rounds_ and scheduler.rounds_[-1].errors else 0
    if not args.source:
        raise ValidationError("give a SOURCE to collect, or --every with --config")
    options = {**source_options.get(args.source, {}), **options}
    collector = get_collector(args.source, query=args.query, topic=args.topic, since=args.since,
                              max_records=args.max, progress=not args.quiet, **options)
    try:
        collector.run(corpus)
    except CollectorError:
        report = getattr(collector, "report_", None)
        if report is not None and report.added:
            print(f"kept what was stored before the failure: {report.summary()}", file=sys.stderr)
        raise
    print(collector.report_.summary())
    return 0
