"""The batched policy protocol every algorithm implements (:class:`Policy`), and its run context.

A policy acts on a batch of ``m`` independent runs at once (leading axis), so one Python-level step serves all
runs of a chunk: the engine calls ``select`` and ``update`` once per step for the whole batch. :class:`Policy`
states the protocol (the calls, the records and monitors a policy declares, the models it exposes by role);
:class:`RunContext` is what a policy is given at the start of a batch; :data:`MODEL_ROLES` names the roles
under which a policy's models are exposed to the truth-side observers and the planted defects.

Ordinary per-run code (one object per run, ``ask(t, available) -> index`` and ``tell(index, y)``) implements
:class:`~boundcheck.policies.asktell.AskTellPolicy` instead; an adapter runs it in this batched protocol.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from ..model.kernels import KernelSpec, kernel_spec
from ..model.posterior import Posterior
from ..model.priors import GPPrior, RKHSFamily
from ..world.actions import ActionSet, masked_argmax

__all__ = ["RunContext", "Policy", "masked_argmax", "MODEL_ROLES"]

#: the roles under which :meth:`Policy.models` exposes a policy's models, and what each must offer
MODEL_ROLES = {
    "posterior": "the Posterior the policy scores with (mean, sd, condition_batch, propagate); its prior "
                 "``truth_prior`` is the one the truth-side monitors read",
    "block": "a time-invariant posterior of the data since the last reset (condition, reset): event-triggered "
             "and restarted GP-UCB",
    "paths": "a pathwise sampler of the posterior (draw, observe): GP-TS's joint draws",
    "arm_model": "the model of a combinatorial policy's base arms (begin_round, mean_sd, update; ``finite``, "
                 "``post``)",
}


@dataclass
class RunContext:
    """What a policy is given at the start of a batch of runs."""

    runs: int  # m
    horizon: int  # T
    candidates: tuple[GPPrior, ...]  # the candidate priors U (the model(s) the theorem gives the algorithm)
    truth: GPPrior | RKHSFamily  # the prior f is drawn from, or the RKHS family (only the oracle may use it)
    noise_sd: float  # R, the noise level of the data
    noise_var: float  # λ, the model's likelihood variance (R² in the Bayesian setting, 1 + 2/T for IGP-UCB)
    beta: np.ndarray  # (T+1,): beta[t] for t = 1..T (beta[0] unused), scaling already applied
    xi: np.ndarray  # (T+1,): noise-sum thresholds ξ_t
    actions: ActionSet  # availability, the oracle and K
    rngs: list[np.random.Generator] = field(default_factory=list)  # this policy's stream per run
    truth_index: int | None = None  # index of the truth in ``candidates`` (None: misspecified)
    reference_index: int | None = None  # prior used for truth-side monitors when misspecified
    # other (T+1,) schedules by name, e.g. the β of a baseline that is not the theorem's algorithm; a policy
    # whose name is a key uses that schedule instead of ``beta`` (the theorem's own algorithm uses ``beta``)
    schedules: dict[str, np.ndarray] = field(default_factory=dict)
    delta: float = 0.1  # the theorem's δ
    window: int | None = None  # H (restart period) or w (window) of forgetting algorithms, from the scenario
    points: np.ndarray | None = None  # (n, d) the domain's points (the ask/tell context passes them on)
    B: float | None = None  # the RKHS norm bound the theorem gives the algorithm (frequentist theorems)
    run_ids: tuple[int, ...] = ()  # the Monte Carlo run of each row (consecutive), for messages and first_run

    @property
    def first_run(self) -> int:
        """Id of the batch's first run (runs are consecutive): fixes blocked products' rounding
        (:func:`~boundcheck.model.sampling.rows_matmul`), so a run's results do not depend on its batch."""
        return int(self.run_ids[0]) if self.run_ids else 0

    @property
    def max_observations(self) -> int:
        """T·K: the most observations a run's posterior can hold (sizes the data-space representation)."""
        return int(self.horizon) * int(self.actions.K)

    @property
    def monitor_index(self) -> int | None:
        """The candidate the truth-side monitors use: the truth, else the designated reference."""
        return self.truth_index if self.truth_index is not None else self.reference_index

    def kernel_spec(self, index: int = 0, K: np.ndarray | None = None, points: np.ndarray | None = None) -> KernelSpec:
        """The kernel of candidate prior ``index`` as a modelling stack sees it (family and parameters on
        ``points``, or the matrix by index): :func:`~boundcheck.model.kernels.kernel_spec`, solved once per
        context and prior. ``K``/``points`` stand for the prior's matrix and the points where the caller holds
        read-only copies of them."""
        cache = self.__dict__.setdefault("_kernel_specs", {})
        if index not in cache:
            cache[index] = kernel_spec(self.points if points is None else points,
                                       self.candidates[index].K if K is None else K)
        return cache[index]

    def schedule(self, name: str) -> np.ndarray:
        """The width schedule of the policy ``name``: its own when the study gives one, else ``beta``."""
        return np.asarray(self.schedules.get(name, self.beta), dtype=float)


