"""Generators of the kernelized-bandit scenarios (Srinivas et al. 2010 GP samples; paper 004, Chowdhury &
Gopalan 2017, §6): the benchmarks' standardised values and RKHS projections, and the seeded sensor
stand-in. The scenarios themselves are data (``scenarios/gp_sample_*.toml``, ``rkhs_*.toml``,
``rosenbrock*.toml``, ``hartmann3*.toml``, ``sensors_004*.toml``): the decision sets are the seeded uniform
points of ``[domain] uniform = {...}`` (paper 004 does not say whether they are redrawn per trial; ledger
CG19), each experiment in two modes, theory (λ = 1 + 2/T, certified γ_t) and paper replication (λ = R², the
paper's rate γ_t; out of theory)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path

import numpy as np

from boundcheck.errors import BoundcheckError
from boundcheck.model.kernels import RBF
from boundcheck.model.priors import RKHSFamily


# ------------------------------------------------------------------------------ benchmarks (paper 004 §6.3)
def _rosenbrock(X: np.ndarray) -> np.ndarray:
    """Rosenbrock-2D on [−2.048, 2.048]² mapped to [0,1]² (to be minimised)."""
    z = -2.048 + 4.096 * X
    return 100.0 * (z[:, 1] - z[:, 0] ** 2) ** 2 + (1.0 - z[:, 0]) ** 2


_H3_A = np.array([[3.0, 10, 30], [0.1, 10, 35], [3.0, 10, 30], [0.1, 10, 35]])
_H3_P = 1e-4 * np.array([[3689, 1170, 2673], [4699, 4387, 7470], [1091, 8732, 5547], [381, 5743, 8828]])
_H3_ALPHA = np.array([1.0, 1.2, 3.0, 3.2])


def _hartmann3(X: np.ndarray) -> np.ndarray:
    """Hartmann-3 on [0,1]³ (to be minimised; global min ≈ −3.86278)."""
    return -(_H3_ALPHA * np.exp(-((X[:, None, :] - _H3_P[None]) ** 2 * _H3_A[None]).sum(-1))).sum(1)


BENCHMARKS = {"rosenbrock": (_rosenbrock, 2), "hartmann3": (_hartmann3, 3)}


def benchmark(points: np.ndarray, kernel_matrix: np.ndarray, function: str, ridge: float = 1e-3) -> dict:
    """f = −g standardised to range 1 (mean 0) on the points, for g a benchmark to be minimised; its
    regularised projection onto span{k(x, ·) : x ∈ D}, P f = K(K + ridge·I)⁻¹f, has an exact norm.

    Returns ``values`` (1, n), ``B_projection`` = ‖P f‖_k, ``residual`` = max |f − P f| and ``B_paper`` =
    √(fᵀKf), the paper's literal B (sic)."""
    if function not in BENCHMARKS:
        raise BoundcheckError(f"unknown benchmark {function!r}; known: {', '.join(BENCHMARKS)}")
    g, d = BENCHMARKS[function]
    if points.shape[1] != d:
        raise BoundcheckError(f"{function} is a function on [0,1]^{d}, the domain has dimension {points.shape[1]}")
    f = -g(points)
    f = (f - f.mean()) / (f.max() - f.min())
    K = kernel_matrix
    alpha = np.linalg.solve(K + ridge * np.eye(len(points)), f)
    return {"values": f[None], "B_projection": float(np.sqrt(alpha @ K @ alpha)),
            "residual": float(np.abs(K @ alpha - f).max()), "B_paper": float(np.sqrt(f @ K @ f))}


# ------------------------------------------------------------------ sensor stand-in (paper 004 §6.4)
@cache
def _sensor_snapshots(seed: int, sensors: int, train: int, test: int, lengthscale: float,
                      room: tuple[float, float]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    n = sensors
    z = rng.uniform([0, 0], list(room), size=(n, 2))
    L = np.linalg.cholesky(RBF(lengthscale)(z, z) + 1e-8 * np.eye(n))
    m = 20.0 + rng.normal(0.0, 1.0, n)

    def snaps(k):
        s = rng.uniform(0.5, 1.5, size=(k, 1))
        return m + s * (rng.standard_normal((k, n)) @ L.T) + 0.1 * rng.standard_normal((k, n))

    tr, te = snaps(train), snaps(test)
    mean = tr.mean(axis=0)
    C = np.cov(tr, rowvar=False)
    c = float(np.max(np.diag(C)))
    return z, C / c, (te - mean) / np.sqrt(c)


def sensor_snapshots(seed: int = 20040228, sensors: int = 54, train: int = 600, test: int = 240,
                     lengthscale: float = 8.0, room: tuple[float, float] = (40.0, 30.0),
                     noise_share: float = 0.05) -> dict:
    """Synthetic stand-in for the Intel temperature task of paper 004 §6 (Fig. 4a): ``sensors`` sensors in
    a room; snapshots F_j = m + s_j g_j + nugget (g_j an SE field with ℓ = ``lengthscale`` m), ``train``
    training and ``test`` held-out; Σ̂ = empirical covariance of the training snapshots normalised to max diag 1;
    the test functions are the held-out snapshots centred by the training mean, on the same scale; each is
    f = Σ̂ α exactly, so ‖f‖²_k = αᵀΣ̂α = fᵀΣ̂⁻¹f. Fixed seed.

    Returns ``covariance`` Σ̂, ``alpha`` (test, n), ``noise_sd`` R = √(noise_share · mean diag Σ̂), ``B_theory``
    (the largest exact norm of a test function) and ``B_paper`` = max √(fᵀΣ̂f) (the paper's reading, sic)."""
    z, Sigma, F = _sensor_snapshots(int(seed), int(sensors), int(train), int(test), float(lengthscale),
                                    tuple(room))
    alpha = np.linalg.solve(Sigma, F.T).T
    return {"covariance": Sigma, "alpha": alpha, "noise_sd": float(np.sqrt(noise_share * np.mean(np.diag(Sigma)))),
            "B_theory": RKHSFamily("held-out snapshots", Sigma, "fixed", alpha=alpha).max_norm,
            "B_paper": float(np.sqrt(np.max(np.einsum("ri,ij,rj->r", F, Sigma, F))))}


#: the paper's scenario files (registered under their file names)
SCENARIO_DIR = Path(__file__).parent / "scenarios"

GENERATORS: Mapping[str, Callable[..., dict]] = {
    "paper004.benchmark": benchmark,
    "paper004.sensor_snapshots": sensor_snapshots,
}
