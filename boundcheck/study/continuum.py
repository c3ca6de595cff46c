"""Simulation of a chunk of runs on a compact box: every algorithm in lockstep on common random numbers.

The twin of :func:`boundcheck.study.engine.simulate` for :class:`~boundcheck.world.box_scenario.BoxScenario`: per
step the truth f_t (exact feature paths, one per run, drawn from the run's own stream; the ε chain advanced in its
weights), its maximum (located, with a certified upper bound: the regret's stated tolerance) and the noise are
drawn once and shown to every algorithm. Policies choose points of the box (:class:`~boundcheck.policies.box.
BoxPolicy`); the engine checks them (inside the box, finite), evaluates f there, and — it alone sees f — records
the truth-side monitors from the policy's exposed posterior before the update: μ and σ at x_t, and at [x*_t]_t,
the maximiser rounded to the discretisation D_t of the proof (``grid_n_t`` cell centres per side, when the
theorem has it).

Trajectories keep the finite engine's shapes so that the claim machinery is shared: ``actions`` holds the index of
x_t in the run's own list of queried points (t − 1); the coordinates are the monitors ``x0``, ``x1``, …
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from ..claims.families import TheoremInstance
from ..errors import BoundcheckError, UserCodeError
from ..model.continuum.posterior import ContinuousPosterior
from ..model.noise import draw_noise
from ..model.sampling import shadow_stream
from ..policies import PolicySpec
from ..policies.box import BoxContext
from ..world.box_scenario import BoxScenario, check_points_in_box
from ..world.trajectory import AlgorithmTrajectory, Trajectories
from .engine import _guard, _make, _runs_text, _streams

__all__ = ["simulate_box", "discretise", "BOX_MONITORS"]

#: the certified tolerance of the truth's located maximum: a static f once per run (it enters R_T as T·tol), an ε
#: chain's f_t at every step (Table 2's regret, not a bound check)
STATIC_MAX_TOL, CHAIN_MAX_TOL = 1e-6, 1e-3
#: a static RKHS truth in 4 to 6 dimensions: its branch and bound splits each cell in 2^d, and 1e−6 can take more
#: than its 2·10⁶ cells (5-d, ℓ = 0.5); 1e−4 adds at most T·1e−4 to R_T, reported like every tolerance
STATIC_MAX_TOL_HIGH_DIM = 1e-4

#: what the engine records for every monitored box policy (from its posterior, before the update)
BOX_MONITORS = frozenset({"f_x", "mu_x", "sd_x", "mu_disc", "sd_disc"})


def discretise(X: np.ndarray, bounds: np.ndarray, n: float) -> np.ndarray:
    """[x]_t: the nearest point of D_t, the cell-centred grid of ``n`` points per side of the box (Srinivas et al.
    2010, Lemma 5.6 as theory.srinivas fixes it, correction SC5: ‖x − [x]_t‖₁ ≤ dr/(2n) and |D_t| = n^d)."""
    n = max(1, int(n))
    lo, hi = bounds[:, 0], bounds[:, 1]
    h = (hi - lo) / n
    cell = np.clip(np.floor((X - lo) / h), 0, n - 1)
    return lo + (cell + 0.5) * h


def _grad_sup_upper(p, box, L: float) -> np.ndarray:
    """(runs of p,) certified upper bounds of max_j sup_x |∂f/∂x_j| of a feature path (a located value could be
    too low and let a Lipschitz event pass): the path's proven ‖∇f‖ ≤ Σ√w‖ω‖ρ where it already settles the event
    sup ≤ L, the branch and bound elsewhere."""
    crude = p.lipschitz
    return crude if (crude <= L).all() else np.max(p.sup_abs_gradient_upper(box), axis=1)


def simulate_box(scenario: BoxScenario, policies: Sequence[PolicySpec], run_ids: Sequence[int], seed: int,
                 inst: TheoremInstance, progress: Callable[[int], None] | None = None, needs=None) -> Trajectories:
    """Simulate runs ``run_ids`` of every policy on the box scenario (see the module docstring)."""
    from ..model.continuum.paths import FeaturePaths
    from ..model.continuum.rkhs import RKHSExpansion

    run_ids = np.asarray(run_ids, dtype=np.int64)
    m, T, box = run_ids.size, int(scenario.horizon), scenario.box
    d, bounds = box.dim, box.bounds
    streams = [_streams(seed, int(r), policies) for r in run_ids]
    f_rngs = [s.f for s in streams]
    # one path object per run: every truth computation (values, the certified maximum's branch and bound) is then
    # a function of the run alone, bit for bit, whatever the batch (batched BLAS products round differently for
    # different numbers of rows); it costs ≈ 35 % more than one batched object (F = 1370, 25 runs)
    truth: dict[str, np.ndarray] = {}
    # a drifting RKHS truth (paper 003 on a box): per run centres (n, d) and α_t (T, n) from the run's own stream,
    # f_t = Σ_j α_tj k(·, c_j); its norms and steps recomputed here from the α's (exact: the reproducing property)
    seq = getattr(scenario, "rkhs_sequence", None)
    if seq is not None:
        drawn = [seq.draw(g) for g in f_rngs]
        seq_c = [c for c, _ in drawn]
        seq_a = [a for _, a in drawn]
        k_truth = scenario.truth_k

        def expansion(r: int, a: np.ndarray) -> RKHSExpansion:
            return RKHSExpansion(k_truth, box, seq_c[r][None], a[None])

        norms_t = np.array([[expansion(r, a[s]).norm[0] for s in range(T)] for r, a in enumerate(seq_a)])
        steps_t = np.zeros((m, T))
        for r, a in enumerate(seq_a):
            for s in range(T - 1):
                steps_t[r, s] = expansion(r, a[s + 1] - a[s]).norm[0]
        truth["rkhs_norm_t"], truth["rkhs_norm"] = norms_t, norms_t.max(axis=1)
        truth["step_norms"], truth["budget"] = steps_t, steps_t.sum(axis=1)
        truth["rkhs_centres"] = np.stack(seq_c)
        truth["rkhs_alpha_t"] = np.stack(seq_a)
        paths = [expansion(r, a[0]) for r, a in enumerate(seq_a)]
    elif scenario.rkhs:  # a fixed RKHS function per run, its norm exact (frequentist theorems)
        paths = [RKHSExpansion.draw(scenario.truth_k, box, scenario.rkhs_centres, scenario.rkhs_norm, [g])
                 for g in f_rngs]
        truth["rkhs_norm"] = np.concatenate([p.norm for p in paths])
        # the expansion itself, so that claims about f between the queried points (GP-TS's eq. (7)) read the very
        # function the runs faced: f_r = Σ_j alpha[r, j] k(·, centres[r, j])
        truth["rkhs_centres"] = np.concatenate([p.centres for p in paths])
        truth["rkhs_alpha"] = np.concatenate([p.alpha for p in paths])
    else:
        paths = [FeaturePaths.draw(scenario.features, [g]) for g in f_rngs]
        if scenario.truth_scale != 1.0:  # a negative control's amplified f (static)
            paths = [FeaturePaths(p.features, p.weights * scenario.truth_scale) for p in paths]

    def maximum(p, tol: float):
        """(x*, located max, certified upper bound) of one run's truth."""
        return p.certified_max(box, tol=tol) if scenario.rkhs else p.maximum(box, tol=tol)

    def negated(p):
        return (RKHSExpansion(p.kernel, p.box, p.centres, -p.alpha) if scenario.rkhs
                else FeaturePaths(p.features, -p.weights))

    def each(fn) -> tuple[np.ndarray, ...]:
        """``fn(path_r, r)`` for every run, its outputs stacked over the runs."""
        outs = [fn(p, r) for r, p in enumerate(paths)]
        return tuple(np.concatenate(parts) for parts in zip(*outs, strict=True))
    # the noise of every step, drawn up front from the run's noise stream (common to all algorithms)
    noise = draw_noise(scenario.noise_law, float(scenario.noise), [s.noise for s in streams], T)

    pols = [_make(spec, run_ids) for spec in policies]
    # what the engine reads each policy's monitors from: the policy's own exposed posterior, else the shadow's when
    # the policy is checked for conformance (the theorem's algorithm told the code's points and observations), else
    # a reference posterior of the theorem's prior the engine keeps itself — never numbers the code reports
    shadows: dict[str, object] = {}
    refs: dict[str, object] = {}
    for j, (spec, pol) in enumerate(zip(policies, pols, strict=True)):
        if getattr(pol, "domain_kind", "finite") != "box":
            raise BoundcheckError(f"policy {spec.name!r} chooses among the points of a finite domain; scenario "
                                  f"{scenario.name!r} is a compact box: run a box policy (e.g. gp_ucb_box)")
        ctx = BoxContext(runs=m, horizon=T, bounds=bounds, kernel=scenario.kernel, noise_sd=float(scenario.noise),
                         noise_var=float(scenario.model_noise_var), beta=np.asarray(inst.beta, dtype=float),
                         rngs=[s.algorithms[j] for s in streams], schedules=dict(inst.schedules),
                         delta=float(inst.delta), sobol=scenario.sobol, starts=scenario.starts,
                         certify=scenario.certify, run_ids=tuple(int(r) for r in run_ids))
        _guard(pol, "start()", 0, run_ids, pol.start, ctx)
        sh = inst.shadows.get(spec.name)
        if sh is not None:
            shadow = sh.make()
            shadow.start(replace(ctx, rngs=[shadow_stream(seed, int(r), j) for r in run_ids]))
            shadows[spec.name] = shadow
        elif getattr(pol, "posterior", None) is None and pol.role != "uninformed" and pol.monitored:
            refs[spec.name] = ContinuousPosterior(scenario.kernel, float(scenario.model_noise_var), m, d, T)
    grid_n = inst.schedules.get("grid_n_t")  # points per side of the proof's discretisation D_t
    # a time-varying theorem's Lipschitz event is per step (sup_x |∂f_t/∂x_j| ≤ L_t for every t): its level
    lip_t = inst.schedules.get("lipschitz_L_t")
    grad_t = np.full((m, T), np.nan) if lip_t is not None and scenario.eps != 0.0 and not scenario.rkhs else None

    static = scenario.eps == 0.0 and seq is None
    f_star = np.empty((m, T))
    f_tol = np.empty((m, T))  # certified upper bound on max f_t minus the located maximum
    x_star = np.empty((m, T, d))
    out = {spec.name: {"X": np.empty((m, T, d)), "y": np.empty((m, T)), "f_x": np.empty((m, T)),
                       "records": {}, "mon": {k: np.full((m, T), np.nan) for k in BOX_MONITORS - {"f_x"}}}
           for spec in policies}
    static_tol = STATIC_MAX_TOL if d <= 3 else STATIC_MAX_TOL_HIGH_DIM
    mx = None
    for t in range(1, T + 1):
        if seq is not None:
            if t > 1:
                paths = [expansion(r, a[t - 1]) for r, a in enumerate(seq_a)]
            # each f_t's maximum to the static tolerance, per run, recomputed only when the run's α_t moved (a
            # switching sequence holds still between its switches)
            parts = []
            for r, p in enumerate(paths):
                if t == 1 or not np.array_equal(seq_a[r][t - 1], seq_a[r][t - 2]):
                    parts.append(maximum(p, static_tol))
                else:
                    parts.append(tuple(v[r:r + 1] for v in mx))
            mx = tuple(np.concatenate(v) for v in zip(*parts, strict=True))
        elif not static and t > 1:
            paths = [p.advance(scenario.eps, [g]) for p, g in zip(paths, f_rngs, strict=True)]
        if seq is None and (mx is None or not static):  # a static f: its maximum once, to a tight tolerance
            tol = static_tol if static else CHAIN_MAX_TOL
            mx = each(lambda p, r, tol=tol: maximum(p, tol))
        xs, fs, fu = mx
        f_star[:, t - 1], f_tol[:, t - 1], x_star[:, t - 1] = fs, np.maximum(fu - fs, 0.0), xs
        if grad_t is not None:  # certified upper bounds of max_j sup_x |∂f_t/∂x_j| (see grad_sup below)
            grad_t[:, t - 1] = each(lambda p, r, L=float(lip_t[t]): (_grad_sup_upper(p, box, L),))[0]
        xd = discretise(xs, bounds, float(grid_n[t])) if grid_n is not None else xs
        for spec, pol in zip(policies, pols, strict=True):
            o = out[spec.name]
            X = np.asarray(_guard(pol, "select()", t, run_ids, pol.select, t), dtype=np.float64)
            if X.shape != (m, d):
                raise UserCodeError(f"policy {spec.name!r}: select() must return ({m}, {d}) points of the box, got "
                                    f"shape {X.shape} at step {t} ({_runs_text(run_ids)})")
            bad = check_points_in_box(scenario, X)
            if bad.any():
                r = int(np.flatnonzero(bad)[0])
                raise UserCodeError(f"policy {spec.name!r}: select() returned {X[r].tolist()}, outside the box "
                                    f"[{box.low:g}, {box.high:g}]^{d} at step {t} (run {run_ids[r]})")
            X = np.clip(X, bounds[:, 0], bounds[:, 1])
            fx = each(lambda p, r, X=X: (p.values(X[r:r + 1, None, :])[:, 0],))[0]
            shadow = shadows.get(spec.name)
            # the policy's own exposed posterior (as in the finite engine: the lemmas are about the model it acts
            # on), else the shadow's (the theorem's algorithm on the code's data), else the engine's reference
            post = getattr(pol, "posterior", None)
            if post is None:
                post = shadow.posterior if shadow is not None else refs.get(spec.name)
            if shadow is not None:  # before the updates: how the code's point compares with the shadow's own
                o["mon"].setdefault("conform_gap", np.full((m, T), np.nan))[:, t - 1] = \
                    shadow.conformance(t, X)["conform_gap"]
            if post is not None and pol.monitored:
                mu, sd = post.mean_sd(np.stack([X, xd], axis=1))
                mon = o["mon"]
                mon["mu_x"][:, t - 1], mon["sd_x"][:, t - 1] = mu[:, 0], sd[:, 0]
                mon["mu_disc"][:, t - 1], mon["sd_disc"][:, t - 1] = mu[:, 1], sd[:, 1]
            y = fx + noise[:, t - 1]
            _guard(pol, "update()", t, run_ids, pol.update, t, X, y)
            if shadow is not None:  # told the code's point and observation, never f
                shadow.update(t, X, y)
            elif spec.name in refs:
                refs[spec.name].condition(X, y)
            o["X"][:, t - 1], o["y"][:, t - 1], o["f_x"][:, t - 1] = X, y, fx
            for k, v in pol.record.items():
                o["records"].setdefault(k, np.zeros((m, T)))[:, t - 1] = np.asarray(v, dtype=float).reshape(m)
        if progress is not None:
            progress(t)

    if static:
        # the Lipschitz event of the proof (sup_x |∂f/∂x_j| ≤ L): the located sup over the box, per run
        if not scenario.rkhs:  # the Lipschitz event of a GP path's proof
            # certified upper bounds of sup|∂f/∂x_j| (a located value could be too low and let the event pass): the
            # path's proven ‖∇f‖ ≤ Σ√w‖ω‖ρ where it already settles the event, the branch and bound elsewhere
            L = float(inst.extra.get("lipschitz_L", np.inf))
            truth["grad_sup"] = each(lambda p, r: (_grad_sup_upper(p, box, L),))[0]
        f_min = -each(lambda p, r: maximum(negated(p), CHAIN_MAX_TOL))[2]
    else:
        f_min = None
    if grad_t is not None:
        truth["grad_sup_t"] = grad_t
    truth["max_tolerance"] = f_tol.sum(axis=1)
    truth["max_tolerance_t"] = f_tol  # (m, T) each step's own (a chain's anytime regret reads it step by step)
    truth["x_star"] = x_star  # (m, T, d) the located maximiser of f_t (the proofs' x*_t)
    f_upper = f_star + f_tol
    # the largest regret any algorithm could incur per step (vacuity): max − min of f_t, both certified bounds
    f_range = f_upper - (f_min[:, None] if f_min is not None else np.full((m, T), -np.inf))
    algos = {}
    for spec, pol in zip(policies, pols, strict=True):
        o = out[spec.name]
        regret = f_star - o["f_x"]
        mons = {"f_x": o["f_x"], **o["mon"], **{f"x{j}": o["X"][:, :, j] for j in range(d)}}
        algos[spec.name] = AlgorithmTrajectory(
            name=spec.name, label=pol.label, actions=np.broadcast_to(np.arange(T)[None, :, None], (m, T, 1)).copy(),
            regret=regret, obs=o["y"][..., None], steps=o["records"], monitors=mons,
            final=dict(_guard(pol, "finish()", T, run_ids, pol.finish) or {}))
    return Trajectories(run_ids=run_ids, horizon=T, noise_arms=noise[..., None], f_opt=f_star,
                        f_abs_max=np.max(np.abs(f_upper), axis=1), algorithms=algos, truth=truth,
                        f_range=f_range if f_min is not None else None)
