"""Exact samplers on finite domains, streamed over time, and the seeding scheme.

* ``L = chol(K + jitter I)`` once per (kernel, domain); the jitter actually used is recorded.
* The ε chain is streamed: ``f_1 = μ + L z_1``, ``f_{t+1} - μ = √(1-ε)(f_t - μ) + √ε L z_{t+1}``, whose
  covariance is exactly ``k_X(x,x') (1-ε)^{|t-t'|/2}``; a (runs × T × n) array is never held.
* Seeds: run ``r`` of a study with seed ``s`` uses ``SeedSequence(s, spawn_key=(r,))`` (= the r-th child of
  ``SeedSequence(s).spawn``), split into named streams, so results do not depend on chunking or workers.
  Every algorithm of run ``r`` sees the same f path and the same noise (common random numbers).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .priors import GPPrior

__all__ = ["cholesky_jittered", "ChainSampler", "RunStreams", "run_streams"]


def cholesky_jittered(K: np.ndarray, jitter: float = 1e-10, max_tries: int = 8) -> tuple[np.ndarray, float]:
    """Lower Cholesky factor of ``K + jitter I``, raising the jitter ×10 until it succeeds."""
    n = K.shape[0]
    scale = max(float(np.mean(np.diag(K))), 1e-300)
    j = jitter * scale
    for _ in range(max_tries):
        try:
            return np.linalg.cholesky(K + j * np.eye(n)), j
        except np.linalg.LinAlgError:
            j *= 10.0
    raise np.linalg.LinAlgError("kernel matrix is not positive definite even with jitter")


@dataclass(frozen=True)
class RunStreams:
    """Independent random streams of one run."""

    f: np.random.Generator  # the function path
    noise: np.random.Generator  # observation noise (shared by all algorithms: common random numbers)
    algorithms: tuple[np.random.Generator, ...]  # one per algorithm, for randomised policies


def run_streams(seed: int, run: int, n_algorithms: int) -> RunStreams:
    ss = np.random.SeedSequence(int(seed), spawn_key=(int(run),))
    children = ss.spawn(2 + n_algorithms)
    gens = [np.random.Generator(np.random.PCG64(c)) for c in children]
    return RunStreams(f=gens[0], noise=gens[1], algorithms=tuple(gens[2:]))


class ChainSampler:
    """Streams f_t (one row per run) from a GP prior with drift ε, for a batch of runs."""

    def __init__(self, prior: GPPrior, jitter: float = 1e-10) -> None:
        self.prior = prior
        self.L, self.jitter = cholesky_jittered(prior.K, jitter)
        self.rho = float(np.sqrt(1.0 - prior.eps))
        self.sqrt_eps = float(np.sqrt(prior.eps))
        self._dev: np.ndarray | None = None

    def _draw(self, rngs: list[np.random.Generator]) -> np.ndarray:
        n = self.L.shape[0]
        z = np.stack([g.standard_normal(n) for g in rngs])
        return z @ self.L.T

    def start(self, rngs: list[np.random.Generator]) -> np.ndarray:
        """f_1 for every run: shape (m, n)."""
        self._dev = self._draw(rngs)
        return self.prior.mean + self._dev

    def step(self, rngs: list[np.random.Generator]) -> np.ndarray:
        """f_{t+1} given the current f_t (AR(1) in function space)."""
        assert self._dev is not None, "call start() first"
        if self.prior.eps == 0.0:
            return self.prior.mean + self._dev
        self._dev = self.rho * self._dev + self.sqrt_eps * self._draw(rngs)
        return self.prior.mean + self._dev
