"""The certified upper bounds on γ behind :func:`~boundcheck.model.mig.gamma_bracket`: the eigen-split of K, the
stationary relaxation (Frank–Wolfe and conditioning lines), the time-varying scalar-mode filters and smoother,
the Kronecker and block bounds, and the monotone/subadditive closure. Each bound and its proof: docs/gamma.md."""

from __future__ import annotations

import math

import numpy as np
from scipy.linalg import solve_triangular

_EIG_REL = 1e-13  # eigenvalues below this fraction of λ_max go to the (bounded) tail
_SUBADD_MAX = 20_000  # subadditive closure (O(T²)) up to this horizon


# ------------------------------------------------------------------------------------------- spectrum
class _Spectrum:
    """Eigen-split of K₊: features Φ (n×r) of the leading part and the trace of the (tiny) tail."""

    def __init__(self, K: np.ndarray) -> None:
        lam, U = np.linalg.eigh(K)
        lam = np.clip(lam, 0.0, None)
        self.lam = lam[::-1].copy()  # descending, K₊ spectrum
        lam_max = float(self.lam[0])
        keep = self.lam > lam_max * _EIG_REL if lam_max > 0 else np.zeros_like(self.lam, dtype=bool)
        U = U[:, ::-1]
        self.Phi = U[:, keep] * np.sqrt(self.lam[keep])
        self.tail_trace = float(self.lam[~keep].sum())
        self.kappa = float(max(np.max(np.diag(K)), 0.0))

    @property
    def r(self) -> int:
        return int(self.Phi.shape[1])

    def tail(self, m: np.ndarray, s2: float) -> np.ndarray:
        """Bound ½ m s2⁻¹ tr K_⊥ on the information the dropped eigen-directions can add (m observations)."""
        return 0.5 * np.asarray(m, dtype=np.float64) * self.tail_trace / s2


# ------------------------------------------------------------------------------- stationary relaxation
def _relax_eval(Phi: np.ndarray, w: np.ndarray, s2: float):
    """φ(w) = ½ log det(I + ΦᵀWΦ/s2) and σ²_w(x) = φ_xᵀ(I + ΦᵀWΦ/s2)⁻¹φ_x (features Φ, r columns)."""
    r = Phi.shape[1]
    A = np.eye(r) + (Phi.T * (w / s2)) @ Phi
    L = np.linalg.cholesky(A)
    phi = float(np.log(np.diag(L)).sum())
    Vs = solve_triangular(L, Phi.T, lower=True)
    var = np.einsum("ij,ij->j", Vs, Vs)
    return phi, var


def _scaled_lines(Phi: np.ndarray, w: np.ndarray, s2: float, scales: np.ndarray):
    """Frank–Wolfe and conditioning lines (intercept, slope) of the designs ω·w for every ω in ``scales``."""
    A0 = (Phi.T * (w / s2)) @ Phi
    a0, V = np.linalg.eigh(0.5 * (A0 + A0.T))
    a0 = np.clip(a0, 0.0, None)
    Psi2 = (Phi @ V) ** 2
    a = scales[:, None] * a0[None, :]  # (S, r)
    phi = 0.5 * np.log1p(a).sum(1)
    wg = 0.5 * (a / (1.0 + a)).sum(1)  # ⟨g, ωw⟩
    var = (1.0 / (1.0 + a)) @ Psi2.T  # (S, n)
    vmax = var.max(1)
    fw = np.stack([phi - wg, vmax / (2.0 * s2)], axis=1)
    cond = np.stack([phi, 0.5 * np.log1p(vmax / s2)], axis=1)
    return fw, cond


