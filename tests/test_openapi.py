"""The two OpenAPI 3.1 documents: valid, served without a key, and in step with the routes."""
from __future__ import annotations

import json
import re

import pytest
from openapi_spec_validator import validate

from corpuskit import open_corpus
from corpuskit.api import create_app
from corpuskit.api.keyed import handlers
from corpuskit.api.openapi import INTERFACES, document, document_bytes
from tests.http_client import call
from tests.openapi_check import check_response, operation_for

PREFIXES = {"keyed": "/api/v1", "bearer": "/v1/"}


@pytest.fixture(scope="module")
def app():
    corpus = open_corpus(":memory:")
    yield create_app(corpus)
    corpus.close()


@pytest.mark.parametrize("interface", INTERFACES)
def test_document_is_valid_openapi_31(interface):
    doc = document(interface)
    assert doc["openapi"] == "3.1.0"
    validate(doc)


@pytest.mark.parametrize("interface, path", [("keyed", "/api/v1/openapi.json"),
                                             ("bearer", "/v1/openapi.json")])
def test_documents_are_served_without_a_key(app, interface, path):
    status, headers, data = call(app, "GET", path)
    assert status == 200
    assert headers["content-type"].startswith("application/json")
    assert json.loads(data) == document(interface)
    assert data == document_bytes(interface)


def _route_templates(app, prefix):
    out = set()
    for route in app.routes:
        if route.method != "GET" or not route.rule.startswith(prefix):
            continue
        out.add(re.sub(r"<(\w+)(:[^>]*)?>", r"{\1}", route.rule))
    return out


@pytest.mark.parametrize("interface", INTERFACES)
def test_every_route_is_documented_and_every_path_is_served(app, interface):
    prefix = PREFIXES[interface]
    documented = set(document(interface)["paths"])
    served = _route_templates(app, prefix) | ({"/v1/openapi.json"} if interface == "bearer" else set())
    if interface == "keyed":
        served -= {"/v1/openapi.json"}
    # path parameter names may differ between a route and the document; compare shapes
    shape = lambda p: re.sub(r"\{\w+\}", "{}", p)  # noqa: E731
    assert {shape(p) for p in served} == {shape(p) for p in documented}


def test_keyed_document_carries_the_code_bounds():
    doc = document("keyed")
    for section, (default, maximum) in handlers.PAGE_LIMITS.items():
        params = doc["paths"][f"/api/v1/{section}" if section != "search" else "/api/v1/search"][
            "get"]["parameters"]
        limit = next(p for p in params if p["name"] == "limit")["schema"]
        assert (limit["default"], limit["maximum"], limit["minimum"]) == (default, maximum, 1)
    discourse = doc["paths"]["/api/v1/discourse"]["get"]["parameters"]
    source = next(p for p in discourse if p["name"] == "source")["schema"]
    assert source["enum"] == list(handlers.KEYED_SOURCES) and "gdelt" in source["enum"]
    q = next(p for p in doc["paths"]["/api/v1/search"]["get"]["parameters"] if p["name"] == "q")
    assert q["required"] and (q["schema"]["minLength"], q["schema"]["maxLength"]) == (3, 500)
    schemes = doc["components"]["securitySchemes"]
    assert schemes["ApiKeyHeader"] == {**schemes["ApiKeyHeader"], "type": "apiKey", "in": "header",
                                       "name": "x-api-key"}
    assert schemes["BearerKey"]["scheme"] == "bearer"
    assert doc["paths"]["/api/v1/status"]["get"]["security"] == []
    for path, item in doc["paths"].items():
        responses = item["get"]["responses"]
        if path.endswith(("/status", "/openapi.json")):
            continue
        assert {"200", "401", "429", "503"} <= set(responses), path


def test_response_checker_catches_violations():
    good = {"error": "Topic not found"}
    check_response("keyed", "GET", "/api/v1/topics/x", 404, {
        "Content-Type": "application/json", "RateLimit-Limit": "5", "RateLimit-Remaining": "4",
        "RateLimit-Reset": "3", "RateLimit-Policy": "5;w=60, 100;w=86400"}, good)
    with pytest.raises(AssertionError, match="header RateLimit-Limit missing"):
        check_response("keyed", "GET", "/api/v1/topics/x", 404,
                       {"Content-Type": "application/json"}, good)
    with pytest.raises(AssertionError, match="violates"):
        check_response("keyed", "GET", "/api/v1/status", 200, {"Content-Type": "application/json"},
                       {"status": "operational", "totalRecords": "many"})
    with pytest.raises(AssertionError, match="not documented"):
        check_response("keyed", "GET", "/api/v1/status", 418, {}, good)
    assert operation_for("bearer", "GET", "/v1/entities/sitemap-pages")[0] == \
        "/v1/entities/sitemap-pages"
    assert operation_for("bearer", "GET", "/v1/entities/ent_abc")[0] == "/v1/entities/{id}"
