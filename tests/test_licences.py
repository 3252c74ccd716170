"""corpuskit (MIT) needs nothing copyleft at run time, and docs/licences.md lists exactly what it needs.

The runtime dependencies are pyproject.toml's ``[project] dependencies`` (this tree's, not the
metadata of whichever corpuskit pip installed), followed transitively through each installed
distribution's ``Requires-Dist`` (markers evaluated here, requirements behind an extra nobody asked
for skipped). A requirement whose marker is false here (``tomli; python_version < '3.11'``,
``colorama; platform_system == 'Windows'``) is a runtime dependency elsewhere: docs/licences.md
lists it with its condition; it is not followed further (it is not installed to read).

Each installed dependency's licence is read from all three places the metadata can hold it:
``License-Expression`` (SPDX, evaluated exactly: ``A OR B`` is fine when either is, ``A AND B``
when both are), the ``License ::`` classifiers and the ``License`` field (a short name, or a
whole licence text, judged by its opening, where the package's own licence stands; a copyleft
licence named further on must belong to a listed bundled component, see ``BUNDLED``).

Forbidden: the GPL, the LGPL and the AGPL (and SSPL, EUPL, OSL), unless the package is
dual-licensed with a permissive licence. Allowed: MIT, BSD, Apache, ISC, PSF, zlib, ZPL,
Unlicense, CC0, and MPL (a file-level copyleft). The test also fails on a licence it does not
recognise, on a package that declares none, and on classifiers or a License field naming a
copyleft and a permissive licence together (dual-licensed, or both at once? the metadata cannot
say) until a person reads the package's licence and records the answer in the tables below, whose
evidence the test checks again on every run.
"""
from __future__ import annotations

import re
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

try:
    import tomllib
except ModuleNotFoundError:       # Python 3.10: tomli is a runtime dependency there
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "licences.md"
TABLE_HEADING = "## Runtime dependencies and their licences"

# Packages whose metadata declares no licence at all: the licence, and where a person read it.
DECLARED_ELSEWHERE = {
    "wordninja": ("MIT", "https://github.com/keredson/wordninja/blob/master/LICENSE (the wheel's metadata "
                         "names no licence)"),
}
# Packages whose classifiers or License field name a copyleft and a permissive licence: confirmed
# dual-licensed (either may be chosen) by a file of the installed distribution, checked on every run.
DUAL_LICENSED = {
    "luqum": ("Apache-2.0", "LICENSE", r"dual\w* licen[cs]ed"),   # "This project is dualed licensed."
}

# Copyleft components a package's wheel bundles, as its licence text lists them ("Name: ..." then
# "License: ..."), in the License field or a License-File. numpy's and scipy's Linux wheels carry
# gfortran's runtime and libquadmath as shared libraries (numpy.libs/, scipy.libs/) for OpenBLAS:
# the GCC Runtime Library Exception lets a program under any licence use libgfortran, and the
# LGPL lets libquadmath be linked dynamically. The list must match exactly: a new one is read first.
_GCC_RUNTIME = {("GCC runtime library", "GPL-3.0-or-later WITH GCC-exception-3.1"),
                ("libquadmath", "LGPL-2.1-or-later")}
BUNDLED = {"numpy": _GCC_RUNTIME, "scipy": _GCC_RUNTIME}

OK, UNKNOWN, COPYLEFT, MIXED = "ok", "unknown", "copyleft", "mixed"
_RANK = {OK: 0, UNKNOWN: 1, COPYLEFT: 2}

