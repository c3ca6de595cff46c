"""R-GP-UCB and SW-GP-UCB on a compact box (``r_gp_ucb_compact``, ``sw_gp_ucb_compact``): the drifting RKHS truth
f_t = Σ_j α_{t,j} k(·, c_j) on anchors c_j of the box (the finite catalogue's rotation / switch / walk sequences,
built on the anchors' Gram matrix, so ‖f_t‖_k and ‖f_{t+1} − f_t‖_k are exact), the box scenario that carries it,
the two box policies (restart every H / window of the last w) and the theorems' family on the continuum engine.

What each claim reads (all observed by :mod:`boundcheck.study.continuum`): the regret against the certified
per-step maxima (tolerance added); μ, σ of the policy's own posterior at x_t and at the located x*_t; the queried
points and observations (a dense re-solve on the retained samples, the chain rule of the information gain); the
realised norms and steps of the truth (recomputed by the engine from the α's, not from the sequence's design).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property

import numpy as np
from scipy.linalg import cho_factor, cho_solve

from boundcheck.claims.families.continuum import BoxEvaluator, BoxFamily
from boundcheck.claims.stats import exceeds
from boundcheck.claims.table import ClaimSpec, bound_anytime, bound_at_horizon
from boundcheck.errors import BoundcheckError
from boundcheck.model.continuum.box import Box
from boundcheck.model.continuum.gamma import gamma_upper_se
from boundcheck.model.domains import FiniteDomain
from boundcheck.model.kernels import RBF
from boundcheck.model.priors import GPPrior
from boundcheck.model.variation import VariationBudgetSequence
from boundcheck.policies.box import GPUCBBox
from boundcheck.world.actions import AlwaysAvailable
from boundcheck.world.box_scenario import DISPLAY_GRID, BoxScenario

__all__ = ["BoxVariationSequence", "VBBoxScenario", "vb_box_scenario", "RestartGPUCBBox", "SlidingWindowGPUCBBox",
           "VBBoxEvaluator", "VBBoxFamily", "retained_counts", "block_start", "COMPACT_IDS"]

COMPACT_IDS = ("r_gp_ucb_compact", "sw_gp_ucb_compact")
_TOL = 1e-8  # replay against the engine's reads (data-space Cholesky against a dense solve: agree to ~1e-12)


def retained_counts(kind: str, window: int, T: int) -> np.ndarray:
    """(T,) n_t, the samples the algorithm conditions on before choosing at t = 1..T: (t − 1) mod H after restarts
    at (t − 1) mod H = 0, min(t − 1, w) in a sliding window."""
    t = np.arange(1, T + 1)
    return (t - 1) % window if kind == "restart" else np.minimum(t - 1, window)


def block_start(kind: str, window: int, T: int) -> np.ndarray:
    """(T,) 0-based index s₀ of the oldest retained sample at step t (t − 1 − n_t)."""
    return np.arange(T) - retained_counts(kind, window, T)


# ---------------------------------------------------------------------------------------------- the truth
@dataclass(frozen=True, eq=False)
class BoxVariationSequence:
    """f_t = Σ_j α_{t,j} k(·, c_j), t = 1..T, on anchors c_j ∈ box, with α_t = U Λ^{-1/2} θ_t, K_Z = U Λ Uᵀ the
    anchors' Gram (kept eigenvalues), θ_t the finite catalogue's sequence
    (:class:`~boundcheck.model.variation.VariationBudgetSequence` on K_Z): ‖f_t‖²_k = α_tᵀK_Zα_t = ‖θ_t‖² and
    ‖f_{t+1} − f_t‖_k = ‖θ_{t+1} − θ_t‖ exactly (the α-sequence depends only on the Gram matrix).

    ``draw(rng)`` gives one run's ``(centres (n, d), alpha (T, n))`` from that run's own Generator (the engine's
    protocol for a time-varying RKHS truth)."""

    seq: VariationBudgetSequence
    anchors: np.ndarray  # (n, d) coordinates in the box

    @cached_property
    def coefficient_map(self) -> np.ndarray:
        """M (n, r) with α = Mθ: U_keep Λ_keep^{-1/2} (the same eigenbasis as the sequence's features)."""
        K = self.seq.K
        s, U = np.linalg.eigh(K)
        keep = s > self.seq.rank_tol * s.max()
        return U[:, keep] / np.sqrt(s[keep])

    def draw(self, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        sampler = self.seq.make_sampler()
        sampler.start([rng])
        for _ in range(self.seq.horizon - 1):
            sampler.step([rng])
        theta = sampler.info["theta"][0]  # (T, r)
        return self.anchors.copy(), theta @ self.coefficient_map.T


@dataclass(frozen=True, eq=False)
class VBBoxScenario(BoxScenario):
    """A box scenario whose truth is a drifting RKHS sequence (``truth``: the sequence on the anchors' Gram, what
    the norm and budget predicates read; ``anchors_x``: the anchors' coordinates). ``rkhs_norm`` = B (an RKHS
    truth); the engine reads :attr:`rkhs_sequence`."""

    anchors_x: np.ndarray | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.anchors_x is None or not isinstance(self.truth, VariationBudgetSequence):
            raise BoundcheckError(f"scenario {self.name!r}: a drifting box truth needs its anchors and sequence")

    @property
    def rkhs_sequence(self) -> BoxVariationSequence:
        return BoxVariationSequence(self.truth, self.anchors_x)

    def _horizon_dependent(self, horizon: int) -> dict:
        """The sequence's design over the new horizon (P_T stays the whole horizon's); H = w kept, clipped to T."""
        return {"truth": self.truth.at_horizon(horizon), "window": min(int(self.window), int(horizon))}

    def describe_truth(self) -> str:
        return (f"f_t = Σ_j α_tj k(·, c_j) on {self.anchors_x.shape[0]} anchors of the box, {self.truth.describe()}; "
                f"k = SE ℓ = {self.kernel.lengthscale:g}, ‖f_t‖_k and Σ‖f_(t+1) − f_t‖_k exact, a fresh sequence per "
                "run; each max f_t certified by branch and bound")


def vb_box_scenario(name: str, kind: str = "switch", *, P_T: float = 2.0, B: float = 2.0, R: float = 0.1,
                    horizon: int = 120, window: int = 30, lengthscale: float = 0.2, anchors: int = 8,
                    switches: int | None = None, delta: float = 0.1, given_P_T: float | None = None,
                    description: str = "", in_theory: bool = True, reason: str = "") -> VBBoxScenario:
    """A drifting RKHS truth on [0, 1] (``kind`` ∈ rotation, switch, random_walk; budget ``P_T``, ‖f_t‖_k = ``B``,
    ``anchors`` evenly spaced anchors), noise N(0, R²), λ = 1, H = w = ``window``; ``given_P_T``: the budget the
    theorem is told (default the sequence's)."""
    box = Box(1, 0.0, 1.0)
    kern = RBF(lengthscale)
    Z = np.linspace(0.0, 1.0, anchors)[:, None]
    seq = VariationBudgetSequence(f"{kind} (P_T = {P_T:g})", kern(Z, Z), kind, B, P_T, horizon, switches=switches)
    disp = FiniteDomain(box.grid(DISPLAY_GRID[1]), name="display grid of [0, 1]")
    model = GPPrior(f"GP(0, SE ℓ = {lengthscale:g})", 0.0, kern(disp.points, disp.points), eps=0.0)
    desc = (f"Drifting f_t on the box [0,1], k = SE ℓ = {lengthscale:g}: {seq.describe()} on {anchors} anchors; a "
            f"fresh sequence per run; noise N(0, {R:g}²); B = {B:g}, P_T = {P_T if given_P_T is None else given_P_T:g} "
            f"given; H = w = {window}; λ = 1; the acquisition maximised on the continuum.")
    if description:
        desc += " " + description
    return VBBoxScenario(
        name=name, description=desc, domain=disp, availability=AlwaysAvailable(disp.n), candidates=(model,),
        truth=seq, truth_index=None, reference_index=0, noise=R, horizon=horizon, delta=delta, B=B, model_noise="1",
        P_T=given_P_T, window=window, in_theory=in_theory, out_of_theory_reason=reason, box=box, kernel=kern,
        rkhs_norm=B, rkhs_centres=anchors, anchors_x=Z,
        notes=(f"anchors: {anchors} evenly spaced points of [0, 1]; f_t = Σα_tj k(·, c_j), ‖f_t‖_k = ‖θ_t‖ exactly",))


# ---------------------------------------------------------------------------------------------- policies
def _window_of(pol: GPUCBBox, ctx) -> int:
    """H (or w): the study's ``window`` schedule (the compact theorems give it); without one, T (as the finite
    policies do: never forget), so that the policies also run beside other box theorems."""
    win = ctx.schedules.get("window")
    w = ctx.horizon if win is None else int(np.asarray(win)[0])
    if not 1 <= w <= ctx.horizon:
        raise BoundcheckError(f"{pol.label}: H / w = {w} must lie in 1..T = {ctx.horizon}")
    return w


class RestartGPUCBBox(GPUCBBox):
    """R-GP-UCB (Zhou & Shroff 2021, Algorithm 1 with ZS12–ZS13) on the box::

        x_t = argmax_{x ∈ X} μ_{t−1}(x) + β_t σ_{t−1}(x)    # μ, σ on the samples since the last restart
        y_t = f_t(x_t) + η_t;  condition;  if t mod H = 0: forget every sample (round t + 1 opens a block)

    β_t = B + (R/√λ)√(2γ̄_{n_t} + 2ln(N_B/δ)), the theorem's (the study's schedule for this policy); H from the
    study's ``window`` schedule. ``posterior`` (a ContinuousPosterior, reset at restarts) is what the engine reads."""

    name = "r_gp_ucb_box"
    label = "R-GP-UCB"
    description = "R-GP-UCB on the box: GP-UCB on the samples since the last restart, every H rounds"

    def __init__(self, name: str = "r_gp_ucb_box", label: str = "R-GP-UCB") -> None:
        super().__init__(name, label)

    def start(self, ctx) -> None:
        super().start(ctx)
        self.window = _window_of(self, ctx)

    def update(self, t: int, X: np.ndarray, y: np.ndarray) -> None:
        self.posterior.condition(X, y)
        if t % self.window == 0:
            self.posterior.reset()


class SlidingWindowGPUCBBox(GPUCBBox):
    """SW-GP-UCB (Zhou & Shroff 2021, Algorithm 2 with ZS14) on the box::

        x_t = argmax_{x ∈ X} μ_{t−1}(x) + β_t σ_{t−1}(x)    # μ, σ on the samples max(1, t−w)..t−1
        y_t = f_t(x_t) + η_t;  keep the last w samples

    The oldest sample leaves by a rebuild of the window's factor (reset, then the w samples re-conditioned in
    time order: O(w³) per step, exact; tested against a dense solve). β_t = B + (R/√λ)√(2γ̄_{n_t} + 2ln(T/δ))."""

    name = "sw_gp_ucb_box"
    label = "SW-GP-UCB"
    description = "SW-GP-UCB on the box: GP-UCB on the last w samples"

    def __init__(self, name: str = "sw_gp_ucb_box", label: str = "SW-GP-UCB") -> None:
        super().__init__(name, label)

    def start(self, ctx) -> None:
        super().start(ctx)
        self.window = _window_of(self, ctx)

    def update(self, t: int, X: np.ndarray, y: np.ndarray) -> None:
        post = self.posterior
        post.condition(X, y)
        over = np.flatnonzero(post.n_obs > self.window)
        if over.size:
            keep = [(post.X[r, 1:post.n_obs[r]].copy(), post.y[r, 1:post.n_obs[r]].copy()) for r in over]
            post.reset(over)
            n = keep[0][1].size
            for j in range(n):
                Xj = np.zeros((post.m, post.d))
                yj = np.zeros(post.m)
                for i, r in enumerate(over):
                    Xj[r], yj[r] = keep[i][0][j], keep[i][1][j]
                post.condition(Xj, yj, runs=over)


POLICIES = (("r_gp_ucb_box", RestartGPUCBBox, {}), ("sw_gp_ucb_box", SlidingWindowGPUCBBox, {}))


# ---------------------------------------------------------------------------------------------- family
class VBBoxEvaluator(BoxEvaluator):
    """The compact theorems' statistics (see the module docstring): ξ D_t in the confidence event, the retained
    samples of each step replayed by a dense solve, the chain rule per block / per window."""

    def __init__(self, *args) -> None:
        super().__init__(*args)
        ex = self.inst.extra
        self.kind, self.window, self.xi = ex["kind"], int(ex["window"]), float(ex["xi"])
        self.lam = float(self.sc.model_noise_var)
        steps = self.traj.truth["step_norms"]  # (m, T): Δ_s = ‖f_{s+1} − f_s‖_k at s − 1 (last 0)
        s0 = block_start(self.kind, self.window, self.T)
        c = np.concatenate([np.zeros((self.m, 1)), np.cumsum(steps, axis=1)], axis=1)  # c[:, s] = Σ_{p<s} Δ
        t0 = np.arange(self.T)
        self.D = c[:, t0] - c[:, s0]  # D_t = Σ_{p=t₀}^{t−1} Δ_p (0-based: steps s₀..t−2)
        self.tol_t = self.traj.truth["max_tolerance_t"]

    def regret_upper(self) -> np.ndarray:
        return np.cumsum(self.alg.regret + self.tol_t - self.opt_slack, axis=1)

    def norm_ok(self) -> np.ndarray:
        """Runs whose realised max_t ‖f_t‖_k ≤ B and Σ‖f_{t+1} − f_t‖_k ≤ P_T (exact, recomputed by the engine)."""
        tr = self.traj.truth
        P = float(self.inst.extra["P_T"])
        return ((tr["rkhs_norm"] <= float(self.sc.B) * (1 + 1e-9))
                & (tr["budget"] <= P * (1 + 1e-9) + 1e-12))

    def conf_events(self) -> tuple[np.ndarray, np.ndarray]:
        """(m, T) Lemma 1/2's event at x_t and at x*_t."""
        rad = self.xi * self.D
        at_x = np.abs(self.f_x - self.mu_x) <= rad + self.width * self.sd_x
        at_star = np.abs(self.traj.f_opt - self.mu_d) <= rad + self.width * self.sd_d
        return at_x, at_star

    def confidence_chosen(self) -> dict:
        a, b = self.conf_events()
        return {"fail": ~(a & b).all(axis=1)}

    def regret_step(self) -> dict:
        a, b = self.conf_events()
        ok = a & b
        r = self.alg.regret + self.tol_t
        bad = r > 2 * self.xi * self.D + 2 * self.width * self.sd_x + self.opt_slack + 1e-12
        return {"fail": (ok & bad).any(axis=1), "premise": ok.any(axis=1)}

    @cached_property
    def replay(self) -> dict[str, np.ndarray]:
        """Dense solves on the retained samples: μ, σ at x_t, ½ln det before and after adding x_t."""
        X, y, lam, k = self.points(), self.alg.y, self.lam, self.sc.kernel
        s0 = block_start(self.kind, self.window, self.T)
        mu = np.zeros((self.m, self.T))
        sd = np.zeros((self.m, self.T))
        before = np.zeros((self.m, self.T))
        after = np.zeros((self.m, self.T))
        for r in range(self.m):
            for i in range(self.T):
                Xw, yw, x = X[r, s0[i]:i], y[r, s0[i]:i], X[r, i:i + 1]
                if yw.size:
                    G = k(Xw, Xw) + lam * np.eye(yw.size)
                    cf = cho_factor(G, lower=True)
                    kx = k(Xw, x)[:, 0]
                    mu[r, i] = kx @ cho_solve(cf, yw)
                    sd[r, i] = np.sqrt(max(1.0 - kx @ cho_solve(cf, kx), 0.0))
                    before[r, i] = 0.5 * np.linalg.slogdet(G / lam)[1]
                else:
                    sd[r, i] = 1.0
                Xa = X[r, s0[i]:i + 1]
                after[r, i] = 0.5 * np.linalg.slogdet(np.eye(Xa.shape[0]) + k(Xa, Xa) / lam)[1]
        return {"mu": mu, "sd": sd, "before": before, "after": after}

    def posterior_replay(self) -> dict:
        rp = self.replay
        bad = (np.abs(self.mu_x - rp["mu"]) > _TOL * np.maximum(1.0, np.abs(rp["mu"]))) | (
            np.abs(self.sd_x - rp["sd"]) > _TOL)
        return {"fail": bad.any(axis=1), "premise": np.ones(self.m, bool)}

    def window_information(self) -> dict:
        rp, lam = self.replay, self.lam
        term = 0.5 * np.log1p(self.sd_x**2 / lam)
        if self.kind == "restart":  # the running sum of the block (reset at its first step) against ½ln det after
            s0 = block_start(self.kind, self.window, self.T)
            chain = np.zeros_like(term)
            for i in range(self.T):
                chain[:, i] = term[:, i] + (chain[:, i - 1] if s0[i] < i else 0.0)
        else:  # the newest term: ½ln det after − before (the window's samples leave one by one)
            chain = rp["before"] + term
        g = np.concatenate([[0.0], np.asarray(self.inst.gamma_upper)])
        n_after = retained_counts(self.kind, self.window, self.T) + 1
        bad = np.abs(chain - rp["after"]) > 1e-8 * np.maximum(1.0, rp["after"])
        bad |= exceeds(rp["after"], g[n_after][None])
        return {"fail": bad.any(axis=1), "premise": np.ones(self.m, bool)}


def vb_box_claims(c) -> list[ClaimSpec]:
    E = VBBoxEvaluator
    return [
        ClaimSpec(c("regret_bound"), E.regret_bound_rkhs, bound=bound_at_horizon),
        ClaimSpec(c("regret_bound_anytime"), E.regret_bound_anytime_rkhs, bound=bound_anytime),
        ClaimSpec(c("confidence_chosen"), E.confidence_chosen),
        ClaimSpec(c("D1_posterior"), E.posterior_replay),
        ClaimSpec(c("D2_information"), E.window_information),
        ClaimSpec(c("D5_regret_step"), E.regret_step),
        ClaimSpec(c("optimiser_gap"), E.optimiser_gap),
    ]


class VBBoxFamily(BoxFamily):
    """``r_gp_ucb_compact`` / ``sw_gp_ucb_compact`` on a :class:`VBBoxScenario`: the finite theorem's bound and
    β_t with γ̄ over the box (gamma_upper_se at the algorithm's λ), the retained count n_t of the restart / window
    rule in β_t, and ξ of the theorem."""

    evaluator_class = VBBoxEvaluator
    truth_types = (VariationBudgetSequence,)  # a drifting RKHS sequence with exact norms and budget

    def __init__(self, theorem) -> None:
        self.kind = "restart" if "H" in theorem.symbols else "window"
        super().__init__(theorem, vb_box_claims, width="beta_t")

    @property
    def schedules_read(self) -> tuple[str, ...]:
        return ("beta_t", "xi")

    def bound_values(self, scenario, horizon: int, delta: float) -> dict[str, float]:
        if not isinstance(scenario, VBBoxScenario):
            raise BoundcheckError(f"scenario {scenario.name!r} has no drifting RKHS truth on a box: "
                                  f"{self.theorem.id} needs one (pick a vb_box_* scenario)")
        if scenario.window is None or not 1 <= scenario.window <= horizon:
            raise BoundcheckError(f"H / w = {scenario.window} must lie in 1..T = {horizon}")
        return {}

    def instantiate(self, scenario, horizon: int, delta: float, beta_scale: float = 1.0):
        from boundcheck.claims.families.base import TheoremInstance, real_or_complex

        th, sc, T = self.theorem, scenario, int(horizon)
        self.bound_values(sc, T, delta)
        lam, window = float(sc.model_noise_var), int(sc.window)
        g_up = np.asarray(gamma_upper_se(sc.kernel.lengthscale, sc.box, T, lam), dtype=float)
        wname = "H" if self.kind == "restart" else "w"
        P = float(sc.declared_budget())
        values = {"T": float(T), "delta": float(delta), "R": float(sc.noise), "B": float(sc.B), "P_T": P,
                  wname: float(window), "lam": lam, f"gamma_{wname}": float(g_up[window - 1])}
        t = np.arange(T + 1, dtype=float)
        t[0] = 1.0
        g0 = np.concatenate([[0.0], g_up])
        gprev = np.zeros(T + 1)
        gprev[1:] = g0[retained_counts(self.kind, window, T)]  # γ̄ of the retained count at each step
        with np.errstate(all="ignore"):
            own = np.broadcast_to(real_or_complex(th.schedule_values("beta_t", t, values, gprev)), t.shape).copy()
            xi = np.broadcast_to(real_or_complex(th.schedule_values("xi", t, values)), t.shape).copy()
            bound = th.evaluate(values)
            at = th.evaluate_anytime(values, np.arange(1, T + 1, dtype=float), g_up)
        width = own * beta_scale
        sched = {"beta_t": own, "xi": xi, "theory_width": own, "window": np.full(T + 1, float(window))}
        self.check_instance(bound["terms"], at["terms"], T, width, delta, beta_scale, sched)
        return TheoremInstance(
            horizon=T, delta=float(delta), values=values, beta=width, xi=xi, B=float(sc.B), C=float("nan"),
            bound_T=float(bound["value"]), bound_terms={k: float(v) for k, v in bound["terms"].items()},
            anytime=np.asarray(at["value"], dtype=float).reshape(T).copy(), gamma_upper=g_up,
            gamma_lower=np.zeros(T), gamma_methods={"feature Hadamard bound": float(g_up[-1])}, schedules=sched,
            gamma_used=g_up, extra={"kind": self.kind, "window": window, "xi": float(xi[1]), "P_T": P,
                                    "lipschitz_L": np.inf, "kernel_error": sc.kernel_error})

    def max_step_regret(self, scenario, inst):
        B = float(scenario.B)
        return 2.0 * B, f"(|f_t(x)| ≤ ‖f_t‖_k √k(x, x) ≤ B = {B:g}, so r_t ≤ 2B)"

    def derived_steps(self, ev):
        return {}

    def main_diagnostics(self, ev: VBBoxEvaluator) -> dict[str, np.ndarray]:
        out = super().main_diagnostics(ev)
        tr = ev.traj.truth
        out.update(realised_budget=tr["budget"], max_norm=tr["rkhs_norm"], window=np.full(ev.m, float(ev.window)))
        return out


def with_scenario(sc: VBBoxScenario, **changes) -> VBBoxScenario:
    """The scenario with fields replaced (the told budget pinned first when the truth changes)."""
    if "truth" in changes and sc.P_T is None:
        changes["P_T"] = sc.declared_budget()
    return replace(sc, **changes)


# ---------------------------------------------------------------------------------------------- planted defects
def restart_late_box(pol: RestartGPUCBBox) -> None:
    """R-GP-UCB on the box forgetting at the end of rounds t ≡ 1 (mod H), not t ≡ 0: every block keeps the last
    sample of the previous one (seen by D1_posterior and D2_information)."""
    def patched(t, X, y):
        pol.posterior.condition(X, y)
        if t % pol.window == 1 % pol.window:
            pol.posterior.reset()

    pol.update = patched


def window_off_by_one_box(pol: SlidingWindowGPUCBBox) -> None:
    """SW-GP-UCB on the box keeping the last w + 1 samples (the pseudocode's 1∨(t−w)..t, ZS14)."""
    start = pol.start

    def patched(ctx):
        start(ctx)
        pol.window += 1

    pol.start = patched


def norm_understated_box(sc: VBBoxScenario, factor: float = 3.0) -> VBBoxScenario:
    """Every f_t with ‖f_t‖_k = ``factor``·B while the algorithms and the theorem keep B (P_T pinned)."""
    return with_scenario(sc, truth=replace(sc.truth, B=factor * sc.truth.B))


def _defects() -> tuple:
    from boundcheck.claims.defects import Defect, wrap_policy

    return (
        Defect("restart_late_box", "R-GP-UCB on the box restarts one round late", (COMPACT_IDS[0],),
               policy=wrap_policy(restart_late_box)),
        Defect("window_off_by_one_box", "SW-GP-UCB on the box keeps w + 1 samples", (COMPACT_IDS[1],),
               policy=wrap_policy(window_off_by_one_box)),
        Defect("norm_understated_box", "every f_t has ‖f_t‖_k = 3B while the algorithms and the theorem are told B",
               COMPACT_IDS, scenario=norm_understated_box),
        Defect("beta_small_box", "the algorithm uses 0.1·β_t while the checks use the theorem's", COMPACT_IDS,
               policy=wrap_policy("beta_scaled", factor=0.1)),
        Defect("dropped_observation_box_vb", "every 5th observation never reaches the box policy's posterior",
               COMPACT_IDS, policy=wrap_policy("box_dropped_observation", every=5)),
        Defect("argmin_box_vb", "a sign error: the box policy minimises its UCB (its worst point every step)",
               COMPACT_IDS, policy=wrap_policy("box_argmin")),
    )
