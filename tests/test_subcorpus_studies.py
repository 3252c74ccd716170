"""Subcorpus studies: over_time, kwic, terms and compare on a query's records; plots of subcorpora;
samples and the CLI through the query language."""
import re

import numpy as np
import pandas as pd
import pytest

from corpuskit import ValidationError, open_corpus
from corpuskit.analysis.attention import over_time
from corpuskit.analysis.keyterms import compare_terms, distinctive_terms
from corpuskit.analysis.kwic import kwic
from corpuskit.cli import main
from corpuskit.query import QuerySyntaxError


@pytest.fixture(scope="module")
def small_path(demo_path, tmp_path_factory):
    """A copy of the session demo corpus that these tests may write to (samples, deletes)."""
    import shutil

    path = tmp_path_factory.mktemp("sub") / "demo.db"
    shutil.copy(demo_path, path)
    return path


@pytest.fixture(scope="module")
def small(small_path):
    c = open_corpus(small_path)
    yield c
    c.close()


def test_over_time_is_attention_of_the_query_ids(small):
    sub = small.query("telescope")
    got = sub.over_time()
    assert got.equals(over_time(small, sub.ids()))
    assert int(got["count"].sum()) == sub.count() > 0
    assert (got["total"] >= got["count"]).all()
    weekly = sub.over_time(freq="W", normalise=False)
    assert list(weekly.columns) == ["period", "count", "count_low", "count_high"]
    assert int(weekly["count"].sum()) == sub.count()
    with pytest.raises(ValidationError, match="freq"):
        sub.over_time(freq="Y")


def test_over_time_keeps_the_subcorpus_bounds(small):
    first = pd.Timestamp(small.conn.execute("SELECT min(published_at) FROM records").fetchone()[0][:10], tz="UTC")
    since, until = first + pd.Timedelta(days=10), first + pd.Timedelta(days=20, hours=23, minutes=59)
    sub = small.query("booster", since=since.isoformat(), until=until.isoformat())
    frame = sub.over_time()
    assert frame["period"].iloc[0] == since and frame["period"].iloc[-1] == first + pd.Timedelta(days=20)
    assert int(frame["count"].sum()) == sub.count() > 0
    wider = sub.over_time(since=first.isoformat())  # an explicit bound wins over the subcorpus's
    assert wider["period"].iloc[0] == first


def test_kwic_lists_every_occurrence_in_the_matching_records(small):
    sub = small.query('"offshore wind"')
    lines = sub.kwic("offshore wind", window=3)
    assert lines.equals(kwic(small, sub.ids(), "offshore wind", window=3))
    assert set(lines["recordId"]) == set(sub.ids().tolist())
    texts = sub.records()
    expected = sum(len(re.findall(r"\boffshore\W+wind\b", f"{t or ''} {c or ''}", re.I))
                   for t, c in zip(texts["title"], texts["contentText"]))
    assert len(lines) == expected
    assert all(len(x.split()) <= 3 for x in lines["left"]) and all(len(x.split()) <= 3 for x in lines["right"])
    assert len(sub.kwic("offshore wind", limit=2)) == 2
    assert sub.kwic("zzzunseen").empty
    with pytest.raises(ValidationError, match="window"):
        sub.kwic("wind", window=-1)


def test_terms_and_compare(small):
    tele, infl = small.query("telescope"), small.query("inflation")
    terms = tele.terms(5)
    assert terms.equals(distinctive_terms(small, tele.ids(), n=5))
    assert terms["term"].iloc[0] == "telescope" and len(terms) == 5
    keys = tele.compare(infl, n=3)
    assert keys.equals(compare_terms(small, tele.ids(), infl.ids(), n=3))
    a, b = keys[keys["direction"] == "a"], keys[keys["direction"] == "b"]
    assert "telescope" in set(a["term"]) and "inflation" in set(b["term"])
    assert (a["log_ratio"] > 0).all() and (b["log_ratio"] < 0).all()
    with pytest.raises(ValidationError, match="Subcorpus"):
        tele.compare(infl.ids())
    empty = small.query("zzzunseen")
    assert empty.terms().empty and tele.compare(empty).empty


def test_compare_needs_the_same_corpus(small, small_path):
    other = open_corpus(small_path)
    try:
        with pytest.raises(ValidationError, match="same corpus"):
            small.query("telescope").compare(other.query("inflation"))
    finally:
        other.close()


