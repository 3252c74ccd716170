"""The ``corpuskit`` command: one subcommand per stage, plus keys, import and export.

With ``server.py``, the only reader of environment variables: each is read
here and passed down as a parameter (see :data:`ENVIRONMENT`).
"""
from __future__ import annotations

import argparse
import json
import os
import sys

from corpuskit.errors import CorpusKitError, ValidationError
from corpuskit.ingest.export_columns import TABLES as EXPORT_TABLES
from corpuskit.query.values import SAMPLE_ALLOCATIONS, SAMPLE_STRATA

#: The environment variables the command reads, and what each sets.
ENVIRONMENT = {
    "CORPUSKIT_SQLITE_DRIVER": "sqlite3 or sqlean: the SQLite module that opens the corpus "
                               "(default sqlite3 when it loads extensions, else sqlean)",
    "CORPUSKIT_KEY_PREFIX": "what keys made by 'keys create' start with (default ck_)",
    "CORPUSKIT_LLM_URL": "the OpenAI-compatible endpoint of 'narrate --writer llm'",
    "CORPUSKIT_LLM_MODEL": "the model 'narrate --writer llm' asks for",
    "CORPUSKIT_LLM_KEY": "the key 'narrate --writer llm' sends (never printed or stored)",
    "CORPUSKIT_QUANTISED_FROM": "vectors from which 'search' on a corpus file uses the memory-mapped "
                                "quantised index (default 250000)",
    "CORPUSKIT_<SOURCE>_BASE_URL": "the API address of a collector, e.g. CORPUSKIT_HACKERNEWS_BASE_URL "
                                   "(--base-url wins)",
    "YOUTUBE_API_KEY": "the YouTube Data API v3 key of the youtube collector",
}


def environment_help(variables: dict) -> str:
    """The ``--help`` section listing ``variables`` (name -> what it sets)."""
    width = max(len(name) for name in variables)
    return "environment variables:\n" + "\n".join(f"  {name:<{width}}  {text}" for name, text in variables.items())


def env_int(name: str) -> int | None:
    """The integer in environment variable ``name``, or None when unset or empty."""
    value = os.environ.get(name)
    if not value:
        return None
    try:
        return int(value)
    except ValueError:
        raise ValidationError(f"{name} must be an integer, not {value!r}") from None


def _driver() -> str | None:
    return os.environ.get("CORPUSKIT_SQLITE_DRIVER") or None


def _open(args):
    from corpuskit.corpus import open_corpus

    return open_corpus(args.db, now=getattr(args, "now", None), driver=_driver())


def collector_options() -> dict:
    """Per source, the collector options set in the environment: ``base_url`` from
    ``CORPUSKIT_<SOURCE>_BASE_URL``, and the youtube collector's ``api_key`` from ``YOUTUBE_API_KEY``."""
    from corpuskit.ingest.collectors import COLLECTORS

    out: dict = {}
    for source in COLLECTORS:
        base_url = os.environ.get(f"CORPUSKIT_{source.upper()}_BASE_URL")
        if base_url:
            out.setdefault(source, {})["base_url"] = base_url
    if os.environ.get("YOUTUBE_API_KEY"):
        out.setdefault("youtube", {})["api_key"] = os.environ["YOUTUBE_API_KEY"]
    return out


def cmd_import(args) -> int:
    from corpuskit.corpus import open_corpus

    if args.wait is not None and not args.wait >= 0:
        raise ValidationError(f"--wait must be a number of seconds >= 0, not {args.wait}")
    created = _new_files(args.db)
    corpus = open_corpus(args.db, now=args.now, timeout=30.0 if args.wait is None else args.wait,
                         driver=_driver())
    try:
        report = corpus.import_file(args.path, source=args.source, mapping=args.map or None,
                                    topic=args.topic, strict=args.strict, progress=not args.quiet,
                                    dedupe=args.dedupe, encoding=args.encoding,
                                    date_format=args.date_format, dayfirst=args.dayfirst)
    except BaseException:
        # a failed import into a new corpus leaves no empty corpus file behind
        corpus.close()
        for path in created:
            path.unlink(missing_ok=True)
        raise
    if report.date_note:
        print(f"note: {report.date_note}", file=sys.stderr)
    for warning in report.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    for number, reason in report.rejections[:50]:
        print(f"rejected row {number}: {reason}", file=sys.stderr)
    if len(report.rejections) > 50:
        print(f"... and {len(report.rejections) - 50} more rejected rows", file=sys.stderr)
    print(f"{args.path} ({report.layout}): {report.summary()}")
    return 0


