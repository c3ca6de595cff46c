"""scikit-learn: a user's ``GaussianProcessRegressor`` loop, run and checked in the ask/tell loop.

A user subclasses :class:`SklearnPolicy`::

    class MyUCB(SklearnPolicy):
        def make_model(self, ctx):
            return GaussianProcessRegressor(kernel=sklearn_kernel(ctx), alpha=ctx.noise_var, optimizer=None)

        def acquisition(self, mu, sigma, t, ctx):
            return mu + ctx.beta[t] * sigma

Each step the adapter fits a fresh regressor on the data so far, checks it is the theorem's GP (no optimizer, no
``normalize_y``, ``alpha`` = λ, its kernel equal to the prior's on the data and the candidates, a zero prior
mean), predicts μ and σ on the available candidates and takes the best score (ties: the lowest index).
"""

from __future__ import annotations

import numpy as np

from . import OutsideTheory, require

require("sklearn", "sklearn")

from sklearn.gaussian_process import kernels as _k  # noqa: E402

from ..model.kernels import KernelSpec, mismatch  # noqa: E402
from ..policies.asktell import AskTellContext, AskTellPolicy  # noqa: E402

__all__ = ["SklearnPolicy", "sklearn_kernel", "MatrixKernel", "TOLERANCE"]

#: as for GPyTorch (boundcheck.adapters.botorch.TOLERANCE): round-off of the library's distances, far below float32
TOLERANCE = 1e-10


class MatrixKernel(_k.Kernel):
    """A scikit-learn kernel that looks a fixed Gram matrix up by index (inputs: one column holding 0..n−1)."""

    def __init__(self, matrix=None):
        self.matrix = matrix

    def __call__(self, X, Y=None, eval_gradient=False):
        i = np.rint(np.asarray(X)[:, 0]).astype(np.int64)
        j = i if Y is None else np.rint(np.asarray(Y)[:, 0]).astype(np.int64)
        K = np.asarray(self.matrix, dtype=np.float64)[np.ix_(i, j)]
        return (K, np.empty((len(i), len(i), 0))) if eval_gradient else K

    def diag(self, X):
        i = np.rint(np.asarray(X)[:, 0]).astype(np.int64)
        return np.asarray(self.matrix, dtype=np.float64)[i, i]

    def is_stationary(self):
        return False


def sklearn_kernel(ctx_or_spec) -> _k.Kernel:
    """The scikit-learn kernel equal to the theorem's prior covariance, hyperparameters fixed (``"fixed"``
    bounds: nothing to optimise): ``ConstantKernel(s²) * RBF(ℓ)`` / ``* Matern(ℓ, ν)`` on the points, or a
    :class:`MatrixKernel` by index (then the inputs are ``ctx.kernel_spec.inputs``, which the adapter passes).
    Checked against the prior's matrix to :data:`TOLERANCE`."""
    spec = getattr(ctx_or_spec, "kernel_spec", ctx_or_spec)
    if not isinstance(spec, KernelSpec):
        raise OutsideTheory("no kernel specification in this context (an ask/tell context carries one)")
    if spec.family == "matrix":
        k = MatrixKernel(spec.matrix)
    else:
        base = (_k.RBF(spec.lengthscale, length_scale_bounds="fixed") if spec.family == "rbf"
                else _k.Matern(spec.lengthscale, length_scale_bounds="fixed", nu=spec.nu))
        k = _k.ConstantKernel(spec.variance, constant_value_bounds="fixed") * base
    gap = mismatch(k(spec.inputs), spec.matrix)
    if gap > TOLERANCE:  # pragma: no cover - a scikit-learn that computes its kernels differently
        raise OutsideTheory(f"scikit-learn's kernel differs from the prior's matrix by {gap:.2g}: use MatrixKernel")
    return k


class SklearnPolicy(AskTellPolicy):
    """A user's scikit-learn GP loop: subclass it with ``make_model(ctx)`` (an unfitted
    ``GaussianProcessRegressor``) and ``acquisition(mu, sigma, t, ctx)`` (scores of the available candidates from
    their posterior means and standard deviations). ``check_assumptions = False`` turns the checks off."""

    check_assumptions: bool = True

    def __init__(self, ctx: AskTellContext) -> None:
        super().__init__(ctx)
        if ctx.eps != 0.0 or ctx.batch != 1:
            raise OutsideTheory("the scikit-learn adapter models a static f and chooses one point per round")
        self.inputs = np.array(ctx.kernel_spec.inputs, dtype=np.float64)
        self._idx: list[int] = []
        self._y: list[float] = []

    def make_model(self, ctx: AskTellContext):  # pragma: no cover
        raise NotImplementedError("a SklearnPolicy defines make_model(ctx)")

    def acquisition(self, mu: np.ndarray, sigma: np.ndarray, t: int, ctx: AskTellContext):  # pragma: no cover
        raise NotImplementedError("a SklearnPolicy defines acquisition(mu, sigma, t, ctx)")

    def _check(self, gpr, X: np.ndarray, idx: np.ndarray) -> None:
        ctx = self.ctx
        if getattr(gpr, "optimizer", None) is not None:
            raise OutsideTheory("the regressor fits its kernel's hyperparameters (optimizer is not None): the "
                                "theorem's kernel is given (optimizer=None)")
        if getattr(gpr, "normalize_y", False):
            raise OutsideTheory("normalize_y=True rescales y with the data: not the theorem's GP")
        if np.any(np.asarray(ctx.mean) != 0.0):
            raise OutsideTheory("GaussianProcessRegressor's prior mean is 0; the theorem's μ_0 is not")
        alpha = np.asarray(gpr.alpha, dtype=np.float64)
        if float(np.max(np.abs(alpha - ctx.noise_var))) > TOLERANCE * ctx.noise_var:
            raise OutsideTheory(f"alpha = {float(alpha.ravel()[0]):.6g} is not the theorem's noise variance "
                                f"λ = {ctx.noise_var:.6g}")
        kern = getattr(gpr, "kernel_", None) or gpr.kernel
        gap = mismatch(kern(X), np.asarray(ctx.kernel)[np.ix_(idx, idx)])
        if gap > TOLERANCE:
            raise OutsideTheory(f"the regressor's kernel differs from the theorem's by {gap:.2g} (relative): a "
                                "default or fitted kernel (use sklearn_kernel(ctx))")

    def ask(self, t: int, available: np.ndarray) -> int:
        ctx = self.ctx
        cand_idx = np.flatnonzero(available)
        gpr = self.make_model(ctx)
        if self._idx:
            gpr.fit(self.inputs[self._idx], np.array(self._y, dtype=np.float64))
        if self.check_assumptions:
            idx = np.unique(np.concatenate([np.array(self._idx, dtype=np.int64), cand_idx]))
            self._check(gpr, self.inputs[idx], idx)
        mu, sd = gpr.predict(self.inputs[cand_idx], return_std=True)
        s = np.asarray(self.acquisition(np.asarray(mu, dtype=np.float64).ravel(),
                                        np.asarray(sd, dtype=np.float64).ravel(), t, ctx))
        if s.shape != (len(cand_idx),) or not np.all(np.isfinite(s)):
            raise OutsideTheory(f"the acquisition returned {s.shape} scores (one finite score per candidate, "
                                f"({len(cand_idx)},), is needed)")
        if self.check_assumptions and s.dtype != np.float64:
            raise OutsideTheory(f"the acquisition's scores are {s.dtype}, not float64")
        return int(cand_idx[int(np.argmax(s))])

    def tell(self, index: int, y: float) -> None:
        self._idx.append(int(index))
        self._y.append(float(y))
