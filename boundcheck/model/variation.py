"""Time-varying RKHS functions with an exact norm and an exact variation budget (Zhou & Shroff 2021; spec
docs/papers/r_sw_gp_ucb.md), streamed over time.

Every member is a combination of kernel sections at anchor points of the domain, written in Mercer coordinates θ
of the anchors' Gram matrix, where the RKHS norm and the norm of a step are Euclidean: ‖f_t‖_k = ‖θ_t‖ and
‖f_{t+1} − f_t‖_k = ‖θ_{t+1} − θ_t‖. The sequences ``rotation`` (slowly varying), ``switch`` (abrupt) and
``random_walk`` are designed in θ to spend the budget P_T exactly (or, for the walk, at most, computed per run).

The sampler streams f_t (never a runs × T × |D| array) and keeps θ_t for the verifier, with the realised budget
and max_t ‖θ_t‖ per run. The construction and each sequence: docs/model.md, "Drifting RKHS functions".
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np

from ..errors import BoundcheckError
from ..utils.validation import check_choice, check_int, check_nonnegative, check_positive
from .kernels import check_psd
from .mig import gamma_bracket
from .priors import _OnDomain
from .sampling import rows_matmul

__all__ = ["VariationBudgetSequence", "VariationBudgetSampler", "remark_window", "certified_gamma", "KINDS"]

KINDS = ("rotation", "switch", "random_walk")


@dataclass(frozen=True, eq=False)
class VariationBudgetSequence(_OnDomain):
    """A family of RKHS function sequences f_1..f_T on a finite domain with ‖f_t‖_k ≤ B and
    Σ_{t<T}‖f_{t+1} − f_t‖_k ≤ P_T, both exact (docs/model.md). Each run draws its own sequence."""

    name: str
    K: np.ndarray = field(repr=False)
    kind: str
    B: float
    P_T: float
    horizon: int
    anchors: np.ndarray = field(repr=False, default=None)  # indices into the domain (None: every point)
    switches: int | None = None  # M for "switch" (None: ⌈P_T/(2B)⌉)
    rank_tol: float = 1e-10

    def __post_init__(self) -> None:
        K = np.ascontiguousarray(self.K, dtype=np.float64)
        check_psd(K, name=f"kernel of variation-budget sequence {self.name!r}")
        object.__setattr__(self, "K", 0.5 * (K + K.T))
        check_choice("variation-budget kind", self.kind, KINDS)
        object.__setattr__(self, "B", check_positive("B (RKHS norm bound)", self.B))
        object.__setattr__(self, "P_T", check_nonnegative("P_T (variation budget)", self.P_T))
        T = check_int("horizon", self.horizon)
        object.__setattr__(self, "horizon", T)
        n = K.shape[0]
        anchors = np.arange(n) if self.anchors is None else np.asarray(self.anchors, dtype=np.int64).ravel()
        if anchors.size < 2 or anchors.min() < 0 or anchors.max() >= n or np.unique(anchors).size != anchors.size:
            raise BoundcheckError(f"sequence {self.name!r}: anchors must be ≥ 2 distinct domain indices in 0..{n - 1}")
        object.__setattr__(self, "anchors", anchors)
        if self.kind == "rotation" and T > 1 and self.P_T > 2 * self.B * (T - 1) * (1 + 1e-12):
            raise BoundcheckError(f"sequence {self.name!r}: a rotation moves at most 2B per step, so P_T = "
                                  f"{self.P_T:g} > 2B(T−1) = {2 * self.B * (T - 1):g} is impossible")
        if self.kind == "switch" and self.P_T > 0:
            M = self.n_switches
            if M > max(T - 1, 0):
                raise BoundcheckError(f"sequence {self.name!r}: {M} switches do not fit in T = {T} steps")
            if self.P_T / M > 2 * self.B * (1 + 1e-12):
                raise BoundcheckError(f"sequence {self.name!r}: a switch between points of norm B moves at most 2B; "
                                      f"P_T/M = {self.P_T / M:g} > 2B = {2 * self.B:g} (use more switches)")
        if self.rank < 2:
            raise BoundcheckError(f"sequence {self.name!r}: the anchors span fewer than 2 RKHS directions")

    # ------------------------------------------------------------------ what the sequence is (n, kappa: _OnDomain)
    @property
    def eps(self) -> float:  # no GP drift: the sequence itself moves (code that treats truths as chains)
        return 0.0

    @cached_property
    def features(self) -> np.ndarray:
        """Φ (n, r): f_t|_D = Φ θ_t with ‖f_t‖_k = ‖θ_t‖ exactly."""
        Z = self.anchors
        s, U = np.linalg.eigh(self.K[np.ix_(Z, Z)])
        keep = s > self.rank_tol * s.max()
        return self.K[:, Z] @ (U[:, keep] / np.sqrt(s[keep]))

    @property
    def rank(self) -> int:
        return int(self.features.shape[1])

    @property
    def n_switches(self) -> int:
        if self.kind != "switch" or self.P_T == 0:
            return 0
        return int(self.switches) if self.switches is not None else max(1, math.ceil(self.P_T / (2 * self.B)))

    @property
    def max_norm(self) -> float:
        """Largest ‖f_t‖_k any member can have (exactly B for rotations and switches; ≤ B for the walk)."""
        return float(self.B)

    @property
    def budget_bound(self) -> float:
        """Certified upper bound on the realised Σ_{t<T}‖f_{t+1} − f_t‖_k (exact for rotations and switches)."""
        return float(self.P_T) if self.horizon > 1 else 0.0

    @property
    def omega(self) -> float:
        T = self.horizon
        if self.kind != "rotation" or T < 2 or self.P_T == 0:
            return 0.0
        return 2.0 * math.asin(min(1.0, self.P_T / (2 * self.B * (T - 1))))

    def switch_times(self) -> np.ndarray:
        """Steps s whose successor differs: f_{s+1} ≠ f_s (a jump of P_T/M)."""
        M, T = self.n_switches, self.horizon
        return np.array([(j * T) // (M + 1) for j in range(1, M + 1)], dtype=np.int64)

    def at_horizon(self, horizon: int) -> VariationBudgetSequence:
        """The same design over another horizon (P_T stays the budget over the whole horizon)."""
        return replace(self, horizon=check_int("horizon", horizon))

    def describe(self) -> str:
        what = {"rotation": f"slow rotation (ω = {self.omega:.4g} per step)",
                "switch": f"{self.n_switches} abrupt switches of {self.P_T / max(self.n_switches, 1):.4g} each",
                "random_walk": f"projected random walk (step ρ = {self.P_T / max(self.horizon - 1, 1):.4g})"}[self.kind]
        return (f"{what}; ‖f_t‖_k {'=' if self.kind != 'random_walk' else '≤'} {self.B:g} exactly, "
                f"Σ‖f_(t+1) − f_t‖_k {'=' if self.kind != 'random_walk' else '≤'} {self.P_T:g} over T = {self.horizon} "
                f"({self.anchors.size} anchors, rank {self.rank})")

    def describe_norm(self) -> str:
        return self.describe()

    def __fingerprint__(self) -> dict:
        return {"name": self.name, "K": hashlib.sha256(self.K.tobytes()).hexdigest(), "kind": self.kind,
                "B": repr(self.B), "P_T": repr(self.P_T), "horizon": self.horizon,
                "anchors": self.anchors.tolist(), "switches": self.switches, "rank_tol": repr(self.rank_tol)}

    def make_sampler(self) -> VariationBudgetSampler:
        return VariationBudgetSampler(self)


def _unit(v: np.ndarray) -> np.ndarray:
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def _orthogonal_unit(theta: np.ndarray, z: np.ndarray) -> np.ndarray:
    """Unit vectors ⊥ θ (row-wise) from raw draws z (Gram–Schmidt)."""
    u = _unit(theta)
    z = z - (z * u).sum(axis=1, keepdims=True) * u
    return _unit(z)


class VariationBudgetSampler:
    """Streams f_t for a batch of runs (``start``/``step``, the engine's sampler protocol); ``info`` holds θ_t
    (m, T, r), the features Φ (n, r), the realised budget and the largest norm per run."""

    def __init__(self, seq: VariationBudgetSequence) -> None:
        self.seq = seq
        self.Phi = seq.features
        self.r = self.Phi.shape[1]
        self._theta: np.ndarray | None = None
        self.t = 0
        self.first_run = 0

    def _record(self, theta: np.ndarray) -> np.ndarray:
        self._theta[:, self.t - 1] = theta
        # f_t = Φ θ_t, row by row exactly as in any other batch of runs (results independent of the chunking)
        return rows_matmul(theta, self.Phi.T, self.first_run)

    def start(self, rngs: list[np.random.Generator], first_run: int = 0) -> np.ndarray:
        """f_1 for every run; ``first_run``: the id of the batch's first run (fixes the blocked products)."""
        self.first_run = int(first_run)
        seq, m, r = self.seq, len(rngs), self.r
        self._theta = np.zeros((m, seq.horizon, r))
        self.t = 1
        z = np.stack([g.standard_normal(2 * r) for g in rngs])
        u = _unit(z[:, :r])
        v = _orthogonal_unit(u, z[:, r:])
        self._u, self._v = u, v
        if seq.kind == "rotation":
            theta = seq.B * (math.cos(seq.omega) * u + math.sin(seq.omega) * v)
        else:
            theta = seq.B * u
        self._switch = set(seq.switch_times().tolist())
        self._cur = theta
        return self._record(theta)

    def step(self, rngs: list[np.random.Generator]) -> np.ndarray:
        assert self._theta is not None, "call start() first"
        seq = self.seq
        if self.t >= seq.horizon:
            raise BoundcheckError(f"variation-budget sequence {seq.name!r} is defined for T = {seq.horizon} steps only")
        s = self.t  # moving from f_s to f_{s+1}
        self.t += 1
        theta = self._cur
        if seq.kind == "rotation":
            w = seq.omega * self.t
            theta = seq.B * (math.cos(w) * self._u + math.sin(w) * self._v)
        elif seq.kind == "switch" and s in self._switch:
            d = seq.P_T / seq.n_switches
            phi = 2.0 * math.asin(min(1.0, d / (2 * seq.B)))
            wdir = _orthogonal_unit(theta, np.stack([g.standard_normal(self.r) for g in rngs]))
            norm = np.linalg.norm(theta, axis=1, keepdims=True)
            theta = math.cos(phi) * theta + math.sin(phi) * norm * wdir
        elif seq.kind == "random_walk" and seq.P_T > 0:
            rho = seq.P_T / (seq.horizon - 1)
            xi = _unit(np.stack([g.standard_normal(self.r) for g in rngs]))
            theta = theta + rho * xi
            nrm = np.linalg.norm(theta, axis=1, keepdims=True)
            theta = theta * np.minimum(1.0, seq.B / nrm)  # projection onto the ball of radius B
        self._cur = theta
        return self._record(theta)

    @property
    def info(self) -> dict[str, np.ndarray]:
        if self._theta is None:
            return {}
        th = self._theta[:, : self.t]
        steps = np.linalg.norm(np.diff(th, axis=1), axis=2)  # Δ_s = ‖f_{s+1} − f_s‖_k, s = 1..t−1
        norms = np.linalg.norm(th, axis=2)
        return {"theta": self._theta, "features": self.Phi, "budget": steps.sum(axis=1),
                "max_norm": norms.max(axis=1), "rkhs_norm": norms.max(axis=1)}


# ---------------------------------------------------------------------------------------- H and w
_GAMMA_CACHE: dict[tuple, object] = {}


def certified_gamma(K: np.ndarray, horizon: int, noise_var: float):
    """The certified γ bracket (:func:`~boundcheck.model.mig.gamma_bracket`) of K at λ for t ≤ horizon, cached by
    content (a scenario and its theorem ask for the same curves)."""
    key = (hashlib.sha1(np.ascontiguousarray(K).tobytes()).hexdigest(), int(horizon), float(noise_var))
    if key not in _GAMMA_CACHE:
        if len(_GAMMA_CACHE) > 32:
            _GAMMA_CACHE.clear()
        _GAMMA_CACHE[key] = gamma_bracket(K, int(horizon), noise_var=float(noise_var))
    return _GAMMA_CACHE[key]


def remark_window(K: np.ndarray, horizon: int, P_T: float | None, c: float = 1.0) -> int:
    """H (or w) of the Remark after Theorem 2 (ledger ZS19), [PROPOSED] constant c = 1:

    * P_T known and > 0: H = clip(⌈c γ̄_T^{1/4} (T/P_T)^{1/2}⌉, 1, T);  P_T = 0: H = T (nothing to forget);
    * P_T unknown (``None``): H = clip(⌈c γ̄_T^{1/4} T^{1/2}⌉, 1, T).

    γ̄_T is the certified upper bound at λ = 1 (γ decreases in λ, so this also serves λ = 1 + 2/H, which would
    otherwise make H depend on itself). Any H fixed before the run is valid for the theorems; this rule only
    balances their two terms."""
    T = check_int("horizon", horizon)
    if P_T is not None and P_T == 0:
        return T
    g = float(certified_gamma(K, T, 1.0).upper[-1])
    base = c * g**0.25 * math.sqrt(T if P_T is None else T / P_T)
    return int(min(T, max(1, math.ceil(base))))
