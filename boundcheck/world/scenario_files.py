"""Scenario files: everything a scenario is, as TOML (stdlib ``tomllib``); generated constants come from
registered generators (the generator is code, its parameters and every other number are data).

A file (every key is documented in docs/scenarios.md)::

    name = "my_problem"                # required; the built-in files are named after their scenario
    description = "..."
    notes = ["..."]
    horizon = 200                      # T (verify --horizon overrides it)
    delta = 0.1                        # δ (verify --delta overrides it)
    noise = 0.1                        # R, the noise standard deviation
    runs = 200                         # default Monte Carlo runs (optional)
    in_theory = true                   # false: a negative control (give out_of_theory_reason)
    model_noise = "R2"                 # the models' likelihood variance λ: "R2" (= R²) or "1+2/T" (IGP-UCB)
    B = 3.0                            # RKHS norm bound given to the algorithms (frequentist theorems)
    gamma_rule = "certified"           # or "rate:se" | "rate:matern" | "rate:constant" (+ gamma_rate_params)

    [generator]                        # optional: name = a registered generator, other keys its parameters;
    name = "paper000.sensor_days"      # "$key" / "$key[i]" anywhere below is one of the values it returns,
    seed = 20040314                    # and "${key:.3g}" inside a text is its formatted value

    [domain]                           # exactly one of grid, uniform, indices, csv, points
    grid = {n = 100, dim = 1, low = 0.0, high = 1.0}
    # uniform = {n = 100, dim = 1, seed = 2017}   |  indices = {n = 54}  |  csv = "points.csv"  |  points = "$points"

    [kernel]                           # the priors' kernel (a prior may give its own)
    family = "rbf"                     # rbf (lengthscale, variance), rbf_paper (l), matern (nu, lengthscale),
    lengthscale = 0.2                  # matern12/32/52, linear (variance); or matrix = "$name" / [[...], ...]

    [[priors]]                         # the candidate priors U the algorithms are given (at least one)
    name = "GP(0, SE)"
    mean = 0.0                         # a number, a list of n numbers, or "$name"
    eps = 0.0                          # drift ε ∈ [0, 1]

    [truth]                            # exactly one of:
    prior = "GP(0, SE)"                # a candidate (Bayesian, in the model)
    # gp = {name = "...", mean = 0.5, eps = 0.3, kernel = {family = "rbf", lengthscale = 3.0}}  (+ reference)
    # rkhs = {name = "...", generator = "posterior_mean", norm = 3.0}                            (+ reference)
    # reference = "GP(0, SE)"          # the candidate used for the truth-side monitors when misspecified

    [availability]                     # optional: kind = "always" (default) or "alternating" with
    kind = "alternating"               # exclude_box = {centre = [0.1], half_width = 0.05} or restricted = [...]

    [actions]                          # optional: top_k = K (semi-bandit super arms of K base arms)

That is the ``stationary`` family of files (the default). A root key ``family = "<paper>.<name>"`` names a
family a paper defines (:class:`FileFamily`, in the ``FILE_FAMILIES`` of the paper's ``scenarios`` part: the ε
chains of paper 001, the variation-budget sequences of paper 003, the combinatorial action sets of paper 002):
its keys, schema and reader are the paper's, read with the same :class:`FileReader` (so errors name the key the
same way). :func:`schema` is the published JSON Schema of every family (``boundcheck scenario schema``).

Errors: :class:`ScenarioFileError`, one line naming the file, the key and what was expected.
"""

from __future__ import annotations

import copy
import inspect
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from numbers import Integral, Real
from pathlib import Path

import numpy as np

from theory import plugins

from ..errors import BoundcheckError
from ..model.domains import FiniteDomain, grid
from ..model.kernels import KERNEL_NAMES, make_kernel
from ..model.priors import GPPrior, RKHSFamily
from ..utils.blas import scenario_blas
from .actions import AlternatingAvailability, AlwaysAvailable, TopK
from .scenario import Scenario

__all__ = ["ScenarioFileError", "load_scenario", "parse_scenario", "register_generator", "generator_names",
           "apply_overrides", "read_toml", "scenario_summary", "FORMAT", "FileFamily", "FileReader",
           "register_file_family", "file_families", "schema", "read_common", "finish_common", "object_schema",
           "GraphMLGraph", "read_graphml", "MAX_DATA_BYTES", "MAX_DOMAIN_POINTS"]

FORMAT = 1
_MISSING = object()


class ScenarioFileError(BoundcheckError):
    """A malformed scenario file: the message names the file, the key and what was expected."""


# ------------------------------------------------------------------------------------------ generators
def _install_generators(module) -> None:
    for name, fn in getattr(module, "GENERATORS", {}).items():
        register_generator(name, fn)


# the papers' generators come from their ``scenarios`` part (``GENERATORS``), imported on the first miss
_GENERATORS = plugins.registry(
    "scenarios", _install_generators,
    lambda name: BoundcheckError(f"a scenario generator named {name!r} is already registered"))


def register_generator(name: str, fn: Callable[..., Mapping[str, object]], *, replace: bool = False) -> None:
    """Register ``fn(**params) -> {name: value}`` as the generator ``name`` of scenario files.

    A generator may accept ``points`` (the domain, when the file gives it directly) and ``kernel_matrix``
    (the [kernel] Gram matrix on it); its other keyword arguments are the file's [generator] keys."""
    _GENERATORS.add(name, fn, replace=replace)


def generator_names() -> list[str]:
    return sorted(_GENERATORS.load())


def _generator(name: str, scenario: str | None = None) -> Callable[..., Mapping[str, object]]:
    """The generator ``name`` of the file of scenario ``scenario``: generator names are not declared in the
    papers' manifests, scenario names are, so the paper that ships the scenario is looked in first (a verify of
    one paper's scenario imports no other paper's catalogue), then every paper."""
    found = _GENERATORS.find(name)
    if found is None and scenario:
        _GENERATORS.find(scenario)  # installs the paper(s) declaring the scenario: their generators too
        found = _GENERATORS.items.get(name)
    if found is None:
        found = _GENERATORS.load().get(name)
    if found is None:
        raise KeyError(name)
    return found