# Licence families in free text (classifiers, the License field), most specific first.
_COPYLEFT_WORDS = {
    "AGPL": r"\bAGPL|Affero",
    "LGPL": r"\bLGPL|Lesser General Public|Library General Public",
    "GPL": r"(?<![ALal])GPL|GNU General Public",
    "SSPL": r"\bSSPL\b|Server Side Public",
    "EUPL": r"\bEUPL\b|European Union Public",
    "OSL": r"\bOSL\b|Open Software License",
}
_PERMISSIVE_WORDS = {
    "MIT": r"\bMIT\b|Permission is hereby granted, free of charge",
    "BSD": r"\b0?BSD\b|Redistribution and use in source and binary forms",
    "Apache": r"\bApache\b",
    "ISC": r"\bISC\b",
    "PSF": r"\bPSF\b|Python Software Foundation",
    "zlib": r"\b[Zz]lib\b",
    "MPL": r"\bMPL\b|Mozilla Public",
    "ZPL": r"\bZPL\b|Zope Public",
    "Unlicense": r"\bUnlicense\b",
    "CC0": r"\bCC0\b",
    "Public Domain": r"\bPublic Domain\b",
}
# SPDX identifiers, by prefix.
_SPDX_COPYLEFT = ("GPL-", "LGPL-", "AGPL-", "SSPL-", "EUPL-", "OSL-")
_SPDX_PERMISSIVE = ("MIT", "BSD-", "0BSD", "Apache-", "ISC", "PSF-", "Python-", "Zlib", "zlib-", "MPL-",
                    "ZPL-", "Unlicense", "CC0-", "HPND", "BSL-1.0", "Unicode-")


def _spdx_leaf(identifier: str) -> str:
    if identifier.startswith(_SPDX_COPYLEFT):
        return COPYLEFT
    if identifier == "BSD" or identifier.startswith(_SPDX_PERMISSIVE):
        return OK
    return UNKNOWN


def _spdx(expression: str) -> str | None:
    """OK, COPYLEFT or UNKNOWN for an SPDX expression (OR: the best branch, AND: the worst); None
    when ``expression`` is not one (free text such as ``MIT License, Apache License, Version 2.0``)."""
    tokens = re.findall(r"\(|\)|[^\s()]+", expression)
    pos = 0

    def peek():
        return tokens[pos] if pos < len(tokens) else None

    def take():
        nonlocal pos
        pos += 1
        return tokens[pos - 1]

    def expr():
        best = term()
        while peek() is not None and peek().upper() == "OR":
            take()
            best = min(best, term(), key=_RANK.get)
        return best

    def term():
        worst = factor()
        while peek() is not None and peek().upper() == "AND":
            take()
            worst = max(worst, factor(), key=_RANK.get)
        return worst

    def factor():
        token = peek()
        if token is None or token == ")" or token.upper() in ("AND", "OR", "WITH"):
            raise ValueError(expression)
        take()
        if token == "(":
            inner = expr()
            if take_if(")") is None:
                raise ValueError(expression)
            return inner
        if not re.fullmatch(r"[A-Za-z0-9.+-]+(:[A-Za-z0-9.+-]+)?", token) or not re.search(r"[A-Za-z]", token):
            raise ValueError(expression)
        if peek() is not None and peek().upper() == "WITH":   # an exception keeps the licence's kind
            take()
            if peek() is None or peek() in "()":
                raise ValueError(expression)
            take()
        return _spdx_leaf(token)

    def take_if(token):
        return take() if peek() == token else None

    try:
        verdict = expr()
    except (ValueError, IndexError):
        return None
    return verdict if pos == len(tokens) else None


def _families(text: str) -> tuple[set[str], set[str]]:
    copyleft = {name for name, rx in _COPYLEFT_WORDS.items() if re.search(rx, text, flags=re.I)}
    permissive = {name for name, rx in _PERMISSIVE_WORDS.items() if re.search(rx, text)}
    return copyleft, permissive


def _words(text: str) -> str:
    copyleft, permissive = _families(text)
    if copyleft and permissive:
        return MIXED
    return COPYLEFT if copyleft else OK if permissive else UNKNOWN


