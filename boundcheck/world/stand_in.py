"""The properties of a scenario that matter when it stands in for a paper's real data: its size, the
spectrum of its kernel, how fast its covariance decays, its noise level, its availability pattern and horizon.

``reproduce`` puts them beside what the paper reports about its real data (an experiment's ``stand_in_data``),
in the replication report and docs/papers/."""

from __future__ import annotations

import numpy as np

from .scenario import Scenario

__all__ = ["stand_in_properties", "STAND_IN_ROWS"]

#: the properties, in the order the tables show them: (key, label)
STAND_IN_ROWS = (
    ("size", "size"),
    ("data", "data the kernel is built from"),
    ("spectrum", "kernel spectrum"),
    ("decay", "covariance decay"),
    ("noise", "noise level"),
    ("availability", "availability"),
    ("horizon", "horizon T"),
)


def _fmt(x: float) -> str:
    return f"{x:.3g}"


def stand_in_properties(sc: Scenario, data: str = "") -> dict[str, str]:
    """The properties of ``sc``'s prior (its first candidate) as short texts, keyed as :data:`STAND_IN_ROWS`.

    ``spectrum``: how many eigenvalues of K hold 90 % and 99 % of its trace, and the largest one's share (a low
    effective rank means a few directions explain the data, the regime where information gain γ_T stays small);
    ``decay``: the quantiles of the off-diagonal correlations K_ij/√(K_ii K_jj) (the empirical covariance's
    decay, without coordinates: near-1 correlations mean neighbours carry each other's value); ``noise``: R and
    R² over the mean prior variance; ``data``: what the kernel was estimated from (given by the caller)."""
    K = np.asarray(sc.candidates[0].K, dtype=np.float64)
    n = K.shape[0]
    lam = np.clip(np.linalg.eigvalsh(0.5 * (K + K.T))[::-1], 0.0, None)
    share = np.cumsum(lam) / lam.sum()
    k90, k99 = int(np.searchsorted(share, 0.90) + 1), int(np.searchsorted(share, 0.99) + 1)
    d = np.sqrt(np.clip(np.diag(K), 1e-300, None))
    corr = K / np.outer(d, d)
    off = corr[~np.eye(n, dtype=bool)]
    q10, q50, q90 = np.quantile(off, [0.1, 0.5, 0.9]) if off.size else (np.nan,) * 3
    var = float(np.mean(np.diag(K)))
    actions = sc.actions
    return {
        "size": f"{n} arms" + (f" ({sc.domain.name})" if getattr(sc.domain, "name", "") else ""),
        "data": data or "—",
        "spectrum": (f"{k90} of {n} eigenvalues hold 90 % of the trace, {k99} hold 99 %; the largest "
                     f"{_fmt(lam[0] / lam.sum() * 100)} %"),
        "decay": f"off-diagonal correlation: 10/50/90 % quantiles {_fmt(q10)} / {_fmt(q50)} / {_fmt(q90)}",
        "noise": f"R = {_fmt(sc.noise)}, R² = {_fmt(sc.noise**2 / var * 100)} % of the mean prior variance",
        "availability": actions.describe() + (f"; {actions.K} base arms per action" if actions.K > 1 else ""),
        "horizon": str(sc.horizon),
    }
