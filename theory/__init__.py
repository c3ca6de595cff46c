"""Symbolic layer: theorem registry. Pure sympy; never imports ``boundcheck``."""

from __future__ import annotations

from importlib import import_module

from .core import Assumption, Claim, Correction, S, Theorem

__all__ = ["get", "all_theorems", "Theorem", "Claim", "Assumption", "Correction", "S", "UnknownTheorem"]

# id -> module holding THEOREM (or a dict THEOREMS for modules with several)
_REGISTRY: dict[str, str] = {
    "pe_gp_ucb": "theory.pe_gp_ucb",
    "gp_ucb": "theory.srinivas",
    "igp_ucb_confidence": "theory.chowdhury_gopalan",
    "igp_ucb": "theory.chowdhury_gopalan",
    "gp_ts": "theory.chowdhury_gopalan",
}


class UnknownTheorem(KeyError):
    pass


def get(theorem_id: str) -> Theorem:
    try:
        module = import_module(_REGISTRY[theorem_id])
    except KeyError:
        raise UnknownTheorem(
            f"unknown theorem {theorem_id!r}; known: {', '.join(sorted(_REGISTRY))}"
        ) from None
    theorems = getattr(module, "THEOREMS", None)
    return theorems[theorem_id] if theorems else module.THEOREM


def all_theorems() -> list[Theorem]:
    return [get(i) for i in _REGISTRY]
