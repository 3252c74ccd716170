"""server.py keeps numpy's BLAS to one thread per request thread, unless the user says otherwise."""
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
PROBE = "import server, os; print(' '.join(os.environ[v] for v in %r))" % (VARS,)


def _probe(**env):
    base = {k: v for k, v in os.environ.items() if k not in VARS}
    out = subprocess.run([sys.executable, "-c", PROBE], cwd=ROOT, env={**base, **env},
                         capture_output=True, text=True, check=True, timeout=60)
    return out.stdout.split()


def test_blas_threads_default_to_one():
    assert _probe() == ["1", "1", "1"]


def test_a_setting_in_the_environment_wins():
    assert _probe(OPENBLAS_NUM_THREADS="4") == ["4", "1", "1"]
