"""GP priors on a finite domain: a mean vector, a spatial Gram matrix k_X, and the drift ε.

The spatio-temporal kernel is ``k((x,t),(x',t')) = k_X(x,x') (1-ε)^{|t-t'|/2}`` (Bogunovic et al. 2016);
``ε = 0`` is a time-invariant f. Priors that share ``(K, ε)`` share one posterior covariance in
:mod:`boundcheck.posterior`, so they are grouped by :attr:`GPPrior.kernel_key`.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import numpy as np

from .errors import BoundcheckError
from .kernels import check_psd

__all__ = ["GPPrior"]


@dataclass(frozen=True, eq=False)
class GPPrior:
    """A GP prior over the points of a finite domain.

    Parameters
    ----------
    name : str
        Label used in tables and reports.
    mean : (n,) array
        Prior mean μ^p(x) (time-invariant).
    K : (n, n) array
        Spatial Gram matrix k_X on the domain; must be symmetric PSD.
    eps : float
        Drift parameter ε ∈ [0, 1] of the Markov chain f_{t+1} = √(1-ε) f_t + √ε g_{t+1}.
    """

    name: str
    mean: np.ndarray
    K: np.ndarray = field(repr=False)
    eps: float = 0.0

    def __post_init__(self) -> None:
        K = np.ascontiguousarray(self.K, dtype=np.float64)
        mean = np.ascontiguousarray(np.broadcast_to(np.asarray(self.mean, dtype=np.float64), (K.shape[0],)))
        if not (0.0 <= float(self.eps) <= 1.0):
            raise BoundcheckError(f"prior {self.name!r}: eps must lie in [0, 1], got {self.eps!r}")
        check_psd(K, name=f"kernel of prior {self.name!r}")
        object.__setattr__(self, "K", 0.5 * (K + K.T))
        object.__setattr__(self, "mean", mean)
        object.__setattr__(self, "eps", float(self.eps))

    @property
    def n(self) -> int:
        return int(self.K.shape[0])

    @property
    def kappa(self) -> float:
        """sup_x k(x, x) on the domain."""
        return float(np.max(np.diag(self.K)))

    @property
    def kernel_key(self) -> str:
        """Identity of (K, ε): priors with equal keys share a posterior covariance."""
        h = hashlib.sha1(self.K.tobytes())
        h.update(np.float64(self.eps).tobytes())
        return h.hexdigest()
