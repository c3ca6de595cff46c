"""Planted defects: the library a verification is shown to catch (``boundcheck power``, ``verify --defect``).

A defect is a *wrapper*, never a switch inside an algorithm: it wraps the checked algorithm's
:class:`~boundcheck.policies.PolicySpec` (patching one instance after it is built: its context, its posterior or
its sampler), transforms the scenario (the truth or the data's noise), or transforms the theorem instance (the
bound's evaluation: a defect of the verification itself). Running a theorem's claims against every defect
measures which claims catch what, with what probability: the power of the verification.

Each defect lists the theorems it applies to; the defects that change the world (a truth outside the model, the
wrong noise) make the study fall outside the theorem, which is what a negative control is.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from ..errors import BoundcheckError
from ..model.noise import parse_noise_law
from ..model.priors import GPPrior, RKHSFamily
from ..policies import Policy, PolicySpec
from ..world.scenario import Scenario
from .families.base import TheoremInstance

__all__ = ["Defect", "DEFECTS", "get_defect", "defects_for", "wrap_policy"]

ALL = ("pe_gp_ucb", "gp_ucb", "igp_ucb_confidence", "igp_ucb", "gp_ts")
BAYESIAN = ("pe_gp_ucb", "gp_ucb")
FREQUENTIST = ("igp_ucb_confidence", "igp_ucb", "gp_ts")
#: the variation-budget theorems (issue 16; their own planted defects are in tests/test_variation_budget.py):
#: the generic wrappers apply to R-/SW-GP-UCB too (same posterior interface, β from ``ctx.schedule``)
VARIATION = ("r_gp_ucb", "sw_gp_ucb")
#: paper 001 (issue 15): the regret theorems of ET-GP-UCB, R-GP-UCB and TV-GP-UCB on the ε chain, and Lemma 3
#: (the trigger under no change, which holds for any history-measurable choice rule: no β or argmin defect)
TIME_VARYING = ("et_gp_ucb", "et_r_gp_ucb", "tv_gp_ucb")
TRIGGER = ("et_trigger",)
#: paper 002's finite theorems (issue 17): super arms, Bayesian regret; the generic wrappers apply through the
#: policies' posterior and context (their own defects, an independent-per-arm TS, a non-optimal oracle and an
#: f-dependent availability, are planted in tests/test_combinatorial.py)
COMB = ("comb_gp_ucb", "comb_gp_bucb", "comb_gp_ts")
#: paper 002's infinite theorems (continuous contexts): the wrappers that act through the context, the update or
#: the world apply (the feature model has no grid posterior to drop observations from); the wrong priors act on
#: the weight prior N(0, I) and the feature model's constant prior mean, ``contexts_snapped`` on its features
COMB_INF = ("comb_gp_ucb_infinite", "comb_gp_bucb_infinite", "comb_gp_ts_infinite")
#: paper 002's algorithms with a width √β_t (combinatorial GP-TS draws a joint sample without one: β nothing to scale)
COMB_BETA = ("comb_gp_ucb", "comb_gp_bucb", "comb_gp_ucb_infinite", "comb_gp_bucb_infinite")


@dataclass(frozen=True)
class Defect:
    """One planted defect: ``policy`` wraps the checked algorithm's spec, ``scenario`` transforms the scenario,
    ``instance`` transforms the theorem instance (the bound's evaluation)."""

    name: str
    description: str
    applies_to: tuple[str, ...]
    policy: Callable[[PolicySpec], PolicySpec] | None = None
    scenario: Callable[[Scenario], Scenario] | None = None
    instance: Callable[[TheoremInstance], TheoremInstance] | None = None

    def applies(self, theorem_id: str) -> bool:
        return theorem_id in self.applies_to


# ------------------------------------------------------------------------------------ policy wrappers
def _patch_start(pol: Policy, change: Callable) -> None:
    """Run the policy's own start on a changed context (what the algorithm is told)."""
    start = pol.start

    def patched(ctx):
        start(change(pol, ctx))

    pol.start = patched


def _after_start(pol: Policy, then: Callable[[Policy], None]) -> None:
    start = pol.start

    def patched(ctx):
        start(ctx)
        then(pol)

    pol.start = patched


def _beta_scaled(pol: Policy, factor: float) -> None:
    def change(p, ctx):
        sched = dict(ctx.schedules)
        if p.name in sched:
            sched[p.name] = np.asarray(sched[p.name]) * factor
        return replace(ctx, beta=np.asarray(ctx.beta) * factor, schedules=sched)

    _patch_start(pol, change)


def _noise_var_scaled(pol: Policy, factor: float) -> None:
    _patch_start(pol, lambda p, ctx: replace(ctx, noise_var=ctx.noise_var * factor))


def _wrong_prior(pol: Policy, factor: float = 1.0, shift: float = 0.0) -> None:
    """The algorithm's model is told the prior GP(μ + ``shift``, ``factor``·K) (a wrong prior: over- or
    underconfident, or biased), while f is drawn from GP(μ, K) and the checks read the algorithm's own posterior."""
    def change(p, ctx):
        return replace(ctx, candidates=tuple(replace(c, mean=c.mean + shift, K=factor * c.K)
                                             for c in ctx.candidates))

    def weights(p):  # paper 002's contexts: the model's prior GP(shift, factor·φᵀφ): w ~ N(0, factor·I)
        model = getattr(p, "arm_model", None)
        if model is not None and not model.finite:
            model.post.w_cov *= factor
            model.post.prior_mean += shift

    _patch_start(pol, change)
    _after_start(pol, weights)


def _no_prediction_step(pol: Policy) -> None:
    def then(p):
        p.posterior.propagate = lambda: None  # the ε Kalman predict never runs

    _after_start(pol, then)


def _skip_conditioning(pol: Policy, t: int, update: Callable, action, y) -> None:
    """Call ``update`` while the posterior (and a pathwise sampler) ignore the observation."""
    post = getattr(pol, "posterior", None)
    method = "condition_batch"
    if post is None:  # ET-GP-UCB and R-GP-UCB (paper 001) keep their block posterior as ``model``
        post, method = pol.model, "condition"
    setattr(post, method, lambda *a, **k: None)
    paths = getattr(pol, "paths", None)
    if paths is not None:
        paths.observe = lambda *a, **k: None
    try:
        update(t, action, y)
    finally:
        delattr(post, method)
        if paths is not None:
            del paths.observe


def _dropped_observation(pol: Policy, every: int) -> None:
    update = pol.update

    def patched(t, action, y):
        if t % every == 0:
            _skip_conditioning(pol, t, update, action, y)
        else:
            update(t, action, y)

    pol.update = patched


def _stale_action(pol: Policy) -> None:
    """Off-by-one in t: y_t is conditioned at the previous step's point x_{t−1}."""
    update = pol.update
    prev: dict = {}

    def patched(t, action, y):
        a = prev.get("a", action)
        prev["a"] = np.array(action, copy=True)
        update(t, a, y)

    pol.update = patched


def _sigma_after_update(pol: Policy) -> None:
    """PE-GP-UCB with the paper's misprint (C8): w_t = β_t σ_t(x_t), read after conditioning on y_t."""
    update = pol.update

    def patched(t, action, y):
        post = pol.posterior
        post.condition_batch(action, y)  # observe first: σ_t(x_t) instead of σ_{t−1}(x_t)
        pol.w_t = pol.ctx.beta[t] * post.sd()[pol._rows, pol.p_t, action[:, 0]]
        post.condition_batch = lambda *a, **k: None  # already conditioned
        try:
            update(t, action, y)
        finally:
            del post.condition_batch

    pol.update = patched


def _usage_double_counted(pol: Policy) -> None:
    """PE-GP-UCB counting each use of a prior twice in |S^p| (a bookkeeping bug: √(ξ|S^p|) grows too fast)."""
    update = pol.update

    def patched(t, action, y):
        pol.count[pol._rows, pol.p_t] += 1
        update(t, action, y)

    pol.update = patched


def _ts_draw_scaled(pol: Policy, factor: float) -> None:
    def then(p):
        draw = p.paths.draw
        p.paths.draw = lambda rngs: factor * draw(rngs)

    _after_start(pol, then)


def _ts_mean_dropped(pol: Policy) -> None:
    """GP-TS drawing f_t = v_t h (the posterior mean left out of the sample)."""
    select = pol.select
    state: dict = {}

    def patched_select(t, available):
        state["v"] = float(pol.v[t])
        return select(t, available)

    def then(p):
        draw = p.paths.draw
        p.paths.draw = lambda rngs: draw(rngs) - p.posterior.mean()[:, 0] / state["v"]

    pol.select = patched_select
    _after_start(pol, then)


def _ts_prior_draws(pol: Policy) -> None:
    """GP-TS drawing h ~ N(0, K) (the prior covariance) instead of N(0, Σ_{t−1})."""
    def then(p):
        A = p.paths.A
        p.paths.draw = lambda rngs: np.stack([g.standard_normal(A.shape[1]) for g in rngs]) @ A.T

    _after_start(pol, then)


def _contexts_snapped(pol: Policy, bins: int) -> None:
    """Paper 002, infinite case: the algorithm featurises each round's contexts snapped to a coarse grid of
    ``bins`` cells per dimension (a cached feature table), for its indices and its updates alike, while its
    posterior over the weights is a correct function of the points it is given."""
    from boundcheck.papers.combinatorial.family import grid_round

    def then(p):
        model = getattr(p, "arm_model", None)
        if model is None or model.finite:
            raise BoundcheckError("defect contexts_snapped needs an algorithm on continuous contexts")
        begin = model.begin_round
        model.begin_round = lambda available: begin(grid_round(np.asarray(available), bins, model.features.C1))

    _after_start(pol, then)


class _ArgminActions:
    """An action set whose oracle maximises −score: the algorithm picks its worst action (a sign error)."""

    def __init__(self, inner) -> None:
        self._inner = inner

    def __getattr__(self, name: str):
        return getattr(self._inner, name)

    def oracle(self, score: np.ndarray, available: np.ndarray) -> np.ndarray:
        return self._inner.oracle(-np.asarray(score), available)


def _argmin(pol: Policy) -> None:
    _patch_start(pol, lambda p, ctx: replace(ctx, actions=_ArgminActions(ctx.actions)))


# paper 001 (issue 15): ET-GP-UCB's trigger, R-GP-UCB's period, TV-GP-UCB's told ε
def _trigger_post_update(pol: Policy) -> None:
    """ET-GP-UCB computing ψ_t and κ_t from the posterior *after* conditioning on (x_t, y_t)."""

    def patched(t, action, y):
        x, yy, r = action[:, 0], y[:, 0], pol._rows
        pol.model.condition(x, yy)
        mu, sd = pol.model.mean()[r, 0, x], pol.model.sd()[r, 0, x]
        tp = t - pol.t_r
        kappa, psi = np.sqrt(pol.rho[tp]) * (sd + pol.sigma_n), np.abs(yy - mu)
        reset = psi > kappa
        pol.model.reset(reset)
        pol.model.condition(x, yy, runs=reset)
        pol.t_r[reset] = t
        pol.n_resets += reset
        pol.record.update({"psi": psi, "kappa": kappa, "rho": pol.rho[tp], "reset": reset,
                           "innov_block": (yy - mu) / np.sqrt(sd**2 + pol.sigma_n**2)})

    pol.update = patched


def _reset_drops_point(pol: Policy) -> None:
    """ET-GP-UCB whose reset forgets the triggering point too (D ← ∅ instead of {(x_t, y_t)})."""
    update = pol.update

    def patched(t, action, y):
        update(t, action, y)
        pol.model.reset(pol.record["reset"])

    pol.update = patched


def _trigger_scaled(pol: Policy, factor: float) -> None:
    _after_start(pol, lambda p: setattr(p, "rho", factor * p.rho))


def _t_prime_from_data(pol: Policy) -> None:
    """ET-GP-UCB with t' = |D_t| + 1 instead of the time since the last reset (off by one after every reset)."""
    update = pol.update

    def patched(t, action, y):
        n = pol.record["n_data"]
        pol.t_r = t - (n + 1)
        update(t, action, y)
        pol.record["t_prime"] = n + 1

    pol.update = patched


def _period_shifted(pol: Policy, by: int) -> None:
    """R-GP-UCB resetting every N + ``by`` steps (its block posterior sized for the longer blocks)."""
    from boundcheck.papers.et_gp_ucb.et_gp_ucb import block_posterior

    def then(p):
        p.period += by
        p.model = block_posterior(p.ctx.candidates[0], p.ctx.noise_var, p.ctx.runs, p.ctx.horizon, max_data=p.period)

    _after_start(pol, then)


def _eps_told_scaled(pol: Policy, factor: float, at_zero: float) -> None:
    """TV-GP-UCB told ``factor`` × the ε the study gives it (``at_zero`` when that is 0)."""

    def change(p, ctx):
        sched = dict(ctx.schedules)
        eps = float(np.asarray(sched.get("tv_eps", [getattr(ctx.truth, "eps", 0.0)]))[0])
        told = min(1.0, factor * eps) if eps > 0 else at_zero
        sched["tv_eps"] = np.full(ctx.horizon + 1, told)
        return replace(ctx, schedules=sched)

    _patch_start(pol, change)


_HOOKS: dict[str, Callable] = {
    "beta_scaled": _beta_scaled, "noise_var_scaled": _noise_var_scaled, "no_prediction_step": _no_prediction_step,
    "dropped_observation": _dropped_observation, "stale_action": _stale_action,
    "sigma_after_update": _sigma_after_update, "ts_draw_scaled": _ts_draw_scaled,
    "ts_mean_dropped": _ts_mean_dropped, "ts_prior_draws": _ts_prior_draws, "argmin": _argmin,
    "usage_double_counted": _usage_double_counted, "trigger_post_update": _trigger_post_update,
    "reset_drops_point": _reset_drops_point, "trigger_scaled": _trigger_scaled, "t_prime_from_data": _t_prime_from_data,
    "period_shifted": _period_shifted, "eps_told_scaled": _eps_told_scaled,
    "wrong_prior": _wrong_prior, "contexts_snapped": _contexts_snapped,
}


def _build(base: PolicySpec, hook: str, params: tuple) -> Policy:
    """Build the base policy, then wrap the instance (module-level: picklable into worker processes)."""
    pol = base.make()
    _HOOKS[hook](pol, **dict(params))
    return pol


def wrap_policy(hook: str, **params) -> Callable[[PolicySpec], PolicySpec]:
    """A transform of the checked algorithm's spec that applies the wrapper ``hook`` to each instance."""

    def transform(spec: PolicySpec) -> PolicySpec:
        factory = functools.partial(_build, spec, hook, tuple(sorted(params.items())))
        return PolicySpec(spec.name, factory, {}, spec.label)

    return transform


# ------------------------------------------------------------------------------------ scenario transforms
def _truth_outside_model(sc: Scenario) -> Scenario:
    """f drawn from GP(μ^{p*}, 9k): a prior outside the candidates (k(x,x) = 9: f three times as large)."""
    if not isinstance(sc.truth, GPPrior):
        raise BoundcheckError(f"defect truth_outside_model needs a GP truth; {sc.name} has an RKHS truth")
    t = sc.truth
    truth = GPPrior(f"{t.name} with kernel ×9", t.mean, 9.0 * t.K, t.eps)
    return replace(sc, truth=truth, truth_index=None, reference_index=sc.monitor_index)


def _data_noise_doubled(sc: Scenario) -> Scenario:
    """The data's noise law scaled by 2 (``"gaussian"`` → ``"gaussian:2"``): the models still use R."""
    base, scale = parse_noise_law(sc.noise_law)
    return replace(sc, noise_law=f"{base}:{2.0 * scale!r}")


def _rkhs_norm_tripled(sc: Scenario) -> Scenario:
    fam = sc.truth
    if not isinstance(fam, RKHSFamily) or fam.generator == "values":
        raise BoundcheckError(f"defect rkhs_norm_tripled needs an RKHS truth with exact norms; {sc.name} has none")
    if fam.scale_to is not None:
        fam3 = replace(fam, scale_to=3.0 * fam.scale_to)
    elif fam.generator == "fixed":
        fam3 = replace(fam, alpha=3.0 * fam.alpha)
    else:
        raise BoundcheckError("defect rkhs_norm_tripled needs members of a known norm")
    return replace(sc, truth=fam3)


# ------------------------------------------------------------------------------------ instance transforms
def _bound_understated(inst: TheoremInstance, factor: float = 0.01) -> TheoremInstance:
    extra = {k: (v * factor if k.startswith("bound") else v) for k, v in inst.extra.items()}
    terms = {k: v * factor for k, v in inst.bound_terms.items()}  # the bound is the sum of its terms
    return replace(inst, bound_T=inst.bound_T * factor, anytime=inst.anytime * factor, extra=extra,
                   bound_terms=terms)


def _monitor_changed(inst: TheoremInstance, **change) -> TheoremInstance:
    mon = inst.round_monitor
    if mon is None or not getattr(mon, "infinite", False):
        raise BoundcheckError("this defect needs the round monitor of a contextual (infinite) theorem")
    return replace(inst, round_monitor=replace(mon, **{k: f(getattr(mon, k)) for k, f in change.items()}))


def _discretisation_coarse(inst: TheoremInstance) -> TheoremInstance:
    """Paper 002, infinite case: the discretisation sizes τ_t of (6a)–(6d) lost (τ = 1: one grid point per
    dimension), a defect of the theory's constants that Lemmas A.6 and 3.2 must see."""
    return _monitor_changed(inst, tau_log=np.zeros_like, tau6d_log=np.zeros_like)


def _lipschitz_understated(inst: TheoremInstance) -> TheoremInstance:
    """Paper 002, infinite case: the kernel's Lipschitz constant L taken 1000× too small (Lemma A.7's bounds)."""
    return _monitor_changed(inst, L=lambda L: L * 1e-3)


def _lemma8_exponent_flipped(inst: TheoremInstance) -> TheoremInstance:
    """Lemma 8's bounds (paper 001) with σ_n^{+2} for σ_n^{−2}: √((3σ_n²+σ_n⁴)N²g) and (σ_n²+σ_n⁴)N²g, i.e. the
    instance's per-N arrays times their (constant) ratio to the correct ones: a defect of the theory module."""
    r2 = float(inst.values["R"]) ** 2
    sched = dict(inst.schedules)
    sched["lemma8_sigma_N"] = sched["lemma8_sigma_N"] * np.sqrt((3 * r2 + r2**2) / (3 / r2 + 1 / r2**2))
    sched["lemma8_mu_coef_N"] = sched["lemma8_mu_coef_N"] * (r2 + r2**2) / (1 / r2 + 1 / r2**2)
    return replace(inst, schedules=sched)


DEFECTS: dict[str, Defect] = {d.name: d for d in (
    Defect("beta_small", "the algorithm uses 0.1·β_t (its width, or GP-TS's v_t) while the checks use the theorem's",
           ALL + VARIATION + TIME_VARYING + COMB_BETA, policy=wrap_policy("beta_scaled", factor=0.1)),
    Defect("noise_var_small", "the model's likelihood variance λ is 4× too small (an overconfident posterior)",
           ALL + VARIATION + TIME_VARYING + TRIGGER + COMB + COMB_INF,
           policy=wrap_policy("noise_var_scaled", factor=0.25)),
    Defect("stale_action", "off-by-one in t: each observation y_t is conditioned at the previous point x_{t−1}",
           ALL + VARIATION + TIME_VARYING + TRIGGER + COMB + COMB_INF,
           policy=wrap_policy("stale_action")),
    Defect("dropped_observation", "every 5th observation never reaches the posterior",
           ALL + VARIATION + TIME_VARYING + TRIGGER + COMB,
           policy=wrap_policy("dropped_observation", every=5)),
    Defect("no_prediction_step", "the posterior skips the ε prediction step (Kalman predict) between steps",
           ("pe_gp_ucb", "tv_gp_ucb"), policy=wrap_policy("no_prediction_step")),
    Defect("sigma_after_update", "the paper's misprint C8: the elimination test uses σ_t(x_t), after the update",
           ("pe_gp_ucb",), policy=wrap_policy("sigma_after_update")),
    Defect("usage_double_counted", "PE-GP-UCB counts each use of a prior twice in |S^p| (bookkeeping)",
           ("pe_gp_ucb",), policy=wrap_policy("usage_double_counted")),
    Defect("truth_outside_model", "f is drawn from GP(μ^{p*}, 9k): a prior not among the algorithm's models",
           BAYESIAN + TIME_VARYING + TRIGGER + COMB + COMB_INF, scenario=_truth_outside_model),
    Defect("noise_doubled", "the data's noise is twice as large (N(0, (2R)²)) while every model assumes R",
           ALL + VARIATION + TIME_VARYING + TRIGGER + COMB + COMB_INF,
           scenario=_data_noise_doubled),
    Defect("rkhs_norm_tripled", "‖f‖_k = 3B while the algorithms are given B", FREQUENTIST,
           scenario=_rkhs_norm_tripled),
    Defect("ts_scale_small", "GP-TS draws μ + 0.05·v_t h instead of μ + v_t h (a sampler scaled by 0.05)", ("gp_ts",),
           policy=wrap_policy("ts_draw_scaled", factor=0.05)),
    Defect("ts_scale_large", "GP-TS draws μ + 3·v_t h (a sampler scaled by 3)", ("gp_ts",),
           policy=wrap_policy("ts_draw_scaled", factor=3.0)),
    Defect("ts_mean_dropped", "GP-TS draws v_t h: the posterior mean is left out of the sample", ("gp_ts",),
           policy=wrap_policy("ts_mean_dropped")),
    Defect("ts_prior_draws", "GP-TS draws h ~ N(0, K), the prior covariance, instead of N(0, Σ_{t−1})", ("gp_ts",),
           policy=wrap_policy("ts_prior_draws")),
    Defect("argmin", "a sign error: the algorithm maximises −score, picking its worst action every step",
           ("gp_ucb", "igp_ucb_confidence", "igp_ucb", "gp_ts") + VARIATION + TIME_VARYING + COMB + COMB_INF,
           policy=wrap_policy("argmin")),
    Defect("bound_understated", "the explicit bound evaluated 100× too small (a constant lost in the theory module): "
           "a defect of the verification itself, which the bound checks must see",
           ("pe_gp_ucb", "gp_ucb", "igp_ucb") + VARIATION + TIME_VARYING + COMB + COMB_INF,
           instance=_bound_understated),
    # paper 001 (issue 15)
    Defect("trigger_post_update", "ET-GP-UCB's ψ_t and κ_t from the posterior after conditioning on (x_t, y_t)",
           ("et_gp_ucb",) + TRIGGER, policy=wrap_policy("trigger_post_update")),
    Defect("reset_drops_point", "ET-GP-UCB's reset forgets the triggering point too (D ← ∅, not {(x_t, y_t)})",
           ("et_gp_ucb",), policy=wrap_policy("reset_drops_point")),
    Defect("lazy_trigger", "ET-GP-UCB's threshold ρ_t' 25× too large (a trigger that hardly fires)",
           ("et_gp_ucb",) + TRIGGER, policy=wrap_policy("trigger_scaled", factor=25.0)),
    Defect("t_prime_off_by_one", "ET-GP-UCB with t' = |D_t| + 1, not the time since the reset (one too many after "
           "every reset)", ("et_gp_ucb",), policy=wrap_policy("t_prime_from_data")),
    Defect("period_off_by_one", "R-GP-UCB resetting every N + 1 steps", ("et_r_gp_ucb",),
           policy=wrap_policy("period_shifted", by=1)),
    Defect("eps_told_wrong", "TV-GP-UCB told 10× the true ε (0.3 when ε = 0)", ("tv_gp_ucb",),
           policy=wrap_policy("eps_told_scaled", factor=10.0, at_zero=0.3)),
    Defect("lemma8_exponent_flipped", "Lemma 8's bounds with σ_n^{+2} for σ_n^{−2} (a sign lost in the theory module: "
           "a defect of the verification itself)", ("et_gp_ucb", "et_r_gp_ucb"), instance=_lemma8_exponent_flipped),
    # paper 002's checks read the algorithm's own arm model (U_t, σ_{t−1}, Σ_{t−1}(a_t)): wrong priors there, each
    # chosen so that one of the theorems' lemmas sees it at small N (power: ``boundcheck power``)
    Defect("prior_narrow_low", "the algorithm's model is GP(μ − 1, K/100) while f ~ GP(μ, K): overconfident and "
           "biased low (f exceeds the index U_t: R1's left term, coverage)", COMB + COMB_INF,
           policy=wrap_policy("wrong_prior", factor=0.01, shift=-1.0)),
    Defect("prior_narrow_high", "the algorithm's model is GP(μ + 3, K/100) while f ~ GP(μ, K): overconfident and "
           "biased high (the lower confidence bound of GP-TS's Lemma A.5 fails)", COMB + COMB_INF,
           policy=wrap_policy("wrong_prior", factor=0.01, shift=3.0)),
    Defect("prior_narrow", "the algorithm's model is GP(μ, K/100) while f ~ GP(μ, K): posterior widths a tenth "
           "of what they should be", COMB + COMB_INF, policy=wrap_policy("wrong_prior", factor=0.01)),
    Defect("prior_wide", "the algorithm's model is GP(μ, 4K) while f ~ GP(μ, K) with k ≤ 1: posterior widths up to "
           "twice the prior's (σ ≤ s of the R1 chain, the radius chain)", COMB + COMB_INF,
           policy=wrap_policy("wrong_prior", factor=4.0)),
    Defect("contexts_snapped", "paper 002, infinite case: the algorithm featurises every context snapped to the "
           "cell centres of a 2 × 2 grid (a coarse feature table) when it scores and when it conditions: the index "
           "it uses at a_t is not its posterior's at a_t (Lemma 3.2, Lemma A.7)", COMB_INF,
           policy=wrap_policy("contexts_snapped", bins=2)),
    Defect("discretisation_coarse", "paper 002, infinite case: the discretisation sizes τ_t lost (τ = 1), a "
           "constant of the theory that Lemmas A.6 and 3.2 must see", COMB_INF, instance=_discretisation_coarse),
    Defect("lipschitz_understated", "paper 002, infinite case: the kernel's Lipschitz constant L taken 1000× too "
           "small in Lemma A.7's bounds", COMB_INF, instance=_lipschitz_understated),
)}


def get_defect(name: str) -> Defect:
    try:
        return DEFECTS[name]
    except KeyError:
        raise BoundcheckError(f"unknown defect {name!r}; known: {', '.join(DEFECTS)}") from None


def defects_for(theorem_id: str) -> list[Defect]:
    """Every defect of the library that applies to the theorem."""
    return [d for d in DEFECTS.values() if d.applies(theorem_id)]
