"""The standard figures of a corpus, drawn with matplotlib (``pip install 'corpuskit[notebooks]'``).

Each function takes a :class:`~corpuskit.Corpus` (or, where it says so, a
DataFrame from one of its read methods), draws on ``ax`` when given (else on
a new figure) and returns the matplotlib ``Axes``, so a figure can be
composed, restyled or saved by the caller. None selects a backend: in
Jupyter the figure shows inline like any other.

* :func:`volume`: records per day by source or by topic, signals marked, with exact Poisson bands;
* :func:`sentiment`: mean sentiment per day with a Student's t band;
* :func:`topic_heatmap`: topics by day, records (or shares) per cell, cells not told from the topic's average hatched;
* :func:`entity_trend`: one entity's mentions per day with Poisson error bars, its signals marked;
* :func:`cluster_map`: a topic's records on the clustering's 2-D map;
* :func:`topics_over_time`: topics' shares per period with Wilson bands, the top topics' terms in their peak period;
* :func:`attention`: subcorpora's share of all records per period, with interval bands;
* :func:`keyness`: a diverging bar chart of Log Ratio for the most key terms of two subcorpora;
* :func:`confusion`: a validation's confusion matrix (gold against corpuskit).

Times are UTC days; signals are drawn as triangles on the day they were
detected, coloured by severity (:data:`SEVERITY_COLOURS`). Every figure of a
count, share or mean draws its interval at ``level`` (0.95 by default; ``None``
draws none), computed as ``docs/uncertainty.md`` states.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from corpuskit.errors import MissingDependencyError, ValidationError
from corpuskit.stats.intervals import mean_interval_from_moments, poisson_interval, wilson_interval

SEVERITY_COLOURS = {"high": "#c0392b", "medium": "#e67e22", "low": "#7f8c8d"}
INSTALL_HINT = "pip install 'corpuskit[notebooks]'"


def _pyplot():
    try:
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - exercised by the missing-matplotlib test
        raise MissingDependencyError(
            f"corpuskit.plot needs matplotlib, which is not installed: {INSTALL_HINT}") from None
    return plt


def _axes(ax, figsize):
    if ax is not None:
        return ax
    _, ax = _pyplot().subplots(figsize=figsize)
    return ax


def _naive(values) -> pd.Series:
    """UTC timestamps as naive datetimes (matplotlib's date axis wants one timezone)."""
    s = pd.to_datetime(pd.Series(values), utc=True)
    return s.dt.tz_localize(None)


def _date_ticks(ax) -> None:
    """Slanted date labels on this axes only (``Figure.autofmt_xdate`` hides other rows' labels)."""
    ax.tick_params(axis="x", labelrotation=30)


def _records(data, since=None, until=None) -> pd.DataFrame:
    if isinstance(data, pd.DataFrame):
        frame = data
    elif hasattr(data, "records"):
        frame = data.records(since=since, until=until)
    else:
        raise ValidationError(f"expected a Corpus or a records DataFrame, not {type(data).__name__}")
    if "publishedAt" not in frame.columns:
        raise ValidationError("a records DataFrame needs a publishedAt column")
    return frame


def _scorer_label(data, frame: pd.DataFrame) -> str:
    """The sentiment scorer the run used, for an axis label: from the corpus's last enrich run, or the
    ``sentimentScorer`` a records DataFrame carries in ``attrs`` (``Corpus.records`` sets it)."""
    from corpuskit.enrich.instruments import label
    from corpuskit.store.runs import enrich_settings

    if hasattr(data, "conn"):
        name = enrich_settings(data.conn).get("scorer")
    else:
        name = frame.attrs.get("sentimentScorer")
    return label("scorer", name) if name else "scorer not stated"


def _signal_frame(data, signals, **filters) -> pd.DataFrame | None:
    if signals is None or signals is False:
        return None
    if isinstance(signals, pd.DataFrame):
        return signals
    if signals is True and hasattr(data, "signals"):
        return data.signals(**filters)
    return None


def _mark_signals(ax, sig: pd.DataFrame, heights: dict, default_height: float, label_key=None) -> int:
    """Triangles at each signal's detection day; ``heights`` maps (key, day) to the series value."""
    drawn = set()
    n = 0
    for row in sig.itertuples(index=False):
        day = pd.Timestamp(row.detectedAt).tz_convert("UTC").tz_localize(None).normalize()
        key = getattr(row, label_key) if label_key else None
        y = heights.get((key, day), default_height)
        colour = SEVERITY_COLOURS.get(row.severity, "#333333")
        label = f"{row.severity} signal" if row.severity not in drawn else None
        drawn.add(row.severity)
        ax.scatter([day], [y], marker="v", s=70, color=colour, edgecolor="black", linewidth=0.5,
                   zorder=5, label=label)
        n += 1
    return n


def _band_label(level) -> str:
    return f"{level:.0%} interval"


def _count_band(ax, days, counts, level, colour, label=None) -> None:
    """A Poisson band around daily ``counts`` (``fill_between``)."""
    low, high = poisson_interval(np.asarray(counts, dtype=float), level)
    ax.fill_between(days, low, high, color=colour, alpha=0.18, linewidth=0, label=label)


def volume(data, by: str = "source", topics=None, signals=True, since=None, until=None,
           stacked: bool | None = None, level: float | None = 0.95, ax=None, figsize=(11, 3.5)):
    """Records per UTC day by source or by (primary) topic, with signals marked.

    ``data`` is a Corpus or a :meth:`~corpuskit.Corpus.records` DataFrame.
    ``by`` is ``"source"`` (stacked areas) or ``"topic"`` (one line per
    topic; ``topics`` keeps some). ``signals``: True draws the corpus's
    signals (of those topics), a DataFrame from :meth:`Corpus.signals` draws
    those, None/False none. By topic a signal sits on its topic's line, by
    source on the day's total. ``level``: the exact Poisson band of each line
    (stacked: of the day's total, grey), ``None`` for none.
    """
    if by not in ("source", "topic"):
        raise ValidationError(f"by must be source or topic, not {by!r}")
    frame = _records(data, since, until)
    if topics is not None:
        topics = [topics] if isinstance(topics, str) else list(topics)
        frame = frame[frame["topic"].isin(topics)]
    ax = _axes(ax, figsize)
    day = _naive(frame["publishedAt"]).dt.floor("D").to_numpy()
    keys = frame[by].fillna("(no " + by + ")").to_numpy()
    daily = pd.crosstab(day, keys)
    if len(daily):
        full = pd.date_range(daily.index.min(), daily.index.max(), freq="D")
        daily = daily.reindex(full, fill_value=0)
    stacked = (by == "source") if stacked is None else stacked
    if len(daily.columns):
        if stacked:
            ax.stackplot(daily.index, daily.T.to_numpy(), labels=list(daily.columns), alpha=0.85,
                         linewidth=0)
            if level is not None:
                _count_band(ax, daily.index, daily.sum(axis=1), level, "black",
                            f"total, {_band_label(level)}")
        else:
            for i, col in enumerate(daily.columns):
                line, = ax.plot(daily.index, daily[col], label=col, lw=1.3)
                if level is not None:
                    _count_band(ax, daily.index, daily[col], level, line.get_color(),
                                _band_label(level) if i == 0 else None)
    sig = _signal_frame(data, signals)
    if sig is not None and len(sig):
        if by == "topic":
            sig = sig[sig["topic"].isin(daily.columns)]
            heights = {(k, d): daily.at[d, k] for k in daily.columns for d in daily.index}
            _mark_signals(ax, sig, heights, 0, label_key="topic")
        else:
            total = daily.sum(axis=1) if len(daily.columns) else pd.Series(dtype=float)
            heights = {(None, d): v for d, v in total.items()}
            _mark_signals(ax, sig, heights, 0)
    ax.set_ylabel("records per day")
    ax.set_xlabel("day (UTC)")
    ax.set_title(f"Records per day by {by}" + (" (triangles: signals)" if sig is not None and len(sig) else ""))
    if len(daily.columns) or (sig is not None and len(sig)):
        ax.legend(loc="upper left", fontsize=7, ncols=4)
    _date_ticks(ax)
    return ax


def sentiment(data, by: str | None = None, since=None, until=None, min_records: int = 3,
              level: float | None = 0.95, ax=None, figsize=(11, 3.5)):
    """Mean sentiment per UTC day with its Student's t band at ``level``
    (mean ± t(1 - a/2, n - 1) · sd / sqrt(n); ``None`` for no band).

    ``data`` is a Corpus or an enriched records DataFrame. ``by`` draws one
    line and band per ``"source"`` or ``"topic"``; days with fewer than
    ``min_records`` scored records are left as gaps.
    """
    if by not in (None, "source", "topic"):
        raise ValidationError(f"by must be None, source or topic, not {by!r}")
    frame = _records(data, since, until)
    if "sentimentScore" not in frame.columns:
        raise ValidationError("a records DataFrame needs a sentimentScore column (run enrich)")
    frame = frame[frame["sentimentScore"].notna()]
    ax = _axes(ax, figsize)
    work = pd.DataFrame({"day": _naive(frame["publishedAt"]).dt.floor("D").to_numpy(),
                         "score": frame["sentimentScore"].astype(float).to_numpy(),
                         "group": frame[by].fillna("(none)").to_numpy() if by else "all"})
    for name, group in work.groupby("group", sort=True):
        stats = group.groupby("day")["score"].agg(["mean", "std", "count"])
        full = pd.date_range(stats.index.min(), stats.index.max(), freq="D")
        stats = stats.reindex(full)
        stats.loc[stats["count"].fillna(0) < min_records, ["mean", "std"]] = np.nan
        line, = ax.plot(stats.index, stats["mean"], lw=1.4, label=None if by is None else name)
        if level is not None:
            low, high = mean_interval_from_moments(stats["count"].fillna(0).to_numpy(), stats["mean"].to_numpy(),
                                                   stats["std"].fillna(0).to_numpy(), level)
            ax.fill_between(stats.index, low, high, alpha=0.2, color=line.get_color(), linewidth=0)
    ax.axhline(0, color="grey", lw=0.6)
    ax.set_ylim(-1, 1)
    ax.set_ylabel(f"mean sentiment ({_scorer_label(data, frame)})")
    ax.set_xlabel("day (UTC)")
    ax.set_title("Mean sentiment per day" + (f" by {by}" if by else "")
                 + (f", {_band_label(level)} (t)" if level is not None else ""))
    if by:
        ax.legend(loc="lower left", fontsize=7, ncols=4)
    _date_ticks(ax)
    return ax


def uncertain_cells(counts, totals=None, level: float = 0.95) -> np.ndarray:
    """Which cells of a topics-by-days grid to hatch: those whose interval at ``level`` holds the
    row's own average, so the cell cannot be told from the topic's usual day.

    ``counts`` is the grid (rows: topics); each cell's exact Poisson interval is set against
    the row's mean count. With ``totals`` (the same shape), each cell's Wilson interval of
    ``counts / totals`` is set against the row's overall share ``sum(counts) / sum(totals)``.
    """
    counts = np.atleast_2d(np.asarray(counts, dtype=float))
    if totals is None:
        low, high = poisson_interval(counts, level)
        centre = counts.mean(axis=1, keepdims=True)
    else:
        totals = np.atleast_2d(np.asarray(totals, dtype=float))
        low, high = wilson_interval(counts, totals, level)
        with np.errstate(invalid="ignore", divide="ignore"):
            centre = counts.sum(axis=1, keepdims=True) / totals.sum(axis=1, keepdims=True)
    return (np.nan_to_num(low, nan=np.inf) <= centre) & (centre <= np.nan_to_num(high, nan=-np.inf))


def topic_heatmap(corpus, since=None, until=None, share: bool = False, level: float | None = 0.95,
                  ax=None, figsize=(11, 3.5)):
    """Topics (rows) by UTC day (columns): records per cell, from the daily snapshots.

    ``share`` divides each day by its total across topics. A record counts in
    every topic it is assigned to (the snapshots' rule). A heatmap cannot draw
    a band: cells whose interval at ``level`` holds the topic's average day
    (:func:`uncertain_cells`) are hatched, so the plain cells are the days that
    stand out from their topic's usual level; ``level=None`` hatches none.
    """
    snaps = corpus.snapshots(since=since, until=until)
    if snaps.empty:
        raise ValidationError("no snapshots: run the analyse stage first")
    grid = snaps.pivot_table(index="topic", columns="date", values="totalRecords", aggfunc="sum",
                             fill_value=0)
    grid_counts = grid
    if share:
        grid = grid / grid.sum(axis=0).replace(0, np.nan)
    ax = _axes(ax, figsize)
    days = _naive(grid.columns)
    image = ax.imshow(grid.to_numpy(dtype=float), aspect="auto", cmap="viridis", interpolation="nearest")
    ax.set_yticks(range(len(grid.index)), list(grid.index), fontsize=8)
    step = max(1, len(days) // 10)
    ticks = list(range(0, len(days), step))
    ax.set_xticks(ticks, [days.iloc[i].strftime("%Y-%m-%d") for i in ticks], rotation=45, ha="right",
                  fontsize=7)
    ax.figure.colorbar(image, ax=ax, label="share of the day" if share else "records")
    title = "Records per topic and day" + (" (share)" if share else "")
    if level is not None:
        counts = grid_counts.to_numpy(dtype=float)
        totals = np.broadcast_to(counts.sum(axis=0), counts.shape) if share else None
        from matplotlib.patches import Rectangle

        for i, j in zip(*np.nonzero(uncertain_cells(counts, totals, level))):
            ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, hatch="///", linewidth=0,
                                   edgecolor="white", alpha=0.6))
        title += f"; hatched: {_band_label(level)} holds the topic's average"
    ax.set_title(title)
    return ax


