"""Finite domains: the points the algorithms choose among (availability schedules live in ``boundcheck.world``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import BoundcheckError
from ..utils.validation import check_int

__all__ = ["FiniteDomain", "grid"]


@dataclass(frozen=True)
class FiniteDomain:
    """A finite set of ``n`` points in R^d (rows of ``points``); algorithms work with indices 0..n-1."""

    points: np.ndarray
    name: str = "domain"

    def __post_init__(self) -> None:
        P = np.asarray(self.points, dtype=np.float64)
        P = P[:, None] if P.ndim == 1 else P
        if P.ndim != 2 or P.shape[0] < 1:
            raise BoundcheckError("a finite domain needs at least one point")
        object.__setattr__(self, "points", P)

    @property
    def n(self) -> int:
        return int(self.points.shape[0])

    @property
    def dim(self) -> int:
        return int(self.points.shape[1])


def grid(n: int, dim: int = 1, low: float = 0.0, high: float = 1.0) -> FiniteDomain:
    """Regular grid of ``n`` points per axis in ``[low, high]^dim`` (``n**dim`` points)."""
    n, dim = check_int("grid points per axis", n), check_int("grid dimension", dim)
    axis = np.linspace(low, high, n)
    mesh = np.meshgrid(*([axis] * dim), indexing="ij")
    return FiniteDomain(np.stack([m.ravel() for m in mesh], axis=1), name=f"grid{n}^{dim}")
