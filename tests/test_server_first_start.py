"""The README's main command on a fresh folder: ``python server.py`` builds the demo into ``./corpus.db``
and gets as far as listening on its socket (the demo made small here; the listen call stops the run); a port
in use stops it before anything is built or a key is made."""
import subprocess
import sys
from pathlib import Path

from corpuskit import open_corpus
from corpuskit.store.api_keys import list_keys

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = f"""
import sys
sys.path.insert(0, {str(ROOT)!r})
import corpuskit.demo, server

real = corpuskit.demo.build_demo
def small(corpus, progress=True):
    return real(corpus, records=600, days=28, progress=False)
corpuskit.demo.build_demo = small

def stop(*args, **kwargs):
    print("socket asked for", args, flush=True)
    raise SystemExit(7)
server.start_listening = stop
sys.exit(server.main(["--port", "0", "--workers", "1"]))
"""


def test_first_start_builds_the_demo_and_makes_a_key(tmp_path):
    done = subprocess.run([sys.executable, "-c", SCRIPT], cwd=tmp_path, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 7, done.stdout + done.stderr
    assert "building the demo corpus" in done.stdout and "demo corpus ready: 600 records" in done.stdout
    corpus = open_corpus(tmp_path / "corpus.db")
    try:
        assert corpus.count() == 600
        assert len(corpus.topics()) > 0 and len(corpus.runs()) >= 3      # every stage ran
        assert [k.name for k in list_keys(corpus.conn) if k.active] == ["server.py start"]
    finally:
        corpus.close()


def test_a_port_in_use_fails_at_once_and_makes_no_corpus_and_no_key(tmp_path):
    import socket

    taken = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    port = taken.getsockname()[1]
    try:
        done = subprocess.run([sys.executable, str(ROOT / "server.py"), "--port", str(port), "--workers", "1"],
                              cwd=tmp_path, capture_output=True, text=True, timeout=120)
    finally:
        taken.close()
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"server.py: error: cannot listen on 127.0.0.1:{port}" in done.stderr and "--port" in done.stderr
    assert "Traceback" not in done.stderr and "building the demo" not in done.stdout
    assert not (tmp_path / "corpus.db").exists()
