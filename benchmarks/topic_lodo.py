"""Leave one labelled set out for the topic pipeline's settings (``bench_topics.py --lodo``).

Every labelled short-text set is in turn left out. The topic settings (discovery method: NMF over the
term matrix or k-means over the embeddings, the embedding dimensions k-means reads, and the assigner's
cut-off) are chosen on the other sets only, with k = the number of gold classes, and the chosen
settings are scored on the left-out set (NMI and ARI of each record's primary topic against the gold
class; a record with no topic counts as one class of its own), beside plain LSA k-means
(:func:`corpuskit.enrich.topic_quality.lsa_baseline`) on the same records.

The rule (:func:`choose`): of the settings that lose to LSA k-means on none of the other sets (by more
than :data:`FLOOR_TOLERANCE`), the one with the largest mean NMI over them. The pipeline is run as ``enrich`` runs it: the
default embedder fitted on the set, :func:`~corpuskit.enrich.topics.discover_beats` with
``n_topics=k`` and no merging, then the discovered-topic assigner with the centroids discovery gives.

Then the LSA k-means floor (:mod:`corpuskit.enrich.topic_floor`, :func:`floor_table`): the shipped NMF
discovery and LSA k-means with the same k are each scored by every internal criterion; left one set out
at a time, the criterion that picks the better-by-NMI of the two on most of the other sets
(:func:`choose_criterion`) decides on the one left out, and the floored pipeline's NMI is printed beside
the pipeline's and LSA k-means's, with the worst and the mean.
"""
from __future__ import annotations

import csv
import json
import time
from pathlib import Path

import numpy as np

#: (method, dimensions) of discovery, and the assigner cut-offs tried with each
DISCOVERIES = (("nmf", None), ("kmeans", 200), ("kmeans", None), ("nmf-kmeans", 200), ("nmf-kmeans", None))
CUTOFFS = (0.0, 0.05, 0.1)
#: a setting more than this NMI below LSA k-means on a set (sampling noise) has lost to it there
FLOOR_TOLERANCE = 0.01
#: reference NMI figures at k = gold classes (issue 44)
REFERENCES = (("StackOverflow", "Rakib et al. 2020", 0.734), ("StackOverflow", "LSA k-means (issue 44)", 0.738),
              ("Tweet89", "LSA k-means (issue 44)", 0.837))


def config_name(method, dimensions, cutoff) -> str:
    dims = f"-{dimensions}d" if dimensions else "-512d" if method != "nmf" else ""
    return f"{method}{dims}@{cutoff:g}"


def _tsv(path: Path):
    with path.open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    return [r["text"] for r in rows], [r["label"] for r in rows], None


def _reddit(path: Path):
    with path.open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    return [r["title"] for r in rows], [r["subreddit"] for r in rows], [r["author"] for r in rows]


def _demo(records: int):
    """The demo's records that carry a planted beat: (texts, beats, authors)."""
    from corpuskit import open_corpus
    from corpuskit.demo import build_demo
    from corpuskit.enrich.base import record_text

    corpus = open_corpus(":memory:")
    try:
        build_demo(corpus, seed=7, records=records, days=60, run_stages=False, progress=False)
        rows = corpus.conn.execute("SELECT title, content_text, author, metadata FROM records ORDER BY id").fetchall()
    finally:
        corpus.close()
    out = [(record_text(r[0], r[1]), (json.loads(r[3]).get("demo") or {}).get("beat"), r[2]) for r in rows]
    out = [o for o in out if o[1]]
    return [o[0] for o in out], [str(o[1]) for o in out], [o[2] for o in out]


