"""For every test run: a private, empty cache folder for the builds the tests share.

The run's first process (pytest itself, or xdist's controller) makes the folder and names it in
``CORPUSKIT_TEST_CACHE``; xdist's workers inherit the variable, so the session demo and the
Reddit run are built once per run (``tests/conftest.py``), and no build of another run is read.
The folder is removed when that process exits. (The notebooks' ``demo_file`` uses the user's
cache folder, as a researcher's run does.)
"""
import atexit
import os
import shutil
import tempfile

if "PYTEST_XDIST_WORKER" not in os.environ:
    _CACHE = tempfile.mkdtemp(prefix="corpuskit-test-cache-")
    os.environ["CORPUSKIT_TEST_CACHE"] = _CACHE
    atexit.register(shutil.rmtree, _CACHE, ignore_errors=True)
