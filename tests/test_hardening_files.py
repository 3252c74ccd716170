"""Bad files and bad corpus files: a clear message and exit status 2, never a traceback.

Input files: binary, latin-1, UTF-16 (with and without a BOM), UTF-8 with a BOM, a
1 MB field, JSON that is not objects. Corpus files: another application's SQLite
database (never changed), a read-only corpus, a second writer (waits, then says
so), file modes, and an import killed with SIGKILL (the file is as it was).
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from corpuskit import open_corpus
from corpuskit.cli import main
from corpuskit.errors import (CorpusBusyError, ImportFormatError, NotACorpusError,
                              ReadOnlyCorpusError)
from corpuskit.store.schema import APPLICATION_ID
from tests.conftest import ROOT

MAP = ["--source", "news", "--map", "contentText=body", "--map", "publishedAt=when", "--quiet"]


def run_cli(capsys, *args) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def body_csv(path: Path, rows, encoding="utf-8", bom: bytes = b"") -> Path:
    text = "body,when\n" + "".join(f"{body},{when}\n" for body, when in rows)
    path.write_bytes(bom + text.encode(encoding))
    return path


# -- encodings ------------------------------------------------------------------------------------
def test_latin1_names_byte_offset_and_line_then_imports_with_encoding(tmp_path, capsys):
    path = body_csv(tmp_path / "l1.csv", [("plain", "2020-01-01"), ("Caf\xe9 cr\xe8me", "2020-01-02")],
                    encoding="latin-1")
    db = tmp_path / "c.db"
    code, _, err = run_cli(capsys, "import", path, "--db", db, *MAP)
    assert code == 2
    assert "byte 0xe9 at byte offset 30 (line 3) is not valid utf-8" in err
    assert "--encoding latin-1" in err and "nothing was imported" in err
    assert open_corpus(db).count() == 0
    code, out, _ = run_cli(capsys, "import", path, "--db", db, *MAP, "--encoding", "latin-1")
    assert code == 0 and "added 2" in out
    assert "Café crème" in open_corpus(db).records()["contentText"].tolist()


def test_decoding_failure_late_in_a_large_file_is_located(tmp_path):
    rows = [(f"row {i}", "2020-01-01") for i in range(20000)] + [("bad \xff byte", "2020-01-02")]
    path = body_csv(tmp_path / "late.csv", rows, encoding="latin-1")
    offset = path.read_bytes().index(b"\xff")
    with pytest.raises(ImportFormatError, match=rf"byte 0xff at byte offset {offset} \(line 20002\)"):
        open_corpus(tmp_path / "c.db").import_file(path, source="news",
                                                   mapping=["contentText=body", "publishedAt=when"])


@pytest.mark.parametrize("encoding, bom", [
    ("utf-16-le", b"\xff\xfe"), ("utf-16-be", b"\xfe\xff"), ("utf-8", b"\xef\xbb\xbf"),
    ("utf-32-le", b"\xff\xfe\x00\x00"),
])
def test_byte_order_marks_are_followed(tmp_path, capsys, encoding, bom):
    path = body_csv(tmp_path / "bom.csv", [("naïve ünïcode", "2020-01-01")], encoding=encoding, bom=bom)
    code, out, _ = run_cli(capsys, "import", path, "--db", tmp_path / "c.db", *MAP)
    assert code == 0 and "added 1" in out
    assert open_corpus(tmp_path / "c.db").records()["contentText"].tolist() == ["naïve ünïcode"]


def test_utf16_without_bom_is_refused_then_read_with_encoding(tmp_path, capsys):
    path = body_csv(tmp_path / "u16.csv", [("hello", "2020-01-01")], encoding="utf-16-le")
    code, _, err = run_cli(capsys, "import", path, "--db", tmp_path / "c.db", *MAP)
    assert code == 2 and "binary file" in err and "--encoding utf-16-le" in err
    code, out, _ = run_cli(capsys, "import", path, "--db", tmp_path / "c.db", *MAP,
                           "--encoding", "utf-16-le")
    assert code == 0 and "added 1" in out


def test_jsonl_in_latin1_and_unknown_encoding_name(tmp_path, capsys):
    path = tmp_path / "x.jsonl"
    line = json.dumps({"source": "news", "contentText": "Gr\xfc\xdfe", "publishedAt": "2020-01-01"},
                      ensure_ascii=False)
    path.write_bytes((line + "\n").encode("latin-1"))
    code, _, err = run_cli(capsys, "import", path, "--db", tmp_path / "c.db", "--quiet")
    assert code == 2 and "byte 0xfc at byte offset" in err and "(line 1)" in err
    code, _, err = run_cli(capsys, "import", path, "--db", tmp_path / "c.db", "--quiet",
                           "--encoding", "klingon")
    assert code == 2 and "unknown encoding 'klingon'" in err
    code, out, _ = run_cli(capsys, "import", path, "--db", tmp_path / "c.db", "--quiet",
                           "--encoding", "latin-1")
    assert code == 0 and "added 1" in out


# -- binary and malformed files ---------------------------------------------------------------------
@pytest.mark.parametrize("name, payload", [
    ("random.csv", bytes(range(256)) * 40),
    ("sheet.csv", b"PK\x03\x04\x14\x00\x06\x00\x08\x00\x00\x00!\x00" + b"\x00" * 200),  # an .xlsx renamed
    ("image.jsonl", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + b"\x00" * 100),
])
def test_binary_files_are_refused(tmp_path, capsys, name, payload):
    path = tmp_path / name
    path.write_bytes(payload)
    code, _, err = run_cli(capsys, "import", path, "--db", tmp_path / "c.db", *MAP)
    assert code == 2 and "looks like a binary file" in err and "NUL byte at byte offset" in err


def test_binary_without_nul_fails_decoding_cleanly(tmp_path, capsys):
    path = tmp_path / "noise.csv"
    path.write_bytes(b"body,when\n" + bytes(range(0x80, 0x100)) * 10)
    code, _, err = run_cli(capsys, "import", path, "--db", tmp_path / "c.db", *MAP)
    assert code == 2 and "byte 0x80 at byte offset 10 (line 2) is not valid utf-8" in err


def test_a_1mb_field_rejects_its_row_and_imports_the_rest(tmp_path, capsys):
    path = body_csv(tmp_path / "big.csv", [("short one", "2020-01-01"), ("x" * 1_000_000, "2020-01-02"),
                                           ("short two", "2020-01-03")])
    code, out, err = run_cli(capsys, "import", path, "--db", tmp_path / "c.db", *MAP)
    assert code == 0 and "read 3, added 2, duplicates 0, rejected 1" in out
    assert "rejected row 2: field 'body' has 1,000,000 characters, more than the 262,144 allowed" in err
    jsonl = tmp_path / "big.jsonl"
    jsonl.write_text("\n".join(json.dumps({"source": "news", "contentText": text, "publishedAt": "2020-01-05"})
                               for text in ("a", "y" * 1_000_000, "b")) + "\n")
    report = open_corpus(tmp_path / "j.db").import_file(jsonl)
    assert (report.added, report.rejected) == (2, 1) and report.rejections[0][0] == 2
    assert open_corpus(tmp_path / "k.db").import_file(jsonl, max_field_chars=2_000_000).added == 3


def test_unbalanced_quote_does_not_swallow_the_file(tmp_path):
    path = tmp_path / "q.csv"
    path.write_text('body,when\n"open quote,2020-01-01\n' + "more,2020-01-02\n" * 100)
    report = open_corpus(tmp_path / "c.db").import_file(
        path, source="news", mapping=["contentText=body", "publishedAt=when"])
    assert report.read >= 1 and report.added == 0 and report.rejected >= 1   # reported, no traceback


@pytest.mark.parametrize("content, message", [
    ("[1, 2, 3]", "a JSON array of number, not of objects"),
    ('["a", null, [1]]', "a JSON array of array and null and string, not of objects"),
    ("[]", "an empty JSON array"),
    ('{"records": [{"a": 1}],\n "n": 1}', "one JSON object, not one object per line"),
    ("[1, 2", "not valid JSON"),
    ("42\n43\n", "no JSON objects in the first lines"),
])
def test_json_that_is_not_objects(tmp_path, capsys, content, message):
    path = tmp_path / "x.json"
    path.write_text(content)
    code, _, err = run_cli(capsys, "import", path, "--db", tmp_path / "c.db", "--quiet")
    assert code == 2 and message in err


def test_json_array_mixing_objects_and_other_values(tmp_path, capsys):
    path = tmp_path / "mixed.json"
    good = {"source": "news", "contentText": "fine", "publishedAt": "2020-01-01"}
    path.write_text(json.dumps([good, 7, "text", None, dict(good, contentText="also fine")]))
    code, out, err = run_cli(capsys, "import", path, "--db", tmp_path / "c.db", "--quiet")
    assert code == 0 and "read 5, added 2, duplicates 0, rejected 3" in out
    assert "rejected row 2: not a JSON object (a number)" in err
    assert "rejected row 4: not a JSON object (a null)" in err



@pytest.mark.parametrize("suffix", [".jsonl", ".json"])
def test_an_unpaired_surrogate_escape_is_replaced_not_a_crash(tmp_path, capsys, suffix):
    # a tweet cut inside an emoji's surrogate pair: JSON can escape half a pair, UTF-8 cannot hold it
    rows = ['{"source": "twitter", "sourceId": "1", "contentText": "cut \\ud83d", "publishedAt": "2021-01-01",'
            ' "metadata": {"\\udfff key": ["\\ud800"]}}',
            '{"source": "twitter", "sourceId": "2", "contentText": "whole \\ud83d\\ude00 pair",'
            ' "publishedAt": "2021-01-02"}',
            '{"source": "twitter", "sourceId": "3", "contentText": "plain", "publishedAt": "2021-01-03"}']
    path = tmp_path / f"tweets{suffix}"
    path.write_text("\n".join(rows) if suffix == ".jsonl" else "[" + ",".join(rows) + "]")
    code, out, _ = run_cli(capsys, "import", path, "--db", tmp_path / "c.db", "--quiet")
    assert code == 0 and "read 3, added 3" in out
    corpus = open_corpus(tmp_path / "c.db")
    texts = dict(corpus.conn.execute("SELECT source_id, content_text FROM records"))
    meta = json.loads(corpus.conn.execute("SELECT metadata FROM records WHERE source_id = '1'").fetchone()[0])
    corpus.close()
    assert texts == {"1": "cut \ufffd", "2": "whole \U0001F600 pair", "3": "plain"}
    assert meta == {"\ufffd key": ["\ufffd"]}

# -- corpus files -----------------------------------------------------------------------------------
def foreign_db(path: Path) -> Path:
    raw = sqlite3.connect(path)
    raw.execute("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)")
    raw.execute("INSERT INTO invoices (total) VALUES (12.5)")
    raw.commit()
    raw.close()
    return path


def test_foreign_sqlite_file_is_refused_and_left_unchanged(tmp_path, capsys):
    path = foreign_db(tmp_path / "accounts.db")
    before = path.read_bytes()
    csv_file = body_csv(tmp_path / "x.csv", [("hello", "2020-01-01")])
    for args in (["import", csv_file, "--db", path, *MAP], ["keys", "list", "--db", path],
                 ["search", "anything", "--db", path]):
        code, _, err = run_cli(capsys, *args)
        assert code == 2 and "accounts.db is not a corpuskit corpus" in err
        assert "1 table(s): invoices" in err
    with pytest.raises(NotACorpusError, match="another application"):
        open_corpus(path)
    sys.path.insert(0, str(ROOT))
    try:
        import server
    finally:
        sys.path.remove(str(ROOT))
    assert server.main(["--db", str(path), "--port", "0"]) == 2
    assert "not a corpuskit corpus" in capsys.readouterr().err
    assert path.read_bytes() == before
    assert not Path(f"{path}-wal").exists()


def test_another_application_id_is_refused(tmp_path):
    path = tmp_path / "other.db"
    raw = sqlite3.connect(path)
    raw.execute("PRAGMA application_id = 1234")
    raw.commit()
    raw.close()
    with pytest.raises(NotACorpusError, match="application_id 0x4d2"):
        open_corpus(path)


def test_new_and_empty_files_are_marked(tmp_path):
    new = open_corpus(tmp_path / "new.db")
    (tmp_path / "empty.db").write_bytes(b"")
    empty = open_corpus(tmp_path / "empty.db")
    for c in (new, empty):
        assert c.conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
        assert c.get_meta("corpuskit") == {"application": "corpuskit", "applicationId": APPLICATION_ID}


def test_a_corpus_from_an_older_version_opens_and_is_marked(tmp_path):
    path = tmp_path / "old.db"
    c = open_corpus(path)
    c.add_records([{"source": "news", "contentText": "kept", "publishedAt": "2020-01-01"}])
    c.close()
    raw = sqlite3.connect(path)   # as written before the mark existed
    raw.execute("PRAGMA application_id = 0")
    raw.execute("DELETE FROM meta WHERE key = 'corpuskit'")
    raw.commit()
    raw.close()
    c = open_corpus(path)
    assert c.count() == 1
    assert c.conn.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    assert c.get_meta("corpuskit")["application"] == "corpuskit"


def test_corpus_and_its_wal_files_are_owner_only(tmp_path):
    old = os.umask(0o022)
    try:
        c = open_corpus(tmp_path / "c.db")
        c.add_records([{"source": "news", "contentText": "x", "publishedAt": "2020-01-01"}])
        files = [tmp_path / name for name in ("c.db", "c.db-wal", "c.db-shm")]
        assert all(f.exists() for f in files)
        assert {f.name: stat.S_IMODE(f.stat().st_mode) for f in files} == \
            {f.name: 0o600 for f in files}
    finally:
        os.umask(old)


def _make_read_only(path: Path):
    """chmod 0444; as root (which ignores modes) the immutable attribute, where chattr works."""
    if os.geteuid() != 0:
        path.chmod(0o444)
        return lambda: path.chmod(0o600)
    chattr = shutil.which("chattr")
    if chattr is None or subprocess.run([chattr, "+i", str(path)], capture_output=True).returncode:
        pytest.skip("running as root without a working chattr: cannot make a file read-only")
    return lambda: subprocess.run([chattr, "-i", str(path)], check=True)


def test_read_only_corpus_is_a_clear_error(tmp_path, capsys):
    path = tmp_path / "ro.db"
    c = open_corpus(path)
    c.add_records([{"source": "news", "contentText": "x", "publishedAt": "2020-01-01"}])
    c.close()
    undo = _make_read_only(path)
    try:
        csv_file = body_csv(tmp_path / "x.csv", [("hello", "2020-01-01")])
        for args in (["import", csv_file, "--db", path, *MAP], ["keys", "list", "--db", path]):
            code, _, err = run_cli(capsys, *args)
            assert code == 2 and "ro.db is read-only for this user" in err and "chmod u+w" in err
        with pytest.raises(ReadOnlyCorpusError):
            open_corpus(path)
    finally:
        undo()
    assert open_corpus(path).count() == 1


HOLD_LOCK = """
import sqlite3, sys, time
conn = sqlite3.connect(sys.argv[1], isolation_level=None)
conn.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
time.sleep(float(sys.argv[2]))
conn.execute("ROLLBACK")
"""


def test_second_writer_waits_then_says_another_process_is_writing(tmp_path, capsys):
    db = tmp_path / "c.db"
    open_corpus(db).close()
    csv_file = body_csv(tmp_path / "x.csv", [("hello", "2020-01-01")])
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(db), "20"], stdout=subprocess.PIPE,
                              text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        t0 = time.monotonic()
        code, _, err = run_cli(capsys, "import", csv_file, "--db", db, *MAP, "--wait", "1")
        waited = time.monotonic() - t0
        assert code == 2 and "another process is writing to the corpus" in err and "waited 1 s" in err
        assert 0.9 <= waited < 15
        c = open_corpus(db, timeout=0.5)
        with pytest.raises(CorpusBusyError, match="another process is writing"):
            c.add_records([{"source": "news", "contentText": "y", "publishedAt": "2020-01-01"}])
    finally:
        holder.kill()
        holder.wait()
    code, out, _ = run_cli(capsys, "import", csv_file, "--db", db, *MAP)
    assert code == 0 and "added 1" in out


def test_concurrent_imports_both_land(tmp_path):
    """Two imports at once: both are staged in parallel and stored one after the other."""
    db = tmp_path / "c.db"
    open_corpus(db).close()
    files = [body_csv(tmp_path / f"f{k}.csv", [(f"file {k} row {i}", "2020-01-01") for i in range(3000)])
             for k in range(2)]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    procs = [subprocess.Popen([sys.executable, "-m", "corpuskit", "import", str(f), "--db", str(db),
                               *MAP], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for f in files]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    assert open_corpus(db).count() == 6000


def corpus_of_one_record(tmp_path: Path) -> Path:
    """A corpus file holding one record (one import run), closed."""
    db = tmp_path / "c.db"
    c = open_corpus(db)
    c.add_records([{"source": "news", "contentText": "before", "publishedAt": "2020-01-01"}])
    c.close()
    return db


def test_import_killed_with_sigkill_leaves_the_file_as_it_was(tmp_path):
    db = corpus_of_one_record(tmp_path)
    big = body_csv(tmp_path / "big.csv", [(f"row {i}", "2020-01-01") for i in range(60000)])
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    killed = 0
    for delay in (0.5, 1.5, 3.0):
        proc = subprocess.Popen([sys.executable, "-m", "corpuskit", "import", str(big), "--db", str(db),
                                 *MAP], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(delay)
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
            killed += 1
        proc.wait()
        c = open_corpus(db)
        assert c.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        count = c.count()
        assert count in (1, 60001)   # all or nothing
        runs = c.conn.execute("SELECT count(*) FROM runs WHERE stage = 'import'").fetchone()[0]
        assert runs == (0 if count == 1 else 1) + 1
        c.close()
        if count == 60001:
            break
    assert killed >= 1


KILLED_IN_STORE = """
import sys, time
from corpuskit import open_corpus
from corpuskit.ingest import staging

