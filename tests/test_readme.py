"""The README stays true: its library example runs, and CI runs its two commands."""
import csv
import random
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _blocks(language):
    return re.findall(rf"```{language}\n(.*?)```", README, flags=re.S)


def test_ci_runs_the_readme_commands():
    setup, tests = _blocks("bash")[0].strip().splitlines()[:2]
    ci = (ROOT / ".ci" / "run").read_text()
    install = setup.split(" && .venv/bin/python server.py")[0]
    assert setup.endswith("server.py") and install in ci
    assert tests in ci


def test_library_example_runs(tmp_path, monkeypatch):
    rng = random.Random(3)
    words = ["Rust", "Python", "startup", "funding", "self-driving", "cars", "GPU", "database", "privacy",
             "Apple", "Google", "launch", "security", "open", "source", "compiler", "battery"]
    path = tmp_path / "hacker_news_2015_2016.csv"
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "title", "url", "num_points", "num_comments", "author", "created_at"])
        for i in range(400):
            title = " ".join(rng.choice(words) for _ in range(7))
            w.writerow([i + 1, title.capitalize(), "", rng.randint(1, 50), rng.randint(1, 9), f"u{i % 37}",
                        f"{1 + i % 9}/{1 + i % 28}/2016 {i % 24}:{i % 60:02d}"])
    monkeypatch.chdir(tmp_path)
    code = _blocks("python")[0]
    namespace = {}
    exec(compile(code, "README.md", "exec"), namespace)
    assert namespace["report"].added == 400
    assert len(namespace["df"]) > 0 and set(namespace["df"]["source"]) == {"hackernews"}
    assert set(namespace["hits"]) >= {"results", "totalMatched", "embeddingMs"}


def test_dataframe_example_runs_on_the_demo(tmp_path, monkeypatch):
    matplotlib = __import__("pytest").importorskip("matplotlib")
    matplotlib.use("Agg")  # tests only
    monkeypatch.chdir(tmp_path)
    code = _blocks("python")[1]
    assert "demo.topics()" in code and "plot.volume" in code
    namespace = {}
    exec(compile(code, "README.md", "exec"), namespace)
    assert len(namespace["topics"]) == 7 and namespace["topics"]["recordCount"].sum() > 0
    assert (namespace["strong"]["severity"] == "high").all()
    assert len(namespace["orgs"]) == 10 and (namespace["orgs"]["type"] == "org").all()
    assert len(namespace["lead"]["citations"]) > 0 and namespace["lead"]["untraced"] == []
    assert namespace["ax"].get_lines()
    assert (tmp_path / "signals.csv").read_text().startswith("signalId,kind,topicId")
    assert (tmp_path / "paper-data" / "codebook.md").exists()
    assert len(namespace["digest"]) == 64
    # every accessor the README names exists on Corpus
    import corpuskit

    names = re.findall(r"`([a-z_]+)\(", README.split("## Library")[1].split("## HTTP")[0])
    missing = [n for n in names if not hasattr(corpuskit.Corpus, n) and not hasattr(__import__("corpuskit.plot").plot, n)]
    assert not missing, missing
