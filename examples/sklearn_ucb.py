"""GP-UCB with scikit-learn's GaussianProcessRegressor, checked against Srinivas et al.'s Theorem 1.

    pip install "boundcheck[sklearn]"
    boundcheck verify --theorem gp_ucb --algorithm examples/sklearn_ucb.py:SklearnUCB

The kernel is the theorem's (``sklearn_kernel(ctx)``, hyperparameters fixed), the noise ``alpha`` its λ, and
nothing is fitted (``optimizer=None``): the adapter checks each of these every step (docs/botorch.md).
"""

from sklearn.gaussian_process import GaussianProcessRegressor

from boundcheck.adapters.sklearn import SklearnPolicy, sklearn_kernel


class SklearnUCB(SklearnPolicy):
    """GP-UCB: x_t = argmax over X_t of μ_{t−1}(x) + β_t σ_{t−1}(x) from a fresh regressor each step."""

    def make_model(self, ctx):
        return GaussianProcessRegressor(kernel=sklearn_kernel(ctx), alpha=ctx.noise_var, optimizer=None)

    def acquisition(self, mu, sigma, t, ctx):
        return mu + ctx.beta[t] * sigma  # ctx.beta[t] multiplies σ (the theorem's β_t^{1/2})