def cmd_network(args) -> int:
    from corpuskit.networks import network, write_network

    corpus = _open(args)
    net = network(corpus.conn, args.kind, since=args.since, until=args.until, query=args.query,
                  min_weight=args.min_weight)
    try:
        path = write_network(net, args.path, format=args.format)
    except ImportError as exc:
        print(f"corpuskit: error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote the {args.kind} network to {path}: {len(net.nodes)} nodes, {len(net.edges)} edges")
    return 0


def _new_files(db) -> list:
    """The corpus file and its SQLite companions that do not exist yet (none for ``:memory:``)."""
    from pathlib import Path

    from corpuskit.store.connection import COMPANION_SUFFIXES

    if not db or str(db) == ":memory:":
        return []
    base = Path(db)
    if base.exists():
        return []
    return [p for p in (base, *(base.with_name(base.name + s) for s in COMPANION_SUFFIXES)) if not p.exists()]


def cmd_export(args) -> int:
    corpus = _open(args)
    filters = {"source": args.source, "topic": args.topic, "since": args.since, "until": args.until,
               "query": args.query}
    if args.salt is not None and not args.pseudonymise:
        raise ValidationError("--salt is only used with --pseudonymise")
    if args.bundle:
        if args.path or args.table:
            raise ValidationError("--bundle writes every table into a directory: give no PATH or --table")
        report = corpus.export_bundle(args.bundle, format=args.format or "parquet", **filters,
                                      pseudonymise=args.pseudonymise, salt=args.salt,
                                      store_salt=args.store_salt)
        print(f"exported a bundle to {args.bundle}: {report.summary()}; manifest.json and codebook.md")
        if report.salt is not None and args.salt is None:
            where = "it is in salt.txt" if report.salt_stored else "it is not stored anywhere"
            print(f"pseudonymised with the random salt {report.salt} ({where}; keep it to repeat this export)")
        return 0
    if args.store_salt:
        raise ValidationError("--store-salt is only used with --bundle")
    if not args.path:
        raise ValidationError("give a PATH to export one table, or --bundle DIR for every table")
    salt = args.salt
    if args.pseudonymise and salt is None:
        from corpuskit.ingest.pseudonymise import new_salt

        salt = new_salt()
    table = args.table or "records"
    count = corpus.export(args.path, format=args.format, table=table, **filters,
                          pseudonymise=args.pseudonymise, salt=salt)
    what = "records" if table == "records" else f"rows of {table}"
    print(f"exported {count} {what} to {args.path}")
    if args.pseudonymise and args.salt is None:
        print(f"pseudonymised with the random salt {salt} (not stored anywhere; keep it to repeat this export)")
    return 0


def cmd_cite(args) -> int:
    from corpuskit.manifest import citation

    cite = citation(_open(args))
    print(f"corpuskit {cite['version']}; corpus manifest digest {cite['manifestDigest']}")
    print()
    print(cite["apa"])
    print()
    print(cite["bibtex"])
    return 0


def cmd_methods(args) -> int:
    print(_open(args).methods())
    return 0


def cmd_manifest(args) -> int:
    manifest = _open(args).manifest()
    text = json.dumps(manifest, indent=2, sort_keys=True)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as fh:
            fh.write(text + "\n")
        print(f"wrote the manifest of {manifest['records']['count']} records to {args.output}")
    else:
        print(text)
    return 0


def cmd_compare(args) -> int:
    """``corpuskit compare A B``: 0 when every compared table is the same, 1 when any differs
    (2, from :func:`main`, when a file cannot be read as a corpus)."""
    from corpuskit.compare import compare

    if args.examples < 0:
        raise ValidationError(f"--examples must be 0 or more, not {args.examples}")
    result = compare(args.a, args.b, tables=args.table, examples=args.examples, driver=_driver())
    if args.json:
        print(json.dumps(result.to_dict(), indent=2, ensure_ascii=False, default=str))
    else:
        print(result.to_text())
    return 0 if result.identical else 1


def cmd_demo(args) -> int:
    from corpuskit.demo import build_demo

    corpus = _open(args)
    summary = build_demo(corpus, seed=args.seed, records=args.records, days=args.days,
                         events=not args.no_events, run_stages=not args.no_pipeline,
                         progress=not args.quiet)
    print(json.dumps(summary, indent=2, sort_keys=True))
    return 0


