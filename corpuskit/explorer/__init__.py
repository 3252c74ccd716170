"""The notebook explorer: query boxes, filters, attention over time and linked panes in one widget.

``corpuskit.explore(corpus)`` (or ``corpus.explore()``) returns an :class:`Explorer`; display it in a
notebook. Its state and answers are :class:`ExplorerState` (no widget), its code view
:func:`~corpuskit.explorer.code.view_code`. See docs/explore.md.
"""
from corpuskit.explorer.panel import Explorer, explore
from corpuskit.explorer.state import ExplorerState

__all__ = ["Explorer", "ExplorerState", "explore"]
