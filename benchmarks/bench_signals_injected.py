"""Benchmark: recall of injected events on real backgrounds, and false signals on the untouched ones.

Usage: ``python benchmarks/bench_signals_injected.py [--trials 40] [--seed 18] [--cache /tmp/h18]
[--datasets ../shared/datasets] [--sentiment model|vader]``

First: the leave-one-file-out choice of the corpus-stage settings, the
materiality floor (``FLOOR_FORM`` and ``FLOOR_SCALE``) and the weekly multiplier over the three backgrounds (see
``signals_lofo.py``): for each background, the setting chosen on the other two and
its figures there, beside the setting chosen on all three (in-sample, the shipped
defaults) and the figures at the defaults the run uses.

Backgrounds: the demo corpus without its planted events (``DEMO``) and the
real Hacker News and Reddit files in ``../shared/datasets``,
each imported (or built) and enriched once into a corpus cached under ``--cache`` (built
on the first run; later runs reuse it), with the sentiment scorer ``--sentiment``
(default: the default scorer; each scorer has its own cache folder, ``--cache``
with ``-vader`` appended for VADER).

Injection works on the daily series the detectors read
(:func:`~corpuskit.analysis.signals.series.load_series`), so each trial
reruns the stages' own detectors (the same code as ``analyse``) on the real
background plus one event, without re-enriching:

* volume surge ``k``x: a topic's count on a seeded random day becomes ``k``
  times its mean over the 21 days before (at least ``k`` records; the extra
  records get the topic's usual mean sentiment and spread over its sources in
  their usual shares). On a quiet topic (0.5 a day) "5x" adds two or three
  records, which no reader would call a surge, so each size is also run as
  "``k``x, >= 10 extra": ``k`` times the baseline and at least 10 records more
  than it (the property the count model's test asserts: a surge of at least
  4x and 10 extra records fires at every baseline). The 5x target is read on
  that row;
* sentiment shift ``delta``: every record of a topic on that day moves by
  ``delta`` (the day's sum moves by ``delta`` times its records; per-record
  scores are not kept in the series, so nothing is clipped), toward the side
  of the topic's 21-day baseline mean with more room (decided from the
  baseline, not from the day itself, so the day's own noise is as likely to
  help as to hurt). Also run *sustained*: the same shift on three days in a
  row, found if any of the three days fires (a change of tone that lasts,
  pooled by the detector's two- and three-day after windows);
* new entity at ``m`` mentions a day: a name never seen before, mentioned by
  ``m`` records of a topic on that day;
* new entity at 10 mentions in a week: a name never seen before, mentioned
  10 times over seven days (at least once a day, the rest at random), found
  when the weekly volume scale or novelty fires on any of the seven days
  (target: recall >= 0.9), broken down by the topic's volume.

The sentiment-shift target is stated in the detector's own standard errors:
recall >= 0.9 for shifts of at least ``DETECTABLE_SE`` (4) standard errors,
read on the every-cell table at ``OPEN_SIGMA``, in the test's own units
(:func:`test_scale`: the model's ``t`` is read against Student's t with
Satterthwaite's degrees of freedom, so a shift of 4 model standard errors over
a short or wandering baseline scores about 3.6 to 4; the table also shows the
cells sized in model standard errors, and both pooled over every row).

An event is detected when the detector of its kind scores ``OPEN_SIGMA`` or
more on that day for that topic (or entity). Recall is also broken down by the
topic's baseline (surges: below or above 2 records a day) and, for shifts, by
the shift's size in the detector's own standard errors (the variance of the
after-minus-before mean the mean-shift model computes on the untouched series:
within-day spread over the day's records, day-to-day wander, the baseline's own
error), beside the recall an ideal test that knew that variance would have at
3 sigma (``P(|z + N(0,1)| >= 3)``): where the statistics allow a detection and
where they do not. Days are drawn from day 28 on
(a full baseline); topics for surges and new entities from those with at
least one record a day on average, for sentiment shifts from those with at
least ``min_records`` (8) records on the day (below that the sentiment
detector does not test a day at all: the corpus edge of that kind).

Sentiment shifts are also injected into every candidate (topic, day) of each
background, not a sample (each scored by the sentiment detector on that topic's
series alone): recall, the ideal test's recall, and the share of cells the
detector could not test at all (too few baseline days).

False signals: the full replay (open/resolve rule, severity) on the
untouched background; every high and medium signal counts, reported per
topic per 30 days (no events are labelled in these files, so every one counts
as false, which overstates the false rate by whatever real events they hold).
"""
from __future__ import annotations

