"""BoTorch on a compact box (boundcheck.adapters.botorch_box): a user's SingleTaskGP + UCB + optimize_acqf conforms
to gp_ucb_compact's algorithm, defective optimisation or β is caught by the conformance claim, a model that is not
the theorem's GP is refused (never "holds"), runs do not depend on their batch, user exceptions are one line."""

import os
import sys
from pathlib import Path

import numpy as np
import pytest

if os.environ.get("BOUNDCHECK_REQUIRE_PLUGIN"):  # make test / CI install the extras: missing, this fails
    import botorch  # noqa: F401
else:  # a bare checkout: skipped
    pytest.importorskip("botorch")

import gpytorch  # noqa: E402
import torch  # noqa: E402

from boundcheck.adapters import OutsideTheory  # noqa: E402
from boundcheck.adapters.botorch import gpytorch_kernel  # noqa: E402
from boundcheck.adapters.botorch_box import (  # noqa: E402
    BoTorchBoxPolicy,
    box_check_points,
    box_corners,
    check_box_model,
)
from boundcheck.cli import main  # noqa: E402
from boundcheck.model.kernels import RBF  # noqa: E402
from boundcheck.policies.box import BoxContext  # noqa: E402
from boundcheck.testing import check_policy, format_claims, run_check  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
THEOREM = "gp_ucb_compact"
sys.path.insert(0, str(ROOT / "tests" / "_support"))
from examples_loader import example  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::botorch.exceptions.warnings.BadInitialCandidatesWarning")


def _conformance(cls, runs, horizon, seed=1):
    s = run_check("gp_ucb_compact", runs=runs, horizon=horizon, seed=seed, algorithm=example("botorch_box_ucb", cls))
    return next(c for c in s["claims"] if c["id"] == "conformance"), s


def test_botorch_ucb_with_optimize_acqf_conforms_on_the_box():
    """The shadow's maximum of its UCB is never above the UCB at BoTorch's point (round-off only)."""
    conf, s = _conformance("BoTorchBoxUCB", runs=3, horizon=10)
    assert conf["verdict"] == "holds" and conf["violations"] == 0, format_claims(s)
    assert conf["details"]["max_gap"] < 1e-9


@pytest.mark.parametrize("cls", ["BoTorchBoxUCBFewStarts", "BoTorchBoxUCBNarrow"])
def test_a_defective_botorch_box_code_is_caught_by_conformance(cls):
    """One restart among 4 raw samples (a local maximum), or the width passed where BoTorch wants its square."""
    conf, s = _conformance(cls, runs=3, horizon=10)
    assert conf["verdict"] == "violated", format_claims(s)


def _box_ctx(runs=1, lengthscale=0.2):
    return BoxContext(runs=runs, horizon=4, bounds=np.array([[0.0, 1.0]]), kernel=RBF(lengthscale), noise_sd=0.15,
                      noise_var=0.0225, beta=np.full(5, 2.0), rngs=[np.random.default_rng(i) for i in range(runs)])


def _model(ctx, train_X, kernel):
    from botorch.models import SingleTaskGP

    train_Y = torch.zeros((train_X.shape[0], 1), dtype=torch.float64)
    return SingleTaskGP(train_X, train_Y, train_Yvar=torch.full_like(train_Y, ctx.noise_var), covar_module=kernel,
                        mean_module=gpytorch.means.ZeroMean(), outcome_transform=None)


def test_the_box_model_check_accepts_the_theorems_gp_and_refuses_a_kernel_off_by_float32():
    """The tolerance is tight and sound both ways: the exact kernel at random data and candidates is accepted
    (no false refusal), a lengthscale rounded through float32 (≈ 1e-8 relative in k) is refused, as is any
    lengthscale other than the theorem's even at step 1, where only the check set shows it."""
    pol = BoTorchBoxPolicy()
    pol.start(_box_ctx())
    ctx = pol.tctx
    rng = np.random.default_rng(3)
    for t in (0, 1, 7, 30):
        X = torch.as_tensor(rng.random((t, 1)))
        check_box_model(_model(ctx, X, gpytorch_kernel(ctx)), ctx, X, torch.as_tensor(rng.random((1, 1))))
    k = gpytorch_kernel(ctx)
    k.base_kernel.lengthscale = torch.tensor(float(np.float32(0.2)), dtype=torch.float64)
    X = torch.as_tensor(rng.random((5, 1)))
    with pytest.raises(OutsideTheory, match="prior covariance"):
        check_box_model(_model(ctx, X, k), ctx, X, torch.as_tensor(rng.random((1, 1))))
    wrong = BoTorchBoxPolicy()
    wrong.start(_box_ctx(lengthscale=0.3))
    empty = torch.zeros((0, 1), dtype=torch.float64)
    with pytest.raises(OutsideTheory, match="prior covariance"):  # no data: only the check set sees ℓ
        check_box_model(_model(ctx, empty, gpytorch_kernel(wrong.tctx)), ctx, empty, torch.full((1, 1), 0.5))
    P = box_check_points(np.array([[0.0, 1.0], [-1.0, 2.0]]))  # 32 Sobol points (the first a corner), 3 corners
    corners = {(0.0, 2.0), (1.0, -1.0), (1.0, 2.0), (0.0, -1.0)}
    assert P.shape == (35, 2) and corners <= set(map(tuple, P))
    box = BoTorchBoxPolicy()
    box.start(BoxContext(runs=1, horizon=2, bounds=np.array([[0.0, 1.0], [-1.0, 2.0]]), kernel=RBF(0.2),
                         noise_sd=0.1, noise_var=0.01, beta=np.ones(3), rngs=[np.random.default_rng(0)]))
    C = box_corners(box.tctx)
    assert C.shape == (4, 1, 2) and C.dtype == torch.float64 and set(map(tuple, C[:, 0].tolist())) == corners


