"""Scenario files: everything a scenario is, as TOML (stdlib ``tomllib``). Generated constants come from registered
generators (the generator is code, its parameters and every other number are data). Every key, and the families
papers add (root key ``family = "<paper>.<name>"``, a :class:`FileFamily`), is documented in docs/scenarios.md.

This module holds the two registries (generators, file families), the published JSON Schema (:func:`schema`,
``boundcheck scenario schema``), loading with overrides and the summary ``scenario show`` prints. The shared reader
is :mod:`~boundcheck.world.scenario_reader`, the default family :mod:`~boundcheck.world.scenario_stationary`,
GraphML data files :mod:`~boundcheck.world.graphml`. Errors: :class:`ScenarioFileError`, one line naming the
file, the key and what was expected.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from theory import plugins

from ..errors import BoundcheckError
from ..model.priors import RKHSFamily
from ..utils.blas import scenario_blas
from .graphml import GraphMLGraph, read_graphml
from .scenario import Scenario
from .scenario_reader import (
    COMMON_PROPERTIES,
    FORMAT,
    MAX_DATA_BYTES,
    MAX_DOMAIN_DIM,
    MAX_DOMAIN_POINTS,
    Common,
    FileReader,
    ScenarioFileError,
    finish_common,
    object_schema,
    read_common,
)
from .scenario_stationary import _ROOT_KEYS, STATIONARY, parse_stationary, stationary_schema  # noqa: F401 (read by tests)

__all__ = ["ScenarioFileError", "load_scenario", "parse_scenario", "register_generator", "generator_names",
           "apply_overrides", "read_toml", "scenario_summary", "FORMAT", "FileFamily", "FileReader",
           "register_file_family", "file_families", "schema", "read_common", "finish_common", "object_schema",
           "GraphMLGraph", "read_graphml", "MAX_DATA_BYTES", "MAX_DOMAIN_POINTS", "MAX_DOMAIN_DIM",
           "COMMON_PROPERTIES", "Common", "STATIONARY"]


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


def schema(family: str | None = None) -> dict:
    """The published JSON Schema of scenario files: every family (``oneOf``, told apart by the root key
    ``family``), or the one named."""
    fams = {STATIONARY: stationary_schema(), **{k: dict(v.schema) for k, v in file_families().items()}}
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

def parse_scenario(data: dict, source: str = "<scenario>", base_dir: str | Path = ".") -> Scenario:
    """A :class:`Scenario` from the parsed TOML ``data`` (the keys: docs/scenarios.md). Its generators
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
    return parse_stationary(f, data, _generator, generator_names)


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
