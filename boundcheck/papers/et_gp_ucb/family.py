"""Time-varying GP bandits (seed 001; Sec. 6 and App. C–E): the families of ``et_gp_ucb`` (Theorem 1),
``et_r_gp_ucb`` (Theorem 2), ``tv_gp_ucb`` (Bogunovic et al.'s TV-GP-UCB) and ``et_trigger`` (Lemma 3).

What the algorithm did is checked against quantities recomputed independently from its data
(:mod:`.evaluator`), never against a formula standing in for it. E[τ] (Lemma 4, no closed form) comes from a
pilot Monte Carlo of the theorem's algorithm on independent seeds (:func:`pilot_first_stop`); at ε = 0, τ̄ = T is
certified by Lemma 3's corollary and no pilot runs. Vacuity: on the event max|f_t| ≤ L of :func:`f_abs_bound`
no regret exceeds 2L·T, so a form of the bound at least that large is a sanity identity outside the verdict (so
are Lemma 4's τ ≤ τ̄₄ and the block lengths when τ̄₄ = T). Applicability: form (C) needs the Theorem-1 β_t to
cover β_C(t) = 2 log(Mπ²t²/(2δ)) at every t ≤ T (:func:`finite_form_uncovered`, ledger E_C_beta); where it does
not, the form is "not applicable", outside the verdict. docs/papers/et_gp_ucb.md has the derivations."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

import theory
from boundcheck.claims.families.base import (
    Family,
    TheoremInstance,
    check_bound,
    check_schedule,
    gamma_curves,
    real_or_complex,
)
from boundcheck.claims.stats import exceeds
from boundcheck.claims.table import ClaimSpec, bound_anytime, bound_at_horizon
from boundcheck.errors import BoundcheckError
from boundcheck.model.noise import NoiseDraws
from boundcheck.model.priors import GPPrior
from boundcheck.model.sampling import make_sampler, run_streams
from boundcheck.papers.et_gp_ucb.et_gp_ucb import ETGPUCB
from boundcheck.papers.et_gp_ucb.evaluator import TVEvaluator, block_quantities, data_segments, f_abs_bound
from boundcheck.papers.et_gp_ucb.world import TVScenario
from boundcheck.policies.base import RunContext
from boundcheck.world.scenario import Scenario
from theory import Theorem
from theory import et_gp_ucb as paper001

__all__ = ["block_quantities", "data_segments", "f_abs_bound", "finite_form_uncovered", "pilot_first_stop",
           "policy_widths", "trigger_rho_schedule", "run_instance", "base_values", "ETFamily", "RFamily", "TVFamily",
           "TriggerFamily", "FAMILIES", "PILOT_SEED", "PILOT_RUNS"]

STEP_COLUMNS = ("t_prime", "n_data", "mu", "sigma", "ucb", "width", "psi", "kappa", "rho", "reset", "innov_block",
                "eps_told", "period")
PILOT_SEED = 20_220_823  # the pilot's own seed: independent of every study's runs
PILOT_RUNS = 64
_NAMES = ("et_gp_ucb", "r_gp_ucb_tv", "tv_gp_ucb", "gp_ucb")  # the policies whose widths the study sets


def growth(regret: np.ndarray) -> np.ndarray:
    """R_T/T − R_{⌈T/2⌉}/⌈T/2⌉ per run: positive when the normalised regret grows over the second half (the paper's
    "slowly diverge", Fig. 2 d)."""
    T = regret.shape[1]
    h = (T + 1) // 2
    cum = np.cumsum(regret, axis=1)
    return cum[:, -1] / T - cum[:, h - 1] / h


def require_tv(scenario: Scenario, theorem_id: str) -> TVScenario:
    """The scenario as paper 001's ε chain on a grid, else one line saying how to write one: a scenario file of the
    ``et_gp_ucb.eps_chain`` family (a stationary file's prior ``eps`` drifts, but on no grid the theorem's
    constants are derived for, so it is not read as a chain)."""
    if not isinstance(scenario, TVScenario):
        source = f" (from {scenario.source})" if getattr(scenario, "source", None) else ""
        drift = any(float(getattr(p, "eps", 0.0)) > 0 for p in getattr(scenario, "candidates", ()))
        raise BoundcheckError(
            f"{theorem_id} needs a time-varying scenario of paper 001, an ε chain on a grid of [0,1]^d: a scenario "
            f"file with family = \"et_gp_ucb.eps_chain\" ([grid] points_per_axis, dim; [model] kernel, lengthscale, "
            f"eps, noise_var: docs/scenarios.md) or a built-in one such as tv_grid2d_eps003; {scenario.name!r}{source} "
            f"is a stationary scenario" + (", whose priors' eps is not read as such a chain" if drift else ""))
    return scenario


# ---------------------------------------------------------------------------------------------- the pilot
def pilot_first_stop(scenario: TVScenario, width: np.ndarray, rho: np.ndarray, runs: int = PILOT_RUNS,
                     seed: int = PILOT_SEED, chunk: int = 16) -> np.ndarray:
    """First stopping times τ (censored at T: τ := T without a trigger) of the reference ET-GP-UCB with the
    study's width and trigger schedule, on ``runs`` runs seeded independently of every study (``seed``).
    Each batch stops as soon as all its runs have triggered."""
    sc, T = scenario, int(scenario.horizon)
    taus = []
    for lo in range(0, runs, chunk):
        ids = list(range(lo, min(runs, lo + chunk)))
        m = len(ids)
        streams = [run_streams(seed, r, 1) for r in ids]
        pol = ETGPUCB()
        pol.start(RunContext(runs=m, horizon=T, candidates=sc.candidates, truth=sc.truth, noise_sd=sc.noise,
                             noise_var=sc.model_noise_var, beta=width, xi=np.zeros(T + 1), actions=sc.actions,
                             rngs=[s.algorithms[0] for s in streams], truth_index=sc.truth_index,
                             reference_index=sc.reference_index, schedules={"rho": rho}, delta=sc.delta,
                             run_ids=tuple(ids)))
        sampler = make_sampler(sc.truth)
        f_rngs, noise_rngs = [s.f for s in streams], [s.noise for s in streams]
        avail_rngs = [s.availability for s in streams]
        noise_draws = NoiseDraws(sc.noise_law, sc.noise, noise_rngs, 1)
        tau, alive, rows = np.full(m, T), np.ones(m, dtype=bool), np.arange(m)
        for t in range(1, T + 1):
            f_t = sampler.start(f_rngs, lo) if t == 1 else sampler.step(f_rngs)
            eps_t = noise_draws.next()[:, 0]  # the engine's draw
            action = pol.select(t, sc.actions.available(t, avail_rngs))
            pol.update(t, action, (f_t[rows, action[:, 0]] + eps_t)[:, None])
            hit = pol.record["reset"] & alive
            tau[hit], alive = t, alive & ~hit
            if not alive.any():
                break
        taus.append(tau)
    return np.concatenate(taus)


_GAMMA_CACHE: dict[tuple, tuple] = {}


def cached_gamma_curves(groups: dict[str, tuple[np.ndarray, float]], T: int, noise_var: float) -> tuple:
    """:func:`gamma_curves`, remembered per (kernel groups, T, λ) in this process: the panels of an experiment
    (Table 2's fifteen) share one kernel and horizon."""
    key = (tuple(sorted((k, float(e)) for k, (_, e) in groups.items())), int(T), float(noise_var))
    if key not in _GAMMA_CACHE:
        _GAMMA_CACHE[key] = gamma_curves(groups, T, noise_var)
    return _GAMMA_CACHE[key]


# ------------------------------------------------------------------------------------- study schedules
def base_values(sc: TVScenario, T: int, delta: float) -> dict[str, float]:
    """The theorems' symbols that a scenario fixes."""
    return {"T": float(T), "delta": float(delta), "R": math.sqrt(sc.model_noise_var), "d": float(sc.dim),
            "r": float(sc.side), "a0": sc.a0, "b0": sc.b0, "a1": sc.a1, "b1": sc.b1, "eps": sc.eps,
            "n_X": float(sc.domain.n)}


def policy_widths(sc: TVScenario, T: int, values: dict) -> dict[str, np.ndarray]:
    """(T+1,) widths √β_t of the four algorithms: each its theorem's (``beta_rule = "theory"``: ET-GP-UCB
    Theorem 1, R-GP-UCB Theorem 2, TV-GP-UCB and GP-UCB the finite-domain β), or the practical
    √(c₁ log(c₂ t)) for all (``"practical"``, the paper's experiments)."""
    t = np.arange(T + 1, dtype=float)
    t[0] = 1.0
    if sc.beta_rule == "practical":
        w = sc.width(t)
        return {name: w.copy() for name in _NAMES}

    def of(tid: str) -> np.ndarray:
        th = theory.get(tid)
        v = {k: values.get(k, 0.0) for k in th.symbols}
        return np.broadcast_to(np.asarray(th.schedule_values("width_t", t, v), dtype=float), t.shape).copy()

    return {"et_gp_ucb": of("et_gp_ucb"), "r_gp_ucb_tv": of("et_r_gp_ucb"), "tv_gp_ucb": of("tv_gp_ucb"),
            "gp_ucb": of("gp_ucb")}


def trigger_rho_schedule(T: int, delta_B: float, source: Theorem | None = None) -> np.ndarray:
    """(T+1,) ρ_{t'} for t' = 0..T (index 0 unused): the schedule ``rho_t`` of ``source`` (the theorem checked,
    where it states the trigger: Lemma 3, or a theorem of your own checked like it), else of Lemma 3
    (``et_trigger``), where the theorem checked takes the trigger as given."""
    tp = np.arange(T + 1, dtype=float)
    tp[0] = 1.0
    trig = theory.get("et_trigger") if source is None else source
    rho = trig.schedule_values("rho_t", tp, {"delta": float(delta_B), "T": float(T), "R": 1.0})
    return np.broadcast_to(real_or_complex(rho), tp.shape).copy()


def finite_form_uncovered(th: Theorem, values: dict, T: int) -> np.ndarray:
    """The steps t ≤ T at which Theorem 1's β_t (the algorithm's) is below the finite-domain β_C(t) =
    2 log(Mπ²t²/(2δ)) (schedules ``beta_t`` and ``beta_finite_t`` of the theory module): form (C) of the bound
    is sound only if there are none, since its UCB step at t needs β_t ≥ β_C(t) at that t (ledger E_C_beta).

    Returns (k, 3) rows (t, β_t, β_C(t)); an empty array when β_t covers β_C(t) at every t ≤ T."""
    t = np.arange(1, T + 1, dtype=float)
    v = {k: float(values.get(k, 0.0)) for k in th.symbols}
    beta = np.broadcast_to(np.asarray(th.schedule_values("beta_t", t, v), dtype=float), t.shape)
    beta_c = np.broadcast_to(np.asarray(th.schedule_values("beta_finite_t", t, v), dtype=float), t.shape)
    bad = exceeds(beta_c, beta)  # beyond round-off only: equality at some t is still covered
    return np.column_stack([t[bad], beta[bad], beta_c[bad]])


def run_instance(sc: TVScenario, horizon: int | None = None) -> TheoremInstance:
    """What a simulation of the scenario's algorithms needs and nothing more (no γ, no pilot, no bound): the
    widths, ρ, N and the told ε. For the paper's experiments, where no theorem is checked."""
    T = int(sc.horizon if horizon is None else horizon)
    widths = policy_widths(sc, T, base_values(sc, T, sc.delta))
    sched = {"rho": trigger_rho_schedule(T, sc.delta_B), "reset_period": np.full(T + 1, float(sc.period)),
             "tv_eps": np.full(T + 1, sc.eps_told), **widths}
    nan_T = np.full(T, np.nan)
    return TheoremInstance(horizon=T, delta=float(sc.delta), values={}, beta=widths["et_gp_ucb"],
                           xi=np.zeros(T + 1), B=float("nan"), C=float("nan"), bound_T=float("nan"), bound_terms={},
                           anytime=nan_T, gamma_upper=nan_T, gamma_lower=nan_T, gamma_methods={}, schedules=sched)


# ------------------------------------------------------------------------------------------------ families
class TVFamilyBase(Family):
    """Shared instantiation: widths of every policy (theory or practical), the trigger's ρ, R-GP-UCB's N, the
    ε TV-GP-UCB is told, the certified γ curves, and the per-N / per-t arrays the claims read."""

    evaluator_class = TVEvaluator
    step_columns = STEP_COLUMNS
    truth_types = (GPPrior,)
    gamma_time_varying = False  # TV-GP-UCB's γ̃ uses the spatio-temporal kernel
    pilot_runs = PILOT_RUNS

    def check_scenario(self, scenario: Scenario) -> None:
        """One line unless the scenario is a time-varying scenario of paper 001 (its fields drive the study)."""
        super().check_scenario(scenario)
        require_tv(scenario, self.theorem.id)

    def bound_values(self, scenario: Scenario, horizon: int, delta: float) -> dict[str, float]:
        """The symbols the scenario fixes (the rest, E[τ] and the certified γ, come in :meth:`instantiate`)."""
        sc = require_tv(scenario, self.theorem.id)
        return {k: v for k, v in base_values(sc, int(horizon), delta).items() if k in self.theorem.symbols}

    # ------------------------------------------------------------------ numbers
    def base_values(self, sc: TVScenario, T: int, delta: float) -> dict[str, float]:
        return base_values(sc, T, delta)

    @property
    def schedules_read(self) -> tuple[str, ...]:
        """The width of the theorem's algorithm (``width_t``), read from the theorem held (the other algorithms
        run with the widths their theorems state); subclasses add what their claims read."""
        return ("width_t",)

    def widths(self, sc: TVScenario, T: int, values: dict) -> dict[str, np.ndarray]:
        """Every policy's width (:func:`policy_widths`), the theorem's algorithm's from the theorem held: a theorem
        of your own checked like this one runs its own ``width_t`` (under ``beta_rule = "theory"``; the practical
        rule is the paper's experiments, outside every theorem)."""
        out = policy_widths(sc, T, values)
        th = self.theorem
        if "width_t" in self.schedules_read and sc.beta_rule != "practical":
            t = np.arange(T + 1, dtype=float)
            t[0] = 1.0
            w = th.schedule_values("width_t", t, {k: values.get(k, 0.0) for k in th.symbols})
            out[th.algorithm] = np.broadcast_to(real_or_complex(w), t.shape).copy()
        return out

    def rho_source(self) -> Theorem | None:
        """The theorem whose ``rho_t`` the trigger uses: the theorem held where it reads one (Lemma 3), else None
        (Lemma 3's, :func:`trigger_rho_schedule`)."""
        return self.theorem if "rho_t" in self.schedules_read else None

    def rho_delta_B(self, sc: TVScenario, delta: float) -> float:
        return sc.delta_B

    def gamma_groups(self, scenario: Scenario) -> dict[str, tuple[np.ndarray, float]]:
        model = scenario.candidates[0]
        return {model.kernel_key: (model.K, float(scenario.truth.eps) if self.gamma_time_varying else 0.0)}

    def gamma_noise_var(self, scenario: Scenario) -> float:
        return scenario.model_noise_var

    def theorem_values(self, sc: TVScenario, T: int, delta: float, values: dict, g_up: np.ndarray,
                       g_lo: np.ndarray, widths: dict, rho: np.ndarray, extra: dict) -> None:  # pragma: no cover
        raise NotImplementedError

    def instantiate(self, scenario: Scenario, horizon: int, delta: float, beta_scale: float = 1.0) -> TheoremInstance:
        th, T = self.theorem, int(horizon)
        sc = require_tv(scenario, th.id)
        values = self.base_values(sc, T, delta)
        g_up, g_lo, g_methods, per_group = cached_gamma_curves(self.gamma_groups(sc), T, self.gamma_noise_var(sc))
        widths = self.widths(sc, T, values)
        tp = np.arange(T + 1, dtype=float)
        tp[0] = 1.0
        rho = trigger_rho_schedule(T, self.rho_delta_B(sc, delta), self.rho_source())
        # before the pilot runs the algorithm with them (check_instance checks every schedule again below)
        check_schedule(self.theorem_name, widths.get(th.algorithm, widths["et_gp_ucb"]) * beta_scale, delta=delta,
                       beta_scale=beta_scale)
        check_schedule(self.theorem_name, rho, delta=delta, label="the trigger's threshold ρ_t")
        extra: dict[str, float] = {"C1": float(8.0 / math.log1p(1.0 / sc.model_noise_var)),
                                   "C2": float((1.0 / sc.model_noise_var) / math.log1p(1.0 / sc.model_noise_var)),
                                   "beta_scale": float(beta_scale)}
        self.theorem_values(sc, T, delta, values, g_up, g_lo, widths, rho, extra)
        values = {k: v for k, v in values.items() if k in th.symbols}
        with np.errstate(all="ignore"):  # a bound that is not finite is refused below, in one line
            bound = th.evaluate(values)
            at = (None if th.anytime_terms is None
                  else th.evaluate_anytime(values, np.arange(1, T + 1, dtype=float), g_up))
        anytime = np.full(T, np.nan) if at is None else at["value"]
        # per-N and per-t arrays of the claims, from the theorem's own expressions
        Ns = np.arange(T + 1, dtype=float)
        Ns[0] = 1.0
        sched: dict[str, np.ndarray] = {"rho": rho, "reset_period": np.full(T + 1, float(sc.period)),
                                        "tv_eps": np.full(T + 1, sc.eps_told)}
        # Lemma 8's and Lemmas 5–7's expressions: the theorem's own (Theorems 1 and 2: a planted variant of the
        # theorem changes them), else Theorem 1's (they depend only on the scenario's symbols)
        ref = th if "lemma8_sigma_N" in self.schedules_read else theory.get("et_gp_ucb")
        known = {**self.base_values(sc, T, delta), **values}
        vref = {k: float(known.get(k, 0.0)) for k in ref.symbols}
        for name in ("lemma8_sigma_N", "lemma8_mu_coef_N"):
            arr = np.broadcast_to(real_or_complex(ref.schedule_values(name, Ns, vref)), Ns.shape).copy()
            arr[0] = 0.0  # an empty data set: both posteriors are the prior
            sched[name] = arr
        for name, key in (("beta_lemma5_t", "beta_lemma5"), ("beta_lemma7_t", "beta_lemma7"), ("ybar_t", "ybar")):
            if name in ref.schedules:
                sched[key] = np.broadcast_to(real_or_complex(ref.schedule_values(name, tp, vref)), tp.shape).copy()
        sched["width_theory"] = widths[th.algorithm] if th.algorithm in widths else widths["et_gp_ucb"]
        beta = widths.pop(th.algorithm, widths.get("et_gp_ucb")) * beta_scale
        sched.update(widths)
        self.check_instance(bound["terms"], None if at is None else at["terms"], T, beta, delta, beta_scale, sched)
        anytime = np.asarray(anytime, dtype=float)
        values["gamma_T"] = float(g_up[-1])
        return TheoremInstance(
            horizon=T, delta=float(delta), values=values, beta=beta, xi=np.zeros(T + 1), B=float("nan"),
            C=float(extra["C1"]), bound_T=float(bound["value"]),
            bound_terms={k: float(v) for k, v in bound["terms"].items()}, anytime=anytime, gamma_upper=g_up,
            gamma_lower=g_lo, gamma_methods=g_methods, group_gamma_upper=per_group, schedules=sched,
            gamma_used=g_up, extra=extra)

    def stop_instance(self, scenario: Scenario, horizon: int, delta: float, beta_scale: float = 1.0) -> TheoremInstance:
        """What a study that checks no claim (:class:`~boundcheck.study.needs.StoppedFamily`: Table 3's first
        trigger times) runs the algorithms with: the widths and ρ of :meth:`instantiate`, without its γ curves,
        pilot and bound (:func:`run_instance`)."""
        sc = require_tv(scenario, self.theorem.id)
        T = int(horizon)
        inst = run_instance(sc, T)
        algo = self.theorem.algorithm if self.theorem.algorithm in inst.schedules else "et_gp_ucb"
        sched = {k: v for k, v in inst.schedules.items() if k != algo}
        sched["rho"] = trigger_rho_schedule(T, self.rho_delta_B(sc, delta))
        return replace(inst, delta=float(delta), beta=inst.schedules[algo] * beta_scale, schedules=sched)

    # ------------------------------------------------------------------ vacuity
    def max_step_regret(self, scenario: Scenario, inst: TheoremInstance) -> tuple[float, str] | None:
        L = f_abs_bound(scenario, inst.horizon, inst.delta)
        return 2.0 * L, (f"while max_(t,x)|f_t(x)| ≤ L = {L:.4g} (a union bound over the grid and the horizon: "
                         "probability ≥ 1 − δ/3)")

    def vacuous_claims(self, scenario: Scenario, inst: TheoremInstance) -> dict[str, str]:
        """The base's, and the other explicit forms of the bound (finite-domain, printed) above r_max·T."""
        out = super().vacuous_claims(scenario, inst)
        rm = self.max_step_regret(scenario, inst)
        if rm is None:
            return out
        r_max, why = rm
        trivial = r_max * inst.horizon
        ids = {c.id for c in self.claims}
        for cid, key in (("regret_bound_finite", "bound_C"), ("regret_bound_printed", "bound_printed")):
            value = inst.extra.get(key)
            if cid in ids and value is not None and value >= trivial:
                out[cid] = (f"vacuous at these settings: {value:.4g} ≥ {trivial:.4g} = r_max·T, the largest regret "
                            f"any algorithm can incur {why}")
        tau4 = inst.extra.get("tau_bar4")
        if tau4 is not None and tau4 >= inst.horizon:  # τ := T without a trigger: nothing can exceed τ̄₄ = T
            for cid in ("stopping_time", "blocks_short"):
                if cid in ids:
                    out[cid] = (f"vacuous at these settings: τ̄₄ = min{{T, 4Ê[τ]/δ}} = T = {inst.horizon} (Ê[τ] = "
                                f"{inst.extra.get('tau_mean', float('nan')):.4g}), and no stopping time or block can "
                                "be longer than T")
        return out

    # ------------------------------------------------------------------ evaluation
    def evaluate(self, traj, scenario, inst, seed, main=None, **kw):
        runs, steps = super().evaluate(traj, scenario, inst, seed, main, **kw)
        if getattr(scenario, "steps_detail", "full") == "resets" and "reset" in steps:
            # a 30 000-run study keeps only its reset steps (the stopping times), not 6 million rows
            steps = steps[steps["reset"].fillna(False).astype(bool)][["run", "algorithm", "t", "cum_regret", "reset"]]
            steps = steps.reset_index(drop=True)
        return runs, steps

    def baseline_columns(self, ev: TVEvaluator, name: str) -> dict[str, np.ndarray]:
        tr = ev.traj.algorithms[name]
        d = super().baseline_columns(ev, name)
        d["norm_regret_growth"] = growth(tr.regret)
        if "reset" in tr.steps:
            d["n_resets"] = np.asarray(tr.steps["reset"], dtype=bool).sum(axis=1)
        if "z_all" in tr.monitors:  # the confidence event of the policy's own posterior, with its width
            w = ev.inst.schedules.get(name, ev.inst.beta)[1:]
            d["fail_confidence_event"] = (tr.monitors["z_all"] > w[None]).any(axis=1)
        return d

    def common_diagnostics(self, ev: TVEvaluator) -> dict[str, np.ndarray]:
        R_T = ev.R_t[:, -1]
        out = {"regret": R_T, "tightness": R_T / ev.inst.bound_T, "norm_regret_growth": growth(ev.tr.regret)}
        if "f_absmax" in ev.tr.monitors:
            trivial = 2.0 * np.asarray(ev.tr.monitors["f_absmax"]).sum(axis=1)
            out["trivial_bound"] = trivial
            out["bound_over_trivial"] = np.full(ev.m, ev.inst.bound_T) / trivial
        out["n_resets"] = ev.reset.sum(axis=1)
        out["tau_first"], out["censored"] = ev.tau
        out["n_blocks"] = np.array([nb.size for nb in ev.blocks])
        out["max_block"] = np.array([nb.max() for nb in ev.blocks])
        return out


def _realised(ev: TVEvaluator) -> np.ndarray:
    """Form (B)'s per-run right-hand side as (m, 1): the vacuity rule's ``bound`` (:mod:`boundcheck.claims.table`)."""
    return np.asarray(ev.rhs_realised, dtype=np.float64).reshape(-1, 1)


class ETFamily(TVFamilyBase):
    """Theorem 1 (``et_gp_ucb``): forms (A), (B), (C) and the lemma-level claims of its proof."""

    #: Lemma 8's and Lemmas 5–7's expressions (the claims' thresholds), read from the theorem held
    LEMMA_SCHEDULES = ("lemma8_sigma_N", "lemma8_mu_coef_N", "beta_lemma5_t", "beta_lemma7_t", "ybar_t")

    @property
    def schedules_read(self) -> tuple[str, ...]:
        """The width, the lemmas' thresholds, β_t and β_C(t) (whether form (C) applies) and form (C) itself."""
        return ("width_t", *self.LEMMA_SCHEDULES, "beta_t", "beta_finite_t", "bound_C")

    def claim_table(self) -> list[ClaimSpec]:
        c, E = self.theorem.claim, TVEvaluator
        nd = frozenset({"n_data"})
        return [
            ClaimSpec(c("regret_bound"), E.regret_bound, bound=bound_at_horizon),
            ClaimSpec(c("regret_bound_realised"), E.regret_bound_realised, nd | {"sigma"}, bound=_realised),
            ClaimSpec(c("regret_bound_finite"), E.regret_bound_finite, bound=lambda ev: ev.inst.extra["bound_C"]),
            ClaimSpec(c("confidence_at_query"), E.confidence_at_query, nd),
            ClaimSpec(c("confidence_at_optimum"), E.confidence_at_optimum, nd | {"x_star"}),
            ClaimSpec(c("bounded_observations"), E.bounded_observations),
            ClaimSpec(c("stopping_time"), E.stopping_time, frozenset({"reset"})),
            ClaimSpec(c("blocks_short"), E.blocks_short, nd),
            ClaimSpec(c("lemma8_mismatch"), E.lemma8_mismatch, nd | {"x_star"}),
            ClaimSpec(c("regret_decomposition"), E.regret_decomposition, nd | {"x_star"}),
            ClaimSpec(c("information_steps"), E.information_steps, nd | {"sigma", "mu"}),
            ClaimSpec(c("information_steps_identity"), E.information_steps_identity, frozenset({"sigma"})),
            ClaimSpec(c("algorithm_bookkeeping"), E.algorithm_bookkeeping,
                      nd | {"t_prime", "mu", "sigma", "psi", "kappa", "reset"}),
        ]

    def theorem_values(self, sc, T, delta, values, g_up, g_lo, widths, rho, extra) -> None:
        if sc.eps == 0.0:  # E[τ] ≥ T(1 − Σ2Φ̄(√ρ)) ≥ δT (Lemma 3's corollary): τ̄ = T, no pilot needed
            tau_mean, tau_se, pilot = float(T), 0.0, 0
        elif sc.beta_rule == "practical":  # the bound does not apply: no pilot, τ̄ = T (reported as such)
            tau_mean, tau_se, pilot = float(T), float("nan"), 0
        else:
            w = widths["et_gp_ucb"] * extra["beta_scale"]  # the algorithm as the study runs it
            taus = pilot_first_stop(sc, w, rho, runs=self.pilot_runs)
            tau_mean, tau_se, pilot = float(taus.mean()), float(taus.std(ddof=1) / math.sqrt(taus.size)), taus.size
        tau_bar = min(float(T), tau_mean / delta)
        tau_bar_C = min(float(T), 3.0 * tau_mean / delta)
        extra.update(tau_mean=tau_mean, tau_se=tau_se, pilot_runs=float(pilot), tau_bar=tau_bar,
                     tau_bar4=min(float(T), 4.0 * tau_mean / delta), tau_bar_C=tau_bar_C)

        def gam(x: float) -> float:
            return float(g_up[min(T, max(1, math.ceil(x - 1e-9))) - 1])

        values.update(tau_bar=tau_bar, gamma_tau_bar=gam(tau_bar), tau_bar_C=tau_bar_C, gamma_tau_bar_C=gam(tau_bar_C))
        th = self.theorem
        with np.errstate(all="ignore"):
            bound_C = th.schedule_values("bound_C", float(T), {k: values.get(k, 0.0) for k in th.symbols})
        # regret_bound_finite compares the regret with form (C): validated as the explicit bound is
        check_bound(self.theorem_name, {"bound_C": bound_C}, [T], horizon=T, form="form (C) of the bound")
        extra["bound_C"] = float(np.real(bound_C))
        # form (C) needs β_t ≥ β_C(t) at every t ≤ T, not only at T (the Max in BOUND_C): where it fails the form
        # is not applicable (inapplicable_claims); kept as numbers so the instance stays plain floats
        ref = th if "beta_finite_t" in self.schedules_read else theory.get("et_gp_ucb")
        uncovered = finite_form_uncovered(ref, {**values, "T": float(T)}, T)
        extra["beta_C_uncovered_steps"] = float(uncovered.shape[0])
        if uncovered.size:
            extra.update(beta_C_uncovered_first=float(uncovered[0, 0]), beta_C_uncovered_last=float(uncovered[-1, 0]),
                         beta_at_first_uncovered=float(uncovered[0, 1]),
                         beta_C_at_first_uncovered=float(uncovered[0, 2]))
        extra["gamma_tau_lower"] = float(g_lo[min(T, max(1, math.ceil(tau_bar - 1e-9))) - 1])
        # the bound at every τ̄ ∈ 1..T: how vacuous it is even at the most favourable τ̄
        taus_all = np.arange(1, T + 1, dtype=float)
        vals = {k: values.get(k, 0.0) for k in th.symbols}
        vals.update(tau_bar=taus_all, gamma_tau_bar=g_up)
        curve = np.asarray(th.evaluate(vals)["value"], dtype=float)
        extra["bound_min_over_tau"] = float(np.min(curve))
        extra["tau_at_min"] = float(taus_all[int(np.argmin(curve))])

    def inapplicable_claims(self, scenario: Scenario, inst: TheoremInstance) -> dict[str, str]:
        """Form (C) where Theorem 1's β_t does not cover the finite-domain β_C(t) at some t ≤ T (ledger E_C_beta):
        its bound then rests on a confidence event the algorithm's width does not serve."""
        out = super().inapplicable_claims(scenario, inst)
        e = inst.extra
        k = int(e.get("beta_C_uncovered_steps", 0.0))
        if k and "regret_bound_finite" in {c.id for c in self.claims}:
            first, last = int(e["beta_C_uncovered_first"]), int(e["beta_C_uncovered_last"])
            steps = f"t = {first}" if first == last else f"{k} steps in t = {first}–{last}"
            out["regret_bound_finite"] = (
                f"not applicable at these settings: Theorem 1's β_t is below the finite-domain β_C(t) = "
                f"2 log(Mπ²t²/(2δ)) at {steps} (t = {first}: β_t = {e['beta_at_first_uncovered']:.4g} < β_C = "
                f"{e['beta_C_at_first_uncovered']:.4g}); form (C)'s UCB step needs β_t ≥ β_C(t) at every t ≤ T "
                "(corrections ledger E_C_beta)")
        return out

    def main_diagnostics(self, ev: TVEvaluator) -> dict[str, np.ndarray]:
        out = self.common_diagnostics(ev)
        R_T = ev.R_t[:, -1]
        out.update({"tightness_finite": R_T / ev.inst.extra["bound_C"],
                    "tightness_min_tau": R_T / ev.inst.extra["bound_min_over_tau"]})
        g_up, g_lo, T = ev.inst.gamma_upper, ev.inst.gamma_lower, ev.T
        tau_bar = ev.inst.extra["tau_bar"]
        ti = min(T, max(1, math.ceil(tau_bar - 1e-9))) - 1
        sum_up = np.array([g_up[nb - 1].sum() for nb in ev.blocks])
        out["gap_G2_a_priori"] = sum_up > (T / tau_bar + 1) * g_lo[ti]  # G2 (ledger E20): Σ_bγ^UB_{n_b} > (T/τ̄+1)γ^LB_τ̄
        if "sigma" in ev.steps:  # a checked algorithm that records σ_{D_t}(x_t) (a user's may not)
            rhs_b = ev.rhs_realised
            realised = np.array([g.sum() for g in ev.block_gain])
            out.update({"bound_realised": rhs_b, "tightness_realised": R_T / rhs_b, "realised_gain": realised,
                        "chain_rule_rel_err": ev.chain_error})
            out["gap_G2_realised"] = realised > (T / tau_bar + 1) * g_up[ti]  # a counterexample to step (42)–(44)
        sig, coef = ev.lemma8(ev.n_data)
        with np.errstate(divide="ignore", invalid="ignore"):
            out["max_dsig_over_lemma8"] = np.nanmax(np.where(sig > 0, ev.blk["dsig"] / sig, 0.0), axis=1)
            out["max_dmu_over_lemma8"] = np.nanmax(np.where(coef * ev.blk["ymax"] > 0,
                                                            ev.blk["dmu"] / (coef * ev.blk["ymax"]), 0.0), axis=1)
        out["max_abs_y"] = np.abs(ev.tr.y).max(axis=1)
        return out


class RFamily(ETFamily):
    """Theorem 2 (``et_r_gp_ucb``): R-GP-UCB with a fixed reset period N."""

    @property
    def schedules_read(self) -> tuple[str, ...]:
        """The width, the lemmas' thresholds and the bound as printed (a claim of its own)."""
        return ("width_t", *self.LEMMA_SCHEDULES, "bound_printed")

    def claim_table(self) -> list[ClaimSpec]:
        c, E = self.theorem.claim, TVEvaluator
        nd = frozenset({"n_data"})
        return [
            ClaimSpec(c("regret_bound"), E.regret_bound, bound=bound_at_horizon),
            ClaimSpec(c("regret_bound_printed"), E.regret_bound_printed,
                      bound=lambda ev: ev.inst.extra["bound_printed"]),
            ClaimSpec(c("regret_bound_realised"), E.regret_bound_realised, nd | {"sigma"}, bound=_realised),
            ClaimSpec(c("confidence_at_query"), E.confidence_at_query, nd),
            ClaimSpec(c("confidence_at_optimum"), E.confidence_at_optimum, nd | {"x_star"}),
            ClaimSpec(c("bounded_observations"), E.bounded_observations),
            ClaimSpec(c("lemma8_mismatch"), E.lemma8_mismatch, nd | {"x_star"}),
            ClaimSpec(c("regret_decomposition"), E.regret_decomposition, nd | {"x_star"}),
            ClaimSpec(c("information_steps"), E.information_steps, nd | {"sigma", "mu"}),
            ClaimSpec(c("information_steps_identity"), E.information_steps_identity, frozenset({"sigma"})),
            ClaimSpec(c("reset_schedule"), E.reset_schedule, nd | {"reset"}),
        ]

    def theorem_values(self, sc, T, delta, values, g_up, g_lo, widths, rho, extra) -> None:
        N = sc.period
        values.update(N=float(N), gamma_N=float(g_up[N - 1]))
        th = self.theorem
        extra["period_N"] = float(N)
        with np.errstate(all="ignore"):
            printed = th.schedule_values("bound_printed", float(T), {k: values.get(k, 0.0) for k in th.symbols})
        # regret_bound_printed compares the regret with it: validated as the explicit bound is
        check_bound(self.theorem_name, {"bound_printed": printed}, [T], horizon=T, form="the bound as printed")
        extra["bound_printed"] = float(np.real(printed))

    def main_diagnostics(self, ev: TVEvaluator) -> dict[str, np.ndarray]:
        out = self.common_diagnostics(ev)
        R_T = ev.R_t[:, -1]
        out["tightness_printed"] = R_T / ev.inst.extra["bound_printed"]
        if "sigma" in ev.steps:
            rhs_b = ev.rhs_realised
            out.update({"bound_realised": rhs_b, "tightness_realised": R_T / rhs_b,
                        "realised_gain": np.array([g.sum() for g in ev.block_gain]),
                        "chain_rule_rel_err": ev.chain_error})
        return out


class TVFamily(TVFamilyBase):
    """``tv_gp_ucb``: TV-GP-UCB on a finite domain with the certified time-varying γ̃."""

    gamma_time_varying = True

    def claim_table(self) -> list[ClaimSpec]:
        c, E = self.theorem.claim, TVEvaluator
        ucb = frozenset({"z_all", "sigma", "ucb"})
        return [
            ClaimSpec(c("regret_bound"), E.regret_bound, bound=bound_at_horizon),
            ClaimSpec(c("regret_bound_anytime"), E.regret_bound_anytime, bound=bound_anytime),
            ClaimSpec(c("confidence_event"), E.confidence_event, frozenset({"z_all"})),
            ClaimSpec(c("D1_optimism"), E.d1_optimism, ucb),
            ClaimSpec(c("D2_intermediate"), E.d2_intermediate, ucb),
            ClaimSpec(c("D2_cauchy_schwarz"), E.d2_cauchy_schwarz),
            ClaimSpec(c("D3_information"), E.d3_information, frozenset({"sigma"})),
            ClaimSpec(c("K1_calibration"), None, frozenset({"innov"}), sample="innov"),
        ]

    def theorem_values(self, sc, T, delta, values, g_up, g_lo, widths, rho, extra) -> None:
        values["gamma_T"] = float(g_up[-1])

    def main_diagnostics(self, ev: TVEvaluator) -> dict[str, np.ndarray]:
        R_T = ev.R_t[:, -1]
        out = {"regret": R_T, "tightness": R_T / ev.inst.bound_T,
               "max_anytime_ratio": (ev.R_t / ev.inst.anytime[None]).max(axis=1)}
        if "z_all" in ev.tr.monitors:
            out["max_z_over_width"] = (ev.tr.monitors["z_all"] / ev.w[None]).max(axis=1)
        if "sigma" in ev.steps:
            on, direct = ev.gains_tv
            out["realised_gain"] = on[:, -1]
            out["chain_rule_rel_err"] = (np.abs(on - direct) / np.maximum(1.0, np.abs(direct))).max(axis=1)
        return out


class TriggerFamily(TVFamilyBase):
    """``et_trigger`` (Lemma 3): the study's δ is the trigger parameter δ_B."""

    @property
    def schedules_read(self) -> tuple[str, ...]:
        """The trigger's threshold ρ_t, the lemma's subject (ET-GP-UCB's width is Theorem 1's: Lemma 3 takes it
        as given)."""
        return ("rho_t",)

    def claim_table(self) -> list[ClaimSpec]:
        c, E = self.theorem.claim, TVEvaluator
        nd = frozenset({"n_data", "reset"})
        return [
            ClaimSpec(c("false_reset"), E.false_reset, frozenset({"reset"})),
            ClaimSpec(c("false_reset_sharp"), E.false_reset, frozenset({"reset"})),
            ClaimSpec(c("lemma1_part"), E.lemma1_part, nd),
            ClaimSpec(c("lemma2_part"), E.lemma2_part, frozenset({"reset"})),
            ClaimSpec(c("trigger_bookkeeping"), E.algorithm_bookkeeping,
                      nd | {"t_prime", "mu", "sigma", "psi", "kappa"}),
            ClaimSpec(c("K1_calibration"), None, nd, sample="innov_first"),
        ]

    def rho_delta_B(self, sc: TVScenario, delta: float) -> float:
        return float(delta)

    def max_step_regret(self, scenario: Scenario, inst: TheoremInstance) -> None:
        return None  # Lemma 3 has no regret claim

    def theorem_values(self, sc, T, delta, values, g_up, g_lo, widths, rho, extra) -> None:
        extra["false_alarm_level"] = float(paper001.false_alarm_sum_value(delta))

    def derived_steps(self, ev: TVEvaluator) -> dict[str, np.ndarray]:
        """The calibration claim's sample: the first-segment innovations, recomputed from the data."""
        return {"innov_first": ev.innov_first}

    def main_diagnostics(self, ev: TVEvaluator) -> dict[str, np.ndarray]:
        out = {"regret": ev.R_t[:, -1], "any_reset": ev.reset.any(axis=1), "tau_first": ev.tau[0],
               "n_resets": ev.reset.sum(axis=1)}
        if {"mu", "kappa"} <= set(ev.steps):  # the trigger's own numbers (a user's algorithm may not record them)
            comp = ev.compensator
            out.update(compensator=comp, tightness=comp / ev.inst.extra["false_alarm_level"])
        return out


def _family(th: Theorem) -> Family:
    if th.id == "et_gp_ucb_compact":  # Theorem 1 on the continuum: the box family (.compact)
        from boundcheck.papers.et_gp_ucb.compact import ETCompactFamily

        return ETCompactFamily(th)
    return {"et_gp_ucb": ETFamily, "et_r_gp_ucb": RFamily, "tv_gp_ucb": TVFamily, "et_trigger": TriggerFamily}[
        th.id](th)


FAMILIES = tuple(_family(th) for th in paper001.THEOREMS if th.id != "tv_gp_ucb_compact")

# ---- tv_gp_ucb_compact: TV-GP-UCB on a compact box (the continuum engine's family), in its own module
from boundcheck.papers.et_gp_ucb.tv_box_family import TVBoxFamily  # noqa: E402

FAMILIES = (*FAMILIES, TVBoxFamily(paper001.TV_COMPACT_THEOREM))