# ------------------------------------------------------------------------------------------ families
STATIONARY = "stationary"


@dataclass(frozen=True)
class FileFamily:
    """A family of scenario files a paper defines: the files whose root key ``family`` is ``name``.

    Parameters
    ----------
    name : str
        ``"<paper id>.<family>"`` (the paper id first: a look-up imports only that paper's ``scenarios`` part).
    parse : callable
        ``parse(reader, root) -> Scenario``: builds the scenario of a file whose root keys were checked against
        ``schema`` (unknown and missing keys are already one-line errors); it reads values with the
        :class:`FileReader`'s methods, so every error names its key, and ends with :func:`finish_common`.
    schema : dict
        The JSON Schema (draft 2020-12) of the file's root table (start from :func:`object_schema` and
        :data:`COMMON_PROPERTIES`): what ``boundcheck scenario schema`` publishes, and the keys the reader
        accepts (its ``properties``) and needs (its ``required``).
    title : str
        One line: what the family's scenarios are."""

    name: str
    parse: Callable[[FileReader, dict], Scenario]
    schema: Mapping
    title: str = ""


def _install_families(module) -> None:
    for fam in getattr(module, "FILE_FAMILIES", ()):
        register_file_family(fam)


# the papers' families come from their ``scenarios`` part (``FILE_FAMILIES``)
_FAMILIES = plugins.registry(
    "scenarios", _install_families,
    lambda name: BoundcheckError(f"a scenario-file family named {name!r} is already registered"))


def register_file_family(family: FileFamily, *, replace: bool = False) -> FileFamily:
    """Make ``family`` readable: files whose root says ``family = "<its name>"``."""
    if not isinstance(family, FileFamily):
        raise TypeError(f"register_file_family() needs a FileFamily, got {type(family).__name__}")
    if family.name == STATIONARY or "." not in family.name:
        raise BoundcheckError(f"a scenario-file family is named \"<paper id>.<name>\", got {family.name!r}")
    return _FAMILIES.add(family.name, family, replace=replace)


def file_families() -> dict[str, FileFamily]:
    """Every scenario-file family of the installed papers (the core's ``stationary`` one is not listed)."""
    return dict(_FAMILIES.load())


def _family(f: FileReader, name) -> FileFamily:
    if not isinstance(name, str):
        raise f.error("family", "a string naming a scenario-file family", name)
    found = _FAMILIES.find(name)
    if found is None:  # family names are not declared in the manifests: the paper id leads the name
        found = _FAMILIES.load_declaring(name.split(".")[0]).get(name)
    if found is None:
        found = _FAMILIES.load().get(name)
    if found is None:
        raise f.error("family", "one of " + ", ".join(map(repr, [STATIONARY, *sorted(_FAMILIES.load())])), name)
    return found


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


def schema(family: str | None = None) -> dict:
    """The published JSON Schema of scenario files: every family (``oneOf``, told apart by the root key
    ``family``), or the one named."""
    fams = {STATIONARY: _stationary_schema(), **{k: dict(v.schema) for k, v in file_families().items()}}
    titles = {STATIONARY: "the stationary families: candidate priors, a GP or RKHS truth (papers 000, Srinivas, "
                          "004; the default when the file has no family key)",
              **{k: v.title for k, v in file_families().items()}}
    head = {"$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": "https://boundcheck.invalid/scenario-file.schema.json"}
    if family is not None:
        if family not in fams:
            raise BoundcheckError(f"unknown scenario-file family {family!r}; known: {', '.join(fams)}")
        return {**head, "title": f"boundcheck scenario file, family {family!r}: {titles[family]}", **fams[family]}
    branches = []
    for name, node in fams.items():
        node = dict(node)
        node["title"] = f"family {name!r}: {titles[name]}"
        branches.append(node)
    return {**head, "title": "boundcheck scenario file (format 1)",
            "description": "TOML; the root key `family` picks the branch (default: stationary). Every key is "
                           "documented in docs/scenarios.md.", "oneOf": branches}


def _stationary_schema() -> dict:
    kernel = object_schema({
        "family": {"enum": sorted({*KERNEL_NAMES, "matern", "rbf_paper", "linear"})},
        "lengthscale": {"type": "number", "exclusiveMinimum": 0}, "variance": {"type": "number",
                                                                               "exclusiveMinimum": 0},
        "nu": {"enum": [0.5, 1.5, 2.5]}, "l": {"type": "number", "exclusiveMinimum": 0},
        "matrix": {"oneOf": [{"type": "array"}, {"type": "string", "pattern": "^\\$"}]}},
        description="the kernel: family and its parameters, or matrix = an n × n Gram matrix")
    ref = {"type": "string", "pattern": "^\\$\\w+(\\[\\d+\\])?$", "description": "a generated value"}
    mean = {"oneOf": [_NUM, {"type": "array", "items": _NUM}, ref]}
    gp = object_schema({"name": _STR, "mean": mean, "eps": {"type": "number", "minimum": 0, "maximum": 1},
                        "kernel": kernel}, ("name",))
    box = object_schema({"n": _INT, "dim": _INT, "low": _NUM, "high": _NUM})
    props = {
        **{k: v for k, v in COMMON_PROPERTIES.items() if k != "in_theory"},
        "family": {"const": STATIONARY},
        "in_theory": {"type": "boolean"},
        "noise": {"type": "number", "exclusiveMinimum": 0, "description": "R, the noise standard deviation"},
        "model_noise": {"enum": ["R2", "1+2/T"]}, "B": {"type": "number", "exclusiveMinimum": 0},
        "gamma_rule": {"type": "string", "pattern": "^(certified|rate:(se|matern|constant))$"},
        "gamma_rate_params": {"type": "object", "additionalProperties": _NUM},
        "generator": {"type": "object", "required": ["name"], "properties": {"name": _STR},
                      "description": "a registered generator and its parameters"},
        "domain": object_schema({"grid": {**box, "required": ["n"]}, "uniform": object_schema(
            {"n": _INT, "dim": _INT, "seed": {"type": "integer"}}), "indices": object_schema({"n": _INT}),
            "csv": _STR, "points": {"oneOf": [{"type": "array"}, ref]}, "name": _STR},
            description="exactly one of grid, uniform, indices, csv, points"),
        "kernel": kernel,
        "priors": {"type": "array", "minItems": 1, "items": gp},
        "truth": object_schema({"prior": _STR, "gp": gp, "rkhs": object_schema(
            {"name": _STR, "generator": {"enum": ["posterior_mean", "fixed", "values"]},
             "norm": {"type": "number", "exclusiveMinimum": 0}, "gen_noise_var": {"type": "number"},
             "alpha": {"oneOf": [{"type": "array"}, ref]}, "values": {"oneOf": [{"type": "array"}, ref]},
             "kernel": kernel}, ("generator",)), "reference": _STR},
            description="exactly one of prior, gp, rkhs (+ reference for gp and rkhs)"),
        "availability": object_schema({"kind": {"enum": ["always", "alternating"]}, "exclude_box": object_schema(
            {"centre": {"type": "array", "items": _NUM}, "half_width": _NUM}, ("centre", "half_width")),
            "restricted": {"oneOf": [{"type": "array"}, ref]}, "note": _STR}),
        "actions": object_schema({"top_k": _INT}, ("top_k",)),
    }
    return object_schema(props, ("name", "horizon", "delta", "noise", "domain", "priors", "truth"))


