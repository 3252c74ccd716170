"""Measure: how many noun phrases new in a burst a novelty test on phrases would raise (not yet a detector).

Usage: ``python benchmarks/bench_signals_phrases.py [--cache /tmp/h18] [--k 5 8] [--show 25]``

On the enriched Hacker News and Reddit backgrounds of ``bench_signals_injected.py``
(built into ``--cache`` on the first run), every lower-case word and two-word
phrase of :func:`corpuskit.text.term_phrases` is tested as an entity would be by
novelty: no record writes it in the 21 days before, and at least ``k`` records
from at least 2 authors write it on one day (scale ``day``) or in the seven
days from that day (``week``). Known entity names, and terms that name nothing
by the signal namer's test (:func:`corpuskit.analysis.signals.naming.weak_term`:
weak and common words, title formats), are left out. Prints the number of
phrase episodes per 30 days and an even sample of them, to read: a rule a
reader would accept must not flood.
"""
from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def episodes(conn, k: int, window: int = 21) -> tuple[list, int]:
    """``([(day, scale, phrase, records, authors)], corpus days)`` of the phrases new in a burst."""
    from corpuskit.analysis.clusters import corpus_formats
    from corpuskit.analysis.signals.naming import weak_term
    from corpuskit.text import term_phrases

    formats = corpus_formats(conn)
    known = {r[0].lower() for r in conn.execute("SELECT name FROM entities")}
    rows = conn.execute("SELECT r.id, r.day, coalesce(r.author, ''), coalesce(r.title, '') || ' ' || "
                        "coalesce(r.content_text, '') FROM records r JOIN enrichment e ON e.record_id = r.id "
                        "ORDER BY r.id").fetchall()
    by: dict = defaultdict(lambda: defaultdict(set))
    for rid, day, author, text in rows:
        for term in set(term_phrases(text, (1, 2))):
            by[term][day].add((rid, author))
    days = sorted({r[1] for r in rows})
    first = date.fromisoformat(days[0])
    out = []
    for term, per in sorted(by.items()):
        if term in known or weak_term(term, formats=formats):
            continue
        seen = sorted(per)
        for i, d in enumerate(seen):
            day = date.fromisoformat(d)
            if (day - first).days < window or any((day - date.fromisoformat(x)).days <= window for x in seen[:i]):
                continue
            week = set().union(*[per[x] for x in seen[i:] if (date.fromisoformat(x) - day).days < 7])
            for scale, recs in (("day", per[d]), ("week", week)):
                authors = {a for _, a in recs if a}
                if len(recs) >= k and len(authors) >= 2:
                    out.append((d, scale, term, len(recs), len(authors)))
                    break
    return sorted(out), len(days)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=Path("/tmp/h18"))
    parser.add_argument("--k", type=int, nargs="+", default=[5, 8])
    parser.add_argument("--show", type=int, default=25)
    args = parser.parse_args(argv)
    import bench_signals_injected as injected

    for name, path in injected.FILES.items():
        if not path.exists():
            print(f"not present: {path}")
            continue
        corpus = injected.background(name, args.cache)
        for k in args.k:
            found, n_days = episodes(corpus.conn, k)
            n_day = sum(1 for f in found if f[1] == "day")
            print(f"\n{name}, k = {k}: {len(found)} phrase episodes ({n_day} at the day, {len(found) - n_day} "
                  f"at the week), {len(found) * 30 / n_days:.1f} per 30 days")
            for f in found[::max(1, len(found) // args.show)]:
                print(f"  {f[0]}  {f[1]:4}  {f[2]}  ({f[3]} records, {f[4]} authors)")
        corpus.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
