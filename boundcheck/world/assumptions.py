"""Assumption predicates: each theorem names the predicates its assumptions need; the scenario *and* the
algorithm's configuration answer them.

A predicate maps ``(scenario, conditions)`` to ``(satisfied, how)``; ``how`` is the one-line explanation a
report shows. :class:`Conditions` carries what the algorithm is run with beyond the scenario (β scaling,
planted defects). Every predicate below can fail on some scenario or configuration: a verify whose scenario
breaks one is "not applicable" (exit 3) unless it is run explicitly outside the theorem.

:func:`register_predicate` adds one (a user's scenario type may need its own); a predicate may take the
scenario alone or the scenario and the conditions.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..model.domains import FiniteDomain
from ..model.priors import GPPrior, RKHSFamily
from .actions import AlwaysAvailable

__all__ = ["PREDICATES", "Conditions", "register_predicate", "evaluate_all", "evaluate"]

Predicate = Callable[..., tuple[bool, str]]
PREDICATES: dict[str, Predicate] = {}
_ARITY: dict[str, int] = {}


@dataclass(frozen=True)
class Conditions:
    """The algorithm's configuration beyond the scenario: ``beta_scale`` multiplies β_t; ``defects`` names the
    planted defects a negative control runs with."""

    beta_scale: float = 1.0
    defects: tuple[str, ...] = ()


def register_predicate(name: str) -> Callable[[Predicate], Predicate]:
    def deco(fn: Predicate) -> Predicate:
        PREDICATES[name] = fn
        _ARITY[name] = len(inspect.signature(fn).parameters)
        return fn

    return deco


def evaluate(name: str, scenario, conditions: Conditions | None = None) -> tuple[bool | None, str]:
    """One predicate's answer; (None, "not checked") for a name no predicate is registered under."""
    fn = PREDICATES.get(name)
    if fn is None:
        return None, "not checked by this scenario"
    cond = conditions or Conditions()
    return fn(scenario, cond) if _ARITY[name] >= 2 else fn(scenario)


def evaluate_all(scenario, conditions: Conditions | None = None) -> dict[str, tuple[bool, str]]:
    return {name: evaluate(name, scenario, conditions) for name in PREDICATES}


def _same_prior(a: GPPrior, b: GPPrior) -> bool:
    """Content equality of two GP priors (mean, kernel matrix, drift)."""
    return (a.n == b.n and a.eps == b.eps and np.array_equal(a.mean, b.mean) and np.array_equal(a.K, b.K))


# ----------------------------------------------------------------------------- the truth and the models
@register_predicate("truth_in_candidates")
def _truth_in_candidates(sc) -> tuple[bool, str]:
    if not isinstance(sc.truth, GPPrior):
        return False, "f is a fixed function, not a draw from a prior"
    matches = [i for i, p in enumerate(sc.candidates) if _same_prior(p, sc.truth)]
    if not matches:
        return False, f"the truth ({sc.truth.name}) is none of the {len(sc.candidates)} candidate priors"
    if sc.truth_index is not None and sc.truth_index not in matches:
        return False, f"truth_index = {sc.truth_index}, but the truth equals candidate {matches[0]}"
    return True, f"truth = candidate {matches[0]} ({sc.candidates[matches[0]].name})"


@register_predicate("model_is_truth")
def _model_is_truth(sc) -> tuple[bool, str]:
    """Single-model theorems (Srinivas): the one prior the algorithm uses, candidates[0], is the truth."""
    if getattr(sc, "rkhs_norm", None) is not None:  # a box scenario's fixed RKHS function
        return False, "f is a fixed function, not a draw from a prior"
    if not isinstance(sc.truth, GPPrior):
        return False, "f is a fixed function, not a draw from a prior"
    model = sc.candidates[0]
    if _same_prior(model, sc.truth):
        return True, f"the algorithm's prior is the truth ({model.name})"
    diff = []
    if not np.array_equal(model.mean, sc.truth.mean):
        diff.append("mean")
    if model.n != sc.truth.n or not np.array_equal(model.K, sc.truth.K):
        diff.append("kernel")
    if model.eps != sc.truth.eps:
        diff.append(f"drift ε ({model.eps:g} vs {sc.truth.eps:g})")
    verb = "differs" if len(diff) == 1 else "differ"
    return False, f"the algorithm's prior ({model.name}) is not the truth ({sc.truth.name}): {', '.join(diff)} {verb}"


@register_predicate("model_kernel_is_truth")
def _model_kernel_is_truth(sc) -> tuple[bool, str]:
    """Frequentist theorems: the algorithms' kernel is the kernel of the RKHS f lives in."""
    if getattr(sc, "box", None) is not None:  # a box scenario: the truth's kernel is its own unless it says so
        ok = sc.truth_kernel is None
        return ok, (f"the algorithms' kernel is the RKHS kernel (SE ℓ = {sc.kernel.lengthscale:g})" if ok
                    else f"the algorithms' kernel (ℓ = {sc.kernel.lengthscale:g}) differs from the truth's "
                         f"(ℓ = {sc.truth_kernel.lengthscale:g})")
    model = sc.candidates[0]
    same = model.n == sc.truth.n and np.allclose(model.K, sc.truth.K, rtol=1e-12, atol=1e-12)
    return bool(same), ("the algorithms' kernel is the RKHS kernel" if same
                        else f"the algorithms' kernel ({model.name}) differs from the truth's")


@register_predicate("static_truth")
def _static_truth(sc) -> tuple[bool, str]:
    eps_truth = float(getattr(sc.truth, "eps", 0.0))
    eps_model = float(sc.candidates[0].eps)
    ok = eps_truth == 0.0 and eps_model == 0.0
    return ok, ("ε = 0 (f is fixed over time)" if ok else
                f"f drifts over time (ε = {eps_truth:g}; the model's ε = {eps_model:g}), the theorem needs ε = 0")


