"""BoTorch on a compact box: the user's model and acquisition, maximised by ``botorch.optim.optimize_acqf``.

A user subclasses :class:`BoTorchBoxPolicy` with the two methods of the finite adapter (:mod:`.botorch`)::

    class MyBoxUCB(BoTorchBoxPolicy):
        num_restarts, raw_samples = 10, 512           # optimize_acqf's settings (and ``options``)

        def make_model(self, train_X, train_Y, ctx):
            return SingleTaskGP(train_X, train_Y, train_Yvar=torch.full_like(train_Y, ctx.noise_var),
                                covar_module=gpytorch_kernel(ctx), mean_module=gpytorch_mean(ctx),
                                outcome_transform=None)

        def make_acquisition(self, model, t, ctx):
            return UpperConfidenceBound(model, beta=botorch_beta(ctx.beta[t]))

Each run and step: torch seeded from the run's own stream, the model built on the run's data, the point chosen by
``optimize_acqf(acq, bounds=ctx.torch_bounds, q=1, ...)``, the model checked to be the theorem's GP at the data,
the chosen point and a fixed check set of the box (:func:`check_box_model`). See docs/botorch.md.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from . import OutsideTheory, require

require("botorch", "torch", "gpytorch", "botorch")

import torch  # noqa: E402
from botorch.optim import optimize_acqf  # noqa: E402

from ..model.kernels import RBF, KernelSpec, Matern  # noqa: E402
from ..policies.asktell import _read_only  # noqa: E402
from ..policies.box import BoxContext, BoxPolicy  # noqa: E402
from .botorch import DTYPE, NamedByClass, _check_acquisition, _check_tensors, _judge, _modules  # noqa: E402

__all__ = ["BoTorchBoxPolicy", "BoxTorchContext", "check_box_model", "box_check_points", "box_corners"]

#: points of the check set per box (a Sobol sequence, unscrambled: the same set every run), plus the corners
CHECK_POINTS = 32


def box_check_points(bounds: np.ndarray) -> np.ndarray:
    """A fixed set of points of the box where every step's model is compared with the theorem's prior besides the
    data and the chosen point: the first :data:`CHECK_POINTS` points of the unscrambled Sobol sequence and, up to
    d = 6, the 2^d corners. Why: at step 1 there are no data, and the prior variance at one point alone does not
    see a wrong lengthscale; on this set any lengthscale, family or mean other than the theorem's shows."""
    from scipy.stats import qmc

    b = np.asarray(bounds, dtype=np.float64)
    d = b.shape[0]
    lo, hi = b[:, 0], b[:, 1]
    u = qmc.Sobol(d, scramble=False).random(CHECK_POINTS)
    pts = [lo + (hi - lo) * u]
    if d <= 6:
        pts.append(np.stack(np.meshgrid(*b, indexing="ij"), axis=-1).reshape(-1, d))
    return np.unique(np.vstack(pts), axis=0)


def box_corners(ctx: BoxTorchContext) -> torch.Tensor:
    """The box's 2^d corners as ``batch_initial_conditions`` for ``optimize_acqf``, a (2^d, 1, d) float64 tensor.

    Why a user adds them to the raw samples' starts: a UCB's maximum is often at a corner (σ grows towards the
    boundary), in a sliver thinner than the raw samples' spacing, and L-BFGS-B from interior starts then stops at a
    lower interior maximum (measured on ``gp_sample_se_box``: plain ``optimize_acqf`` missed the maximum at a corner
    by up to 0.2 % of the UCB on 2 of 10 runs × T = 50, a counterexample of the conformance claim each time)."""
    b = ctx.torch_bounds
    grids = torch.meshgrid(*[b[:, j] for j in range(b.shape[1])], indexing="ij")
    return torch.stack(grids, dim=-1).reshape(-1, 1, b.shape[1])


def _box_spec(kernel, points: np.ndarray) -> KernelSpec:
    """The prior's :class:`KernelSpec` with the kernel's *own* parameters (not solved from a matrix: exact), its
    Gram matrix on ``points`` (what :func:`~.botorch.gpytorch_kernel` checks its GPyTorch kernel against)."""
    if isinstance(kernel, RBF):
        return KernelSpec("rbf", points, kernel(points), lengthscale=float(kernel.lengthscale),
                          variance=float(kernel.variance))
    if isinstance(kernel, Matern):
        return KernelSpec("matern", points, kernel(points), lengthscale=float(kernel.lengthscale),
                          variance=float(kernel.variance), nu=float(kernel.nu))
    raise OutsideTheory(f"the box's prior kernel {type(kernel).__name__} has no GPyTorch equivalent here "
                        "(RBF or Matérn)")


