"""GP Thompson sampling with BoTorch: one joint posterior draw on the candidate set X_t, checked against
Chowdhury & Gopalan's GP-TS (its law of the choices).

    pip install "boundcheck[botorch]"
    boundcheck verify --theorem gp_ts --algorithm examples/botorch_ts.py:BoTorchTS

The theorem's GP-TS draws f̃_t ~ GP(μ_{t−1}, v_t² k_{t−1}): BoTorch's posterior draws at v_t = 1, so the draw's
deviation from the mean is scaled by v_t = ``ctx.beta[t]``. The adapter seeds torch from the run's own stream.
"""

import torch
from botorch.models import SingleTaskGP

from boundcheck.adapters.botorch import BoTorchPolicy, gpytorch_kernel, gpytorch_mean


class BoTorchTS(BoTorchPolicy):
    """GP-TS: x_t = argmax over X_t of one joint draw of μ_{t−1} + v_t (f − μ_{t−1}), f from the posterior."""

    def make_model(self, train_X, train_Y, ctx):
        return SingleTaskGP(train_X, train_Y, train_Yvar=torch.full_like(train_Y, ctx.noise_var),
                            covar_module=gpytorch_kernel(ctx), mean_module=gpytorch_mean(ctx),
                            outcome_transform=None)

    def make_acquisition(self, model, t, ctx):
        v = torch.tensor(ctx.beta[t], dtype=torch.float64)

        def thompson(X):  # X: (b, 1, d), all of X_t: one joint draw over it
            posterior = model.posterior(X.squeeze(-2))
            mean = posterior.mean.squeeze(-1)
            draw = posterior.rsample(torch.Size([1])).squeeze(0).squeeze(-1)
            return mean + v * (draw - mean)

        return thompson
