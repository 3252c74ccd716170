"""``python -m corpuskit`` is the ``corpuskit`` command."""
import sys

from corpuskit.cli import main

sys.exit(main())