@dataclass(frozen=True, eq=False)
class BoxTorchContext:
    """What ``make_model`` / ``make_acquisition`` of a :class:`BoTorchBoxPolicy` are given (read-only): the
    fields of :class:`~boundcheck.policies.box.BoxContext` a model needs, and what the finite adapter's helpers
    read — ``kernel_spec`` (the prior's kernel with its parameters, on the check set) and ``mean`` (the prior mean
    on it: 0), so ``gpytorch_kernel(ctx)``, ``gpytorch_mean(ctx)`` and ``botorch_beta(ctx.beta[t])`` work as on a
    finite domain. ``torch_bounds`` is the box as ``optimize_acqf`` takes it, a (2, d) float64 tensor."""

    runs: int
    run_ids: tuple[int, ...]
    horizon: int
    bounds: np.ndarray  # (d, 2)
    torch_bounds: torch.Tensor  # (2, d): row 0 the lower, row 1 the upper bounds
    kernel: object  # the theorem's prior kernel (boundcheck.model.kernels.RBF / Matern)
    kernel_spec: KernelSpec
    mean: np.ndarray  # the prior mean on kernel_spec.points: zero (GP(0, k))
    noise_sd: float
    noise_var: float  # λ
    beta: np.ndarray  # (T+1,) the width √β_t: UCB = μ + beta[t]·σ
    delta: float

    @property
    def dim(self) -> int:
        """d, the box's dimension."""
        return int(self.bounds.shape[0])


def check_box_model(model, ctx: BoxTorchContext, train_X: torch.Tensor, cand: torch.Tensor) -> None:
    """Refuse (:class:`OutsideTheory`, with the reason) a model that is not the theorem's GP on the box: float32
    or a transform (as :func:`~.botorch.check_model`), a prior mean other than 0 or a prior covariance other than
    the theorem's kernel on P = data ∪ check set ∪ ``cand`` (the rows data ∪ check set against all of P, and the
    diagonal on P), a noise variance other than λ — each to :data:`~.botorch.TOLERANCE` relative to the prior
    variance. The reference is the theorem's kernel computed in numpy at the same float64 points."""
    _check_tensors(model)
    mean_module, covar_module = _modules(model)
    check = torch.as_tensor(ctx.kernel_spec.points, dtype=DTYPE)
    rows = torch.cat([train_X, check])
    P = torch.cat([rows, cand.reshape(-1, rows.shape[-1])])
    Pn = P.numpy()
    with torch.no_grad():
        m = mean_module(P).numpy()
        K = covar_module(rows, P).to_dense().numpy()
        Kd = covar_module(P, P, diag=True).numpy()
    ref = ctx.kernel(Pn[: rows.shape[0]], Pn)
    scale = float(ctx.kernel_spec.variance)
    mean_gap = float(np.max(np.abs(m)))  # the prior mean is 0: relative to max(1, |μ_0|) = 1
    cov_gap = max(float(np.max(np.abs(K - ref), initial=0.0)), float(np.max(np.abs(Kd - scale)))) / scale
    _judge(model, ctx, mean_gap, cov_gap)


