"""Simulation of a chunk of Monte Carlo runs: every algorithm in lockstep on common random numbers.

At each step t the truth f_t (one row per run), the available set X_t and the noise ε_t (one value per base
arm) are drawn once and shown to every algorithm, so algorithm comparisons are paired. Policies are vectorised
over the runs of the chunk. Truth-side monitors are computed here, because only the engine sees f: for every
policy that exposes a posterior containing the true prior p* (or a designated reference prior when
misspecified) it records, before the update (single-arm actions),

* ``z_all``   = max_x |f_t(x) − μ^{p*}_{t−1}(x,t)| / σ^{p*}_{t−1}(x,t)   (the confidence event E_A is z_all ≤ β_t),
* ``z_chosen``= the same ratio at x_t,
* ``innov``   = (y_t − μ^{p*}_{t−1}(x_t,t)) / √(σ²^{p*}_{t−1}(x_t,t) + R²)  (i.i.d. N(0,1) under p*).

A policy may add its own truth-side monitors with ``truth_monitors(t, f_t, action)`` (see
:mod:`boundcheck.policies.base`).

The truth is drawn by :func:`~boundcheck.model.sampling.make_sampler`: a GP prior (ε chain) or a family of fixed
RKHS functions; per-run facts about it (e.g. the exact RKHS norm) land in ``Trajectories.truth``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ..claims.families import TheoremInstance
from ..errors import BoundcheckError
from ..model.noise import draw_noise
from ..model.sampling import make_sampler, run_streams
from ..policies import PolicySpec, RunContext
from ..world.scenario import Scenario
from ..world.trajectory import AlgorithmTrajectory, Trajectories

__all__ = ["simulate", "ENGINE_MONITORS"]

#: monitors the engine records through a policy's exposed posterior
ENGINE_MONITORS = frozenset({"z_all", "z_chosen", "innov"})


def _as_action(action, m: int, K: int, name: str) -> np.ndarray:
    a = np.asarray(action)
    if a.ndim == 1:
        a = a[:, None]
    if a.shape != (m, K) or not np.issubdtype(a.dtype, np.integer):
        raise BoundcheckError(f"policy {name!r}: select() must return ({m}, {K}) integer base-arm indices, "
                              f"got shape {a.shape} dtype {a.dtype}")
    return a.astype(np.int64, copy=False)


def simulate(scenario: Scenario, policies: Sequence[PolicySpec], run_ids: Sequence[int], seed: int,
             inst: TheoremInstance, progress: Callable[[int], None] | None = None) -> Trajectories:
    """Run every policy for ``inst.horizon`` steps on the runs ``run_ids`` (one vectorised batch).
    ``progress(t)`` is called after each step (see :mod:`boundcheck.study.progress`)."""
    run_ids = np.asarray(run_ids, dtype=np.int64)
    m, T = run_ids.size, int(inst.horizon)
    actions = scenario.actions
    K = actions.K
    streams = [run_streams(seed, int(r), len(policies)) for r in run_ids]
    f_rngs, noise_rngs = [s.f for s in streams], [s.noise for s in streams]
    avail_rngs = [s.availability for s in streams]
    pols = [spec.make() for spec in policies]
    for j, pol in enumerate(pols):
        pol.start(RunContext(
            runs=m, horizon=T, candidates=scenario.candidates, truth=scenario.truth, noise_sd=scenario.noise,
            noise_var=scenario.model_noise_var, beta=inst.beta, xi=inst.xi, actions=actions,
            rngs=[s.algorithms[j] for s in streams], truth_index=scenario.truth_index,
            reference_index=scenario.reference_index, schedules=dict(inst.schedules), delta=inst.delta,
            window=scenario.window))

    sampler = make_sampler(scenario.truth)
    R = scenario.noise
    rows = np.arange(m)
    noise = np.empty((m, T, K))
    f_opt = np.empty((m, T))
    f_abs_max = np.zeros(m)
    out = {p.name: AlgorithmTrajectory(p.name, p.label, np.empty((m, T, K), np.int64), np.empty((m, T)),
                                       np.empty((m, T, K))) for p in pols}

    def store(d: dict[str, np.ndarray], key: str, t: int, value: np.ndarray) -> None:
        value = np.asarray(value)
        if key not in d:
            d[key] = np.zeros((m, T) + value.shape[1:], dtype=value.dtype)
        d[key][:, t - 1] = value

    for t in range(1, T + 1):
        f_t = sampler.start(f_rngs) if t == 1 else sampler.step(f_rngs)  # (m, n)
        eps_t = draw_noise(scenario.noise_law, R, noise_rngs, K)  # (m, K): one draw per base arm
        avail = actions.available(t, avail_rngs)
        best = actions.best_value(f_t, avail)
        noise[:, t - 1], f_opt[:, t - 1] = eps_t, best
        np.maximum(f_abs_max, np.abs(f_t).max(axis=1), out=f_abs_max)
        for pol in pols:
            tr = out[pol.name]
            post, tp = pol.posterior, pol.truth_prior
            monitored = post is not None and tp is not None
            if monitored:
                mu_ref = post.mean()[:, tp]
                sd_ref = np.sqrt(np.maximum(post.group_var()[:, post.group_of[tp]], 1e-300))
                store(tr.monitors, "z_all", t, (np.abs(f_t - mu_ref) / sd_ref).max(axis=1))
            action = _as_action(pol.select(t, avail), m, K, pol.name)
            y_t = f_t[rows[:, None], action] + eps_t
            if hasattr(pol, "truth_monitors"):
                for k, v in pol.truth_monitors(t, f_t, action).items():
                    store(tr.monitors, k, t, v)
            if monitored and K == 1:
                x_t = action[:, 0]
                store(tr.monitors, "z_chosen", t, np.abs(f_t[rows, x_t] - mu_ref[rows, x_t]) / sd_ref[rows, x_t])
                store(tr.monitors, "innov", t,
                      (y_t[:, 0] - mu_ref[rows, x_t]) / np.sqrt(sd_ref[rows, x_t] ** 2 + R**2))
            pol.update(t, action, y_t)
            tr.actions[:, t - 1], tr.obs[:, t - 1] = action, y_t
            tr.regret[:, t - 1] = best - actions.value(f_t, action)
            for k, v in pol.record.items():
                store(tr.steps, k, t, v)
        if progress is not None:
            progress(t)
    for pol in pols:
        out[pol.name].final = pol.finish()
    return Trajectories(run_ids, T, noise, f_opt, f_abs_max, out, truth=dict(sampler.info))
