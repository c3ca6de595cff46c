"""Symbolic layer: theorems as sympy, and their registry. Pure sympy; never imports ``boundcheck``.

Each theory module defines ``THEOREMS``: a tuple of :class:`Theorem` objects. The registry loads the built-in
modules on first use; :func:`register` adds a theorem defined elsewhere (a user's own)."""

from __future__ import annotations

from . import plugins
from .core import Assumption, Claim, Correction, S, Theorem
from .plugins import Registry

__all__ = ["get", "loaded", "all_theorems", "register", "Theorem", "Claim", "Assumption", "Correction", "S",
           "UnknownTheorem"]



class UnknownTheorem(KeyError):
    pass


def _install(module) -> None:
    for th in module.THEOREMS:
        register(th)


# no built-in modules here: every paper's theory module (``theory/<slug>.py``) is a source, found through the
# ``boundcheck.papers`` entry points (theory.plugins)
_THEOREMS: Registry[Theorem] = plugins.registry(
    "theory", _install, lambda tid: ValueError(f"a theorem with id {tid!r} is already registered"))


def register(theorem: Theorem, *, replace: bool = False) -> Theorem:
    """Add ``theorem`` to the registry under its id (``replace=True`` to overwrite an existing one)."""
    if not isinstance(theorem, Theorem):
        raise TypeError(f"register() needs a theory.Theorem, got {type(theorem).__name__}")
    return _THEOREMS.add(theorem.id, theorem, replace=replace)


def get(theorem_id: str | Theorem) -> Theorem:
    """The theorem with this id (a Theorem passes through)."""
    if isinstance(theorem_id, Theorem):
        return theorem_id
    try:
        found = _THEOREMS.find(theorem_id)  # only the modules up to the one that defines it
    except TypeError:  # unhashable
        found = None
    if found is None:
        raise UnknownTheorem(
            f"unknown theorem {theorem_id!r}; known: {', '.join(sorted(_THEOREMS.load()))}"
        ) from None
    return found


def loaded(theorem_id: str) -> Theorem | None:
    """The theorem with this id if it is registered already, else None; imports nothing. A theorem's siblings
    (``r_gp_ucb`` and ``r_gp_ucb_literal``) are defined in one module, so once :func:`get` found one, this finds
    the others without importing every other paper's module."""
    try:
        return _THEOREMS.items.get(theorem_id)
    except TypeError:  # unhashable
        return None


def all_theorems() -> list[Theorem]:
    return list(_THEOREMS.load().values())
