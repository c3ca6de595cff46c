"""Planted defects of R-GP-UCB and SW-GP-UCB (Zhou & Shroff 2021, Theorems 1 and 2) and the generic defect hooks
of the paper's theorems (:mod:`boundcheck.claims.defects`: same posterior interface, β_t from the study's
schedule). The paper's own defects are one for each way these algorithms forget or are told the wrong thing:
``restart_late``, ``window_off_by_one``, ``norm_understated`` (each function says what it breaks and which claim
sees it).

Lemmas 1–2 hold for *any* choice rule that does not read the future noise, so no bug in how the algorithm
chooses can break the confidence events: only a world outside what the theorem is told (a norm or a noise
level above the stated one) does. The bias/noise (D3) and drift (D4) bounds are identities of the replay's
formulas for any choices (``theory/r_sw_gp_ucb.py``): no planted defect of an algorithm can move them.
"""

from __future__ import annotations

from dataclasses import replace

from boundcheck.claims.defects import Defect, wrap_policy
from boundcheck.errors import BoundcheckError
from boundcheck.model.dataspace import make_posterior
from boundcheck.policies import Policy
from boundcheck.world.scenario import Scenario

_HOOKS = frozenset({"width", "likelihood", "update", "conditioning", "data_noise", "oracle", "bound"})
#: f is a fixed RKHS function per run whose norm the study does not scale: no ``gp_truth``, no ``rkhs_norm``
#: (``norm_understated`` below scales the sequence itself); the literal (pseudocode) theorems get no defect
HOOKS = {"r_gp_ucb": _HOOKS, "sw_gp_ucb": _HOOKS}


def restart_late(pol: Policy) -> None:
    """R-GP-UCB forgetting its samples at the end of rounds t ≡ 1 (mod H) instead of t ≡ 0: one round late.

    Algorithm 1's reset rule (t − 1) mod H = 0 (ledger ZS13), read at the start of round t + 1: every block keeps
    the last sample of the previous one. The posterior the algorithm acts on is no longer the replay's on the
    block (D1), and its σ's no longer add up to the block's information gain (D2's chain rule)."""
    def patched(t, action, y):
        post = pol.models()["posterior"]
        post.condition_batch(action, y)
        if t % pol.window == 1 % pol.window:  # the correct rule is t % H == 0 (round t + 1 opens a block)
            post.reset()

    pol.update = patched


def window_off_by_one(pol: Policy) -> None:
    """SW-GP-UCB's window posterior sized for w + 1 samples (the oldest sample leaves one round late).

    The pseudocode's 1∨(t−w)..t read literally (ledger ZS14). Seen by D1 (the posterior against the replay on the
    last w samples) and D2 (the new sample's term of the chain rule, from the algorithm's own σ)."""
    start = pol.start

    def patched(ctx):
        start(ctx)
        pol.posterior = make_posterior(ctx.candidates[:1], ctx.noise_var, ctx.runs, window=pol.window + 1)

    pol.start = patched


def norm_understated(sc: Scenario, factor: float = 3.0) -> Scenario:
    """Every f_t scaled to ‖f_t‖_k = ``factor``·B while the scenario (the algorithms, the theorem) keeps B and P_T.

    An RKHS norm bound stated too small (the drift budget P_T is unchanged): Lemmas 1–2's bias term
    k(x)ᵀ(K+λI)⁻¹f_t(X) − f_t(x) is then up to 3Bσ, beyond the B in β^conf, and the confidence events fail
    (``confidence_event``, ``confidence_event_block``). The analogue of the generic ``rkhs_norm_tripled`` for a
    drifting sequence, whose norm the generic transform does not know how to scale (no ``rkhs_norm`` hook)."""
    seq = sc.truth
    if not hasattr(seq, "budget_bound") or not hasattr(seq, "B"):
        raise BoundcheckError(f"defect norm_understated needs a drifting RKHS sequence (a vb_* scenario); "
                              f"{sc.name} has none")
    # the told budget is pinned first: a scenario that reads P_T off its truth would otherwise follow the change
    return replace(sc, truth=replace(seq, B=factor * seq.B), P_T=sc.declared_budget())


DEFECTS = (
    Defect("restart_late", "R-GP-UCB restarts one round late (each block keeps the previous block's last sample)",
           ("r_gp_ucb",), policy=wrap_policy(restart_late)),
    Defect("window_off_by_one", "SW-GP-UCB keeps the last w + 1 samples, not w (the pseudocode's 1∨(t−w)..t, ZS14)",
           ("sw_gp_ucb",), policy=wrap_policy(window_off_by_one)),
    Defect("norm_understated", "every f_t has ‖f_t‖_k = 3B while the algorithms and the theorem are told B "
           "(P_T unchanged)", ("r_gp_ucb", "sw_gp_ucb"), scenario=norm_understated),
)
