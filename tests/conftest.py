"""Shared fixtures: an empty in-memory corpus, and one small demo corpus built once per session."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from corpuskit import open_corpus
from corpuskit.store.file_lock import held

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATASETS = Path(os.environ.get("CORPUSKIT_SHARED_DATASETS", ROOT.parent / "shared" / "datasets"))
HN_CSV = SHARED_DATASETS / "hacker_news_2015_2016.csv"
REDDIT_CSV = SHARED_DATASETS / "reddit_2019_science_technology.csv"
#: the training and evaluation scripts, outside the installed package; their tests import them as
#: top-level modules (``import train_crf``), as the scripts import each other
TOOLS = ROOT / "tools"
if str(TOOLS) not in sys.path:
    sys.path.append(str(TOOLS))

# Size of the session demo corpus: small enough for CI, big enough for the stages to mean something.
DEMO_TEST_RECORDS = int(os.environ.get("CORPUSKIT_TEST_DEMO_RECORDS", "6000"))
DEMO_TEST_DAYS = 60
DEMO_TEST_SEED = 7


def need_shared(path: Path) -> Path:
    """Skip the test when ``../shared/datasets`` (or the file) is absent."""
    if not path.exists():
        pytest.skip(f"{path} not present (../shared/datasets is only on the maintainers' machines)")
    return path


def csv_part(src: Path, out: Path, keep) -> Path:
    """Write to ``out`` the header of the CSV ``src`` and its rows for which ``keep(header, row)``."""
    import csv

    with open(src, newline="", encoding="utf-8") as fin, open(out, "w", newline="", encoding="utf-8") as fout:
        reader, writer = csv.reader(fin), csv.writer(fout)
        header = next(reader)
        writer.writerow(header)
        writer.writerows(row for row in reader if keep(header, row))
    return out


def reddit_first_two_months(tmp_path: Path) -> Path:
    """A CSV of the real Reddit file's January and February 2019 rows (skips when it is absent)."""
    return csv_part(need_shared(REDDIT_CSV), tmp_path / "reddit_q1.csv",
                    lambda header, row: int(row[header.index("timestamp")]) < 1551398400)   # before 2019-03-01


@pytest.fixture(scope="session")
def reddit_two_months_run(tmp_path_factory):
    """The Reddit file's first two months with every stage run, once per test run (the first xdist
    worker to ask builds it into the run's cache folder, the other waits and copies it); tests only
    read it."""
    tmp = tmp_path_factory.mktemp("reddit-run")
    shared = Path(os.environ["CORPUSKIT_TEST_CACHE"]) / "runs"
    shared.mkdir(parents=True, exist_ok=True)
    built = shared / "reddit-two-months.db"
    with held(shared / "reddit-two-months.lock"):
        if not built.exists():
            work = shared / f"reddit-two-months.{os.getpid()}.db"
            for corpus in every_stage_run(reddit_first_two_months(tmp), work):
                corpus.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            os.replace(work, built)
    source = open_corpus(built)
    source.conn.execute("VACUUM INTO ?", (str(tmp / "r.db"),))
    source.close()
    corpus = open_corpus(tmp / "r.db")
    yield corpus
    corpus.close()


def every_stage_run(csv_path: Path, db: Path):
    """A fixture's body: ``csv_path`` imported into a new corpus at ``db``, every stage run; yields
    the corpus, closed afterwards."""
    corpus = open_corpus(db)
    corpus.import_file(csv_path, progress=False)
    corpus.run(progress=False)
    yield corpus
    corpus.close()


@pytest.fixture
def corpus():
    """An empty in-memory corpus."""
    c = open_corpus(":memory:")
    yield c
    c.close()


@pytest.fixture(scope="session")
def demo_path(tmp_path_factory) -> Path:
    """Path of a demo corpus file with every stage run, built once per test run: the first xdist
    worker to ask builds it into the run's cache folder (``demo_file``; see the root conftest) while
    the other waits, then each copies it."""
    from corpuskit.demo import demo_file

    path = tmp_path_factory.mktemp("demo") / "demo.db"
    demo_file(path, seed=DEMO_TEST_SEED, records=DEMO_TEST_RECORDS, days=DEMO_TEST_DAYS,
              cache=os.environ["CORPUSKIT_TEST_CACHE"])
    return path


@pytest.fixture(scope="session")
def demo_corpus(demo_path):
    """The session demo corpus, opened (read it; do not write to it)."""
    c = open_corpus(demo_path)
    yield c
    c.close()


@pytest.fixture(scope="session")
def demo_merged(demo_corpus, tmp_path_factory):
    """A copy of the session demo corpus with one researcher merge, so that every exported table has
    rows (resolution links nothing by itself in the demo: no short form meets its full name there).
    Read it; do not write to it."""
    path = tmp_path_factory.mktemp("merged") / "merged.db"
    demo_corpus.conn.execute("VACUUM INTO ?", (str(path),))
    corpus = open_corpus(path)
    a, b = (row[0] for row in corpus.conn.execute(
        "SELECT name FROM entities WHERE type = 'person' ORDER BY name LIMIT 2"))
    corpus.merge_entities(a, b)
    yield corpus
    corpus.close()


@pytest.fixture()
def demo_copy(demo_corpus, tmp_path):
    """A private file copy of the session demo corpus (write to it freely)."""
    from corpuskit.api import response_cache

    path = tmp_path / "copy.db"
    demo_corpus.conn.execute("VACUUM INTO ?", (str(path),))
    corpus = open_corpus(path)
    yield corpus
    response_cache.clear()
    corpus.close()
