"""Read the resolved entities as a person would: on each real file of ``../shared/datasets``, the 40
most-mentioned entities and the 20 that absorbed the most extracted entities, with their aliases.

Usage: python benchmarks/entity_read.py [--data ../shared/datasets] [--out DIR]

Each file is imported into a fresh corpus (kept in ``--out`` when given) and enriched with the
defaults; resolution runs at the end of enrich.
"""
from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from corpuskit import open_corpus

FILES = ("hacker_news_2015_2016.csv", "reddit_2019_science_technology.csv")


def report(corpus, top: int = 40, merged: int = 20) -> str:
    lines = []
    ents = corpus.entities(limit=top)
    lines.append(f"top {top} entities (mentions, records):")
    for r in ents.itertuples():
        lines.append(f"  {r.name} [{r.type}] {r.mentions} / {r.records}")
    rows = corpus.conn.execute(
        "SELECT e.name, e.type, count(*) AS n, sum(g.mentions) FROM entity_merges g "
        "JOIN entities e ON e.id = g.entity_id GROUP BY g.entity_id ORDER BY n DESC, e.name LIMIT ?",
        (merged,)).fetchall()
    lines.append(f"top {merged} merged entities (extracted entities folded in, their mentions):")
    for name, kind, n, moved in rows:
        aliases = corpus.entity_aliases(name)
        shown = "; ".join(f"{a.name} ({a.reason}, {a.mentions})" for a in aliases.head(8).itertuples())
        lines.append(f"  {name} [{kind}] {n} aliases, {moved} mentions: {shown}")
    only = corpus.conn.execute("SELECT count(*), coalesce(sum(mentions), 0) FROM entity_merges "
                               "WHERE reason = 'hashtag only'").fetchone()
    lines.append(f"hashtag-only extracted entities dropped: {only[0]} ({only[1]} mentions)")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(Path(__file__).resolve().parents[2] / "shared" / "datasets"))
    parser.add_argument("--out", default=None)
    args = parser.parse_args(argv)
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp())
    for name in FILES:
        path = Path(args.data) / name
        if not path.exists():
            print(f"skipped: {path} not found")
            continue
        corpus = open_corpus(out / (path.stem + ".db"))
        corpus.import_file(path)
        result = corpus.enrich(progress=False)
        print(f"== {name}: {corpus.count()} records; resolution {corpus.get_meta('resolution:' + result['runId'])}")
        print(report(corpus))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
