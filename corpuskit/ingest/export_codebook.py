"""The codebook (data dictionary) written beside an export bundle, from the declared columns.

:func:`codebook` turns :data:`~corpuskit.ingest.export_columns.COLUMNS` (the
columns actually written) and the corpus manifest into Markdown: per table,
what a row is and which rows a filtered export keeps, then one line per
column with its type, meaning, how it was produced and the stage run (id and
corpuskit version) that produced it. :func:`codebook_columns` reads the
columns back from a codebook, for checks.
"""
from __future__ import annotations

import re

from corpuskit.ingest.export_columns import TABLE_NOTES

_FORMAT_NOTES = {
    "parquet": "Parquet, typed: int64, double, bool, string, timestamp[ns, UTC], date32, lists as lists; "
               "`json` columns are JSON text.",
    "csv": "CSV (UTF-8, a header row): timestamps as `YYYY-MM-DDTHH:MM:SSZ`, dates as `YYYY-MM-DD`, lists and "
           "`json` columns as JSON text, booleans as `true`/`false`, null as an empty field.",
    "jsonl": "JSON lines (UTF-8, one object per row): timestamps as `YYYY-MM-DDTHH:MM:SSZ`, dates as "
             "`YYYY-MM-DD`, lists as arrays, `json` columns as objects, null as null.",
}
_ROW = re.compile(r"^\| `([^`]+)` \|")


def _stage_versions(manifest: dict) -> dict:
    """Stage name (as in COLUMNS) -> "run id, corpuskit X" of its last run."""
    out = {}
    stages = manifest.get("stages", {})
    for name, run in stages.items():
        packages = run.get("packages") or {}
        version = packages.get("corpuskit")
        out[name] = f"{run['id']}, corpuskit {version}" if version else run["id"]
    record_runs = [out[s] for s in ("import", "demo", "collect") if s in out]
    out["import"] = "; ".join(record_runs) if record_runs else "no recorded run"
    out["export"] = f"this export, corpuskit {manifest.get('environment', {}).get('corpuskit')}"
    return out


#: Placeholders a column's ``produced`` may hold, filled with the instrument the enrich run recorded.
_INSTRUMENTS = ("scorer", "detector", "extractor")


def _instruments(manifest: dict) -> dict:
    """``{"{scorer}": "the tweet model, tweet-sentiment-lr-1 (...)", ...}`` from the manifest's enrich run:
    every name of an instrument in the codebook is the run's, never typed by hand."""
    from corpuskit.enrich.instruments import instrument

    settings = manifest.get("stages", {}).get("enrich", {}).get("settings", {})
    out = {}
    for role in _INSTRUMENTS:
        info = instrument(role, settings.get(role))
        out["{" + role + "}"] = (f"{info['name']} ({info['what']})" if info["name"] else
                                 "no instrument (enrich has not run)")
    return out


def _produced(text: str, instruments: dict) -> str:
    for key, value in instruments.items():
        text = text.replace(key, value)
    return text


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def codebook(tables: dict, manifest: dict, format: str, filters: dict, pseudonymised: bool) -> str:
    """The Markdown codebook of a bundle: ``tables`` maps each written table to its columns."""
    versions = _stage_versions(manifest)
    used = _instruments(manifest)
    lines = [
        "# Codebook",
        "",
        f"Corpus: {manifest['records']['count']} records, content digest "
        f"`{manifest['records']['contentDigest']}` (see `manifest.json`).",
        "",
        f"Format: {_FORMAT_NOTES[format]}",
        "",
        "Keys: `recordId` wherever a record is meant, and `entityId`, `topicId`, `clusterId`, `signalId`, "
        "`storyId`; each joins the table that has it as its own key (records, entities, topics, clusters, "
        "signals, stories).",
        "",
    ]
    if filters:
        shown = ", ".join(f"{k} = {v}" for k, v in filters.items())
        lines += [f"Filters: {shown}. `since`/`until` bound `records.publishedAt` inclusively; `topic` keeps "
                  "the records whose primary topic it is (or, never enriched, whose import topic hint it is). "
                  "A row that names a record (a mention, a piece of signal evidence, a citation, a topic "
                  "assignment, a cluster membership) is kept when its record is in the filtered set; each "
                  "table below says which rows it keeps. Keys other than `recordId` (a signal's `storyId`, a "
                  "story's `triggerSignalId`) may name a row the filter left out.", ""]
    else:
        lines += ["Filters: none; every row of every table is exported.", ""]
    if pseudonymised:
        lines += ["Pseudonymised: columns marked *pseudonymised* were changed. `author` values are replaced "
                  "by `u_` + the first 16 hex digits of HMAC-SHA256(salt, the name in lower case without a "
                  "leading @): one author has one pseudonym in this export, and another salt gives other "
                  "pseudonyms. In text columns, handles (`@name`) become `@` + the pseudonym and profile links "
                  "(twitter.com/x.com, reddit.com/u/, bsky.app/profile/, t.me/, youtube.com/@, /c/, /user/, "
                  "Mastodon `https://instance/@name`) and Reddit's `u/name` carry the pseudonym instead of the "
                  "name; a value equal to an author's name becomes its pseudonym; in labels and term lists "
                  "derived from the text (topic keywords, cluster terms, entity names, headlines) every word "
                  "equal to an author's name does; in `json` columns, values under keys that name an "
                  "account (author, user, username, screen_name, handle, ...) become pseudonyms. Names written "
                  "without @ in the text are not detected, and platform ids (`sourceId`, status numbers in "
                  "links) are kept: the data is pseudonymous, not anonymous. The salt is not in this bundle "
                  "unless `salt.txt` is.", ""]
    lines += ["Stage runs: " + "; ".join(f"{k}: {v}" for k, v in sorted(versions.items())) + ".", ""]
    for table, cols in tables.items():
        what, kept = TABLE_NOTES[table]
        lines += [f"## {table}", "", f"{what} Filtered export keeps: {kept}.", "",
                  "| column | type | meaning | how it was produced | stage (run, version) |",
                  "|---|---|---|---|---|"]
        for c in cols:
            meaning = c.meaning + (" *pseudonymised*" if pseudonymised and c.personal else "")
            lines.append(f"| `{c.name}` | {c.type} | {_cell(meaning)} | {_cell(_produced(c.produced, used))} | "
                         f"{c.stage} ({_cell(versions.get(c.stage, 'not run'))}) |")
        lines.append("")
    return "\n".join(lines)


def codebook_columns(text: str) -> dict[str, list[str]]:
    """``{table: [column, ...]}`` as a codebook lists them (to compare with the exported files)."""
    out: dict[str, list[str]] = {}
    table = None
    for line in text.splitlines():
        if line.startswith("## "):
            table = line[3:].strip()
            out[table] = []
        elif table is not None:
            m = _ROW.match(line)
            if m:
                out[table].append(m.group(1))
    return out