def cmd_stage(args) -> int:
    corpus = _open(args)
    kwargs = {}
    if getattr(args, "writer", "extractive") == "llm":
        from corpuskit.narrate.llm import LLMWriter

        kwargs["writer"] = LLMWriter(url=os.environ.get("CORPUSKIT_LLM_URL"),
                                     model=os.environ.get("CORPUSKIT_LLM_MODEL"),
                                     api_key=os.environ.get("CORPUSKIT_LLM_KEY"))
    if getattr(args, "dask", None):
        kwargs["client"] = args.dask
    if getattr(args, "fit_sample", None) is not None:
        kwargs["fit_sample"] = args.fit_sample
    if getattr(args, "sentiment", None) is not None:
        kwargs["scorer"] = args.sentiment
    if getattr(args, "sentiment_priors", None) is not None:
        kwargs["sentiment_priors"] = args.sentiment_priors
    if args.stage == "enrich":
        kwargs.update(_topic_options(args))
    for name in ("period", "since", "until", "every"):
        if getattr(args, name, None) is not None:
            kwargs[name] = getattr(args, name)
    if getattr(args, "aliases", None):
        kwargs["aliases"] = args.aliases
    result = getattr(corpus, args.stage)(progress=not args.quiet, **kwargs)
    print(json.dumps(result, indent=2, sort_keys=True, default=str))
    return 0


def cmd_search(args) -> int:
    from corpuskit.api.keyed.queries import search_json

    corpus = _open(args)
    answer = search_json(corpus, args.q, source=args.source, topic=args.topic, days=args.days,
                         limit=args.limit, quantised_from=env_int("CORPUSKIT_QUANTISED_FROM"))
    if args.json:
        print(json.dumps(answer, indent=2, sort_keys=True))
        return 0
    for r in answer["results"]:
        print(f"{r['relevance']:.3f}  {r['id']:>7}  {r['source']:<10} {r['publishedAt'][:10]}  "
              f"{r['topic'] or '-':<18} {(r['title'] or r['excerpt'])[:90]}")
    print(f"{len(answer['results'])} of {answer['totalMatched']} matching records "
          f"(embedding {answer['embeddingMs']} ms, search {answer['searchMs']} ms)")
    return 0


def cmd_query(args) -> int:
    sub = _open(args).query(args.q, since=args.since, until=args.until)
    if args.count:
        print(sub.count())
        return 0
    if args.export:
        print(f"exported {sub.export(args.export, format=args.format)} records to {args.export}")
        return 0
    if args.kwic:
        lines = sub.kwic(args.kwic, window=args.window, limit=args.limit)
        for row in lines.itertuples(index=False):
            print(f"{row.recordId:>8}  {row.publishedAt[:10]}  {row.left[-60:]:>60} [{row.match}] {row.right[:60]}")
        print(f"{len(lines)} occurrences of {args.kwic!r} listed (oldest first, at most {args.limit}) "
              f"in {sub.count()} matching records")
        return 0
    frame = sub.records(limit=args.limit)
    for row in frame.itertuples(index=False):
        text = " ".join(((row.title or "") + " " + (row.contentText or "")).split())
        print(f"{row.id:>8}  {row.source:<10} {row.publishedAt.strftime('%Y-%m-%d')}  {text[:100]}")
    print(f"{len(frame)} of {sub.count()} matching records (newest first)")
    return 0


def _topic_options(args) -> dict:
    """The topic steering options of ``enrich`` and ``run`` as keyword arguments."""
    options = {}
    if args.topics is not None:
        options["n_topics"] = args.topics
    for name in ("seed", "seed_words", "beats"):
        if getattr(args, name) is not None:
            options[name] = getattr(args, name)
    if args.refit:
        options["refit"] = True
    if getattr(args, "no_merge_topics", False):
        options["merge_topics"] = False
    if getattr(args, "merge_topics", False):
        options["merge_topics"] = True
    return options


def _topics_arg(value: str):
    if value == "auto":
        return value
    try:
        number = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--topics takes a number or auto, not {value!r}") from None
    if number < 1:
        raise argparse.ArgumentTypeError(f"--topics must be at least 1, not {number}")
    return number


