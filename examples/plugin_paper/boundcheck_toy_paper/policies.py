"""The toy paper's algorithms (its manifest's ``policies`` part): each lives in its own module, named after it;
this one declares them."""

from __future__ import annotations

from .toy_ucb import ToyUCB

__all__ = ["ToyUCB", "POLICIES"]

#: (name, factory, keyword arguments): what the paper's ``policies`` part registers
POLICIES = (("toy_ucb", ToyUCB, {}),)
