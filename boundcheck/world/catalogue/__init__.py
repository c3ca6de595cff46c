"""The catalogue of named scenarios: :func:`register_scenario` adds a builder, :func:`get_scenario` builds one.

Scenarios belong to papers: each paper's ``scenarios`` part (``boundcheck/papers/<slug>/catalogue.py`` for the
built-in ones, see :mod:`theory.plugins`) may define

* ``SCENARIO_DIR``: a folder of scenario files (``*.toml``, the format of :mod:`boundcheck.world.scenario_files`),
  each registered under its file name;
* ``GENERATORS``: the code that generates constants of those files (seeded sensor layouts, benchmark projections,
  hill means), registered with the scenario-file reader;
* ``SCENARIOS``: name -> zero-argument callable returning a :class:`~boundcheck.world.scenario.Scenario` (Python
  builders; the catalogue calls a builder once per look-up, so builders cache expensive constants themselves).

A look-up by name imports only the paper that declares the name."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path

from theory import plugins

from ...errors import BoundcheckError
from ...utils.blas import scenario_blas
from ..scenario import Scenario
from ..scenario_files import load_scenario

__all__ = ["register_scenario", "get_scenario", "scenario_names", "scenario_files", "load_builtins"]

_FILES: dict[str, Path] = {}


def _install(module) -> None:
    for name, builder in getattr(module, "SCENARIOS", {}).items():
        register_scenario(name, builder)
    folder = getattr(module, "SCENARIO_DIR", None)
    if folder is not None:
        for path in sorted(Path(folder).glob("*.toml")):
            _FILES[path.stem] = path
            register_scenario(path.stem, partial(load_scenario, path))


_BUILDERS = plugins.registry(
    "scenarios", _install, lambda name: BoundcheckError(f"a scenario named {name!r} is already registered"))


def register_scenario(name: str, builder: Callable[[], Scenario], *, replace: bool = False) -> None:
    """Make ``builder`` available as the scenario ``name``."""
    _BUILDERS.add(name, builder, replace=replace)


def load_builtins() -> None:
    """Register every installed paper's scenarios (what a listing needs; a look-up by name needs less)."""
    _BUILDERS.load()


def scenario_files() -> dict[str, Path]:
    """Scenario name -> its TOML file, for every installed paper."""
    load_builtins()
    return dict(_FILES)


def scenario_names() -> list[str]:
    return list(_BUILDERS.load())


def get_scenario(name: str, horizon: int | None = None, delta: float | None = None) -> Scenario:
    """The scenario ``name`` (optionally at another horizon or δ)."""
    try:
        builder = _BUILDERS.find(name)
    except TypeError:  # unhashable
        builder = None
    if builder is None:
        raise BoundcheckError(f"unknown scenario {name!r}; known: {', '.join(scenario_names())} (or give a "
                              "scenario file, FILE.toml)")
    with scenario_blas():  # Python builders too: the same scenario whatever the environment's BLAS threads
        return builder().at(horizon, delta)