real = staging.Stage.store

def store_then_hang(self, run_id):
    counts = real(self, run_id)   # every row inserted into records, the transaction still open
    print("stored", counts["added"], flush=True)
    time.sleep(120)
    return counts

staging.Stage.store = store_then_hang
open_corpus(sys.argv[1]).import_file(sys.argv[2], source="news", mapping=["contentText=body", "publishedAt=when"])
"""


def test_import_killed_inside_its_store_transaction_leaves_the_file_as_it_was(tmp_path):
    """The one window in which an import writes the corpus: rows inserted, not yet committed."""
    db = corpus_of_one_record(tmp_path)
    rows = body_csv(tmp_path / "rows.csv", [(f"row {i}", "2020-01-01") for i in range(5000)])
    proc = subprocess.Popen([sys.executable, "-c", KILLED_IN_STORE, str(db), str(rows)], stdout=subprocess.PIPE,
                            text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    try:
        assert proc.stdout.readline().strip() == "stored 5000"
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    c = open_corpus(db)
    assert c.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert c.count() == 1
    assert c.conn.execute("SELECT count(*) FROM runs WHERE stage = 'import'").fetchone()[0] == 1  # the first add
    assert c.import_file(rows, source="news", mapping=["contentText=body", "publishedAt=when"]).added == 5000
    c.close()