def judge(meta) -> tuple[str, list[str]]:
    """The verdict (OK, COPYLEFT, UNKNOWN, MIXED, or None: no licence declared) of one
    distribution's metadata, and what each source said."""
    said, verdicts = [], []
    expression = (meta.get("License-Expression") or "").strip()
    if expression:
        verdict = _spdx(expression) or UNKNOWN
        said.append(f"License-Expression: {expression} -> {verdict}")
        verdicts.append(verdict)
    classifiers = [c for c in meta.get_all("Classifier") or [] if c.startswith("License ::")]
    named = [c for c in classifiers if c.strip() not in ("License :: OSI Approved", "License :: DFSG approved")]
    if named:
        verdict = _words(" | ".join(named))
        said.append(f"Classifiers: {'; '.join(classifiers)} -> {verdict}")
        verdicts.append(verdict)
    text = (meta.get("License") or "").strip()
    if text and text.upper() not in ("UNKNOWN", "NONE"):
        if "\n" in text or len(text) > 200:     # a whole licence text: the package's own comes first
            verdict = _words(text[:600])
            if _families(text[600:])[0] and not _components(text):
                verdict = UNKNOWN           # a copyleft licence named further on, in no component list
        else:
            verdict = _spdx(text)
            if verdict in (None, UNKNOWN):      # not SPDX ("MIT License", "GPLv2+", "zlib/libpng")
                verdict = _words(text)
        shown = text[:300].replace("\n", " ") + (f"... ({len(text)} characters)" if len(text) > 300 else "")
        said.append(f"License: {shown} -> {verdict}")
        verdicts.append(verdict)
    if not verdicts:
        return None, ["no License-Expression, no License :: classifier, no License field"]
    if expression and verdicts[0] == OK:       # an SPDX "A OR B" settles classifiers naming both
        verdicts = [v for v in verdicts if v != MIXED]
    for verdict in (COPYLEFT, UNKNOWN, MIXED):
        if verdict in verdicts:
            return verdict, said
    return OK, said


def _components(text: str) -> list[tuple[str, str]]:
    """(name, licence) of each bundled component a licence text lists as "Name: ..." / "License: ..."."""
    out, name = [], None
    for line in text.splitlines():
        if m := re.match(r"\s*Name:\s*(.+?)\s*$", line):
            name = m.group(1)
        elif (m := re.match(r"\s*License:\s*(.+?)\s*$", line)) and name is not None:
            out.append((name, m.group(1)))
            name = None
    return out


def bundled_copyleft(dist) -> set[tuple[str, str]]:
    """The bundled components under a copyleft licence that ``dist``'s License field or License-Files list."""
    texts = [dist.metadata.get("License") or ""]
    for path in dist.metadata.get_all("License-File") or []:
        texts.append(dist.read_text(f"licenses/{path}") or dist.read_text(path) or "")
    return {(name, licence) for text in texts for name, licence in _components(text)
            if (_spdx(licence) or _words(licence)) in (COPYLEFT, MIXED)}


def licence_problem(name: str, dist) -> str | None:
    """Why ``dist`` may not be a runtime dependency of corpuskit, or None when it may."""
    verdict, said = judge(dist.metadata)
    key = canonicalize_name(name)
    bundled = bundled_copyleft(dist)
    if bundled != BUNDLED.get(key, set()):
        return (f"{dist.metadata['Name']} {dist.version}: bundles {sorted(bundled)}, BUNDLED says "
                f"{sorted(BUNDLED.get(key, set()))}: read the licence text, then record what is allowed")
    if verdict == OK or (verdict is None and key in DECLARED_ELSEWHERE):
        return None
    if verdict == MIXED and key in DUAL_LICENSED:
        permissive, path, evidence = DUAL_LICENSED[key]
        text = dist.read_text(path) or ""
        if re.search(evidence, text, flags=re.I) and _spdx(permissive) == OK:
            return None
        said.append(f"DUAL_LICENSED says {permissive} may be chosen, but {path} no longer matches {evidence!r}")
    why = {COPYLEFT: "a copyleft licence, not dual-licensed with a permissive one",
           UNKNOWN: "a licence this test does not recognise: read it, then allow it here or drop the package",
           MIXED: "names copyleft and permissive licences: if it is dual-licensed, record the evidence in "
                  "DUAL_LICENSED",
           None: "declares no licence: read it, and record it in DECLARED_ELSEWHERE"}[verdict]
    return f"{dist.metadata['Name']} {dist.version}: {why}\n    " + "\n    ".join(said)