@register_predicate("rkhs_norm_bounded")
def _rkhs_norm_bounded(sc) -> tuple[bool, str]:
    if getattr(sc, "box", None) is not None:  # a box's truth is drawn per run with the stated exact norm
        if sc.rkhs_norm is None:
            return False, "f is a GP sample: its RKHS norm is not bounded (Bayesian setting)"
        if sc.B is None:
            return False, "no RKHS norm bound B given to the algorithms"
        ok = sc.rkhs_norm <= sc.B * (1 + 1e-9)
        return ok, (f"‖f‖_k = {sc.rkhs_norm:g} exactly (every run); B = {sc.B:g}"
                    + ("" if ok else ": ‖f‖_k exceeds B"))
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


# ----------------------------------------------------------------------------- the model's settings
@register_predicate("lambda_theory")
def _lambda_theory(sc) -> tuple[bool, str]:
    ok = sc.model_noise == "1+2/T"
    return ok, f"λ = {sc.model_noise_var:.6g}" + (" = 1 + 2/T" if ok else " = R² (not 1 + 2/T)")


@register_predicate("lambda_is_noise")
def _lambda_is_noise(sc) -> tuple[bool, str]:
    ok = sc.model_noise == "R2"
    return ok, f"λ = {sc.model_noise_var:.6g}" + (" = R²" if ok else " (not R² = σ²)")


@register_predicate("gamma_certified")
def _gamma_certified(sc) -> tuple[bool, str]:
    ok = sc.gamma_rule == "certified"
    return ok, ("certified upper bound (boundcheck.model.mig)" if ok
                else f"the paper's rate formula {sc.gamma_rule} (not a certified bound)")


@register_predicate("kernel_bounded_by_one")
def _kernel_bounded_by_one(sc) -> tuple[bool, str]:
    kappa = max(p.kappa for p in sc.candidates + (sc.truth,))
    return kappa <= 1.0 + 1e-12, f"max_x k(x,x) = {kappa:.4g}"


@register_predicate("noise_matches")
def _noise_matches(sc) -> tuple[bool, str]:
    """Gaussian noise N(0, R²) with exactly the R the models use (the Bayesian theorems' likelihood)."""
    from ..model.noise import describe_noise_law, parse_noise_law

    base, scale = parse_noise_law(sc.noise_law)
    ok = base == "gaussian" and scale == 1.0
    return ok, (f"data noise N(0, {sc.noise:g}²), the R every model uses" if ok
                else f"data noise {describe_noise_law(sc.noise_law, sc.noise)}, but the models use N(0, {sc.noise:g}²)")


# ----------------------------------------------------------------------------- the domain
@register_predicate("finite_domain")
def _finite_domain(sc) -> tuple[bool, str]:
    if getattr(sc, "box", None) is not None:  # a box scenario's ``domain`` is only its display grid
        return False, "the domain is a compact box, not a finite set of points (a compact-domain theorem applies)"
    ok = isinstance(sc.domain, FiniteDomain) and sc.domain.n >= 1
    return ok, (f"|X| = {sc.domain.n}; {sc.actions.describe()}" if ok else "the domain is not a finite set of points")


@register_predicate("fixed_decision_set")
def _fixed_decision_set(sc) -> tuple[bool, str]:
    if getattr(sc, "box", None) is not None:
        return False, "the domain is a compact box, not a finite set of points (a compact-domain theorem applies)"
    fin = isinstance(sc.domain, FiniteDomain) and sc.domain.n >= 1
    fixed = isinstance(sc.availability, AlwaysAvailable) and sc.action_set is None
    ok = fin and fixed
    return ok, (f"D fixed, |D| = {sc.domain.n}" if ok
                else f"the decision set changes over time ({sc.actions.describe()})" if fin
                else "the domain is not a finite set of points")


# ----------------------------------------------------------------------------- the algorithm's configuration
@register_predicate("theoretical_schedules")
def _theoretical_schedules(sc, cond: Conditions) -> tuple[bool, str]:
    if cond.beta_scale != 1.0:
        return False, f"β_t scaled by {cond.beta_scale:g} (--beta-scale)"
    return True, "the theorem's schedules (β_t, ξ_t), unscaled"


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


@register_predicate("noise_bounded")
def _noise_bounded(sc) -> tuple[bool, str]:
    """|ε_t| ≤ σ almost surely with the σ (= R) the model uses: Rademacher ±R (scale ≤ 1), not Gaussian."""
    from ..model.noise import describe_noise_law, parse_noise_law

    base, scale = parse_noise_law(sc.noise_law)
    ok = base == "rademacher" and scale <= 1.0
    return ok, (f"data noise {describe_noise_law(sc.noise_law, sc.noise)}: |ε| ≤ {sc.noise * scale:g} ≤ σ = "
                f"{sc.noise:g}" if ok else f"data noise {describe_noise_law(sc.noise_law, sc.noise)}: not bounded by "
                f"σ = {sc.noise:g} almost surely")


@register_predicate("forgetting_window")
def _forgetting_window(sc) -> tuple[bool, str]:
    if sc.window is None:
        return False, "no restart period / window H given"
    rule = {"remark": " (Remark (2) of the paper)", "remark_unknown": " (Remark (3): P_T unknown)"}.get(
        sc.window_rule, "")
    return 1 <= sc.window <= sc.horizon, f"H = w = {sc.window}{rule}, T = {sc.horizon}; λ = {sc.model_noise_var:.6g}"