WRONG = """
import torch
from botorch.acquisition import UpperConfidenceBound
from botorch.models import SingleTaskGP

from boundcheck.adapters.botorch import botorch_beta, gpytorch_kernel, gpytorch_mean
from boundcheck.adapters.botorch_box import BoTorchBoxPolicy


class BoTorchBoxUCB(BoTorchBoxPolicy):
    def make_model(self, train_X, train_Y, ctx):
        return SingleTaskGP(train_X, train_Y, train_Yvar=torch.full_like(train_Y, ctx.noise_var),
                            covar_module=gpytorch_kernel(ctx), mean_module=gpytorch_mean(ctx),
                            outcome_transform=None)

    def make_acquisition(self, model, t, ctx):
        return UpperConfidenceBound(model, beta=botorch_beta(ctx.beta[t]))


class WrongLengthscale(BoTorchBoxUCB):
    check_assumptions = {checks}

    def make_model(self, train_X, train_Y, ctx):
        model = super().make_model(train_X, train_Y, ctx)
        model.covar_module.base_kernel.lengthscale = torch.tensor(0.3, dtype=torch.float64)
        return model


class Raises(BoTorchBoxUCB):
    def make_acquisition(self, model, t, ctx):
        if t == 2:
            raise ValueError("my acquisition broke\\nsecond line")
        return super().make_acquisition(model, t, ctx)
"""


def _error_lines(capsys) -> list[str]:
    """stderr's error lines (a slow import or chunk prints progress lines too), none of them a traceback."""
    lines = capsys.readouterr().err.strip().splitlines()
    assert not any("Traceback" in ln or ln.startswith("  File ") for ln in lines), lines
    return [ln for ln in lines if not ln.startswith(("boundcheck: importing", f"boundcheck: {THEOREM}: "))]


def _user_file(tmp_path, checks=True):
    f = tmp_path / f"user_box_{checks}.py"
    f.write_text(WRONG.replace("{checks}", str(checks)))
    return f


def test_a_box_model_that_is_not_the_theorems_gp_is_refused_never_holds(tmp_path, capsys):
    """ℓ = 0.3 where the scenario's is 0.2: exit 2, one line naming the reason, the run and step 1 (the check set
    sees it before any data); with the checks off, the conformance claim alone catches it."""
    f = _user_file(tmp_path)
    rc = main(["verify", "--theorem", "gp_ucb_compact", "--algorithm", f"{f}:WrongLengthscale", "--runs", "2",
               "--horizon", "4", "--no-report", "--out", str(tmp_path / "o")])
    lines = _error_lines(capsys)
    assert rc == 2 and len(lines) == 1, lines
    err = lines[0]
    assert "prior covariance differs" in err and "run 0, step 1" in err and "holds" not in err
    off = _user_file(tmp_path, checks=False)
    s = run_check("gp_ucb_compact", runs=2, horizon=6, seed=1, algorithm=f"{off}:WrongLengthscale")
    conf = next(c for c in s["claims"] if c["id"] == "conformance")
    assert conf["verdict"] == "violated", format_claims(s)


def test_an_exception_in_the_users_botorch_box_code_is_one_line_exit_2(tmp_path, capsys):
    f = _user_file(tmp_path)
    rc = main(["verify", "--theorem", "gp_ucb_compact", "--algorithm", f"{f}:Raises", "--runs", "2",
               "--horizon", "3", "--no-report", "--out", str(tmp_path / "o")])
    lines = _error_lines(capsys)
    assert rc == 2 and len(lines) == 1, lines
    err = lines[0]
    assert "ValueError: my acquisition broke" in err and "step 2" in err and "second line" not in err


class _Cheap(BoTorchBoxPolicy):
    """The example's model and acquisition with a cheaper optimiser (the seeding is what is tested)."""

    num_restarts, raw_samples = 2, 32
    make_model = example("botorch_box_ucb", "BoTorchBoxUCB").make_model
    make_acquisition = example("botorch_box_ucb", "BoTorchBoxUCB").make_acquisition


_Cheap.__module__ = "user_code"


def test_botorch_box_runs_do_not_depend_on_their_batch():
    """Torch is seeded from each run's own stream before each of its steps: the same seeds give the same points,
    and 3 runs in one batch give, bit for bit, the points of the 3 runs one by one (optimize_acqf's raw Sobol
    samples and its Boltzmann choice of restarts are random)."""
    check_policy(_Cheap, "gp_sample_se_box", runs=3, horizon=5)