def runtime_dependencies() -> tuple[dict, dict]:
    """``({name: (distribution or None, {required by})}, {name: {"by: marker"}})``: the runtime
    dependencies installed here (None: required but not installed) and those only needed elsewhere."""
    roots = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    here: dict = {}
    elsewhere: dict = {}
    todo = [(text, "corpuskit", set()) for text in roots]
    while todo:
        text, by, extras = todo.pop()
        req = Requirement(text)
        if req.marker is not None and "extra" in str(req.marker):
            if not any(req.marker.evaluate({"extra": e}) for e in extras):
                continue                    # behind an extra nobody asked for
        elif req.marker is not None and not req.marker.evaluate({"extra": ""}):
            elsewhere.setdefault(canonicalize_name(req.name), set()).add(f"{by}: {req.marker}")
            continue
        name = canonicalize_name(req.name)
        known = here.get(name)
        if known is not None and req.extras <= known[2]:
            known[1].add(by)
            continue
        try:
            dist = metadata.distribution(req.name)
        except metadata.PackageNotFoundError:
            here[name] = (None, {by}, set(req.extras))
            continue
        asked = set(req.extras) | (known[2] if known else set())
        here[name] = (dist, (known[1] if known else set()) | {by}, asked)
        for sub in dist.requires or []:
            todo.append((sub, dist.metadata["Name"], asked))
    return ({n: (d, by) for n, (d, by, _) in here.items()},
            {n: marks for n, marks in elsewhere.items() if n not in here})


def test_runtime_dependencies_are_installed_and_none_is_copyleft():
    here, _ = runtime_dependencies()
    missing = sorted(f"{n} (required by {', '.join(sorted(by))})" for n, (d, by) in here.items() if d is None)
    assert not missing, "runtime dependencies not installed, their licences unread: " + "; ".join(missing)
    problems = [p for n, (d, by) in sorted(here.items())
                if (p := licence_problem(n, d)) is not None]
    assert not problems, "runtime dependencies corpuskit (MIT) may not have:\n" + "\n".join(problems)
    assert "krippendorff" not in here      # GPL-3.0-or-later: the alpha tests' oracle, dev extra only


def test_exceptions_are_still_needed():
    # an entry here that the metadata no longer needs (the package now declares its licence, or
    # left the dependencies) is removed, so the lists stay a record of what a person checked
    here, _ = runtime_dependencies()
    for name in DECLARED_ELSEWHERE:
        assert name in here, f"{name} is no longer a runtime dependency: drop it from DECLARED_ELSEWHERE"
        assert judge(here[name][0].metadata)[0] is None, f"{name} now declares its licence: drop the entry"
    for name in BUNDLED:
        assert name in here, f"{name} is no longer a runtime dependency: drop it from BUNDLED"
    for name in DUAL_LICENSED:
        assert name in here, f"{name} is no longer a runtime dependency: drop it from DUAL_LICENSED"
        assert judge(here[name][0].metadata)[0] == MIXED, f"{name}'s metadata changed: check DUAL_LICENSED"


def _meta(**fields):
    from email.message import Message

    meta = Message()
    for key, values in fields.items():
        for value in values if isinstance(values, list) else [values]:
            meta[key.replace("_", "-")] = value
    return meta


