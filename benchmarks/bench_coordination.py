"""Benchmark: coordinated groups on the real shared files, under their null, with planted campaigns,
and the time at 100k and 1M records.

Usage: ``python benchmarks/bench_coordination.py [--cache /tmp/bench_coord] [--nulls 5] [--seed 0]
[--sizes 100000,1000000] [--datasets ../shared/datasets]``

For each real file (Hacker News titles and URLs, Reddit titles), imported once into ``--cache``:

* **groups as found**: ``coordination(by=...)`` on the file as it is, with its estimated window;
* **false groups under the null**: the file with each author's posting times permuted among that
  author's own posts (``--nulls`` seeds), i.e. a world where nobody coordinates but everyone keeps
  what they posted and when they are active; every group found there is false. Reported per 10,000
  accounts (the distinct authors of the file); target <= 1;
* **planted recall**: ten campaigns, each of ten existing accounts of the file (picked at random among
  authors with 5 posts or more, disjoint) posting five new texts, every text by all ten within two
  minutes, at five random moments of the file's span; a campaign is found when one group holds all
  ten of its accounts. Run with existing accounts (at the window estimated with the campaigns in,
  and at the file's own window, which the planted texts move) and with ten new accounts per
  campaign that post nothing else (the hard case for a within-author null).

Then speed: synthetic corpora of ``--sizes`` records (one author per 10 records, 1% of posts
re-posting a popular text at random times, ten planted campaigns), written straight into the
records table, and ``coordination(by="text")`` timed end to end (defaults: estimated window,
20 null draws). Wall seconds on a shared machine include waiting for a core: CPU seconds say what
the run itself costs. The peak RSS is the process's (the synthetic corpus is built in it too).
"""
from __future__ import annotations

import argparse
import resource
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from text_table import table  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
FILES = {"hackernews": "hacker_news_2015_2016.csv", "reddit": "reddit_2019_science_technology.csv"}
BY = {"hackernews": ("text", "url"), "reddit": ("text",)}
CAMPAIGNS, ACCOUNTS, TEXTS, SPREAD = 10, 10, 5, 120


