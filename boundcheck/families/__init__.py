"""Theorem families: which algorithms to run, how to instantiate a theorem's bound on a scenario, and how
to evaluate every claim of the proof on a chunk of simulated runs. One module per paper."""

from __future__ import annotations

from importlib import import_module
from types import ModuleType

FAMILY_OF = {"pe_gp_ucb": "pe_gp_ucb"}


def family(theorem_id: str) -> ModuleType:
    return import_module(f"{__name__}.{FAMILY_OF[theorem_id]}")
