"""Theorem families: which algorithms to run, how to instantiate a theorem's bound on a scenario, and how
to evaluate every claim of the proof on a chunk of simulated runs. One module per paper.

``family(theorem_id)`` returns an object with the family interface (``ALGORITHMS``, ``MAIN``, ``bound_values``,
``gamma_groups``, ``gamma_noise_var``, ``evaluate``; optionally ``gamma_used`` and ``schedules``): the module
itself, or, for a module serving several theorems, its ``FAMILIES[theorem_id]``."""

from __future__ import annotations

from importlib import import_module

FAMILY_OF = {
    "pe_gp_ucb": "pe_gp_ucb",
    "gp_ucb": "kernelized",
    "igp_ucb_confidence": "kernelized",
    "igp_ucb": "kernelized",
    "gp_ts": "kernelized",
}


def family(theorem_id: str):
    module = import_module(f"{__name__}.{FAMILY_OF[theorem_id]}")
    families = getattr(module, "FAMILIES", None)
    return families[theorem_id] if families else module