def _add_record_filters(p, rows: str = "") -> None:
    """``--source --topic --since --until --query``: which records a command reads (``rows``: what else
    the filter keeps, for the help text)."""
    p.add_argument("--source", help="only records of this source" + rows)
    p.add_argument("--topic", help="only records whose primary topic has this name" + rows)
    p.add_argument("--since", help="only records published at or after this time")
    p.add_argument("--until", help="only records published at or before this time")
    p.add_argument("--query", help='only records matching this query (the query language, see docs/query.md: '
                                   '\'"mRNA" AND (pfizer OR moderna)\')' + rows)


def _add_topic_options(p) -> None:
    p.add_argument("--topics", type=_topics_arg, metavar="K|auto",
                   help="number of topics to discover (default auto: chosen from the data)")
    p.add_argument("--seed", type=int, help="seed of the embedder and topic discovery (default 0)")
    p.add_argument("--refit", action="store_true",
                   help="fit the embedder and topics again and re-enrich every record")
    p.add_argument("--seed-words", metavar="FILE",
                   help="guided topics: one line per topic, 'Label: word, word, phrase' (see docs/topics.md)")
    p.add_argument("--beats", metavar="FILE", help="beat definitions (YAML/JSON) instead of discovered topics")
    merging = p.add_mutually_exclusive_group()
    merging.add_argument("--no-merge-topics", action="store_true",
                         help="keep every discovered topic: no merging of near-duplicates, no dissolving of small "
                              "ones (the default with --topics K, which then gives K topics)")
    merging.add_argument("--merge-topics", action="store_true",
                         help="merge near-duplicate topics and dissolve small ones even with --topics K (the "
                              "run then says how many were merged and why)")


def cmd_run(args) -> int:
    corpus = _open(args)
    results = corpus.run(progress=not args.quiet, **_topic_options(args))
    print(json.dumps(results, indent=2, sort_keys=True, default=str))
    if results.get("languageNote"):
        print(f"note: {results['languageNote']}", file=sys.stderr)
    coverage = (results.get("enrich") or {}).get("coverage") or {}
    if set(coverage) - {"en"}:
        from corpuskit.enrich.pipeline import coverage_line

        print(f"languages: {coverage_line(coverage)}", file=sys.stderr)
    if (results.get("enrich") or {}).get("topicsNote"):
        print(f"note: {results['enrich']['topicsNote']}", file=sys.stderr)
    return 0


def cmd_collect(args) -> int:
    from corpuskit.collect import every_stage
    from corpuskit.ingest.collectors.command import run_collect

    return run_collect(args, _open(args), collector_options(), pipeline=every_stage)


def cmd_import_dump(args) -> int:
    from corpuskit.ingest.dumps import import_dump

    report = import_dump(_open(args), args.path, kind=args.kind, topic=args.topic,
                         strict=args.strict, progress=not args.quiet)
    for number, reason in report.rejections[:20]:
        print(f"rejected row {number}: {reason}", file=sys.stderr)
    print(f"{args.path} ({report.layout}): {report.summary()}")
    return 0


def cmd_keys(args) -> int:
    from corpuskit.store import api_keys

    corpus = _open(args)
    if args.keys_command == "create":
        key = api_keys.create_key(corpus.conn, tier=args.tier, name=args.name or "",
                              per_minute=args.per_minute, per_day=args.per_day,
                              prefix=os.environ.get("CORPUSKIT_KEY_PREFIX", api_keys.DEFAULT_KEY_PREFIX))
        info = api_keys.list_keys(corpus.conn)[-1]
        print(f"created {info.tier} key {info.id} ({info.per_minute}/minute, {info.per_day}/day). "
              "It is shown only now; store it:")
        print(key)
    elif args.keys_command == "list":
        from corpuskit.store.limits import last_used

        rows = api_keys.list_keys(corpus.conn)
        if not rows:
            print("no keys")
        used = last_used(corpus)  # stamped in the rate-limit file beside the corpus
        for k in rows:
            state = "revoked " + k.revoked_at if k.revoked_at else "active"
            print(f"{k.id}\t{k.name or '-'}\t{k.tier}\t{k.prefix}…\tcreated {k.created_at}\t"
                  f"last used {used.get(k.id) or k.last_used_at or 'never'}\t{state}")
    else:
        info = api_keys.revoke_key(corpus.conn, args.key)
        print(f"revoked key {info.id} ({info.name or info.prefix + '…'})")
    return 0