class Policy:
    """Base class of the batched policy protocol.

    A policy acts on a batch of ``m`` independent runs at once (leading axis). Per step the engine calls

    * ``select(t, available) -> action``: ``available`` is a boolean array broadcastable to (m, n) (the base arms
      in X_t); the action is an (m, K) integer array of base arms (K = 1: one point per run; an (m,) array is
      accepted as K = 1);
    * ``update(t, action, y)``: the action taken and the observations, both (m, K).

    then ``finish()`` once. Per-step diagnostics go into ``self.record`` (name -> (m, ...) array) and must be
    declared in ``records``: the claims of a theorem that need a record run only on policies that declare it.
    A policy that keeps its model in a :class:`~boundcheck.model.posterior.Posterior` exposes it as ``posterior``
    (with ``truth_prior``, the index of the true prior in it) so that the engine can monitor the true posterior
    (confidence events, innovations) without a second model. Policies may add truth-side monitors with
    ``truth_monitors(t, f_t, action) -> {name: (m,) array}`` (declared in ``monitors``), called after the choice
    and before the update; they must never act on them.

    Every model a policy keeps and lets others see is returned by :meth:`Policy.models`, keyed by its role
    (:data:`MODEL_ROLES`): the truth-side observers a family registers and the planted defects
    (:mod:`boundcheck.claims.defects`) read a policy's models there, never through attribute names. A policy
    exposes only what it declares; a defect or an observer that needs a role the policy does not expose does not
    apply to it.

    A policy that keeps no posterior of its own (``provides_posterior = False``, e.g. a user's policy) is still
    monitored: the engine keeps a reference posterior of the true prior given that policy's data (see
    :mod:`boundcheck.study.engine`), unless its ``role`` is ``"uninformed"`` (random search).
    """

    name: str = "policy"
    label: str = "policy"
    records: ClassVar[frozenset[str]] = frozenset()  # per-step records the policy promises
    final_records: ClassVar[frozenset[str]] = frozenset()  # per-run records finish() promises
    monitors: ClassVar[frozenset[str]] = frozenset()  # truth-side monitors truth_monitors() promises
    #: True when ``start`` sets ``posterior`` and ``truth_prior`` (the engine then monitors the true posterior)
    provides_posterior: ClassVar[bool] = False
    role: ClassVar[str] = "baseline"  # "baseline", "oracle" (told the truth) or "uninformed" (random search)
    #: True for an algorithm that chooses one point per round (K = 1): it cannot act on super arms of K > 1 base
    #: arms, and a study of such a scenario is refused before it runs (False: it handles any K, or it is not
    #: known, e.g. a user's code, whose select() is checked at every step)
    one_arm: ClassVar[bool] = False
    description: ClassVar[str] = ""  # one line for reports' glossaries
    posterior: Posterior | None = None
    truth_prior: int | None = None  # index in ``posterior.priors`` of p* (for the truth-side monitors)
    #: False: the engine records no truth-side monitor of this policy and keeps no reference posterior for it
    #: (an experiment's runs that no claim reads); a class attribute or set per instance
    monitored: bool = True
    #: True for an algorithm whose choice is random given the history (Thompson sampling): its conformance
    #: claim is a test of the law of the choices, not a check of every choice (:mod:`boundcheck.claims.conformance`)
    randomised: ClassVar[bool] = False
    #: the monitors :meth:`conformance` returns when this policy runs as a shadow
    conformance_monitors: ClassVar[frozenset[str]] = frozenset()
    #: the records (per-step and final) this policy, running as a shadow, computes at the *implementation's*
    #: action (:meth:`adopt`): what the claims may read from the shadow for a checked code that records less
    #: (:func:`boundcheck.claims.conformance.shadow_fills`). Records of the policy's own random draws are not
    #: among them: the implementation drew its own.
    shadow_records: ClassVar[frozenset[str]] = frozenset()

    def start(self, ctx: RunContext) -> None:
        self.ctx = ctx
        self.record: dict[str, np.ndarray] = {}

    def select(self, t: int, available: np.ndarray) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def update(self, t: int, action: np.ndarray, y: np.ndarray) -> None:  # pragma: no cover
        raise NotImplementedError

    def finish(self) -> dict[str, np.ndarray]:
        """Per-run diagnostics at the end of the horizon."""
        return {}

    def truth_monitors(self, t: int, f_t: np.ndarray, action: np.ndarray) -> dict[str, np.ndarray]:
        """The policy's own truth-side monitors of step t (declared in ``monitors``): f_t is the truth, which the
        policy must never act on. Called by the engine after ``select`` and before ``update``."""
        return {}

    def conformance(self, t: int, available: np.ndarray, action: np.ndarray) -> dict[str, np.ndarray]:
        """As a *shadow* of another implementation of this algorithm (:mod:`boundcheck.claims.conformance`): how
        the implementation's ``action`` at step t compares with what this algorithm would do given the same
        history, computed before :meth:`update` is told that action and its observation. A deterministic
        algorithm returns ``conform_gap`` (its index at its own choice minus at the implementation's, relative);
        a randomised one ``conform_z`` (Φ⁻¹ of the randomised rank of the choice under its law). Policies that
        cannot act as a shadow leave ``conformance_monitors`` empty."""
        raise NotImplementedError(f"{type(self).__name__} cannot run as a shadow")

    def adopt(self, t: int, action: np.ndarray) -> None:
        """As a shadow, after :meth:`conformance`: take the implementation's ``action`` as this step's choice, so
        that ``record`` (after :meth:`update`) holds this algorithm's quantities at that action — μ_{t−1}(x_t),
        σ_{t−1}(x_t), its index, … — from which the claims are judged when the implementation does not record
        them (the records named in :attr:`shadow_records`). Where the implementation conformed, its action is
        one this algorithm would take, so these are the theorem's algorithm's records on the same data."""
        self.record = {}

    def keep_runs(self, keep: np.ndarray) -> bool:
        """Retire the runs not in ``keep`` (boolean, one per current run) from the batch, when a study stops runs
        at an event (:class:`~boundcheck.study.needs.StudyNeeds`): the kept runs must go on exactly as they would
        have in the full batch. Returns False when the policy cannot (the default): the engine then keeps
        simulating every run of the batch and ignores the finished ones' steps."""
        return False

    def models(self) -> dict[str, object]:
        """The models the policy exposes, by role (:data:`MODEL_ROLES`), after ``start``: the posterior it keeps
        as ``posterior`` by default; subclasses add the others they keep."""
        return {} if self.posterior is None else {"posterior": self.posterior}
