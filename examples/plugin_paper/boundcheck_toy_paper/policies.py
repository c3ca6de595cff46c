"""The toy paper's algorithm: GP-UCB with one fixed width √β, β = 2 log(|D| T / δ) (the horizon is known).

The selection rule is GP-UCB's (x_t = argmax μ_{t−1} + w_t σ_{t−1}, ties to the lowest index); what differs is
the width, which the family gives the theorem's algorithm (``ToyFamily.schedules``): constant in t. The class
only names the algorithm and describes it.
"""

from __future__ import annotations

from boundcheck.policies.gp_ucb import GPUCB


class ToyUCB(GPUCB):
    description = "known-horizon GP-UCB: one fixed width √(2 log(|D| T/δ)) for every step (the toy paper)"

    def __init__(self, name: str = "toy_ucb", label: str = "Toy-UCB (fixed width)") -> None:
        super().__init__(name=name, label=label)


#: (name, factory, keyword arguments): what the paper's ``policies`` part registers
POLICIES = (("toy_ucb", ToyUCB, {}),)