import argparse
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from text_table import table  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DATASETS = ROOT.parent / "shared" / "datasets"
FILES = {"hackernews": DATASETS / "hacker_news_2015_2016.csv",
         "reddit": DATASETS / "reddit_2019_science_technology.csv"}
SURGES = (3.0, 5.0, 10.0)
SHIFTS = (0.2, 0.4)
NEW_ENTITY = (5, 10, 20)


#: The demo background: the demo corpus without its planted events (20,000 records over 60 days).
DEMO = {"seed": 7, "records": 20000, "days": 60}


def background(name: str, cache: Path, sentiment: str | None = None):
    from corpuskit import open_corpus

    cache.mkdir(parents=True, exist_ok=True)
    path = cache / f"{name}.db"
    ready = cache / f"{name}.ready"
    if not ready.exists():
        path.unlink(missing_ok=True)
        corpus = open_corpus(path)
        if name == "demo":
            from corpuskit.demo import build_demo

            build_demo(corpus, events=False, run_stages=False, progress=False, **DEMO)
        else:
            corpus.import_file(FILES[name])
        corpus.enrich(progress=True, scorer=sentiment)
        corpus.close()
        ready.write_text("ok")
    return open_corpus(path)


def copy_series(s):
    from copy import copy

    out = copy(s)
    for field in ("topic_count", "topic_sum", "topic_sq", "ts_count", "ts_sum", "ts_sq", "source_count",
                  "entity_count", "entity_topic", "topic_hour_count"):
        setattr(out, field, getattr(s, field).copy())
    out.entities = list(s.entities)
    out.entity_info = dict(s.entity_info)
    out.terms = []
    return out


def inject_surge(s, t, d, k, min_extra=0):
    base = s.topic_count[t, max(0, d - 21):d].mean()
    target = int(round(max(k * max(base, 1.0), base + min_extra)))
    extra = max(target - int(s.topic_count[t, d]), 0)
    mean = s.topic_sum[t, :d].sum() / max(s.topic_count[t, :d].sum(), 1)
    shares = s.ts_count[t, :, :d].sum(axis=1)
    shares = shares / shares.sum() if shares.sum() else np.full(len(s.sources), 1 / len(s.sources))
    add = np.floor(shares * extra)
    add[np.argmax(shares)] += extra - add.sum()
    s.topic_count[t, d] += extra
    s.topic_sum[t, d] += extra * mean
    s.topic_sq[t, d] += extra * mean ** 2
    s.ts_count[t, :, d] += add
    s.ts_sum[t, :, d] += add * mean
    s.ts_sq[t, :, d] += add * mean ** 2
    s.source_count[:, d] += add
    return extra


def inject_shift(s, t, d, delta, sign=None):
    """Move every scored record of topic ``t`` on day ``d`` by ``delta`` (records without a sentiment
    score, ``topic_count - topic_scored``, are not in the sums and do not move)."""
    n = s.topic_scored[t, d]
    if sign is None:
        base_n = s.topic_scored[t, max(0, d - 21):d].sum()
        mean = s.topic_sum[t, max(0, d - 21):d].sum() / max(base_n, 1)
        sign = -1.0 if mean > 0 else 1.0
    shift = sign * delta
    for total, sq, count in ((s.topic_sum[t], s.topic_sq[t], n),):
        old_sum = total[d]
        total[d] = old_sum + shift * count
        sq[d] = sq[d] + 2 * shift * old_sum + shift ** 2 * count
    s.ts_sq[t, :, d] += 2 * shift * s.ts_sum[t, :, d] + shift ** 2 * s.ts_scored[t, :, d]
    s.ts_sum[t, :, d] += shift * s.ts_scored[t, :, d]


