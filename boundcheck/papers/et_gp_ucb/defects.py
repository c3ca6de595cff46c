"""Planted defects of paper 001 (Brunzema et al. 2022): ET-GP-UCB's trigger, R-GP-UCB's period, TV-GP-UCB's told
ε and Lemma 8's constants, and the generic defect hooks of the paper's theorems (:mod:`boundcheck.claims.defects`).

The algorithms' defects are bugs planted in the paper's own algorithms (:mod:`boundcheck.papers.et_gp_ucb.et_gp_ucb`,
:mod:`~boundcheck.papers.et_gp_ucb.r_gp_ucb`, :mod:`~boundcheck.papers.et_gp_ucb.tv_gp_ucb`): they reach the block
posterior through its declared role (``block``) and otherwise act on the trigger's bookkeeping (t_r, ρ, the
period), which this paper owns."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from boundcheck.claims.defects import Defect, after_start, patch_start, wrap_policy
from boundcheck.claims.families.base import TheoremInstance
from boundcheck.papers.et_gp_ucb.et_gp_ucb import block_posterior
from boundcheck.policies import Policy

_REGRET = frozenset({"width", "likelihood", "update", "conditioning", "gp_truth", "data_noise", "oracle", "bound"})
#: the regret theorems on the ε chain (TV-GP-UCB's posterior also predicts between steps); Lemma 3 (the trigger
#: under no change) holds for any history-measurable choice rule and bounds no regret: no width, oracle or bound
HOOKS = {"et_gp_ucb": _REGRET, "et_r_gp_ucb": _REGRET, "tv_gp_ucb": _REGRET | {"prediction"},
         "et_trigger": frozenset({"likelihood", "update", "conditioning", "gp_truth", "data_noise"})}


def trigger_post_update(pol: Policy) -> None:
    """ET-GP-UCB computing ψ_t and κ_t from the posterior *after* conditioning on (x_t, y_t)."""

    def patched(t, action, y):
        x, yy, r = action[:, 0], y[:, 0], pol._rows
        block = pol.models()["block"]
        block.condition(x, yy)
        mu, sd = block.mean()[r, 0, x], block.sd()[r, 0, x]
        tp = t - pol.t_r
        kappa, psi = np.sqrt(pol.rho[tp]) * (sd + pol.sigma_n), np.abs(yy - mu)
        reset = psi > kappa
        block.reset(reset)
        block.condition(x, yy, runs=reset)
        pol.t_r[reset] = t
        pol.n_resets += reset
        pol.record.update({"psi": psi, "kappa": kappa, "rho": pol.rho[tp], "reset": reset,
                           "innov_block": (yy - mu) / np.sqrt(sd**2 + pol.sigma_n**2)})

    pol.update = patched


def reset_drops_point(pol: Policy) -> None:
    """ET-GP-UCB whose reset forgets the triggering point too (D ← ∅ instead of {(x_t, y_t)})."""
    update = pol.update

    def patched(t, action, y):
        update(t, action, y)
        pol.models()["block"].reset(pol.record["reset"])

    pol.update = patched


def trigger_scaled(pol: Policy, factor: float) -> None:
    after_start(pol, lambda p: setattr(p, "rho", factor * p.rho))


def t_prime_from_data(pol: Policy) -> None:
    """ET-GP-UCB with t' = |D_t| + 1 instead of the time since the last reset (off by one after every reset)."""
    update = pol.update

    def patched(t, action, y):
        n = pol.record["n_data"]
        pol.t_r = t - (n + 1)
        update(t, action, y)
        pol.record["t_prime"] = n + 1

    pol.update = patched


def period_shifted(pol: Policy, by: int) -> None:
    """R-GP-UCB resetting every N + ``by`` steps (its block posterior sized for the longer blocks)."""
    def then(p):
        p.period += by
        p.model = block_posterior(p.ctx.candidates[0], p.ctx.noise_var, p.ctx.runs, p.ctx.horizon, max_data=p.period)

    after_start(pol, then)


