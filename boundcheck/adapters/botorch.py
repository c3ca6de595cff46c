"""BoTorch / GPyTorch: the user's own model and acquisition, run and checked per run or batched over runs.

A user subclasses :class:`BoTorchPolicy` (ask/tell) or :class:`BoTorchBatchPolicy` (one model for a chunk's runs)::

    class MyUCB(BoTorchPolicy):
        def make_model(self, train_X, train_Y, ctx):
            return SingleTaskGP(train_X, train_Y, train_Yvar=torch.full_like(train_Y, ctx.noise_var),
                                covar_module=gpytorch_kernel(ctx), mean_module=gpytorch_mean(ctx),
                                outcome_transform=None)

        def make_acquisition(self, model, t, ctx):
            return UpperConfidenceBound(model, beta=botorch_beta(ctx.beta[t]))

Each step the adapter builds the model on the data so far, checks it is the theorem's GP (:func:`check_model`),
scores X_t with the acquisition and takes the best (ties: the lowest index). See docs/botorch.md."""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from . import OutsideTheory, require

require("botorch", "torch", "gpytorch", "botorch")

import gpytorch  # noqa: E402
import torch  # noqa: E402
from botorch.posteriors.gpytorch import GPyTorchPosterior  # noqa: E402
from gpytorch.distributions import MultivariateNormal  # noqa: E402
from linear_operator.operators import DiagLinearOperator  # noqa: E402

from ..model.kernels import KernelSpec, mismatch  # noqa: E402
from ..policies.asktell import AskTellContext, AskTellPolicy, _read_only  # noqa: E402
from ..policies.base import Policy, RunContext  # noqa: E402

__all__ = ["BoTorchPolicy", "BoTorchBatchPolicy", "BatchContext", "botorch_beta", "gpytorch_kernel", "gpytorch_mean",
           "check_model", "check_batch_model", "MatrixKernel", "TOLERANCE"]

DTYPE = torch.float64
#: how close the stack's kernel, mean and noise must be to the theorem's (relative to the largest entry): a few
#: hundred ulps for GPyTorch's own distance arithmetic (‖x‖² + ‖y‖² − 2xᵀy), far below the ≈ 1e-8 of one
#: hyperparameter gone through float32
TOLERANCE = 1e-10


def botorch_beta(width: float) -> torch.Tensor:
    """BoTorch's ``beta`` for a confidence width ``ctx.beta[t]``, as a float64 tensor.

    boundcheck's ``ctx.beta[t]`` multiplies σ (UCB = μ + ctx.beta[t]·σ: the theorems' β_t^{1/2} for GP-UCB);
    BoTorch's ``UpperConfidenceBound(model, beta)`` scores μ + √beta·σ, so its ``beta`` is the width *squared*.
    A tensor, not a Python float: BoTorch stores ``torch.as_tensor(beta)``, and a Python float becomes float32
    there (√beta then differs from the width by ≈ 1e-8, which the adapter refuses)."""
    w = float(width)
    return torch.tensor(w * w, dtype=DTYPE)


class MatrixKernel(gpytorch.kernels.Kernel):
    """A GPyTorch kernel that looks a fixed Gram matrix up by index (inputs: one column holding 0..n−1): the
    prior of a scenario given only as a matrix (an empirical covariance, a graph kernel)."""

    def __init__(self, matrix: np.ndarray) -> None:
        super().__init__()
        self.register_buffer("matrix", torch.as_tensor(np.array(matrix, dtype=np.float64), dtype=DTYPE))

    def forward(self, x1, x2, diag=False, last_dim_is_batch=False, **params):
        i = x1[..., 0].round().long()
        j = x2[..., 0].round().long()
        if diag:
            return self.matrix[i, j]
        return self.matrix[i.unsqueeze(-1), j.unsqueeze(-2)]


class PointMean(gpytorch.means.Mean):
    """A fixed prior mean given by its value at each point of the domain (looked up by the nearest point)."""

    def __init__(self, inputs: np.ndarray, values: np.ndarray) -> None:
        super().__init__()
        self.register_buffer("inputs", torch.as_tensor(np.array(inputs, dtype=np.float64), dtype=DTYPE))
        self.register_buffer("values", torch.as_tensor(np.array(values, dtype=np.float64), dtype=DTYPE))

    def forward(self, x):
        d = ((x.unsqueeze(-2) - self.inputs) ** 2).sum(-1)
        return self.values[d.argmin(-1)]


