"""The tools a benchmark compares corpuskit against (Datasette, sqlite-utils): dev dependencies, found on PATH.

They come with ``pip install -e '.[dev]'``. A benchmark that compares against one and cannot find it
stops with an error naming that install line: a comparison is never silently left out.
"""
from __future__ import annotations

import shutil
import sys
from pathlib import Path

#: the line that installs every peer
INSTALL = "pip install -e '.[dev]'"


def peer(name: str, given: str | None = None) -> str:
    """The path of the command ``name``: ``given`` when set, else on ``PATH``, else next to this Python.

    Raises SystemExit with the install line when it is not there.
    """
    if given is not None:
        if not Path(given).exists():
            raise SystemExit(f"{name} not found at {given}")
        return given
    found = shutil.which(name)
    if found is None and Path(sys.executable).with_name(name).exists():
        found = str(Path(sys.executable).with_name(name))
    if found is None:
        raise SystemExit(f"{name} is not installed (a dev dependency the benchmark compares against): "
                         f"{INSTALL}")
    return found
