"""GP-UCB on a compact box as a BoTorch user writes it: SingleTaskGP, UpperConfidenceBound, optimize_acqf.

    pip install "boundcheck[botorch]"
    boundcheck verify --theorem gp_ucb_compact --algorithm examples/botorch_box_ucb.py:BoTorchBoxUCB \
        --runs 4 --horizon 15

boundcheck runs this code beside its own GP-UCB as a shadow (told this code's points and observations, never f)
and judges Srinivas et al.'s Theorem 2 on what it did: a point whose upper confidence bound is below the shadow's
maximum is a counterexample of the conformance claim. ``BoTorchBoxUCBFewStarts`` (one L-BFGS-B restart from the
best of 4 raw samples) is such a code; ``BoTorchBoxUCBNarrow`` passes the width where BoTorch wants its square.
"""

import torch
from botorch.acquisition import UpperConfidenceBound
from botorch.models import SingleTaskGP

from boundcheck.adapters.botorch import botorch_beta, gpytorch_kernel, gpytorch_mean
from boundcheck.adapters.botorch_box import BoTorchBoxPolicy


class BoTorchBoxUCB(BoTorchBoxPolicy):
    """GP-UCB: x_t = argmax over the box of μ_{t−1}(x) + √β_t σ_{t−1}(x), a SingleTaskGP rebuilt each step,
    maximised by optimize_acqf (512 raw Sobol samples, L-BFGS-B from the 10 best)."""

    num_restarts, raw_samples = 10, 512

    def make_model(self, train_X, train_Y, ctx):
        return SingleTaskGP(train_X, train_Y, train_Yvar=torch.full_like(train_Y, ctx.noise_var),
                            covar_module=gpytorch_kernel(ctx), mean_module=gpytorch_mean(ctx),
                            outcome_transform=None)

    def make_acquisition(self, model, t, ctx):
        return UpperConfidenceBound(model, beta=botorch_beta(ctx.beta[t]))  # BoTorch scores μ + √beta σ


class BoTorchBoxUCBFewStarts(BoTorchBoxUCB):
    """The same model and acquisition, optimised from one restart among 4 raw samples: a local maximum."""

    num_restarts, raw_samples = 1, 4


class BoTorchBoxUCBNarrow(BoTorchBoxUCB):
    """``beta=ctx.beta[t]``: BoTorch scores μ + √(√β_t) σ, a width too narrow (the β convention got wrong)."""

    def make_acquisition(self, model, t, ctx):
        return UpperConfidenceBound(model, beta=torch.tensor(float(ctx.beta[t]), dtype=torch.float64))
