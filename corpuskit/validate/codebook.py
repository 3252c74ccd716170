"""A codebook: the variables a team codes, each with its allowed values and level of measurement.

A codebook file is YAML (``.yaml``/``.yml``) or JSON (``.json``)::

    name: sentiment study            # optional
    variables:
      sentiment:
        values: [negative, neutral, positive]
        level: ordinal               # nominal (default), ordinal, interval or ratio
        description: overall tone    # optional
      relevant:
        values: ["yes", "no"]

``variables`` may also be a list of mappings each with a ``name``. Values are
kept as text in the order given; for an ordinal variable that order is the
scale, for interval and ratio variables every value must be a number.
:func:`load_codebook` checks all of this and raises
:class:`CodebookError` naming the variable and what is wrong.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from corpuskit.errors import ValidationError
from corpuskit.query.values import MEASUREMENT_LEVELS

#: Levels of measurement, as Krippendorff's alpha takes them.
LEVELS = MEASUREMENT_LEVELS
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class CodebookError(ValidationError):
    """A codebook file or mapping is unreadable or malformed."""


@dataclass(frozen=True)
class Variable:
    """One coded variable: its ``name``, allowed ``values`` (text, in scale order) and ``level``."""

    name: str
    values: tuple[str, ...]
    level: str = "nominal"
    description: str = ""

    def check(self, value) -> str:
        """``value`` as stored text when the codebook allows it, else :class:`ValidationError`."""
        text = _text(value)
        if text not in self.values:
            raise ValidationError(f"value {text!r} is not in the codebook for {self.name!r} "
                                  f"(allowed: {', '.join(self.values)})")
        return text

    def numeric(self, value: str) -> float:
        """The number Krippendorff's alpha uses for ``value``: its rank (nominal, ordinal) or itself."""
        if self.level in ("interval", "ratio"):
            return float(value)
        return float(self.values.index(value))


@dataclass(frozen=True)
class Codebook:
    """The variables of a coding study, by name (see the module docstring for the file format)."""

    variables: dict = field(default_factory=dict)
    name: str = ""

    def variable(self, name: str) -> Variable:
        """The variable called ``name``; :class:`ValidationError` naming the known ones when absent."""
        try:
            return self.variables[name]
        except KeyError:
            raise ValidationError(f"unknown variable {name!r}; the codebook has: "
                                  f"{', '.join(self.variables) or 'none'}") from None

    def to_dict(self) -> dict:
        """The codebook as the mapping :func:`load_codebook` reads (stored with a sample);
        ``variables`` is a list, so the declared order survives JSON with sorted keys."""
        return {"name": self.name,
                "variables": [{"name": v.name, "values": list(v.values), "level": v.level,
                               "description": v.description} for v in self.variables.values()]}


def _text(value) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"    # YAML reads an unquoted yes/no as a boolean
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value).strip()


def load_codebook(source) -> Codebook:
    """A :class:`Codebook` from a file path (YAML or JSON), a mapping, or a Codebook (returned as is)."""
    if isinstance(source, Codebook):
        return source
    if isinstance(source, dict):
        return _from_mapping(source, "codebook")
    path = Path(source)
    if not path.is_file():
        raise CodebookError(f"codebook file {str(path)!r} does not exist")
    text = path.read_text(encoding="utf-8")
    try:
        if path.suffix.lower() == ".json":
            data = json.loads(text)
        elif path.suffix.lower() in (".yaml", ".yml"):
            import yaml

            data = yaml.safe_load(text)
        else:
            raise CodebookError(f"codebook {path.name}: use a .yaml, .yml or .json file")
    except (ValueError, ImportError) as exc:
        raise CodebookError(f"codebook {path.name} cannot be read: {exc}") from None
    except Exception as exc:  # yaml.YAMLError and its kin
        if type(exc).__module__.startswith("yaml"):
            raise CodebookError(f"codebook {path.name} is not valid YAML: {exc}") from None
        raise
    return _from_mapping(data, f"codebook {path.name}")


def _from_mapping(data, label: str) -> Codebook:
    if not isinstance(data, dict) or "variables" not in data:
        raise CodebookError(f"{label}: expected a mapping with a 'variables' key")
    raw = data["variables"]
    if isinstance(raw, list):
        items = []
        for i, item in enumerate(raw, 1):
            if not isinstance(item, dict) or "name" not in item:
                raise CodebookError(f"{label}: variable {i} needs a 'name'")
            items.append((item["name"], item))
    elif isinstance(raw, dict):
        items = list(raw.items())
    else:
        raise CodebookError(f"{label}: 'variables' must be a mapping or a list")
    if not items:
        raise CodebookError(f"{label}: declares no variables")
    variables = {}
    for name, spec in items:
        variable = _variable(name, spec, label)
        if variable.name in variables:
            raise CodebookError(f"{label}: variable {variable.name!r} is declared twice")
        variables[variable.name] = variable
    return Codebook(variables=variables, name=str(data.get("name") or ""))


def _variable(name, spec, label: str) -> Variable:
    if not isinstance(name, str) or not _NAME.match(name):
        raise CodebookError(f"{label}: variable name {name!r} must be letters, digits and _ "
                            "(not starting with a digit)")
    if isinstance(spec, list):
        spec = {"values": spec}
    if not isinstance(spec, dict):
        raise CodebookError(f"{label}: variable {name!r} must be a mapping with 'values'")
    unknown = sorted(set(spec) - {"name", "values", "level", "description"})
    if unknown:
        raise CodebookError(f"{label}: variable {name!r} has unknown key(s): {', '.join(unknown)}")
    values = spec.get("values")
    if not isinstance(values, list) or len(values) < 2:
        raise CodebookError(f"{label}: variable {name!r} needs a list of at least two 'values'")
    texts = tuple(_text(v) for v in values)
    if any(not t for t in texts):
        raise CodebookError(f"{label}: variable {name!r} has an empty value")
    if len(set(texts)) != len(texts):
        raise CodebookError(f"{label}: variable {name!r} lists a value twice")
    level = spec.get("level", "nominal")
    if level not in LEVELS:
        raise CodebookError(f"{label}: variable {name!r} has level {level!r}; "
                            f"use one of {', '.join(LEVELS)}")
    if level in ("interval", "ratio"):
        for t in texts:
            try:
                float(t)
            except ValueError:
                raise CodebookError(f"{label}: variable {name!r} is {level} but value {t!r} "
                                    "is not a number") from None
    return Variable(name=name, values=texts, level=level, description=str(spec.get("description") or ""))