def inject_entity(s, t, d, m):
    new_id = max(s.entities + [0]) + 1
    row = np.zeros((1, len(s.days)))
    row[0, d] = m
    s.entities.append(new_id)
    s.entity_info[new_id] = ("Injected Name", "injected-name", "org")
    s.entity_count = np.vstack([s.entity_count, row])
    topic = np.full((1, len(s.days)), -1, dtype=int)
    topic[0, d] = t
    s.entity_topic = np.vstack([s.entity_topic, topic])
    return "entity:injected-name"


def entity_week_series(s, t, d, total: int, rng):
    """A copy of ``s`` whose only entity is a new name with ``total`` mentions spread over the seven
    days from ``d`` (each day at least one while any are left, the rest at random), in topic ``t``."""
    from copy import copy

    days = np.zeros(7)
    days[:min(total, 7)] = 1
    np.add.at(days, rng.integers(0, 7, max(total - 7, 0)), 1)
    out = copy(s)
    row = np.zeros((1, len(s.days)))
    row[0, d:d + 7] = days[:len(s.days) - d]
    out.entities, out.entity_info = [1], {1: ("Injected Name", "injected-name", "org")}
    out.entity_count = row
    out.entity_topic = np.where(row > 0, t, -1)
    out.terms = []
    return out


def detected(detectors, s, kind, subject, d) -> bool:
    """Whether the detector of ``kind`` scores ``OPEN_SIGMA`` for ``subject`` on day ``d`` (or any of a list)."""
    from corpuskit.stats.thresholds import OPEN_SIGMA

    days = list(d) if isinstance(d, (list, range)) else [d]
    for det in detectors:
        if det.kind != kind:
            continue
        for track in det.tracks(s):
            if track.subject == subject and any(np.isfinite(track.sigma[x]) and track.sigma[x] >= OPEN_SIGMA
                                                for x in days):
                return True
    return False


SE_BUCKETS = (3.0, 4.0, 5.0)
# the sentiment target, in the detector's own standard errors: recall >= 0.9 for shifts of at least
# 4 s.e. (a test that knew the variance finds 90% at 3 sigma from 3 + z_0.9 = 4.28 s.e.)
DETECTABLE_SE = 4.0


def se_bucket(z: float) -> str:
    """The shift's size in standard errors, as a bucket label."""
    if not np.isfinite(z):
        return "s.e. unknown"
    lo = max([b for b in SE_BUCKETS if z >= b], default=None)
    hi = min([b for b in SE_BUCKETS if z < b], default=None)
    if lo is None:
        return f"shift < {hi:g} s.e."
    if hi is None:
        return f"shift >= {lo:g} s.e."
    return f"shift {lo:g}-{hi:g} s.e."


def ideal_recall(z: float) -> float:
    """Recall of a test that knew the variance exactly, at ``OPEN_SIGMA``: ``P(|z + N(0,1)| >= 3)``."""
    from scipy.stats import norm

    from corpuskit.stats.thresholds import OPEN_SIGMA

    if not np.isfinite(z):
        return float("nan")
    return float(norm.sf(OPEN_SIGMA - z) + norm.cdf(-OPEN_SIGMA - z))