# ------------------------------------------------------------------------------------------ reading
def read_toml(path: str | Path) -> dict:
    """The parsed TOML of ``path`` (one-line errors for a missing, special, huge, deep or malformed file)."""
    from ..utils.validation import read_toml as _read

    return _read("scenario file", path, ScenarioFileError)


def load_scenario(path: str | Path, overrides: Mapping[str, object] | None = None) -> Scenario:
    """The scenario of a TOML file, with ``overrides`` ({"kernel.lengthscale": 0.1, ...}) applied first."""
    data = read_toml(path)
    if overrides:
        data = apply_overrides(data, overrides, str(path))
    return parse_scenario(data, source=str(path), base_dir=Path(path).parent)


def apply_overrides(data: dict, overrides: Mapping[str, object], source: str = "<scenario>") -> dict:
    """A copy of a parsed file with dotted keys set: ``"noise"``, ``"kernel.lengthscale"``, ``"priors.0.eps"``,
    ``"priors.*.eps"`` (every prior)."""
    data = copy.deepcopy(data)
    for key, value in overrides.items():
        parts = str(key).split(".")
        targets = [data]
        for i, part in enumerate(parts[:-1]):
            nxt = []
            for node in targets:
                if isinstance(node, list):
                    if part == "*":
                        nxt.extend(node)
                    elif part.isdigit() and int(part) < len(node):
                        nxt.append(node[int(part)])
                    else:
                        raise ScenarioFileError(f"{source}: cannot set {key!r}: {'.'.join(parts[:i + 1])!r} is not "
                                                f"an index of a list of {len(node)}")
                elif isinstance(node, dict):
                    if part not in node:
                        node[part] = {}
                    nxt.append(node[part])
                else:
                    raise ScenarioFileError(f"{source}: cannot set {key!r}: {'.'.join(parts[:i])!r} is not a table")
            targets = nxt
        for node in targets:
            if not isinstance(node, dict):
                raise ScenarioFileError(f"{source}: cannot set {key!r}: its parent is not a table")
            node[parts[-1]] = value
    return data


# ------------------------------------------------------------------------------------------ parsing
_ROOT_KEYS = {"format", "family", "name", "description", "notes", "horizon", "delta", "noise", "runs", "in_theory",
              "out_of_theory_reason", "model_noise", "B", "gamma_rule", "gamma_rate_params", "generator", "domain",
              "kernel", "priors", "truth", "availability", "actions"}
_TEMPLATE = re.compile(r"\$\{(\w+)(?::([^}]*))?\}")
_REF = re.compile(r"^\$(\w+)(?:\[(\d+)\])?$")


class FileReader:
    """Parsing state of one file: where errors point, and the generator's values."""

    def __init__(self, source: str, base_dir: Path) -> None:
        self.source, self.base_dir = source, base_dir
        self.generated: dict[str, object] = {}

    def build(self, builder: Callable[..., Scenario], *args, **kwargs) -> Scenario:
        """``builder(*args, **kwargs)`` (a family's scenario builder), its input errors as one line naming this
        file: a family parser checks the keys, the builder checks what the values mean together."""
        try:
            return builder(*args, **kwargs)
        except ScenarioFileError:
            raise
        except BoundcheckError as exc:
            raise ScenarioFileError(f"{self.source}: {exc}") from None
        self.generator_name: str | None = None

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


_File = FileReader  # the name the readers of this module used before the families


# ------------------------------------------------------------------------------------------ data files
#: the most points a scenario file's domain may have, whatever its kind (grid, uniform, indices, csv, points): every
#: prior holds an n × n Gram matrix (3.2 GB at this size) and checking each is PSD costs O(n³); beyond it a file is
#: refused before anything of that size is built (and below it, :func:`_check_gram_memory` sizes the matrices)
MAX_DOMAIN_POINTS = 20000

#: the largest dimension of a grid or uniform domain (n^dim ≤ MAX_DOMAIN_POINTS caps a grid anyway for n ≥ 2)
MAX_DOMAIN_DIM = 1000

#: the most bytes a data file (CSV, GraphML) a scenario file names is read: a road network of :data:`MAX_ARMS`
#: roads is a few hundred kilobytes; the cap keeps a mistaken path (a disk image) from being read into memory
MAX_DATA_BYTES = 16 * 1024**2

GRAPHML_NS = "http://graphml.graphdrawing.org/xmlns"


@dataclass(frozen=True, eq=False)
class GraphMLGraph:
    """The graph of a GraphML file as arrays (:meth:`FileReader.graphml`).

    Attributes
    ----------
    ids : tuple of str
        The nodes' GraphML ids; node ``i`` is the ``i``-th ``<node>`` of the document.
    nodes : dict of str to ndarray
        Each asked-for node attribute, float64, one value per node.
    tail, head : ndarray
        int64 node indices of the edges: the ``<edge>`` elements in document order, then (when undirected
        edges are read both ways) the reverse of each undirected one, in the same order.
    edges : dict of str to ndarray
        Each asked-for edge attribute, float64, one value per edge of ``tail``/``head`` (a reversed edge carries
        its undirected edge's values)."""

    ids: tuple[str, ...]
    nodes: dict[str, np.ndarray]
    tail: np.ndarray
    head: np.ndarray
    edges: dict[str, np.ndarray]


