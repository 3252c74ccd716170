"""nbval's kernels for these notebooks import this checkout and draw inline.

nbval starts each notebook's kernel (``--nbval-current-env``: this interpreter)
in ``notebooks/`` with the environment of the pytest process, so this checkout
goes first on its path (an installed corpuskit elsewhere is not the code under
test) and ``MPLBACKEND`` is dropped (a non-interactive backend stores no figures).
"""
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
os.environ.pop("MPLBACKEND", None)