def trials(corpus, n_trials: int, seed: int) -> list:
    from corpuskit.analysis.signals.novelty import NoveltyDetector
    from corpuskit.analysis.signals.sentiment import SentimentShiftDetector
    from corpuskit.analysis.signals.series import load_series
    from corpuskit.analysis.signals.volume import VolumeSpikeDetector

    series = load_series(corpus)
    rng = np.random.default_rng(seed)
    n_days = len(series.days)
    days = np.arange(28, n_days)
    busy = [t for t in range(len(series.topics)) if series.topic_count[t].mean() >= 1.0]
    out = []
    volume, sentiment, novelty = [VolumeSpikeDetector(entities=False)], [SentimentShiftDetector()], \
        [NoveltyDetector(terms=False)]
    week_volume = [VolumeSpikeDetector()]
    # each shift's size in the detector's own standard errors: the variance of the
    # after-minus-before mean that the mean-shift model computes on the untouched series
    # (within-day s2, between-day tau2, the baseline's own error), for the after length
    # the injection spans
    scored = series.topic_scored
    _, _, parts = sentiment[0].score(scored, series.topic_sum, series.topic_sq)
    one_day = [(t, d) for t in range(len(series.topics)) for d in days if scored[t, d] >= 8]
    three_days = [(t, d) for t in range(len(series.topics)) for d in days[:-2]
                  if scored[t, d:d + 3].sum() >= 8 and scored[t, d] >= 1]
    for _ in range(n_trials):
        for k in SURGES:
            t, d = int(rng.choice(busy)), int(rng.choice(days))
            base = series.topic_count[t, d - 21:d].mean()
            subject = f"topic:{series.topic_names[series.topics[t]]}"
            where = "baseline < 2/day" if base < 2 else "baseline >= 2/day"
            for label, min_extra in ((f"{k:g}x", 0), (f"{k:g}x, >= 10 extra", 10)):
                s = copy_series(series)
                inject_surge(s, t, d, k, min_extra)
                out.append(("volume surge", label, where, detected(volume, s, "volume_spike", subject, d)))
        for delta in SHIFTS:
            for how, cand, span in (("one day", one_day, 1), ("3 days", three_days, 3)):
                if not cand:
                    continue
                t, d = cand[int(rng.integers(len(cand)))]
                s = copy_series(series)
                sign = None
                for day in range(d, d + span):
                    if scored[t, day] > 0:
                        base_n = scored[t, max(0, d - 21):d].sum()
                        mean = series.topic_sum[t, max(0, d - 21):d].sum() / max(base_n, 1)
                        sign = -1.0 if mean > 0 else 1.0
                        inject_shift(s, t, day, delta, sign)
                subject = f"topic:{s.topic_names[s.topics[t]]}"
                z = delta / np.sqrt(parts[span]["var_shift"][t, d + span - 1])
                hit = detected(sentiment, s, "sentiment_shift", subject, range(d, d + span))
                out.append(("sentiment shift", f"{delta:g}, {how}", se_bucket(z), hit, ideal_recall(z)))
        # a new name at 10 mentions in a week from zero: found by novelty (a day of it) or by the
        # weekly volume scale, whichever the run's detectors raise first
        t, d = int(rng.choice(busy)), int(rng.choice(days[:-7]))
        s = entity_week_series(series, t, d, 10, rng)
        hit = (detected(week_volume, s, "volume_spike", "entity:injected-name", range(d, d + 7))
               or detected(novelty, s, "novelty", "entity:injected-name", range(d, d + 7)))
        thin = "thin topic (< 2/day)" if series.topic_count[t, max(0, d - 21):d].mean() < 2 else "topic >= 2/day"
        out.append(("new entity", "10/week", thin, hit))
        for m in NEW_ENTITY:
            t, d = int(rng.choice(busy)), int(rng.choice(days))
            s = copy_series(series)
            subject = inject_entity(s, t, d, m)
            out.append(("new entity", f"{m}/day", "", detected(novelty, s, "novelty", subject, d)))
    return out


def test_scale(z: float, df: float) -> float:
    """A shift of ``z`` standard errors in the test's own units: the sigma the mean-shift model
    gives it without noise (``t`` read against Student's t with ``df`` degrees of freedom)."""
    from scipy.stats import norm
    from scipy.stats import t as student_t

    if not (np.isfinite(z) and np.isfinite(df)):
        return float("nan")
    return float(norm.isf(np.clip(student_t.sf(z, df), 1e-300, 1.0)))