def entity_trend(corpus, entity: str, since=None, until=None, signals=True, level: float | None = 0.95,
                 ax=None, figsize=(11, 3)):
    """Mentions per UTC day of one entity (name, slug or alias), its novelty signals marked,
    each day's exact Poisson interval at ``level`` as an error bar (``None`` for none)."""
    ment = corpus.mentions(entity=entity)
    ax = _axes(ax, figsize)
    if since is not None or until is not None:
        from corpuskit.frames import timestamp

        lo, hi = timestamp(since, "since"), timestamp(until, "until")
        stamps = ment["publishedAt"].dt.strftime("%Y-%m-%dT%H:%M:%SZ")
        keep = np.ones(len(ment), dtype=bool)
        if lo:
            keep &= (stamps >= lo).to_numpy()
        if hi:
            keep &= (stamps <= hi).to_numpy()
        ment = ment[keep]
    name = ment["entity"].iloc[0] if len(ment) else str(entity)
    per_day = (pd.Series(ment["mentionCount"].to_numpy(),
                         index=_naive(ment["publishedAt"]).dt.floor("D").to_numpy())
               .groupby(level=0).sum())
    if len(per_day):
        per_day = per_day.reindex(pd.date_range(per_day.index.min(), per_day.index.max(), freq="D"),
                                  fill_value=0)
    ax.bar(per_day.index, per_day.to_numpy(), color="#16a085", width=0.9, label="mentions")
    if level is not None and len(per_day):
        counts = per_day.to_numpy(dtype=float)
        low, high = poisson_interval(counts, level)
        ax.errorbar(per_day.index, counts, yerr=[counts - low, high - counts], fmt="none", ecolor="#555555",
                    elinewidth=0.8, capsize=0, label=_band_label(level))
    if signals is not None and signals is not False and len(ment):
        sig = signals if isinstance(signals, pd.DataFrame) else corpus.signals()
        sig = sig[sig["entity"] == name]
        _mark_signals(ax, sig, {(None, d): v for d, v in per_day.items()}, 0)
    if len(ment):
        ax.legend(loc="upper left", fontsize=7)
    ax.set_ylabel("mentions per day")
    ax.set_title(f"{name}: mentions per day")
    _date_ticks(ax)
    return ax