def labelled_sets(shared: Path, limit: int, seed: int = 0, demo_records: int = 4000) -> dict:
    """``{name: (texts, gold labels, authors or None)}``, each a seeded sample of at most ``limit`` records
    (sets whose file is absent are left out)."""
    loaders = {
        "searchsnippets": lambda: _tsv(shared / "clustering" / "clust_searchsnippets" / "data.tsv"),
        "biomedical": lambda: _tsv(shared / "clustering" / "clust_biomedical" / "data.tsv"),
        "reddit": lambda: _reddit(shared / "reddit_2019_science_technology.csv"),
        "demo": lambda: _demo(demo_records),
    }
    needs = {"searchsnippets": shared / "clustering" / "clust_searchsnippets" / "data.tsv",
             "biomedical": shared / "clustering" / "clust_biomedical" / "data.tsv",
             "reddit": shared / "reddit_2019_science_technology.csv"}
    sets = {}
    for name, load in loaders.items():
        if name in needs and not needs[name].exists():
            continue
        texts, gold, authors = load()
        if len(texts) > limit:
            keep = np.sort(np.random.default_rng(seed).choice(len(texts), limit, replace=False))
            texts, gold = [texts[i] for i in keep], [gold[i] for i in keep]
            authors = None if authors is None else [authors[i] for i in keep]
        sets[name] = (texts, gold, authors)
    return sets


def pipeline_labels(texts, k: int, authors=None, seed: int = 0) -> dict:
    """``{config name: primary topic per record}`` for every setting, run as ``enrich`` runs it."""
    from corpuskit.enrich.defaults import default_embedder
    from corpuskit.enrich.topics import DISCOVERED_ASSIGNMENT, BeatAssigner, discover_beats

    vectors = default_embedder(seed).fit(texts).transform(texts)
    out = {}
    for method, dims in DISCOVERIES:
        beats, centroids, _ = discover_beats(texts, vectors, n_topics=k, seed=seed, merge=False,
                                             method=method, dimensions=dims, authors=authors, floor=False)
        for cutoff in CUTOFFS:
            settings = dict(DISCOVERED_ASSIGNMENT, min_confidence=cutoff)
            assigner = BeatAssigner(**settings).fit(beats, [], [], None, centroids=centroids)
            picks = assigner.assign(texts, [None] * len(texts), vectors)
            out[config_name(method, dims, cutoff)] = np.array([p[0][0] if p else -1 for p in picks])
    return out


def floor_runs(texts, k: int, authors=None, seed: int = 0) -> dict:
    """The shipped discovery (NMF, :data:`~corpuskit.enrich.topics.GIVEN_K_ASSIGNMENT`) with its floor
    (:mod:`corpuskit.enrich.topic_floor`): ``{"nmf": labels, "lsa-kmeans": labels, "criteria": {name:
    [NMF's score, LSA k-means's]}, "seconds": the floor's}``, each labelling a record's primary topic as
    ``enrich`` assigns it."""
    from corpuskit.enrich.defaults import default_embedder
    from corpuskit.enrich.topic_floor import FLOOR_DIMENSIONS
    from corpuskit.enrich.topics import GIVEN_K_ASSIGNMENT, BeatAssigner, discover_beats

    vectors = default_embedder(seed).fit(texts).transform(texts)
    out = {}
    for name, method, dims in (("nmf", "nmf", None), ("lsa-kmeans", "kmeans", FLOOR_DIMENSIONS)):
        details: dict = {}
        beats, centroids, _ = discover_beats(texts, vectors, n_topics=k, seed=seed, merge=False, method=method,
                                             dimensions=dims, authors=authors, details=details, floor=False)
        assigner = BeatAssigner(**GIVEN_K_ASSIGNMENT).fit(beats, [], [], None, centroids=centroids)
        picks = assigner.assign(texts, [None] * len(texts), vectors)
        out[name] = np.array([p[0][0] if p else -1 for p in picks])
    details = {}
    discover_beats(texts, vectors, n_topics=k, seed=seed, merge=False, authors=authors, details=details)
    out["criteria"], out["seconds"] = details["floor"]["criteria"], details["floor"]["seconds"]
    return out


def choose_criterion(runs: dict, train: list) -> str:
    """The criterion that picks the better-by-NMI of NMF and LSA k-means on most of ``train`` (a pick
    within :data:`FLOOR_TOLERANCE` of the better counts as right); ties: the larger mean NMI of its
    picks, then the order of :data:`~corpuskit.enrich.topic_floor.DECIDERS`."""
    from corpuskit.enrich.topic_floor import DECIDERS as CRITERIA

    def picked(s, c):
        nmf, lsa = runs[s]["criteria"][c]
        return runs[s]["nmi"]["lsa-kmeans" if lsa > nmf else "nmf"]

    def right(c):
        return sum(picked(s, c) >= max(runs[s]["nmi"].values()) - FLOOR_TOLERANCE for s in train)

    def key(c):
        return right(c), round(float(np.mean([picked(s, c) for s in train])), 4)

    best = max(key(c) for c in CRITERIA)
    return next(c for c in CRITERIA if key(c) == best)


