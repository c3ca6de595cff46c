"""The reader every scenario-file family shares: :class:`FileReader` (values read by key, each refusal one line
naming the file, the key and what was expected), the root keys every family's file has (:func:`read_common`,
:func:`finish_common`), the JSON-Schema helper and the size limits on what a file may make boundcheck build.
The keys themselves are documented in docs/scenarios.md."""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from numbers import Integral, Real
from pathlib import Path

import numpy as np

from ..errors import BoundcheckError
from .graphml import _MISSING, GraphMLGraph, _Refused, _show, read_graphml
from .scenario import Scenario

__all__ = ["ScenarioFileError", "FORMAT", "FileReader", "object_schema", "COMMON_PROPERTIES", "Common",
           "read_common", "finish_common", "MAX_DOMAIN_POINTS", "MAX_DOMAIN_DIM", "MAX_DATA_BYTES"]

FORMAT = 1


class ScenarioFileError(BoundcheckError):
    """A malformed scenario file: the message names the file, the key and what was expected."""


# ------------------------------------------------------------------------------------------ limits
#: the most points a scenario file's domain may have, whatever its kind (grid, uniform, indices, csv, points): every
#: prior holds an n × n Gram matrix (3.2 GB at this size) and checking each is PSD costs O(n³); beyond it a file is
#: refused before anything of that size is built (and below it, :func:`_check_gram_memory` sizes the matrices)
MAX_DOMAIN_POINTS = 20000

#: the largest dimension of a grid or uniform domain (n^dim ≤ MAX_DOMAIN_POINTS caps a grid anyway for n ≥ 2)
MAX_DOMAIN_DIM = 1000

#: the most bytes a data file (CSV, GraphML) a scenario file names is read: a road network of :data:`MAX_ARMS`
#: roads is a few hundred kilobytes; the cap keeps a mistaken path (a disk image) from being read into memory
MAX_DATA_BYTES = 16 * 1024**2

_TEMPLATE = re.compile(r"\$\{(\w+)(?::([^}]*))?\}")
_REF = re.compile(r"^\$(\w+)(?:\[(\d+)\])?$")