def hashtags(corpus, tags=None, n: int = 5, since=None, until=None, freq: str = "D", level: float | None = 0.95,
             ax=None, figsize=(11, 3.5)):
    """Records per period (``freq``: ``D`` days, ``W`` weeks) carrying each of ``tags`` (default the
    ``n`` most used), one line each, with each period's exact Poisson interval at ``level`` as a band
    (``None`` for none). :class:`ValidationError` for an unknown tag or ``n`` below 1."""
    from corpuskit.frames import hashtag_days, timestamp

    if freq not in ("D", "W"):
        raise ValidationError(f"freq must be 'D' or 'W', not {freq!r}")
    if tags is None:
        if not isinstance(n, int) or isinstance(n, bool) or n < 1:
            raise ValidationError(f"n must be a positive integer, not {n!r}")
        tags = list(corpus.hashtags(since=since, limit=n)["tag"])
    else:
        tags = [str(t).lstrip("#").lower() for t in ([tags] if isinstance(tags, str) else tags)]
        known = set(corpus.hashtags()["tag"])
        unknown = [t for t in tags if t not in known]
        if unknown:
            raise ValidationError(f"unknown hashtag(s): {', '.join(unknown)}")
    lo, hi = timestamp(since, "since"), timestamp(until, "until")
    ax = _axes(ax, figsize)
    days = hashtag_days(corpus, tags, since=lo, until=hi)
    for tag in tags:
        rows = days[days["tag"] == tag]
        series = pd.Series(rows["records"].to_numpy(), index=_naive(rows["day"]).to_numpy())
        series = series.resample(freq).sum() if len(series) else series
        line = ax.plot(series.index, series.to_numpy(), marker=".", label=f"#{tag}")[0]
        if level is not None and len(series):
            low, high = poisson_interval(series.to_numpy(dtype=float), level)
            ax.fill_between(series.index, low, high, color=line.get_color(), alpha=0.15, linewidth=0)
    if tags:
        ax.legend(loc="upper left", fontsize=7)
    ax.set_ylabel("records per day" if freq == "D" else "records per week")
    ax.set_title("hashtags" + (f" ({_band_label(level)})" if level is not None else ""))
    _date_ticks(ax)
    return ax


