"""GP-UCB as a BoTorch user writes it (SingleTaskGP + UpperConfidenceBound), checked against Srinivas et al.

    pip install "boundcheck[botorch]"
    boundcheck verify --theorem gp_ucb --algorithm examples/botorch_ucb.py:BoTorchUCB

What the theorem assumes, in BoTorch's terms: the prior's kernel with its hyperparameters fixed
(``gpytorch_kernel(ctx)``), its mean (``gpytorch_mean(ctx)``, not a learnable ``ConstantMean``), the noise variance
fixed at λ (``train_Yvar``), no outcome transform (BoTorch's default ``Standardize`` rescales y with the data),
float64, nothing fitted; and BoTorch's ``beta`` is the *square* of the width ``ctx.beta[t]`` (``botorch_beta``).
"""

import torch
from botorch.acquisition import UpperConfidenceBound
from botorch.models import SingleTaskGP

from boundcheck.adapters.botorch import BoTorchPolicy, botorch_beta, gpytorch_kernel, gpytorch_mean


class BoTorchUCB(BoTorchPolicy):
    """GP-UCB: x_t = argmax over X_t of μ_{t−1}(x) + β_t σ_{t−1}(x) with a SingleTaskGP rebuilt each step."""

    def make_model(self, train_X, train_Y, ctx):
        return SingleTaskGP(train_X, train_Y, train_Yvar=torch.full_like(train_Y, ctx.noise_var),
                            covar_module=gpytorch_kernel(ctx), mean_module=gpytorch_mean(ctx),
                            outcome_transform=None)

    def make_acquisition(self, model, t, ctx):
        return UpperConfidenceBound(model, beta=botorch_beta(ctx.beta[t]))  # BoTorch scores μ + √beta σ
