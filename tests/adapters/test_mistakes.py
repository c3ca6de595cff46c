"""The stack's mistakes (docs/botorch.md's table): each is refused by the adapter with its reason, and, with the
adapter's checks off, caught by the claims on what the code did (violated). Small settings: the runs each needs."""

import os
from dataclasses import replace

import numpy as np
import pytest

if os.environ.get("BOUNDCHECK_REQUIRE_PLUGIN"):  # make test / CI install the extras: missing, this fails
    import botorch  # noqa: F401
else:  # a bare checkout: skipped
    pytest.importorskip("botorch")

import torch  # noqa: E402
from botorch.acquisition import UpperConfidenceBound  # noqa: E402
from botorch.fit import fit_gpytorch_mll  # noqa: E402
from botorch.models import SingleTaskGP  # noqa: E402
from botorch.models.transforms.outcome import Standardize  # noqa: E402
from examples_loader import example  # noqa: E402
from gpytorch.mlls import ExactMarginalLogLikelihood  # noqa: E402

from boundcheck.adapters.botorch import gpytorch_kernel, gpytorch_mean  # noqa: E402
from boundcheck.errors import UserCodeError  # noqa: E402
from boundcheck.testing import run_check  # noqa: E402
from boundcheck.world import AlternatingAvailability, get_scenario  # noqa: E402

BoTorchUCB = example("botorch_ucb", "BoTorchUCB")


def _yvar(train_Y, ctx):
    return torch.full_like(train_Y, ctx.noise_var)


class SqrtBeta(BoTorchUCB):
    """beta = ctx.beta[t]: BoTorch takes its root, the width becomes √(width)."""

    def make_acquisition(self, model, t, ctx):
        return UpperConfidenceBound(model, beta=torch.tensor(ctx.beta[t], dtype=torch.float64))


class BetaSquaredTwice(BoTorchUCB):
    """beta = ctx.beta[t]**4: the width squared once too often."""

    def make_acquisition(self, model, t, ctx):
        return UpperConfidenceBound(model, beta=torch.tensor(ctx.beta[t] ** 4, dtype=torch.float64))


class Standardized(BoTorchUCB):
    """BoTorch's Standardize outcome transform left on (y rescaled with the data)."""

    def make_model(self, train_X, train_Y, ctx):
        return SingleTaskGP(train_X, train_Y, train_Yvar=_yvar(train_Y, ctx), covar_module=gpytorch_kernel(ctx),
                            mean_module=gpytorch_mean(ctx),
                            outcome_transform=Standardize(1) if len(train_Y) > 1 else None)


class Float32(BoTorchUCB):
    """The model and the data in float32."""

    def make_model(self, train_X, train_Y, ctx):
        return super().make_model(train_X, train_Y, ctx).float()

    def make_acquisition(self, model, t, ctx):
        acq = UpperConfidenceBound(model, beta=ctx.beta[t] ** 2)  # a Python float: float32 inside BoTorch
        return lambda X: acq(X.float()).double()


def _fit(model, **frozen):
    for name, p in model.named_parameters():
        p.requires_grad_(not any(name.startswith(f) for f in frozen))
    if len(model.train_targets) > 1:
        fit_gpytorch_mll(ExactMarginalLogLikelihood(model.likelihood, model))
    return model


class Fitted(BoTorchUCB):
    """Kernel hyperparameters fitted to the data every step (marginal likelihood)."""

    def make_model(self, train_X, train_Y, ctx):
        model = super().make_model(train_X, train_Y, ctx)
        for p in model.covar_module.parameters():
            p.requires_grad_(True)
        return _fit(model, mean_module=True)


class LearntMean(BoTorchUCB):
    """BoTorch's default learnable ConstantMean, fitted (the kernel kept)."""

    def make_model(self, train_X, train_Y, ctx):
        model = SingleTaskGP(train_X, train_Y, train_Yvar=_yvar(train_Y, ctx), covar_module=gpytorch_kernel(ctx),
                             outcome_transform=None)
        return _fit(model, covar_module=True)


class LearntNoise(BoTorchUCB):
    """No train_Yvar: a GaussianLikelihood whose noise BoTorch initialises (and would learn), not λ."""

    def make_model(self, train_X, train_Y, ctx):
        return SingleTaskGP(train_X, train_Y, covar_module=gpytorch_kernel(ctx), mean_module=gpytorch_mean(ctx),
                            outcome_transform=None)


class OverAllX(BoTorchUCB):
    """The acquisition maximised over the whole domain X, not over the available X_t."""

    def ask(self, t, available):
        return super().ask(t, np.ones_like(available))


def _unchecked(cls):
    return type(f"{cls.__name__}Unchecked", (cls,), {"check_assumptions": False})


def _verdicts(cls, runs, horizon, seed=1):
    s = run_check("gp_ucb", algorithm=cls, runs=runs, horizon=horizon, seed=seed, policies=[])
    return s["verdict"], {c["id"]: c["verdict"] for c in s["claims"]}


# mistake -> (the adapter's refusal, runs and horizon at which the claims alone say violated)
REFUSED = [
    (Standardized, "outcome_transform \\(Standardize\\)"),
    (Float32, "in torch.float32"),
    (Fitted, "prior covariance differs"),
    (LearntMean, "prior mean differs"),
    (LearntNoise, "noise variance is"),
]


@pytest.mark.parametrize("cls, reason", REFUSED, ids=[c.__name__ for c, _ in REFUSED])
def test_the_adapter_refuses_what_the_theorem_does_not_assume(cls, reason):
    with pytest.raises(UserCodeError, match=f"raised OutsideTheory: .*{reason}"):
        run_check("gp_ucb", algorithm=cls, runs=2, horizon=4, seed=1, policies=[])


CAUGHT = [(SqrtBeta, 4, 12), (BetaSquaredTwice, 4, 12), (_unchecked(Standardized), 4, 12),
          (_unchecked(Float32), 4, 30), (_unchecked(Fitted), 3, 8), (_unchecked(LearntMean), 3, 8),
          (_unchecked(LearntNoise), 4, 12)]


@pytest.mark.parametrize("cls, runs, horizon", CAUGHT, ids=[c.__name__ for c, _, _ in CAUGHT])
def test_each_mistake_is_violated_by_the_claims_on_its_actions(cls, runs, horizon):
    verdict, claims = _verdicts(cls, runs, horizon)
    assert verdict == "violated" and claims["conformance"] == "violated", claims


def test_the_acquisition_over_x_instead_of_x_t_is_refused():
    sc = get_scenario("gp_sample_se")
    mask = np.ones(sc.domain.n, dtype=bool)
    mask[:] = False
    mask[: sc.domain.n // 2] = True
    sc = replace(sc, availability=AlternatingAvailability(mask))
    with pytest.raises(UserCodeError, match="not in the available set X_t"):
        run_check("gp_ucb", scenario=sc, algorithm=OverAllX, runs=3, horizon=6, allow_out_of_theory=True,
                  policies=[])