def cluster_map(corpus, topic: str, run: str | None = None, annotate: int = 3, ax=None, figsize=(7, 6)):
    """A topic's records on the first two dimensions of the clustering's reduction.

    Grey points are noise (records HDBSCAN left unclustered); each cluster is
    labelled at its members' mean with its readable label (``summaryLabel``), or its first
    ``annotate`` top terms where it has none; ``annotate=0`` draws no labels.
    """
    points = corpus.cluster_points(topic, run=run)
    clusters = corpus.clusters(topic=topic, run=run).set_index("clusterLabel")
    ax = _axes(ax, figsize)
    noise = points[points["clusterLabel"] < 0]
    ax.scatter(noise["x"], noise["y"], s=6, color="#cccccc", label="noise")
    for label, group in points[points["clusterLabel"] >= 0].groupby("clusterLabel"):
        ax.scatter(group["x"], group["y"], s=9, label=f"cluster {label}")
        if annotate and label in clusters.index:
            text = clusters.at[label, "summaryLabel"] or ", ".join(clusters.at[label, "topTerms"][:annotate])
            ax.annotate(text, (group["x"].mean(), group["y"].mean()), fontsize=8, ha="center",
                        bbox=dict(boxstyle="round", fc="white", alpha=0.8, lw=0))
    ax.set_title(f"{topic}: clusters on the first two reduced dimensions")
    ax.set_xlabel("dimension 1")
    ax.set_ylabel("dimension 2")
    ax.legend(fontsize=7, loc="best", markerscale=2)
    return ax


