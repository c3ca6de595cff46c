"""Finite domains and availability schedules X_t ⊆ X."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .errors import BoundcheckError

__all__ = ["FiniteDomain", "grid", "Availability", "AlwaysAvailable", "AlternatingAvailability"]


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
    if int(n) < 1 or int(dim) < 1:
        raise BoundcheckError(f"grid needs n >= 1 and dim >= 1, got n={n}, dim={dim}")
    axis = np.linspace(low, high, int(n))
    mesh = np.meshgrid(*([axis] * int(dim)), indexing="ij")
    return FiniteDomain(np.stack([m.ravel() for m in mesh], axis=1), name=f"grid{n}^{dim}")


class Availability:
    """Availability schedule: ``mask(t)`` is a boolean (n,) array of X_t (t = 1, 2, ...)."""

    def mask(self, t: int) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def describe(self) -> str:  # pragma: no cover
        raise NotImplementedError


@dataclass(frozen=True)
class AlwaysAvailable(Availability):
    n: int

    def mask(self, t: int) -> np.ndarray:
        return np.ones(self.n, dtype=bool)

    def describe(self) -> str:
        return "X_t = X for all t"


@dataclass(frozen=True)
class AlternatingAvailability(Availability):
    """X_t = X on odd t and ``restricted`` on even t (paper 000's toy: the true tall hill is excluded)."""

    restricted: np.ndarray = field(repr=False)
    note: str = "restricted on even t"

    def __post_init__(self) -> None:
        r = np.asarray(self.restricted, dtype=bool)
        if not r.any():
            raise BoundcheckError("the restricted set X_t must not be empty")
        object.__setattr__(self, "restricted", r)

    def mask(self, t: int) -> np.ndarray:
        return self.restricted if t % 2 == 0 else np.ones_like(self.restricted)

    def describe(self) -> str:
        return f"X_t alternates: full X on odd t, {self.note}"
