"""GP-UCB in BoTorch, batched over runs: one SingleTaskGP with batch shape (b,) scores every run's domain at once.

    pip install "boundcheck[botorch]"
    boundcheck verify --theorem gp_ucb --algorithm examples/botorch_ucb_batched.py:BoTorchUCBBatched

The same model and acquisition as examples/botorch_ucb.py (a user's code in its natural form), on tensors with a
leading batch dimension over the chunk's runs: ``train_X`` (b, t−1, d), ``train_Y`` (b, t−1, 1); the adapter
scores the domain as an (n, b, 1, d) t-batch, (n, b) scores in one call. Several times faster than rebuilding a
model per run; the checks (float64, the prior's kernel, mean and noise, no transform, nothing fitted) are the same.
"""

import torch
from botorch.acquisition import UpperConfidenceBound
from botorch.models import SingleTaskGP

from boundcheck.adapters.botorch import BoTorchBatchPolicy, botorch_beta, gpytorch_kernel, gpytorch_mean


class BoTorchUCBBatched(BoTorchBatchPolicy):
    """GP-UCB: x_t = argmax over X_t of μ_{t−1}(x) + β_t σ_{t−1}(x), one batched SingleTaskGP per step."""

    def make_model(self, train_X, train_Y, ctx):
        return SingleTaskGP(train_X, train_Y, train_Yvar=torch.full_like(train_Y, ctx.noise_var),
                            covar_module=gpytorch_kernel(ctx), mean_module=gpytorch_mean(ctx),
                            outcome_transform=None)

    def make_acquisition(self, model, t, ctx):
        return UpperConfidenceBound(model, beta=botorch_beta(ctx.beta[t]))  # BoTorch scores μ + √beta σ
