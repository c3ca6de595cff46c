"""Scenarios of paper 000 (Ziomek, Adachi, Osborne 2024): the toy problem and the Intel stand-in (spec 000 §5)."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import numpy as np

from ...model.domains import FiniteDomain, grid
from ...model.kernels import RBF
from ...model.priors import GPPrior
from ..actions import AlternatingAvailability, AlwaysAvailable
from ..scenario import Scenario

# --------------------------------------------------------------------------- PE-GP-UCB toy (paper 000, §6.1)
HILL_CENTRES = 0.1 * np.arange(10)  # c_j = 0.1 (j-1): hill 2 at 0.1 [PROPOSED, spec 000 §5.1]


def hill_mean(x: np.ndarray, tall: int | None, h_tall: float = 2.0, h_small: float = 0.5,
              width: float = 0.03) -> np.ndarray:
    """μ^(n)(x) = Σ_j h_j exp(-(x - c_j)²/(2w²)), hill ``tall`` (1-based) of height h_tall, others h_small."""
    heights = np.full(10, h_small)
    if tall is not None:
        heights[tall - 1] = h_tall
    return (heights[None, :] * np.exp(-((x[:, None] - HILL_CENTRES[None, :]) ** 2) / (2 * width**2))).sum(1)


def _pe_toy(eps: float, name: str) -> Scenario:
    dom = grid(100, 1)
    x = dom.points[:, 0]
    K = RBF.paper(0.01)(dom.points, dom.points)  # paper's exp(-d²/(2l)), l = 0.01 (ℓ = 0.1)
    priors = tuple(GPPrior(f"prior {n}", hill_mean(x, n if n > 0 else None), K, eps) for n in range(11))
    restricted = np.abs(x - HILL_CENTRES[1]) > 0.05  # excludes the true tall hill on even t
    return Scenario(
        name=name,
        description=("Paper 000's toy: 11 hill-mean priors sharing one RBF kernel (l = 0.01 in the paper's "
                     f"form), 100-point grid on [0,1], true prior 2 (tall hill at 0.1), ε = {eps:g}; "
                     "X_t alternates between the grid and one excluding the true tall hill."),
        domain=dom,
        availability=AlternatingAvailability(restricted, note="{x : |x − 0.1| > 0.05} on even t"),
        candidates=priors, truth=priors[2], truth_index=2, noise=0.1, horizon=200, delta=0.1,
        notes=("hill heights 2.0 (tall) / 0.5, width 0.03 [PROPOSED: the paper gives no numbers]",),
    )


# --------------------------------------------------------------------- PE-GP-UCB Intel stand-in (§6.2)
@cache
def _sensor_layout() -> tuple[np.ndarray, list[np.ndarray], np.ndarray]:
    """50 sensors in a 40 m × 30 m room and 13 'day' covariances, each the empirical covariance of 144
    simulated readings from an RBF-plus-nugget field (Wishart around a day-specific base), normalised so
    that max diag = 1, with a per-day drift ε_d ∈ [0.01, 0.1]. Fixed seed: the scenario is a constant."""
    rng = np.random.default_rng(20040314)
    z = rng.uniform([0, 0], [40, 30], size=(50, 2))
    mats, eps = [], rng.uniform(0.01, 0.1, size=13)
    for _ in range(13):
        ell, nugget = rng.uniform(6.0, 16.0), rng.uniform(0.02, 0.1)
        base = RBF(ell, 1.0 - nugget)(z, z) + nugget * np.eye(50)
        L = np.linalg.cholesky(base)
        readings = rng.standard_normal((144, 50)) @ L.T
        C = np.cov(readings, rowvar=False)
        mats.append(C / np.max(np.diag(C)))
    return z, mats, eps


def _pe_sensors(misspecified: bool) -> Scenario:
    z, mats, eps = _sensor_layout()
    dom = FiniteDomain(z, name="sensors")
    priors = tuple(GPPrior(f"day {d + 1}", np.zeros(50), mats[d], eps[d]) for d in range(13))
    common = dict(domain=dom, availability=AlwaysAvailable(50), candidates=priors, noise=0.1,
                  horizon=144, delta=0.1)
    if not misspecified:
        return Scenario(
            name="pe_sensors",
            description=("Synthetic stand-in for the Intel Berkeley experiment: 50 sensors in a 40×30 room, "
                         "13 day-priors with empirical-covariance kernels and per-day ε, T = 144; the truth "
                         "is drawn from day 4's prior."),
            truth=priors[3], truth_index=3, **common)
    # truth in no candidate: a much rougher field that drifts faster, with a non-zero mean
    K_true = RBF(3.0, 1.0)(z, z)
    truth = GPPrior("misspecified truth", 0.5 * np.ones(50), K_true, 0.3)
    return Scenario(
        name="pe_sensors_misspecified",
        description=("Intel stand-in with a truth in no candidate prior (RBF ℓ = 3 m, ε = 0.3, mean 0.5): "
                     "out of theory; calibration and the confidence event are expected to fail."),
        truth=truth, truth_index=None, reference_index=3, in_theory=False,
        out_of_theory_reason="the truth is drawn from a prior outside U (misspecified)", **common)



SCENARIOS: dict[str, Callable[[], Scenario]] = {
    "pe_toy": lambda: _pe_toy(0.0, "pe_toy"),
    "pe_toy_tv": lambda: _pe_toy(0.02, "pe_toy_tv"),
    "pe_sensors": lambda: _pe_sensors(False),
    "pe_sensors_misspecified": lambda: _pe_sensors(True),
}
