"""Planted defects of paper 002 (combinatorial volatile semi-bandits) and the generic defect hooks of its six
theorems (:mod:`boundcheck.claims.defects`).

Paper 002's checks read the algorithm's own arm model (U_t, σ_{t−1}, Σ_{t−1}(a_t)): the wrong priors act there
(the generic ``wrong_prior`` wrapper on the context's candidate priors, and, on continuous contexts, the weight
prior of the feature model the policy exposes as ``arm_model``), each chosen so that one of the theorems' lemmas
sees it at small N (power: ``boundcheck power``). The infinite case adds a coarse feature table and two lost
constants of the theory (the discretisation sizes τ_t, the Lipschitz constant L), which act on the round observer
the family registers (:class:`~boundcheck.papers.combinatorial.family.RoundMonitor`)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from boundcheck.claims.defects import Defect, after_start, wrap_policy
from boundcheck.claims.families.base import TheoremInstance
from boundcheck.errors import BoundcheckError
from boundcheck.policies import Policy

_FINITE = ("comb_gp_ucb", "comb_gp_bucb", "comb_gp_ts")
_INFINITE = ("comb_gp_ucb_infinite", "comb_gp_bucb_infinite", "comb_gp_ts_infinite")
_ALL = frozenset({"width", "likelihood", "update", "conditioning", "gp_truth", "data_noise", "oracle", "bound"})
#: GP-TS draws a joint sample without a width (β: nothing to scale); the feature model of continuous contexts has
#: no grid posterior to drop an observation from (the wrappers that act through the context, the update or the
#: world apply)
HOOKS = {
    "comb_gp_ucb": _ALL, "comb_gp_bucb": _ALL, "comb_gp_ts": _ALL - {"width"},
    "comb_gp_ucb_infinite": _ALL - {"conditioning"}, "comb_gp_bucb_infinite": _ALL - {"conditioning"},
    "comb_gp_ts_infinite": _ALL - {"conditioning", "width"},
}


def weight_prior_changed(pol: Policy, factor: float = 1.0, shift: float = 0.0) -> None:
    """On continuous contexts, the feature model's prior GP(shift, factor·φᵀφ): w ~ N(0, factor·I) and the prior
    mean shifted (what the generic ``wrong_prior`` does to the candidate priors of a finite domain)."""
    def then(p):
        model = p.models().get("arm_model")
        if model is not None and not model.finite:
            model.post.w_cov *= factor
            model.post.prior_mean += shift

    after_start(pol, then)


def contexts_snapped(pol: Policy, bins: int) -> None:
    """The algorithm featurises each round's contexts snapped to a coarse grid of ``bins`` cells per dimension (a
    cached feature table), for its indices and its updates alike, while its posterior over the weights is a
    correct function of the points it is given."""
    from boundcheck.papers.combinatorial.family import grid_round

    def then(p):
        model = p.models().get("arm_model")
        if model is None or model.finite:
            raise BoundcheckError("defect contexts_snapped needs an algorithm on continuous contexts")
        begin = model.begin_round
        model.begin_round = lambda available: begin(grid_round(np.asarray(available), bins, model.features.C1))

    after_start(pol, then)


def _monitor_changed(inst: TheoremInstance, **change) -> TheoremInstance:
    """The instance with its contextual round observer's constants changed (``name=f``: f(old value))."""
    from boundcheck.papers.combinatorial.family import RoundMonitor

    found = [i for i, o in enumerate(inst.observers) if isinstance(o, RoundMonitor) and o.infinite]
    if not found:
        raise BoundcheckError("this defect needs the round monitor of a contextual (infinite) theorem")
    observers = list(inst.observers)
    mon = observers[found[0]]
    observers[found[0]] = replace(mon, **{k: f(getattr(mon, k)) for k, f in change.items()})
    return replace(inst, observers=tuple(observers))


def discretisation_coarse(inst: TheoremInstance) -> TheoremInstance:
    """The discretisation sizes τ_t of (6a)–(6d) lost (τ = 1: one grid point per dimension), a defect of the
    theory's constants that Lemmas A.6 and 3.2 must see."""
    return _monitor_changed(inst, tau_log=np.zeros_like, tau6d_log=np.zeros_like)


def lipschitz_understated(inst: TheoremInstance) -> TheoremInstance:
    """The kernel's Lipschitz constant L taken 1000× too small (Lemma A.7's bounds)."""
    return _monitor_changed(inst, L=lambda L: L * 1e-3)


def _wrong_prior(factor: float = 1.0, shift: float = 0.0):
    kw = {"factor": factor} if shift == 0.0 else {"factor": factor, "shift": shift}
    return wrap_policy(("wrong_prior", weight_prior_changed), **kw)


DEFECTS = (
    Defect("prior_narrow_low", "the algorithm's model is GP(μ − 1, K/100) while f ~ GP(μ, K): overconfident and "
           "biased low (f exceeds the index U_t: R1's left term, coverage)", _FINITE + _INFINITE,
           policy=_wrong_prior(factor=0.01, shift=-1.0)),
    Defect("prior_narrow_high", "the algorithm's model is GP(μ + 3, K/100) while f ~ GP(μ, K): overconfident and "
           "biased high (the lower confidence bound of GP-TS's Lemma A.5 fails)", _FINITE + _INFINITE,
           policy=_wrong_prior(factor=0.01, shift=3.0)),
    Defect("prior_narrow", "the algorithm's model is GP(μ, K/100) while f ~ GP(μ, K): posterior widths a tenth "
           "of what they should be", _FINITE + _INFINITE, policy=_wrong_prior(factor=0.01)),
    Defect("prior_wide", "the algorithm's model is GP(μ, 4K) while f ~ GP(μ, K) with k ≤ 1: posterior widths up to "
           "twice the prior's (σ ≤ s of the R1 chain, the radius chain)", _FINITE + _INFINITE,
           policy=_wrong_prior(factor=4.0)),
    Defect("contexts_snapped", "paper 002, infinite case: the algorithm featurises every context snapped to the "
           "cell centres of a 2 × 2 grid (a coarse feature table) when it scores and when it conditions: the index "
           "it uses at a_t is not its posterior's at a_t (Lemma 3.2, Lemma A.7)", _INFINITE,
           policy=wrap_policy(contexts_snapped, bins=2)),
    Defect("discretisation_coarse", "paper 002, infinite case: the discretisation sizes τ_t lost (τ = 1), a "
           "constant of the theory that Lemmas A.6 and 3.2 must see", _INFINITE, instance=discretisation_coarse),
    Defect("lipschitz_understated", "paper 002, infinite case: the kernel's Lipschitz constant L taken 1000× too "
           "small in Lemma A.7's bounds", _INFINITE, instance=lipschitz_understated),
)
