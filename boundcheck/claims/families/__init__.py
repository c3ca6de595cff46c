"""Theorem families: how each theorem is instantiated on a scenario and checked on simulated runs.

The family classes several papers share live here (``kernelized``, ``base``); each paper's ``family`` part
(``boundcheck/papers/<slug>/family.py``) defines ``FAMILIES``, family objects built from the paper's Theorem
objects, imported on the first look-up of one of its theorems. :func:`register_family` adds one (keyed by its
theorem's id), :func:`family_for` returns the family of a theorem."""

from __future__ import annotations

import theory
from theory import plugins

from ...errors import BoundcheckError
from .base import ChunkEvaluator, Family, TheoremInstance, gamma_curves, steps_table

__all__ = ["Family", "ChunkEvaluator", "TheoremInstance", "register_family", "family_for", "gamma_curves",
           "steps_table"]

def _install(module) -> None:
    for fam in module.FAMILIES:
        register_family(fam)


# the papers' ``family`` parts (``FAMILIES``), imported on the first look-up of one of their theorems
_FAMILIES = plugins.registry(
    "family", _install,
    lambda tid: BoundcheckError(f"a family for theorem {tid!r} is already registered"))


def register_family(family: Family, *, replace: bool = False) -> Family:
    return _FAMILIES.add(family.theorem.id, family, replace=replace)


def family_for(th: theory.Theorem | str) -> Family:
    """The family that checks theorem ``th`` (an id or a Theorem): its own, else, for a theorem that declares
    ``family="<id>"`` (a user's bound, docs/extending.md), the family of theorem ``<id>`` applied to it."""
    th = theory.get(th)
    family = _FAMILIES.find(th.id)  # only the family modules up to the one that serves it
    if family is not None and (not th.family or family.theorem is th):
        return family
    if th.family and th.family != th.id:
        from .checked_as import CheckedAs

        try:
            reference = theory.get(th.family)
        except theory.UnknownTheorem:
            raise BoundcheckError(f"theorem {th.id!r} is checked like {th.family!r}, which is not a known theorem "
                                  f"(`boundcheck list`)") from None
        return CheckedAs(family_for(reference), th)
    if family is None:
        raise BoundcheckError(f"theorem {th.id} has no verification family yet; a theorem of your own names the "
                              f"theorem it is checked like: Theorem(..., family=\"gp_ucb\")")
    return family