def _spec(ctx_or_spec) -> KernelSpec:
    spec = getattr(ctx_or_spec, "kernel_spec", ctx_or_spec)
    if not isinstance(spec, KernelSpec):
        raise OutsideTheory("no kernel specification in this context (an ask/tell context carries one)")
    return spec


_CHECKED: dict[int, KernelSpec] = {}  # specs whose GPyTorch kernel was checked against their matrix


def gpytorch_kernel(ctx_or_spec) -> gpytorch.kernels.Kernel:
    """The GPyTorch kernel equal to the theorem's prior covariance (``ctx.kernel``), float64, hyperparameters
    fixed (not trainable): ``ScaleKernel(RBFKernel)`` / ``ScaleKernel(MaternKernel(ν))`` on the points, or a
    :class:`MatrixKernel` by index (then the model's inputs are ``ctx.kernel_spec.inputs``, which the adapter
    passes). Hyperparameters are set from float64 tensors *after* the module is float64 (a Python float, or a
    float32 module, rounds them to float32). Checked once per context: its matrix on the inputs equals the
    prior's to :data:`TOLERANCE`."""
    spec = _spec(ctx_or_spec)
    if spec.family == "matrix":
        k = MatrixKernel(spec.matrix)
    else:
        base = (gpytorch.kernels.RBFKernel() if spec.family == "rbf"
                else gpytorch.kernels.MaternKernel(nu=spec.nu)).to(DTYPE)
        base.lengthscale = torch.tensor(spec.lengthscale, dtype=DTYPE)
        k = gpytorch.kernels.ScaleKernel(base).to(DTYPE)
        k.outputscale = torch.tensor(spec.variance, dtype=DTYPE)
    for p in k.parameters():
        p.requires_grad_(False)  # the theorem's hyperparameters are given, not learnt
    if id(spec) not in _CHECKED:
        X = torch.as_tensor(np.array(spec.inputs, dtype=np.float64), dtype=DTYPE)
        with torch.no_grad():
            gap = mismatch(k(X, X).to_dense().numpy(), spec.matrix)
        if gap > TOLERANCE:  # pragma: no cover - a GPyTorch that computes its kernels differently
            raise OutsideTheory(f"GPyTorch's {type(base).__name__} differs from the prior's matrix by {gap:.2g} "
                                f"(relative): use MatrixKernel(ctx.kernel) with ctx.kernel_spec.inputs")
        _CHECKED[id(spec)] = spec
    return k


def gpytorch_mean(ctx: AskTellContext) -> gpytorch.means.Mean:
    """The theorem's prior mean μ_0 as a fixed GPyTorch mean (``ZeroMean`` where it is 0; BoTorch's default,
    a learnable ``ConstantMean``, is only equal to it until something fits it)."""
    mean = np.asarray(ctx.mean, dtype=np.float64)
    if not np.any(mean):
        return gpytorch.means.ZeroMean()
    return PointMean(_spec(ctx).inputs, mean)


def _floating(module) -> list[tuple[str, torch.Tensor]]:
    out = []
    for name, t in list(module.named_parameters()) + list(module.named_buffers()):
        if t.is_floating_point():
            out.append((name, t))
    return out


def _check_tensors(model) -> None:
    """Float64 everywhere and no transform: what a model must be before its prior is compared."""
    for name, t in _floating(model):
        if t.dtype != DTYPE:
            raise OutsideTheory(f"the model holds {name} in {t.dtype} (the theorems' arithmetic is float64: "
                                f"build it from float64 tensors, model.double())")
    for attr in ("outcome_transform", "input_transform"):
        if getattr(model, attr, None) is not None:
            raise OutsideTheory(f"the model has an {attr} ({type(getattr(model, attr)).__name__}): it rescales "
                                f"y or x with the data, not the theorem's GP (pass {attr}=None)")


def _modules(model):
    mean_module = getattr(model, "mean_module", None)
    covar_module = getattr(model, "covar_module", None)
    if mean_module is None or covar_module is None:
        raise OutsideTheory(f"{type(model).__name__} has no mean_module/covar_module to check (a single-output "
                            "GPyTorch ExactGP is needed)")
    return mean_module, covar_module