class FileReader:
    """Parsing state of one file: where errors point, and the generator's values."""

    def __init__(self, source: str, base_dir: Path) -> None:
        self.source, self.base_dir = source, base_dir
        self.generated: dict[str, object] = {}
        self.generator_name: str | None = None

    def build(self, builder: Callable[..., Scenario], *args, **kwargs) -> Scenario:
        """``builder(*args, **kwargs)`` (a family's scenario builder), its input errors as one line naming this
        file: a family parser checks the keys, the builder checks what the values mean together."""
        try:
            return builder(*args, **kwargs)
        except ScenarioFileError:
            raise
        except BoundcheckError as exc:
            raise ScenarioFileError(f"{self.source}: {exc}") from None

    def error(self, key: str, expected: str, got=_MISSING) -> ScenarioFileError:
        tail = "" if got is _MISSING else f", got {_show(got)}"
        return ScenarioFileError(f"{self.source}: key {key!r}: expected {expected}{tail}")

    def keys(self, table, path: str, allowed: set[str], required: set[str] = frozenset()) -> dict:
        if not isinstance(table, dict):
            raise self.error(path, "a table", table)
        unknown = sorted(set(table) - allowed)
        if unknown:
            where = f"{path}.{unknown[0]}" if path else unknown[0]
            raise ScenarioFileError(f"{self.source}: unknown key {where!r}; expected one of "
                                    f"{', '.join(sorted(allowed))}")
        for k in sorted(required):
            if k not in table:
                raise self.error(f"{path}.{k}" if path else k, "a value (required)")
        return table

    # ---------------------------------------------------------------- values
    def ref(self, value, key: str):
        """A "$name" / "$name[i]" reference to a generated value, or the value itself."""
        if not (isinstance(value, str) and value.startswith("$")):
            return value
        m = _REF.match(value)
        if not m:
            raise self.error(key, 'a reference "$name" or "$name[i]" to a generated value', value)
        if self.generator_name is None:
            raise self.error(key, "a value ([generator] is needed for references)", value)
        name, idx = m.group(1), m.group(2)
        if name not in self.generated:
            raise self.error(key, f"one of the values generator {self.generator_name!r} returns "
                                  f"({', '.join(sorted(self.generated))})", value)
        v = self.generated[name]
        if idx is not None:
            try:
                v = v[int(idx)]
            except (IndexError, TypeError, KeyError):
                raise self.error(key, f"an index into {name!r} (it has {len(v) if hasattr(v, '__len__') else 0} "
                                      "entries)", value) from None
        return v

    def number(self, table: dict, key: str, path: str, *, default=_MISSING, low: float | None = None,
               high: float | None = None, strict_low: bool = False, what: str = "a number"):
        full = f"{path}.{key}" if path else key
        if key not in table:
            if default is _MISSING:
                raise self.error(full, f"{what} (required)")
            return default
        v = self.ref(table[key], full)
        if isinstance(v, np.ndarray) and v.ndim == 0:
            v = v.item()
        if isinstance(v, bool | np.bool_) or not isinstance(v, Real | np.floating | np.integer) or not math.isfinite(
                float(v)):
            raise self.error(full, what, table[key])
        v = float(v)
        if low is not None and (v < low or (strict_low and v == low)) or high is not None and v > high:
            raise self.error(full, what, table[key])
        return v

    def integer(self, table: dict, key: str, path: str, *, default=_MISSING, minimum: int = 1):
        full = f"{path}.{key}" if path else key
        if key not in table:
            if default is _MISSING:
                raise self.error(full, f"an integer ≥ {minimum} (required)")
            return default
        v = self.ref(table[key], full)
        if isinstance(v, bool) or not isinstance(v, Integral | np.integer) or int(v) < minimum:
            raise self.error(full, f"an integer ≥ {minimum}", table[key])
        return int(v)

    def text(self, table: dict, key: str, path: str, *, default=_MISSING, choices: tuple[str, ...] | None = None,
             template: bool = False) -> str:
        full = f"{path}.{key}" if path else key
        if key not in table:
            if default is _MISSING:
                raise self.error(full, "a string (required)")
            return default
        v = table[key]
        if not isinstance(v, str):
            raise self.error(full, "a string", v)
        if choices is not None and v not in choices:
            raise self.error(full, "one of " + ", ".join(map(repr, choices)), v)
        return self.fill(v, full) if template else v

    def fill(self, text: str, key: str) -> str:
        """``${name}`` / ``${name:.3g}`` replaced by generated values."""

        def sub(m: re.Match) -> str:
            name, spec = m.group(1), m.group(2) or ""
            if name not in self.generated:
                raise self.error(key, f"a text whose ${{...}} names a generated value "
                                      f"({', '.join(sorted(self.generated)) or 'no [generator]'})", m.group(0))
            v = self.generated[name]
            try:
                return format(v.item() if isinstance(v, np.generic | np.ndarray) else v, spec)
            except (TypeError, ValueError):
                raise self.error(key, f"a valid format for {name!r}", m.group(0)) from None

        return _TEMPLATE.sub(sub, text)

    def array(self, value, key: str, *, shape: tuple | None = None, what: str = "numbers") -> np.ndarray:
        v = self.ref(value, key)
        try:
            a = np.asarray(v, dtype=np.float64)
        except (TypeError, ValueError):
            raise self.error(key, what, value) from None
        if a.dtype == object or not np.all(np.isfinite(a)):
            raise self.error(key, f"finite {what}", value)
        if shape is not None and (a.ndim != len(shape) or any(s is not None and s != d for s, d in
                                                                zip(shape, a.shape, strict=True))):
            want = " × ".join("any" if s is None else str(s) for s in shape)
            raise self.error(key, f"{what} of shape {want}", f"an array of shape {a.shape}")
        return a

    def table(self, parent: dict, key: str, path: str, node: Mapping, *, default=_MISSING) -> dict:
        """``parent[key]``, a table whose keys are checked against the JSON-Schema ``node`` (its
        ``properties`` and ``required``): unknown and missing keys are one line naming them."""
        full = f"{path}.{key}" if path else key
        if key not in parent:
            if default is _MISSING:
                raise self.error(full, "a table (required)")
            return default
        props = node.get("properties", {})
        return self.keys(parent[key], full, set(props), set(node.get("required", ())))


    def csv_columns(self, key: str, value, columns: tuple[str, ...]) -> dict[str, np.ndarray]:
        """The named ``columns`` of the CSV file ``value`` (relative to the scenario file; a header line names
        the columns, in any order; other columns are ignored), as float64 arrays."""
        path = self.data_file(key, value, f"a CSV file with a header line ({', '.join(columns)})")
        try:
            rows = [r for r in path.read_text(encoding="utf-8").splitlines()
                    if r.strip() and not r.lstrip().startswith("#")]
        except (OSError, UnicodeDecodeError):
            raise self.error(key, "a readable UTF-8 CSV file", value) from None
        header = [h.strip() for h in rows[0].split(",")] if rows else []
        missing = [c for c in columns if c not in header]
        if missing:
            raise self.error(key, f"a CSV whose header names {', '.join(columns)}",
                             f"{value} without {', '.join(missing)}")
        try:
            data = np.array([[float(x) for x in r.split(",")] for r in rows[1:]], dtype=np.float64)
        except ValueError:
            raise self.error(key, "a CSV of numbers below its header", value) from None
        if data.ndim != 2 or data.shape[0] < 1 or data.shape[1] != len(header) or not np.all(np.isfinite(data)):
            raise self.error(key, f"a CSV of finite numbers, {len(header)} on every row, at least one row", value)
        return {c: np.ascontiguousarray(data[:, header.index(c)]) for c in columns}

    def data_file(self, key: str, value, what: str) -> Path:
        """The data file ``value`` names, confined to the scenario file's folder (``domain.csv``, a family's
        CSV and GraphML files): a relative path without ``..`` that stays inside that folder once symbolic links
        are followed, naming a regular file (not a FIFO, device or directory) of at most :data:`MAX_DATA_BYTES`
        bytes; else one line naming ``key``. ``what`` says what the file should be."""
        from ..utils.validation import check_input_file

        if not isinstance(value, str) or not value:
            raise self.error(key, f"the name of {what} next to the scenario file", value)
        inside = f"{what} inside the scenario file's folder (a relative path without '..': data files are read " \
                 "only from there)"
        if Path(value).is_absolute() or ".." in Path(value).parts or "\0" in value:
            raise self.error(key, inside, value)
        path = self.base_dir / value
        if not path.exists() and not path.is_symlink():
            raise self.error(key, what, f"{value} (not found)")
        base = self.base_dir.resolve()
        if not path.resolve().is_relative_to(base):
            raise self.error(key, inside, f"{value}, a symbolic link to {path.resolve()}")
        if not path.exists():
            raise self.error(key, what, f"{value} (a dangling symbolic link)")
        try:
            return check_input_file("file", path, max_bytes=MAX_DATA_BYTES)
        except BoundcheckError as exc:  # "<value> is too large (…)", "… is not a regular file (…)"
            raise ScenarioFileError(f"{self.source}: key {key!r}: {str(exc).replace(f'file {path}', value, 1)}") \
                from None

    def graphml(self, key: str, value, node_attrs: tuple[str, ...], edge_attrs: tuple[str, ...], *,
                undirected: str = "refuse") -> GraphMLGraph:
        """The graph of the GraphML file ``value`` (resolved like :meth:`csv_columns`'s files) with its numeric
        node attributes ``node_attrs`` and edge attributes ``edge_attrs``: see :func:`read_graphml` (and it for
        ``undirected``). Node ``i`` is the file's ``i``-th ``<node>``. Every refusal is one line naming ``key``
        and the file."""
        path = self.data_file(key, value, "a GraphML file")
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise self.error(key, "a readable GraphML file", f"{value}: {exc.strerror or exc}") from None
        try:
            return read_graphml(data, node_attrs, edge_attrs, undirected=undirected)
        except _Refused as exc:
            got = value if exc.got is _MISSING else f"{exc.got} in {value}"
            raise ScenarioFileError(f"{self.source}: key {key!r}: expected {exc.expected}, got {got}") from None


