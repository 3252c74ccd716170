"""Record the HTTP answers of both interfaces on one corpus file, to show a refactor changed none of them.

    python benchmarks/record_answers.py --db demo.db --out before.jsonl      # on the old code
    python benchmarks/record_answers.py --db demo.db --out after.jsonl       # on the new code
    python benchmarks/record_answers.py --diff before.jsonl after.jsonl

The corpus file is copied first and served in-process, with the secrets it draws on first serving (the
/v1 ids and cursors are keyed by them) fixed, so two recordings of one file compare. Every GET operation of both OpenAPI documents is asked with no
parameters, with each documented query parameter at each enum value or at typical and bad values, with
real and unknown path ids, and with the query language's `q` variants; the SSE streams are left out (they
do not end). Each answer's status, content type and body are written, one JSON line per request;
`--diff` prints every request whose answer differs (wall-clock timings aside) and exits 1 when any does.
"""
from __future__ import annotations

import argparse
import io
import json
import re
import shutil
import sys
import tempfile
from pathlib import Path
from urllib.parse import quote, unquote
from wsgiref.util import setup_testing_defaults

VALUES = {
    "integer": ["1", "3", "0", "-1", "abc", "100000"],
    "boolean": ["true", "false", "maybe"],
    "string": ["2021-01-01", "x"],
}
DATES = ["2021-01-01", "2030-01-01", "not-a-date", "2021-02-01T00:00:00Z"]
QUERIES = ["ai", "\"open source\"", "ai AND -source:reddit", "publishedAt:[* TO 2021-02-01]", "(", "tesla*"]
NAMED = {"from": DATES, "to": DATES, "since": DATES, "until": DATES, "q": QUERIES, "query": QUERIES,
         "topics": ["ai-models,climate-energy", "nope"], "cursor": ["garbage"]}


def call(app, path: str, headers: dict) -> tuple[int, str, bytes]:
    path_part, _, query = path.partition("?")
    environ = {"REQUEST_METHOD": "GET", "PATH_INFO": unquote(path_part, encoding="latin-1"),
               "QUERY_STRING": query, "wsgi.input": io.BytesIO(b""), "CONTENT_LENGTH": "0"}
    for name, value in headers.items():
        environ["HTTP_" + name.upper().replace("-", "_")] = value
    setup_testing_defaults(environ)
    captured = {}

    def start_response(status, response_headers, exc_info=None):
        captured["status"] = int(status.split(" ", 1)[0])
        captured["type"] = dict((k.lower(), v) for k, v in response_headers).get("content-type", "")
        return lambda data: None

    result = app(environ, start_response)
    try:
        body = b"".join(result)
    finally:
        if hasattr(result, "close"):
            result.close()
    return captured["status"], captured["type"], body


def path_values(corpus) -> dict:
    """Real and unknown values for each path parameter name (by interface)."""
    from corpuskit.api.ids import encode_id

    conn = corpus.conn
    first = lambda sql: conn.execute(sql).fetchone()  # noqa: E731
    rec, sto, sig = first("SELECT min(id) FROM records")[0], first("SELECT min(id) FROM stories")[0], \
        first("SELECT min(id) FROM signals")[0]
    top, ent = first("SELECT min(id) FROM topics")[0], first("SELECT min(id) FROM entities")[0]
    topic_name = first("SELECT name FROM topics ORDER BY id LIMIT 1")[0]
    entity = first("SELECT slug, name FROM entities ORDER BY mention_count DESC, id LIMIT 1")
    story_slug = first("SELECT slug FROM stories WHERE is_current = 1 ORDER BY id LIMIT 1")[0]
    arc = first("SELECT slug FROM arcs ORDER BY id LIMIT 1") if first(
        "SELECT 1 FROM sqlite_master WHERE name = 'arcs'") else None
    ids = {"/v1/records": ("rec", rec), "/v1/stories": ("sto", sto), "/v1/signals": ("sig", sig),
           "/v1/topics": ("top", top), "/v1/entities": ("ent", ent), "/v1/stats/topics": ("top", top)}
    return {"ids": {k: [encode_id(corpus, kind, n), encode_id(corpus, kind, n + 10**6), "bogus"]
                    for k, (kind, n) in ids.items()},
            "slug": [story_slug, "no-such-story"] + ([arc[0]] if arc else []),
            "topicId": [encode_id(corpus, "top", top), "bogus"], "entityId": [encode_id(corpus, "ent", ent), "bogus"],
            "entityKey": [entity[0], "nobody"], "name": [topic_name, entity[1], "nobody"],
            "source": ["reddit", "nowhere"]}


