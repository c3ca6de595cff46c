"""The BoTorch adapter batched over runs (one model with batch shape (b,) per step): the example holds against
gp_ucb from the command line, its β mistake is violated through conformance (the batched adapter is checked code,
watched by the shadow), it refuses what the per-run form refuses, and it chooses the same points as the per-run
form on the same data, over X_t, ties to the lowest index."""

import json
import os
from pathlib import Path

import numpy as np
import pytest

if os.environ.get("BOUNDCHECK_REQUIRE_PLUGIN"):  # make test / CI: a missing extra fails here, never skips
    import botorch  # noqa: F401
else:
    pytest.importorskip("botorch")  # a bare checkout without the extra

import torch  # noqa: E402
from botorch.acquisition import UpperConfidenceBound  # noqa: E402
from botorch.models import SingleTaskGP  # noqa: E402
from examples_loader import example  # noqa: E402

from boundcheck.adapters import OutsideTheory  # noqa: E402
from boundcheck.adapters.botorch import BoTorchBatchPolicy  # noqa: E402
from boundcheck.cli import main  # noqa: E402
from boundcheck.policies.asktell import AskTellAdapter  # noqa: E402
from boundcheck.policies.base import RunContext  # noqa: E402
from boundcheck.testing import run_check  # noqa: E402
from boundcheck.world import get_scenario  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


Batched = example("botorch_ucb_batched", "BoTorchUCBBatched")
PerRun = example("botorch_ucb", "BoTorchUCB")


def test_the_batched_example_holds_against_gp_ucb(capsys, tmp_path):
    rc = main(["verify", "--theorem", "gp_ucb", "--algorithm",
               str(ROOT / "examples" / "botorch_ucb_batched.py") + ":BoTorchUCBBatched", "--runs", "8",
               "--horizon", "15", "--jobs", "1", "--out", str(tmp_path), "--json", "--no-report"])
    out = capsys.readouterr().out
    s = json.loads(out[out.index("{"):])
    claims = {c["id"]: c["verdict"] for c in s["claims"]}
    assert rc == 0 and s["verdict"] != "violated" and s["not_applicable"] == {}, claims
    assert claims["conformance"] == "holds" and claims["D1_optimism"] == claims["D3_information"] == "holds"


class BatchedSqrtBeta(Batched):
    """beta = ctx.beta[t]: BoTorch takes its root, the width becomes √(width)."""

    def make_acquisition(self, model, t, ctx):
        return UpperConfidenceBound(model, beta=torch.tensor(ctx.beta[t], dtype=torch.float64))


def test_the_batched_sqrt_beta_mistake_is_violated_through_conformance():
    s = run_check("gp_ucb", algorithm=BatchedSqrtBeta, runs=4, horizon=12, seed=1, policies=[])
    claims = {c["id"]: c["verdict"] for c in s["claims"]}
    assert s["verdict"] == "violated" and claims["conformance"] == "violated", claims


class BatchedDefaultKernel(Batched):
    """BoTorch's default kernel (and its priors) instead of the theorem's."""

    def make_model(self, train_X, train_Y, ctx):
        return SingleTaskGP(train_X, train_Y, train_Yvar=torch.full_like(train_Y, ctx.noise_var),
                            outcome_transform=None)


class BatchedFloat32Scores(Batched):
    def make_acquisition(self, model, t, ctx):
        acq = super().make_acquisition(model, t, ctx)
        return lambda X: acq(X).float()


@pytest.mark.parametrize("cls, reason", [(BatchedDefaultKernel, "prior (covariance|mean) differs"),
                                         (BatchedFloat32Scores, "scores are torch.float32")],
                         ids=["DefaultKernel", "Float32Scores"])
def test_the_batched_adapter_refuses_what_the_per_run_form_refuses(cls, reason):
    """Refused as OutsideTheory itself (a BoundcheckError, CLI exit 2): the engine passes boundcheck's own errors
    from a batched policy through, where the per-run form wraps them in a UserCodeError naming the run."""
    with pytest.raises(OutsideTheory, match=reason):
        run_check("gp_ucb", algorithm=cls, runs=2, horizon=4, seed=1, policies=[])


def _context(runs: int, horizon: int) -> RunContext:
    sc = get_scenario("gp_sample_se")
    beta = np.linspace(1.0, 3.0, horizon + 1)
    return RunContext(runs=runs, horizon=horizon, candidates=(sc.truth,), truth=sc.truth, noise_sd=0.1,
                      noise_var=0.01, beta=beta, xi=np.zeros(horizon + 1), actions=sc.actions,
                      rngs=[np.random.default_rng(i) for i in range(runs)], points=sc.domain.points,
                      run_ids=tuple(range(runs)))


def test_batched_and_per_run_choose_the_same_points_over_x_t():
    """Same data, same steps: the batched model's choices equal the per-run form's in every run and step, with
    X_t alternating between two halves of the domain (the argmax is over X_t), and ties to the lowest index (on a
    flat prior at t = 1 every point ties: both take the first available one)."""
    runs, horizon = 3, 10
    ctx = _context(runs, horizon)
    n = ctx.candidates[0].n
    f = np.sin(7 * ctx.points[:, 0])  # the observations: a fixed function of the choice, both sides the same
    halves = [np.arange(n) < n // 2, np.arange(n) >= n // 2]
    batched, per_run = Batched(), AskTellAdapter(PerRun)
    batched.start(ctx)
    per_run.start(_context(runs, horizon))
    for t in range(1, horizon + 1):
        avail = np.broadcast_to(halves[t % 2], (runs, n))
        a, b = batched.select(t, avail), per_run.select(t, avail)
        assert np.array_equal(a, b), (t, a.ravel(), b.ravel())
        assert halves[t % 2][a[:, 0]].all()
        if t == 1:
            assert (a[:, 0] == np.flatnonzero(halves[1])[0]).all()  # every point ties: the lowest index
        y = f[a] + 0.1 * np.arange(runs)[:, None]  # runs see different data
        batched.update(t, a, y)
        per_run.update(t, b, y)


def test_a_batched_policy_keeps_the_per_run_form_available():
    """Both forms import side by side; the per-run class is not a batched Policy, the batched one is."""
    from boundcheck.policies.asktell import is_ask_tell
    from boundcheck.policies.base import Policy

    assert is_ask_tell(PerRun) and not is_ask_tell(Batched)
    assert issubclass(Batched, BoTorchBatchPolicy) and issubclass(Batched, Policy)
    assert Batched.name == "BoTorchUCBBatched"