class _Refused(Exception):
    """What a GraphML file is not: ``expected`` and, optionally, what it ``got`` (for :meth:`FileReader.error`)."""

    def __init__(self, expected: str, got=_MISSING) -> None:
        super().__init__(expected)
        self.expected, self.got = expected, got


def _number(text: str | None, what: str) -> float:
    """A finite float from a GraphML ``<data>``/``<default>`` text."""
    try:
        v = float((text or "").strip())
    except ValueError:
        raise _Refused(f"a number for {what}", _show((text or "").strip())) from None
    if not math.isfinite(v):
        raise _Refused(f"a finite number for {what}", _show((text or "").strip()))
    return v


def read_graphml(data: bytes, node_attrs: tuple[str, ...], edge_attrs: tuple[str, ...], *,
                 undirected: str = "refuse") -> GraphMLGraph:
    """The graph of the GraphML document ``data`` (http://graphml.graphdrawing.org/specification.html), with the
    numeric node attributes ``node_attrs`` and edge attributes ``edge_attrs`` (the ``attr.name`` of its
    ``<key>`` elements; a key's ``<default>`` stands in for a missing ``<data>``).

    Read with the standard library's ElementTree, which does not fetch external entities; a document with a
    DOCTYPE is refused outright (internal entities are how an "XML bomb" expands a small file into gigabytes).
    One ``<graph>`` only: hyperedges and nested graphs (a ``<graph>`` inside a node or edge) are refused, not
    flattened, since boundcheck's graphs have none and a silent reading would be a different graph. Ports and
    attributes not asked for are ignored. ``undirected``: ``"both"`` reads an undirected edge (the graph's
    ``edgedefault="undirected"``, or an edge's ``directed="false"``) as two directed ones, ``"refuse"`` refuses
    it (a DAG has a direction). Raises :class:`_Refused` (what was expected, what the file holds)."""
    import xml.etree.ElementTree as ET

    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise _Refused("a UTF-8 GraphML file", "bytes that are not UTF-8") from None
    upper = text.upper()
    if "<!DOCTYPE" in upper or "<!ENTITY" in upper:
        raise _Refused("a GraphML file without a DOCTYPE or entity declarations (refused: they can expand a small "
                       "file into gigabytes)", "a DOCTYPE" if "<!DOCTYPE" in upper else "an <!ENTITY>")
    try:
        root = ET.fromstring(data)
    except ET.ParseError as exc:
        raise _Refused("a GraphML (XML) file", f"malformed XML ({exc})") from None
    ns = root.tag[1:].partition("}")[0] if root.tag.startswith("{") else ""
    if root.tag not in (f"{{{GRAPHML_NS}}}graphml", "graphml"):
        raise _Refused(f"a GraphML file (a <graphml> root in the namespace {GRAPHML_NS})", f"<{root.tag}>")

    def tag(name: str) -> str:
        return f"{{{ns}}}{name}" if ns else name

    if any(True for _ in root.iter(tag("hyperedge"))):
        raise _Refused("a graph of nodes and edges (hyperedges are not read)", "a <hyperedge>")
    graphs = root.findall(tag("graph"))
    if len(graphs) != 1:
        raise _Refused("exactly one <graph> in the file", f"{len(graphs)} graphs")
    graph = graphs[0]
    if sum(1 for _ in root.iter(tag("graph"))) > 1:
        raise _Refused("a flat graph (nested graphs inside nodes or edges are not read)", "a nested <graph>")
    default_dir = graph.get("edgedefault")
    if default_dir not in ("directed", "undirected"):
        raise _Refused('<graph edgedefault="directed"> or "undirected"', _show(default_dir) if default_dir else "none")

    # <key id=… for=… attr.name=…>: which data key is which attribute, and its default
    keys: dict[str, dict[str, tuple[str, str | None]]] = {"node": {}, "edge": {}}
    for k in root.findall(tag("key")):
        kid, dom, name = k.get("id"), k.get("for", "all"), k.get("attr.name")
        if kid is None:
            raise _Refused("an id on every <key>")
        dflt = k.find(tag("default"))
        for d in (("node", "edge") if dom == "all" else (dom,) if dom in keys else ()):
            keys[d][kid] = (name or kid, None if dflt is None else dflt.text)

    def values(el, domain: str, want: tuple[str, ...], label: str) -> list[float]:
        given = {}
        for d in el.findall(tag("data")):
            kid = d.get("key")
            if kid not in keys[domain]:
                raise _Refused(f"<data key> declared by a <key for=\"{domain}\">", f"key {_show(kid)} on {label}")
            given[keys[domain][kid][0]] = d.text
        by_name = {name: dflt for name, dflt in keys[domain].values()}
        out = []
        for a in want:
            if a in given:
                out.append(_number(given[a], f"{a} of {label}"))
            elif by_name.get(a) is not None:
                out.append(_number(by_name[a], f"{a} of {label} (its key's <default>)"))
            else:
                raise _Refused(f"every {domain} to have {a} (<key attr.name=\"{a}\" for=\"{domain}\"> and a <data> "
                               "or <default>)", f"{label} without it")
        return out

    index: dict[str, int] = {}
    node_vals = []
    for el in graph.findall(tag("node")):
        nid = el.get("id")
        if nid is None:
            raise _Refused("an id on every <node>")
        if nid in index:
            raise _Refused("distinct node ids", f"{_show(nid)} twice")
        index[nid] = len(index)
        node_vals.append(values(el, "node", node_attrs, f"node {_show(nid)}"))
    if not index:
        raise _Refused("a graph with nodes", "no <node>")
    tail, head, edge_vals, both = [], [], [], []
    for el in graph.findall(tag("edge")):
        src, dst = el.get("source"), el.get("target")
        label = f"edge {_show(el.get('id'))}" if el.get("id") else f"edge {_show(src)} → {_show(dst)}"
        for end in (src, dst):
            if end not in index:
                raise _Refused("edges between the file's nodes", f"{label} to unknown node {_show(end)}")
        flag = el.get("directed")
        if flag not in (None, "true", "false"):
            raise _Refused('directed="true" or "false" on an edge', f"{label}: {_show(flag)}")
        undirected_edge = flag == "false" or (flag is None and default_dir == "undirected")
        if undirected_edge and undirected != "both":
            raise _Refused("a directed graph (edgedefault=\"directed\", no edge directed=\"false\")",
                           f"undirected {label}")
        tail.append(index[src])
        head.append(index[dst])
        edge_vals.append(values(el, "edge", edge_attrs, label))
        both.append(undirected_edge)
    if not tail:
        raise _Refused("a graph with edges", "no <edge>")
    # the reverse of each undirected edge after the document's edges: the layout of road_network's arrays
    rev = [i for i, b in enumerate(both) if b]
    tail, head = tail + [head[i] for i in rev], head + [tail[i] for i in rev]
    edge_vals = edge_vals + [edge_vals[i] for i in rev]
    nv = np.array(node_vals, dtype=np.float64).reshape(len(node_vals), len(node_attrs))
    ev = np.array(edge_vals, dtype=np.float64).reshape(len(edge_vals), len(edge_attrs))
    return GraphMLGraph(ids=tuple(index), nodes={a: np.ascontiguousarray(nv[:, i]) for i, a in enumerate(node_attrs)},
                        tail=np.array(tail, dtype=np.int64), head=np.array(head, dtype=np.int64),
                        edges={a: np.ascontiguousarray(ev[:, i]) for i, a in enumerate(edge_attrs)})


