"""Planted defects of PE-GP-UCB (Ziomek, Adachi, Osborne 2024, Algorithm 1) and the generic defect hooks its
theorem offers (:mod:`boundcheck.claims.defects`).

The paper's own defects are bugs planted in its own algorithm (:class:`~boundcheck.papers.pe_gp_ucb.pe_gp_ucb.PEGPUCB`):
they wrap its ``update`` and act on its bookkeeping (w_t, |S^p|), which this paper owns."""

from __future__ import annotations

from boundcheck.claims.defects import Defect, wrap_policy
from boundcheck.policies import Policy

#: Theorem 4.1: a β_t schedule, the posterior of every candidate prior with the ε chain's prediction step, f drawn
#: from a GP prior, an explicit bound; PE-GP-UCB picks (x, p) by its own masked argmax, not the action set's oracle
HOOKS = {"pe_gp_ucb": frozenset({"width", "likelihood", "update", "conditioning", "prediction", "gp_truth",
                                 "data_noise", "bound"})}


def sigma_after_update(pol: Policy) -> None:
    """PE-GP-UCB with the paper's misprint (C8): w_t = β_t σ_t(x_t), read after conditioning on y_t."""
    update = pol.update

    def patched(t, action, y):
        post = pol.models()["posterior"]
        post.condition_batch(action, y)  # observe first: σ_t(x_t) instead of σ_{t−1}(x_t)
        pol.w_t = pol.ctx.beta[t] * post.sd()[pol._rows, pol.p_t, action[:, 0]]
        post.condition_batch = lambda *a, **k: None  # already conditioned
        try:
            update(t, action, y)
        finally:
            del post.condition_batch

    pol.update = patched


def usage_double_counted(pol: Policy) -> None:
    """PE-GP-UCB counting each use of a prior twice in |S^p| (a bookkeeping bug: √(ξ|S^p|) grows too fast)."""
    update = pol.update

    def patched(t, action, y):
        pol.count[pol._rows, pol.p_t] += 1
        update(t, action, y)

    pol.update = patched


DEFECTS = (
    Defect("sigma_after_update", "the paper's misprint C8: the elimination test uses σ_t(x_t), after the update",
           ("pe_gp_ucb",), policy=wrap_policy(sigma_after_update), after="no_prediction_step"),
    Defect("usage_double_counted", "PE-GP-UCB counts each use of a prior twice in |S^p| (bookkeeping)",
           ("pe_gp_ucb",), policy=wrap_policy(usage_double_counted), after="no_prediction_step"),
)
