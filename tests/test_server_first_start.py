"""The README's main command on a fresh folder: ``python server.py`` builds the demo into ``./corpus.db``
and gets as far as opening its socket (the demo made small here; the socket call stops the run)."""
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
server.listening_socket = stop
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
