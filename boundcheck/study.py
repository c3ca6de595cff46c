"""A study: one theorem checked on one scenario with one configuration, and everything derived from it
that every chunk of runs needs (schedules, bound curve, certified γ curves)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field

import numpy as np

__all__ = ["StudyConfig", "StudyContext"]


@dataclass(frozen=True)
class StudyConfig:
    """The configuration that determines the results (what is hashed for resuming)."""

    theorem: str
    scenario: str
    runs: int
    horizon: int
    delta: float
    seed: int
    beta_scale: float = 1.0
    chunk_size: int = 25
    algorithms: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        d = asdict(self)
        d["algorithms"] = list(self.algorithms)
        return d

    @property
    def key(self) -> str:
        return hashlib.sha256(json.dumps(self.to_dict(), sort_keys=True).encode()).hexdigest()[:16]

    def chunks(self) -> list[tuple[int, list[int]]]:
        ids = list(range(self.runs))
        return [(c, ids[i:i + self.chunk_size]) for c, i in enumerate(range(0, self.runs, self.chunk_size))]


@dataclass
class StudyContext:
    """Numbers shared by all chunks (computed once in the parent process)."""

    config: StudyConfig
    in_theory: bool
    out_of_theory_reasons: list[str]
    values: dict[str, float]  # the theorem's bound symbols
    beta: np.ndarray  # (T+1,) β_t used by the algorithms (scaled)
    xi: np.ndarray  # (T+1,)
    B: float
    C: float
    bound_T: float
    bound_terms: dict[str, float]
    anytime: np.ndarray  # (T,) Bound_T(t), t = 1..T
    gamma_upper: np.ndarray  # (T,) certified upper bound on γ_t = max_p γ^p_t
    gamma_lower: np.ndarray  # (T,) greedy lower end
    gamma_methods: dict[str, list[float]]  # method -> value at T (max over kernel groups)
    group_gamma_upper: dict[str, np.ndarray] = field(default_factory=dict)  # kernel_key -> (T,)
    schedules: dict[str, np.ndarray] = field(default_factory=dict)  # further (T+1,) schedules (baselines' β, …)
    gamma_used: np.ndarray | None = None  # (T,) the γ_t the schedules and the bound use (certified or a paper's rate)
