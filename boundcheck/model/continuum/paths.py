"""Sample paths of ``GP(0, k̂)`` on the box, exact in law, batched over runs, with a certified maximum.

``f_r(x) = φ(x)ᵀ W_r``, ``W_r ~ N(0, I_F)`` (one Generator per run), so ``Cov(f(x), f(x')) = φ(x)ᵀφ(x') = k̂``
exactly; the time-varying chain ``W_{t+1} = √(1−ε) W_t + √ε G_{t+1}`` is exactly
``f_{t+1} = √(1−ε) f_t + √ε g_{t+1}`` with ``g`` an independent path.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from ...errors import BoundcheckError
from .box import Box, JetCells, certified_maximum, local_ascent
from .features import QuadratureFeatures

__all__ = ["FeaturePaths"]

_U = 2.0**-53


def _rng_list(rngs, name: str = "rngs") -> list[np.random.Generator]:
    rngs = list(rngs)
    if not rngs or not all(isinstance(g, np.random.Generator) for g in rngs):
        raise BoundcheckError(f"{name} must be a non-empty sequence of numpy Generators, one per run")
    return rngs


class FeaturePaths:
    """m paths ``f_r(x) = Σ_k √w_k (u_rk cos θ_k + v_rk sin θ_k)``, ``θ_k = ω_kᵀ(x − o)``, ``W_r = [u_r | v_r]``.

    Proven constants per run (``ρ_k = √(u_k² + v_k²)``, as ``u cos θ + v sin θ = ρ cos(θ − φ_k)``):
    ``sup|f_r| ≤ Σ √w_k ρ_k`` (``sup_bound``), ``‖∇f_r‖ ≤ Σ √w_k ‖ω_k‖ ρ_k`` (``lipschitz``, Euclidean),
    ``‖∇²f_r‖_op ≤ Σ √w_k ‖ω_k‖² ρ_k`` (``hessian_bound``: each term's Hessian is ``−ω_kω_kᵀ √w_k ρ_k cos(·)``),
    ``|D³f_r[v, v, v]| ≤ Σ √w_k ‖ω_k‖³ ρ_k ‖v‖³`` (``third_bound``, likewise).
    Objects are immutable: :meth:`advance` returns a new one.
    """

    def __init__(self, features: QuadratureFeatures, weights: np.ndarray) -> None:
        W = np.asarray(weights, dtype=np.float64)
        if W.ndim != 2 or W.shape[1] != features.n_features:
            raise BoundcheckError(f"path weights must be (runs, {features.n_features}), got {W.shape}")
        self.features = features
        self.weights = W
        W.flags.writeable = False
        K = len(features.weights)
        rho = np.hypot(W[:, :K], W[:, K:])
        sw = features.sqrt_weights
        norms = np.linalg.norm(features.frequencies, axis=1)
        self.sup_bound = rho @ sw
        self.lipschitz = rho @ (sw * norms)
        self.hessian_bound = rho @ (sw * norms**2)
        self.third_bound = rho @ (sw * norms**3)
        self._l1 = rho @ (sw * np.abs(features.frequencies).sum(axis=1))

    # ---------------------------------------------------------------------------------------- construction
    @classmethod
    def draw(cls, features: QuadratureFeatures, rngs: Sequence[np.random.Generator]) -> FeaturePaths:
        """One path per Generator: ``W_r = rngs[r].standard_normal(F)``."""
        rngs = _rng_list(rngs)
        return cls(features, np.stack([g.standard_normal(features.n_features) for g in rngs]))

    def advance(self, eps: float, rngs: Sequence[np.random.Generator]) -> FeaturePaths:
        """The next step of the ε chain, a NEW object: ``W' = √(1−ε) W + √ε G``, ``G_r`` from ``rngs[r]``."""
        if not (isinstance(eps, int | float) and 0.0 <= eps <= 1.0):
            raise BoundcheckError(f"eps must lie in [0, 1], got {eps!r}")
        rngs = _rng_list(rngs)
        if len(rngs) != self.n_runs:
            raise BoundcheckError(f"advance needs {self.n_runs} Generators (one per run), got {len(rngs)}")
        G = np.stack([g.standard_normal(self.features.n_features) for g in rngs])
        return FeaturePaths(self.features, math.sqrt(1.0 - eps) * self.weights + math.sqrt(eps) * G)

    def subset(self, runs) -> FeaturePaths:
        """The paths of the given runs."""
        return FeaturePaths(self.features, self.weights[np.asarray(runs)])

    @property
    def n_runs(self) -> int:
        return self.weights.shape[0]

    # ------------------------------------------------------------------------------------------ evaluation
    def _check_X(self, X) -> np.ndarray:
        X = np.asarray(X, dtype=np.float64)
        d = self.features.dim
        if X.ndim == 2 and X.shape[1] == d:
            return X
        if X.ndim == 3 and X.shape[0] == self.n_runs and X.shape[2] == d:
            return X
        raise BoundcheckError(f"points must be (n, {d}) shared or ({self.n_runs}, n, {d}) per run, got {X.shape}")

    def values(self, X: np.ndarray) -> np.ndarray:
        """``(m, n)``: ``f_r`` at the shared points ``X`` (n, d) or at run r's own points ``X[r]`` (m, n, d)."""
        X = self._check_X(X)
        if X.ndim == 2:
            return self.weights @ self.features.phi(X).T
        return np.einsum("mnf,mf->mn", self.features.phi(X), self.weights)

    def gradients(self, X: np.ndarray) -> np.ndarray:
        """``(m, n, d)``: ``∇f_r`` at the shared or per-run points."""
        X = self._check_X(X)
        K = len(self.features.weights)
        th = self.features._theta(X)
        sw = self.features.sqrt_weights
        u, v = self.weights[:, :K], self.weights[:, K:]
        if X.ndim == 2:
            S = (u[:, None, :] * (-np.sin(th))[None] + v[:, None, :] * np.cos(th)[None]) * sw
        else:
            S = (u[:, None, :] * -np.sin(th) + v[:, None, :] * np.cos(th)) * sw
        return S @ self.features.frequencies

    def _parts(self, runs: np.ndarray, X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per point: ``C_k = √w_k (u cos θ + v sin θ)`` and ``S_k = √w_k (−u sin θ + v cos θ)`` (n, K)."""
        K = len(self.features.weights)
        th = self.features._theta(X)
        c, s = np.cos(th), np.sin(th)
        u, v = self.weights[runs, :K], self.weights[runs, K:]
        sw = self.features.sqrt_weights
        return sw * (u * c + v * s), sw * (v * c - u * s)

    def jet(self, runs: np.ndarray, X: np.ndarray, hess: bool = True):
        """Value, gradient and (if ``hess``) Hessian of ``f_{runs[i]}`` at ``X[i]`` (the searches' interface)."""
        C, S = self._parts(runs, X)
        return _jet_from_parts(self.features.frequencies, C, S, hess)

    def _derivative_jet(self, axis: int, sign: np.ndarray, owner: np.ndarray):
        """The jet of ``sign[i] ∂_axis f_{owner[i]}`` for ids i: value ``σ Σ √w ω_j S``, gradient
        ``−σ Σ √w ω_j ω C``, Hessian ``−σ Σ √w ω_j ωωᵀ S`` (C, S as in :meth:`_parts`)."""
        Om = self.features.frequencies
        d = Om.shape[1]
        wj = Om[:, axis]
        outer = (wj[:, None, None] * Om[:, :, None] * Om[:, None, :]).reshape(len(Om), d * d)

        def jet(ids, X, hess=True):
            C, S = self._parts(owner[ids], X)
            sg = sign[ids]
            H = None
            if hess:
                H = -(sg[:, None, None] * (S @ outer).reshape(-1, d, d))
            return sg * (S @ wj), -sg[:, None] * (C @ (wj[:, None] * Om)), H

        return jet

    def _fp_margin(self) -> np.ndarray:
        """A generous multiple (4×) of the first-order rounding bound of one value (and of its gradient times a
        cell's half-width) of the path: ``u [(F+8+256) Σ√w ρ + 2(d+1)(r/2) Σ√w ρ ‖ω‖₁ + (F+8) r Σ√w ρ ‖ω‖₁]``
        (256 u: the sin/cos recurrence of 64 levels of cells)."""
        F, d, r = self.features.n_features, self.features.dim, self.features.box.r
        return 4 * _U * ((F + 8 + 256) * self.sup_bound + 2 * (d + 1) * 0.5 * r * self._l1 + (F + 8) * r * self._l1)

    # -------------------------------------------------------------------------------------------- searches
    def maximum(self, box: Box | None = None, rng: np.random.Generator | int = 0, *, n_candidates: int = 128,
                n_starts: int = 1, tol: float = 1e-3, grid: int = 8, max_cells: int = 400_000,
                certificate: bool = False):
        """``(x_star (m, d), f_star (m,), f_upper (m,))``: ``f_star = f(x_star)`` and a CERTIFIED
        ``f_upper ≥ sup_box f_r``.

        ``x_star``: the best of ``n_candidates`` scrambled Sobol points (shared by the runs; ``rng`` seeds
        them) polished from the ``n_starts`` best per run by :func:`~.box.local_ascent`, then improved by the
        branch and bound :func:`~.box.certified_maximum` with the path's proven ``lipschitz`` and
        ``hessian_bound``, which settles ``f_upper − f_star ≤ tol`` per run unless ``max_cells`` cubes run out (the
        bracket is then still valid, only wider). The gap ``f_upper − f_star`` is the maximum's tolerance a study
        reports. ``certificate=True`` returns the :class:`~.box.MaxCertificate` instead (``lower``: ``f_star``
        less the rounding margin).
        """
        box = self.features.box if box is None else box
        C, phi_C = _candidates(self.features, box, n_candidates, rng)
        vals = self.weights @ phi_C.T  # = self.values(C), with φ(C) computed once per candidate set
        n_starts = min(n_starts, n_candidates)
        idx = np.argpartition(-vals, n_starts - 1, axis=1)[:, :n_starts].ravel()
        runs = np.repeat(np.arange(self.n_runs), n_starts)
        X, f = local_ascent(self.jet, runs, C[idx], box)
        best = f.reshape(self.n_runs, -1).argmax(axis=1)
        x0 = X.reshape(self.n_runs, -1, box.dim)[np.arange(self.n_runs), best]
        f0 = f.reshape(self.n_runs, -1)[np.arange(self.n_runs), best]
        cert = certified_maximum(_PathCells(self), box, x0, f0, self.lipschitz, self.hessian_bound, self._fp_margin(),
                                 third=self.third_bound, tol=tol, polish=self.jet, grid=grid, max_cells=max_cells)
        if certificate:
            return cert
        f_star = cert.lower + self._fp_margin()
        return cert.x, f_star, cert.upper

    def sup_abs_gradient_lower(self, box: Box | None = None, rng: np.random.Generator | int = 0, *,
                               n_candidates: int = 256, n_starts: int = 4) -> np.ndarray:
        """``(m, d)``: attained values of ``|∂_j f_r|`` (so lower bounds of ``sup_box |∂_j f_r|``), found as in
        :meth:`maximum`: the ``n_starts`` best Sobol candidates of ``|∂_j f|`` per run, each polished by local
        ascent of ``±∂_j f`` (its sign there)."""
        box = self.features.box if box is None else box
        C = box.sobol(n_candidates, rng)
        G = self.gradients(C)  # (m, n, d)
        n_starts = min(n_starts, n_candidates)
        out = np.empty((self.n_runs, box.dim))
        runs = np.repeat(np.arange(self.n_runs), n_starts)
        for j in range(box.dim):
            a = np.abs(G[:, :, j])
            idx = np.argpartition(-a, n_starts - 1, axis=1)[:, :n_starts].ravel()
            sign = np.sign(G[runs, idx, j])
            sign[sign == 0] = 1.0
            # the ascent's "runs" are the starts' ids: each start carries its own run and sign
            _, f = local_ascent(self._derivative_jet(j, sign, runs), np.arange(len(runs)), C[idx], box)
            out[:, j] = np.maximum(f, a[runs, idx]).reshape(self.n_runs, n_starts).max(axis=1)
        return out

    def sup_abs_gradient_upper(self, box: Box | None = None, tol: float = 1e-3) -> np.ndarray:
        """``(m, d)``: CERTIFIED upper bounds of ``sup_box |∂_j f_r|``, by the branch and bound
        :func:`~.box.certified_maximum` on ``±∂_j f`` (its gradient ``±∇∂_j f`` is bounded by ``hessian_bound``, its
        Hessian by ``third_bound``: each term's ``∇²∂_j`` is ``ω_j ωωᵀ`` times a scalar of size ≤ √w_k ρ_k), from
        the located maxima of :meth:`sup_abs_gradient_lower`; within ``tol`` of them when the budget allows.
        The Lipschitz event of Srinivas et al.'s Lemma 5.7 is judged on these (never on a value found too low)."""
        box = self.features.box if box is None else box
        m, d = self.n_runs, box.dim
        owner = np.arange(m)
        out = np.empty((m, d))
        for j in range(d):
            margin = self._fp_margin() * (1.0 + np.abs(self.features.frequencies[:, j]).max())
            ups = []
            for s in (1.0, -1.0):
                jet = self._derivative_jet(j, np.full(m, s), owner)
                x0 = np.tile(box.centre, (m, 1))
                f0 = jet(owner, x0, hess=False)[0]
                cert = certified_maximum(jet, box, x0, f0, self.hessian_bound, self.third_bound, margin, tol=tol,
                                         polish=jet)
                ups.append(cert.upper)
            out[:, j] = np.maximum(*ups)
        return out


_CANDIDATES: dict = {}


def _candidates(features: QuadratureFeatures, box: Box, n: int, rng) -> tuple[np.ndarray, np.ndarray]:
    """The Sobol candidates of :meth:`FeaturePaths.maximum` and their features φ(C): kept (a few sets) when the
    seed is an integer, since an ε chain asks for the same set at every step of every run (φ(C) was 14 % of a
    continuum study's time)."""
    if not isinstance(rng, int | np.integer):
        C = box.sobol(n, rng)
        return C, features.phi(C)
    key = (id(features), box.dim, box.low, box.high, int(n), int(rng))
    hit = _CANDIDATES.get(key)
    if hit is None or hit[0] is not features:
        if len(_CANDIDATES) > 8:
            _CANDIDATES.clear()
        C = box.sobol(n, int(rng))
        hit = _CANDIDATES[key] = (features, C, features.phi(C))
    return hit[1], hit[2]


class _PathCells(JetCells):
    """Cells of :func:`~.box.certified_maximum` for paths. With ``C_k = √w_k(u_k cos θ_k + v_k sin θ_k)`` and
    ``S_k = √w_k(v_k cos θ_k − u_k sin θ_k)`` (value ``Σ C``, gradient ``S Ω``, Hessian ``−C ΩΩᵀ``), a shift
    ``θ → θ + δ`` gives ``C' = C cos δ + S sin δ``, ``S' = S cos δ − C sin δ``: a child's parts from its parent's
    by multiplications (``δ = Ω·offset`` is shared by a level's cells), no sin/cos and no gathered weights. The
    first level is evaluated for all runs at once by matrix products, one sin/cos per distinct centre. Each level
    adds ≤ 4u relative to each part (the rounding margin allows for 64 levels, far more than any budget reaches).
    """

    def __init__(self, paths: FeaturePaths) -> None:
        self.paths = paths

    def start(self, runs, X, hess):
        # the first cells are the same centres for every run (X = tile(centres), run major)
        P = self.paths
        m = P.n_runs
        G = len(X) // m
        th = P.features._theta(X[:G])
        self.c0, self.s0 = np.cos(th), np.sin(th)
        self.G = G
        self.C = None
        self.runs = runs
        K = th.shape[1]
        Om = P.features.frequencies
        d = Om.shape[1]
        sw = P.features.sqrt_weights
        u, v = P.weights[:, :K], P.weights[:, K:]
        cw, sw_ = sw * self.c0, sw * self.s0  # (G, K)
        f = u @ cw.T + v @ sw_.T
        g = np.stack([u @ (-sw_ * Om[:, a]).T + v @ (cw * Om[:, a]).T for a in range(d)], axis=-1)
        H = None
        if hess:
            H = np.empty((m, G, d, d))
            for a in range(d):
                for b in range(a, d):
                    oo = Om[:, a] * Om[:, b]
                    H[:, :, a, b] = H[:, :, b, a] = -(u @ (cw * oo).T + v @ (sw_ * oo).T)
            H = H.reshape(m * G, d, d)
        return f.ravel(), g.reshape(m * G, d), H

    def split(self, parents, offsets, hess):
        P = self.paths
        sw = P.features.sqrt_weights
        Om = P.features.frequencies
        if self.C is None:  # parts of the first level's parents
            K = len(sw)
            r, gidx = self.runs[parents], parents % self.G
            u, v = P.weights[r, :K], P.weights[r, K:]
            c, s = self.c0[gidx], self.s0[gidx]
            Cp, Sp = sw * (u * c + v * s), sw * (v * c - u * s)
        else:
            Cp, Sp = self.C[parents], self.S[parents]
        dl = offsets @ Om.T  # (2^d, K)
        cd, sd = np.cos(dl)[None], np.sin(dl)[None]
        Cp, Sp = Cp[:, None, :], Sp[:, None, :]
        K = dl.shape[1]
        self.C = (Cp * cd + Sp * sd).reshape(-1, K)
        self.S = (Sp * cd - Cp * sd).reshape(-1, K)
        self.runs = np.repeat(self.runs[parents], len(offsets))
        return _jet_from_parts(Om, self.C, self.S, hess)


def _jet_from_parts(Om: np.ndarray, C: np.ndarray, S: np.ndarray, hess: bool):
    H = None
    if hess:
        d = Om.shape[1]
        H = -(C @ (Om[:, :, None] * Om[:, None, :]).reshape(len(Om), d * d)).reshape(-1, d, d)
    return C.sum(axis=1), S @ Om, H
