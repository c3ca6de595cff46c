"""The Scenario type: the truth, the models the algorithms are given, the domain and its action set, the noise.

A scenario states whether it satisfies its theorem's assumptions (``in_theory``); scenarios that do not
(misspecified truth, real-data-like functions) are negative controls and are labelled out of theory.

The truth is a GP prior (Bayesian theorems: f is drawn from it) or an :class:`~boundcheck.model.priors.RKHSFamily`
(frequentist theorems: f is a fixed RKHS member with an exact norm). ``candidates`` are the models the
algorithms use; ``model_noise`` is their likelihood variance λ (R², or 1 + 2/T for IGP-UCB's theory); ``B`` is
the RKHS norm bound the algorithms are given; ``gamma_rule`` says whether schedules use the certified γ curve
or a paper's uncertified rate formula.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ..errors import BoundcheckError
from ..model.domains import FiniteDomain
from ..model.priors import GPPrior, RKHSFamily
from ..utils.validation import check_int, check_nonnegative, check_positive, check_probability
from .actions import ActionSet, Availability, SingleArm

__all__ = ["Scenario"]


@dataclass(frozen=True, eq=False)
class Scenario:
    name: str
    description: str
    domain: FiniteDomain
    availability: Availability
    candidates: tuple[GPPrior, ...]
    truth: GPPrior | RKHSFamily
    truth_index: int | None  # index of the truth in candidates; None when misspecified
    noise: float  # R: noise standard deviation, used by the data and by every model
    horizon: int
    delta: float
    reference_index: int | None = None  # candidate used for truth-side monitors when misspecified
    in_theory: bool = True
    out_of_theory_reason: str = ""
    notes: tuple[str, ...] = field(default=())
    model_noise: str = "R2"  # the models' likelihood variance λ: "R2" (= R²), "1+2/T" (IGP-UCB), "1", "1+2/H"
    B: float | None = None  # RKHS norm bound given to the algorithms (frequentist theorems)
    gamma_rule: str = "certified"  # "certified" or "rate:<se|matern|constant>" (a paper's uncertified γ_t)
    gamma_rate_params: dict = field(default_factory=dict)  # d, nu for the rate formulas
    action_set: ActionSet | None = None  # None: one arm per round over ``availability``
    # theorem-specific parameters of the schedules the scenario fixes (e.g. GP-BUCB's ξ, ω; ``rescale_prior``
    # to use a theorem's prior-scale generalisation when k(x, x) > 1)
    params: dict = field(default_factory=dict)
    # not part of the scenario's content (the resume key): the default number of runs a scenario file gives,
    # and the file it was read from (sweeps re-read it with overrides)
    default_runs: int | None = field(default=None, compare=False)
    source: str | None = field(default=None, compare=False)
    # drifting functions with a variation budget (Zhou & Shroff 2021); defaults leave other scenarios unchanged
    noise_law: str = "gaussian"  # data noise: "gaussian" N(0, R²), "rademacher" ±R; "LAW:c" scales it by c
    P_T: float | None = None  # variation budget Σ‖f_{t+1} − f_t‖_k given to the theorem (None: the truth's own)
    window: int | None = None  # H (restart period) or w (window) of forgetting algorithms, 1 ≤ window ≤ T
    window_rule: str = ""  # "remark" / "remark_unknown": the window is re-derived when the horizon changes

    def __post_init__(self) -> None:
        from ..model.noise import parse_noise_law

        parse_noise_law(self.noise_law)
        if self.B is not None:
            check_positive("B (RKHS norm bound)", self.B)
        if self.P_T is not None:
            check_nonnegative("P_T (variation budget)", self.P_T)
        if self.window is not None:
            check_int("H / w (restart period or window)", self.window, 1, self.horizon)
        if self.window_rule not in ("", "remark", "remark_unknown"):
            raise BoundcheckError(f"scenario {self.name!r}: unknown window rule {self.window_rule!r}")

    @property
    def data_noise_sd(self) -> float:
        """The standard deviation of the observation noise actually drawn: R times the noise law's scale (R
        unless a negative control scales it, e.g. ``noise_law = "gaussian:2"``)."""
        from ..model.noise import parse_noise_law

        return float(self.noise) * parse_noise_law(self.noise_law)[1]

    @property
    def actions(self) -> ActionSet:
        """The action set: super arms of K base arms, or single arms over ``availability``."""
        return self.action_set if self.action_set is not None else SingleArm(self.availability)

    @property
    def monitor_index(self) -> int:
        return self.truth_index if self.truth_index is not None else int(self.reference_index or 0)

    @property
    def model_noise_var(self) -> float:
        """λ used by every model of the scenario (and by the information gain γ of the theorem)."""
        if self.model_noise == "R2":
            return self.noise**2
        if self.model_noise == "1+2/T":
            return 1.0 + 2.0 / self.horizon
        if self.model_noise == "1":
            return 1.0
        if self.model_noise == "1+2/H":  # λ = 1 + 2/H (or 1 + 2/w) of a forgetting algorithm (1 + 2/T per block)
            if self.window is None:
                raise BoundcheckError(f"scenario {self.name!r}: λ = 1 + 2/H needs a window H")
            return 1.0 + 2.0 / self.window
        raise BoundcheckError(f"scenario {self.name!r}: unknown model_noise {self.model_noise!r}")

    def at(self, horizon: int | None = None, delta: float | None = None) -> Scenario:
        """The same scenario run with another horizon or δ."""
        changes = {}
        if horizon is not None:
            changes["horizon"] = check_int("horizon", horizon)
            if changes["horizon"] != self.horizon:
                changes.update(self._horizon_dependent(changes["horizon"]))
        if delta is not None:
            changes["delta"] = check_probability("delta", delta)
        return replace(self, **changes) if changes else self

    def _horizon_dependent(self, horizon: int) -> dict:
        """Fields that follow the horizon: a drifting truth's design (its budget is over the whole horizon) and a
        window chosen by rule."""
        out = {}
        if hasattr(self.truth, "at_horizon"):
            out["truth"] = self.truth.at_horizon(horizon)
        if self.window_rule:
            from ..model.variation import remark_window

            P = None if self.window_rule == "remark_unknown" else self.declared_budget(out.get("truth"))
            out["window"] = remark_window(self.candidates[0].K, horizon, P)
        return out

    def declared_budget(self, truth=None) -> float | None:
        """The variation budget P_T the theorem is given: ``P_T``, else the truth's own certified budget."""
        if self.P_T is not None:
            return float(self.P_T)
        truth = self.truth if truth is None else truth
        return float(truth.budget_bound) if hasattr(truth, "budget_bound") else None

    def assumption_report(self) -> dict[str, tuple[bool, str]]:
        """Predicate name -> (satisfied, how), for every registered assumption predicate."""
        from .assumptions import evaluate_all

        return evaluate_all(self)
