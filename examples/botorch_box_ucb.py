"""GP-UCB on a compact box as a BoTorch user writes it: SingleTaskGP, UpperConfidenceBound, optimize_acqf.

    pip install "boundcheck[botorch]"
    boundcheck verify --theorem gp_ucb_compact --algorithm examples/botorch_box_ucb.py:BoTorchBoxUCB \
        --runs 4 --horizon 15

boundcheck runs this code beside its own GP-UCB as a shadow (told this code's points and observations, never f)
and judges Srinivas et al.'s Theorem 2 on what it did: a point whose upper confidence bound is below the shadow's
maximum is a counterexample of the conformance claim. ``BoTorchBoxUCBFewStarts`` (one L-BFGS-B restart from the
best of 4 raw samples) is such a code; ``BoTorchBoxUCBNarrow`` passes the width where BoTorch wants its square;
``BoTorchBoxUCBNoCorners`` (optimize_acqf's own starts only) now and then misses a maximum at a corner of the box.
"""

import torch
from botorch.acquisition import UpperConfidenceBound
from botorch.models import SingleTaskGP
from botorch.optim import optimize_acqf
from botorch.optim.initializers import gen_batch_initial_conditions

from boundcheck.adapters.botorch import botorch_beta, gpytorch_kernel, gpytorch_mean
from boundcheck.adapters.botorch_box import BoTorchBoxPolicy, box_corners


class BoTorchBoxUCB(BoTorchBoxPolicy):
    """GP-UCB: x_t = argmax over the box of μ_{t−1}(x) + √β_t σ_{t−1}(x), a SingleTaskGP rebuilt each step,
    maximised by optimize_acqf: L-BFGS-B from BoTorch's 10 starts among 512 raw Sobol samples and from the box's
    corners (where a UCB's maximum often is, in a sliver the raw samples miss)."""

    num_restarts, raw_samples = 10, 512

    def make_model(self, train_X, train_Y, ctx):
        return SingleTaskGP(train_X, train_Y, train_Yvar=torch.full_like(train_Y, ctx.noise_var),
                            covar_module=gpytorch_kernel(ctx), mean_module=gpytorch_mean(ctx),
                            outcome_transform=None)

    def make_acquisition(self, model, t, ctx):
        return UpperConfidenceBound(model, beta=botorch_beta(ctx.beta[t]))  # BoTorch scores μ + √beta σ

    def optimize(self, acq, t, ctx):
        starts = gen_batch_initial_conditions(acq, ctx.torch_bounds, q=1, num_restarts=self.num_restarts,
                                              raw_samples=self.raw_samples)
        starts = torch.cat([starts, box_corners(ctx)])
        cand, _ = optimize_acqf(acq, bounds=ctx.torch_bounds, q=1, num_restarts=starts.shape[0],
                                batch_initial_conditions=starts)
        return cand


class BoTorchBoxUCBNoCorners(BoTorchBoxUCB):
    """optimize_acqf's own starts only (the adapter's default call): a maximum at a corner is now and then missed."""

    optimize = BoTorchBoxPolicy.optimize


class BoTorchBoxUCBFewStarts(BoTorchBoxUCB):
    """The same model and acquisition, optimize_acqf from one restart among 4 raw samples: a local maximum."""

    num_restarts, raw_samples = 1, 4
    optimize = BoTorchBoxPolicy.optimize


class BoTorchBoxUCBNarrow(BoTorchBoxUCB):
    """``beta=ctx.beta[t]``: BoTorch scores μ + √(√β_t) σ, a width too narrow (the β convention got wrong)."""

    def make_acquisition(self, model, t, ctx):
        return UpperConfidenceBound(model, beta=torch.tensor(float(ctx.beta[t]), dtype=torch.float64))