def _judge(model, ctx, mean_gap: float, cov_gap: float) -> None:
    """Refuse a prior mean or covariance ``mean_gap`` / ``cov_gap`` (relative) off the theorem's, or a noise
    variance other than λ: the comparisons the per-run and the batched checks share."""
    gap = mean_gap
    if gap > TOLERANCE:  # the prior mean
        raise OutsideTheory(f"the model's prior mean differs from the theorem's μ_0 by {gap:.2g} (a fitted or "
                            f"default mean: use gpytorch_mean(ctx), and fit nothing)")
    gap = cov_gap
    if gap > TOLERANCE:  # the prior covariance
        raise OutsideTheory(f"the model's prior covariance differs from the theorem's kernel by {gap:.2g} "
                            f"(relative): a default kernel or fitted hyperparameters (use "
                            f"gpytorch_kernel(ctx) and fit nothing)")
    lik = getattr(model, "likelihood", None)
    noise = getattr(lik, "noise", None)
    if noise is None:
        raise OutsideTheory(f"{type(model).__name__} has no Gaussian likelihood noise to check")
    noise = noise.detach().numpy().ravel()
    if noise.size and float(np.max(np.abs(noise - ctx.noise_var))) > TOLERANCE * ctx.noise_var:
        raise OutsideTheory(f"the model's noise variance is {float(noise.flat[0]):.6g}, not the theorem's "
                            f"λ = {ctx.noise_var:.6g} (learnt or defaulted: pass train_Yvar = λ)")


def _mean_scale(ctx) -> float:
    return max(1.0, float(np.max(np.abs(ctx.mean))))


def _cov_scale(ctx) -> float:
    return max(float(np.max(np.abs(np.diag(np.asarray(ctx.kernel))))), 1e-300)


def check_model(model, ctx: AskTellContext, train_X: torch.Tensor, cand: torch.Tensor) -> None:
    """Refuse (:class:`OutsideTheory`, with the reason) a model that is not the theorem's GP: a float32 tensor,
    an outcome or input transform, a prior mean or covariance other than the theorem's on the data and the
    candidates (a default kernel, fitted hyperparameters, a fitted mean), a noise variance other than λ."""
    _check_tensors(model)
    mean_module, covar_module = _modules(model)
    X = torch.cat([train_X, cand]) if train_X.shape[0] else cand
    spec_inputs = _spec(ctx).inputs
    # the rows of the prior's matrix the posterior on the candidates reads: data × (data ∪ candidates)
    idx = _rows(spec_inputs, X.numpy())
    with torch.no_grad():
        m = mean_module(X).numpy()
        mean_gap = float(np.max(np.abs(m - np.asarray(ctx.mean)[idx]))) / _mean_scale(ctx)
        nd = train_X.shape[0]
        rows = X[:nd] if nd else X[:0]
        Kc = covar_module(rows, X).to_dense().numpy() if nd else np.zeros((0, X.shape[0]))
        Kd = covar_module(X, X, diag=True).numpy()
        ref = np.asarray(ctx.kernel)
        cov_gap = max(float(np.max(np.abs(Kc - ref[np.ix_(idx[:nd], idx)]), initial=0.0)),
                      float(np.max(np.abs(Kd - np.diag(ref)[idx]))) if Kd.size else 0.0) / _cov_scale(ctx)
        _judge(model, ctx, mean_gap, cov_gap)


def check_batch_model(model, ctx: BatchContext, inputs: torch.Tensor) -> None:
    """:func:`check_model` for a model batched over runs: its prior mean and covariance on the whole domain
    (``inputs``, every point any run's data or candidates can be), for every batch member, and its noise."""
    _check_tensors(model)
    mean_module, covar_module = _modules(model)
    with torch.no_grad():
        m = mean_module(inputs).numpy()
        mean_gap = float(np.max(np.abs(m - np.asarray(ctx.mean)))) / _mean_scale(ctx)
        K = covar_module(inputs, inputs).to_dense().numpy()
        cov_gap = float(np.max(np.abs(K - np.asarray(ctx.kernel)))) / _cov_scale(ctx)
        _judge(model, ctx, mean_gap, cov_gap)


