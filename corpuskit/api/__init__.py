"""HTTP interfaces over a corpus: ``/v1`` (bearer, read-only) and ``/api/v1`` (keyed).

>>> from corpuskit.api import create_app
>>> app = create_app(corpus)    # doctest: +SKIP   (a WSGI app; server.py serves it)
"""
from corpuskit.api.app import create_app

__all__ = ["create_app"]
