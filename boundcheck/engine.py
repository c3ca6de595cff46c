"""Simulation of a chunk of Monte Carlo runs: every algorithm in lockstep on common random numbers.

At each step t the truth f_t (one row per run) and the noise ε_t are drawn once and shown to every
algorithm, so algorithm comparisons are paired. Policies are vectorised over the runs of the chunk.
Truth-side monitors are computed here, because only the engine sees f: for every policy whose posterior
contains the true prior p* (or a designated reference prior when misspecified) it records, before the
update,

* ``z_all``   = max_x |f_t(x) − μ^{p*}_{t−1}(x,t)| / σ^{p*}_{t−1}(x,t)   (the confidence event E_A is z_all ≤ β_t),
* ``z_chosen``= the same ratio at x_t,
* ``innov``   = (y_t − μ^{p*}_{t−1}(x_t,t)) / √(σ²^{p*}_{t−1}(x_t,t) + R²)  (i.i.d. N(0,1) under p*).

A policy may add its own truth-side monitors with a ``truth_monitors(t, f_t, x_t) -> {name: (m,) array}``
method, called after its choice and before its update (for quantities that need both the policy's internal
state and f, such as GP-TS's sample against the truth); the policy must not act on them.

The truth is drawn by :func:`~boundcheck.sampling.make_sampler`: a GP prior (ε chain) or a family of fixed RKHS
functions; per-run facts about it (e.g. the exact RKHS norm) land in ``Trajectories.truth``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from .algorithms import RunContext, make_policy
from .sampling import make_sampler, run_streams
from .scenarios import Scenario

__all__ = ["AlgorithmTrajectory", "Trajectories", "simulate"]


@dataclass
class AlgorithmTrajectory:
    name: str
    label: str
    idx: np.ndarray  # (m, T) chosen domain index
    regret: np.ndarray  # (m, T) r_t = max_{X_t} f_t − f_t(x_t)
    y: np.ndarray  # (m, T) observations
    steps: dict[str, np.ndarray] = field(default_factory=dict)  # policy records, (m, T, ...)
    monitors: dict[str, np.ndarray] = field(default_factory=dict)  # truth-side monitors, (m, T)
    final: dict[str, np.ndarray] = field(default_factory=dict)  # per-run diagnostics from finish()


@dataclass
class Trajectories:
    run_ids: np.ndarray  # (m,)
    horizon: int
    noise: np.ndarray  # (m, T) ε_t
    f_opt: np.ndarray  # (m, T) max_{x ∈ X_t} f_t(x)
    f_abs_max: np.ndarray  # (m,) max_{t,x} |f_t(x)|
    algorithms: dict[str, AlgorithmTrajectory]
    truth: dict[str, np.ndarray] = field(default_factory=dict)  # per-run facts from the sampler (f, rkhs_norm)


def simulate(
    scenario: Scenario, algorithms: Sequence[str], run_ids: Sequence[int], seed: int, horizon: int,
    beta: np.ndarray, xi: np.ndarray, schedules: Mapping[str, np.ndarray] | None = None,
) -> Trajectories:
    """Run every algorithm for ``horizon`` steps on the runs ``run_ids`` (one vectorised batch).

    ``schedules``: further (T+1,) schedules by name (baselines' own β), passed to every policy."""
    run_ids = np.asarray(run_ids, dtype=np.int64)
    m, T = run_ids.size, int(horizon)
    streams = [run_streams(seed, int(r), len(algorithms)) for r in run_ids]
    f_rngs, noise_rngs = [s.f for s in streams], [s.noise for s in streams]
    policies = [make_policy(a) for a in algorithms]
    for j, pol in enumerate(policies):
        pol.start(RunContext(
            runs=m, horizon=T, candidates=scenario.candidates, truth=scenario.truth, noise_sd=scenario.noise,
            beta=beta, xi=xi, rngs=[s.algorithms[j] for s in streams], truth_index=scenario.truth_index,
            reference_index=scenario.reference_index, noise_var=scenario.model_noise_var,
            schedules=dict(schedules or {})))

    sampler = make_sampler(scenario.truth)
    R = scenario.noise
    rows = np.arange(m)
    noise = np.empty((m, T))
    f_opt = np.empty((m, T))
    f_abs_max = np.zeros(m)
    out = {p.name: AlgorithmTrajectory(p.name, p.label, np.empty((m, T), np.int64), np.empty((m, T)),
                                       np.empty((m, T))) for p in policies}

    def store(d: dict[str, np.ndarray], key: str, t: int, value: np.ndarray) -> None:
        value = np.asarray(value)
        if key not in d:
            d[key] = np.zeros((m, T) + value.shape[1:], dtype=value.dtype)
        d[key][:, t - 1] = value

    for t in range(1, T + 1):
        f_t = sampler.start(f_rngs) if t == 1 else sampler.step(f_rngs)  # (m, n)
        eps_t = R * np.array([g.standard_normal() for g in noise_rngs])
        avail = scenario.availability.mask(t)
        best = np.where(avail[None, :], f_t, -np.inf).max(axis=1)
        noise[:, t - 1], f_opt[:, t - 1] = eps_t, best
        np.maximum(f_abs_max, np.abs(f_t).max(axis=1), out=f_abs_max)
        for pol in policies:
            tr = out[pol.name]
            post, tp = pol.posterior, pol.truth_prior
            if post is not None and tp is not None:
                mu_ref = post.mean()[:, tp]
                sd_ref = np.sqrt(np.maximum(post.group_var()[:, post.group_of[tp]], 1e-300))
                store(tr.monitors, "z_all", t, (np.abs(f_t - mu_ref) / sd_ref).max(axis=1))
            x_t = pol.select(t, avail)
            y_t = f_t[rows, x_t] + eps_t
            if hasattr(pol, "truth_monitors"):
                for k, v in pol.truth_monitors(t, f_t, x_t).items():
                    store(tr.monitors, k, t, v)
            if post is not None and tp is not None:
                store(tr.monitors, "z_chosen", t, np.abs(f_t[rows, x_t] - mu_ref[rows, x_t]) / sd_ref[rows, x_t])
                store(tr.monitors, "innov", t,
                      (y_t - mu_ref[rows, x_t]) / np.sqrt(sd_ref[rows, x_t] ** 2 + R**2))
            pol.update(t, x_t, y_t)
            tr.idx[:, t - 1], tr.y[:, t - 1] = x_t, y_t
            tr.regret[:, t - 1] = best - f_t[rows, x_t]
            for k, v in pol.record.items():
                store(tr.steps, k, t, v)
    for pol in policies:
        out[pol.name].final = pol.finish()
    return Trajectories(run_ids, T, noise, f_opt, f_abs_max, out, truth=dict(sampler.info))