def _check_acquisition(acq) -> None:
    """Refuse an acquisition module holding a tensor that is not float64 (a Python float β in BoTorch)."""
    if isinstance(acq, torch.nn.Module):
        for name, v in _floating(acq):
            if v.dtype != DTYPE:
                raise OutsideTheory(f"the acquisition holds {name} in {v.dtype} (a Python float passed to "
                                    f"BoTorch becomes float32: pass a float64 tensor, e.g. botorch_beta)")


def _rows(inputs: np.ndarray, X: np.ndarray) -> np.ndarray:
    """The index in ``inputs`` of each row of X (rows are copies of the inputs: exact match)."""
    lookup = {row.tobytes(): i for i, row in enumerate(np.ascontiguousarray(inputs, dtype=np.float64))}
    return np.array([lookup[r.tobytes()] for r in np.ascontiguousarray(X, dtype=np.float64)], dtype=np.int64)


class BoTorchPolicy(AskTellPolicy):
    """A user's BoTorch loop in the ask/tell form: subclass it with ``make_model`` and ``make_acquisition``.

    ``make_model(train_X, train_Y, ctx)`` gets the data so far as float64 tensors ((t−1, d) and (t−1, 1)) and
    returns a model; ``make_acquisition(model, t, ctx)`` returns an acquisition function (any callable that maps a
    ``(b, 1, d)`` tensor of candidates to ``(b,)`` scores; one call scores all of X_t at once, so a sampler may
    draw jointly). x_t is the best-scored available point, the lowest index on ties. Torch's random generator is
    seeded from the run's own stream before each step (reproducible, independent runs).

    ``check_assumptions = False`` (a class attribute) turns the per-step checks off: the model then runs as it is
    and only the claims judge it (the mistakes of docs/botorch.md are measured that way)."""

    check_assumptions: bool = True

    def __init__(self, ctx: AskTellContext) -> None:
        super().__init__(ctx)
        if ctx.eps != 0.0:
            raise OutsideTheory(f"the prior drifts (ε = {ctx.eps:g}): a BoTorch model of a static f cannot be "
                                "this theorem's algorithm")
        if ctx.batch != 1:
            raise OutsideTheory(f"rounds of {ctx.batch} base arms: the BoTorch adapter chooses one point")
        self.inputs = torch.as_tensor(np.array(_spec(ctx).inputs, dtype=np.float64), dtype=DTYPE)
        self._idx: list[int] = []
        self._y: list[float] = []

    def make_model(self, train_X: torch.Tensor, train_Y: torch.Tensor, ctx: AskTellContext):  # pragma: no cover
        raise NotImplementedError("a BoTorchPolicy defines make_model(train_X, train_Y, ctx)")

    def make_acquisition(self, model, t: int, ctx: AskTellContext):  # pragma: no cover
        raise NotImplementedError("a BoTorchPolicy defines make_acquisition(model, t, ctx)")

    def ask(self, t: int, available: np.ndarray) -> int:
        ctx = self.ctx
        torch.manual_seed(int(ctx.rng.integers(2**62)))
        train_X = self.inputs[self._idx]
        train_Y = torch.tensor(self._y, dtype=DTYPE).reshape(-1, 1)
        cand_idx = np.flatnonzero(available)
        cand = self.inputs[cand_idx]
        model = self.make_model(train_X, train_Y, ctx)
        if self.check_assumptions:
            check_model(model, ctx, train_X, cand)
        acq = self.make_acquisition(model, t, ctx)
        if self.check_assumptions:
            _check_acquisition(acq)
        with torch.no_grad():
            scores = acq(cand.unsqueeze(-2))
        if not isinstance(scores, torch.Tensor) or scores.shape != (len(cand_idx),):
            raise OutsideTheory(f"the acquisition returned {getattr(scores, 'shape', type(scores).__name__)}, "
                                f"not one score per candidate ({len(cand_idx)},)")
        if self.check_assumptions and scores.dtype != DTYPE:
            raise OutsideTheory(f"the acquisition's scores are {scores.dtype}, not float64")
        s = scores.detach().numpy().astype(np.float64)
        if not np.all(np.isfinite(s)):
            raise OutsideTheory("the acquisition returned a non-finite score")
        return int(cand_idx[int(np.argmax(s))])

    def tell(self, index: int, y: float) -> None:
        self._idx.append(int(index))
        self._y.append(float(y))