def every_cell(corpus) -> tuple[list, list]:
    """Sentiment shifts injected into every candidate (topic, day), not a sample: recall, the
    ideal test's recall and the share of cells the detector cannot test (too few baseline days).

    Counts are the records with a sentiment score (``topic_scored``, what the detector reads).
    Each cell's shift is sized two ways: in the model's standard errors (``delta / sqrt(var)``) and
    in the test's own units (that figure read through Student's t with the model's degrees of
    freedom, :func:`test_scale`: a 4 s.e. shift with a 6-day baseline scores below 4). The second
    value lists ``(row, in test units, hit)`` per cell, for the pooled figures."""
    from corpuskit.analysis.signals.sentiment import SentimentShiftDetector
    from corpuskit.analysis.signals.series import load_series
    from corpuskit.stats.thresholds import OPEN_SIGMA

    series = load_series(corpus)
    det = SentimentShiftDetector()
    count = series.topic_scored
    _, _, parts = det.score(count, series.topic_sum, series.topic_sq)
    days = np.arange(28, len(series.days))
    rows, cells_out = [], []
    for delta in SHIFTS:
        for how, span in (("one day", 1), ("3 days", 3)):
            cells = [(t, d) for t in range(len(series.topics)) for d in days[:len(days) - span + 1]
                     if count[t, d:d + span].sum() >= 8 and count[t, d] >= (8 if span == 1 else 1)]
            hits, ideal, untested, big, big_test, ideal_test = [], [], [], [], [], []
            for t, d in cells:
                base_n = count[t, max(0, d - 21):d].sum()
                sign = -1.0 if series.topic_sum[t, max(0, d - 21):d].sum() / max(base_n, 1) > 0 else 1.0
                c, total, sq = (count[t:t + 1].copy(), series.topic_sum[t:t + 1].copy(),
                                series.topic_sq[t:t + 1].copy())
                for day in range(d, d + span):
                    sq[0, day] += 2 * sign * delta * total[0, day] + delta ** 2 * c[0, day]
                    total[0, day] += sign * delta * c[0, day]
                sigma, _, after = det.score(c, total, sq)
                hits.append(bool(np.nanmax(np.r_[sigma[0, d:d + span], -np.inf]) >= OPEN_SIGMA))
                z = delta / np.sqrt(parts[span]["var_shift"][t, d + span - 1])
                zt = test_scale(z, parts[span]["df"][t, d + span - 1])
                ideal.append(ideal_recall(z))
                ideal_test.append(ideal_recall(zt))
                big.append(bool(z >= DETECTABLE_SE))
                big_test.append(bool(zt >= DETECTABLE_SE))
                untested.append(not np.isfinite(after[span]["z"][0, d + span - 1]))
                cells_out.append((f"{delta:g}, {how}", z, zt, hits[-1]))
            hit = np.asarray(hits, dtype=bool)
            large, large_t = np.asarray(big, dtype=bool), np.asarray(big_test, dtype=bool)
            rows.append((f"{delta:g}, {how}", len(cells), f"{np.mean(hits):.2f}", _ideal(ideal),
                         f"{np.mean(untested):.2f}", int(large.sum()),
                         f"{np.mean(hit[large]):.2f}" if large.any() else "",
                         _ideal(np.asarray(ideal)[large]) if large.any() else "",
                         int(large_t.sum()), f"{np.mean(hit[large_t]):.2f}" if large_t.any() else "",
                         _ideal(np.asarray(ideal_test)[large_t]) if large_t.any() else ""))
    return rows, cells_out


def false_signals(corpus) -> dict:
    from corpuskit.analysis.signals import detect_signals

    with corpus.transaction():
        corpus.conn.execute("DELETE FROM signal_evidence")
        corpus.conn.execute("DELETE FROM signal_events")
        corpus.conn.execute("DELETE FROM signals")
    corpus.set_meta("signals_replay_state", None)
    detect_signals(corpus, run_id="bench-injected", incremental=False)
    conn = corpus.conn
    n_days = conn.execute("SELECT julianday(max(day)) - julianday(min(day)) + 1 FROM records").fetchone()[0]
    n_topics = conn.execute("SELECT count(*) FROM topics").fetchone()[0]
    sev = Counter(r[0] for r in conn.execute("SELECT severity FROM signals"))
    per_topic = defaultdict(Counter)
    for topic, severity in conn.execute("SELECT coalesce(t.name, '-'), s.severity FROM signals s "
                                        "LEFT JOIN topics t ON t.id = s.topic_id"):
        per_topic[topic][severity] += 1
    worst_high = max((c["high"] for c in per_topic.values()), default=0) * 30 / n_days
    return {"days": int(n_days), "topics": n_topics, "bySeverity": dict(sev),
            "highPerTopicPer30": round(sev["high"] * 30 / n_days / max(n_topics, 1), 2),
            "mediumPerTopicPer30": round(sev["medium"] * 30 / n_days / max(n_topics, 1), 2),
            "worstTopicHighPer30": round(worst_high, 2)}


