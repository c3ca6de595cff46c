"""Symbolic layer: theorems as sympy, and their registry. Pure sympy; never imports ``boundcheck``.

Each theory module defines ``THEOREMS``: a tuple of :class:`Theorem` objects. The registry loads the built-in
modules on first use; :func:`register` adds a theorem defined elsewhere (a user's own)."""

from __future__ import annotations

from importlib import import_module

from .core import Assumption, Claim, Correction, S, Theorem

__all__ = ["get", "all_theorems", "register", "Theorem", "Claim", "Assumption", "Correction", "S",
           "UnknownTheorem"]

# modules, not ids: the ids live in the Theorem objects themselves
_BUILTIN_MODULES = ("theory.pe_gp_ucb", "theory.srinivas", "theory.chowdhury_gopalan", "theory.zhou_shroff",
                    "theory.et_gp_ucb", "theory.combinatorial")
_REGISTRY: dict[str, Theorem] = {}
_loaded = False


class UnknownTheorem(KeyError):
    pass


def register(theorem: Theorem, *, replace: bool = False) -> Theorem:
    """Add ``theorem`` to the registry under its id (``replace=True`` to overwrite an existing one)."""
    if not isinstance(theorem, Theorem):
        raise TypeError(f"register() needs a theory.Theorem, got {type(theorem).__name__}")
    if theorem.id in _REGISTRY and not replace and _REGISTRY[theorem.id] is not theorem:
        raise ValueError(f"a theorem with id {theorem.id!r} is already registered")
    _REGISTRY[theorem.id] = theorem
    return theorem


def _load() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    for name in _BUILTIN_MODULES:
        for th in import_module(name).THEOREMS:
            register(th)


def get(theorem_id: str | Theorem) -> Theorem:
    """The theorem with this id (a Theorem passes through)."""
    if isinstance(theorem_id, Theorem):
        return theorem_id
    _load()
    try:
        return _REGISTRY[theorem_id]
    except (KeyError, TypeError):
        raise UnknownTheorem(
            f"unknown theorem {theorem_id!r}; known: {', '.join(sorted(_REGISTRY))}"
        ) from None


def all_theorems() -> list[Theorem]:
    _load()
    return list(_REGISTRY.values())
