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


# ----------------------------------------------------- drifting functions with a variation budget (paper 003)
def _budget_truth(sc):
    truth = sc.truth
    return truth if hasattr(truth, "budget_bound") and hasattr(truth, "max_norm") else None


@register_predicate("norms_bounded_over_time")
def _norms_bounded_over_time(sc) -> tuple[bool, str]:
    truth = _budget_truth(sc)
    if truth is None:
        return False, "f_t is not a sequence of RKHS functions with exact norms"
    if sc.B is None:
        return False, "no RKHS norm bound B given to the algorithms"
    ok = truth.max_norm <= sc.B * (1 + 1e-9)
    return ok, f"max_t ‖f_t‖_k = {truth.max_norm:g} (exact); B = {sc.B:g}" + ("" if ok else ": exceeds B")


@register_predicate("variation_budget_within")
def _variation_budget_within(sc) -> tuple[bool, str]:
    truth = _budget_truth(sc)
    if truth is None:
        return False, "f_t is not a sequence with an exact variation budget"
    given = sc.declared_budget()
    real = float(truth.budget_bound)
    ok = real <= given * (1 + 1e-9) + 1e-12
    return ok, (f"realised Σ‖f_(t+1) − f_t‖_k ≤ {real:g} (exact a priori); P_T given = {given:g}"
                + ("" if ok else ": the realised budget exceeds it"))


@register_predicate("noise_sub_gaussian")
def _noise_sub_gaussian(sc) -> tuple[bool, str]:
    from ..model.noise import describe_noise_law, parse_noise_law

    _, scale = parse_noise_law(sc.noise_law)
    return scale <= 1.0, f"data noise {describe_noise_law(sc.noise_law, sc.noise)}; R = {sc.noise:g}"


@register_predicate("forgetting_window")
def _forgetting_window(sc) -> tuple[bool, str]:
    if sc.window is None:
        return False, "no restart period / window H given"
    rule = {"remark": " (Remark (2) of the paper)", "remark_unknown": " (Remark (3): P_T unknown)"}.get(
        sc.window_rule, "")
    return 1 <= sc.window <= sc.horizon, f"H = w = {sc.window}{rule}, T = {sc.horizon}; λ = {sc.model_noise_var:.6g}"