def _show(v) -> str:
    if isinstance(v, np.ndarray):
        return f"an array of shape {v.shape}"
    text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


def _signature_accepts(fn, name: str) -> bool:
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return name in params or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())


def _has_ref(obj) -> bool:
    if isinstance(obj, str):
        return obj.startswith("$")
    if isinstance(obj, dict):
        return any(_has_ref(v) for v in obj.values())
    if isinstance(obj, list):
        return any(_has_ref(v) for v in obj)
    return False


def _domain(f: FileReader, table) -> FiniteDomain:
    t = f.keys(table, "domain", {"grid", "uniform", "indices", "csv", "points", "name"})
    kinds = [k for k in ("grid", "uniform", "indices", "csv", "points") if k in t]
    if len(kinds) != 1:
        raise f.error("domain", "exactly one of grid, uniform, indices, csv, points",
                      f"{', '.join(kinds) or 'none'}")
    kind = kinds[0]
    name = f.text(t, "name", "domain", default=None)
    if kind == "grid":
        g = f.keys(t["grid"], "domain.grid", {"n", "dim", "low", "high"}, {"n"})
        n, dim = f.integer(g, "n", "domain.grid"), f.integer(g, "dim", "domain.grid", default=1)
        low, high = f.number(g, "low", "domain.grid", default=0.0), f.number(g, "high", "domain.grid", default=1.0)
        if not high > low:
            raise f.error("domain.grid.high", f"a number above low = {low:g}", g.get("high"))
        _check_dim(f, "domain.grid.dim", dim)
        if n**dim > MAX_DOMAIN_POINTS:
            raise f.error("domain.grid", f"at most {MAX_DOMAIN_POINTS} points (n^dim)", f"{n}^{dim}")
        dom = grid(n, dim, low, high)
        return dom if name is None else FiniteDomain(dom.points, name=name)
    if kind == "uniform":
        g = f.keys(t["uniform"], "domain.uniform", {"n", "dim", "seed", "low", "high"}, {"n", "seed"})
        n, dim = f.integer(g, "n", "domain.uniform"), f.integer(g, "dim", "domain.uniform", default=1)
        seed = f.integer(g, "seed", "domain.uniform", minimum=0)
        low = f.number(g, "low", "domain.uniform", default=0.0)
        high = f.number(g, "high", "domain.uniform", default=1.0)
        if not high > low:
            raise f.error("domain.uniform.high", f"a number above low = {low:g}", g.get("high"))
        _check_dim(f, "domain.uniform.dim", dim)
        if n > MAX_DOMAIN_POINTS:
            raise f.error("domain.uniform.n", f"at most {MAX_DOMAIN_POINTS} points", n)
        pts = np.random.default_rng(seed).uniform(low, high, size=(n, dim))
        return FiniteDomain(pts, name=name or f"uniform{n}")
    if kind == "indices":
        g = f.keys(t["indices"], "domain.indices", {"n"}, {"n"})
        n = f.integer(g, "n", "domain.indices")
        if n > MAX_DOMAIN_POINTS:
            raise f.error("domain.indices.n", f"at most {MAX_DOMAIN_POINTS} points", n)
        return FiniteDomain(np.arange(n, dtype=float)[:, None], name=name or f"indices{n}")
    if kind == "csv":
        rel = f.text(t, "csv", "domain")
        path = f.data_file("domain.csv", rel, "a CSV file of points (one per row)")
        try:
            text = path.read_text(encoding="utf-8").strip().splitlines()
        except (OSError, UnicodeDecodeError):
            raise f.error("domain.csv", "a readable UTF-8 CSV file", rel) from None
        rows = [r for r in text if r.strip() and not r.lstrip().startswith("#")]
        if len(rows) > MAX_DOMAIN_POINTS + 1:  # (+ a header line) counted before a number is parsed
            raise f.error("domain.csv", f"at most {MAX_DOMAIN_POINTS} points", f"{rel} with {len(rows)} rows")
        try:
            try:
                [float(x) for x in rows[0].split(",")]
            except ValueError:
                rows = rows[1:]  # a header line
            pts = np.array([[float(x) for x in r.split(",")] for r in rows], dtype=np.float64)
        except (ValueError, IndexError):
            raise f.error("domain.csv", "a CSV of numbers, the same count on every row", rel) from None
        if pts.ndim != 2 or pts.shape[0] < 1 or not np.all(np.isfinite(pts)):
            raise f.error("domain.csv", "a CSV of finite numbers, the same count on every row", rel)
        _check_points(f, "domain.csv", pts.shape[0])
        return FiniteDomain(pts, name=name or path.stem)
    pts = f.array(t["points"], "domain.points", what="points (a list of rows)")
    pts = pts[:, None] if pts.ndim == 1 else pts
    if pts.ndim != 2 or pts.shape[0] < 1:
        raise f.error("domain.points", "a non-empty list of points", t["points"])
    _check_points(f, "domain.points", pts.shape[0])
    return FiniteDomain(pts, name=name or "points")


