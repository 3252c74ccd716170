"""``/docs``: the API reference as one HTML page, rendered from the two OpenAPI documents.

Nothing here is written by hand about an endpoint: every path, method,
parameter (type, limits, default), response, error shape and rate-limit
header comes from :func:`corpuskit.api.openapi.document`, so the page cannot
drift from what the server does. Grouped by interface, then by resource (the
path segment after the interface's base). No script, no external asset.
"""
from __future__ import annotations

import functools
import re

from corpuskit.api.openapi import document
from corpuskit.api.pages.html import (Markup, code, element, escape, inline_list, join, link, prose,
                                      table)
from corpuskit.api.pages.html import document as html_document

#: Interfaces in page order: (name in corpuskit.api.openapi, base path, heading).
INTERFACES = (
    ("keyed", "/api/v1", "Keyed interface"),
    ("bearer", "/v1", "Bearer interface"),
)
METHODS = ("get", "put", "post", "delete", "patch", "head", "options")
RESOURCE_TITLES = {"openapi.json": "OpenAPI document", "stats": "Statistics", "stream": "Streams"}


def _anchor(*parts) -> str:
    """An id attribute value from ``parts`` (letters, digits, ``-``)."""
    return re.sub(r"[^A-Za-z0-9]+", "-", "-".join(str(p) for p in parts)).strip("-")


def _range(low, high, what: str) -> str | None:
    """``1 to 50``, ``at least 1``, ``at most 64`` (after ``what``), or None without bounds."""
    if low is not None and high is not None:
        return f"{what}{low} to {high}"
    if low is not None:
        return f"{what}at least {low}"
    if high is not None:
        return f"{what}at most {high}"
    return None


def resource_of(path: str, base: str) -> str:
    """``/api/v1/narratives/{slug}`` -> ``narratives``."""
    rest = path[len(base):].lstrip("/") if path.startswith(base) else path.lstrip("/")
    return rest.split("/", 1)[0] or "root"


def resource_title(resource: str) -> str:
    return RESOURCE_TITLES.get(resource, resource.replace("-", " ").capitalize())