def cmd_sample(args) -> int:
    from corpuskit.validate import write_coding_sheet

    corpus = _open(args)
    drawn = corpus.sample(args.n, by=args.by, seed=args.seed, name=args.name, source=args.source,
                          topic=args.topic, since=args.since, until=args.until, query=args.query,
                          allocation=args.allocation, codebook=args.codebook)
    strata = drawn.design["strata"]
    detail = f", {len(strata)} strata by {args.by}" if strata else ""
    print(f"drew sample {args.name!r}: {len(drawn)} of {drawn.design['population']} records "
          f"(seed {args.seed}{detail})")
    if args.out:
        rows = write_coding_sheet(corpus, args.name, args.out)
        print(f"wrote the coding sheet of {rows} records to {args.out}")
    return 0


def cmd_codes(args) -> int:
    from corpuskit.validate import CodeError

    corpus = _open(args)
    try:
        count = corpus.import_codes(args.path, args.sample, args.coder, replace=args.replace)
    except CodeError as exc:
        for row, reason in exc.failures[:50]:
            print(f"line {row}: {reason}", file=sys.stderr)
        if len(exc.failures) > 50:
            print(f"... and {len(exc.failures) - 50} more", file=sys.stderr)
        print(f"corpuskit: error: {len(exc.failures)} code(s) rejected; nothing of {args.path} was stored",
              file=sys.stderr)
        return 2
    print(f"stored {count} codes of {args.coder} in sample {args.sample!r}")
    return 0


def _command(sub, name, func, help_text, db_required=True):
    """A subcommand running ``func``, with the options every corpus command takes (--db, --now, --quiet)."""
    p = sub.add_parser(name, help=help_text, description=help_text)
    p.add_argument("--db", required=db_required, help="the corpus file")
    p.add_argument("--now", help="fix the corpus clock (ISO 8601)")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.set_defaults(func=func)
    return p


def _add_import(sub) -> None:
    p = _command(sub, "import", cmd_import, "import a JSONL, CSV or Parquet file")
    p.add_argument("path")
    p.add_argument("--source", help="source name when the file does not imply it: a known kind "
                                    "(reddit, hackernews, ...) or any lower-case slug (mastodon, "
                                    "telegram, my_forum)")
    p.add_argument("--map", action="append", metavar="FIELD=COLUMN",
                   help="map a record field to a column (repeatable)")
    p.add_argument("--topic", help="topic hint for every imported record")
    p.add_argument("--strict", action="store_true",
                   help="write nothing if any row is bad, and list the first bad rows")
    p.add_argument("--date-format", metavar="FORMAT",
                   help="read string dates with this strptime format, e.g. '%%d/%%m/%%Y %%H:%%M'")
    order = p.add_mutually_exclusive_group()
    order.add_argument("--dayfirst", dest="dayfirst", action="store_const", const=True,
                       help="slash dates are day/month/year (default: decided from the file's "
                            "dates; month/day with a warning when none decides)")
    order.add_argument("--monthfirst", dest="dayfirst", action="store_const", const=False,
                       help="slash dates are month/day/year")
    p.add_argument("--dedupe", choices=("auto", "id", "content", "none"), default="auto",
                   help="which rows are duplicates: auto (default: sourceId when the row has one, "
                        "else source+author+title+text+publishedAt), id (every row needs a sourceId), "
                        "content (that key even when rows have ids), none (keep rows without a sourceId)")
    p.add_argument("--encoding", help="the file's text encoding, e.g. latin-1, cp1252, utf-16 "
                                      "(default: UTF-8, or what a byte-order mark says)")
    p.add_argument("--wait", type=float, metavar="SECONDS",
                   help="how long to wait for another process writing to the corpus (default 30)")


def _add_export(sub) -> None:
    p = _command(sub, "export", cmd_export, "export one table as jsonl, csv or parquet, or every table as "
                                            "a bundle with manifest.json and codebook.md")
    p.add_argument("path", nargs="?", help="the file to write one table to (not with --bundle)")
    p.add_argument("--bundle", metavar="DIR", help="write every table, manifest.json and codebook.md into "
                                                   "this new directory (parquet unless --format says)")
    p.add_argument("--format", choices=("jsonl", "csv", "parquet"),
                   help="default: the file's extension (parquet for --bundle)")
    p.add_argument("--table", choices=EXPORT_TABLES,
                   help="which table (default records, with topics, cluster, entities and sentiment)")
    _add_record_filters(p, ", and the rows that name them")
    p.add_argument("--pseudonymise", action="store_true",
                   help="replace authors by a salted hash and remove handles and profile links")
    p.add_argument("--salt", help="the pseudonymisation salt (default: a random one, printed once)")
    p.add_argument("--store-salt", action="store_true", help="write the salt into the bundle (salt.txt)")