def topics_over_time(data, freq: str = "M", topics=None, top: int = 6, annotate: bool = True,
                     ax=None, figsize=(11, 4)):
    """Each topic's share of the records per period, with its Wilson band.

    ``data`` is a Corpus (read with ``corpus.topics_over_time(freq=freq)``) or a DataFrame from
    that method. ``topics`` names the topics to draw (default: the ``top`` largest overall). With
    ``annotate``, each line's peak period is labelled with the topic's first two terms of that
    period, so the figure says what the topic was about when it rose.
    """
    frame = data if isinstance(data, pd.DataFrame) else data.topics_over_time(freq=freq)
    missing = {"period", "topic", "label", "count", "share", "share_low", "share_high", "terms"} - set(frame.columns)
    if missing:
        raise ValidationError(f"a topics_over_time() frame needs the columns {sorted(missing)}")
    if frame.empty:
        raise ValidationError("no topics over time: enrich the corpus first")
    if topics is None:
        sizes = frame.groupby("topic")["count"].sum()
        topics = sorted(sizes.index, key=lambda t: (-sizes[t], t))[:top]
    else:
        topics = [topics] if isinstance(topics, str) else list(topics)
        unknown = sorted(set(topics) - set(frame["topic"]))
        if unknown:
            raise ValidationError(f"unknown topics {unknown}; the frame has {sorted(set(frame['topic']))}")
    ax = _axes(ax, figsize)
    for name in topics:
        rows = frame[frame["topic"] == name].sort_values("period")
        x = _naive(rows["period"]).to_numpy()
        line, = ax.plot(x, rows["share"].to_numpy(dtype=float), marker="o", markersize=3, linewidth=1.4,
                        label=rows["label"].iloc[0])
        ax.fill_between(x, rows["share_low"].to_numpy(dtype=float), rows["share_high"].to_numpy(dtype=float),
                        color=line.get_color(), alpha=0.2, linewidth=0)
        if annotate and len(rows):
            peak = int(np.argmax(rows["share"].to_numpy(dtype=float)))
            words = list(rows["terms"].iloc[peak])[:2]
            if words:
                ax.annotate(", ".join(words), (x[peak], rows["share"].iloc[peak]), fontsize=7,
                            xytext=(0, 4), textcoords="offset points", ha="center", color=line.get_color())
    ax.set_ylabel("share of the period's records")
    ax.set_ylim(bottom=0)
    ax.set_title("Topics over time (95% Wilson bands; labels: terms of the peak period)")
    _date_ticks(ax)
    ax.legend(loc="upper left", fontsize=7)
    return ax