def _check_points(f: FileReader, key: str, n: int) -> None:
    if n > MAX_DOMAIN_POINTS:
        raise f.error(key, f"at most {MAX_DOMAIN_POINTS} points", f"{n} points")


def _check_dim(f: FileReader, key: str, dim: int) -> None:
    if dim > MAX_DOMAIN_DIM:
        raise f.error(key, f"a dimension of at most {MAX_DOMAIN_DIM}", dim)


def _check_gram_memory(f: FileReader, root: dict, n: int) -> None:
    """Refuse a file whose n × n matrices would not fit in the memory available now, before any is built: one
    kept per prior, per GP or RKHS truth and for the shared [kernel], and about six more while one is built and
    checked PSD (its distances, its symmetrisation, the eigenvalue solver's copy; measured ≈ 3.6)."""
    from ..utils.resources import MemoryEstimate, check_memory

    priors = root.get("priors") if isinstance(root.get("priors"), list) else []
    truth = root.get("truth") if isinstance(root.get("truth"), dict) else {}
    kept = len(priors) + ("gp" in truth) + ("rkhs" in truth) + (root.get("kernel") is not None)
    one = 8 * n * n
    estimate = MemoryEstimate(f"scenario {root.get('name')!r} ({n} points, {kept} n × n matrices)",
                              (kept + 6) * one, {"kept matrices": kept * one, "building one": 6 * one})
    try:
        check_memory(estimate, hint="use fewer points, or fewer priors with a kernel of their own")
    except BoundcheckError as exc:
        raise ScenarioFileError(f"{f.source}: {exc}") from None


_KERNEL_KEYS = {"family", "lengthscale", "l", "variance", "nu", "matrix"}


def _kernel(f: FileReader, table, path: str, points: np.ndarray) -> np.ndarray:
    t = f.keys(table, path, _KERNEL_KEYS)
    n = points.shape[0]
    if "matrix" in t:
        if "family" in t:
            raise f.error(path, "either family (with its parameters) or matrix, not both")
        K = f.array(t["matrix"], f"{path}.matrix", shape=(n, n), what="a square matrix on the domain")
        return K
    family = f.text(t, "family", path, choices=(*KERNEL_NAMES, "matern"))
    variance = f.number(t, "variance", path, default=1.0, low=0.0, strict_low=True, what="a positive number")
    if family == "matern":
        nu = f.number(t, "nu", path, what="0.5, 1.5 or 2.5")
        if nu not in (0.5, 1.5, 2.5):
            raise f.error(f"{path}.nu", "0.5, 1.5 or 2.5", t["nu"])
        family = {0.5: "matern12", 1.5: "matern32", 2.5: "matern52"}[nu]
    elif "nu" in t:
        raise f.error(f"{path}.nu", f"no nu for family {family!r} (use family = \"matern\")", t["nu"])
    if family == "rbf_paper":
        scale = f.number(t, "l", path, low=0.0, strict_low=True, what="a positive number (paper 000's l = ℓ²)")
    elif family == "linear":
        scale = 1.0
    else:
        scale = f.number(t, "lengthscale", path, low=0.0, strict_low=True, what="a positive number")
    try:
        return make_kernel(family, scale, variance).gram(points)
    except BoundcheckError as exc:
        raise ScenarioFileError(f"{f.source}: key {path!r}: {exc}") from None


def _gp(f: FileReader, table: dict, path: str, points: np.ndarray, K_default: np.ndarray | None,
        name_default: str | None = None) -> GPPrior:
    t = f.keys(table, path, {"name", "mean", "eps", "kernel"})
    name = f.text(t, "name", path, default=name_default, template=True) if name_default else f.text(t, "name", path)
    n = points.shape[0]
    if "kernel" in t:
        K = _kernel(f, t["kernel"], f"{path}.kernel", points)
    elif K_default is None:
        raise f.error(f"{path}.kernel", "a kernel (or a top-level [kernel] table)")
    else:
        K = K_default
    mean = t.get("mean", 0.0)
    mean = f.array(mean, f"{path}.mean", what="a number or n numbers")
    if mean.ndim == 0:
        mean = float(mean)
    elif mean.shape != (n,):
        raise f.error(f"{path}.mean", f"a number or a list of {n} numbers (one per point)",
                      f"an array of shape {mean.shape}")
    eps = f.number(t, "eps", path, default=0.0, low=0.0, high=1.0, what="a drift ε in [0, 1]")
    try:
        return GPPrior(name, mean, K, eps)
    except BoundcheckError as exc:
        raise ScenarioFileError(f"{f.source}: key {path!r}: {exc}") from None


def _delta(f: FileReader, root: dict) -> float:
    d = f.number(root, "delta", "", low=0.0, high=1.0, strict_low=True, what="a probability δ in (0, 1)")
    if d >= 1.0:
        raise f.error("delta", "a probability δ in (0, 1)", root["delta"])
    return d


def parse_scenario(data: dict, source: str = "<scenario>", base_dir: str | Path = ".") -> Scenario:
    """A :class:`Scenario` from the parsed TOML ``data`` (see the module docstring for the keys). Its generators
    and kernels run on a fixed number of BLAS threads (:func:`~boundcheck.utils.blas.scenario_blas`): the same
    scenario, bit for bit, whatever ``OMP_NUM_THREADS`` says."""
    with scenario_blas():
        return _parse_scenario(data, source, base_dir)


