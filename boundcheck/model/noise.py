"""Observation-noise laws: what the engine adds to f_t(x_t), drawn from each run's noise stream.

A law is named by a string ``"BASE"`` or ``"BASE:c"``:

* ``gaussian`` — ε ~ N(0, R²), the extremal R-sub-Gaussian law (the default of every scenario);
* ``rademacher`` — ε = ±R with probability ½ each (bounded, hence R-sub-Gaussian);
* ``BASE:c`` — the base law scaled by ``c``: cR-sub-Gaussian, so for ``c > 1`` it is *not* R-sub-Gaussian with the
  R every model and bound uses (a planted defect: "wrong noise").

The Gaussian draw is the expression the engine always used (``R * standard_normal(K)`` per run), so scenarios
with the default law keep their common random numbers and bit-identical results.
"""

from __future__ import annotations

import numpy as np

from ..errors import BoundcheckError

__all__ = ["NOISE_LAWS", "parse_noise_law", "draw_noise", "NoiseDraws", "describe_noise_law"]

NOISE_LAWS = ("gaussian", "rademacher")


def parse_noise_law(law: str) -> tuple[str, float]:
    """``(base, scale)`` of a law string; one-line error for anything else."""
    if not isinstance(law, str):
        raise BoundcheckError(f"noise law must be a string such as 'gaussian' or 'rademacher', got {law!r}")
    base, sep, raw = law.partition(":")
    if base not in NOISE_LAWS:
        raise BoundcheckError(f"unknown noise law {law!r}; choose {', '.join(NOISE_LAWS)} (optionally ':SCALE')")
    scale = 1.0
    if sep:
        try:
            scale = float(raw)
        except ValueError:
            raise BoundcheckError(f"malformed noise law {law!r}: scale {raw!r} is not a number") from None
        if not (np.isfinite(scale) and scale > 0):
            raise BoundcheckError(f"malformed noise law {law!r}: the scale must be a positive number")
    return base, scale


def draw_noise(law: str, R: float, rngs: list[np.random.Generator], K: int) -> np.ndarray:
    """One noise value per base arm and run: (m, K), each run from its own stream."""
    base, scale = parse_noise_law(law)
    if base == "gaussian":
        if scale == 1.0:  # exactly the engine's historical draw (bit-identical results)
            return R * np.stack([g.standard_normal(K) for g in rngs])
        return (R * scale) * np.stack([g.standard_normal(K) for g in rngs])
    signs = np.stack([2.0 * g.integers(0, 2, size=K) - 1.0 for g in rngs])
    return (R * scale) * signs


class NoiseDraws:
    """The noise of a batch of runs step after step (``next()`` → (m, K)): exactly :func:`draw_noise` at every
    step, but Gaussian values are fetched ``steps`` steps at a time (:class:`~boundcheck.model.sampling.NormalBlocks`
    gives the same values as per-step draws, with the Python loop over runs once per block). Rademacher signs are
    drawn step by step (a generator's bounded integers depend on how many are drawn per call)."""

    def __init__(self, law: str, R: float, rngs: list[np.random.Generator], K: int, steps: int = 64) -> None:
        from .sampling import NormalBlocks

        self.law, self.R, self.rngs, self.K = law, float(R), rngs, int(K)
        self.base, self.scale = parse_noise_law(law)
        self._normals = NormalBlocks(rngs, self.K, steps) if self.base == "gaussian" else None

    def next(self) -> np.ndarray:
        if self._normals is None:
            return draw_noise(self.law, self.R, self.rngs, self.K)
        z = self._normals.next()
        return self.R * z if self.scale == 1.0 else (self.R * self.scale) * z

    def keep(self, keep: np.ndarray, rngs: list[np.random.Generator]) -> None:
        """Retire the runs not in ``keep`` (boolean): the kept runs' noise goes on as in the full batch."""
        self.rngs = rngs
        if self._normals is not None:
            self._normals.keep(keep, rngs)


def describe_noise_law(law: str, R: float) -> str:
    base, scale = parse_noise_law(law)
    s = R * scale
    text = f"N(0, {s:g}²)" if base == "gaussian" else f"Rademacher ±{s:g}"
    if scale != 1.0:
        text += f" ({scale:g} × the R = {R:g} the models use: not R-sub-Gaussian)" if scale > 1 else \
            f" ({scale:g} × R: still R-sub-Gaussian)"
    return text