def attention(frames, labels=None, ax=None, figsize=(11, 3.5)):
    """Share of all records per period for one or more subcorpora, each with its 95% Wilson band.

    ``frames`` is one subcorpus (``corpus.query(...)``, drawn from its ``.over_time()``) or one
    DataFrame from :func:`corpuskit.analysis.attention.over_time`, or a list of either;
    ``labels`` names each line (default: each subcorpus's query text, ``"subcorpus 1"``, ... for
    a frame). A frame made with ``normalise=False`` is drawn as counts with its Poisson band
    instead (then the y axis says so).
    """
    items = [frames] if isinstance(frames, pd.DataFrame) or _is_subcorpus(frames) else list(frames)
    if not items or not all(isinstance(f, pd.DataFrame) or _is_subcorpus(f) for f in items):
        raise ValidationError("attention() needs one or more subcorpora (corpus.query(...)) or "
                              "DataFrames from over_time()")
    frames = [f if isinstance(f, pd.DataFrame) else f.over_time() for f in items]
    labels = [f.q if _is_subcorpus(f) else f"subcorpus {i + 1}" for i, f in enumerate(items)] \
        if labels is None else ([labels] if isinstance(labels, str) else list(labels))
    if len(labels) != len(frames):
        raise ValidationError(f"{len(frames)} frames but {len(labels)} labels")
    shares = all("share" in f.columns for f in frames)
    value, low, high = ("share", "share_low", "share_high") if shares else ("count", "count_low", "count_high")
    for f in frames:
        missing = {"period", value, low, high} - set(f.columns)
        if missing:
            raise ValidationError(f"an over_time() frame needs the columns {sorted(missing)}")
    ax = _axes(ax, figsize)
    for frame, label in zip(frames, labels):
        x = _naive(frame["period"]).to_numpy()
        line, = ax.plot(x, frame[value].to_numpy(dtype=float), label=label, linewidth=1.4)
        ax.fill_between(x, frame[low].to_numpy(dtype=float), frame[high].to_numpy(dtype=float),
                        color=line.get_color(), alpha=0.2, linewidth=0)
    ax.set_ylabel("share of all records" if shares else "records")
    ax.set_ylim(bottom=0)
    _date_ticks(ax)
    ax.legend(loc="upper left", fontsize=7)
    return ax


