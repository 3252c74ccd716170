"""OpenAPI 3.1 documents of both interfaces, built as Python dicts.

``document("keyed")`` describes ``/api/v1`` and ``document("bearer")``
describes ``/v1``; both are served without a key (``/api/v1/openapi.json``
and ``/v1/openapi.json``) and checked by ``openapi-spec-validator`` and
schemathesis in the tests.
"""
from __future__ import annotations

import copy
import functools

from corpuskit.api.errors import encode_json

INTERFACES = ("keyed", "bearer")


@functools.lru_cache(maxsize=None)
def _built(interface: str) -> dict:
    if interface == "keyed":
        from corpuskit.api.openapi.keyed import keyed_document

        return keyed_document()
    if interface == "bearer":
        from corpuskit.api.openapi.bearer import bearer_document

        return bearer_document()
    raise ValueError(f"unknown interface {interface!r}; expected one of {', '.join(INTERFACES)}")


def document(interface: str) -> dict:
    """A fresh copy of the OpenAPI document of ``interface`` (``keyed`` or ``bearer``)."""
    return copy.deepcopy(_built(interface))


@functools.lru_cache(maxsize=None)
def document_bytes(interface: str) -> bytes:
    """The document as compact UTF-8 JSON (what the server sends)."""
    return encode_json(_built(interface))


__all__ = ["INTERFACES", "document", "document_bytes"]
