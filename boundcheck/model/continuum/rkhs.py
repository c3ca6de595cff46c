"""Functions of known RKHS norm on the box: ``f_r(x) = Σ_j α_rj k(x, c_rj)``, ``‖f_r‖_k = √(α_rᵀ K_r α_r)``
exactly, with values, gradients and a certified maximum (branch and bound on sub-cubes)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ...errors import BoundcheckError
from ..kernels import RBF, Kernel, Matern
from .box import Box, certified_maximum, local_ascent

__all__ = ["RKHSExpansion"]

_U = 2.0**-53
#: sup_s |(3s − s³) e^{−s²/2}| = 1.38027… (at s² = 3 − √6), rounded up: the SE profile's third derivative
_SE_THIRD = 1.3803
#: sup_u (√5/3) u (1+u) e^{−u} = 0.62609… (at u = the golden ratio), rounded up: Matérn 5/2's slope × ℓ
_M52_SLOPE = 0.6261


def _constants(kernel: Kernel) -> tuple[float, float, float | None]:
    """Per unit ``|α_j|``: bounds on ``sup‖∇_x k(x, c)‖``, ``sup‖∇²_x k(x, c)‖_op`` and the directional third
    derivative ``sup|D³_x k(x, c)[v,v,v]|/‖v‖³`` (None: not bounded, not used).

    SE ``v e^{−s²/2}``, ``s = ‖x−c‖/ℓ``: slope ``v s e^{−s²/2}/ℓ ≤ v e^{−1/2}/ℓ``; Hessian
    ``v k (ΔΔᵀ/ℓ⁴ − I/ℓ²)``, eigenvalues ``−v e^{−s²/2}/ℓ²`` and ``v (s²−1) e^{−s²/2}/ℓ²``, both ``≤ v/ℓ²`` in
    modulus; along a line ``k`` is a Gaussian profile times a constant ≤ 1, so the third derivative is
    ``≤ v sup|(3s−s³)e^{−s²/2}|/ℓ³``. Matérn 5/2 ``v (1+u+u²/3) e^{−u}``, ``u = √5 r/ℓ``: ``∇k = −(5v/(3ℓ²))
    (1+u) e^{−u} Δ`` of norm ``(√5 v/(3ℓ)) u(1+u)e^{−u}``; Hessian eigenvalues ``−(5v/(3ℓ²))(1+u)e^{−u}`` and
    ``−(5v/(3ℓ²))(1+u−u²)e^{−u}``, both ``≤ 5v/(3ℓ²)`` in modulus (the kernel is only C², no third bound).
    """
    if isinstance(kernel, RBF):
        ell, v = kernel.lengthscale, kernel.variance
        return v * math.exp(-0.5) / ell, v / ell**2, v * _SE_THIRD / ell**3
    if isinstance(kernel, Matern) and kernel.nu == 2.5:
        ell, v = kernel.lengthscale, kernel.variance
        return v * _M52_SLOPE / ell, 5.0 * v / (3.0 * ell**2), None
    raise BoundcheckError(f"RKHS expansions support RBF and Matern(nu=2.5) kernels, got {kernel!r}")


class RKHSExpansion:
    """``f_r(x) = Σ_j α_rj k(x, c_rj)`` for m runs (centres ``(m, n, d)``, coefficients ``(m, n)``).

    ``norm[r] = √(α_rᵀ K(c_r, c_r) α_r)`` is the exact RKHS norm (the reproducing property). Proven constants
    per run, with ``A_r = Σ_j |α_rj|`` and the kernel's per-unit constants (:func:`_constants`):
    ``lipschitz = A_r c₁``, ``hessian_bound = A_r c₂``, ``third_bound = A_r c₃`` (Matérn: None).
    """

    def __init__(self, kernel: Kernel, box: Box, centres: np.ndarray, alpha: np.ndarray) -> None:
        C = np.asarray(centres, dtype=np.float64)
        a = np.asarray(alpha, dtype=np.float64)
        if C.ndim != 3 or C.shape[2] != box.dim or a.shape != C.shape[:2]:
            raise BoundcheckError(f"centres must be (runs, n, {box.dim}) and alpha (runs, n), got {C.shape}, "
                                  f"{a.shape}")
        self.kernel, self.box, self.centres, self.alpha = kernel, box, C, a
        c1, c2, c3 = _constants(kernel)
        A = np.abs(a).sum(axis=1)
        self.lipschitz, self.hessian_bound = A * c1, A * c2
        self.third_bound = None if c3 is None else A * c3
        self.norm = np.sqrt(np.maximum(np.einsum("ri,rij,rj->r", a, self._gram(), a), 0.0))
        n = C.shape[1]
        # 4 × the first-order rounding bound of a value (n terms, exp and argument) and of a gradient × r
        self._margin = 4 * _U * (n + box.dim + 8) * (A * kernel.variance + self.lipschitz * box.r)

    def _gram(self) -> np.ndarray:
        return np.stack([self.kernel(c, c) for c in self.centres])

    @classmethod
    def draw(cls, kernel: Kernel, box: Box, n_centres: int, norm: float,
             rngs: Sequence[np.random.Generator]) -> RKHSExpansion:
        """Per run (its own Generator): centres uniform in the box, ``α ~ N(0, I)``, rescaled so that
        ``‖f_r‖_k = norm``."""
        rngs = list(rngs)
        if not rngs or not all(isinstance(g, np.random.Generator) for g in rngs):
            raise BoundcheckError("rngs must be a non-empty sequence of numpy Generators, one per run")
        if isinstance(n_centres, bool) or not isinstance(n_centres, int | np.integer) or n_centres < 1:
            raise BoundcheckError(f"n_centres must be an integer ≥ 1, got {n_centres!r}")
        if not (isinstance(norm, int | float) and norm > 0 and math.isfinite(norm)):
            raise BoundcheckError(f"norm must be a positive number, got {norm!r}")
        C, A = [], []
        for g in rngs:
            c = box.low + box.r * g.random((int(n_centres), box.dim))
            a = g.standard_normal(int(n_centres))
            q = float(a @ kernel(c, c) @ a)
            if not q > 0:
                raise BoundcheckError("drawn RKHS expansion has zero norm (coincident centres?)")
            C.append(c)
            A.append(a * (norm / math.sqrt(q)))
        return cls(kernel, box, np.stack(C), np.stack(A))

    @property
    def n_runs(self) -> int:
        return self.alpha.shape[0]

    # ------------------------------------------------------------------------------------------ evaluation
    def _profile(self, D: np.ndarray, hess: bool):
        """For differences ``D = x − c`` (..., d): ``k``, ``∇_x k`` and (if hess) ``∇²_x k``."""
        kern = self.kernel
        ell, v = kern.lengthscale, kern.variance
        r2 = np.einsum("...j,...j->...", D, D)
        if isinstance(kern, RBF):
            k = v * np.exp(-0.5 * r2 / ell**2)
            g = -(k / ell**2)[..., None] * D
            H = None
            if hess:
                eye = np.eye(D.shape[-1])
                H = k[..., None, None] * (D[..., :, None] * D[..., None, :] / ell**4 - eye / ell**2)
            return k, g, H
        u = math.sqrt(5.0) * np.sqrt(r2) / ell
        e = np.exp(-u)
        k = v * (1.0 + u + u * u / 3.0) * e
        g = -(5.0 * v / (3.0 * ell**2) * (1.0 + u) * e)[..., None] * D
        H = None
        if hess:
            eye = np.eye(D.shape[-1])
            H = -(5.0 * v / (3.0 * ell**2) * e)[..., None, None] * (
                (1.0 + u)[..., None, None] * eye - 5.0 / ell**2 * D[..., :, None] * D[..., None, :])
        return k, g, H

    def _check_X(self, X) -> np.ndarray:
        X = np.asarray(X, dtype=np.float64)
        d = self.box.dim
        if (X.ndim == 2 and X.shape[1] == d) or (X.ndim == 3 and X.shape[0] == self.n_runs and X.shape[2] == d):
            return X
        raise BoundcheckError(f"points must be (n, {d}) shared or ({self.n_runs}, n, {d}) per run, got {X.shape}")

    def _diffs(self, X: np.ndarray) -> np.ndarray:
        X = self._check_X(X)
        if X.ndim == 2:
            X = np.broadcast_to(X, (self.n_runs, *X.shape))
        return X[:, :, None, :] - self.centres[:, None, :, :]  # (m, n, J, d)

    def values(self, X: np.ndarray) -> np.ndarray:
        """``(m, n)``: ``f_r`` at shared points (n, d) or at run r's own points (m, n, d)."""
        k, _, _ = self._profile(self._diffs(X), False)
        return np.einsum("mnj,mj->mn", k, self.alpha)

    def gradients(self, X: np.ndarray) -> np.ndarray:
        """``(m, n, d)``: ``∇f_r``."""
        _, g, _ = self._profile(self._diffs(X), False)
        return np.einsum("mnjd,mj->mnd", g, self.alpha)

    def jet(self, runs: np.ndarray, X: np.ndarray, hess: bool = True):
        """Value, gradient and (if hess) Hessian of ``f_{runs[i]}`` at ``X[i]``."""
        D = X[:, None, :] - self.centres[runs]  # (n, J, d)
        k, g, H = self._profile(D, hess)
        a = self.alpha[runs]
        return (np.einsum("nj,nj->n", k, a), np.einsum("njd,nj->nd", g, a),
                None if H is None else np.einsum("njab,nj->nab", H, a))

    # ------------------------------------------------------------------------------------------- maximum
    def certified_max(self, box: Box | None = None, tol: float = 1e-6, *, rng: np.random.Generator | int = 0,
                      n_candidates: int = 256, n_starts: int = 2, grid: int = 8, max_cells: int = 2_000_000
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(x_star (m, d), f_lower (m,), f_upper (m,))`` with ``f_lower ≤ sup_box f_r ≤ f_upper`` PROVEN and
        ``f_upper − f_lower ≤ tol`` (the rounding margin included); ``f_r(x_star) ≥ f_lower``.

        A batched damped-Newton polish (:func:`~.box.local_ascent`, in place of per-run L-BFGS-B) of the best
        Sobol candidates gives a good ``f_lower``; the branch and bound :func:`~.box.certified_maximum` with the
        proven ``lipschitz``, ``hessian_bound`` and ``third_bound`` settles the rest. Raises BoundcheckError when
        ``tol`` is not reached within ``max_cells`` cubes.
        """
        box = self.box if box is None else box
        if not (isinstance(tol, int | float) and tol > 0):
            raise BoundcheckError(f"tol must be a positive number, got {tol!r}")
        margin = self._margin
        inner = tol - 2 * margin
        if np.any(inner <= 0):
            raise BoundcheckError(f"tol {tol:g} is below twice the rounding margin {2 * margin.max():.2g}")
        C = box.sobol(n_candidates, rng)
        vals = self.values(C)
        n_starts = min(n_starts, n_candidates)
        idx = np.argpartition(-vals, n_starts - 1, axis=1)[:, :n_starts].ravel()
        runs = np.repeat(np.arange(self.n_runs), n_starts)
        X, f = local_ascent(self.jet, runs, C[idx], box)
        best = f.reshape(self.n_runs, -1).argmax(axis=1)
        ar = np.arange(self.n_runs)
        x0 = X.reshape(self.n_runs, -1, box.dim)[ar, best]
        f0 = f.reshape(self.n_runs, -1)[ar, best]
        cert = certified_maximum(self.jet, box, x0, f0, self.lipschitz, self.hessian_bound, margin,
                                 third=self.third_bound, tol=float(inner.min()), grid=grid, max_cells=max_cells,
                                 polish=self.jet)
        if not cert.complete.all():
            raise BoundcheckError(f"certified maximum: tol {tol:g} not reached within {max_cells} cells "
                                  f"(widest bracket {np.max(cert.upper - cert.lower):.3g}); use a larger tol")
        return cert.x, cert.lower, cert.upper