class _Renderer:
    """Renders one OpenAPI document; ``iface`` prefixes every anchor it makes."""

    def __init__(self, doc: dict, iface: str, base: str):
        self.doc, self.iface, self.base = doc, iface, base
        self.components = doc.get("components", {})

    # -- references ---------------------------------------------------------
    def schema_anchor(self, name: str) -> str:
        return _anchor(self.iface, "schema", name)

    def response_anchor(self, name: str) -> str:
        return _anchor(self.iface, "response", name)

    def op_anchor(self, method: str, path: str, op: dict) -> str:
        return _anchor(self.iface, op.get("operationId") or f"{method}{path}")

    def resolve(self, node: dict) -> tuple[dict, str | None]:
        """``node`` with a local ``$ref`` followed: ``(target, component name or None)``."""
        ref = node.get("$ref") if isinstance(node, dict) else None
        if not ref or not ref.startswith("#/components/"):
            return node, None
        _, section, name = ref[len("#/"):].split("/", 2)
        return self.components.get(section, {}).get(name, {}), name

    # -- schemas as text ------------------------------------------------------
    def type_of(self, schema) -> Markup:
        """A schema as a short phrase: ``string or null``, ``array of RecordItem``, ``one of a, b``."""
        if not isinstance(schema, dict) or not schema:
            return escape("any")
        if "$ref" in schema:
            _, name = self.resolve(schema)
            return link("#" + self.schema_anchor(name), name) if name else escape(schema["$ref"])
        for key, word in (("anyOf", " or "), ("oneOf", " or "), ("allOf", " and ")):
            if key in schema:
                return join([self.type_of(s) for s in schema[key]], word)
        if "enum" in schema:
            values = [code("null") if v is None else code(v) for v in schema["enum"]]
            return join(["one of ", join(values, ", ")])
        kinds = schema.get("type", "any")
        kinds = [kinds] if isinstance(kinds, str) else list(kinds)
        words = []
        for kind in kinds:
            if kind == "array":
                words.append(join(["array of ", self.type_of(schema.get("items", {}))]))
            elif kind == "object" and isinstance(schema.get("additionalProperties"), dict):
                words.append(join(["object of ", self.type_of(schema["additionalProperties"])]))
            elif kind == "string" and schema.get("format"):
                words.append(escape(f"string ({schema['format']})"))
            else:
                words.append(escape(kind))
        return join(words, " or ")

    @staticmethod
    def limits(schema) -> Markup | None:
        """Bounds of a schema: ``1 to 100``, ``length 3 to 500``, ``pattern ...``."""
        if not isinstance(schema, dict):
            return None
        parts = [escape(text) for text in (_range(schema.get("minimum"), schema.get("maximum"), ""),
                                           _range(schema.get("minLength"), schema.get("maxLength"), "length "))
                 if text]
        if schema.get("minItems") is not None:
            parts.append(escape(f"at least {schema['minItems']} items"))
        if schema.get("pattern"):
            parts.append(join(["pattern ", code(schema["pattern"])]))
        return join(parts, "; ") if parts else None

    @staticmethod
    def default(schema) -> Markup:
        if isinstance(schema, dict) and "default" in schema:
            value = schema["default"]
            return code(str(value).lower() if isinstance(value, bool) else value)
        return escape("\u2013")

    # -- parameters, responses ------------------------------------------------
    def parameters_table(self, params: list) -> Markup:
        if not params:
            return element("p", "No parameters.", class_="note")
        rows = []
        for param in params:
            param, _ = self.resolve(param)
            schema = param.get("schema", {})
            where = param.get("in", "")
            flag = f"{where}, required" if param.get("required") else where
            details = [self.type_of(schema), self.limits(schema),
                       join(["default ", self.default(schema)]) if "default" in schema else None]
            rows.append([join([code(param.get("name", "")), Markup("<br>"),
                               element("span", flag, class_="note")]),
                         join([d for d in details if d is not None], Markup("<br>")),
                         prose(param.get("description", ""))])
        return table(["Parameter", "Type, limits, default", "Description"], rows,
                     caption="Parameters", wide=True)

    def _response_body(self, response: dict) -> Markup:
        content = response.get("content") or {}
        if not content:
            return escape("\u2013")
        cells = []
        for media, entry in content.items():
            kind = None if media == "application/json" else element("span", f" ({media})", class_="note")
            cells.append(join([self.type_of(entry.get("schema", {})), kind]))
        return join(cells, "; ")

    def responses(self, responses: dict) -> Markup:
        """The operation's own responses as a table; the shared ones (errors) as one linked line."""
        rows, shared = [], []
        for status, node in responses.items():
            target, name = self.resolve(node)
            if name:
                shared.append(join([code(status), " ", link("#" + self.response_anchor(name), name)]))
            else:
                rows.append([code(status), prose(target.get("description", "")), self._response_body(target)])
        if len(rows) == 1:
            status, meaning, body = rows[0]
            own = element("p", "Answer: ", status, " ", meaning, ", body ", body, ".")
        else:
            own = table(["Status", "Meaning", "Body"], rows, caption="Responses", wide=True) if rows else None
        return join([
            own,
            element("p", "Errors: ", join(shared, ", "), " (see ",
                    link("#" + _anchor(self.iface, "errors"), "Errors"), ").") if shared else None,
        ])

    # -- pieces of the page ------------------------------------------------------
    def operations(self):
        """``(resource, method, path, operation)`` in document order."""
        for path, item in self.doc.get("paths", {}).items():
            for method in METHODS:
                if method in item:
                    yield resource_of(path, self.base), method, path, item[method]

    def needs_key(self, op: dict) -> bool:
        security = op.get("security", self.doc.get("security", []))
        return bool(security)

    def operation(self, method: str, path: str, op: dict) -> Markup:
        key_note = "Needs a key." if self.needs_key(op) else "No key needed."
        if "no key" in op.get("summary", "").lower():
            key_note = None  # the summary says it already
        return join([
            element("h4", element("span", method.upper(), class_="method"), code(path),
                    id=self.op_anchor(method, path, op), class_="op"),
            element("p", prose(op.get("summary", "")), ". " if op.get("summary") else "", key_note),
            element("p", prose(op["description"])) if op.get("description") else None,
            self.parameters_table(op.get("parameters", [])),
            self.responses(op.get("responses", {})),
        ])

    def endpoint_index(self) -> Markup:
        rows = [[link("#" + self.op_anchor(m, p, op), join([m.upper(), " ", p])),
                 prose(op.get("summary", "")), "yes" if self.needs_key(op) else "no"]
                for _, m, p, op in self.operations()]
        return table(["Endpoint", "What it answers", "Key"], rows, caption="Endpoints", wide=True)

    def auth_section(self) -> Markup:
        schemes = self.components.get("securitySchemes", {})
        rows = []
        for name, scheme in schemes.items():
            if scheme.get("type") == "apiKey":
                how = join(["header ", code(f"{scheme.get('name')}: <key>")])
            elif scheme.get("type") == "http":
                how = join(["header ", code(f"Authorization: {str(scheme.get('scheme', '')).capitalize()} <key>")])
            else:
                how = escape(scheme.get("type", ""))
            rows.append([code(name), how, prose(scheme.get("description", ""))])
        open_paths = [code(p) for _, m, p, op in self.operations() if not self.needs_key(op)]
        return join([
            element("h3", "Authentication", id=_anchor(self.iface, "auth")),
            table(["Scheme", "How to send it", "Notes"], rows, caption="Accepted credentials", wide=True),
            element("p", "No key needed for: ", join(open_paths, ", "), ".") if open_paths else None,
        ])

    def _headers(self) -> dict:
        """Every response header the document names, first description wins, in first-seen order."""
        seen: dict = {}
        responses = [r for r in self.components.get("responses", {}).values()]
        for _, _, _, op in self.operations():
            responses += [self.resolve(r)[0] for r in op.get("responses", {}).values()]
        for response in responses:
            for name, header in (response.get("headers") or {}).items():
                seen.setdefault(name, header)
        return seen

    def errors_section(self) -> Markup:
        used: dict[str, set] = {}
        for _, _, _, op in self.operations():
            for status, node in op.get("responses", {}).items():
                _, name = self.resolve(node)
                if name:
                    used.setdefault(name, set()).add(status)
        parts = [element("h3", "Errors", id=_anchor(self.iface, "errors")),
                 element("p", "Every error body is JSON, ", code('{"error": "<message>"}'),
                         ", with ", code("Content-Type: application/json"), "; the body shapes are ",
                         join([link("#" + self.schema_anchor(n), n) for n in self.components.get("schemas", {})
                               if "Error" in n], " and "), ".")]
        rows = []
        for name, response in self.components.get("responses", {}).items():
            statuses = join([code(s) for s in sorted(used.get(name, ()))], ", ") or escape("\u2013")
            headers = join([code(h) for h in (response.get("headers") or {})], ", ") or escape("\u2013")
            rows.append([element("span", name, id=self.response_anchor(name)), statuses,
                         prose(response.get("description", "")), self._response_body(response), headers])
        parts.append(table(["Response", "Status", "When", "Body", "Headers"], rows,
                           caption="Shared responses", wide=True))
        return join(parts)

    def headers_section(self) -> Markup:
        rows = [[code(name), self.type_of(h.get("schema", {})), prose(h.get("description", ""))]
                for name, h in self._headers().items()]
        return join([element("h3", "Rate-limit and other response headers", id=_anchor(self.iface, "headers")),
                     table(["Header", "Type", "Meaning"], rows, caption="Response headers", wide=True)])

    # -- schemas --------------------------------------------------------------------
    def field_rows(self, schema: dict, prefix: str = "", depth: int = 0) -> list:
        rows = []
        required = set(schema.get("required", []))
        for name, sub in (schema.get("properties") or {}).items():
            label = f"{prefix}{name}"
            notes = [prose(sub.get("description", "")) if isinstance(sub, dict) and sub.get("description")
                     else None, self.limits(sub)]
            field = join([element("code", join(label.split("."), Markup(".<wbr>"))),
                          None if name in required else element("span", Markup("<br>"), "may be absent",
                                                                class_="note")])
            notes = [n for n in notes if n]
            rows.append([field, join([self.type_of(sub), Markup("<br>") if notes else None,
                                      join(notes, "; ")])])
            if depth < 3 and isinstance(sub, dict):
                if sub.get("properties"):
                    rows += self.field_rows(sub, f"{label}.", depth + 1)
                elif isinstance(sub.get("items"), dict) and sub["items"].get("properties"):
                    rows += self.field_rows(sub["items"], f"{label}[].", depth + 1)
        return rows

    def schema(self, name: str, schema: dict) -> Markup:
        parts = [element("h4", name, id=self.schema_anchor(name))]
        inline = [schema]
        if "allOf" in schema:
            refs = [s for s in schema["allOf"] if "$ref" in s]
            inline = [s for s in schema["allOf"] if "$ref" not in s]
            if refs:
                parts.append(element("p", "Every field of ", join([self.type_of(r) for r in refs], " and "),
                                     ", and:"))
        if schema.get("description"):
            parts.append(element("p", prose(schema["description"])))
        rows = [row for s in inline for row in self.field_rows(s)]
        if rows:
            parts.append(table(["Field", "Type and notes"], rows, wide=True))
        elif not refs_only(schema):
            parts.append(element("p", "A value of type ", self.type_of(schema), "."))
        return join(parts)

    def schemas_section(self) -> Markup:
        schemas = self.components.get("schemas", {})
        return join([element("h3", "Response bodies", id=_anchor(self.iface, "schemas")),
                     join([self.schema(name, s) for name, s in schemas.items()])])

    # -- the whole interface ------------------------------------------------------------
    def resources(self) -> dict:
        groups: dict[str, list] = {}
        for resource, method, path, op in self.operations():
            groups.setdefault(resource, []).append((method, path, op))
        return groups

    def section(self, heading: str) -> Markup:
        info = self.doc.get("info", {})
        groups = self.resources()
        body = [
            element("h2", heading, ": ", code(self.base), id=self.iface),
            element("p", element("strong", info.get("title", "")), " (version ",
                    info.get("version", ""), "). ", prose(info.get("description", ""))),
            element("p", "Machine-readable: ", link(f"{self.base}/openapi.json", f"{self.base}/openapi.json"),
                    " (OpenAPI ", self.doc.get("openapi", ""), ")."),
            self.endpoint_index(),
            self.auth_section(),
            self.headers_section(),
            self.errors_section(),
        ]
        for resource, ops in groups.items():
            body.append(element("h3", resource_title(resource), " ", code(f"{self.base}/{resource}"),
                                id=_anchor(self.iface, "res", resource)))
            body += [self.operation(m, p, op) for m, p, op in ops]
        body.append(self.schemas_section())
        return element("section", body, aria_labelledby=self.iface)

    def contents(self, heading: str) -> Markup:
        general = [link(f"#{_anchor(self.iface, x)}", label)
                   for x, label in (("auth", "Authentication"), ("headers", "Response headers"),
                                    ("errors", "Errors"), ("schemas", "Response bodies"))]
        resources = [link(f"#{_anchor(self.iface, 'res', r)}", resource_title(r)) for r in self.resources()]
        return element("div",
                       element("h3", link(f"#{self.iface}", heading, " ", code(self.base))),
                       element("p", "Resources"), inline_list(resources, f"{heading}: resources"),
                       element("p", "For every endpoint"), inline_list(general, f"{heading}: general"))


def refs_only(schema: dict) -> bool:
    return "allOf" in schema and all("$ref" in s for s in schema["allOf"])


@functools.lru_cache(maxsize=1)
def reference_page() -> bytes:
    """The ``/docs`` page (the same bytes for the life of the process)."""
    renderers = [(_Renderer(document(name), name, base), heading) for name, base, heading in INTERFACES]
    body = join([
        element("header",
                element("h1", "corpuskit API reference"),
                element("p", "Both HTTP interfaces of this server, read from their OpenAPI documents. ",
                        link("/", "Back to the corpus page"), ".", class_="lede")),
        element("nav", element("h2", "Contents", id="contents"),
                element("div", [r.contents(heading) for r, heading in renderers], class_="toc"),
                aria_label="Contents"),
        element("main", [r.section(heading) for r, heading in renderers]),
        element("footer", "Generated from ", link("/api/v1/openapi.json", "/api/v1/openapi.json"), " and ",
                link("/v1/openapi.json", "/v1/openapi.json"), "."),
    ])
    return html_document("corpuskit API reference", body,
                         description="Every endpoint, parameter, response, error and rate-limit header "
                                     "of the corpuskit HTTP interfaces.")
