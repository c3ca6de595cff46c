"""The catalogue of named scenarios: :func:`register_scenario` adds a builder, :func:`get_scenario` builds one.

The built-in scenarios are data: one TOML file each in ``catalogue/scenarios/`` (package data; the format is in
:mod:`boundcheck.world.scenario_files`). Constants that must be generated (seeded sensor layouts, benchmark
projections, the paper's hill means) come from generators, code in one module per paper (``paper000``,
``paper004``) that registers them (``GENERATORS``). A module may also register Python builders (``SCENARIOS``:
name -> zero-argument callable returning a :class:`~boundcheck.world.scenario.Scenario`); the catalogue calls a
builder once per lookup, so builders should cache expensive constants themselves."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from importlib import import_module
from pathlib import Path

from ...errors import BoundcheckError
from ..scenario import Scenario

__all__ = ["register_scenario", "get_scenario", "scenario_names", "scenario_files", "load_builtins", "SCENARIO_DIR"]

_BUILTIN_MODULES = (f"{__name__}.paper000", f"{__name__}.paper004", f"{__name__}.paper003",
                    f"{__name__}.paper001", f"{__name__}.paper002")
SCENARIO_DIR = Path(__file__).parent / "scenarios"
_BUILDERS: dict[str, Callable[[], Scenario]] = {}
_FILES: dict[str, Path] = {}
_loaded = False


def register_scenario(name: str, builder: Callable[[], Scenario], *, replace: bool = False) -> None:
    """Make ``builder`` available as the scenario ``name``."""
    if name in _BUILDERS and not replace:
        raise BoundcheckError(f"a scenario named {name!r} is already registered")
    _BUILDERS[name] = builder


def load_builtins() -> None:
    """Register the built-in generators, Python builders and scenario files (once)."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    from ..scenario_files import load_scenario, register_generator

    for mod in _BUILTIN_MODULES:
        module = import_module(mod)
        for name, fn in getattr(module, "GENERATORS", {}).items():
            register_generator(name, fn)
        for name, builder in getattr(module, "SCENARIOS", {}).items():
            register_scenario(name, builder)
    for path in sorted(SCENARIO_DIR.glob("*.toml")):
        _FILES[path.stem] = path
        register_scenario(path.stem, partial(load_scenario, path))


_load = load_builtins  # the name catalogue modules of other papers may know


def scenario_files() -> dict[str, Path]:
    """Built-in scenario name -> its TOML file."""
    load_builtins()
    return dict(_FILES)


def scenario_names() -> list[str]:
    load_builtins()
    return list(_BUILDERS)


def get_scenario(name: str, horizon: int | None = None, delta: float | None = None) -> Scenario:
    """The scenario ``name`` (optionally at another horizon or δ)."""
    load_builtins()
    try:
        builder = _BUILDERS[name]
    except (KeyError, TypeError):
        raise BoundcheckError(f"unknown scenario {name!r}; known: {', '.join(_BUILDERS)} (or give a scenario "
                              "file, FILE.toml)") from None
    return builder().at(horizon, delta)
