"""How much regret the 30 × 30 grid hides: the continuous maximum of paper 001's truth against its grid maximum.

Paper 001 (§5, Table 4) optimises over [0,1]²; boundcheck runs on a 30 × 30 grid with an exact argmax
(``experiments.py``, setting "discretisation" [PROPOSED]). Table 2's R_400 is 4–14 % above ours in all 15 rows, and
one reading of the gap is that the paper's regret is measured against max_{[0,1]²} f_t, not against the grid's
maximum. :func:`grid_max_gap` measures that reading exactly, without any algorithm (docs/papers/et_gp_ucb.md,
"Table 2's systematic gap").
"""

from __future__ import annotations

import math

import numpy as np

from boundcheck.model.priors import clipped_root

__all__ = ["grid_max_gap"]


def _root_1d(n: int, lengthscale: float) -> np.ndarray:
    x = np.linspace(0.0, 1.0, n)
    K1 = np.exp(-0.5 * ((x[:, None] - x[None, :]) / lengthscale) ** 2)
    return clipped_root(K1)


def grid_max_gap(lengthscale: float = 0.2, points_per_axis: int = 30, refine: int = 8, draws: int = 2000,
                 seed: int = 0, block: int = 50) -> dict:
    """E[max_fine f − max_grid f] for f ~ GP(0, SE ``lengthscale``) on [0,1]², by exact joint draws.

    The choices x_t cancel in the difference of the two regrets::

        R_400^cont − R_400^grid = Σ_t (max_{[0,1]²} f_t − max_grid f_t)

    and every f_t of the ε chain (Assumption 2) is marginally GP(0, k): its expectation is T · E[max_{[0,1]²} f −
    max_grid f] for a single sample path f ~ GP(0, SE ℓ = 0.2). The sample path is drawn **jointly and exactly**
    on a fine grid of (r·29 + 1)² points that contains the 30 × 30 grid (every r-th point): the SE kernel is a
    product of one-dimensional kernels, so on a product grid K = K₁ ⊗ K₁ and f = L₁ Z L₁ᵀ with L₁ the clipped
    eigen-root of the one-dimensional Gram matrix (:func:`boundcheck.model.priors.clipped_root`), exact up to the
    clipped round-off. Refining r until the mean stops moving gives the continuous maximum (an SE path is smooth:
    the fine grid's maximum misses the continuous one by O(h²)).

    Parameters
    ----------
    lengthscale
        ℓ of the SE kernel (unit variance).
    points_per_axis
        The coarse grid (boundcheck's: 30), a subset of the fine one.
    refine
        The fine grid has ``refine·(points_per_axis − 1) + 1`` points per axis; every ``refine``-th is a coarse one.
    draws, seed, block
        Independent sample paths, their seed, and how many are drawn per matrix product.

    Returns
    -------
    dict
        ``mean`` and ``se`` of the gap per sample path, its ``sd``, ``quantiles`` (5/50/95 %), the share of paths
        whose fine maximum lies off the coarse grid (``off_grid``) and the grid sizes.
    """
    n_fine = refine * (points_per_axis - 1) + 1
    L = _root_1d(n_fine, lengthscale)  # (n_fine, r)
    coarse = np.arange(0, n_fine, refine)
    rng = np.random.default_rng(seed)
    gaps, off = [], 0
    done = 0
    while done < draws:
        b = min(block, draws - done)
        Z = rng.standard_normal((b, L.shape[1], L.shape[1]))
        F = L @ Z @ L.T  # (b, n_fine, n_fine): exact draws of GP(0, K₁ ⊗ K₁)
        fine_max = F.reshape(b, -1).max(axis=1)
        grid_max = F[:, coarse][:, :, coarse].reshape(b, -1).max(axis=1)
        gaps.append(fine_max - grid_max)
        off += int(np.sum(fine_max > grid_max))
        done += b
    g = np.concatenate(gaps)
    return {"lengthscale": lengthscale, "coarse": points_per_axis, "fine": n_fine, "draws": int(g.size),
            "mean": float(g.mean()), "sd": float(g.std(ddof=1)), "se": float(g.std(ddof=1) / math.sqrt(g.size)),
            "quantiles": [float(q) for q in np.quantile(g, [0.05, 0.5, 0.95])], "off_grid": off / g.size}
