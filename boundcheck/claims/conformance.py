"""Conformance observed from the outside: is the checked code the theorem's algorithm?

The theorem's claims hold for the theorem's algorithm, and code that runs without the records a claim reads
leaves most of them "not applicable". So every checked implementation runs in lockstep beside a *shadow*: a fresh
instance of the theorem's own algorithm, given the same run context and a random stream of its own, told the
implementation's actions and observations and nothing else (never f). Before each update the shadow says how the
implementation's action compares with its own (:meth:`~boundcheck.policies.Policy.conformance`): for
deterministic algorithms a choice that does not maximise the shadow's index within :data:`TOLERANCE` is a
counterexample (a ``deterministic`` claim); for randomised ones the randomised rank of the choice among the
shadow's is tested as a ``calibration`` claim.

When the checked code *is* the theorem's own unwrapped algorithm no shadow runs and the claim is a sanity identity
(:func:`identity_reasons`); ``verify --no-conformance`` turns it off. The statistics: docs/conformance.md.
"""

from __future__ import annotations

import numpy as np

from theory import Claim, Theorem

from .table import ClaimSpec

__all__ = ["CONFORMANCE", "TOLERANCE", "conformance_spec", "identity_reasons", "OFF_REASON", "OUT_OF_THEORY",
           "shadow_fills", "ON_SHADOW", "NO_SHADOW"]

#: the claim's id (every family's table ends with it)
CONFORMANCE = "conformance"
#: relative tolerance on the index gap (U_t(own) − U_t(a_t)) / (1 + |U_t(own)|): round-off of a different but
#: exact posterior computation (a Cholesky refit against rank-1 updates, √ of a clipped variance) stays far below
TOLERANCE = 1e-6
#: why the claim is not applicable with ``--no-conformance``, and the study's out-of-theory label
OFF_REASON = "turned off (--no-conformance)"
OUT_OF_THEORY = "not the theorem's algorithm (--no-conformance: the checked code is not held to it)"
_IDENTITY = "no shadow ran: the checked code is the theorem's own algorithm, which conforms by construction"
#: how a claim judged on the shadow's records is labelled (the claim reads records the checked code does not keep)
ON_SHADOW = ("judged on the shadow: the checked code chose its action at every step, so the shadow's μ, σ, β at "
             "those actions are the theorem's algorithm's on the same data (a step where it did not is a "
             "counterexample of the conformance claim)")
#: why such a claim is not applicable when the shadow does not run
NO_SHADOW = "the shadow that would supply them does not run"


def shadow_fills(shadow, checked) -> frozenset[str]:
    """The records the claims read from the shadow for a checked code: those the theorem's algorithm computes at
    the code's action as a shadow (its ``shadow_records``) and the code does not record itself (``shadow`` and
    ``checked``: policy classes or instances; the code's own records, where it keeps them, are what is judged).

    Sound because of the conformance claim judged beside them: on a run where the code chose, at every step, an
    action the theorem's algorithm would choose given the same history, the shadow *is* the theorem's algorithm
    on that run's data, and its μ_{t−1}, σ_{t−1}, β_t at the code's actions are the records of the lemmas; a run
    where the code did not is already a counterexample (deterministic algorithms), or moves the law test of the
    choices (randomised ones, whose records of their own draws never come from the shadow)."""
    offer = frozenset(getattr(shadow, "shadow_records", None) or ())
    own = frozenset(getattr(checked, "records", None) or ()) | frozenset(getattr(checked, "final_records", None) or ())
    return offer - own


def _randomised(theorem: Theorem) -> bool:
    """Whether the theorem's algorithm chooses at random given the history (its policy class says so)."""
    from ..policies import policy_spec

    try:
        return bool(getattr(policy_spec(theorem.algorithm).declared, "randomised", False))
    except Exception:  # noqa: BLE001 - a theorem whose algorithm is not a registered policy: no shadow anyway
        return False


def _statistic(ev) -> dict[str, np.ndarray]:
    """fail: some step's choice is not one the shadow would make (beyond :data:`TOLERANCE`); premise: every run;
    steps: how many steps did not conform; first: the first of them (0: none), for the reader of the runs table.
    Without a shadow's monitor (no shadow ran, or a randomised algorithm) nothing fails."""
    tr = ev.traj.algorithms[ev.main]
    gap = tr.monitors.get("conform_gap")
    m = ev.traj.run_ids.size
    bad = np.zeros((m, 1), dtype=bool) if gap is None else np.asarray(gap) > TOLERANCE
    first = np.where(bad.any(axis=1), bad.argmax(axis=1) + 1, 0)
    out = {"fail": bad.any(axis=1), "premise": np.ones(m, dtype=bool), "steps": bad.sum(axis=1), "first": first}
    if gap is not None:  # the run's largest relative gap: round-off (float32) or a different algorithm?
        out["gap"] = np.nan_to_num(np.asarray(gap, dtype=float), nan=0.0).max(axis=1)
    return out


def conformance_spec(theorem: Theorem) -> ClaimSpec:
    """The conformance claim of ``theorem`` (deterministic or calibration, from its algorithm's policy class)."""
    algo = theorem.algorithm
    if _randomised(theorem):
        claim = Claim(CONFORMANCE, "calibration",
                      f"the checked code's choices follow the law of {algo}'s choices given the same history "
                      "(randomised ranks among the shadow's independent draws are i.i.d. U(0, 1))",
                      f"the theorem's algorithm ({algo}); boundcheck.claims.conformance")
        return ClaimSpec(claim, _statistic, sample="conform_z")
    claim = Claim(CONFORMANCE, "deterministic",
                  f"every choice of the checked code is one {algo} would make given the same history (its index "
                  f"within a relative {TOLERANCE:g} of the maximum over X_t)",
                  f"the theorem's algorithm ({algo}); boundcheck.claims.conformance")
    return ClaimSpec(claim, _statistic)


def with_conformance(specs: tuple[ClaimSpec, ...], theorem: Theorem) -> tuple[ClaimSpec, ...]:
    """A family's claim table with the conformance claim appended (once)."""
    if any(s.id == CONFORMANCE for s in specs):
        return specs
    return (*specs, conformance_spec(theorem))


def identity_reasons(inst) -> dict[str, str]:
    """{conformance: why it is an identity} when no shadow runs in this instance (``inst.shadows`` empty)."""
    return {} if getattr(inst, "shadows", None) else {CONFORMANCE: _IDENTITY}
