"""The toy paper's algorithm: known-horizon GP-UCB (GP-UCB with one fixed width, the horizon T being known)."""

from __future__ import annotations

from boundcheck.policies.gp_ucb import GPUCB

__all__ = ["ToyUCB"]


class ToyUCB(GPUCB):
    """Known-horizon GP-UCB (the toy paper's Algorithm 1)::

        β = 2 log(|D| T / δ)                                   # Lemma 1: one width for every t ≤ T
        for t = 1..T:
            x_t = argmax_{x ∈ D} μ_{t−1}(x) + √β σ_{t−1}(x)      # ties to the lowest index
            y_t = f(x_t) + ε_t;   condition the posterior on (x_t, y_t)

    The selection rule is GP-UCB's; what differs is the width, which the family gives the theorem's algorithm
    (``ToyFamily.schedules``): constant in t. The class only names the algorithm and describes it."""

    description = "known-horizon GP-UCB: one fixed width √(2 log(|D| T/δ)) for every step (the toy paper)"

    def __init__(self, name: str = "toy_ucb", label: str = "Toy-UCB (fixed width)") -> None:
        super().__init__(name=name, label=label)
