"""Small builders for the OpenAPI 3.1 documents: schemas, parameters and responses as dicts.

JSON Schema 2020-12 is the schema dialect of OpenAPI 3.1, so nullability is
written as a type list (``["string", "null"]``).
"""
from __future__ import annotations

from corpuskit.query.values import SOURCE_KINDS, SOURCE_SLUG

TIMESTAMP_PATTERN = r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$"
DATE_PATTERN = r"^\d{4}-\d{2}-\d{2}$"
#: What a timestamp parameter accepts (``corpuskit.api.params``): a date, or a date and time
#: with optional seconds, fraction and zone (no zone means UTC).
TIMESTAMP_PARAM_PATTERN = (r"^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?)?"
                           r"(Z|z|[+-]\d{2}:?\d{2})?$")


def ref(name: str) -> dict:
    """A reference to ``#/components/schemas/<name>``."""
    return {"$ref": f"#/components/schemas/{name}"}


def string(**extra) -> dict:
    return {"type": "string", **extra}


def source_name() -> dict:
    """A source name in a response: a known kind or any lower-case slug the corpus was given."""
    return {"type": "string", "pattern": SOURCE_SLUG,
            "description": "source name: one of " + ", ".join(SOURCE_KINDS)
                           + ", or another lower-case slug a file was imported under"}


def nullable(schema: dict) -> dict:
    """``schema`` or null."""
    if "$ref" in schema or "enum" in schema:
        return {"anyOf": [schema, {"type": "null"}]}
    kind = schema["type"]
    kinds = [kind] if isinstance(kind, str) else list(kind)
    return {**schema, "type": kinds + ["null"]}


def integer(minimum: int | None = 0, **extra) -> dict:
    out = {"type": "integer", **extra}
    if minimum is not None:
        out["minimum"] = minimum
    return out


def number(**extra) -> dict:
    return {"type": "number", **extra}


def boolean() -> dict:
    return {"type": "boolean"}


def timestamp(description: str | None = None) -> dict:
    out = {"type": "string", "format": "date-time", "pattern": TIMESTAMP_PATTERN}
    if description:
        out["description"] = description
    return out


def timestamp_param() -> dict:
    """The schema of an ISO 8601 query parameter (date or date-time)."""
    return {"type": "string", "pattern": TIMESTAMP_PARAM_PATTERN, "maxLength": 64}


def day() -> dict:
    return {"type": "string", "format": "date", "pattern": DATE_PATTERN}


def array(items: dict, **extra) -> dict:
    return {"type": "array", "items": items, **extra}


def obj(properties: dict, required=None, additional=True, description: str | None = None) -> dict:
    """An object schema; every property is required unless ``required`` says otherwise."""
    out = {"type": "object", "properties": properties,
           "required": sorted(properties) if required is None else list(required)}
    if additional is not True:
        out["additionalProperties"] = additional
    if description:
        out["description"] = description
    return out


def enum(values, nullable_: bool = False) -> dict:
    values = list(values)
    if nullable_:
        return {"type": ["string", "null"], "enum": values + [None]}
    return {"type": "string", "enum": values}


def query(name: str, schema: dict, description: str, required: bool = False) -> dict:
    return {"name": name, "in": "query", "required": required, "description": description,
            "schema": schema}


def path_param(name: str, description: str, schema: dict | None = None) -> dict:
    return {"name": name, "in": "path", "required": True, "description": description,
            "schema": schema or {"type": "string", "minLength": 1}}


def limit_param(default: int, maximum: int) -> dict:
    return query("limit", {"type": "integer", "minimum": 1, "maximum": maximum, "default": default},
                 f"Page size, default {default}, maximum {maximum}; a larger value is clamped to "
                 f"{maximum}. Zero, negative or non-integer: 400.")


def json_content(schema: dict) -> dict:
    return {"application/json": {"schema": schema}}


def response(description: str, schema: dict, headers: dict | None = None) -> dict:
    out = {"description": description, "content": json_content(schema)}
    if headers:
        out["headers"] = headers
    return out


def header(description: str, schema: dict | None = None, required: bool = True) -> dict:
    return {"description": description, "required": required,
            "schema": schema or {"type": "integer", "minimum": 0}}


#: The shared responses an operation refers to by status code (``#/components/responses/<name>``);
#: each document defines the ones its operations use.
RESPONSE_NAMES = {"301": "Redirect", "400": "BadRequest", "401": "Unauthorized", "404": "NotFound",
                  "429": "TooManyRequests", "500": "SearchFailed", "503": "NotConfigured"}


def operation(summary: str, schema_name: str, parameters=(), errors=(), operation_id: str = "",
              description: str = "", *, headers: dict | None = None, always=("401", "429")) -> dict:
    """A GET operation: 200 with ``schema_name`` (and ``headers``), plus references to the shared
    responses of the status codes in ``errors`` and ``always`` (:data:`RESPONSE_NAMES`).

    Both documents build every operation of this shape here; each binds its rate-limit headers and
    the codes every one of its operations may answer (``api/openapi/keyed.py`` and ``bearer.py``).
    """
    responses = {"200": response("OK", ref(schema_name), headers)}
    for code in (*errors, *always):
        responses[code] = {"$ref": f"#/components/responses/{RESPONSE_NAMES[code]}"}
    out = {"summary": summary, "operationId": operation_id, "parameters": list(parameters),
           "responses": dict(sorted(responses.items()))}
    if description:
        out["description"] = description
    return {"get": out}