def _add_network(sub) -> None:
    from corpuskit.networks import FORMATS as NETWORK_FORMATS, KINDS as NETWORK_KINDS

    p = _command(sub, "network", cmd_network, "write an interaction network (mention, reply, repost, quote, "
                                              "co-hashtag, co-entity, shared URL, author-topic) as GEXF, "
                                              "GraphML or CSV")
    p.add_argument("path", help="the file to write (.gexf and .graphml open in Gephi; .csv also writes "
                                "<stem>_nodes.csv)")
    p.add_argument("--kind", choices=tuple(NETWORK_KINDS), default="mention", help="default: mention")
    p.add_argument("--format", choices=NETWORK_FORMATS, help="default: the file's extension")
    p.add_argument("--since", help="keep records published at or after this time")
    p.add_argument("--until", help="keep records published at or before this time")
    p.add_argument("--query", help="keep records matching this query (docs/query.md)")
    p.add_argument("--min-weight", type=int, default=1, help="drop edges lighter than this (default 1)")


def _add_manifest(sub) -> None:
    p = _command(sub, "manifest", cmd_manifest,
                 "print what produced the corpus: record digest, table digests, each stage's last run, "
                 "versions")
    p.add_argument("--output", "-o", help="write the JSON to this file instead of printing it")


def _add_compare(sub) -> None:
    from corpuskit.compare import TABLES as COMPARED_TABLES

    p = sub.add_parser("compare", help="show how two corpora differ, table by table",
                       description="Compare two corpus files table by table (the records and every table the "
                                   "manifest digests): rows the same, changed, only in A and only in B, with "
                                   "examples. Both files are opened read-only. Exit status: 0 when every "
                                   "compared table is the same, 1 when any differs, 2 when a file cannot be "
                                   "read as a corpus.")
    p.add_argument("a", metavar="A", help="the first corpus file")
    p.add_argument("b", metavar="B", help="the second corpus file")
    p.add_argument("--table", action="append", choices=list(COMPARED_TABLES),
                   help="compare only this table (repeatable; default: all)")
    p.add_argument("--examples", type=int, default=3, metavar="N",
                   help="example rows of each kind (changed, only in A, only in B) per table (default 3)")
    p.add_argument("--json", action="store_true", help="print the comparison as JSON")
    p.set_defaults(func=cmd_compare, db=None, needs_db=False)


def _add_cite(sub) -> None:
    _command(sub, "cite", cmd_cite, "print how to cite corpuskit (APA and BibTeX), its version and the "
                                    "corpus's manifest digest")


def _add_methods(sub) -> None:
    _command(sub, "methods", cmd_methods, "print a methods paragraph written from the corpus's runs: each "
                                          "instrument with its version, training data and measured accuracy, "
                                          "the corpus digests and what to cite")


def _add_demo(sub) -> None:
    p = _command(sub, "demo", cmd_demo, "build the deterministic demo corpus and run every stage")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--records", type=int, default=20000)
    p.add_argument("--days", type=int, default=60)
    p.add_argument("--no-events", action="store_true", help="plant no events (a null corpus)")
    p.add_argument("--no-pipeline", action="store_true", help="generate records only")


def _add_enrich_options(p) -> None:
    _add_topic_options(p)
    p.add_argument("--dask", metavar="ADDRESS",
                   help="score the chunks on a Dask cluster: scheduler address (tcp://host:8786) "
                        "or scheduler file; needs pip install 'corpuskit[dask]'")
    p.add_argument("--fit-sample", type=int, metavar="N",
                   help="fit the embedder and beats on at most N records (default 50,000)")
    p.add_argument("--sentiment", choices=("model", "vader"),
                   help="sentiment scorer: model (default: the shipped tweet model) or vader "
                        "(VADER at the +-0.05 cut)")
    p.add_argument("--sentiment-priors", choices=("training", "corpus"),
                   help="corpus: end the run by adjusting sentiment labels to the corpus's class priors "
                        "(EM, Saerens et al. 2002; docs/sentiment.md); default training (the model's labels)")
    p.add_argument("--aliases", metavar="FILE",
                   help="entity overrides, kept for later runs: 'Name = alias, ...' merges, "
                        "'Name != alias, ...' splits")


