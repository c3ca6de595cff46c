"""Scenario files small enough for a test to write and verify in a second: an 8-point grid on [0, 1].

The bad-input tests and the tests of what a user's policy hands back write them beside the command they run.
"""

from __future__ import annotations


def grid_scenario(name: str, description: str, horizon: int, lengthscale: str, availability: str = "") -> str:
    """The TOML text of an 8-point 1-d grid with an RBF kernel, 2 runs, noise 0.1 and δ = 0.1.

    ``lengthscale`` is inserted verbatim (a placeholder a test replaces is fine); ``availability`` is the body of
    an ``[availability]`` table (none when empty).
    """
    text = (f'name = "{name}"\ndescription = "{description}"\nhorizon = {horizon}\ndelta = 0.1\nnoise = 0.1\n'
            f'runs = 2\n\n[domain]\ngrid = {{n = 8, dim = 1, low = 0.0, high = 1.0}}\n\n[kernel]\n'
            f'family = "rbf"\nlengthscale = {lengthscale}\n\n[[priors]]\nname = "p"\nmean = 0.0\n\n[truth]\n'
            f'prior = "p"\n')
    return text + (f"\n[availability]\n{availability}" if availability else "")
