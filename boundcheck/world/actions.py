"""What a learner may do each round: availability schedules X_t ⊆ X and action sets of up to K base arms.

An :class:`ActionSet` owns the three things every algorithm and every regret computation share:

* ``available(t, rngs)`` — the available base arms X_t, as a boolean array broadcastable to (m, n)
  (deterministic schedules return (n,); random, exogenous ones draw (m, n) from the runs' availability
  streams, which are independent of f and of the noise);
* ``oracle(score, available)`` — the best action for a per-arm score: (m, K) base-arm indices (the argmax for
  K = 1, the top K for a semi-bandit, a path for a graph);
* ``value(f, action)`` and ``best_value(f, available)`` — f(a) = Σ_{i∈a} f(i) and max_a f(a), from which the
  engine computes the regret r_t = max_a f_t(a) − f_t(a_t).

Ties go to the lowest index, a deterministic rule as the theory requires (an exact argmax).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import BoundcheckError
from ..utils.validation import check_int

__all__ = ["Availability", "AlwaysAvailable", "AlternatingAvailability", "ActionSet", "SingleArm", "TopK",
           "masked_argmax"]


# ------------------------------------------------------------------------------------------ availability
class Availability:
    """Availability schedule: ``mask(t)`` is a boolean (n,) array of X_t (t = 1, 2, ...).

    Random schedules override :meth:`draw`, which receives one availability stream per run."""

    def mask(self, t: int) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def draw(self, t: int, rngs: list[np.random.Generator]) -> np.ndarray:
        """X_t for every run: (n,) when the same for all runs, else (m, n)."""
        return self.mask(t)

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


# -------------------------------------------------------------------------------------------- actions
def masked_argmax(score: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Row-wise argmax over the flattened trailing axes where ``mask`` is True (ties: lowest flat index)."""
    m = score.shape[0]
    flat = np.where(mask, score, -np.inf).reshape(m, -1)
    return np.argmax(flat, axis=1)


class ActionSet:
    """Base class: actions of up to ``K`` base arms over ``availability``."""

    K: int = 1
    availability: Availability

    def available(self, t: int, rngs: list[np.random.Generator]) -> np.ndarray:
        return self.availability.draw(t, rngs)

    padded: bool = False  # actions of different sizes are padded with −1 (paths)
    fixed_arms: bool = True  # the base arms are a fixed finite domain (False: drawn each round, contexts)
    #: the oracle returns a maximiser of Σ score exactly (theorems that assume an exact oracle check this flag:
    #: a user action set with a heuristic oracle leaves it False and is "not applicable" there)
    exact_oracle: bool = False

    def available_mask(self, available, m: int) -> np.ndarray:
        """X_t as a boolean array broadcastable to (m, n) (what actions are checked against)."""
        return np.asarray(available, dtype=bool)

    def realise(self, f: np.ndarray, available) -> np.ndarray:
        """The values of the round's base arms given the sampler's draw ``f`` (m, n) and X_t: ``f`` itself for a
        fixed finite domain; action sets whose base arms are drawn each round (contexts) map the draw to them."""
        return f

    def oracle(self, score: np.ndarray, available: np.ndarray) -> np.ndarray:  # pragma: no cover
        """The action maximising Σ_{i∈a} score(i) over the available ones: (m, K) base-arm indices."""
        raise NotImplementedError

    def value(self, f: np.ndarray, action: np.ndarray) -> np.ndarray:
        """f(a) = Σ_{i∈a} f(i) per run: (m,)."""
        rows = np.arange(f.shape[0])[:, None]
        return f[rows, action].sum(axis=1)

    def best_value(self, f: np.ndarray, available: np.ndarray) -> np.ndarray:
        """max_a f(a) over the available actions, per run: (m,)."""
        return self.value(f, self.oracle(f, available))

    def describe(self) -> str:
        return self.availability.describe()


@dataclass(frozen=True)
class SingleArm(ActionSet):
    """One base arm per round (K = 1): the oracle is the argmax over X_t."""

    availability: Availability
    exact_oracle = True

    @property
    def K(self) -> int:  # noqa: N802 - the papers' symbol
        return 1

    def oracle(self, score: np.ndarray, available: np.ndarray) -> np.ndarray:
        return masked_argmax(score, np.broadcast_to(available, score.shape))[:, None]

    def value(self, f: np.ndarray, action: np.ndarray) -> np.ndarray:
        return f[np.arange(f.shape[0]), action[:, 0]]

    def best_value(self, f: np.ndarray, available: np.ndarray) -> np.ndarray:
        return np.where(available, f, -np.inf).max(axis=1)


@dataclass(frozen=True)
class TopK(ActionSet):
    """Semi-bandit super arms: any K distinct available base arms; the oracle takes the K largest scores
    (ties to the lowest index). Needs at least K available arms every round."""

    availability: Availability
    k: int = 1
    exact_oracle = True

    def __post_init__(self) -> None:
        check_int("K (base arms per action)", self.k)

    @property
    def K(self) -> int:  # noqa: N802 - the papers' symbol
        return self.k

    def oracle(self, score: np.ndarray, available: np.ndarray) -> np.ndarray:
        avail = np.broadcast_to(available, score.shape)
        short = avail.sum(axis=1) < self.k
        if short.any():
            raise BoundcheckError(f"only {int(avail.sum(axis=1).min())} base arms available, fewer than K = {self.k}")
        s = np.where(avail, score, -np.inf)
        # stable sort on −score: equal scores keep index order, so ties go to the lowest index
        return np.argsort(-s, axis=1, kind="stable")[:, : self.k]

    def best_value(self, f: np.ndarray, available: np.ndarray) -> np.ndarray:
        """Σ of the K largest available values, computed apart from the oracle (so that a check comparing the
        oracle's choice with the maximum is not circular)."""
        s = np.where(np.broadcast_to(available, f.shape), f, -np.inf)
        return -np.sort(-s, axis=1)[:, : self.k].sum(axis=1)

    def describe(self) -> str:
        return f"top-{self.k} super arms; {self.availability.describe()}"
