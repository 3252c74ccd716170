"""CITATION.cff and `corpuskit cite`: the tool's version and the corpus's manifest digest."""
import re
from pathlib import Path

import pytest
import yaml

import corpuskit
from corpuskit import open_corpus
from corpuskit.cli import main
from corpuskit.manifest import (CITATION_AUTHOR, CITATION_LICENSE, CITATION_RELEASED, CITATION_TITLE,
                                build_manifest, citation, manifest_digest)

ROOT = Path(__file__).resolve().parents[1]
RECORDS = [{"source": "news", "sourceId": str(i), "contentText": f"Story number {i} about the grid.",
            "publishedAt": f"2024-01-0{i}T00:00:00Z"} for i in range(1, 5)]


def _cff() -> dict:
    return yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))


def test_citation_cff_is_valid_and_matches_the_package():
    cff = _cff()
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert cff["cff-version"] == "1.2.0"
    assert str(cff["version"]) == corpuskit.__version__ == project["version"]
    assert cff["title"] == CITATION_TITLE and cff["license"] == CITATION_LICENSE
    assert cff["authors"] == [{"name": CITATION_AUTHOR}]
    assert str(cff["date-released"]) == CITATION_RELEASED
    assert isinstance(cff["message"], str) and cff["message"]
    # CFF 1.2.0: only its keys; an entity author has a name; the date is YYYY-MM-DD
    known = {"abstract", "authors", "cff-version", "commit", "contact", "date-released", "doi", "identifiers",
             "keywords", "license", "license-url", "message", "preferred-citation", "references",
             "repository", "repository-artifact", "repository-code", "title", "type", "url", "version"}
    assert set(cff) <= known and cff["type"] in ("software", "dataset")
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", str(cff["date-released"]))


def test_manifest_digest_is_the_content_not_the_file(tmp_path):
    a = open_corpus(tmp_path / "a.db")
    b = open_corpus(tmp_path / "b.db")
    a.add_records(RECORDS)
    b.add_records(list(reversed(RECORDS)))
    da, db = manifest_digest(build_manifest(a)), manifest_digest(build_manifest(b))
    assert da == db and re.fullmatch(r"[0-9a-f]{64}", da)
    b.add_records([{"source": "news", "sourceId": "9", "contentText": "One more.",
                    "publishedAt": "2024-01-09T00:00:00Z"}])
    assert manifest_digest(build_manifest(b)) != da


def test_cite_command(tmp_path, capsys):
    c = open_corpus(tmp_path / "c.db")
    c.add_records(RECORDS)
    cite = citation(c)
    c.close()
    assert main(["cite", "--db", str(tmp_path / "c.db")]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"corpuskit {corpuskit.__version__}; corpus manifest digest {cite['manifestDigest']}")
    assert f"(Version {corpuskit.__version__})" in out and CITATION_TITLE in out
    assert "@software{corpuskit_" in out and f"version = {{{corpuskit.__version__}}}" in out
    assert out.count(cite["manifestDigest"]) == 3


def test_cite_needs_a_db(capsys):
    with pytest.raises(SystemExit):
        main(["cite"])
    assert "--db" in capsys.readouterr().err
