"""Generators of paper 000's scenarios (Ziomek, Adachi, Osborne 2024): the toy problem's hill means and the
Intel stand-in's seeded sensor layout (the paper's §7, Figs. 2–4). The scenarios themselves are data:
``scenarios/pe_toy.toml``, ``pe_toy_tv.toml``, ``pe_sensors.toml``, ``pe_sensors_misspecified.toml``."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path

import numpy as np

from boundcheck.model.kernels import RBF

# --------------------------------------------------------------------------- PE-GP-UCB toy (paper 000, §6.1)
HILL_CENTRES = 0.1 * np.arange(10)  # c_j = 0.1 (j-1): hill 2 at 0.1 [PROPOSED, as in Fig. 3]


def hill_mean(x: np.ndarray, tall: int | None, h_tall: float = 2.0, h_small: float = 0.5,
              width: float = 0.03, centres: np.ndarray = HILL_CENTRES) -> np.ndarray:
    """μ^(n)(x) = Σ_j h_j exp(-(x - c_j)²/(2w²)), hill ``tall`` (1-based) of height h_tall, others h_small."""
    heights = np.full(centres.size, h_small)
    if tall is not None:
        heights[tall - 1] = h_tall
    return (heights[None, :] * np.exp(-((x[:, None] - centres[None, :]) ** 2) / (2 * width**2))).sum(1)


def hill_means(points: np.ndarray, hills: int = 10, spacing: float = 0.1, h_tall: float = 2.0,
               h_small: float = 0.5, width: float = 0.03) -> dict[str, np.ndarray]:
    """``means``: (hills + 1, n), row j the mean whose hill j is tall (row 0: no tall hill), hills at
    c_j = spacing·(j − 1) on a 1-d domain."""
    x = points[:, 0]
    centres = spacing * np.arange(hills)
    return {"means": np.stack([hill_mean(x, j if j > 0 else None, h_tall, h_small, width, centres)
                               for j in range(hills + 1)])}


# --------------------------------------------------------------------- PE-GP-UCB Intel stand-in (§6.2)
@cache
def _sensor_layout(seed: int, sensors: int, days: int, readings: int, room: tuple[float, float],
                   lengthscale: tuple[float, float], nugget: tuple[float, float], eps: tuple[float, float]):
    rng = np.random.default_rng(seed)
    z = rng.uniform([0, 0], list(room), size=(sensors, 2))
    mats, drift = [], rng.uniform(eps[0], eps[1], size=days)
    for _ in range(days):
        ell, nug = rng.uniform(*lengthscale), rng.uniform(*nugget)
        base = RBF(ell, 1.0 - nug)(z, z) + nug * np.eye(sensors)
        L = np.linalg.cholesky(base)
        x = rng.standard_normal((readings, sensors)) @ L.T
        C = np.cov(x, rowvar=False)
        mats.append(C / np.max(np.diag(C)))
    return z, tuple(mats), drift


def sensor_days(seed: int = 20040314, sensors: int = 50, days: int = 13, readings: int = 144,
                room: tuple[float, float] = (40.0, 30.0), lengthscale: tuple[float, float] = (6.0, 16.0),
                nugget: tuple[float, float] = (0.02, 0.1), eps: tuple[float, float] = (0.01, 0.1)) -> dict:
    """``sensors`` points in a room and ``days`` 'day' covariances, each the empirical covariance of ``readings``
    simulated readings from an RBF-plus-nugget field (ℓ and nugget uniform in their ranges), normalised to
    max diag 1, with a per-day drift ε_d uniform in ``eps``. Returns ``points`` (sensors, 2), ``covariances``
    (days of (sensors, sensors)) and ``eps`` (days,). Fixed seed: the scenario is a constant."""
    z, mats, drift = _sensor_layout(int(seed), int(sensors), int(days), int(readings), tuple(room),
                                    tuple(lengthscale), tuple(nugget), tuple(eps))
    return {"points": z, "covariances": list(mats), "eps": drift}


#: the paper's scenario files (registered under their file names)
SCENARIO_DIR = Path(__file__).parent / "scenarios"

GENERATORS: Mapping[str, Callable[..., dict]] = {
    "paper000.hill_means": hill_means,
    "paper000.sensor_days": sensor_days,
}