def object_schema(properties: Mapping[str, Mapping], required: tuple[str, ...] = (), description: str = "",
                  **extra) -> dict:
    """A JSON-Schema object node: these ``properties``, these ``required``, no other key."""
    node = {"type": "object", "properties": dict(properties), "additionalProperties": False}
    if required:
        node["required"] = list(required)
    if description:
        node["description"] = description
    node.update(extra)
    return node


_NUM = {"type": "number"}
_INT = {"type": "integer", "minimum": 1}
_STR = {"type": "string"}

#: the root keys every family's files share (:func:`read_common` reads them)
COMMON_PROPERTIES: dict[str, dict] = {
    "format": {"const": FORMAT, "description": "the scenario-file format (optional)"},
    "name": {"type": "string", "minLength": 1, "description": "the scenario's name (the built-in files: their stem)"},
    "description": {"type": "string", "description": "what the scenario is; the family may add generated text"},
    "notes": {"type": "array", "items": _STR, "description": "added to the family's own notes"},
    "horizon": {**_INT, "description": "T (verify --horizon overrides it)"},
    "delta": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1,
              "description": "δ (verify --delta overrides it)"},
    "runs": {**_INT, "description": "the default number of Monte Carlo runs"},
    "in_theory": {"const": False, "description": "false marks a negative control (give out_of_theory_reason); "
                                                 "the family derives the rest (a misspecified truth is out of "
                                                 "theory whatever the file says)"},
    "out_of_theory_reason": {"type": "string", "description": "why the scenario is outside the theorems"},
}


