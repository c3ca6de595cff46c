"""Planted defects of ``tv_gp_ucb_compact`` (TV-GP-UCB on a box) beside the generic box hooks it offers
(:mod:`boundcheck.claims.defects`): the policy told ε = 0 (its posterior ignores time) and a chain rougher than
the prior (its derivatives beyond the proof's per-step Lipschitz levels)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from boundcheck.claims.defects import Defect, patch_start, wrap_policy
from boundcheck.errors import BoundcheckError
from boundcheck.world.box_scenario import rescaled_truth

__all__ = ["TV_BOX_HOOKS", "TV_BOX_DEFECTS", "eps_told_box", "chain_rougher"]

#: the generic box hooks: a width, the likelihood, the update, the data's noise, the bound, the posterior it
#: conditions, its prior's lengthscale and its optimiser (no ``box_truth``: an amplified truth is static only)
TV_BOX_HOOKS = {"tv_gp_ucb_compact": frozenset({"width", "likelihood", "update", "data_noise", "bound",
                                                "box_conditioning", "box_prior", "box_optimiser"})}


def eps_told_box(pol, eps: float) -> None:
    """TV-GP-UCB on the box told ``eps`` in place of the study's ε (the ``tv_eps`` schedule)."""
    def change(p, ctx):
        sched = dict(ctx.schedules)
        sched["tv_eps"] = np.full(ctx.horizon + 1, float(eps))
        return replace(ctx, schedules=sched)

    patch_start(pol, change)


def chain_rougher(sc):
    """The chain drawn with a quarter of the prior's lengthscale (the algorithm keeps its prior)."""
    if getattr(sc, "box", None) is None:
        raise BoundcheckError(f"defect chain_rougher needs a box scenario; {sc.name} is finite")
    return rescaled_truth(sc, lengthscale_factor=0.25)


TV_BOX_DEFECTS = (
    Defect("eps_told_zero_box", "TV-GP-UCB on the box told ε = 0: its posterior treats stale data as fresh",
           ("tv_gp_ucb_compact",), policy=wrap_policy(eps_told_box, eps=0.0)),
    # the library's 0.1·β_t breaks the optimiser's use of the argmax but not, in 20 short runs, Lemma 5.8's regret
    # step (nor 0.01·β_t: the chain's confidence events keep r_t ≤ √β_t(σ̃(x_t) + σ̃([x*]_t))); a sign error does
    Defect("argmin_box", "a sign error: TV-GP-UCB on the box minimises its UCB (its worst point every step)",
           ("tv_gp_ucb_compact",), policy=wrap_policy("box_argmin"), after="argmin"),
    Defect("chain_rougher", "the ε chain drawn with 0.25 × the prior's lengthscale: sup|∂f_t| beyond the levels L_t",
           ("tv_gp_ucb_compact",), scenario=chain_rougher),
)