def requests(spec: dict, values: dict) -> list[str]:
    out = []
    for path, operations in sorted(spec["paths"].items()):
        op = operations.get("get")
        if op is None or "/stream/" in path:
            continue
        params = [p for p in op.get("parameters", []) if isinstance(p, dict) and "name" in p]
        fills = [path]
        for p in (p for p in params if p["in"] == "path"):
            name = p["name"]
            if name == "id":
                prefix = next((k for k in values["ids"] if path.startswith(k)), None)
                options = values["ids"][prefix] if prefix else values["source"]
            else:
                options = values.get(name, ["x"])
            fills = [f.replace("{" + name + "}", quote(str(v), safe="")) for f in fills for v in options]
        for base in fills:
            out.append(base)
            for p in (p for p in params if p["in"] == "query"):
                schema = p.get("schema", {})
                options = NAMED.get(p["name"]) or (list(schema.get("enum", [])) + ["unknown"] if schema.get("enum")
                                                    else VALUES.get(schema.get("type"), ["x"]))
                out += [f"{base}?{p['name']}={quote(str(v), safe='')}" for v in options]
            out.append(f"{base}?limit=2&unknownParameter=1")
    return out


def record(db: Path, out: Path) -> int:
    from corpuskit import open_corpus
    from corpuskit.api import create_app, ids

    # the secrets a corpus draws on first serving (ids, cursors), fixed so two recordings compare
    ids.secrets.token_hex = lambda n: "5e" * n
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / db.name
        shutil.copy(db, copy)
        corpus = open_corpus(copy)
        key = corpus.create_key(tier="enterprise", name="record", per_minute=10**7, per_day=10**8)
        app = create_app(corpus)
        values = path_values(corpus)
        n = 0
        with open(out, "w", encoding="utf-8") as fh:
            for interface, headers in (("/v1/openapi.json", {"Authorization": f"Bearer {key}"}),
                                       ("/api/v1/openapi.json", {"x-api-key": key})):
                spec = json.loads(call(app, interface, {})[2])
                for path in requests(spec, values):
                    status, kind, body = call(app, path, headers)
                    fh.write(json.dumps({"path": path, "status": status, "type": kind,
                                         "body": body.decode("utf-8", "replace")}, ensure_ascii=False) + "\n")
                    n += 1
                status, kind, body = call(app, "/v1/records", {})  # no key
                fh.write(json.dumps({"path": "/v1/records (no key)", "status": status, "type": kind,
                                     "body": body.decode("utf-8", "replace")}) + "\n")
        corpus.close()
    return n


#: wall-clock timings an answer reports (search): the only values two runs of the same code differ in
TIMINGS = re.compile(r'"(embeddingMs|searchMs)":\d+')


def diff(a: Path, b: Path) -> int:
    def load(path):
        rows = [json.loads(line) for line in open(path, encoding="utf-8")]
        for row in rows:
            row["body"] = TIMINGS.sub(r'"\1":N', row["body"])
        return rows

    before, after = load(a), load(b)
    if [r["path"] for r in before] != [r["path"] for r in after]:
        print(f"the two recordings asked different requests ({len(before)} against {len(after)})")
        return 1
    changed = [(x, y) for x, y in zip(before, after) if x != y]
    for x, y in changed:
        print(f"{x['path']}: {x['status']} -> {y['status']}")
        if x["body"] != y["body"]:
            print(f"  before {x['body'][:300]}\n  after  {y['body'][:300]}")
    print(f"{len(before)} requests, {len(changed)} answers differ")
    return 1 if changed else 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", type=Path, help="a built corpus file (it is copied, never changed)")
    parser.add_argument("--out", type=Path, help="where the answers are written (JSON lines)")
    parser.add_argument("--diff", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    args = parser.parse_args(argv)
    if args.diff:
        return diff(*args.diff)
    if not (args.db and args.out):
        parser.error("give --db and --out, or --diff BEFORE AFTER")
    print(f"{record(args.db, args.out)} answers written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
