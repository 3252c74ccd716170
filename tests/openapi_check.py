"""Check HTTP answers against the OpenAPI documents: the operation's schema for that status.

``check_response(interface, method, path, status, headers, body)`` finds the
operation whose path template matches ``path`` (query string ignored), takes
the response declared for ``status``, and validates the JSON body against its
schema (``openapi-schema-validator``, OpenAPI 3.1 dialect) and the declared
required headers. It fails the test with the schema error. Both interfaces
can use it: ``interface`` is ``"keyed"`` or ``"bearer"``.

``checked_call(app, interface, path, headers)`` runs the request through the
in-process client and checks it in one go.
"""
from __future__ import annotations

import functools
import json
import re
from urllib.parse import unquote

from openapi_schema_validator import OAS31Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from corpuskit.api.openapi import document
from tests.http_client import call

_DOC_URI = "urn:corpuskit:openapi:"


@functools.lru_cache(maxsize=None)
def _doc(interface: str) -> dict:
    return document(interface)


@functools.lru_cache(maxsize=None)
def _registry(interface: str) -> Registry:
    resource = Resource.from_contents(_doc(interface), default_specification=DRAFT202012)
    return Registry().with_resource(_DOC_URI + interface, resource)


@functools.lru_cache(maxsize=None)
def _templates(interface: str) -> list[tuple[re.Pattern, str]]:
    out = []
    for template in _doc(interface)["paths"]:
        pattern = "^" + re.sub(r"\\\{[^}]+\\\}", r"([\\s\\S]+)", re.escape(template)) + "$"
        # literal segments first, so /entities/sitemap-pages wins over /entities/{id}
        out.append((re.compile(pattern), template))
    out.sort(key=lambda item: (item[1].count("{"), -len(item[1])))
    return out


def operation_for(interface: str, method: str, path: str):
    """``(template, operation)`` for a concrete request path; AssertionError when none matches."""
    bare = unquote(path.partition("?")[0])
    for pattern, template in _templates(interface):
        if pattern.match(bare):
            operation = _doc(interface)["paths"][template].get(method.lower())
            assert operation is not None, f"{method} {template} not in the {interface} document"
            return template, operation
    raise AssertionError(f"no path of the {interface} document matches {bare!r}")


def _locate(interface: str, node: dict, parts: list) -> tuple[dict, list]:
    """Follow ``$ref`` from ``node`` (found at ``parts``); returns the target and its path."""
    while "$ref" in node:
        parts = [p.replace("~1", "/").replace("~0", "~") for p in node["$ref"].lstrip("#/").split("/")]
        node = _doc(interface)
        for part in parts:
            node = node[part]
    return node, parts


def _resolve(interface: str, node: dict) -> dict:
    return _locate(interface, node, [])[0]


def _pointer(*parts) -> str:
    return "#/" + "/".join(str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def check_response(interface: str, method: str, path: str, status: int, headers: dict, body) -> None:
    """Assert that one answer matches the document (schema and required headers)."""
    template, operation = operation_for(interface, method, path)
    responses = operation["responses"]
    key = str(status) if str(status) in responses else "default"
    assert key in responses, f"{method} {template}: status {status} is not documented"
    declared, where = _locate(interface, responses[key],
                              ["paths", template, method.lower(), "responses", key])
    lowered = {k.lower(): v for k, v in (headers or {}).items()}
    for name, spec in (declared.get("headers") or {}).items():
        spec = _resolve(interface, spec)
        if spec.get("required"):
            assert name.lower() in lowered, f"{method} {template} {status}: header {name} missing"
    content = declared.get("content")
    if not content:
        return
    media = next(iter(content))
    if media == "application/json":
        assert lowered.get("content-type", "").startswith("application/json"), lowered
        if isinstance(body, (bytes, bytearray)):
            body = json.loads(bytes(body).decode("utf-8"))
        ref = _DOC_URI + interface + _pointer(*where, "content", media, "schema")
        validator = OAS31Validator({"$ref": ref}, registry=_registry(interface))
        errors = sorted(validator.iter_errors(body), key=lambda e: list(e.absolute_path))
        assert not errors, (f"{method} {path} -> {status} violates the {interface} document: "
                            + "; ".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:5]))


def checked_call(app, interface: str, path: str, headers: dict | None = None, method: str = "GET"):
    """Call ``app`` and check the answer against the document; returns ``(status, headers, obj)``."""
    status, response_headers, data = call(app, method, path, headers)
    body = json.loads(data.decode("utf-8")) if response_headers.get(
        "content-type", "").startswith("application/json") else data
    check_response(interface, method, path, status, response_headers, body)
    return status, response_headers, body
