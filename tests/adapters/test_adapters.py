"""The adapters: the kernel specification beside the context's matrix, the equivalent GPyTorch / scikit-learn
kernels (to round-off; the float32 trap refused), the examples verified from the CLI (exit 0), and the one line a
user without the extras gets."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

if os.environ.get("BOUNDCHECK_REQUIRE_PLUGIN"):  # make test / CI install the extras: missing, this fails
    import botorch  # noqa: F401
    import sklearn  # noqa: F401
else:  # a bare checkout: skipped
    pytest.importorskip("botorch")
    pytest.importorskip("sklearn")

import torch  # noqa: E402
from botorch.acquisition import UpperConfidenceBound  # noqa: E402

from boundcheck.adapters import botorch as bt  # noqa: E402
from boundcheck.adapters import sklearn as sk  # noqa: E402
from boundcheck.cli import main  # noqa: E402
from boundcheck.errors import UserCodeError  # noqa: E402
from boundcheck.model.kernels import RBF, EmpiricalCovariance, Linear, Matern, kernel_spec  # noqa: E402
from boundcheck.testing import run_check  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
X = np.random.default_rng(0).random((40, 2))
KERNELS = [RBF(0.2), RBF.paper(0.05, 2.0), Matern(0.5, 0.3, 2.0), Matern(1.5, 0.1), Matern(2.5, 0.25, 0.7)]


@pytest.mark.parametrize("k", KERNELS, ids=repr)
def test_the_spec_is_solved_from_the_matrix_and_both_stacks_reproduce_it(k):
    K = k.gram(X)
    spec = kernel_spec(X, K)
    assert spec.family == ("rbf" if isinstance(k, RBF) else "matern")
    assert spec.lengthscale == pytest.approx(k.lengthscale, rel=1e-13) and spec.variance == k.variance
    g = bt.gpytorch_kernel(spec)
    with torch.no_grad():
        Kg = g(torch.as_tensor(X), torch.as_tensor(X)).to_dense().numpy()
    assert np.max(np.abs(Kg - K)) <= bt.TOLERANCE * k.variance
    assert np.max(np.abs(sk.sklearn_kernel(spec)(X) - K)) <= sk.TOLERANCE * k.variance


@pytest.mark.parametrize("K", [Linear().gram(X), EmpiricalCovariance(RBF(0.2).gram(X) + 0.1).matrix])
def test_a_matrix_no_family_reproduces_is_a_kernel_by_index(K):
    spec = kernel_spec(X, K)
    assert spec.family == "matrix" and spec.inputs.shape == (40, 1)
    with torch.no_grad():
        Kg = bt.gpytorch_kernel(spec)(torch.as_tensor(spec.inputs), torch.as_tensor(spec.inputs)).to_dense()
    assert np.array_equal(Kg.numpy(), K) and np.array_equal(sk.sklearn_kernel(spec)(spec.inputs), K)


def test_hyperparameters_set_from_python_floats_go_through_float32():
    """The trap the helpers avoid: a float32 module (GPyTorch's default) rounds ℓ to float32, ≈ 1e-8 off."""
    spec = kernel_spec(X, RBF(0.2).gram(X))
    naive = __import__("gpytorch").kernels.RBFKernel()
    naive.lengthscale = 0.2
    naive = naive.double()
    with torch.no_grad():
        Kn = naive(torch.as_tensor(X), torch.as_tensor(X)).to_dense().numpy()
    assert np.max(np.abs(Kn - spec.matrix)) > 100 * bt.TOLERANCE
    assert float(bt.botorch_beta(3.0)) == 9.0 and bt.botorch_beta(3.0).dtype == torch.float64


def _cli(capsys, tmp_path, theorem, target, runs, horizon, *extra):
    rc = main(["verify", "--theorem", theorem, "--algorithm", str(ROOT / "examples" / target), "--runs", str(runs),
               "--horizon", str(horizon), "--jobs", "1", "--out", str(tmp_path), "--json", "--no-report", *extra])
    out = capsys.readouterr().out
    return rc, json.loads(out[out.index("{"):])


@pytest.mark.parametrize("target", ["botorch_ucb.py:BoTorchUCB", "sklearn_ucb.py:SklearnUCB"])
def test_the_ucb_examples_hold_against_gp_ucb(capsys, tmp_path, target):
    rc, s = _cli(capsys, tmp_path, "gp_ucb", target, 8, 15)
    claims = {c["id"]: c["verdict"] for c in s["claims"]}
    assert rc == 0 and s["verdict"] != "violated" and s["not_applicable"] == {}, claims
    assert claims["conformance"] == "holds" and claims["D1_optimism"] == claims["D3_information"] == "holds"


def test_the_botorch_ucb_example_holds_against_igp_ucb(capsys, tmp_path):
    rc, s = _cli(capsys, tmp_path, "igp_ucb", "botorch_ucb.py:BoTorchUCB", 6, 12)
    assert rc == 0 and s["verdict"] != "violated"
    assert {c["id"]: c["verdict"] for c in s["claims"]}["conformance"] == "holds"


def test_botorch_thompson_sampling_holds_against_gp_ts_law(capsys, tmp_path):
    rc, s = _cli(capsys, tmp_path, "gp_ts", "botorch_ts.py:BoTorchTS", 12, 12, "--allow-incomplete")
    assert rc == 0 and s["verdict"] != "violated"
    assert {c["id"]: c["verdict"] for c in s["claims"]}["conformance"] == "holds"


def test_botorch_ts_without_the_v_t_scale_is_violated():
    import importlib.util

    spec = importlib.util.spec_from_file_location("example_botorch_ts", ROOT / "examples" / "botorch_ts.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)

    class PlainTS(mod.BoTorchTS):  # BoTorch's own posterior draws (v_t = 1)
        def make_acquisition(self, model, t, ctx):
            return lambda X: model.posterior(X.squeeze(-2)).rsample(torch.Size([1])).reshape(-1)

    s = run_check("gp_ts", algorithm=PlainTS, runs=12, horizon=12, seed=1, policies=[])
    assert {c["id"]: c["verdict"] for c in s["claims"]}["conformance"] == "violated"


class _PythonFloatBeta(bt.BoTorchPolicy):
    def make_model(self, train_X, train_Y, ctx):
        from botorch.models import SingleTaskGP

        return SingleTaskGP(train_X, train_Y, train_Yvar=torch.full_like(train_Y, ctx.noise_var),
                            covar_module=bt.gpytorch_kernel(ctx), mean_module=bt.gpytorch_mean(ctx),
                            outcome_transform=None)

    def make_acquisition(self, model, t, ctx):
        return UpperConfidenceBound(model, beta=float(ctx.beta[t]) ** 2)  # BoTorch stores it as float32


def test_a_python_float_beta_is_refused_as_float32():
    with pytest.raises(UserCodeError, match="acquisition holds beta in torch.float32"):
        run_check("gp_ucb", algorithm=_PythonFloatBeta, runs=2, horizon=3, policies=[])


class _FittedSklearn(sk.SklearnPolicy):
    def make_model(self, ctx):
        from sklearn.gaussian_process import GaussianProcessRegressor

        return GaussianProcessRegressor(kernel=sk.sklearn_kernel(ctx), alpha=ctx.noise_var)  # default optimizer

    def acquisition(self, mu, sigma, t, ctx):
        return mu + ctx.beta[t] * sigma


def test_sklearn_with_its_optimizer_is_refused():
    with pytest.raises(UserCodeError, match="optimizer is not None"):
        run_check("gp_ucb", algorithm=_FittedSklearn, runs=2, horizon=3, policies=[])


def test_without_the_extras_an_adapter_says_in_one_line_what_to_install(tmp_path):
    """torch and sklearn hidden (None in sys.modules): boundcheck imports, the adapters say what to install, and
    the CLI exits 2 on a policy file that imports one."""
    policy = tmp_path / "mine.py"
    policy.write_text("from boundcheck.adapters.botorch import BoTorchPolicy\n\n\nclass Mine(BoTorchPolicy):\n"
                      "    pass\n")
    code = ("import sys\nsys.modules['torch'] = sys.modules['sklearn'] = None\nimport boundcheck, boundcheck.api\n"
            "for name in ('botorch', 'sklearn'):\n    try:\n        __import__('boundcheck.adapters.' + name)\n"
            "    except ImportError as exc:\n        print(type(exc).__name__, exc)\n"
            "from boundcheck.cli import main\n"
            f"sys.exit(main(['verify', '--theorem', 'gp_ucb', '--algorithm', {str(policy) + ':Mine'!r}]))\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 2, p.stderr
    assert "MissingExtra the botorch adapter needs torch" in p.stdout
    assert 'pip install "boundcheck[botorch]"' in p.stdout
    assert 'pip install "boundcheck[sklearn]"' in p.stdout
    assert 'failed to import: MissingExtra' in p.stderr and 'pip install "boundcheck[botorch]"' in p.stderr
    ours = [line for line in p.stderr.splitlines() if "failed to import" in line]
    assert len(ours) == 1 and "Traceback" not in p.stderr