def _relaxation_stationary(spec: _Spectrum, s2: float, m_max: int, *, max_iter: int = 25,
                           n_budgets: int = 10, tol: float = 1e-3):
    """Lines for the stationary relaxation (FW certificate) and conditioning bounds, valid for every m."""
    Phi = spec.Phi
    n, r = Phi.shape
    if r == 0:
        z = np.zeros((1, 2))
        return z, z
    # budgets below m_max/128 are left to the greedy-based bounds (the relaxation is loose there anyway)
    lo = max(1.0, m_max / 128.0)
    budgets = np.unique(np.round(np.geomspace(lo, m_max, min(n_budgets, m_max))).astype(int))
    budgets = budgets[budgets >= 1]
    fw_lines, cond_lines = [], []
    scales = np.geomspace(1e-3, 2.0, 16)
    w = np.full(n, 1.0 / n)
    for h in budgets:
        w = 0.9 * w * (h / w.sum()) + 0.1 * h / n
        power, prev_phi = 1.5, -np.inf
        for _ in range(max_iter):
            phi, var = _relax_eval(Phi, w, s2)
            g = var / (2.0 * s2)
            gw, gmax = float(g @ w), float(g.max())
            fw_lines.append((phi - gw, gmax))
            cond_lines.append((phi, 0.5 * math.log1p(var.max() / s2)))
            if gmax <= 0 or h * gmax - gw <= tol * max(phi, 1e-300):
                break
            if phi < prev_phi:  # over-relaxed step overshot: fall back to the monotone update
                power = 1.0
            prev_phi = phi
            w = w * (g / gmax) ** power
            w *= h / w.sum()
        fw, cond = _scaled_lines(Phi, w, s2, h * scales)
        fw_lines.extend(map(tuple, fw))
        cond_lines.extend(map(tuple, cond))
    return np.asarray(fw_lines), np.asarray(cond_lines)


def _envelope(lines: np.ndarray, m: np.ndarray) -> np.ndarray:
    """min over lines (a, b) of a + b·m, for every m (chunked to bound memory)."""
    out = np.full(len(m), np.inf)
    for s in range(0, len(lines), 512):
        L = lines[s:s + 512]
        out = np.minimum(out, (L[:, 0][:, None] + L[:, 1][:, None] * m[None, :]).min(0))
    return out


# ----------------------------------------------------------------------------- time-varying machinery
def _ar1_filter(a: np.ndarray, rho2: float, T: int, record: np.ndarray):
    """Scalar AR(1) Kalman filters (stationary variance 1, ρ² = 1−ε), one per entry of ``a`` (observation
    precision per step). Returns the per-step ½Σ log(1 + a p_pred) summed over entries (length T), and
    p_pred, p_filt at the steps in ``record`` (arrays (len(a), len(record)))."""
    a = np.asarray(a, dtype=np.float64)
    shape = a.shape
    a = a.ravel()
    p = np.ones_like(a)
    q = 1.0 - rho2
    info = np.empty((T,) + shape[:-1]) if len(shape) > 1 else np.empty(T)
    rec_pos = {int(v): i for i, v in enumerate(record)}
    pp_rec = np.empty((a.size, len(record)))
    pf_rec = np.empty((a.size, len(record)))
    for t in range(T):
        sv = 1.0 + a * p
        lg = np.log(sv)
        info[t] = 0.5 * (lg.reshape(shape).sum(-1))
        pf = p / sv
        i = rec_pos.get(t)
        if i is not None:
            pp_rec[:, i] = p
            pf_rec[:, i] = pf
        p = rho2 * pf + q
    return info, pp_rec.reshape(shape + (len(record),)), pf_rec.reshape(shape + (len(record),))


def _tv_grid(T: int, dense: int = 32, ratio: float = 1.15) -> np.ndarray:
    """Distances 0..T−1 at which smoothed variances are evaluated: all below ``dense``, geometric above,
    always including T−1."""
    vals = set(range(min(T, dense)))
    x = float(dense)
    while x < T - 1:
        vals.add(int(x))
        x *= ratio
    vals.add(T - 1)
    return np.array(sorted(vals), dtype=np.int64)


def _antidiag_sums(M: np.ndarray, idx: np.ndarray, T: int) -> np.ndarray:
    """out[t−1] = Σ_{i=0}^{t−1} M[idx[i], idx[t−1−i]] for t = 1..T, in O(G·T) (idx piecewise constant)."""
    out = np.zeros(T)
    s = np.arange(T)
    # runs of equal idx values: [start, end)
    change = np.flatnonzero(np.diff(idx)) + 1
    starts = np.concatenate([[0], change])
    ends = np.concatenate([change, [T]])
    for a_p, b_p in zip(starts, ends, strict=True):
        h = M[idx[a_p], idx]  # h[j] = M[p, idx[j]]
        Hc = np.concatenate([[0.0], np.cumsum(h)])
        valid = s >= a_p
        sv = s[valid]
        hi = sv - a_p
        lo = np.maximum(sv - (b_p - 1), 0)
        out[valid] += Hc[hi + 1] - Hc[lo]
    return out