def test_plots_take_subcorpora(small):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from corpuskit import plot

    q1, q2 = small.query("telescope"), small.query('"offshore wind" OR solar')
    try:
        ax = plot.attention([q1, q2])
        assert [line.get_label() for line in ax.get_lines()] == ["telescope", '"offshore wind" OR solar']
        shown = ax.get_lines()[0].get_ydata()
        assert np.allclose(shown, q1.over_time()["share"].to_numpy(), equal_nan=True)
        ax = plot.attention(q1, labels="space")
        assert [line.get_label() for line in ax.get_lines()] == ["space"]
        mixed = plot.attention([q1, q2.over_time()])
        assert [line.get_label() for line in mixed.get_lines()] == ["telescope", "subcorpus 2"]
        ax = plot.keyness(q1, q2, n=4)
        frame = q1.compare(q2, n=4)
        assert [t.get_text() for t in ax.get_yticklabels()][0] == frame[frame["log_ratio"] > 0]["term"].iloc[0]
        assert "telescope" in ax.get_xlabel()
        assert plot.keyness(frame, n=2) is not None  # one frame still works
        with pytest.raises(ValidationError, match="two subcorpora"):
            plot.keyness(q1)
        with pytest.raises(ValidationError, match="two subcorpora"):
            plot.keyness(frame, q2)
        with pytest.raises(ValidationError):
            plot.attention(["telescope"])
    finally:
        plt.close("all")


def test_sample_through_the_query_language(small):
    sub = small.query("booster OR launch")
    drawn = small.sample(20, seed=4, query="booster OR launch")
    assert set(drawn.records["recordId"]) <= set(sub.ids().tolist())
    same = small.sample(20, seed=4, ids=sub.ids())
    assert drawn.records["recordId"].tolist() == same.records["recordId"].tolist()
    assert drawn.design["filters"]["query"] == "booster OR launch"
    assert drawn.design["population"] == sub.count()
    strat = small.sample(10, by="source", query="booster", source="reddit")
    reddit = set(small.query("booster source:reddit").ids().tolist())
    assert set(strat.records["recordId"]) <= reddit and strat.design["population"] == len(reddit)
    with pytest.raises(ValidationError, match="only"):
        small.sample(5, query="zzzunseen")
    with pytest.raises(QuerySyntaxError):
        small.sample(5, query='"unclosed')
    with pytest.raises(ValidationError, match="query"):
        small.sample(5, query=42)


def test_cli_query_kwic_and_sample_query(small_path, capsys):
    assert main(["query", "telescope", "--db", str(small_path), "--kwic", "telescope", "--window", "2",
                 "--limit", "3"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 4 and all("[telescope]" in line.lower() for line in out[:3])
    assert out[-1].startswith("3 occurrences of 'telescope'")
    assert main(["query", "telescope", "--db", str(small_path), "--kwic", "*"]) == 2
    capsys.readouterr()
    c = open_corpus(small_path)
    expected = set(c.query("inflation").ids().tolist())
    c.close()
    assert main(["sample", "--db", str(small_path), "--name", "infl", "--n", "5", "--query", "inflation"]) == 0
    c = open_corpus(small_path)
    try:
        from corpuskit.validate import load_sample

        got = load_sample(c, "infl")
        assert set(got.records["recordId"]) <= expected and len(got.records) == 5
    finally:
        c.close()


@pytest.mark.parametrize("q", ["telescope", '"offshore wind"', "solar OR turbine", "booster AND launch", "vacc*",
                               "inflation -earnings", "NOT telescope", "source:reddit AND telescope"])
def test_count_and_ids_on_the_index_equal_the_records_scan(small, q):
    from corpuskit.query import Where
    from corpuskit.query.fulltext import match_only

    sub = small.query(q)
    where = Where().text_query(sub.compiled)
    scan = [r[0] for r in small.conn.execute("SELECT r.id FROM records r" + where.sql() + " ORDER BY r.id",
                                             where.args)]
    assert sub.count() == len(scan) and sub.ids().tolist() == scan
    assert (match_only(sub.compiled) is None) == (q.startswith("NOT") or ":" in q)


def test_index_count_follows_deletes(small_path, tmp_path):
    import shutil

    path = tmp_path / "copy.db"
    shutil.copy(small_path, path)
    c = open_corpus(path)
    try:
        sub = c.query("telescope")
        before = sub.ids()
        c.conn.execute("DELETE FROM records WHERE id = ?", (int(before[0]),))
        assert sub.count() == len(before) - 1 and sub.ids().tolist() == before[1:].tolist()
        middle = c.conn.execute("SELECT published_at FROM records ORDER BY published_at "
                                "LIMIT 1 OFFSET (SELECT count(*) / 2 FROM records)").fetchone()[0]
        bounded = c.query("telescope", since=middle)
        assert 0 < bounded.count() < sub.count()
        assert bounded.count() == int((c.query("telescope").records()["publishedAt"] >= middle).sum())
    finally:
        c.close()
