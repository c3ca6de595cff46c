"""The small policy interface every algorithm implements, and the shared acquisition helpers.

A policy acts on a batch of ``m`` independent runs at once (leading axis), so one Python-level step serves
all runs of a chunk. Per step the engine calls ``select(t, available)`` then ``update(t, idx, y)``.
Policies keep their model in a :class:`~boundcheck.posterior.BatchedPosterior` (the one engine), never a
private GP. Per-step diagnostics go into ``self.record`` (name -> (m,) array), per-run ones into
:meth:`finish`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..posterior import BatchedPosterior
from ..priors import GPPrior, RKHSFamily

__all__ = ["RunContext", "Policy", "masked_argmax"]


@dataclass
class RunContext:
    """What a policy is given at the start of a batch of runs."""

    runs: int  # m
    horizon: int  # T
    candidates: tuple[GPPrior, ...]  # the candidate priors U
    truth: GPPrior | RKHSFamily  # the prior f is drawn from, or the RKHS family (only the oracle may use it)
    noise_sd: float  # R, the noise level the model assumes
    beta: np.ndarray  # (T+1,): beta[t] for t = 1..T (beta[0] unused), scaling already applied
    xi: np.ndarray  # (T+1,): noise-sum thresholds ξ_t
    rngs: list[np.random.Generator] = field(default_factory=list)  # this policy's stream per run
    truth_index: int | None = None  # index of the truth in ``candidates`` (None: misspecified)
    reference_index: int | None = None  # prior used for truth-side monitors when misspecified
    noise_var: float | None = None  # the model's likelihood variance λ (None: R², the Bayesian choice)
    # other (T+1,) schedules by name, e.g. the β of a baseline that is not the theorem's algorithm; a policy
    # whose name is a key uses that schedule instead of ``beta`` (the theorem's own algorithm uses ``beta``)
    schedules: dict[str, np.ndarray] = field(default_factory=dict)

    @property
    def model_noise_var(self) -> float:
        return self.noise_sd**2 if self.noise_var is None else float(self.noise_var)


class Policy:
    """Base class: ``start``, ``select``, ``update``, ``finish``."""

    name: str = "policy"
    label: str = "policy"
    posterior: BatchedPosterior | None = None
    truth_prior: int | None = None  # index in ``posterior.priors`` of p* (for the truth-side monitors)

    def start(self, ctx: RunContext) -> None:
        self.ctx = ctx
        self.record: dict[str, np.ndarray] = {}

    def select(self, t: int, available: np.ndarray) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def update(self, t: int, idx: np.ndarray, y: np.ndarray) -> None:  # pragma: no cover
        raise NotImplementedError

    def finish(self) -> dict[str, np.ndarray]:
        """Per-run diagnostics at the end of the horizon."""
        return {}


def masked_argmax(score: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Row-wise argmax over the flattened trailing axes where ``mask`` is True.

    Ties go to the lowest flat index (lowest prior, then lowest point): a deterministic rule, as the
    theory requires (spec 000 §6.9)."""
    m = score.shape[0]
    flat = np.where(mask, score, -np.inf).reshape(m, -1)
    return np.argmax(flat, axis=1)
