"""TV-GP-UCB on the continuum (Bogunovic, Scarlett, Cevher 2016): GP-UCB on the exact posterior of the ε chain
with the acquisition maximised over the box, the algorithm of ``tv_gp_ucb_compact``."""

from __future__ import annotations

import numpy as np

from boundcheck.model.continuum.posterior import TimeVaryingPosterior
from boundcheck.policies.box import BoxContext, GPUCBBox
from boundcheck.utils.validation import check_unit_interval

__all__ = ["TVGPUCBBox"]


class TVGPUCBBox(GPUCBBox):
    """TV-GP-UCB on the box, told ε::

        for t = 1..T:
            x_t = argmax_{x ∈ X} μ̃_{t−1}(x) + √β_t σ̃_{t−1}(x)        # the continuum: multi-start quasi-Newton
            y_t = f_t(x_t) + w_t;  stamp (x_t, y_t) with time t

    μ̃_{t−1}, σ̃_{t−1}: the exact posterior of f_t given y_1..y_{t−1} under k̃((x,s),(x',s')) = k(x,x')(1−ε)^{|s−s'|/2}
    (:class:`~boundcheck.model.continuum.posterior.TimeVaryingPosterior`, its query time set to t in :meth:`select`,
    so the engine reads μ̃_{t−1}, σ̃_{t−1} at x_t and [x*_t]_t from :attr:`posterior` before the update). The told ε
    is the argument, else the study's ``tv_eps`` schedule (the family sets it to the scenario's ε), else 0 (GP-UCB:
    ``eps_told`` records it); √β_t the study's width schedule. Records ``eps_told`` beside
    :class:`~boundcheck.policies.box.GPUCBBox`'s."""

    name = "tv_gp_ucb_box"
    label = "TV-GP-UCB"
    description = "time-varying GP-UCB on the continuum: exact posterior of the ε chain with a told ε"
    records = GPUCBBox.records | {"eps_told"}

    def __init__(self, eps: float | None = None, name: str = "tv_gp_ucb_box", label: str = "TV-GP-UCB") -> None:
        super().__init__(name=name, label=label)
        self.eps = None if eps is None else check_unit_interval("eps", eps)

    def start(self, ctx: BoxContext) -> None:
        super().start(ctx)
        if self.eps is not None:
            eps = self.eps
        elif "tv_eps" in ctx.schedules:
            eps = float(np.asarray(ctx.schedules["tv_eps"])[0])
        else:  # told nothing (a baseline under a static theorem, check_policy): GP-UCB's ε = 0, recorded as told
            eps = 0.0
        self.eps_told = check_unit_interval("told eps", eps)
        # the parent built a static ContinuousPosterior: the same data space, with the decay of the ε chain
        self.posterior = TimeVaryingPosterior(ctx.kernel, ctx.noise_var, ctx.runs, ctx.dim, max(ctx.horizon, 1),
                                              self.eps_told)

    def select(self, t: int) -> np.ndarray:
        self.posterior.at(t)  # μ̃_{t−1}, σ̃_{t−1}: the posterior of f_t
        x = super().select(t)
        self.record["eps_told"] = np.full(self.m, self.eps_told)
        return x

    def update(self, t: int, X: np.ndarray, y: np.ndarray) -> None:
        self.posterior.condition(X, y, times=float(t))
        self.after_update(t, X, y)
