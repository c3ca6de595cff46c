"""Assumption predicates: each theorem names the predicates its assumptions need, the scenario answers them.

A predicate maps a :class:`~boundcheck.world.scenario.Scenario` to ``(satisfied, how)``; ``how`` is the
one-line explanation a report shows. :func:`register_predicate` adds one (a user's scenario type may need
its own)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..model.priors import RKHSFamily

__all__ = ["PREDICATES", "register_predicate", "evaluate_all"]

Predicate = Callable[[object], tuple[bool, str]]
PREDICATES: dict[str, Predicate] = {}


def register_predicate(name: str) -> Callable[[Predicate], Predicate]:
    def deco(fn: Predicate) -> Predicate:
        PREDICATES[name] = fn
        return fn

    return deco


def evaluate_all(scenario) -> dict[str, tuple[bool, str]]:
    return {name: fn(scenario) for name, fn in PREDICATES.items()}


@register_predicate("rkhs_norm_bounded")
def _rkhs_norm_bounded(sc) -> tuple[bool, str]:
    if not isinstance(sc.truth, RKHSFamily):
        return False, "f is a GP sample: its RKHS norm is not bounded (Bayesian setting)"
    fam, B = sc.truth, sc.B
    if B is None:
        return False, "no RKHS norm bound B given to the algorithms"
    mx = fam.max_norm
    if not np.isfinite(mx):
        return False, f"{fam.describe_norm()}; B = {B:g}"
    ok = mx <= B * (1 + 1e-9)
    return ok, f"{fam.describe_norm()}; B = {B:g}" + ("" if ok else f": ‖f‖_k = {mx:.4g} exceeds B")


@register_predicate("lambda_theory")
def _lambda_theory(sc) -> tuple[bool, str]:
    ok = sc.model_noise == "1+2/T"
    return ok, f"λ = {sc.model_noise_var:.6g}" + (" = 1 + 2/T" if ok else " = R² (not 1 + 2/T)")


@register_predicate("lambda_is_noise")
def _lambda_is_noise(sc) -> tuple[bool, str]:
    return sc.model_noise == "R2", f"λ = {sc.model_noise_var:.6g}"


@register_predicate("gamma_certified")
def _gamma_certified(sc) -> tuple[bool, str]:
    ok = sc.gamma_rule == "certified"
    return ok, ("certified upper bound (boundcheck.model.mig)" if ok
                else f"the paper's rate formula {sc.gamma_rule} (not a certified bound)")


@register_predicate("truth_in_candidates")
def _truth_in_candidates(sc) -> tuple[bool, str]:
    ok = sc.truth_index is not None
    return ok, f"truth = candidate {sc.truth_index}" if ok else "truth is in no candidate prior"


@register_predicate("finite_domain")
def _finite_domain(sc) -> tuple[bool, str]:
    return True, f"|X| = {sc.domain.n}; {sc.actions.describe()}"


@register_predicate("kernel_bounded_by_one")
def _kernel_bounded_by_one(sc) -> tuple[bool, str]:
    kappa = max(p.kappa for p in sc.candidates + (sc.truth,))
    return kappa <= 1.0 + 1e-12, f"max_x k(x,x) = {kappa:.4g}"


@register_predicate("noise_matches")
def _noise_matches(sc) -> tuple[bool, str]:
    return True, f"data noise N(0, {sc.noise:g}²), the R every model uses"
