"""Time-varying GP bandit scenarios (the ε Markov chain of Bogunovic et al. 2016; seed 001): the scenario type
with the settings the paper's algorithms are given, the Assumption-3 constants, and the assumption predicates
these theorems name.

:class:`TVScenario` is a :class:`~boundcheck.world.scenario.Scenario` with the extra fields of paper 001's
experiments (Sec. 5, Table 4): which β the algorithms run (each theorem's, or the practical c₁ log(c₂t) of the
experiments), the trigger parameter δ_B, R-GP-UCB's reset period and the ε TV-GP-UCB is told (``None``: derived
from the truth), and the constants of Assumption 3 (a₀, b₀, a₁, b₁ on X ⊂ [0, r]^d).

Predicates registered here (additive, through :func:`~boundcheck.world.assumptions.register_predicate`):
``assumption3_constants``, ``told_true_eps`` and ``tv_theoretical_schedules`` (the theorem's β, unscaled, not the
experiments' practical one). ε = 0 and the data's noise are the shared predicates ``static_truth`` and
``noise_matches``; a misspecified-noise control scales the data's noise law (``noise_law = "gaussian:2"``,
:mod:`boundcheck.model.noise`), the models keep R.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

import numpy as np

from boundcheck.errors import BoundcheckError
from boundcheck.model.domains import grid
from boundcheck.model.priors import GPPrior
from boundcheck.utils.validation import check_choice, check_int, check_positive, check_probability, check_unit_interval
from boundcheck.world.assumptions import Conditions, register_predicate
from boundcheck.world.scenario import Scenario

__all__ = ["TVScenario", "FactoredGPPrior", "BETA_RULES", "reset_period", "assumption3_se", "derivative_sup_mean",
           "MAX_GRID_POINTS"]

BETA_RULES = ("theory", "practical")
#: n×n Gram matrices (sampler factor, grid-state posteriors of a chunk) beyond this do not fit a workstation
MAX_GRID_POINTS = 4096


def reset_period(eps: float, horizon: int) -> int:
    """Bogunovic et al.'s (2016, Prop. 4.1) reset period N = ⌈min{T, 12 ε^{−1/4}}⌉ (N = T at ε = 0)."""
    eps = check_unit_interval("eps", eps)
    T = check_int("horizon", horizon)
    if eps == 0.0:
        return T
    return int(math.ceil(min(float(T), 12.0 * eps**-0.25) - 1e-12))


@dataclass(frozen=True, eq=False)
class FactoredGPPrior(GPPrior):
    """A GP prior that is sampled through its clipped eigen-root A (n × r, A Aᵀ = K up to the eigenvalues below
    1e−14 λ_max, no jitter) instead of a jittered Cholesky factor: exact, and r ≈ 260 ≪ n = 900 for the SE kernel
    with ℓ = 0.2 on the 30 × 30 grid, which makes the ε chain's per-step draw ~3× cheaper (Table 3's 12 million
    run-steps)."""

    sampling_factor = "eigen"


@dataclass(frozen=True, eq=False)
class TVScenario(Scenario):
    """A time-varying GP bandit scenario of paper 001 (see the module docstring for the extra fields)."""

    beta_rule: str = "theory"  # "theory": each algorithm its theorem's β; "practical": c₁ log(c₂ t) for all
    c1: float = 0.4
    c2: float = 4.0
    delta_B: float = 0.1  # ET-GP-UCB's trigger parameter
    reset_N: int | None = None  # R-GP-UCB's period; None: ⌈min{T, 12 ε^{−1/4}}⌉ with the true ε
    tv_eps: float | None = None  # the ε TV-GP-UCB is told; None: the true ε
    dim: int = 1  # X ⊂ [0, side]^dim
    side: float = 1.0
    a0: float = 1.0  # Assumption 3 (3)
    b0: float = 1.0
    a1: float = 1.0  # Assumption 3 (4)
    b1: float = 1.0
    assumption3: str = ""  # how the constants were obtained ("" = not established)
    steps_detail: str = "full"  # "full" steps table, or "resets" (only the reset steps: 30 000-run studies)

    def __post_init__(self) -> None:
        check_choice("beta rule", self.beta_rule, BETA_RULES)
        check_choice("steps detail", self.steps_detail, ("full", "resets"))
        check_positive("c1", self.c1)
        check_positive("c2", self.c2)
        check_probability("delta_B", self.delta_B)
        if self.reset_N is not None:
            check_int("reset period N", self.reset_N)
        if self.tv_eps is not None:
            check_unit_interval("eps told to TV-GP-UCB", self.tv_eps)
        check_unit_interval("eps", self.truth.eps)

    @property
    def eps(self) -> float:
        """The true rate of change ε."""
        return float(self.truth.eps)

    @property
    def period(self) -> int:
        """R-GP-UCB's reset period N at this horizon."""
        return int(self.reset_N) if self.reset_N is not None else reset_period(self.eps, self.horizon)

    @property
    def eps_told(self) -> float:
        """The ε TV-GP-UCB is told."""
        return float(self.eps if self.tv_eps is None else self.tv_eps)

    def width(self, t: np.ndarray) -> np.ndarray:
        """The practical width √max(0, c₁ log(c₂ t)) (Table 5's c₂ < 1 makes β negative at small t [PROPOSED])."""
        return np.sqrt(np.maximum(0.0, self.c1 * np.log(self.c2 * np.asarray(t, dtype=float))))