def _add_narrate_options(p) -> None:
    p.add_argument("--writer", choices=("extractive", "llm"), default="extractive",
                   help="llm: draft with the OpenAI-compatible endpoint in CORPUSKIT_LLM_URL "
                        "(model CORPUSKIT_LLM_MODEL, key CORPUSKIT_LLM_KEY), checked, with the "
                        "extractive writer as fallback")
    p.add_argument("--period", help="write the stories of this period as at its end: 2016, 2016-03, "
                                    "2016-W09 or 2016-03-05 (only records up to then are used)")
    p.add_argument("--since", help="with --until or --every: the history from this time")
    p.add_argument("--until", help="with --since or --every: the history up to this time (included)")
    p.add_argument("--every", choices=("day", "week", "month", "year"),
                   help="write the stories of every such period of the history (a digest of each)")


#: The stage subcommands: name, what the stage makes, and the options of its own.
_STAGES = (("enrich", "sentiment, entities, topics and embeddings", _add_enrich_options),
           ("analyse", "clusters, signals, snapshots, observations", None),
           ("narrate", "stories, versions and arcs", _add_narrate_options))


def _add_stages(sub) -> None:
    for stage, text, add_options in _STAGES:
        p = _command(sub, stage, cmd_stage, f"run the {stage} stage: {text}")
        p.set_defaults(stage=stage)
        if add_options is not None:
            add_options(p)


def _add_run(sub) -> None:
    _add_topic_options(_command(sub, "run", cmd_run, "run every stage in order"))


def _add_search(sub) -> None:
    p = _command(sub, "search", cmd_search, "semantic search over an enriched corpus")
    p.add_argument("q", help="query text, 3 to 500 characters")
    p.add_argument("--source", help="only this source kind")
    p.add_argument("--topic", help="only records whose primary topic has this name")
    p.add_argument("--days", type=int, help="only the last N days of the corpus clock")
    p.add_argument("--limit", type=int, default=20, help="results, 1-50 (default 20)")
    p.add_argument("--json", action="store_true", help="print the /api/v1/search envelope as JSON")


def _add_query(sub) -> None:
    p = _command(sub, "query", cmd_query, "list, count or export the records matching a query "
                                          "(Lucene syntax; see docs/query.md)")
    p.add_argument("q", help='the query, e.g. \'"mRNA" AND (pfizer OR moderna) NOT booster source:reddit\'')
    p.add_argument("--since", help="only records published at or after this time")
    p.add_argument("--until", help="only records published at or before this time")
    p.add_argument("--count", action="store_true", help="print only the number of matching records")
    p.add_argument("--export", metavar="FILE", help="write the matching records to FILE (jsonl, csv, parquet)")
    p.add_argument("--format", choices=("jsonl", "csv", "parquet"), help="with --export: default the extension")
    p.add_argument("--kwic", metavar="TERM", help="print the keyword-in-context concordance of TERM "
                                                  "(a word, \"a phrase\" or a prefix vacc*) in the matching records")
    p.add_argument("--window", type=int, default=8, help="with --kwic: words of context each side (default 8)")
    p.add_argument("--limit", type=int, default=20, help="rows listed (default 20, newest first; "
                                                         "with --kwic the first occurrences, oldest first)")


def _add_collect(sub) -> None:
    p = _command(sub, "collect", cmd_collect, "collect from a public API once, or on a schedule (--every)")
    p.add_argument("source", nargs="?",
                   help="hackernews, reddit, bluesky, gdelt, google_news, arxiv or youtube")
    p.add_argument("--query", default="",
                   help="search words; for reddit the subreddits joined with + (science+technology)")
    p.add_argument("--topic", help="topic hint for every collected record")
    p.add_argument("--since", help="collect nothing published before this date")
    p.add_argument("--max", type=int, help="at most N items per collection")
    p.add_argument("--option", action="append", metavar="KEY=VALUE",
                   help="a collector option, e.g. tags=comment (hackernews), lang=en (bluesky)")
    p.add_argument("--base-url", help="the API address (a mirror or a local replay server)")
    p.add_argument("--every", help="collect on a schedule: 30s, 15m, 2h ...")
    p.add_argument("--config", help="TOML file listing the scheduled collections")
    p.add_argument("--rounds", type=int, help="stop after N rounds (default: until interrupted)")
    p.add_argument("--run-pipeline", action="store_true",
                   help="run every stage after a round that added records")