# ---------------------------------------------------------------------------------------------- batched over runs
@contextlib.contextmanager
def _marginals_from_joint(model, grid: torch.Tensor):
    """While the acquisition scores ``grid`` (the domain as an (n, b, 1, d) t-batch of single points), the model
    answers ``posterior(grid)`` from one joint posterior per run on the domain, (b, n, d), keeping its marginals.

    Why: the two are the same posterior means and variances (GPyTorch's exact prediction, the same caches and
    formula per point), but GPyTorch broadcasts an (n, b) t-batch against the model's (b,) batch by copying its
    (b, t, t) cache n times (n·b·t² floats: gigabytes at 100 points, 100 runs, t = 200), where the joint form is
    one batched (b, n, t)·(b, t, t) product. Any other input (a user's acquisition that calls the model on other
    points) goes to the model's own ``posterior`` unchanged."""
    own = type(model).posterior
    n, b, _, d = grid.shape
    joint = grid[:, :, 0, :].transpose(0, 1)  # (b, n, d)

    def posterior(X, *args, **kwargs):
        if X.shape != grid.shape or not torch.equal(X, grid):
            return own(model, X, *args, **kwargs)
        post = own(model, joint, *args, **kwargs)
        mean = post.mean[..., 0].transpose(0, 1).unsqueeze(-1)  # (n, b, 1): one point per t-batch
        var = post.variance[..., 0].transpose(0, 1).unsqueeze(-1)
        return GPyTorchPosterior(MultivariateNormal(mean, DiagLinearOperator(var)))

    model.posterior = posterior  # an instance attribute: this step's model only (rebuilt every step)
    try:
        yield
    finally:
        del model.posterior


@dataclass(frozen=True, eq=False)
class BatchContext:
    """What a :class:`BoTorchBatchPolicy` is given: the problem of a chunk of runs (the fields of
    :class:`~boundcheck.policies.asktell.AskTellContext` every run shares, read-only), ``runs`` (b, the batch) and
    ``run_ids`` (the Monte Carlo run of each batch member, for messages; a policy must not act on them)."""

    runs: int
    run_ids: tuple[int, ...]
    points: np.ndarray
    kernel: np.ndarray
    mean: np.ndarray
    eps: float
    noise_sd: float
    noise_var: float
    horizon: int
    delta: float
    beta: np.ndarray
    B: float | None
    batch: int
    kernel_spec: KernelSpec

    @property
    def n(self) -> int:
        """|X|, the number of points."""
        return int(self.points.shape[0])


class NamedByClass:
    """A user's subclass is named after itself (``name``, ``label``) unless it says otherwise: the name the verdicts
    show, as for an ask/tell class."""

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        if "name" not in cls.__dict__:
            cls.name = cls.__name__
        if "label" not in cls.__dict__:
            cls.label = cls.name