# ------------------------------------------------------------------------------- Assumption 3 constants
@cache
def derivative_sup_mean(lengthscale: float, dim: int, points_per_axis: int = 0, draws: int = 2000,
                        seed: int = 20220822) -> tuple[float, float]:
    """Monte Carlo (mean, standard error) of E sup_{[0,1]^dim} |∂f/∂x₁| for f ~ GP(0, SE(ℓ)), on a fine grid.

    The derivative process has covariance ∂²k/∂x₁∂x₁' = ℓ⁻²(1 − (x₁−x₁')²/ℓ²) k(x, x'); draws use its clipped
    eigen-root (exact law). The grid maximum approaches the supremum from below; callers add a margin."""
    lengthscale = check_positive("lengthscale", lengthscale)
    dim = check_int("dim", dim, maximum=3)
    g = points_per_axis or {1: 400, 2: 40, 3: 14}[dim]
    X = grid(g, dim).points
    diff1 = X[:, 0][:, None] - X[:, 0][None, :]
    d2 = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    Kd = lengthscale**-2 * (1.0 - diff1**2 / lengthscale**2) * np.exp(-0.5 * d2 / lengthscale**2)
    lam, U = np.linalg.eigh(0.5 * (Kd + Kd.T))
    keep = lam > lam.max() * 1e-13
    A = U[:, keep] * np.sqrt(lam[keep])
    rng = np.random.default_rng(seed)
    sups = np.concatenate([np.abs(rng.standard_normal((500, A.shape[1])) @ A.T).max(axis=1)
                           for _ in range(draws // 500)])
    return float(sups.mean()), float(sups.std(ddof=1) / np.sqrt(sups.size))


#: E sup|∂f/∂x₁| (mean, standard error) from :func:`derivative_sup_mean` at its defaults, for the built-in
#: scenarios' kernels (recomputed by a test; other kernels are estimated on first use)
M1_TABLE: dict[tuple[float, int], tuple[float, float]] = {(0.2, 1): (8.951, 0.0646), (0.2, 2): (12.968, 0.0553)}


def assumption3_se(lengthscale: float, dim: int, n_points: int) -> dict:
    """Assumption-3 constants of the SE kernel exp(−‖x−x'‖²/(2ℓ²)) on a finite grid in [0, 1]^dim.

    (3) on the grid, by a union bound: P(max|f| > L) ≤ M e^{−L²/2}, so a₀ = M, b₀ = √2 (exact; ledger E_asm3).
    (4) by Borell–TIS: b₁ = 2√2/ℓ and a₁ = max{1, exp(m₁²ℓ²/2)}, m₁ = E sup|∂f/∂x_j| from
    :func:`derivative_sup_mean` (upper value: mean + 3 SE, + 2 % for the grid's gap to the supremum)."""
    key = (round(float(lengthscale), 12), int(dim))
    mean, se = M1_TABLE[key] if key in M1_TABLE else derivative_sup_mean(float(lengthscale), int(dim))
    m1 = (mean + 3.0 * se) * 1.02
    a1 = max(1.0, math.exp(m1**2 * lengthscale**2 / 2.0))
    return {"a0": float(n_points), "b0": math.sqrt(2.0), "a1": a1, "b1": 2.0 * math.sqrt(2.0) / lengthscale,
            "assumption3": (f"(3): a₀ = M = {n_points}, b₀ = √2 (union bound over the grid); (4): b₁ = 2√2/ℓ = "
                            f"{2 * math.sqrt(2) / lengthscale:.4g}, a₁ = exp(m₁²ℓ²/2) = {a1:.4g} with "
                            f"m₁ ≤ {m1:.4g} (Monte Carlo E sup|∂f/∂x₁| = {mean:.4g} ± {se:.2g}, Borell–TIS; "
                            "approximate)")}


def check_grid_size(n_points: int) -> int:
    """Refuse grids whose n×n matrices do not fit in memory (one line, exit 2)."""
    n_points = check_int("grid points", n_points)
    if n_points > MAX_GRID_POINTS:
        gb = n_points**2 * 8 / 1e9
        raise BoundcheckError(f"a grid of {n_points} points is too large: every n×n matrix takes {gb:.1f} GB and a "
                              f"chunk of runs holds several (limit {MAX_GRID_POINTS} points)")
    return n_points


# ------------------------------------------------------------------------------------------- predicates
def _truth_eps(sc) -> float | None:
    truth = getattr(sc, "truth", None)
    return float(truth.eps) if isinstance(truth, GPPrior) else None


@register_predicate("assumption3_constants")
def _assumption3_constants(sc) -> tuple[bool, str]:
    how = getattr(sc, "assumption3", "")
    return bool(how), how or "no Assumption-3 constants established for this scenario"


@register_predicate("told_true_eps")
def _told_true_eps(sc) -> tuple[bool, str]:
    e = _truth_eps(sc)
    told = getattr(sc, "eps_told", e)
    if e is None:
        return False, "the truth is not a GP prior"
    ok = told == e
    return ok, f"TV-GP-UCB told ε = {told:g}, true ε = {e:g}"


@register_predicate("tv_theoretical_schedules")
def _tv_theoretical_schedules(sc, cond: Conditions) -> tuple[bool, str]:
    """The regret theorems' β_t, unscaled: not ``--beta-scale`` and not the experiments' practical c₁ log(c₂t)."""
    if cond.beta_scale != 1.0:
        return False, f"β_t scaled by {cond.beta_scale:g} (--beta-scale)"
    if getattr(sc, "beta_rule", "theory") == "practical":
        return False, (f"the practical β_t = {sc.c1:g} log({sc.c2:g} t) of the paper's experiments: the bound is not "
                       "applicable")
    return True, "the theorem's β_t, unscaled"
