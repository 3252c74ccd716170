"""The read-replica refresh of docs/scaling.md: snapshot the primary, restore into a reader's live file.

The snapshot and the restore run in another process with Python's plain ``sqlite3`` (no sqlite-vec),
as an operator's script or the sqlite3 command line would; the reader keeps its corpus open throughout.
"""
from __future__ import annotations

import shutil
import subprocess
import sys

from corpuskit import open_corpus
from corpuskit.api.keyed.queries import search_json
from corpuskit.demo import build_demo


def plain_sqlite(code: str) -> None:
    subprocess.run([sys.executable, "-c", "import sqlite3\n" + code], check=True, timeout=120)


def test_snapshot_and_restore_into_an_open_reader(tmp_path):
    primary_path, reader_path = tmp_path / "primary.db", tmp_path / "reader.db"
    snap1, snap2 = tmp_path / "snap1.db", tmp_path / "snap2.db"
    primary = open_corpus(primary_path)
    build_demo(primary, seed=3, records=120, days=30, run_stages=False, progress=False)
    primary.enrich(progress=False)
    plain_sqlite(f"sqlite3.connect({str(primary_path)!r}).execute(\"VACUUM INTO '{snap1}'\")")
    shutil.copy(snap1, reader_path)

    reader = open_corpus(reader_path)
    assert reader.count() == 120
    before = {r["id"] for r in search_json(reader, "rocket launch orbit", limit=50)["results"]}
    assert before and max(int(i) for i in before) <= 120

    primary.add_records([{"source": "reddit", "sourceId": f"new{i}", "title": f"Rocket launch {i}",
                          "contentText": "The rocket launch reached orbit; rocket launch orbit.",
                          "publishedAt": "2026-01-10T10:00:00Z", "subreddit": "space"} for i in range(30)])
    primary.enrich(progress=False)
    plain_sqlite(f"s = sqlite3.connect({str(primary_path)!r}); d = sqlite3.connect({str(snap2)!r}); "
                 "s.backup(d); d.close()")
    # the documented restore, while `reader` (a server would be the same) holds the file open
    plain_sqlite(f"s = sqlite3.connect('file:{snap2}?mode=ro', uri=True); "
                 f"d = sqlite3.connect({str(reader_path)!r}, timeout=60); s.backup(d); d.close()")

    assert reader.count() == 150
    after = [int(r["id"]) for r in search_json(reader, "rocket launch orbit", limit=10)["results"]]
    assert after and all(i > 120 for i in after[:5])  # the new records rank first, on the open reader
    assert reader.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert reader.conn.execute("SELECT count(*) FROM record_vectors").fetchone()[0] == 150
    reader.close()
    primary.close()