def _add_import_dump(sub) -> None:
    p = _command(sub, "import-dump", cmd_import_dump,
                 "import a bulk dump: Pushshift NDJSON (.zst), Bluesky firehose JSONL, HN items JSON")
    p.add_argument("path")
    p.add_argument("--kind", choices=("pushshift", "bluesky", "hackernews"),
                   help="dump kind (detected from the first record when omitted)")
    p.add_argument("--topic", help="topic hint for every imported record")
    p.add_argument("--strict", action="store_true",
                   help="write nothing if any row is bad, and list the first bad rows")


def _add_sample(sub) -> None:
    p = _command(sub, "sample", cmd_sample, "draw a sample for hand coding and write its coding sheet")
    p.add_argument("--name", required=True, help="the sample's name (stored in the corpus)")
    p.add_argument("--n", type=int, required=True, help="how many records")
    p.add_argument("--by", choices=SAMPLE_STRATA,
                   help="stratify by topic, source, sentiment label or period (day, week, month)")
    p.add_argument("--allocation", choices=SAMPLE_ALLOCATIONS, default="proportional",
                   help="stratum sizes: proportional (default, largest remainder) or equal")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    _add_record_filters(p)
    p.add_argument("--codebook", help="YAML or JSON codebook stored with the sample; its variables "
                                      "become the sheet's empty columns")
    p.add_argument("--out", help="write the coding sheet (CSV) here")


def _add_codes(sub) -> None:
    p = _command(sub, "codes", cmd_codes, "import a coder's filled coding sheet", db_required=False)
    csub = p.add_subparsers(dest="codes_command", required=True)
    ci = csub.add_parser("import", help="import a filled coding sheet (CSV); all rows or none")
    ci.add_argument("path")
    ci.add_argument("--sample", required=True, help="the sample the sheet codes")
    ci.add_argument("--coder", required=True, help="who coded it")
    ci.add_argument("--replace", action="store_true", help="overwrite this coder's earlier codes")
    ci.add_argument("--db", dest="db_inner", metavar="DB", help="the corpus file (here or before 'import')")


def _add_keys(sub) -> None:
    p = _command(sub, "keys", cmd_keys, "create, list and revoke API keys", db_required=False)
    ksub = p.add_subparsers(dest="keys_command", required=True)
    kc = ksub.add_parser("create", help="create a key; it is printed once, on the last line")
    kc.add_argument("--tier", choices=("free", "research", "enterprise"), default="free")
    kc.add_argument("--per-minute", type=int)
    kc.add_argument("--per-day", type=int)
    kc.add_argument("--name")
    kl = ksub.add_parser("list", help="list keys (never the keys themselves)")
    kr = ksub.add_parser("revoke", help="revoke a key by id, name or the key itself")
    kr.add_argument("key")
    for kp in (kc, kl, kr):
        kp.add_argument("--db", dest="db_inner", metavar="DB",
                        help="the corpus file (here or before the subcommand)")


#: Every subcommand, in the order ``corpuskit --help`` lists them.
_SUBCOMMANDS = (_add_import, _add_export, _add_network, _add_manifest, _add_compare, _add_cite, _add_methods, _add_demo, _add_stages,
                _add_run, _add_search, _add_query, _add_collect, _add_import_dump, _add_sample, _add_codes,
                _add_keys)


def build_parser() -> argparse.ArgumentParser:
    from corpuskit import __version__

    parser = argparse.ArgumentParser(prog="corpuskit", description=__doc__.split("\n\n")[0],
                                     epilog=environment_help(ENVIRONMENT),
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"corpuskit {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    for add_subcommand in _SUBCOMMANDS:
        add_subcommand(sub)
    return parser


def main(argv=None) -> int:
    """Entry point of the ``corpuskit`` command; returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "db_inner", None):
        args.db = args.db_inner
    if not args.db and getattr(args, "needs_db", True):
        parser.error("--db is required")
    try:
        return args.func(args)
    except CorpusKitError as exc:
        print(f"corpuskit: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("corpuskit: interrupted; nothing half-written was kept", file=sys.stderr)
        return 130