def _parse_scenario(data: dict, source: str, base_dir: str | Path) -> Scenario:
    f = FileReader(source, Path(base_dir))
    if not isinstance(data, dict):
        raise f.error("", "a table of keys")
    fam = data.get("family", STATIONARY)
    if fam != STATIONARY:
        family = _family(f, fam)
        root = f.keys(data, "", set(family.schema.get("properties", {})), set(family.schema.get("required", ())))
        return family.parse(f, root)
    root = f.keys(data, "", _ROOT_KEYS, {"name", "horizon", "delta", "noise", "domain", "priors", "truth"})
    if "format" in root and root["format"] != FORMAT:
        raise f.error("format", f"{FORMAT} (the scenario-file format this boundcheck reads)", root["format"])
    name = f.text(root, "name", "")
    if not name.strip():
        raise f.error("name", "a non-empty string", name)

    # the domain and the shared kernel first when the file gives them directly (a generator may need them)
    dom_table, ker_table = root["domain"], root.get("kernel")
    dom = None if _has_ref(dom_table) else _domain(f, dom_table)
    if dom is not None:
        _check_gram_memory(f, root, dom.n)  # before the first Gram matrix is built
    K = None
    if ker_table is not None and dom is not None and not _has_ref(ker_table):
        K = _kernel(f, ker_table, "kernel", dom.points)
    if "generator" in root:
        g = root["generator"]
        if not isinstance(g, dict):
            raise f.error("generator", "a table with name = a registered generator and its parameters", g)
        gname = f.text(g, "name", "generator")
        try:
            fn = _generator(gname, name)
        except KeyError:
            raise f.error("generator.name", "a registered generator (" + ", ".join(generator_names()) + ")",
                          gname) from None
        params = {k: v for k, v in g.items() if k != "name"}
        if _signature_accepts(fn, "points"):
            if dom is None:
                raise f.error("generator", f"a domain given directly: generator {gname!r} needs the points")
            params["points"] = dom.points
        if _signature_accepts(fn, "kernel_matrix"):
            if K is None:
                raise f.error("generator", f"a [kernel] given directly: generator {gname!r} needs its Gram matrix")
            params["kernel_matrix"] = K
        try:
            inspect.signature(fn).bind(**params)
        except TypeError as exc:
            raise f.error("generator", f"the parameters of generator {gname!r} ({exc})") from None
        try:
            f.generated = dict(fn(**params))
        except BoundcheckError as exc:
            raise ScenarioFileError(f"{source}: key 'generator': {exc}") from None
        except (TypeError, ValueError) as exc:
            raise f.error("generator", f"parameters generator {gname!r} accepts ({type(exc).__name__}: {exc})") \
                from None
        f.generator_name = gname
    if dom is None:
        dom = _domain(f, dom_table)
        _check_gram_memory(f, root, dom.n)
    if K is None and ker_table is not None:
        K = _kernel(f, ker_table, "kernel", dom.points)

    # the candidate priors U
    priors_t = root["priors"]
    if not isinstance(priors_t, list) or not priors_t:
        raise f.error("priors", "a non-empty array of tables [[priors]]", priors_t)
    candidates = tuple(_gp(f, p, f"priors.{i}", dom.points, K) for i, p in enumerate(priors_t))
    names = [p.name for p in candidates]
    dup = sorted({x for x in names if names.count(x) > 1})
    if dup:
        raise f.error("priors", "distinct prior names", f"{dup[0]!r} twice")

    def candidate(key: str, value) -> int:
        if not isinstance(value, str) or value not in names:
            raise f.error(key, "the name of one of the [[priors]] (" + ", ".join(map(repr, names)) + ")", value)
        return names.index(value)

    # the truth
    tt = f.keys(root["truth"], "truth", {"prior", "gp", "rkhs", "reference"})
    kinds = [k for k in ("prior", "gp", "rkhs") if k in tt]
    if len(kinds) != 1:
        raise f.error("truth", "exactly one of prior, gp, rkhs", ", ".join(kinds) or "none")
    reference = candidate("truth.reference", tt["reference"]) if "reference" in tt else None
    if "prior" in tt:
        if reference is not None:
            raise f.error("truth.reference", "no reference when the truth is a candidate (it is its own reference)")
        truth_index = candidate("truth.prior", tt["prior"])
        truth = candidates[truth_index]
    elif "gp" in tt:
        truth_index = None
        truth = _gp(f, tt["gp"], "truth.gp", dom.points, K, name_default="truth")
    else:
        truth_index = None
        reference = 0 if reference is None else reference
        r = f.keys(tt["rkhs"], "truth.rkhs", {"name", "generator", "norm", "gen_noise_var", "alpha", "values",
                                              "kernel"}, {"generator"})
        gen = f.text(r, "generator", "truth.rkhs", choices=("posterior_mean", "fixed", "values"))
        K_r = _kernel(f, r["kernel"], "truth.rkhs.kernel", dom.points) if "kernel" in r else candidates[reference].K
        kw: dict = {}
        if gen == "fixed":
            if "alpha" not in r:
                raise f.error("truth.rkhs.alpha", "the members' coefficients α (k × n) for generator 'fixed'")
            kw["alpha"] = f.array(r["alpha"], "truth.rkhs.alpha", what="coefficients α")
        if gen == "values":
            if "values" not in r:
                raise f.error("truth.rkhs.values", "the members' values (k × n) for generator 'values'")
            kw["values"] = f.array(r["values"], "truth.rkhs.values", what="function values")
        scale = f.number(r, "norm", "truth.rkhs", default=None, low=0.0, strict_low=True, what="a positive norm")
        gvar = f.number(r, "gen_noise_var", "truth.rkhs", default=0.01, low=0.0, strict_low=True,
                        what="a positive variance")
        try:
            truth = RKHSFamily(f.text(r, "name", "truth.rkhs", default=f"RKHS family ({gen})", template=True), K_r,
                               gen, scale_to=scale, gen_noise_var=gvar, **kw)
        except BoundcheckError as exc:
            raise ScenarioFileError(f"{source}: key 'truth.rkhs': {exc}") from None

    # availability and actions
    av_t = f.keys(root.get("availability", {}), "availability", {"kind", "exclude_box", "restricted", "note"})
    kind = f.text(av_t, "kind", "availability", default="always", choices=("always", "alternating"))
    if kind == "always":
        if set(av_t) - {"kind"}:
            raise f.error("availability", "no other key for kind = 'always'", sorted(set(av_t) - {"kind"})[0])
        availability = AlwaysAvailable(dom.n)
    else:
        if ("exclude_box" in av_t) == ("restricted" in av_t):
            raise f.error("availability", "exactly one of exclude_box, restricted for kind = 'alternating'")
        if "exclude_box" in av_t:
            b = f.keys(av_t["exclude_box"], "availability.exclude_box", {"centre", "half_width"},
                       {"centre", "half_width"})
            centre = f.array(b["centre"], "availability.exclude_box.centre", shape=(dom.dim,), what="a point")
            hw = f.number(b, "half_width", "availability.exclude_box", low=0.0, strict_low=True,
                          what="a positive number")
            restricted = np.abs(dom.points - centre[None]).max(axis=1) > hw
        else:
            idx = f.ref(av_t["restricted"], "availability.restricted")
            arr = np.asarray(idx)
            if arr.dtype == bool and arr.shape == (dom.n,):
                restricted = arr
            elif arr.ndim == 1 and arr.size and np.issubdtype(arr.dtype, np.integer) and (arr >= 0).all() \
                    and (arr < dom.n).all():
                restricted = np.zeros(dom.n, dtype=bool)
                restricted[arr] = True
            else:
                raise f.error("availability.restricted", f"indices in 0..{dom.n - 1} or {dom.n} booleans",
                              av_t["restricted"])
        if not restricted.any():
            raise f.error("availability", "a restricted set X_t with at least one point")
        note = f.text(av_t, "note", "availability", default="restricted on even t", template=True)
        availability = AlternatingAvailability(restricted, note=note)
    action_set = None
    if "actions" in root:
        a = f.keys(root["actions"], "actions", {"top_k"}, {"top_k"})
        k = f.integer(a, "top_k", "actions")
        if k > dom.n:
            raise f.error("actions.top_k", f"at most |X| = {dom.n}", k)
        action_set = TopK(availability, k=k)

    # scalars
    in_theory = root.get("in_theory", True)
    if not isinstance(in_theory, bool):
        raise f.error("in_theory", "true or false", in_theory)
    reason = f.text(root, "out_of_theory_reason", "", default="", template=True)
    if not in_theory and not reason:
        raise f.error("out_of_theory_reason", "a reason (the scenario says in_theory = false)")
    notes = root.get("notes", [])
    if not isinstance(notes, list) or not all(isinstance(x, str) for x in notes):
        raise f.error("notes", "a list of strings", notes)
    gamma_rule = f.text(root, "gamma_rule", "", default="certified")
    if gamma_rule != "certified" and not re.fullmatch(r"rate:(se|matern|constant)", gamma_rule):
        raise f.error("gamma_rule", "'certified' or 'rate:se' / 'rate:matern' / 'rate:constant'", gamma_rule)
    rate_params = root.get("gamma_rate_params", {})
    if not isinstance(rate_params, dict) or not all(isinstance(v, int | float) and not isinstance(v, bool)
                                                    for v in rate_params.values()):
        raise f.error("gamma_rate_params", "a table of numbers (d, nu)", rate_params)
    B = f.number(root, "B", "", default=None, low=0.0, strict_low=True, what="a positive norm bound")
    runs = f.integer(root, "runs", "", default=None)
    try:
        return Scenario(
            name=name, description=f.text(root, "description", "", default="", template=True), domain=dom,
            availability=availability, candidates=candidates, truth=truth, truth_index=truth_index,
            noise=f.number(root, "noise", "", low=0.0, strict_low=True, what="a positive noise level R"),
            horizon=f.integer(root, "horizon", ""),
            delta=_delta(f, root),
            reference_index=reference, in_theory=in_theory, out_of_theory_reason=reason,
            notes=tuple(f.fill(x, f"notes.{i}") for i, x in enumerate(notes)),
            model_noise=f.text(root, "model_noise", "", default="R2", choices=("R2", "1+2/T")), B=B,
            gamma_rule=gamma_rule, gamma_rate_params=dict(rate_params), action_set=action_set,
            default_runs=runs, source=source,
        )
    except ScenarioFileError:
        raise
    except BoundcheckError as exc:
        raise ScenarioFileError(f"{source}: {exc}") from None