def _tv_design_certificates(spec: _Spectrum, s2: float, eps: float, T: int, Kb: int, jobs: list):
    """Relaxation (FW) and conditioning certificates of time-invariant designs, for all t ≤ T at once.

    ``jobs``: tuples ``(w̄, scales, want_fw, want_cond)``. The design ω·w̄ (mass ω per time) is evaluated for
    every ω in ``scales``.
    """
    Phi = spec.Phi
    rho2 = 1.0 - eps
    gv = _tv_grid(T)
    G = len(gv)
    pos = np.searchsorted(gv, np.arange(T), side="right") - 1  # round down: largest grid value ≤ i
    ceil = np.searchsorted(gv, np.arange(T), side="left")  # round up: smallest grid value ≥ i
    fw_best = np.full(T, np.inf)
    cond_best = np.full(T, np.inf)
    for w, scales, want_fw, want_cond in jobs:
        A0 = (Phi.T * (w / s2)) @ Phi
        a0, V = np.linalg.eigh(0.5 * (A0 + A0.T))
        a0 = np.clip(a0, 0.0, None)
        Psi2 = (Phi @ V) ** 2
        a = np.asarray(scales, dtype=np.float64)[:, None] * a0[None, :]  # (S, r)
        info, pp, pf = _ar1_filter(a, rho2, T, gv)  # info (T, S); pp, pf (S, r, G)
        phi_t = np.cumsum(info, axis=0)  # (T, S)
        for si in range(len(scales)):
            # smoothed variance of mode k at distances (i, j) from the two ends: 1/(F_k(i) + B_k(j))
            sm = 1.0 / ((1.0 / pf[si])[:, :, None] + (1.0 / pp[si] - 1.0)[:, None, :])  # (r, G, G)
            vmax = (Psi2 @ sm.reshape(len(a0), G * G)).max(0).reshape(G, G)
            if want_cond:
                c = phi_t[:, si] + Kb * _antidiag_sums(0.5 * np.log1p(vmax / s2), pos, T)
                cond_best = np.minimum(cond_best, c)
            if want_fw:
                wg = 0.5 * np.einsum("k,kij->ij", a[si], sm)  # ⟨g_τ, w_τ⟩ at grid distances
                f = (phi_t[:, si] - _antidiag_sums(wg, ceil, T)
                     + Kb * _antidiag_sums(vmax / (2.0 * s2), pos, T))
                fw_best = np.minimum(fw_best, f)
    tail = spec.tail(np.arange(1, T + 1) * Kb, s2)
    return fw_best + tail, cond_best + tail


def _tv_optimise_shape(spec: _Spectrum, s2: float, eps: float, h: int, mass: float, w0: np.ndarray,
                       iters: int) -> np.ndarray:
    """Multiplicative updates for the time-invariant design of mass ``mass`` per step maximising φ_h.

    This is only a heuristic for *where* to linearise: any design gives a valid certificate.
    """
    Phi = spec.Phi
    rho2 = 1.0 - eps
    w = w0 * (mass / w0.sum())
    rec = np.arange(h)
    for _ in range(iters):
        A0 = (Phi.T * (w / s2)) @ Phi
        a, V = np.linalg.eigh(0.5 * (A0 + A0.T))
        a = np.clip(a, 0.0, None)
        _, pp, pf = _ar1_filter(a, rho2, h, rec)
        sm = 1.0 / (1.0 / pf + 1.0 / pp[:, ::-1] - 1.0)  # (r, h): τ−1 = i, t−τ = h−1−i
        grad = ((Phi @ V) ** 2) @ sm.sum(1)
        gmax = grad.max()
        if not np.isfinite(gmax) or gmax <= 0:
            break
        w = w * (grad / gmax) ** 1.5
        w *= mass / w.sum()
    return w / w.sum()


