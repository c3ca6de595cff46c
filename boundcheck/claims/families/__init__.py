"""Theorem families: how each theorem is instantiated on a scenario and checked on simulated runs.

Each family module defines ``FAMILIES``, family objects built from the theory layer's Theorem objects they
serve; the registry loads the built-in modules on first use. :func:`register_family` adds one (keyed by its
theorem's id), :func:`family_for` returns the family of a theorem."""

from __future__ import annotations

from importlib import import_module

import theory

from ...errors import BoundcheckError
from .base import ChunkEvaluator, Family, TheoremInstance, gamma_curves, steps_table

__all__ = ["Family", "ChunkEvaluator", "TheoremInstance", "register_family", "family_for", "gamma_curves",
           "steps_table"]

_BUILTIN_MODULES = (f"{__name__}.pe_gp_ucb", f"{__name__}.kernelized", f"{__name__}.variation_budget",
                    f"{__name__}.time_varying", f"{__name__}.combinatorial")
_FAMILIES: dict[str, Family] = {}
_loaded = False


def register_family(family: Family, *, replace: bool = False) -> Family:
    tid = family.theorem.id
    if tid in _FAMILIES and not replace and _FAMILIES[tid] is not family:
        raise BoundcheckError(f"a family for theorem {tid!r} is already registered")
    _FAMILIES[tid] = family
    return family


def _load() -> None:
    global _loaded
    if not _loaded:
        _loaded = True
        for name in _BUILTIN_MODULES:
            for fam in import_module(name).FAMILIES:
                register_family(fam)


def family_for(th: theory.Theorem | str) -> Family:
    """The family that checks theorem ``th`` (an id or a Theorem)."""
    _load()
    th = theory.get(th)
    try:
        return _FAMILIES[th.id]
    except KeyError:
        raise BoundcheckError(f"theorem {th.id} has no verification family yet") from None