def scenario_summary(sc: Scenario) -> dict:
    """What ``boundcheck scenario show`` prints: every part of a scenario, as JSON-ready values."""
    truth = sc.truth
    if isinstance(truth, RKHSFamily):
        t = {"kind": "rkhs", "name": truth.name, "generator": truth.generator, "norm": truth.describe_norm(),
             "reference": sc.candidates[sc.monitor_index].name}
    elif sc.truth_index is not None:
        t = {"kind": "candidate", "name": truth.name}
    else:
        t = {"kind": "gp", "name": truth.name, "eps": truth.eps,
             "reference": None if sc.reference_index is None else sc.candidates[sc.reference_index].name}
    kernels = {}
    for p in sc.candidates:
        kernels.setdefault(p.kernel_key, []).append(p.name)
    return {
        "name": sc.name, "description": sc.description, "source": sc.source, "in_theory": sc.in_theory,
        "out_of_theory_reason": sc.out_of_theory_reason or None,
        "domain": {"name": sc.domain.name, "points": sc.domain.n, "dim": sc.domain.dim,
                   "low": sc.domain.points.min(axis=0).tolist(), "high": sc.domain.points.max(axis=0).tolist()},
        "priors": [{"name": p.name, "eps": p.eps, "mean_range": [float(p.mean.min()), float(p.mean.max())],
                    "kappa": p.kappa} for p in sc.candidates],
        "kernel_groups": len(kernels), "truth": t, "noise": sc.noise, "model_noise": sc.model_noise,
        "B": sc.B, "horizon": sc.horizon, "delta": sc.delta, "runs": sc.default_runs,
        "availability": sc.availability.describe(), "actions": sc.actions.describe(), "K": sc.actions.K,
        "gamma_rule": sc.gamma_rule, "notes": list(sc.notes),
    }
