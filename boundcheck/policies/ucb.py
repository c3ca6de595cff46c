"""The one selection block of the UCB family: every UCB variant (GP-UCB and IGP-UCB here; PE-GP-UCB, the
prior-selection baselines, ET-GP-UCB, R-GP-UCB, TV-GP-UCB, Zhou & Shroff's R-/SW-GP-UCB and combinatorial
GP-UCB/GP-BUCB in the papers' folders) subclasses :class:`UCBPolicy`.

One block, so the index U_t = μ + w_t σ, its argmax and the records ``mu``, ``sigma``, ``ucb``, ``width`` are
written once for all variants; a variant overrides only what differs (the loop and the hooks:
:class:`UCBPolicy`).
"""

from __future__ import annotations

import numpy as np

from .base import Policy

__all__ = ["UCBPolicy"]


class UCBPolicy(Policy):
    """Base class of the UCB variants. Subclasses set ``self.width`` (the (T+1,) width schedule) in ``start`` or
    override :meth:`width_at`, and expose the model they score with.

    The selection loop every variant shares::

        for t = 1..T:
            μ, σ ← the model the algorithm scores with                      (mean_sd)
            U_t(x) = μ(x) + w_t σ(x)                                        (index; w_t = width_at(t))
            x_t = argmax_{x ∈ X_t} U_t(x)                                   (argmax: the action set's exact oracle,
                                                                             ties to the lowest index)

    w_t is the multiplier of σ the paper writes: β_t in Srinivas et al. and Chowdhury & Gopalan, √β_t in the
    combinatorial and event-triggered papers; the study's schedule holds that multiplier, so the index is the same
    expression for all of them. A variant overrides only what differs: its model (``mean_sd``), its width
    (``width_at``), its index, its argmax (PE-GP-UCB's joint argmax over (x, p); a super arm's oracle) and the
    records it adds (``step_records``). The records ``mu``, ``sigma``, ``ucb`` (μ, σ and U_t at the choice) and
    ``width`` are written here, each only when the class declares it in ``records``.
    """

    one_arm = True  # argmax takes the oracle's first base arm

    _rows: np.ndarray
    conformance_monitors = frozenset({"conform_gap"})

    def __init_subclass__(cls, **kwargs) -> None:
        # as a shadow, a UCB variant supplies every record it declares: each is computed at the implementation's
        # action (:meth:`adopt`), its update-time records from the same state (a variant may narrow the set)
        super().__init_subclass__(**kwargs)
        if "shadow_records" not in cls.__dict__:
            cls.shadow_records = frozenset(cls.records) | frozenset(cls.final_records)

    def width_at(self, t: int) -> float:
        """w_t, the multiplier of σ in the index at step t."""
        return self.width[t]

    def mean_sd(self, t: int, available) -> tuple[np.ndarray, np.ndarray]:
        """μ_{t−1} and σ_{t−1} on the domain, (m, n): by default the exposed posterior's first prior."""
        post = self.posterior
        return post.mean()[:, 0], post.sd()[:, 0]

    def index(self, t: int, mu: np.ndarray, sd: np.ndarray, width: float) -> np.ndarray:
        """U_t = μ + w_t σ (what a variant with another index overrides)."""
        return mu + width * sd

    def argmax(self, score: np.ndarray, sd: np.ndarray, available) -> tuple[np.ndarray, tuple | None]:
        """The (m, K) action maximising the index over X_t, and where the chosen point sits in ``score`` (an index
        tuple, None for super arms): the action set's exact oracle, ties to the lowest index."""
        x_t = self.ctx.actions.oracle(score, available)[:, 0]
        return x_t[:, None], (self._rows, x_t)

    def step_records(self, t: int, action: np.ndarray, mu: np.ndarray, sd: np.ndarray,
                     score: np.ndarray) -> dict[str, np.ndarray]:
        """The records a variant adds at step t (after ``mu``, ``sigma``, ``ucb``, ``width``)."""
        return {}

    def select(self, t: int, available: np.ndarray) -> np.ndarray:
        w = self.width_at(t)
        mu, sd = self.mean_sd(t, available)
        score = self.index(t, mu, sd, w)
        self._score = score  # kept for conformance(), when this policy runs as a shadow
        self._step = (w, mu, sd)  # and for adopt()
        action, at = self.argmax(score, sd, available)
        self.record = self._records_at(t, action, at)
        return action

    def _records_at(self, t: int, action: np.ndarray, at: tuple | None) -> dict[str, np.ndarray]:
        """The step's records at ``action`` (``at``: where it sits in the index; None for super arms)."""
        w, mu, sd = self._step
        score = self._score
        record: dict[str, np.ndarray] = {}
        if at is not None:
            if "mu" in self.records:
                self.mu_t = record["mu"] = mu[at]
            if "sigma" in self.records:
                self.sd_t = record["sigma"] = sd[at]
            if "ucb" in self.records:
                record["ucb"] = score[at]
        if "width" in self.records:
            record["width"] = np.full(action.shape[0], w)
        record.update(self.step_records(t, action, mu, sd, score))
        return record

    def locate(self, action: np.ndarray) -> tuple | None:
        """Where ``action`` sits in the step's index, as :meth:`argmax` reports its own choice (a variant whose
        index has more axes than the domain, PE-GP-UCB's (m, P, n), overrides it); None for super arms."""
        if action.shape[1] != 1:
            return None
        return self._rows, action[:, 0]

    def choice_values(self, score: np.ndarray) -> np.ndarray:
        """(m, n): the index of each base arm as the choice maximises it (a variant whose index has more axes
        than the domain, PE-GP-UCB's (m, P, n), overrides this with its maximum over the other axes)."""
        return score

    def conformance(self, t: int, available: np.ndarray, action: np.ndarray) -> dict[str, np.ndarray]:
        """``conform_gap`` = (U_t(own choice) − U_t(action)) / (1 + |U_t(own choice)|): zero when ``action``
        maximises this algorithm's index over X_t as well (a tie), positive when the action is one this
        algorithm would not take. Super arms are compared by the oracle's value, Σ_{i∈a} U_t(i)."""
        own = self.select(t, available)
        score = self.choice_values(self._score)

        def value(a: np.ndarray) -> np.ndarray:  # Σ over the super arm's base arms, −1 padding counting 0
            return np.where(a >= 0, np.take_along_axis(score, np.maximum(a, 0), axis=1), 0.0).sum(axis=1)

        best = value(own)
        return {"conform_gap": (best - value(action)) / (1.0 + np.abs(best))}

    def adopt(self, t: int, action: np.ndarray) -> None:
        """The records of this step at the implementation's action (see :meth:`Policy.adopt`); the state
        :meth:`update` reads (μ_{t−1}(x_t), σ_{t−1}(x_t), PE-GP-UCB's prior p_t and w_t) follows it too."""
        self.record = self._records_at(t, action, self.locate(action))