def eps_told_scaled(pol: Policy, factor: float, at_zero: float) -> None:
    """TV-GP-UCB told ``factor`` × the ε the study gives it (``at_zero`` when that is 0)."""

    def change(p, ctx):
        sched = dict(ctx.schedules)
        eps = float(np.asarray(sched.get("tv_eps", [getattr(ctx.truth, "eps", 0.0)]))[0])
        told = min(1.0, factor * eps) if eps > 0 else at_zero
        sched["tv_eps"] = np.full(ctx.horizon + 1, told)
        return replace(ctx, schedules=sched)

    patch_start(pol, change)


def lemma8_exponent_flipped(inst: TheoremInstance) -> TheoremInstance:
    """Lemma 8's bounds (paper 001) with σ_n^{+2} for σ_n^{−2}: √((3σ_n²+σ_n⁴)N²g) and (σ_n²+σ_n⁴)N²g, i.e. the
    instance's per-N arrays times their (constant) ratio to the correct ones: a defect of the theory module."""
    r2 = float(inst.values["R"]) ** 2
    sched = dict(inst.schedules)
    sched["lemma8_sigma_N"] = sched["lemma8_sigma_N"] * np.sqrt((3 * r2 + r2**2) / (3 / r2 + 1 / r2**2))
    sched["lemma8_mu_coef_N"] = sched["lemma8_mu_coef_N"] * (r2 + r2**2) / (1 / r2 + 1 / r2**2)
    return replace(inst, schedules=sched)


DEFECTS = (
    Defect("trigger_post_update", "ET-GP-UCB's ψ_t and κ_t from the posterior after conditioning on (x_t, y_t)",
           ("et_gp_ucb", "et_trigger"), policy=wrap_policy(trigger_post_update)),
    Defect("reset_drops_point", "ET-GP-UCB's reset forgets the triggering point too (D ← ∅, not {(x_t, y_t)})",
           ("et_gp_ucb",), policy=wrap_policy(reset_drops_point)),
    Defect("lazy_trigger", "ET-GP-UCB's threshold ρ_t' 25× too large (a trigger that hardly fires)",
           ("et_gp_ucb", "et_trigger"), policy=wrap_policy(trigger_scaled, factor=25.0)),
    Defect("t_prime_off_by_one", "ET-GP-UCB with t' = |D_t| + 1, not the time since the reset (one too many after "
           "every reset)", ("et_gp_ucb",), policy=wrap_policy(t_prime_from_data)),
    Defect("period_off_by_one", "R-GP-UCB resetting every N + 1 steps", ("et_r_gp_ucb",),
           policy=wrap_policy(period_shifted, by=1)),
    Defect("eps_told_wrong", "TV-GP-UCB told 10× the true ε (0.3 when ε = 0)", ("tv_gp_ucb",),
           policy=wrap_policy(eps_told_scaled, factor=10.0, at_zero=0.3)),
    Defect("lemma8_exponent_flipped", "Lemma 8's bounds with σ_n^{+2} for σ_n^{−2} (a sign lost in the theory module: "
           "a defect of the verification itself)", ("et_gp_ucb", "et_r_gp_ucb"), instance=lemma8_exponent_flipped),
)


# ------------------------------------------------------------------------- Theorem 1 on the continuum
def _compact_trigger_halved(pol: Policy) -> None:
    from boundcheck.papers.et_gp_ucb.compact import trigger_halved

    trigger_halved(pol)


#: et_gp_ucb_compact: a box policy with a width, its own posterior, an optimiser, a GP path truth, a bound
HOOKS["et_gp_ucb_compact"] = frozenset({"width", "likelihood", "update", "data_noise", "bound", "box_conditioning",
                                        "box_prior", "box_optimiser", "box_truth"})
DEFECTS = DEFECTS + (
    Defect("trigger_halved", "ET-GP-UCB on the box with its threshold κ_t halved (it resets on noise alone)",
           ("et_gp_ucb_compact",), policy=wrap_policy(_compact_trigger_halved)),
)

# ---- tv_gp_ucb_compact (TV-GP-UCB on a box): its generic hooks and its own defects, in their own module
from boundcheck.papers.et_gp_ucb.tv_box_defects import TV_BOX_DEFECTS, TV_BOX_HOOKS  # noqa: E402

HOOKS = {**HOOKS, **TV_BOX_HOOKS}
DEFECTS = (*DEFECTS, *TV_BOX_DEFECTS)