class BoTorchBoxPolicy(NamedByClass, BoxPolicy):
    """A user's BoTorch loop on a compact box: subclass it with ``make_model`` and ``make_acquisition``.

    x_t = the candidate ``optimize_acqf(acq, bounds=ctx.torch_bounds, q=1, num_restarts, raw_samples, options)``
    returns (override :meth:`optimize` for another call), with ``acq = make_acquisition(model, t, ctx)`` and
    ``model = make_model(train_X, train_Y, ctx)`` built on the run's data so far, float64 tensors (t−1, d) and
    (t−1, 1); one run at a time. Before each run's step torch's global generator is seeded from a draw of the
    run's own stream (``ctx.rngs[r]``), so optimize_acqf's raw samples and Boltzmann choice of restarts depend on
    the run and the step alone, never on the batch. Every step the model is checked (:func:`check_box_model`) at
    the data, the check set and the chosen point; ``check_assumptions = False`` turns the checks off (the
    conformance claim alone then judges the code). optimize_acqf's own starts can miss a maximum at a corner of
    the box: a user adds :func:`box_corners` to them (``examples/botorch_box_ucb.py``)."""

    check_assumptions: ClassVar[bool] = True
    num_restarts: ClassVar[int] = 10
    raw_samples: ClassVar[int] = 512
    options: ClassVar[dict | None] = None
    name = "botorch_box"
    label = "BoTorch (box)"
    description = "a user's BoTorch model and acquisition, maximised on the box by optimize_acqf"

    def make_model(self, train_X: torch.Tensor, train_Y: torch.Tensor, ctx: BoxTorchContext):  # pragma: no cover
        raise NotImplementedError("a BoTorchBoxPolicy defines make_model(train_X, train_Y, ctx)")

    def make_acquisition(self, model, t: int, ctx: BoxTorchContext):  # pragma: no cover
        raise NotImplementedError("a BoTorchBoxPolicy defines make_acquisition(model, t, ctx)")

    def optimize(self, acq, t: int, ctx: BoxTorchContext) -> torch.Tensor:
        """The acquisition's maximiser on the box, (1, d): BoTorch's ``optimize_acqf`` with this class's
        ``num_restarts``, ``raw_samples`` and ``options``."""
        cand, _ = optimize_acqf(acq, bounds=ctx.torch_bounds, q=1, num_restarts=int(self.num_restarts),
                                raw_samples=int(self.raw_samples), options=dict(self.options or {}))
        return cand

    def start(self, ctx: BoxContext) -> None:
        super().start(ctx)
        torch.set_num_threads(1)  # the runs are the parallelism (the engine's workers share the cores)
        bounds = np.array(ctx.bounds, dtype=np.float64)
        check = box_check_points(bounds)
        spec = _box_spec(ctx.kernel, check)
        self.tctx = BoxTorchContext(
            runs=int(ctx.runs), run_ids=tuple(int(r) for r in ctx.run_ids) or tuple(range(ctx.runs)),
            horizon=int(ctx.horizon), bounds=_read_only(bounds),
            torch_bounds=torch.as_tensor(bounds.T.copy(), dtype=DTYPE), kernel=ctx.kernel, kernel_spec=spec,
            mean=_read_only(np.zeros(check.shape[0])), noise_sd=float(ctx.noise_sd), noise_var=float(ctx.noise_var),
            beta=_read_only(np.array(ctx.schedule(self.name), dtype=np.float64)), delta=float(ctx.delta))
        d = bounds.shape[0]
        self._X = [np.empty((0, d)) for _ in range(ctx.runs)]
        self._y = [np.empty(0) for _ in range(ctx.runs)]

    def _step(self, r: int, t: int) -> np.ndarray:
        """Run r's point at step t (d,)."""
        ctx = self.tctx
        torch.manual_seed(int(self.ctx.rngs[r].integers(2**62)))
        train_X = torch.as_tensor(self._X[r].copy(), dtype=DTYPE)
        train_Y = torch.as_tensor(self._y[r].copy(), dtype=DTYPE).reshape(-1, 1)
        model = self.make_model(train_X, train_Y, ctx)
        acq = self.make_acquisition(model, t, ctx)
        if self.check_assumptions:
            _check_acquisition(acq)
        cand = self.optimize(acq, t, ctx)
        if not isinstance(cand, torch.Tensor) or cand.numel() != ctx.dim:
            raise OutsideTheory(f"the optimiser returned {getattr(cand, 'shape', type(cand).__name__)}, not one "
                                f"point of the {ctx.dim}-d box (q = 1)")
        if self.check_assumptions:
            if cand.dtype != DTYPE:
                raise OutsideTheory(f"the optimiser's point is {cand.dtype}, not float64")
            check_box_model(model, ctx, train_X, cand.detach())
        x = cand.detach().reshape(ctx.dim).numpy().astype(np.float64)
        if not np.all(np.isfinite(x)):
            raise OutsideTheory("the optimiser returned a non-finite point")
        return x

    def select(self, t: int) -> np.ndarray:
        out = np.empty((self.tctx.runs, self.tctx.dim))
        for r in range(self.tctx.runs):
            try:
                out[r] = self._step(r, t)
            except OutsideTheory as exc:  # the engine passes boundcheck's own errors on as they are: name it all
                raise OutsideTheory(f"policy {self.name!r}: {exc} (run {self.tctx.run_ids[r]}, step {t})") from None
        return out

    def update(self, t: int, X: np.ndarray, y: np.ndarray) -> None:
        X, y = np.asarray(X, dtype=np.float64), np.asarray(y, dtype=np.float64).reshape(-1)
        for r in range(self.tctx.runs):
            self._X[r] = np.vstack([self._X[r], X[r]])
            self._y[r] = np.append(self._y[r], y[r])