def _ideal(values) -> str:
    values = [v for v in values if np.isfinite(v)]
    return f"{np.mean(values):.2f}" if values else ""


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=40)
    parser.add_argument("--seed", type=int, default=18)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/h18"),
                        help="folder of the enriched backgrounds (built on the first run, reused after)")
    parser.add_argument("--datasets", type=Path, default=DATASETS,
                        help="folder holding the Hacker News and Reddit CSVs (default ../shared/datasets)")
    parser.add_argument("--sentiment", choices=("model", "vader"), default=None,
                        help="sentiment scorer of the backgrounds (default: the default scorer)")
    args = parser.parse_args(argv)
    if args.sentiment == "vader":
        args.cache = args.cache.with_name(args.cache.name + "-vader")
    FILES.update({name: args.datasets / path.name for name, path in FILES.items()})
    missing = [str(p) for p in FILES.values() if not p.exists()]
    if missing:
        print(f"not present: {', '.join(missing)}; nothing to run")
        return 0
    rows, false_rows, cell_rows, pooled = [], [], [], []
    targets = {("volume surge", "5x, >= 10 extra"): 0.9, ("new entity", "10/day"): 0.9,
               ("new entity", "10/week"): 0.9}
    ok = True
    import signals_lofo

    t0 = time.perf_counter()
    scores = {}
    for name in ("demo", *FILES):
        corpus = background(name, args.cache, args.sentiment)
        scores[name] = signals_lofo.score_file(signals_lofo.load_background_series(corpus), args.trials,
                                               args.seed)
        corpus.close()
    form, per_form = signals_lofo.choose_form(scores)
    folds, chosen = per_form[form]
    every_form, _ = signals_lofo.lofo(scores)
    current = signals_lofo.current_setting()
    print(f"The materiality floor (form and scale) and the weekly multiplier, leave-one-file-out over "
          f"{len(scores)} backgrounds ({len(signals_lofo.GRID)} candidates, {args.trials} seeded trials per row; "
          f"{time.perf_counter() - t0:.0f} s)\n")
    for name, (f_folds, f_chosen) in per_form.items():
        met = sum(signals_lofo.meets(r) for _, _, r in f_folds)
        print(f"form {name}: targets met on {met} of {len(f_folds)} held-out files (chosen without each: "
              + ", ".join(f"{h} {s[1]:g}/{s[2]:g}x" for h, s, _ in f_folds)
              + f"); on every file: {f_chosen[1]:g}, {f_chosen[2]:g}x")
    print(f"form chosen: {form}\n")
    print(table(signals_lofo.rows(folds, chosen, scores, current, every_form), signals_lofo.HEADERS))
    held_ok = sum(signals_lofo.meets(r) for _, _, r in folds)
    print(f"\nLOFO: targets met on {held_ok} of {len(folds)} held-out files; in-sample (chosen on all "
          f"three): floor {chosen[0]} {chosen[1]:g}, week multiplier {chosen[2]:g}; the run's defaults: "
          f"{current[0]} {current[1]:g}, {current[2]:g}" + ("" if chosen == current else " (NOT the in-sample choice)"))
    ok &= chosen == current and held_ok == len(folds)
    print()
    for name in ("demo", *FILES):
        t0 = time.perf_counter()
        corpus = background(name, args.cache, args.sentiment)
        results = trials(corpus, args.trials, args.seed)
        by, by_bucket, ideal = defaultdict(list), defaultdict(list), defaultdict(list)
        for kind, size, bucket, hit, *best in results:
            by[(kind, size)].append(hit)
            ideal[(kind, size)].extend(best)
            if bucket:
                by_bucket[(kind, size, bucket)].append(hit)
                ideal[(kind, size, bucket)].extend(best)
        for (kind, size), hits in by.items():
            recall = float(np.mean(hits))
            target = targets.get((kind, size))
            if target is not None and recall < target:
                ok = False
            rows.append((name, kind, size, "all", len(hits), f"{recall:.2f}", _ideal(ideal[(kind, size)]),
                         f">= {target}" if target else ""))
            for (k2, s2, bucket), bh in sorted(by_bucket.items()):
                if (k2, s2) == (kind, size):
                    rows.append((name, kind, size, bucket, len(bh), f"{np.mean(bh):.2f}",
                                 _ideal(ideal[(kind, size, bucket)]), ""))
        cells, per_cell = every_cell(corpus)
        cell_rows += [(name, *r) for r in cells]
        pooled += [(name, *c) for c in per_cell]
        if any(r[9] and float(r[9]) < 0.9 for r in cells):
            ok = False                      # recall >= 0.9 for shifts of at least DETECTABLE_SE s.e. (test units)
        fs = false_signals(corpus)
        false_rows.append((name, fs["days"], fs["topics"], fs["bySeverity"], fs["highPerTopicPer30"],
                           fs["mediumPerTopicPer30"], fs["worstTopicHighPer30"]))
        if fs["highPerTopicPer30"] > 1:
            ok = False
        corpus.close()
        print(f"{name}: {len(results)} injections and a full replay in {time.perf_counter() - t0:.0f} s",
              flush=True)
    print(f"\nrecall of injected events ({args.trials} seeded trials per size, seed {args.seed})\n")
    print(table(rows, ["background", "event", "size", "where", "trials", "recall", "ideal", "target"]))
    print("\nideal: the mean recall a test that knew each shift's variance exactly would have at 3 sigma, "
          "P(|z + N(0,1)| >= 3) for a shift of z standard errors (the detector's own variance on the "
          "untouched series); a shift below 3 s.e. is found less than half the time by any such test")
    print("\nsentiment shifts injected into every candidate (topic, day) of the background, not a sample "
          "(untested: the detector has too few baseline days there)\n")
    print(table(cell_rows, ["background", "shift", "cells", "recall", "ideal", "untested",
                            f"cells >= {DETECTABLE_SE:g} s.e.", "recall there", "ideal there",
                            f"cells >= {DETECTABLE_SE:g} (test units)", "recall there (target >= 0.9)",
                            "ideal there"]))
    pool_rows = []
    for label, which in (("model s.e.", 2), ("test units", 3)):
        for files in (("hackernews",), ("reddit",), ("demo",), ("demo", "hackernews", "reddit")):
            sel = [c for c in pooled if c[0] in files and c[which] >= DETECTABLE_SE]
            if sel:
                pool_rows.append((label, "+".join(files), len(sel), f"{np.mean([c[4] for c in sel]):.3f}",
                                  _ideal([ideal_recall(c[which]) for c in sel])))
    print(f"\npooled over every row: cells of at least {DETECTABLE_SE:g} standard errors\n")
    print(table(pool_rows, ["sized in", "backgrounds", "cells", "recall", "ideal"]))
    print(f"the sentiment target is stated in standard errors: recall >= 0.9 for shifts of at least "
          f"{DETECTABLE_SE:g} s.e. at OPEN_SIGMA (4.28 s.e.: where a test that knew the variance finds 90%), "
          f"read in the test's units (t through Student's t with the model's degrees of freedom)")
    print("\nsignals on the untouched real backgrounds (every high/medium counted as false)\n")
    print(table(false_rows, ["background", "days", "topics", "by severity", "high/topic/30d",
                             "medium/topic/30d", "worst topic high/30d"]))
    print("\ntarget <= 1 high per topic per 30 days; machine shared with other jobs")
    print("targets met" if ok else "a target was missed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
