"""A study: one theorem checked on one scenario with a set of policies, as objects.

:class:`StudySpec` is what crosses process boundaries (pickled, never re-resolved by name in a worker) and what
the resume key hashes: the theorem, its family, the scenario (every array), the policies (class, source and
parameters) and the run settings, so a changed scenario or policy under the same name never reuses stale chunks.

The number of runs is *not* part of the key: chunk c always holds runs [c·S, (c+1)·S), so a study extended to more
runs reuses every stored chunk whose runs are unchanged. Chunks are the unit of storage, resuming and sequential
looks, not of work: a worker simulates several as one batch, and a run's results do not depend on its batch
(``tests/study/test_parallel.py``). Details: docs/study.md, "A study and its resume key"."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from theory import Theorem

from ..claims.families import Family
from ..policies import PolicySpec
from ..utils.hashing import fingerprint
from ..world.scenario import Scenario
from .needs import StudyNeeds

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
    #: runs per stored chunk: chunk c holds runs [c·S, (c+1)·S). The unit of storage, of resuming and of the
    #: sequential tests' looks; *not* the unit of work (a worker simulates several consecutive chunks as one
    #: batch, see :func:`~boundcheck.study.runner.plan_tasks`)
    chunk_size: int = 25
    #: the algorithms whose claims are checked (default: the first policy); several user implementations
    #: can be checked side by side, the theorem's own algorithms then run as paired baselines
    checked: tuple[str, ...] = ()
    #: algorithm -> {claim id: why it does not apply} (the policy does not record what the claim reads)
    not_applicable: dict[str, dict[str, str]] = field(default_factory=dict)
    #: the checked algorithms that run beside a shadow of the theorem's algorithm (boundcheck.claims.conformance;
    #: the engine reads the shadows from the theorem instance): they add the conformance monitors to the runs
    shadowed: tuple[str, ...] = ()
    #: algorithm -> {claim id: what it reads that the code does not record} of the claims judged on its shadow's
    #: records instead (:func:`boundcheck.claims.conformance.shadow_fills`)
    on_shadow: dict[str, dict[str, str]] = field(default_factory=dict)
    #: what the study measures (:class:`~boundcheck.study.needs.StudyNeeds`): None, every step of every run
    needs: StudyNeeds | None = None

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
    def checked_algorithms(self) -> tuple[str, ...]:
        """The algorithms whose claims are checked (the first is ``main``)."""
        return self.checked or (self.main,)

    @property
    def algorithms(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.policies)

    def fingerprints(self) -> dict[str, str]:
        """Digests of the theorem, the family's code, the scenario and the policies; computed once per spec (a
        command asks for them several times: the key, the manifest) and kept beside its fields. A changed study is
        a new spec (``dataclasses.replace``), which computes its own."""
        fps = self.__dict__.get("_fingerprints")
        if fps is None:
            fps = {"theorem": fingerprint(self.theorem), "family": fingerprint(type(self.family)),
                   "scenario": fingerprint(self.scenario),
                   "policies": fingerprint([(p.name, p.factory, p.kwargs) for p in self.policies])}
            object.__setattr__(self, "_fingerprints", fps)  # frozen: not a field (eq, repr and replace ignore it)
        return dict(fps)

    def to_dict(self) -> dict:
        """The JSON configuration stored in the manifest (names for people, fingerprints for resuming)."""
        d = {"theorem": self.theorem.id, "scenario": self.scenario.name, "runs": self.runs,
             "horizon": self.horizon, "delta": self.delta, "seed": self.seed, "beta_scale": self.beta_scale,
             "chunk_size": self.chunk_size, "algorithms": list(self.algorithms),
             "fingerprints": self.fingerprints()}
        # added only when used, so that the keys of studies of the built-in algorithms do not change
        if self.checked and self.checked != (self.main,):
            d["checked"] = list(self.checked)
        if any(p.stream is not None for p in self.policies):
            d["streams"] = [p.stream for p in self.policies]
        if any(self.not_applicable.values()):
            d["not_applicable"] = {k: dict(v) for k, v in self.not_applicable.items() if v}
        if self.shadowed:
            d["shadowed"] = list(self.shadowed)
        if any(self.on_shadow.values()):  # the steps then hold the shadow's records too
            d["on_shadow"] = {k: sorted(v) for k, v in self.on_shadow.items() if v}
        if self.needs is not None:
            d["needs"] = self.needs.to_json()
        return d

    @property
    def key(self) -> str:
        """The resume key: everything that determines a run's results (not how many runs there are)."""
        return fingerprint({k: v for k, v in self.to_dict().items() if k != "runs"})

    @property
    def n_chunks(self) -> int:
        return -(-self.runs // self.chunk_size)

    def chunk_runs(self, chunk: int) -> list[int]:
        """The run indices of one chunk."""
        return list(range(chunk * self.chunk_size, min(self.runs, (chunk + 1) * self.chunk_size)))

    def chunks(self) -> Iterator[tuple[int, list[int]]]:
        """``(chunk, run indices)`` for every chunk, generated lazily (10¹² runs never make a list)."""
        return ((c, self.chunk_runs(c)) for c in range(self.n_chunks))
