"""Planted defects of GP-TS (Chowdhury & Gopalan 2017, Algorithm 2) and the generic defect hooks of the paper's
three theorems (:mod:`boundcheck.claims.defects`).

GP-TS's defects act on the pathwise sampler it exposes (the ``paths`` role of
:meth:`~boundcheck.policies.Policy.models`); ``ts_mean_dropped`` reads the width v_t GP-TS draws with."""

from __future__ import annotations

import numpy as np

from boundcheck.claims.defects import Defect, after_start, wrap_policy
from boundcheck.policies import Policy

_CONFIDENCE = frozenset({"width", "likelihood", "update", "conditioning", "data_noise", "rkhs_norm", "oracle"})
#: Theorems 2–4: f is an RKHS function of norm ≤ B (no GP truth); Theorem 2 bounds no regret, and GP-TS's bound
#: is vacuous at every feasible horizon (its regret claims are outside the verdict): only IGP-UCB's has ``bound``
HOOKS = {"igp_ucb_confidence": _CONFIDENCE, "igp_ucb": _CONFIDENCE | {"bound"}, "gp_ts": _CONFIDENCE,
         # Theorem 3 on a box (the continuum engine): its policy's posterior, prior and optimiser, an RKHS truth
         "igp_ucb_compact": frozenset({"width", "likelihood", "update", "data_noise", "rkhs_norm", "bound",
                                       "box_conditioning", "box_prior", "box_optimiser"})}


def ts_draw_scaled(pol: Policy, factor: float) -> None:
    """GP-TS drawing μ + factor·v_t h (its sampler scaled)."""
    def then(p):
        paths = p.models()["paths"]
        draw = paths.draw
        paths.draw = lambda rngs: factor * draw(rngs)

    after_start(pol, then)


def ts_mean_dropped(pol: Policy) -> None:
    """GP-TS drawing f_t = v_t h (the posterior mean left out of the sample)."""
    select = pol.select
    state: dict = {}

    def patched_select(t, available):
        state["v"] = float(state["width"][t])  # the v_t GP-TS draws with at this step
        return select(t, available)

    def then(p):
        state["width"] = p.ctx.schedule(p.name)
        models = p.models()
        paths, post = models["paths"], models["posterior"]
        draw = paths.draw
        paths.draw = lambda rngs: draw(rngs) - post.mean()[:, 0] / state["v"]

    pol.select = patched_select
    after_start(pol, then)


def ts_prior_draws(pol: Policy) -> None:
    """GP-TS drawing h ~ N(0, K) (the prior covariance) instead of N(0, Σ_{t−1})."""
    def then(p):
        paths = p.models()["paths"]
        A = paths.A
        paths.draw = lambda rngs: np.stack([g.standard_normal(A.shape[1]) for g in rngs]) @ A.T

    after_start(pol, then)


DEFECTS = (
    Defect("ts_scale_small", "GP-TS draws μ + 0.05·v_t h instead of μ + v_t h (a sampler scaled by 0.05)", ("gp_ts",),
           policy=wrap_policy(ts_draw_scaled, factor=0.05), after="rkhs_norm_tripled"),
    Defect("ts_scale_large", "GP-TS draws μ + 3·v_t h (a sampler scaled by 3)", ("gp_ts",),
           policy=wrap_policy(ts_draw_scaled, factor=3.0), after="rkhs_norm_tripled"),
    Defect("ts_mean_dropped", "GP-TS draws v_t h: the posterior mean is left out of the sample", ("gp_ts",),
           policy=wrap_policy(ts_mean_dropped), after="rkhs_norm_tripled"),
    Defect("ts_prior_draws", "GP-TS draws h ~ N(0, K), the prior covariance, instead of N(0, Σ_{t−1})", ("gp_ts",),
           policy=wrap_policy(ts_prior_draws), after="rkhs_norm_tripled"),
)


# ----------------------------------------------------------------------- GP-TS on a box (gp_ts_compact)
def ts_box_grid_coarse(pol: Policy, factor: float) -> None:
    """GP-TS on a box enumerating a grid with ``factor`` × the theorem's points per side."""
    pol.grid_factor = float(factor)


def _grid_schedule_scaled(inst, factor: float = 0.5):
    """The theorem instance with D_t's points per side scaled (the policy, the engine's [x*]_t and eq. (7) all read
    it): a theory module that lost a factor 2 in n_t = ⌈BLrdt²/2⌉."""
    from dataclasses import replace

    sched = dict(inst.schedules)
    sched["grid_n_t"] = np.maximum(np.floor(np.asarray(sched["grid_n_t"], dtype=float) * factor), 1.0)
    return replace(inst, schedules=sched)


HOOKS["gp_ts_compact"] = frozenset({"width", "likelihood", "update", "data_noise", "rkhs_norm", "box_conditioning",
                                    "box_prior"})
DEFECTS = DEFECTS + (
    Defect("ts_box_grid_coarse", "GP-TS on a box draws on a grid with half the theorem's points per side",
           ("gp_ts_compact",), policy=wrap_policy(ts_box_grid_coarse, factor=0.5)),
    Defect("grid_schedule_halved", "the theorem's D_t with ⌈BLrdt²/2⌉/2 points per side (a factor 2 lost in n_t)",
           ("gp_ts_compact",), instance=_grid_schedule_scaled),
)