def _relaxation_tv(spec: _Spectrum, s2: float, eps: float, T: int, Kb: int, want_fw: bool,
                   want_cond: bool):
    """Time-invariant designs: one optimised at full mass (the relaxation's linearisation point) and one at
    mass K/32 (small reference designs are what make the conditioning bound tight at small noise)."""
    n = spec.Phi.shape[0]
    if spec.r == 0:
        z = spec.tail(np.arange(1, T + 1) * Kb, s2)
        return z, z
    w_full = _tv_optimise_shape(spec, s2, eps, T, float(Kb), np.full(n, 1.0 / n), iters=12)
    w_small = _tv_optimise_shape(spec, s2, eps, T, Kb / 32.0, w_full, iters=8)
    jobs = []
    if want_fw:
        jobs.append((w_full, Kb * np.array([0.7, 1.0, 1.4]), True, want_cond))
    if want_cond:
        jobs.append((w_small, Kb * np.geomspace(1e-3, 0.5, 10), False, True))
    return _tv_design_certificates(spec, s2, eps, T, Kb, jobs)


def _kronecker_tv(lam: np.ndarray, s2: float, eps: float, T: int, Kb: int) -> np.ndarray:
    lam = lam[lam > 0]
    if lam.size == 0:
        return np.zeros(T)
    info, _, _ = _ar1_filter(Kb * lam / s2, 1.0 - eps, T, np.array([], dtype=np.int64))
    return np.cumsum(info)


def _nuclear_J_minus_D(eps: float, Ns: np.ndarray) -> np.ndarray:
    """Upper bounds on ‖J_N − D_N‖_* for the block lengths Ns: exact for N ≤ 256, else √N ‖·‖_F."""
    rho = math.sqrt(1.0 - eps)
    Nmax = int(Ns.max())
    d = np.arange(Nmax)
    c = (1.0 - rho**d) ** 2  # squared entries at offset d
    C1 = np.concatenate([[0.0], np.cumsum(c)])
    C2 = np.concatenate([[0.0], np.cumsum(d * c)])
    out = np.empty(len(Ns))
    for k, N in enumerate(Ns):
        N = int(N)
        frob = math.sqrt(max(2.0 * (N * C1[N] - C2[N]), 0.0))  # 2 Σ_{d=1}^{N−1} (N−d) c_d
        out[k] = math.sqrt(N) * frob
        if N <= 256:
            idx = np.arange(N)
            Dm = rho ** np.abs(idx[:, None] - idx[None, :])
            out[k] = min(out[k], float(np.abs(np.linalg.eigvalsh(1.0 - Dm)).sum()))
    return out


def _block_bounds(stat_upper: np.ndarray, kappa: float, s2: float, eps: float, T: int, Kb: int,
                  want: set[str]) -> dict[str, np.ndarray]:
    """⌈t/N⌉(γ^{up}_{NK} + correction(N)), minimised over N in a candidate set, for t = 1..T."""
    Ns = np.unique(np.concatenate([np.arange(1, min(T, 64) + 1),
                                   np.round(np.geomspace(64, T, 80)).astype(int) if T > 64 else []]))
    Ns = Ns[(Ns >= 1) & (Ns <= T)].astype(np.int64)
    g_up = stat_upper[Ns * Kb - 1]
    t = np.arange(1, T + 1)
    nblocks = -(-t[:, None] // Ns[None, :])  # ⌈t/N⌉
    out = {}
    if "block" in want:
        corr = 0.25 * kappa / s2 * Kb**1.5 * Ns.astype(float) ** 2.5 * eps
        out["block"] = (nblocks * (g_up + corr)[None, :]).min(1)
    if "block_hadamard" in want:
        corr = 0.5 * kappa / s2 * Kb * _nuclear_J_minus_D(eps, Ns)
        out["block_hadamard"] = (nblocks * (g_up + corr)[None, :]).min(1)
    return out


# ---------------------------------------------------------------------------------------------- closure
def _monotone(u: np.ndarray) -> np.ndarray:
    """γ is non-decreasing, so γ_t ≤ min_{t' ≥ t} U(t')."""
    return np.minimum.accumulate(u[::-1])[::-1]


def _subadditive(u: np.ndarray) -> np.ndarray:
    """γ_{a+b} ≤ γ_a + γ_b: U(t) ← min(U(t), min_a U(a) + U(t−a)) in increasing t."""
    u = u.copy()
    if len(u) > _SUBADD_MAX:
        return u
    for t in range(2, len(u) + 1):  # u[t-1] is U(t)
        a = np.arange(1, t // 2 + 1)
        u[t - 1] = min(u[t - 1], float((u[a - 1] + u[t - a - 1]).min()))
    return u