def floor_table(sets: dict, lsa: dict, seed: int = 0, out=print) -> dict:
    """The floor left one set out at a time: the criterion chosen on the others, the floored pipeline's
    NMI on the one left out beside the pipeline's, LSA k-means's (the floor as discovery runs it) and
    :func:`~corpuskit.enrich.topic_quality.lsa_baseline`'s."""
    from corpuskit.enrich.topic_floor import DECIDERS as CRITERIA
    from corpuskit.enrich.topic_floor import FLOOR_CRITERION

    runs = {}
    for name, (texts, gold, authors) in sets.items():
        r = floor_runs(texts, len(set(gold)), authors, seed)
        r["nmi"] = {m: scores(gold, r[m])[0] for m in ("nmf", "lsa-kmeans")}
        runs[name] = r
    names = list(runs)
    out("\nthe LSA k-means floor (k = gold classes): every internal criterion, NMF's score / LSA k-means's")
    out(f"{'criterion':<16}" + "".join(f"{n:>22}" for n in names))
    for c in CRITERIA:
        out(f"{c:<16}" + "".join(f"{runs[n]['criteria'][c][0]:>11.4g}{runs[n]['criteria'][c][1]:>11.4g}" for n in names))
    for c in CRITERIA:
        strict = sum((runs[n]["criteria"][c][1] > runs[n]["criteria"][c][0])
                     == (runs[n]["nmi"]["lsa-kmeans"] > runs[n]["nmi"]["nmf"]) for n in names)
        out(f"  {c}: picks the better by NMI on {strict} of {len(names)} sets")
    out(f"{'NMI':<16}" + "".join(f"{runs[n]['nmi']['nmf']:>11.3f}{runs[n]['nmi']['lsa-kmeans']:>11.3f}" for n in names))
    out(f"{'floor seconds':<16}" + "".join(f"{runs[n]['seconds']:>22.1f}" for n in names))
    out("\nleave one set out: the criterion chosen on the others decides on the one left out")
    out(f"{'left out':<16}{'criterion':<16}{'pipeline':>9}{'LSA k-m':>9}{'floored':>9}{'lsa_baseline':>13}{'used':>12}")
    result = {}
    for left in names:
        c = choose_criterion(runs, [n for n in names if n != left]) if len(names) > 1 else FLOOR_CRITERION
        nmf, lsa_score = runs[left]["criteria"][c]
        used = "lsa-kmeans" if lsa_score > nmf else "nmf"
        result[left] = (c, runs[left]["nmi"]["nmf"], runs[left]["nmi"]["lsa-kmeans"], runs[left]["nmi"][used],
                        lsa[left][0], used)
        out(f"{left:<16}{c:<16}{result[left][1]:>9.3f}{result[left][2]:>9.3f}{result[left][3]:>9.3f}"
            f"{result[left][4]:>13.3f}{used:>12}")
    for i, what in ((1, "pipeline"), (2, "LSA k-means (floor)"), (3, "floored pipeline"), (4, "lsa_baseline")):
        values = [r[i] for r in result.values()]
        worst = min(result, key=lambda s: result[s][i])
        out(f"{what:<22} worst {min(values):.3f} ({worst}), mean {np.mean(values):.3f}")
    final = choose_criterion(runs, names) if len(names) > 1 else FLOOR_CRITERION
    out(f"criterion chosen on every set: {final} (shipped: corpuskit.enrich.topic_floor.FLOOR_CRITERION = "
        f"{FLOOR_CRITERION})")
    return {"runs": {n: {"criteria": r["criteria"], "nmi": r["nmi"], "seconds": r["seconds"]} for n, r in runs.items()},
            "lodo": result, "final": final}


def scores(gold, labels) -> tuple[float, float]:
    from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score

    return float(normalized_mutual_info_score(gold, labels)), float(adjusted_rand_score(gold, labels))


