"""A tiny in-process WSGI client for the API tests (no server, no sockets).

``call(app, "GET", "/v1/records?limit=2", headers={...})`` returns
``(status, headers, body_bytes)``; ``assert_json_error`` checks the one error
shape every endpoint shares.
"""
from __future__ import annotations

import io
import json
from urllib.parse import unquote
from wsgiref.util import setup_testing_defaults


def call(app, method: str, path: str, headers: dict | None = None, body: bytes = b""):
    """Run one request through ``app``; ``path`` may carry a query string (already URL-encoded)."""
    path_part, _, query = path.partition("?")
    environ = {
        "REQUEST_METHOD": method.upper(),
        # WSGI servers percent-decode the path and hand it over as latin-1 text.
        "PATH_INFO": unquote(path_part, encoding="latin-1"),
        "QUERY_STRING": query,
        "wsgi.input": io.BytesIO(body),
        "CONTENT_LENGTH": str(len(body)),
    }
    for name, value in (headers or {}).items():
        key = name.upper().replace("-", "_")
        if key == "CONTENT_TYPE":
            environ["CONTENT_TYPE"] = value
        else:
            environ["HTTP_" + key] = value
    setup_testing_defaults(environ)
    captured = {}

    def start_response(status, response_headers, exc_info=None):
        captured["status"] = int(status.split(" ", 1)[0])
        captured["headers"] = {k.lower(): v for k, v in response_headers}
        return lambda data: None

    result = app(environ, start_response)
    try:
        data = b"".join(result)
    finally:
        if hasattr(result, "close"):
            result.close()
    return captured["status"], captured["headers"], data


def call_json(app, path: str, headers: dict | None = None, method: str = "GET"):
    """``call`` and decode the JSON body: ``(status, headers, obj)``."""
    status, response_headers, data = call(app, method, path, headers)
    assert response_headers.get("content-type", "").startswith("application/json"), (
        status, response_headers, data[:200])
    return status, response_headers, json.loads(data.decode("utf-8"))


def assert_json_error(status: int, body, expected: int | tuple | None = None, headers: dict | None = None):
    """The body is ``{"error": "<non-empty string>"}`` and the status a 4xx/5xx (or ``expected``)."""
    if isinstance(body, (bytes, bytearray)):
        text = bytes(body).decode("utf-8")
        assert not text.lstrip().startswith("<"), f"HTML error page: {text[:200]}"
        body = json.loads(text)
    if headers is not None:
        assert headers.get("content-type", "").startswith("application/json"), headers
    if expected is None:
        assert 400 <= status < 600, status
    elif isinstance(expected, tuple):
        assert status in expected, (status, body)
    else:
        assert status == expected, (status, body)
    assert isinstance(body, dict) and set(body) == {"error"}, body
    assert isinstance(body["error"], str) and body["error"], body
