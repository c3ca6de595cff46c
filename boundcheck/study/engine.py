"""Simulation of a chunk of Monte Carlo runs: every algorithm in lockstep on common random numbers.

At each step t the truth f_t (one row per run), the available set X_t and the noise ε_t are drawn once and shown
to every algorithm, so comparisons are paired; policies are vectorised over the chunk's runs. Only the engine
sees f, so it computes the truth-side monitors (``z_all``, ``z_chosen``, ``innov``: see :func:`simulate`), from
a policy's own posterior or, for one that exposes none, from a reference posterior it keeps itself.

The engine reads a policy only through the declared interface of :class:`~boundcheck.policies.Policy`, and holds
user code to the protocol: an action outside the domain or X_t, a non-integer action or an exception in a
policy outside boundcheck is a :class:`~boundcheck.errors.UserCodeError` naming the policy, the runs and the step.
The truth is drawn by :func:`~boundcheck.model.sampling.make_sampler`: a GP prior (ε chain) or a family of fixed
RKHS functions; per-run facts about it (e.g. the exact RKHS norm) land in ``Trajectories.truth``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from ..claims.conformance import shadow_fills
from ..claims.families import TheoremInstance
from ..errors import BoundcheckError, UserCodeError
from ..model.arithmetic import arithmetic
from ..model.dataspace import make_posterior
from ..model.noise import NoiseDraws
from ..model.posterior import Posterior
from ..model.sampling import RunStreams, make_sampler, run_streams, shadow_stream
from ..policies import Policy, PolicySpec, RunContext
from ..utils import usercode
from ..world.scenario import Scenario
from ..world.trajectory import AlgorithmTrajectory, Trajectories
from .needs import StudyNeeds

__all__ = ["simulate", "ENGINE_MONITORS", "super_arm_innovations", "record_clashes"]

#: monitors the engine records through a policy's exposed posterior
ENGINE_MONITORS = frozenset({"z_all", "z_chosen", "innov"})


def record_clashes(records: frozenset[str], monitors: frozenset[str]) -> list[str]:
    """The names a policy declares both as a per-step record and among the monitors a study records for it
    (its own, the engine's, its family's observers'): the steps table has one column per name, so a clash would
    silently replace the policy's record by the monitor. Sorted; empty when none."""
    return sorted(frozenset(records) & frozenset(monitors))


def _runs_text(run_ids: np.ndarray) -> str:
    return f"run {run_ids[0]}" if run_ids.size == 1 else f"runs {run_ids[0]}–{run_ids[-1]}"


def _as_action(action, m: int, K: int, name: str, t: int | None = None, available: np.ndarray | None = None,
               run_ids: np.ndarray | None = None, padded: bool = False) -> np.ndarray:
    """The (m, K) int64 action of a policy's ``select``, checked against the domain and X_t (``padded``: −1
    entries stand for no base arm, in super arms of different sizes)."""
    where = "" if t is None or run_ids is None else f" at step {t} ({_runs_text(run_ids)})"
    a = np.asarray(action)
    if a.ndim == 1:
        a = a[:, None]
    if a.shape != (m, K) or a.dtype.kind not in "iu":  # signed or unsigned integers (np.integer), not bool
        raise UserCodeError(f"policy {name!r}: select() must return ({m}, {K}) integer base-arm indices, "
                            f"got shape {a.shape} dtype {a.dtype}{where}")
    a = a.astype(np.int64, copy=False)
    if available is not None and not padded and a.size and available.ndim <= 2:
        # the common case in two reductions and one gather (≈ 5 µs against ≈ 18 µs at m = 13, n = 100: this runs
        # once per policy and step, 14 % of paper 004's long horizons); anything amiss is found again below,
        # where the message is made
        n = available.shape[-1]
        if a.min() >= 0 and a.max() < n:
            if available.ndim == 1:
                ok = available[a]
            elif available.shape[0] == m:
                ok = np.take_along_axis(available, a, axis=1)
            else:
                ok = np.take_along_axis(np.broadcast_to(available, (m, n)), a, axis=1)
            if ok.all():
                return a
    if available is not None:
        n = available.shape[-1]
        pad = (a == -1) if padded else np.zeros(a.shape, dtype=bool)
        outside = ((a < 0) & ~pad) | (a >= n)
        if outside.any():
            r = int(np.flatnonzero(outside.any(axis=1))[0])
            run = "" if run_ids is None else f" (run {run_ids[r]})"
            raise UserCodeError(f"policy {name!r}: select() returned index {int(a[outside][0])}, outside the "
                                f"domain (0..{n - 1}){where}{run}")
        ok = np.take_along_axis(np.broadcast_to(available, (m, n)), np.maximum(a, 0), axis=1) | pad
        if not ok.all():
            r = int(np.flatnonzero(~ok.all(axis=1))[0])
            run = "" if run_ids is None else f" (run {run_ids[r]})"
            raise UserCodeError(f"policy {name!r}: select() returned index {int(a[r][~ok[r]][0])}, which is not in "
                                f"the available set X_t{where}{run}")
    return a


def _is_user_code(pol) -> bool:
    """Policies defined outside boundcheck (their exceptions are the user's, reported as UserCodeError)."""
    return not type(pol).__module__.startswith("boundcheck.")


def _guard(pol, what: str, t: int, run_ids: np.ndarray, fn, *args):
    """Call ``fn(*args)``; an exception from user code becomes one UserCodeError line."""
    if not _is_user_code(pol):
        return fn(*args)
    return _user_call(f"policy {pol.name!r} ({type(pol).__module__}.{type(pol).__qualname__})", what, t, run_ids,
                      fn, *args)


def _make(spec: PolicySpec, run_ids: np.ndarray) -> Policy:
    """The policy of ``spec``; a user's batched policy class is constructed as user code (an exception in its
    constructor is one line naming it, not a worker that "ended unexpectedly")."""
    f = spec.factory
    if str(getattr(f, "__module__", "")).startswith("boundcheck."):
        return spec.make()
    what = "__init__()" if isinstance(f, type) else f"{getattr(f, '__name__', 'factory')}()"
    return _user_call(f"policy {spec.name!r} ({f.__module__}.{getattr(f, '__qualname__', f)})", what, 0, run_ids,
                      spec.make)


def _user_call(who: str, what: str, t: int, run_ids: np.ndarray, fn, *args):
    step = "start" if t == 0 else f"step {t}"
    try:
        return usercode.call(f"{who} {what}, {_runs_text(run_ids)}, {step}", fn, *args)
    except BoundcheckError:
        raise
    except usercode.UserCallFailed as exc:  # SystemExit, KeyboardInterrupt, the time limit
        raise UserCodeError(f"{who} {exc.detail} in {what}, {_runs_text(run_ids)}, {step}") from None
    except Exception as exc:
        msg = str(exc).splitlines()[0] if str(exc) else ""
        raise UserCodeError(f"{who} raised {type(exc).__name__}: {msg} in {what}, {_runs_text(run_ids)}, "
                            f"{step}") from None


def _check_records(pol, t: int, run_ids: np.ndarray) -> None:
    """A user policy's records of step t: real numbers (booleans, integers, floats: not strings, complex numbers or
    objects, which a cast to float would silently turn into numbers or drop the imaginary part of), one row per
    run, finite (a NaN record would make every claim that reads it vacuously hold; an infinite one, every bound
    on it). One UserCodeError naming the policy, the run, the step and the record."""
    m = run_ids.size
    for k, v in pol.record.items():
        try:
            raw = np.asarray(v)
        except (TypeError, ValueError):  # ragged nested sequences
            raw = None
        if raw is None or raw.dtype.kind not in "biuf":
            what = type(v).__name__ if raw is None else f"{type(v).__name__} of dtype {raw.dtype}"
            raise UserCodeError(f"policy {pol.name!r}: record {k!r} at step {t} is not numeric ({what}), "
                                f"{_runs_text(run_ids)}")
        a = raw.astype(np.float64)
        if a.ndim == 0 or a.shape[0] != m:
            raise UserCodeError(f"policy {pol.name!r}: record {k!r} at step {t} must have one value per run "
                                f"(shape ({m}, ...)), got shape {a.shape}, {_runs_text(run_ids)}")
        bad = ~np.isfinite(a.reshape(m, -1)).all(axis=1)
        if bad.any():
            r = int(np.flatnonzero(bad)[0])
            raise UserCodeError(f"policy {pol.name!r}: record {k!r} is not finite "
                                f"({float(a.reshape(m, -1)[r][~np.isfinite(a.reshape(m, -1)[r])][0])!r}) at step {t}, "
                                f"run {run_ids[r]}")


def _reference_posterior(pol, scenario: Scenario, m: int, horizon: int) -> Posterior | None:
    """The engine's own posterior of p* for a policy that exposes none (None: the policy's own is used, or
    the policy is an uninformed reference, or asks not to be monitored (``monitored = False``), or the base arms
    are drawn afresh each round (contexts: no fixed domain to hold a posterior on), or the scenario names no
    reference prior). Built like the policies' own (:func:`~boundcheck.model.dataspace.make_posterior`: the
    grid or the data-space form, whichever costs less for T·K observations on this domain; the reference
    arithmetic keeps the grid form)."""
    if pol.posterior is not None or pol.role == "uninformed":
        return None
    if not pol.monitored or not scenario.actions.fixed_arms:
        return None
    ref = scenario.truth_index if scenario.truth_index is not None else scenario.reference_index
    if ref is None:
        return None
    return make_posterior([scenario.candidates[ref]], scenario.model_noise_var, m,
                          max_data=int(horizon) * int(scenario.actions.K))


def _condition_padded(post, action: np.ndarray, y: np.ndarray) -> None:
    """K observations per run into a reference posterior, skipping padding (−1): exact sequential rank-1 (the
    same updates, in the same order, as ``condition_batch`` when nothing is padded)."""
    for k in range(action.shape[1]):
        ok = action[:, k] >= 0
        if ok.any():
            post.condition(np.maximum(action[:, k], 0), y[:, k], runs=None if ok.all() else ok)


def _streams(seed: int, run: int, policies: Sequence[PolicySpec]) -> RunStreams:
    """The run's streams; a policy's algorithm stream is its ``stream`` index (default: its position)."""
    ids = [j if p.stream is None else int(p.stream) for j, p in enumerate(policies)]
    base = run_streams(seed, run, max(ids) + 1 if ids else 0)
    return RunStreams(f=base.f, noise=base.noise, algorithms=tuple(base.algorithms[i] for i in ids),
                      availability=base.availability)


def super_arm_innovations(post, tp: int, mu_ref: np.ndarray, action: np.ndarray, y: np.ndarray,
                          noise_var: float) -> dict[str, np.ndarray]:
    """Innovations of a round with K > 1 base arms (−1: padding) under the reference posterior, before the update.

    With e = r_t − μ_{t−1}(a_t) ~ N(0, Σ_{t−1}(a_t) + ς²I) given H_t (exact posterior, exogenous X_t):

    * ``innov`` = 1ᵀe / √(1ᵀ(Σ + ς²I)1): the total reward's innovation, i.i.d. N(0, 1) over rounds;
    * ``innov_sq`` = eᵀ(Σ + ς²I)⁻¹e ~ χ²_k (k = |a_t|), the squared norm of the whitened vector;
    * ``innov_norm`` = Φ⁻¹(F_{χ²_k}(innov_sq)): i.i.d. N(0, 1) over rounds."""
    from ..utils.laws import stats

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
    score = stats.norm.ppf(np.clip(stats.chi2.cdf(q, k), 1e-300, 1 - 1e-16))
    return {"innov": total, "innov_sq": q, "innov_norm": score}


def simulate(scenario: Scenario, policies: Sequence[PolicySpec], run_ids: Sequence[int], seed: int,
             inst: TheoremInstance, progress: Callable[[int], None] | None = None,
             needs: StudyNeeds | None = None) -> Trajectories:
    """Run every policy for ``inst.horizon`` steps on the runs ``run_ids`` (one vectorised batch).
    ``progress(t)`` is called after each step (see :mod:`boundcheck.study.progress`).

    ``needs`` (:class:`~boundcheck.study.needs.StudyNeeds`): what the study measures. With ``stop_at``, each run
    stops after the first step at which the first policy's record of that name is true (``stopped_at``); finished
    runs are retired from the batch when every policy, the sampler and the noise can retire them (a kept run's
    values do not depend on its batch), otherwise the batch is stepped until its last run stops. Without
    ``regret`` no max f_t and no regret are computed; without ``monitors`` no truth-side monitor.

    Truth-side monitors, recorded before the update (single-arm actions) for every monitored policy, from its
    posterior of the true prior p* (or of a designated reference prior when misspecified):

    * ``z_all``   = max_x |f_t(x) − μ^{p*}_{t−1}(x,t)| / σ^{p*}_{t−1}(x,t)   (the confidence event E_A is
      z_all ≤ β_t),
    * ``z_chosen``= the same ratio at x_t,
    * ``innov``   = (y_t − μ^{p*}_{t−1}(x_t,t)) / √(σ²^{p*}_{t−1}(x_t,t) + R²)  (i.i.d. N(0,1) under p*).

    A policy that exposes no posterior (a user's policy) is monitored all the same: the engine keeps its own
    *reference posterior* of p* (likelihood variance λ) conditioned on exactly that policy's queries and
    observations; uninformed references (``role = "uninformed"``) are not monitored. A policy may add monitors
    with ``truth_monitors(t, f_t, action)``, and a family registers observers of a round on its theorem instance
    (``inst.observers``), called for every monitored policy that exposes the models they need. A record and a
    monitor of one policy never share a name (:func:`record_clashes`, checked when a study is built)."""
    run_ids = np.asarray(run_ids, dtype=np.int64)
    m, T = run_ids.size, int(inst.horizon)
    needs = None if needs is None or needs.full else needs
    want_regret = needs is None or needs.regret
    want_monitors = needs is None or needs.monitors
    stop_at = None if needs is None else needs.stop_at
    actions = scenario.actions
    K = actions.K
    if any(p.stream is not None for p in policies):
        streams = [_streams(seed, int(r), policies) for r in run_ids]
    else:
        streams = [run_streams(seed, int(r), len(policies)) for r in run_ids]
    f_rngs, noise_rngs = [s.f for s in streams], [s.noise for s in streams]
    avail_rngs = [s.availability for s in streams]
    pols = [_make(spec, run_ids) for spec in policies]
    for pol in pols:  # the engine reads the declared interface of Policy (models, monitored, truth_monitors, ...)
        if not isinstance(pol, Policy):
            raise UserCodeError(f"policy {getattr(pol, 'name', type(pol).__name__)!r} ({type(pol).__qualname__}) "
                                "does not subclass boundcheck.policies.Policy: subclass it (batched protocol) or "
                                "write ask/tell methods (per-run protocol)")
    ids = tuple(int(r) for r in run_ids)

    def context(rngs: list[np.random.Generator]) -> RunContext:
        return RunContext(
            runs=m, horizon=T, candidates=scenario.candidates, truth=scenario.truth, noise_sd=scenario.noise,
            noise_var=scenario.model_noise_var, beta=inst.beta, xi=inst.xi, actions=actions,
            rngs=rngs, truth_index=scenario.truth_index,
            reference_index=scenario.reference_index, schedules=dict(inst.schedules), delta=inst.delta,
            window=scenario.window, points=scenario.domain.points, B=scenario.B, run_ids=ids)

    for j, pol in enumerate(pols):
        _guard(pol, "start()", 0, run_ids, pol.start, context([s.algorithms[j] for s in streams]))
    # conformance (boundcheck.claims.conformance): a checked policy runs beside a shadow of the theorem's own
    # algorithm, told only the policy's actions and observations, with a stream of its own
    shadows: dict[str, Policy] = {}
    fills: dict[str, frozenset[str]] = {}  # the records the claims read from the shadow (the code keeps none)
    for j, pol in enumerate(pols):
        sh_spec = inst.shadows.get(pol.name) if want_monitors else None
        if sh_spec is not None:
            shadow = sh_spec.make()
            shadow.start(context([shadow_stream(seed, int(r), j) for r in run_ids]))
            shadows[pol.name] = shadow
            fills[pol.name] = shadow_fills(shadow, pol)
    refs = [_reference_posterior(pol, scenario, m, T) if want_monitors else None for pol in pols]

    sampler = make_sampler(scenario.truth)
    R = scenario.noise  # the models' noise level (innovations are standardised with it)
    rows = np.arange(m)
    # a study that stops runs early leaves their later steps empty: no data there, never uninitialised memory
    empty = np.full if stop_at is not None else (lambda shape, fill, dtype=None: np.empty(shape, dtype))
    noise = empty((m, T, K), np.nan)
    f_opt = empty((m, T), np.nan) if want_regret else np.full((m, T), np.nan)
    f_range = empty((m, T), np.nan) if want_regret else np.full((m, T), np.nan)
    f_abs_max = np.zeros(m) if want_regret else np.full(m, np.nan)
    out = {p.name: AlgorithmTrajectory(p.name, p.label, empty((m, T, K), -1, np.int64),
                                       empty((m, T), np.nan) if want_regret else np.full((m, T), np.nan),
                                       empty((m, T, K), np.nan)) for p in pols}
    # the rows of the batch still simulated: every run (a slice) until finished runs are retired
    live: slice | np.ndarray = slice(None)
    live_ids = run_ids
    stopped_at = np.zeros(m, dtype=np.int64) if stop_at is not None else None
    # whether finished runs can leave the batch: every policy says so when asked to keep every run (a no-op)
    retire = (stop_at is not None and arithmetic() != "reference" and not shadows
              and all(r is None for r in refs) and hasattr(sampler, "keep")
              and all([bool(p.keep_runs(np.ones(m, dtype=bool))) for p in pols]))

    def store(d: dict[str, np.ndarray], key: str, t: int, value: np.ndarray) -> None:
        value = np.asarray(value)
        if key not in d:
            d[key] = np.zeros((m, T) + value.shape[1:], dtype=value.dtype)
        d[key][live, t - 1] = value

    observers = tuple(inst.observers) if want_monitors else ()  # a family's truth-side monitors of a round (K ≥ 1)
    padded = bool(actions.padded)  # super arms of different sizes: −1 entries are no arm
    noise_draws = NoiseDraws(scenario.noise_law, R, noise_rngs, K)  # per-step values, drawn in blocks of steps
    first_run = int(run_ids[0]) if m else 0
    # a study that reads f_t only where it is observed (no regret, no monitor, a fixed domain) draws the truth
    # there only (ChainSampler.start_lazy: the same chain and normals, O(r) per run and step instead of O(n r))
    lazy = (not want_regret and not want_monitors and not observers and not shadows and actions.fixed_arms
            and hasattr(sampler, "start_lazy") and all(r is None for r in refs))
    for t in range(1, T + 1):
        mm = live_ids.size
        # X_t first: it may carry the round's base arms (contexts); its stream is independent of f and noise,
        # so the order changes no number
        avail = actions.available(t, avail_rngs)
        if lazy:
            truth = sampler.start_lazy(f_rngs, first_run) if t == 1 else sampler.step_lazy(f_rngs)
            draw = f_t = None
        else:
            draw = sampler.start(f_rngs, first_run) if t == 1 else sampler.step(f_rngs)
            f_t = actions.realise(draw, avail)  # (m, n)
        eps_t = noise_draws.next()  # (m, K): one draw per base arm
        cache: dict = {"draw": draw}  # what the round monitor shares between policies (the truth's draw, a*_t)
        noise[live, t - 1] = eps_t
        if want_regret:
            best = actions.best_value(f_t, avail)
            f_opt[live, t - 1] = best
            # max − min of f_t over X_t's actions (the oracle on −f_t: −min): the most regret any algorithm could
            # incur at t, for the vacuity rule of the claim table; reads f_t only, so no stream moves
            f_range[live, t - 1] = best + actions.best_value(-f_t, avail)
            if isinstance(live, slice):
                np.maximum(f_abs_max, np.abs(f_t).max(axis=1), out=f_abs_max)
            else:
                f_abs_max[live] = np.maximum(f_abs_max[live], np.abs(f_t).max(axis=1))
        for pol, ref in zip(pols, refs, strict=True):
            tr = out[pol.name]
            if ref is not None:  # the engine's own posterior of p* given this policy's data
                post, tp = ref, 0
            elif not pol.monitored or not want_monitors:  # a policy that asks not to be monitored (experiments)
                post, tp = None, None
            else:
                post, tp = pol.posterior, pol.truth_prior
            monitored = post is not None and tp is not None
            if monitored:
                mu_ref = post.mean()[:, tp]
                sd_ref = np.sqrt(np.maximum(post.group_var()[:, post.group_of[tp]], 1e-300))
                store(tr.monitors, "z_all", t, (np.abs(f_t - mu_ref) / sd_ref).max(axis=1))
            action = _as_action(_guard(pol, "select()", t, live_ids, pol.select, t, avail), mm, K, pol.name, t,
                                actions.available_mask(avail, mm), live_ids, padded)
            y_t = (truth.at(action) if lazy else f_t[rows[:, None], action]) + eps_t
            if want_monitors:
                for k, v in pol.truth_monitors(t, f_t, action).items():
                    store(tr.monitors, k, t, v)
            shadow = shadows.get(pol.name)
            if shadow is not None:  # what the theorem's algorithm would do with the same history, before updating
                for k, v in shadow.conformance(t, avail, action).items():
                    store(tr.monitors, k, t, v)
                shadow.adopt(t, action)  # its records (and the state its update reads) at the policy's action
            if monitored and K == 1:
                x_t = action[:, 0]
                store(tr.monitors, "z_chosen", t, np.abs(f_t[rows, x_t] - mu_ref[rows, x_t]) / sd_ref[rows, x_t])
                store(tr.monitors, "innov", t,
                      (y_t[:, 0] - mu_ref[rows, x_t]) / np.sqrt(sd_ref[rows, x_t] ** 2 + R**2))
            elif monitored:
                for k, v in super_arm_innovations(post, tp, mu_ref, action, y_t, R**2).items():
                    store(tr.monitors, k, t, v)
            if observers and pol.monitored:
                models = pol.models()
                for obs in observers:
                    if obs.needs in models:
                        for k, v in obs.observe(t, models, f_t, avail, action, y_t, actions, cache).items():
                            store(tr.monitors, k, t, v)
            _guard(pol, "update()", t, live_ids, pol.update, t, action, y_t)
            if shadow is not None:  # the shadow is told the policy's action and observation, never f
                shadow.update(t, action, y_t)
                for k in fills[pol.name] & shadow.record.keys():
                    store(tr.steps, k, t, shadow.record[k])
            if ref is not None:
                _condition_padded(ref, action, y_t)
                ref.propagate()
            tr.actions[live, t - 1], tr.obs[live, t - 1] = action, y_t
            if want_regret:
                tr.regret[live, t - 1] = best - actions.value(f_t, action)
            if pol.record and _is_user_code(pol):
                _check_records(pol, t, live_ids)
            for k, v in pol.record.items():
                store(tr.steps, k, t, v)
        if progress is not None:
            progress(t)
        if stop_at is not None:
            rows_now = np.arange(m)[live]
            fired = _stop_flags(pols[0], stop_at, t, live_ids) & (stopped_at[rows_now] == 0)
            stopped_at[rows_now[fired]] = t
            if (stopped_at > 0).all():
                break
            done = stopped_at[rows_now] > 0
            # the finished runs leave the batch, so that every later step costs only the rest; in bulk (a quarter
            # of the batch at a time), since retiring copies the batch's state. Until then a finished run is
            # stepped on and its later steps are blanked at the end
            if retire and 4 * int(done.sum()) >= rows_now.size:
                keep = ~done
                live = rows_now[keep]
                live_ids, rows = run_ids[live], np.arange(live.size)
                kept = np.flatnonzero(keep)
                f_rngs, noise_rngs = [f_rngs[i] for i in kept], [noise_rngs[i] for i in kept]
                avail_rngs = [avail_rngs[i] for i in kept]
                sampler.keep(keep, f_rngs)
                noise_draws.keep(keep, noise_rngs)
                for pol in pols:
                    pol.keep_runs(keep)
    if stop_at is not None:
        _blank_after_stop(stopped_at, noise, f_opt, f_range, out)
    for pol in pols:
        if isinstance(live, slice):
            out[pol.name].final = _guard(pol, "finish()", T, run_ids, pol.finish)
            shadow = shadows.get(pol.name)
            if shadow is not None and fills[pol.name]:  # final records the policy keeps none of (μ_T, σ²_T, …)
                out[pol.name].final = {**out[pol.name].final,
                                       **{k: v for k, v in shadow.finish().items() if k in fills[pol.name]}}
        else:  # the retired runs' final records are not kept (a stopped study reads none)
            out[pol.name].final = {}
    return Trajectories(run_ids, T, noise, f_opt, f_abs_max, out, truth=dict(sampler.info), f_range=f_range,
                        stopped_at=stopped_at)


def _stop_flags(pol: Policy, name: str, t: int, run_ids: np.ndarray) -> np.ndarray:
    """The boolean record ``name`` of the policy at step t: the event a study stops its runs at."""
    if name not in pol.record:
        raise BoundcheckError(f"policy {pol.name!r} records no {name!r} at step {t} ({_runs_text(run_ids)}): the "
                              f"study stops its runs at that record (needs.stop_at)")
    return np.asarray(pol.record[name], dtype=bool).reshape(run_ids.size)


def _blank_after_stop(stopped_at: np.ndarray, noise: np.ndarray, f_opt: np.ndarray, f_range: np.ndarray,
                      out: dict[str, AlgorithmTrajectory]) -> None:
    """Steps after each run's stop hold no data (the batch was stepped on for its other runs)."""
    T = noise.shape[1]
    after = (np.arange(1, T + 1)[None] > stopped_at[:, None]) & (stopped_at[:, None] > 0)
    noise[after], f_opt[after], f_range[after] = np.nan, np.nan, np.nan
    for tr in out.values():
        tr.actions[after], tr.obs[after], tr.regret[after] = -1, np.nan, np.nan
        for d in (tr.steps, tr.monitors):
            for v in d.values():
                v[after] = 0