class BoTorchBatchPolicy(NamedByClass, Policy):
    """A user's BoTorch loop batched over the runs of a chunk: one model with batch shape (b,) per step.

    Subclass it with the same two methods as :class:`BoTorchPolicy`, on batched tensors:
    ``make_model(train_X, train_Y, ctx)`` gets the b runs' data so far, ``(b, t−1, d)`` and ``(b, t−1, 1)``
    float64 (``SingleTaskGP`` takes them as they are: a model with batch shape (b,)); ``make_acquisition(model, t,
    ctx)`` returns an acquisition that maps the domain as an ``(n, b, 1, d)`` tensor (every point for every run, a
    t-batch BoTorch broadcasts against the model's batch) to ``(n, b)`` scores: one evaluation per step for all
    runs. x_t of each run is its best-scored point of X_t, the lowest index on ties, as in the per-run form; the
    same checks run every step (:func:`check_batch_model`, float64 acquisition and scores). Torch runs on one
    thread (the runs are the parallelism; the engine's workers share the cores).

    For deterministic acquisitions (UCB): torch's generator is seeded once per step from the first run's stream,
    so a sampler's draws would depend on how the runs are grouped; Thompson sampling stays in the per-run form.
    ``check_assumptions = False`` turns the per-step checks off, as in :class:`BoTorchPolicy`."""

    check_assumptions: ClassVar[bool] = True
    one_arm: ClassVar[bool] = True
    name = "botorch_batch"
    label = "BoTorch (batched)"
    description = "a user's BoTorch model and acquisition, batched over runs"

    def make_model(self, train_X: torch.Tensor, train_Y: torch.Tensor, ctx: BatchContext):  # pragma: no cover
        raise NotImplementedError("a BoTorchBatchPolicy defines make_model(train_X, train_Y, ctx)")

    def make_acquisition(self, model, t: int, ctx: BatchContext):  # pragma: no cover
        raise NotImplementedError("a BoTorchBatchPolicy defines make_acquisition(model, t, ctx)")

    def start(self, ctx: RunContext) -> None:
        super().start(ctx)
        prior = ctx.candidates[0]
        if prior.eps != 0.0:
            raise OutsideTheory(f"the prior drifts (ε = {prior.eps:g}): a BoTorch model of a static f cannot be "
                                "this theorem's algorithm")
        if ctx.actions.K != 1:
            raise OutsideTheory(f"rounds of {ctx.actions.K} base arms: the BoTorch adapter chooses one point")
        torch.set_num_threads(1)
        spec = ctx.kernel_spec(0)
        points = ctx.points if ctx.points is not None else np.arange(prior.n, dtype=float)[:, None]
        m = int(ctx.runs)
        self.bctx = BatchContext(
            runs=m, run_ids=tuple(int(r) for r in ctx.run_ids) or tuple(range(m)), points=_read_only(points),
            kernel=_read_only(prior.K), mean=_read_only(prior.mean), eps=float(prior.eps),
            noise_sd=float(ctx.noise_sd), noise_var=float(ctx.noise_var), horizon=int(ctx.horizon),
            delta=float(ctx.delta), beta=_read_only(np.array(ctx.schedule(self.name), dtype=float)),
            B=None if ctx.B is None else float(ctx.B), batch=1, kernel_spec=spec)
        self.inputs = torch.as_tensor(np.array(spec.inputs, dtype=np.float64), dtype=DTYPE)
        n, d = self.inputs.shape
        self._grid = self.inputs.reshape(n, 1, 1, d).expand(n, m, 1, d)  # the domain as an (n, b, 1, d) t-batch
        self._idx = torch.zeros((m, ctx.horizon), dtype=torch.long)
        self._y = torch.zeros((m, ctx.horizon), dtype=DTYPE)
        self._t = 0  # observations so far

    def select(self, t: int, available: np.ndarray) -> np.ndarray:
        ctx, m = self.bctx, self.bctx.runs
        torch.manual_seed(int(self.ctx.rngs[0].integers(2**62)))
        train_X = self.inputs[self._idx[:, : self._t]]  # (b, t−1, d)
        train_Y = self._y[:, : self._t].unsqueeze(-1)  # (b, t−1, 1)
        model = self.make_model(train_X, train_Y, ctx)
        if self.check_assumptions:
            check_batch_model(model, ctx, self.inputs)
        acq = self.make_acquisition(model, t, ctx)
        if self.check_assumptions:
            _check_acquisition(acq)
        with torch.no_grad(), _marginals_from_joint(model, self._grid):
            scores = acq(self._grid)
        n = self.inputs.shape[0]
        if not isinstance(scores, torch.Tensor) or scores.shape != (n, m):
            raise OutsideTheory(f"the acquisition returned {getattr(scores, 'shape', type(scores).__name__)}, "
                                f"not one score per point and run ({n}, {m})")
        if self.check_assumptions and scores.dtype != DTYPE:
            raise OutsideTheory(f"the acquisition's scores are {scores.dtype}, not float64")
        s = scores.detach().numpy().T.astype(np.float64)  # (b, n)
        if not np.all(np.isfinite(s)):
            raise OutsideTheory("the acquisition returned a non-finite score")
        avail = np.broadcast_to(np.asarray(available, dtype=bool), s.shape)
        # the first maximum over X_t: the lowest index on ties, as the per-run form's argmax over X_t's indices
        x = np.argmax(np.where(avail, s, -np.inf), axis=1)
        return x[:, None].astype(np.int64)

    def update(self, t: int, action: np.ndarray, y: np.ndarray) -> None:
        self._idx[:, self._t] = torch.as_tensor(np.asarray(action)[:, 0], dtype=torch.long)
        self._y[:, self._t] = torch.as_tensor(np.asarray(y, dtype=np.float64)[:, 0], dtype=DTYPE)
        self._t += 1
