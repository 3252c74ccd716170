"""For every test run: a private, empty cache folder for ``corpuskit.demo.demo_file``.

The run's first process (pytest itself, or xdist's controller) makes the folder and names it in
``CORPUSKIT_CACHE_DIR``; xdist's workers and nbval's notebook kernels inherit the variable, so one
run's tests and notebooks share its demo builds, and no build of another run or of the user's own
cache is read. The folder is removed when that process exits.
"""
import atexit
import os
import shutil
import tempfile

if "PYTEST_XDIST_WORKER" not in os.environ:
    _CACHE = tempfile.mkdtemp(prefix="corpuskit-test-cache-")
    os.environ["CORPUSKIT_CACHE_DIR"] = _CACHE
    atexit.register(shutil.rmtree, _CACHE, ignore_errors=True)
