"""The generic defect hooks of R-GP-UCB and SW-GP-UCB (Zhou & Shroff 2021, Theorems 1 and 2) (same posterior
interface, β_t from the study's schedule; :mod:`boundcheck.claims.defects`). The paper's own planted defects, one
for every claim, are in ``tests/test_variation_budget.py``."""

from __future__ import annotations

_HOOKS = frozenset({"width", "likelihood", "update", "conditioning", "data_noise", "oracle", "bound"})
#: f is a fixed RKHS function per run whose norm the study does not scale: no ``gp_truth``, no ``rkhs_norm``;
#: the literal (pseudocode) theorems get no defect
HOOKS = {"r_gp_ucb": _HOOKS, "sw_gp_ucb": _HOOKS}
DEFECTS = ()