@pytest.mark.parametrize("fields, expected", [
    ({"License_Expression": "GPL-3.0-or-later"}, COPYLEFT),
    ({"License_Expression": "LGPL-3.0-or-later OR MIT"}, OK),
    ({"License_Expression": "MIT AND (LGPL-2.1-only OR GPL-3.0-only)"}, COPYLEFT),
    ({"License_Expression": "MPL-2.0 AND (Apache-2.0 OR MIT)"}, OK),
    ({"License_Expression": "Apache-2.0 WITH LLVM-exception"}, OK),
    ({"License_Expression": "GPL-2.0-only WITH Classpath-exception-2.0"}, COPYLEFT),
    ({"License_Expression": "LicenseRef-Proprietary"}, UNKNOWN),
    ({"License": "BSD-3-Clause", "Classifier": "License :: OSI Approved :: GNU General Public License v3 (GPLv3)"},
     COPYLEFT),
    ({"Classifier": "License :: OSI Approved :: GNU Lesser General Public License v3 (LGPLv3)"}, COPYLEFT),
    ({"Classifier": "License :: OSI Approved :: GNU Affero General Public License v3"}, COPYLEFT),
    ({"Classifier": ["License :: OSI Approved :: GNU Lesser General Public License v3 or later (LGPLv3+)",
                     "License :: OSI Approved :: Apache Software License"]}, MIXED),
    ({"License_Expression": "Apache-2.0 OR LGPL-3.0-or-later",
      "Classifier": ["License :: OSI Approved :: GNU Lesser General Public License v3 or later (LGPLv3+)",
                     "License :: OSI Approved :: Apache Software License"]}, OK),
    ({"Classifier": "License :: OSI Approved :: Mozilla Public License 2.0 (MPL 2.0)"}, OK),
    ({"Classifier": "License :: OSI Approved"}, None),
    ({"Classifier": "License :: Other/Proprietary License"}, UNKNOWN),
    ({"License": "GPLv2+"}, COPYLEFT),
    ({"License": "MIT License, Apache License, Version 2.0"}, OK),
    ({"License": "ZPL 2.1"}, OK),
    ({"License": "zlib/libpng"}, OK),
    ({"License": "                    GNU GENERAL PUBLIC LICENSE\n                       Version 3"}, COPYLEFT),
    ({"License": "Copyright (c) 2001 X\n\nRedistribution and use in source and binary forms ... " + "x" * 700
                 + "\n Name: GCC runtime library\n License: GPL-3.0-or-later WITH GCC-exception-3.1\n"
                 + " GNU GENERAL PUBLIC LICENSE"}, OK),
    ({"License": "Copyright (c) 2001 X\n\nPermission is hereby granted, free of charge ... " + "x" * 700
                 + " and the file foo.c is under the GNU General Public License"}, UNKNOWN),
    ({"License": "Proprietary"}, UNKNOWN),
    ({}, None),
])
def test_judge(fields, expected):
    assert judge(_meta(**fields))[0] == expected


def test_the_check_rejects_krippendorff():
    # the package corpuskit used to need for alpha: GPL-3.0-or-later, so it fails the check
    try:
        dist = metadata.distribution("krippendorff")
    except metadata.PackageNotFoundError:
        pytest.skip("krippendorff (dev extra) is not installed")
    problem = licence_problem("krippendorff", dist)
    assert problem is not None and "copyleft" in problem and "GPL-3.0-or-later" in problem


def _docs_rows() -> dict[str, str]:
    """package -> its 'needed' cell, from the table under TABLE_HEADING in docs/licences.md."""
    text = DOCS.read_text(encoding="utf-8")
    assert TABLE_HEADING in text, f"docs/licences.md has no {TABLE_HEADING!r} section"
    section = text.split(TABLE_HEADING, 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")]
    header = [c.strip() for c in rows[0].strip("|").split("|")]
    assert header[:2] == ["package", "needed"], header
    out = {}
    for line in rows[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        name = canonicalize_name(cells[0].strip("`"))
        assert name not in out, f"{name} is listed twice"
        out[name] = cells[1]
    return out


def test_docs_list_exactly_the_runtime_dependencies():
    here, elsewhere = runtime_dependencies()
    rows = _docs_rows()
    expected = set(here) | set(elsewhere)
    assert set(rows) == expected, (f"docs/licences.md lists {sorted(set(rows) - expected)} that corpuskit does not "
                                   f"need and misses {sorted(expected - set(rows))}")
    for name in elsewhere:           # needed only elsewhere: the row says when
        assert rows[name] != "always", f"{name} is only needed where {sorted(elsewhere[name])}"
    for name, needed in rows.items():
        if needed == "always":
            assert name in here, f"{name} is not needed here, yet docs/licences.md says always"


def test_readme_links_the_licences():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "(docs/licences.md)" in readme
