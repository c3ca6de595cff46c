"""The toy paper's planted defect: a bug the verification must catch (``boundcheck verify --defect``,
``boundcheck power``).

A defect is a wrapper, never a switch inside the algorithm: ``narrow_width`` wraps the checked algorithm's
spec so that each instance, once started, uses a tenth of the width the theorem prescribes (as if β were
computed without its factor 2 and its log, ten times too small), while the checks keep the theorem's β. The
optimism step (Lemma 2) sees it: at steps where the confidence event holds, UCB_{t−1}(x_t) < max f.
"""

from __future__ import annotations

import functools

from boundcheck.claims.defects import Defect
from boundcheck.policies import PolicySpec

FACTOR = 0.1


def _narrowed(spec: PolicySpec, factor: float):
    """Build the algorithm, then shrink the width it reads after ``start`` (module-level: picklable into the
    worker processes)."""
    pol = spec.make()
    start = pol.start

    def patched(ctx) -> None:
        start(ctx)
        pol.width = pol.width * factor

    pol.start = patched
    return pol


def narrow_width(spec: PolicySpec) -> PolicySpec:
    return PolicySpec(spec.name, functools.partial(_narrowed, spec, FACTOR), {}, spec.label)


#: the generic defects of boundcheck (boundcheck.claims.defects) apply where a paper offers the hook they need: the
#: toy theorems have a width √β, the posterior of the true prior, f drawn from a GP prior, the oracle's argmax and
#: an explicit bound, as GP-UCB's Theorem 1 has
HOOKS = {th: frozenset({"width", "likelihood", "update", "conditioning", "gp_truth", "data_noise", "oracle", "bound"})
         for th in ("toy_ucb", "toy_ucb_overstated")}

DEFECTS = (
    Defect("toy_narrow_width", f"the toy algorithm uses {FACTOR:g}·√β, a tenth of its width, while the checks use "
           "the theorem's √β", ("toy_ucb", "toy_ucb_overstated"), policy=narrow_width),
)