def keyness(frame, other=None, n: int = 10, ax=None, figsize=(8, 5)):
    """A diverging bar chart of Log Ratio for the ``n`` most key terms (by G²) of each side.

    Either two subcorpora, ``keyness(a, b)`` (``a.compare(b, n=n)`` is drawn; the bars are
    labelled with the two query texts), or one frame from
    :func:`corpuskit.analysis.keyterms.compare_terms` (or ``distinctive_terms``, which has one
    side). Bars right of zero are terms more frequent in A, left of zero in B; the strongest sit
    at the top.
    """
    sides = None
    if _is_subcorpus(frame) or other is not None:
        if not (_is_subcorpus(frame) and _is_subcorpus(other)):
            raise ValidationError("keyness(a, b) needs two subcorpora (corpus.query(...)); "
                                  "or pass one compare_terms() frame alone")
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValidationError(f"n must be a positive integer, not {n!r}")
        sides = (frame.q, other.q)
        frame = frame.compare(other, n=n)
    if not isinstance(frame, pd.DataFrame) or not {"term", "G2", "log_ratio"} <= set(frame.columns):
        raise ValidationError("keyness() needs a DataFrame with term, G2 and log_ratio columns")
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValidationError(f"n must be a positive integer, not {n!r}")
    ordered = frame.sort_values(["G2", "term"], ascending=[False, True], kind="mergesort")
    side_a = ordered[ordered["log_ratio"] > 0].head(n)
    side_b = ordered[ordered["log_ratio"] < 0].head(n)
    shown = pd.concat([side_a, side_b.iloc[::-1]])
    ax = _axes(ax, figsize)
    y = np.arange(len(shown))[::-1]
    colours = np.where(shown["log_ratio"].to_numpy() > 0, "#2c7fb8", "#d95f0e")
    ax.barh(y, shown["log_ratio"].to_numpy(dtype=float), color=colours)
    ax.set_yticks(y, shown["term"].tolist(), fontsize=8)
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_xlabel("Log Ratio (log2 of relative frequency, A over B)" if sides is None else
                  f"Log Ratio: right {_short(sides[0])}, left {_short(sides[1])}")
    return ax


def _is_subcorpus(value) -> bool:
    """A subcorpus, recognised by what the plots use (``corpuskit.subcorpus`` is a sibling module)."""
    return hasattr(value, "over_time") and hasattr(value, "compare") and isinstance(getattr(value, "q", None), str)


def _short(text: str, width: int = 40) -> str:
    return text if len(text) <= width else text[:width - 1] + "…"


def confusion(result, normalise: bool = False, ax=None, figsize=(5, 4.5)):
    """The confusion matrix of a validation (``corpus.validate(...)``): gold rows, corpuskit columns.

    Cells show counts (``normalise=True``: each gold row's shares, i.e. the
    misclassification rates the corrected shares use).
    """
    matrix = getattr(result, "confusion", result)
    if not isinstance(matrix, pd.DataFrame) or matrix.shape[0] != matrix.shape[1] or matrix.empty:
        raise ValidationError("confusion() takes the result of corpus.validate(...) or a square DataFrame")
    counts = matrix.to_numpy(dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        shown = counts / counts.sum(axis=1, keepdims=True) if normalise else counts
    ax = _axes(ax, figsize)
    image = ax.imshow(np.nan_to_num(shown), cmap="Blues", vmin=0)
    labels = [str(c) for c in matrix.columns]
    ax.set_xticks(range(len(labels)), labels, rotation=30, ha="right")
    ax.set_yticks(range(len(matrix.index)), [str(i) for i in matrix.index])
    top = np.nanmax(shown) if np.isfinite(shown).any() else 0
    for (i, j), value in np.ndenumerate(shown):
        text = "-" if np.isnan(value) else (f"{value:.2f}" if normalise else f"{int(value)}")
        ax.text(j, i, text, ha="center", va="center",
                color="white" if top and value > top / 2 else "black", fontsize=9)
    ax.set_xlabel("corpuskit")
    ax.set_ylabel("gold (people)")
    ax.figure.colorbar(image, ax=ax, label="share of the gold row" if normalise else "records")
    title = getattr(result, "kind", None)
    ax.set_title(f"Confusion matrix: {title}" if title else "Confusion matrix")
    return ax
