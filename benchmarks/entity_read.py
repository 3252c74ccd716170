"""Read the resolved entities as a person would: on each real file of ``../shared/datasets``, twenty
sampled mentions in their text, the 40 most-mentioned entities, the people among the top 100 that
may be one person twice, and the 20 entities that absorbed the most extracted entities.

Usage: python benchmarks/entity_read.py [--data ../shared/datasets] [--out DIR] [--reuse] [--sample 20]
       [--files NAME ...] [--seed 0]

Each file is imported into a fresh corpus (kept in ``--out`` when given) and enriched with the
defaults; resolution runs at the end of enrich. ``--reuse`` takes a corpus already in ``--out`` and
only replays resolution (:func:`corpuskit.enrich.resolve.resolve_entities`) before reading it.
The sample is seeded (``random.Random(seed)`` over the mentions in record order, ``--seed``, 0 by
default), so a rerun reads the same mentions; another seed reads another sample.
"""
from __future__ import annotations

import argparse
import json
import random
import re
import tempfile
from pathlib import Path

from corpuskit import open_corpus

FILES = ("hacker_news_2015_2016.csv", "reddit_2019_science_technology.csv")


def sampled_mentions(corpus, n: int = 20, seed: int = 0) -> list[str]:
    """``n`` mentions drawn at random (seeded), each as its entity, type, the words written and
    the text around them."""
    from corpuskit.enrich.base import record_text

    rows = corpus.conn.execute("SELECT m.record_id, m.entity_id, m.positions FROM mentions m "
                               "ORDER BY m.record_id, m.entity_id").fetchall()
    picked = sorted(random.Random(seed).sample(range(len(rows)), min(n, len(rows))))
    out = []
    for k, i in enumerate(picked, 1):
        rid, eid, positions = rows[i]
        name, kind, slug = corpus.conn.execute("SELECT name, type, slug FROM entities WHERE id = ?",
                                               (eid,)).fetchone()
        title, body = corpus.conn.execute("SELECT title, content_text FROM records WHERE id = ?", (rid,)).fetchone()
        text = record_text(title, body)
        p = json.loads(positions)[0]
        context = re.sub(r"\s+", " ", text[max(0, p - 60):p + 80]).strip()
        out.append(f"  {k:2d}. {name} [{kind}] in: ...{context}...")
    return out


def duplicate_people(corpus, top: int = 100) -> list[str]:
    """People among the ``top`` entities that share a folded surname or whose name is another's
    last word: the candidates of one person counted twice."""
    from corpuskit.enrich.resolve import fold

    ents = corpus.entities(limit=top)
    people = [n for n, t in zip(ents["name"], ents["type"]) if t == "person"]
    by_last: dict[str, list[str]] = {}
    for name in people:
        by_last.setdefault(fold(name.split()[-1]), []).append(name)
    return [", ".join(names) for _, names in sorted(by_last.items()) if len(names) > 1]


def report(corpus, top: int = 40, merged: int = 20, sample: int = 20, seed: int = 0) -> str:
    lines = [f"{sample} sampled mentions (seed {seed}):"] + sampled_mentions(corpus, sample, seed)
    twice = duplicate_people(corpus)
    people = sum(1 for t in corpus.entities(limit=100)["type"] if t == "person")
    lines.append(f"people among the top 100 entities: {people}; sharing a surname: "
                 + ("; ".join(twice) if twice else "none"))
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
        aliases = aliases[aliases["reason"].notna()]
        shown = "; ".join(f"{a.surface} ({a.reason}, {a.mentions})" for a in aliases.head(8).itertuples())
        lines.append(f"  {name} [{kind}] {n} aliases, {moved} mentions: {shown}")
    only = corpus.conn.execute("SELECT count(*), coalesce(sum(mentions), 0) FROM entity_merges "
                               "WHERE reason = 'hashtag only'").fetchone()
    lines.append(f"hashtag-only extracted entities dropped: {only[0]} ({only[1]} mentions)")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(Path(__file__).resolve().parents[2] / "shared" / "datasets"))
    parser.add_argument("--out", default=None)
    parser.add_argument("--reuse", action="store_true", help="replay resolution on the corpora in --out")
    parser.add_argument("--sample", type=int, default=20)
    parser.add_argument("--files", nargs="+", default=list(FILES))
    parser.add_argument("--seed", type=int, default=0, help="the seed of the sampled mentions")
    args = parser.parse_args(argv)
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp())
    for name in args.files:
        path = Path(args.data) / name
        if not path.exists():
            print(f"skipped: {path} not found")
            continue
        db = out / (Path(name).stem + ".db")
        if args.reuse and db.exists():
            from corpuskit.enrich.resolve import resolve_entities

            corpus = open_corpus(db)
            resolution = resolve_entities(corpus.file)
        else:
            corpus = open_corpus(db)
            corpus.import_file(path)
            result = corpus.enrich(progress=False)
            resolution = corpus.get_meta("resolution:" + result["runId"])
        print(f"== {name}: {corpus.count()} records; resolution {resolution}")
        print(report(corpus, sample=args.sample, seed=args.seed))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
