"""How far many draws of a sampler lie from the law they must have, in standard errors.

With N independent draws the empirical covariance entry (i, j) has standard error √((Σ_ii Σ_jj + Σ_ij²)/N) and
the mean √(Σ_ii/N); the samplers' tests (tests/model/test_samplers.py, the long-horizon sampler of
tests/papers/igp_ucb_gp_ts/test_long_horizon.py) allow a few standard errors per entry.
"""

import numpy as np


def band(draws: np.ndarray, mean: np.ndarray, cov: np.ndarray) -> tuple[float, float]:
    """(largest |empirical − true| of the mean, of the covariance), each in standard errors."""
    N = draws.shape[0]
    d = np.diag(cov)
    se_cov = np.sqrt((np.outer(d, d) + cov**2) / N) + 1e-300
    se_mean = np.sqrt(d / N) + 1e-300
    emp_cov = np.cov(draws, rowvar=False)
    return float(np.max(np.abs(draws.mean(axis=0) - mean) / se_mean)), float(np.max(np.abs(emp_cov - cov) / se_cov))
