"""The per-run ask/tell form on a compact box: a user's ordinary code, one run at a time, run batched.

A user writes one class with ``ask(t) -> x`` (a point of the box, shape (d,)) and ``tell(x, y)``, marked as a box
policy (``domain_kind = "box"``, or subclass :class:`BoxAskTellPolicy`), is given a :class:`BoxAskTellContext`
per run, and :class:`BoxAskTellAdapter` runs it in the continuum engine, checking every answer — the engine then
evaluates f at the point, and every compact theorem's claims (with its conformance shadow) apply to it.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ..errors import BoundcheckError
from ..model.kernels import Kernel
from .asktell import UserCalls, _blas_controller, _read_only, is_ask_tell, user_policy_name
from .box import BoxContext, BoxPolicy

__all__ = ["BoxAskTellContext", "BoxAskTellPolicy", "BoxAskTellAdapter", "is_box_ask_tell"]


@dataclass(frozen=True, eq=False)
class BoxAskTellContext:
    """What one run of a box ask/tell policy is given (read-only arrays: writing into one raises ValueError).

    Attributes
    ----------
    run : int
        The Monte Carlo run (for messages; a policy must not act on it).
    bounds : (d, 2) array
        The box, one ``[low, high]`` row per coordinate.
    kernel : Kernel
        The prior's kernel the theorem gives its algorithm (``kernel(A, B)`` is the Gram matrix; frozen).
    noise_sd : float
        R, the standard deviation of the observation noise.
    noise_var : float
        λ, the likelihood variance the theorem's algorithm uses.
    horizon : int
        T.
    delta : float
        The theorem's δ.
    beta : (T+1,) array
        The theorem's confidence width at step t (``beta[t]``; what its algorithm multiplies σ_{t−1} by: √β_t
        for Srinivas et al.'s theorems, β_t for IGP-UCB; ``boundcheck show THEOREM``).
    rng : numpy.random.Generator
        This run's own random stream (reproducible, independent of f and the noise).
    """

    run: int
    bounds: np.ndarray
    kernel: Kernel
    noise_sd: float
    noise_var: float
    horizon: int
    delta: float
    beta: np.ndarray
    rng: np.random.Generator

    @property
    def dim(self) -> int:
        """d, the box's dimension."""
        return int(self.bounds.shape[0])


class BoxAskTellPolicy:
    """Optional base class of the per-run form on a box (any class with ``ask``, ``tell`` and
    ``domain_kind = "box"`` will do); boundcheck builds a fresh object of it for every Monte Carlo run::

        class MyBoxPolicy(BoxAskTellPolicy):
            def __init__(self, ctx: BoxAskTellContext):   # the run's box, prior, noise, T, δ, β_t, rng
                ...

            def ask(self, t: int) -> np.ndarray:
                ...
                return x                                    # (d,) a point of ctx.bounds

            def tell(self, x: np.ndarray, y: float) -> None:
                ...                                         # y_t = f(x_t) + ε_t
    """

    name: str | None = None
    label: str | None = None
    description: str = ""
    domain_kind: ClassVar[str] = "box"

    def __init__(self, ctx: BoxAskTellContext) -> None:
        self.ctx = ctx

    def ask(self, t: int) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def tell(self, x: np.ndarray, y: float) -> None:  # pragma: no cover
        raise NotImplementedError


def is_box_ask_tell(obj) -> bool:
    """A class in the per-run form that says it acts on a box (``domain_kind = "box"``)."""
    return is_ask_tell(obj) and getattr(obj, "domain_kind", "finite") == "box"


class BoxAskTellAdapter(UserCalls, BoxPolicy):
    """Runs a box ask/tell class in the batched box protocol: one user object per run of the chunk, a Python loop
    over the runs. Every answer is checked: an exception, or a point that is not d finite numbers, is a
    :class:`~boundcheck.errors.UserCodeError` naming the policy, the run and the step (a point outside the box
    the engine refuses the same way). The engine reads the lemma claims' μ and σ from the conformance shadow (the
    theorem's algorithm told this code's points and observations) or from its own reference posterior — never
    numbers the code reports."""

    description = "a user policy in the per-run ask/tell form on a box"

    def __init__(self, user: type, name: str | None = None, label: str | None = None) -> None:
        if not is_box_ask_tell(user):
            raise BoundcheckError(f"{user!r} is not a box ask/tell policy class (it needs ask(), tell() and "
                                  "domain_kind = 'box')")
        self.user = user
        self.name = name or user_policy_name(user)
        self.label = label or getattr(user, "label", None) or self.name
        doc = (getattr(user, "description", "") or (inspect.getdoc(user) or "").split("\n", 1)[0]).strip()
        self.description = doc or BoxAskTellAdapter.description

    def start(self, ctx: BoxContext) -> None:
        super().start(ctx)
        self._d = ctx.dim
        self._blas = _blas_controller()
        shared = dict(bounds=_read_only(np.array(ctx.bounds, dtype=np.float64)), kernel=ctx.kernel,
                      noise_sd=float(ctx.noise_sd), noise_var=float(ctx.noise_var), horizon=int(ctx.horizon),
                      delta=float(ctx.delta), beta=_read_only(np.array(ctx.schedule(self.name), dtype=np.float64)))
        self._objs = []
        for i, rng in enumerate(ctx.rngs):
            run_ctx = BoxAskTellContext(run=self._run(i), rng=rng, **shared)
            self._objs.append(self._call(i, 0, f"{self.user.__name__}(ctx)", self.user, run_ctx))

    def _point(self, i: int, t: int, a) -> np.ndarray:
        """The user's answer as a (d,) float64 point, or a UserCodeError saying what is wrong with it."""
        try:
            x = np.asarray(a, dtype=np.float64)
        except (TypeError, ValueError):
            raise self._error(i, t, "ask()", f"returned {a!r} ({type(a).__name__}), not a point of the box") from None
        if x.size != self._d or x.ndim > 2:
            raise self._error(i, t, "ask()", f"returned an array of shape {x.shape}, not one point of the "
                                             f"{self._d}-d box")
        x = x.reshape(self._d)
        if not np.all(np.isfinite(x)):
            raise self._error(i, t, "ask()", f"returned {x.tolist()}, not finite")
        return x

    def select(self, t: int) -> np.ndarray:
        out = np.empty((len(self._objs), self._d))
        with self._single_thread():
            for i, obj in enumerate(self._objs):
                out[i] = self._point(i, t, self._call(i, t, "ask()", obj.ask, t))
        return out

    def update(self, t: int, X: np.ndarray, y: np.ndarray) -> None:
        with self._single_thread():
            for i, obj in enumerate(self._objs):
                self._call(i, t, "tell()", obj.tell, _read_only(X[i]), float(y[i]))