@dataclass(frozen=True)
class Common:
    """The root keys every family shares, read."""

    name: str
    description: str
    notes: tuple[str, ...]
    horizon: int | None
    delta: float | None
    runs: int | None
    out_of_theory_reason: str  # "" unless the file marks itself a negative control


def read_common(f: FileReader, root: dict) -> Common:
    """The shared root keys of a family's file (:data:`COMMON_PROPERTIES`); ``horizon``/``delta`` None when the
    family's schema lets them default."""
    if "format" in root and root["format"] != FORMAT:
        raise f.error("format", f"{FORMAT} (the scenario-file format this boundcheck reads)", root["format"])
    name = f.text(root, "name", "")
    if not name.strip():
        raise f.error("name", "a non-empty string", name)
    notes = root.get("notes", [])
    if not isinstance(notes, list) or not all(isinstance(x, str) for x in notes):
        raise f.error("notes", "a list of strings", notes)
    if "in_theory" in root and root["in_theory"] is not False:
        raise f.error("in_theory", "false (a negative control; whether the scenario is in theory is derived from "
                                   "its truth and its models)", root["in_theory"])
    reason = f.text(root, "out_of_theory_reason", "", default="")
    if (root.get("in_theory") is False) != bool(reason):
        raise f.error("out_of_theory_reason" if reason == "" else "in_theory",
                      "in_theory = false and out_of_theory_reason together (a negative control)")
    return Common(name=name, description=f.text(root, "description", "", default=""), notes=tuple(notes),
                  horizon=f.integer(root, "horizon", "", default=None),
                  delta=_delta(f, root) if "delta" in root else None,
                  runs=f.integer(root, "runs", "", default=None), out_of_theory_reason=reason)


def finish_common(f: FileReader, sc: Scenario, common: Common) -> Scenario:
    """The family's scenario with the shared keys applied: the file's notes after the family's, the file's own
    negative-control label after the derived reasons, the default runs and the file it came from."""
    changes: dict = {"default_runs": common.runs, "source": f.source}
    if common.notes:
        changes["notes"] = (*sc.notes, *common.notes)
    if common.out_of_theory_reason:
        changes["in_theory"] = False
        changes["out_of_theory_reason"] = "; ".join(x for x in (sc.out_of_theory_reason,
                                                                  common.out_of_theory_reason) if x)
    try:
        return replace(sc, **changes)
    except BoundcheckError as exc:
        raise ScenarioFileError(f"{f.source}: {exc}") from None


def theory_label(f: FileReader, root: dict) -> tuple[bool, str, list[str]]:
    """A stationary file's ``in_theory`` (a boolean), ``out_of_theory_reason`` (required when it is false) and
    ``notes`` (a list of strings), each refused in one line naming its key."""
    in_theory = root.get("in_theory", True)
    if not isinstance(in_theory, bool):
        raise f.error("in_theory", "true or false", in_theory)
    reason = f.text(root, "out_of_theory_reason", "", default="", template=True)
    if not in_theory and not reason:
        raise f.error("out_of_theory_reason", "a reason (the scenario says in_theory = false)")
    notes = root.get("notes", [])
    if not isinstance(notes, list) or not all(isinstance(x, str) for x in notes):
        raise f.error("notes", "a list of strings", notes)
    return in_theory, reason, notes


def _delta(f: FileReader, root: dict) -> float:
    d = f.number(root, "delta", "", low=0.0, high=1.0, strict_low=True, what="a probability δ in (0, 1)")
    if d >= 1.0:
        raise f.error("delta", "a probability δ in (0, 1)", root["delta"])
    return d
