"""A study: one theorem checked on one scenario with a set of policies, as objects.

:class:`StudySpec` is what crosses process boundaries (pickled, never re-resolved by name in a worker) and
what the resume key hashes: the theorem, its family, the scenario (every array), the policies (class, source
and parameters), and the run settings. A changed scenario or policy under the same name therefore never reuses
stale stored chunks."""

from __future__ import annotations

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
    chunk_size: int | None = None  # most runs per chunk; None: chosen from runs, workers and memory when run

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
        """Resume key: everything that determines the results. Not the chunking: a run's results do not
        depend on its chunk (``tests/test_parallel.py``), so a resume may use more or fewer workers."""
        return fingerprint({k: v for k, v in self.to_dict().items() if k != "chunk_size"})

    def chunks(self) -> list[tuple[int, list[int]]]:
        """(chunk number, run ids): at most ``chunk_size`` consecutive runs each, split as evenly as whole
        blocks of :data:`~boundcheck.model.sampling.ROW_BLOCK` runs allow (so that workers finish together)."""
        from ..model.posterior import arithmetic
        from ..model.sampling import ROW_BLOCK

        size = int(self.chunk_size or LEGACY_CHUNK_SIZE)
        if arithmetic() == "reference":  # the first engine's uniform chunks: the pinned results depend on them
            ids = list(range(self.runs))
            return [(c, ids[i:i + size]) for c, i in enumerate(range(0, self.runs, size))]
        blocks = -(-self.runs // ROW_BLOCK)
        n_chunks = min(-(-self.runs // size), blocks)
        bounds = [min(self.runs, (c * blocks // n_chunks) * ROW_BLOCK) for c in range(n_chunks + 1)]
        return [(c, list(range(bounds[c], bounds[c + 1]))) for c in range(n_chunks)]


#: chunk size of the first engine (and of the reference arithmetic)
LEGACY_CHUNK_SIZE = 25
