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

from collections.abc import Sequence

import numpy as np

from ..claims.families import TheoremInstance
from ..errors import BoundcheckError
from ..model.noise import draw_noise
from ..model.sampling import make_sampler, run_streams
from ..policies import PolicySpec, RunContext
from ..world.scenario import Scenario
from ..world.trajectory import AlgorithmTrajectory, Trajectories

__all__ = ["simulate", "ENGINE_MONITORS", "super_arm_innovations"]

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


def super_arm_innovations(post, tp: int, mu_ref: np.ndarray, action: np.ndarray, y: np.ndarray,
                          noise_var: float) -> dict[str, np.ndarray]:
    """Innovations of a round with K > 1 base arms (−1: padding) under the reference posterior, before the update.

    With e = r_t − μ_{t−1}(a_t) ~ N(0, Σ_{t−1}(a_t) + ς²I) given H_t (exact posterior, exogenous X_t):

    * ``innov`` = 1ᵀe / √(1ᵀ(Σ + ς²I)1): the total reward's innovation, i.i.d. N(0, 1) over rounds;
    * ``innov_sq`` = eᵀ(Σ + ς²I)⁻¹e ~ χ²_k (k = |a_t|), the squared norm of the whitened vector;
    * ``innov_norm`` = Φ⁻¹(F_{χ²_k}(innov_sq)): i.i.d. N(0, 1) over rounds."""
    from scipy.stats import chi2, norm

    m, K = action.shape
    valid = action >= 0
    B = np.where(valid, action, 0)
    cols = np.stack([post.cov_column(B[:, k], tp) for k in range(K)], axis=1)  # (m, K, n)
    S = np.take_along_axis(cols, B[:, None, :], axis=2)  # (m, K, K)
    S = np.where(valid[:, :, None] & valid[:, None, :], S, 0.0)
    M = S + np.eye(K)[None] * np.where(valid, noise_var, 1.0)[:, None, :]
    e = np.where(valid, y - np.take_along_axis(mu_ref, B, axis=1), 0.0)
    ones = valid.astype(float)
    total = (e * ones).sum(axis=1) / np.sqrt(np.einsum("mi,mij,mj->m", ones, M, ones))
    q = np.einsum("mi,mi->m", e, np.linalg.solve(M, e[..., None])[..., 0])
    k = valid.sum(axis=1)
    return {"innov": total, "innov_sq": q, "innov_norm": norm.ppf(np.clip(chi2.cdf(q, k), 1e-300, 1 - 1e-16))}


def simulate(scenario: Scenario, policies: Sequence[PolicySpec], run_ids: Sequence[int], seed: int,
             inst: TheoremInstance) -> Trajectories:
    """Run every policy for ``inst.horizon`` steps on the runs ``run_ids`` (one vectorised batch)."""
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

    round_monitor = getattr(inst, "round_monitor", None)  # a family's truth-side monitors of a round (K ≥ 1)
    for t in range(1, T + 1):
        # X_t first: it may carry the round's base arms (contexts); its stream is independent of f and noise,
        # so the order changes no number
        avail = actions.available(t, avail_rngs)
        draw = sampler.start(f_rngs) if t == 1 else sampler.step(f_rngs)
        f_t = actions.realise(draw, avail)  # (m, n)
        eps_t = draw_noise(scenario.noise_law, R, noise_rngs, K)  # (m, K): one draw per base arm
        best = actions.best_value(f_t, avail)
        cache: dict = {"draw": draw}  # what the round monitor shares between policies (the truth's draw, a*_t)
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
            elif monitored:
                for k, v in super_arm_innovations(post, tp, mu_ref, action, y_t, R**2).items():
                    store(tr.monitors, k, t, v)
            if round_monitor is not None and getattr(pol, "arm_model", None) is not None:
                for k, v in round_monitor(t, pol, f_t, avail, action, y_t, actions, cache).items():
                    store(tr.monitors, k, t, v)
            pol.update(t, action, y_t)
            tr.actions[:, t - 1], tr.obs[:, t - 1] = action, y_t
            tr.regret[:, t - 1] = best - actions.value(f_t, action)
            for k, v in pol.record.items():
                store(tr.steps, k, t, v)
    for pol in pols:
        out[pol.name].final = pol.finish()
    return Trajectories(run_ids, T, noise, f_opt, f_abs_max, out, truth=dict(sampler.info))
