"""The catalogue of named scenarios: :func:`register_scenario` adds a builder, :func:`get_scenario` builds one.

Built-in scenarios live in one module per paper (``paper000``, ``paper004``), loaded on first use. A builder
is a zero-argument callable returning a :class:`~boundcheck.world.scenario.Scenario`; the catalogue calls it
once per lookup, so builders should cache expensive constants themselves."""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module

from ...errors import BoundcheckError
from ..scenario import Scenario

__all__ = ["register_scenario", "get_scenario", "scenario_names"]

_BUILTIN_MODULES = (f"{__name__}.paper000", f"{__name__}.paper004", f"{__name__}.paper003", f"{__name__}.paper002")
_BUILDERS: dict[str, Callable[[], Scenario]] = {}
_loaded = False


def register_scenario(name: str, builder: Callable[[], Scenario], *, replace: bool = False) -> None:
    """Make ``builder`` available as the scenario ``name``."""
    if name in _BUILDERS and not replace:
        raise BoundcheckError(f"a scenario named {name!r} is already registered")
    _BUILDERS[name] = builder


def _load() -> None:
    global _loaded
    if not _loaded:
        _loaded = True
        for mod in _BUILTIN_MODULES:
            for name, builder in import_module(mod).SCENARIOS.items():
                register_scenario(name, builder)


def scenario_names() -> list[str]:
    _load()
    return list(_BUILDERS)


def get_scenario(name: str, horizon: int | None = None, delta: float | None = None) -> Scenario:
    """The scenario ``name`` (optionally at another horizon or δ)."""
    _load()
    try:
        builder = _BUILDERS[name]
    except (KeyError, TypeError):
        raise BoundcheckError(f"unknown scenario {name!r}; known: {', '.join(_BUILDERS)}") from None
    return builder().at(horizon, delta)
