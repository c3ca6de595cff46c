"""A study: one theorem checked on one scenario with a set of policies, as objects.

:class:`StudySpec` is what crosses process boundaries (pickled, never re-resolved by name in a worker) and
what the resume key hashes: the theorem, its family, the scenario (every array), the policies (class, source
and parameters), and the run settings. A changed scenario or policy under the same name therefore never reuses
stale stored chunks."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from theory import Theorem

from ..claims.families import Family
from ..policies import PolicySpec
from ..utils.hashing import fingerprint
from ..world.scenario import Scenario

__all__ = ["StudySpec"]


@dataclass(frozen=True)
class StudySpec:
    """Everything that determines a study's results."""

    family: Family
    scenario: Scenario  # at the study's horizon and δ
    policies: tuple[PolicySpec, ...]  # the theorem's algorithm and its baselines, in stream order
    runs: int
    seed: int
    beta_scale: float = 1.0
    chunk_size: int = 25

    @property
    def theorem(self) -> Theorem:
        return self.family.theorem

    @property
    def horizon(self) -> int:
        return int(self.scenario.horizon)

    @property
    def delta(self) -> float:
        return float(self.scenario.delta)

    @property
    def main(self) -> str:
        """The algorithm whose runs the claims are checked on (the first policy)."""
        return self.policies[0].name

    @property
    def algorithms(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.policies)

    def fingerprints(self) -> dict[str, str]:
        return {"theorem": fingerprint(self.theorem), "family": fingerprint(type(self.family)),
                "scenario": fingerprint(self.scenario),
                "policies": fingerprint([(p.name, p.factory, p.kwargs) for p in self.policies])}

    def to_dict(self) -> dict:
        """The JSON configuration stored in the manifest (names for people, fingerprints for resuming)."""
        return {"theorem": self.theorem.id, "scenario": self.scenario.name, "runs": self.runs,
                "horizon": self.horizon, "delta": self.delta, "seed": self.seed, "beta_scale": self.beta_scale,
                "chunk_size": self.chunk_size, "algorithms": list(self.algorithms),
                "fingerprints": self.fingerprints()}

    @property
    def key(self) -> str:
        return fingerprint(self.to_dict())

    @property
    def n_chunks(self) -> int:
        return -(-self.runs // self.chunk_size)

    def chunk_runs(self, chunk: int) -> list[int]:
        """The run indices of one chunk."""
        return list(range(chunk * self.chunk_size, min(self.runs, (chunk + 1) * self.chunk_size)))

    def chunks(self) -> Iterator[tuple[int, list[int]]]:
        """``(chunk, run indices)`` for every chunk, generated lazily (10¹² runs never make a list)."""
        return ((c, self.chunk_runs(c)) for c in range(self.n_chunks))
