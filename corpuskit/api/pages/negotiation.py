"""Which form a client asked for (``Accept``), and the address it used to reach us (``Host``).

>>> prefers_html("text/html,application/xhtml+xml,*/*;q=0.8")
True
>>> prefers_html("*/*"), prefers_html("application/json"), prefers_html("")
(False, False, False)
"""
from __future__ import annotations

import re

HTML_TYPES = ("text/html", "application/xhtml+xml")
_HOST_RE = re.compile(r"^(?:[A-Za-z0-9](?:[A-Za-z0-9\-]{0,61}[A-Za-z0-9])?"
                      r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9\-]{0,61}[A-Za-z0-9])?)*"
                      r"|\[[0-9A-Fa-f:.]{2,45}\])(?::(\d{1,5}))?$")
MAX_ACCEPT = 2048


def _quality(params: list[str]) -> float:
    for param in params:
        name, _, value = param.partition("=")
        if name.strip().lower() == "q":
            try:
                q = float(value.strip())
            except ValueError:
                return 0.0
            return q if 0.0 <= q <= 1.0 else 0.0
    return 1.0


def accepted(accept: str | None) -> dict[str, float]:
    """The media ranges of an ``Accept`` header with their quality (malformed ones dropped)."""
    out: dict[str, float] = {}
    for part in (accept or "")[:MAX_ACCEPT].split(","):
        media, *params = part.split(";")
        media = media.strip().lower()
        if re.fullmatch(r"[a-z0-9!#$&^_.+\-]+/[a-z0-9!#$&^_.+\-*]+", media):
            out[media] = max(out.get(media, 0.0), _quality(params))
    return out


def prefers_html(accept: str | None) -> bool:
    """True when the client names HTML explicitly and likes it at least as much as JSON.

    A wildcard (``*/*``, which curl and most libraries send) is not a request
    for HTML: those clients get JSON.
    """
    ranges = accepted(accept)
    html_q = max((ranges.get(t, 0.0) for t in HTML_TYPES), default=0.0)
    json_q = ranges.get("application/json", 0.0)
    return html_q > 0.0 and html_q >= json_q


def origin(environ: dict) -> str:
    """``scheme://host[:port]`` the client used, from ``Host`` (checked), else the server's own address.

    A ``Host`` header that is not a plain host name or address with an optional
    port is ignored: the pages print this origin into examples and it must
    never carry anything else.
    """
    scheme = environ.get("HTTP_X_FORWARDED_PROTO") or environ.get("wsgi.url_scheme") or "http"
    scheme = scheme.split(",")[0].strip().lower()
    if scheme not in ("http", "https"):
        scheme = "http"
    host = (environ.get("HTTP_HOST") or "").strip()
    match = _HOST_RE.match(host) if len(host) <= 300 else None
    if match is None or (match.group(1) and not 0 < int(match.group(1)) < 65536):
        name = environ.get("SERVER_NAME") or "127.0.0.1"
        if not _HOST_RE.match(name):
            name = "127.0.0.1"
        port = str(environ.get("SERVER_PORT") or "")
        default = "443" if scheme == "https" else "80"
        host = name if not port.isdigit() or port == default else f"{name}:{port}"
    return f"{scheme}://{host}"