def choose(table: dict, lsa: dict, train: list) -> str:
    """The setting with the largest mean NMI on ``train`` among those that lose to LSA k-means (by more
    than ``FLOOR_TOLERANCE``) on none of them; when every setting loses somewhere, the one with the
    largest worst margin. Ties: the order of the settings."""
    names = list(next(iter(table.values())))

    def worst(name):
        return min(table[s][name][0] - lsa[s][0] for s in train)

    def mean(name):
        return round(float(np.mean([table[s][name][0] for s in train])), 4)

    floor = [n for n in names if worst(n) >= -FLOOR_TOLERANCE]
    if floor:
        best = max(mean(n) for n in floor)
        return next(n for n in floor if mean(n) == best)
    best = max(round(worst(n), 4) for n in names)
    return next(n for n in names if round(worst(n), 4) == best)


def run(shared: Path, limit: int, seed: int = 0, out=print, floor_only: bool = False) -> dict:
    """Score every setting on every set, then leave each set out in turn; prints the tables (with
    ``floor_only``, only the floor's: :func:`floor_table`)."""
    from corpuskit.enrich.topic_quality import lsa_baseline

    sets = labelled_sets(shared, limit, seed)
    if floor_only:
        lsa = {name: scores(gold, lsa_baseline(texts, len(set(gold)), seed=seed)[0])
               for name, (texts, gold, _) in sets.items()}
        return {"floor": floor_table(sets, lsa, seed, out)}
    table, lsa, sizes = {}, {}, {}
    for name, (texts, gold, authors) in sets.items():
        k = len(set(gold))
        started = time.perf_counter()
        labels = pipeline_labels(texts, k, authors, seed)
        table[name] = {c: scores(gold, lab) for c, lab in labels.items()}
        lsa[name] = scores(gold, lsa_baseline(texts, k, seed=seed)[0])
        sizes[name] = (len(texts), k, time.perf_counter() - started)
    names = list(table)
    configs = list(next(iter(table.values())))
    out(f"\nevery setting on every set (NMI; records sampled to at most {limit:,}, k = gold classes):")
    out(f"{'setting':<18}" + "".join(f"{n:>16}" for n in names))
    for c in configs:
        out(f"{c:<18}" + "".join(f"{table[n][c][0]:>16.3f}" for n in names))
    out(f"{'LSA k-means':<18}" + "".join(f"{lsa[n][0]:>16.3f}" for n in names))
    out("\nleave one set out: settings chosen on the others, scored on the one left out")
    out(f"{'left out':<16}{'records':>8}{'k':>4}  {'chosen':<18}{'NMI':>7}{'ARI':>7}{'LSA NMI':>9}{'LSA ARI':>9}"
        f"{'margin':>8}")
    result = {}
    for left in names:
        chosen = choose(table, lsa, [n for n in names if n != left]) if len(names) > 1 else configs[0]
        nmi, ari = table[left][chosen]
        result[left] = (chosen, nmi, ari, *lsa[left])
        n, k, _ = sizes[left]
        out(f"{left:<16}{n:>8,}{k:>4}  {chosen:<18}{nmi:>7.3f}{ari:>7.3f}{lsa[left][0]:>9.3f}{lsa[left][1]:>9.3f}"
            f"{nmi - lsa[left][0]:>+8.3f}")
    nmis = [r[1] for r in result.values()]
    margins = [r[1] - r[3] for r in result.values()]
    worst = min(result, key=lambda s: result[s][1])
    out(f"worst left-out NMI {min(nmis):.3f} ({worst}); mean {np.mean(nmis):.3f}; "
        f"worst margin over LSA k-means {min(margins):+.3f}; mean LSA k-means NMI "
        f"{np.mean([r[3] for r in result.values()]):.3f}")
    final = choose(table, lsa, names) if len(names) > 1 else configs[0]
    out(f"chosen on every set (the pipeline's default): {final}")
    out("reference figures (held-out sets we do not have): "
        + "; ".join(f"{s} {who} {v:.3f}" for s, who, v in REFERENCES))
    floor = floor_table(sets, lsa, seed, out)
    return {"table": table, "lsa": lsa, "lodo": result, "final": final, "floor": floor}