def _iso(seconds: int) -> str:
    return datetime.fromtimestamp(int(seconds), timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def real(name: str, datasets: Path, cache: Path):
    from corpuskit import open_corpus

    cache.mkdir(parents=True, exist_ok=True)
    path, ready = cache / f"{name}.db", cache / f"{name}.ready"
    if not ready.exists():
        path.unlink(missing_ok=True)
        corpus = open_corpus(path)
        corpus.import_file(datasets / FILES[name])
        corpus.close()
        ready.write_text("ok")
    return path


def copy(path: Path, to: Path):
    from corpuskit import open_corpus

    to.unlink(missing_ok=True)
    with open_corpus(path) as corpus:
        corpus.conn.execute("VACUUM INTO ?", (str(to),))
    return open_corpus(to)


def shuffle_within_authors(corpus, seed: int) -> None:
    rows = corpus.conn.execute("SELECT id, author, published_at FROM records ORDER BY author, published_at, id").fetchall()
    ids = np.array([r[0] for r in rows])
    authors = np.array([r[1] for r in rows], dtype=object)
    times = np.array([r[2] for r in rows], dtype=object)
    rng = np.random.default_rng(seed)
    order = np.lexsort((rng.random(len(ids)), authors))
    with corpus.transaction():
        corpus.conn.executemany("UPDATE records SET published_at = ? WHERE id = ?",
                                zip(times.tolist(), ids[order].tolist()))


def accounts(corpus) -> int:
    return corpus.conn.execute("SELECT count(DISTINCT author) FROM records WHERE author != ''").fetchone()[0]


def plant(corpus, seed: int, new_accounts: bool):
    """Ten campaigns; returns their account lists."""
    rng = np.random.default_rng(seed)
    lo, hi = (int(datetime.fromisoformat(t.replace("Z", "+00:00")).timestamp()) for t in corpus.conn.execute(
        "SELECT min(published_at), max(published_at) FROM records").fetchone())
    active = [a for (a,) in corpus.conn.execute(
        "SELECT author FROM records WHERE author NOT IN ('', '[deleted]') GROUP BY author "
        "HAVING count(*) >= 5 ORDER BY author")]
    picked = rng.choice(active, CAMPAIGNS * ACCOUNTS, replace=False).tolist()
    campaigns, rows = [], []
    for c in range(CAMPAIGNS):
        members = ([f"planted_{c}_{i}" for i in range(ACCOUNTS)] if new_accounts
                   else picked[c * ACCOUNTS:(c + 1) * ACCOUNTS])
        campaigns.append(members)
        for k in range(TEXTS):
            burst = int(rng.integers(lo, hi - SPREAD))
            text = f"planted campaign {c} message {k} everyone must read this before it is gone"
            for account in members:
                rows.append({"sourceId": f"planted-{c}-{k}-{account}", "author": account, "title": text,
                             "contentText": text, "url": f"https://campaign{c}.example/{k}",
                             "publishedAt": _iso(burst + int(rng.integers(0, SPREAD)))})
    source = corpus.conn.execute("SELECT source FROM records LIMIT 1").fetchone()[0]
    corpus.add_records(rows, source=source)
    return campaigns


def recall(groups, campaigns) -> tuple[int, int]:
    """(campaigns found whole, groups holding no planted account)."""
    sets = [set(g["author"]) for _, g in groups.groupby("group")]
    found = sum(any(set(c) <= s for s in sets) for c in campaigns)
    planted = set().union(*map(set, campaigns))
    return found, sum(not (s & planted) for s in sets)


def describe(groups, by, limit=3) -> list[str]:
    out = []
    for gid, g in list(groups.groupby("group"))[:limit]:
        items = {e["item"] for ev in g["evidence"] for e in ev}
        out.append(f"  [{by}] group {gid}: {len(g)} accounts ({', '.join(sorted(g['author'])[:6])}"
                   f"{', ...' if len(g) > 6 else ''}); {len(items)} items, e.g. {sorted(items)[:2]}")
    return out


def run_real(args):
    rows, notes = [], []
    for name in FILES:
        path = real(name, args.datasets, args.cache)
        for by in BY[name]:
            with copy(path, args.cache / "work.db") as corpus:
                n_accounts = accounts(corpus)
                t0 = time.perf_counter()
                found = corpus.coordination(by=by, seed=args.seed)
                took = time.perf_counter() - t0
                notes += describe(found, f"{name} {by}")
            false = []
            for s in range(args.nulls):
                with copy(path, args.cache / "work.db") as corpus:
                    shuffle_within_authors(corpus, args.seed + s)
                    false.append(corpus.coordination(by=by, seed=args.seed)["group"].nunique())
            recalls = []
            for new in (False, True):
                with copy(path, args.cache / "work.db") as corpus:
                    campaigns = plant(corpus, args.seed, new)
                    groups = corpus.coordination(by=by, seed=args.seed)
                    recalls.append((recall(groups, campaigns), groups.attrs["window"]))
                    if not new:        # the planted texts move the estimate: also at the file's own window
                        own = corpus.coordination(by=by, window=found.attrs["window"], seed=args.seed)
                        recalls.append((recall(own, campaigns), own.attrs["window"]))
            rows.append([name, by, n_accounts, found.attrs["window"], found["group"].nunique(),
                         f"{took:.1f}", f"{np.mean(false) * 10000 / n_accounts:.2f} ({sum(false)} in {args.nulls})",
                         f"{recalls[0][0][0]}/{CAMPAIGNS} (w {recalls[0][1]}s, other groups {recalls[0][0][1]})",
                         f"{recalls[1][0][0]}/{CAMPAIGNS} (w {recalls[1][1]}s, other groups {recalls[1][0][1]})",
                         f"{recalls[2][0][0]}/{CAMPAIGNS} (w {recalls[2][1]}s)"])
    print(table(rows, ["file", "by", "accounts", "window s", "groups found", "s",
                       "false groups / 10k accounts (null)", "planted recall, existing accounts",
                       "same, at the file's own window", "planted recall, new accounts"]))
    print("\n".join(notes))


def synthetic(path: Path, n: int, seed: int):
    from corpuskit import open_corpus

    campaigns = [[f"user{c * ACCOUNTS + a}" for a in range(ACCOUNTS)] for c in range(CAMPAIGNS)]
    ready = path.with_name(f"{path.stem}.seed{seed}.ready")
    if ready.exists():               # built by an earlier run with this seed: reuse it
        return open_corpus(path), campaigns
    path.unlink(missing_ok=True)
    corpus = open_corpus(path)
    rng = np.random.default_rng(seed)
    n_authors = max(n // 10, 20)
    span = 90 * 86400
    start = int(datetime(2024, 1, 1, tzinfo=timezone.utc).timestamp())
    authors = rng.integers(0, n_authors, n)
    times = start + rng.integers(0, span, n)
    words = np.array([f"w{i}" for i in range(5000)])
    popular = [f"popular text number {k} that many people like to share" for k in range(200)]
    rows = []
    for i in range(n):
        if rng.random() < 0.01:
            text = popular[int(rng.integers(0, len(popular)))]
        else:
            text = " ".join(words[rng.integers(0, len(words), 8)])
        rows.append((i, f"user{authors[i]}", text, _iso(times[i])))
    for c in range(CAMPAIGNS):
        for k in range(TEXTS):
            burst = start + int(rng.integers(0, span - SPREAD))
            for a in range(ACCOUNTS):
                rows.append((len(rows), f"user{c * ACCOUNTS + a}", f"campaign {c} text {k} read it now please",
                             _iso(burst + int(rng.integers(0, SPREAD)))))
    with corpus.transaction():
        corpus.conn.executemany(
            "INSERT INTO records(source, source_id, content_hash, content_text, author, published_at, captured_at) "
            "VALUES ('synthetic', ?, ?, ?, ?, ?, ?)", ((str(i), str(i), t, a, p, p) for i, a, t, p in rows))
    ready.write_text("ok")
    return corpus, campaigns


def run_speed(args):
    rows = []
    for n in args.sizes:
        corpus, campaigns = synthetic(args.cache / f"synthetic_{n}.db", n, args.seed)
        import corpuskit.networks  # noqa: F401 - imported before the clock starts, like a warm process
        t0, c0 = time.perf_counter(), time.process_time()
        groups = corpus.coordination(by="text", seed=args.seed)
        took, cpu = time.perf_counter() - t0, time.process_time() - c0
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        found, other = recall(groups, campaigns)
        rows.append([f"{n:,}", f"{took:.1f}", f"{cpu:.1f}", f"{peak:,.0f}", groups.attrs["window"],
                     groups.attrs["pairs_tested"], f"{found}/{CAMPAIGNS}", other])
        corpus.close()
    print(table(rows, ["records", "seconds", "CPU seconds", "peak RSS MB (process)", "window s", "pairs tested",
                       "planted found", "other groups"]))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cache", type=Path, default=Path("/tmp/bench_coordination"))
    p.add_argument("--datasets", type=Path, default=ROOT.parent / "shared" / "datasets")
    p.add_argument("--nulls", type=int, default=5)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--sizes", default="100000,1000000")
    p.add_argument("--skip-real", action="store_true")
    p.add_argument("--skip-speed", action="store_true")
    args = p.parse_args(argv)
    args.sizes = [int(x) for x in args.sizes.split(",") if x]
    args.cache.mkdir(parents=True, exist_ok=True)
    if not args.skip_real:
        run_real(args)
    if not args.skip_speed:
        run_speed(args)


if __name__ == "__main__":
    main()
