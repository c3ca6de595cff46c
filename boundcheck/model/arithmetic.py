"""Which posterior arithmetic is in force: one switch that the posterior (:mod:`boundcheck.model.posterior`) and
the samplers' blocked products (:func:`boundcheck.model.sampling.rows_matmul`) both read, in a module of its own
so that neither imports the other for it.

"fast": the blocked in-place kernels of the posterior (default). "reference": the arithmetic of the first engine
(grid form, numpy broadcasting, one (m, n, n) temporary per update, single matrix products), bit-identical to
the regression pins recorded with it; tests run both and require identical selections and claims, floats to
round-off.
"""

from __future__ import annotations

from ..utils.switches import EnvSwitch

__all__ = ["ARITHMETICS", "arithmetic", "use_arithmetic"]

ARITHMETICS = ("fast", "reference")
_ARITHMETIC = EnvSwitch("BOUNDCHECK_POSTERIOR_ARITHMETIC", ARITHMETICS, "fast", "posterior arithmetic")


def arithmetic() -> str:
    """The posterior arithmetic in force (``"fast"`` or ``"reference"``)."""
    return _ARITHMETIC.value


def use_arithmetic(name: str):
    """Run a block with the given posterior arithmetic in this process (tests of the regression pins).

    Worker processes read ``BOUNDCHECK_POSTERIOR_ARITHMETIC`` instead; this context sets it too, for pools
    started inside the block."""
    return _ARITHMETIC.use(name)
