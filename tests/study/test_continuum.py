"""Compact-domain studies end to end: the continuum engine (boundcheck.study.continuum), the box family
(boundcheck.claims.families.continuum), box scenario files and the refusals between finite and box theorems.

The planted defects each claim of gp_ucb_compact catches are in tests/claims/test_defects.py (CATCHES)."""

import numpy as np
import pytest

from boundcheck import api
from boundcheck.cli import main
from boundcheck.study.continuum import discretise, simulate_box
from boundcheck.testing import format_claims, run_check
from boundcheck.world.box_scenario import box_scenario
from boundcheck.world.scenario_files import parse_scenario


def test_gp_ucb_compact_holds_in_theory_at_small_settings():
    """No false alarm: the correct algorithm on a correct theorem, every lemma claim not violated; the regret
    bound vacuous here (outside the verdict, with why) and β_T's discretisation part in the summary."""
    s = run_check("gp_ucb_compact", runs=20, horizon=25, seed=1)
    assert s["in_theory"], s["out_of_theory_reasons"]
    bad = [c["id"] for c in s["claims"] if c["verdict"] == "violated"]
    assert not bad, format_claims(s)
    at_T = s["bound"]["schedules_at_T"]
    assert at_T["beta_discretisation_t"] > 0 and at_T["beta_confidence_t"] > 0
    assert at_T["beta_t"] == pytest.approx(at_T["beta_confidence_t"] + at_T["beta_discretisation_t"])


def test_igp_ucb_compact_holds_on_an_rkhs_box():
    """IGP-UCB on the box with an RKHS truth of exact norm 3 = B: no claim violated, the norms as stated."""
    s = run_check("igp_ucb_compact", runs=20, horizon=25, seed=1)
    assert s["in_theory"], s["out_of_theory_reasons"]
    assert not [c["id"] for c in s["claims"] if c["verdict"] == "violated"], format_claims(s)
    spec = api.build_study("igp_ucb_compact", runs=3, horizon=4, seed=1)
    inst = spec.family.instantiate(spec.scenario, spec.horizon, spec.delta)
    traj = simulate_box(spec.scenario, spec.policies, range(3), spec.seed, inst)
    assert np.allclose(traj.truth["rkhs_norm"], 3.0, rtol=1e-12)


def test_box_runs_do_not_depend_on_their_batch():
    """A run's points, observations and regret are the same whether simulated with others or alone."""
    spec = api.build_study("gp_ucb_compact", "gp_sample_se_box2", runs=3, horizon=6, seed=2)
    inst = spec.family.instantiate(spec.scenario, spec.horizon, spec.delta)
    together = simulate_box(spec.scenario, spec.policies, [0, 1, 2], spec.seed, inst)
    for r in range(3):
        alone = simulate_box(spec.scenario, spec.policies, [r], spec.seed, inst)
        for name, tr in alone.algorithms.items():
            other = together.algorithms[name]
            assert np.array_equal(tr.regret[0], other.regret[r])
            assert np.array_equal(tr.obs[0], other.obs[r])
            assert np.array_equal(tr.monitors["x0"][0], other.monitors["x0"][r])


def test_regret_is_against_a_certified_maximum():
    """r_t ≥ −tolerance: no chosen point beats the located maximum by more than its certified gap (a maximum found
    too low would show up as negative regret), and the tolerance is small."""
    spec = api.build_study("gp_ucb_compact", runs=4, horizon=10, seed=3)
    inst = spec.family.instantiate(spec.scenario, spec.horizon, spec.delta)
    traj = simulate_box(spec.scenario, spec.policies, range(4), spec.seed, inst)
    tol = traj.truth["max_tolerance"] / spec.horizon
    for tr in traj.algorithms.values():
        assert (tr.regret >= -tol[:, None] - 1e-12).all()
    assert (tol <= 1e-6 + 1e-12).all()


@pytest.mark.parametrize("n", [1, 2, 7, 1000])
def test_discretise_is_the_nearest_cell_centre(n):
    """[x]_t lies on the cell-centred grid of n points per side and ‖x − [x]_t‖₁ ≤ d r / (2n) (correction SC5)."""
    rng = np.random.default_rng(0)
    bounds = np.array([[0.0, 1.0], [-2.0, 3.0]])
    X = bounds[:, 0] + (bounds[:, 1] - bounds[:, 0]) * rng.random((500, 2))
    X[:4] = bounds[:, 0]  # corners and faces included
    X[4:8] = bounds[:, 1]
    D = discretise(X, bounds, n)
    h = (bounds[:, 1] - bounds[:, 0]) / n
    idx = (D - bounds[:, 0]) / h - 0.5
    assert np.allclose(idx, np.round(idx)) and (idx > -0.5).all() and (idx < n - 0.5).all()
    assert (np.abs(X - D).sum(axis=1) <= (h / 2).sum() * (1 + 1e-12)).all()


def test_finite_and_box_theorems_refuse_each_others_scenarios(capsys):
    assert main(["verify", "--theorem", "gp_ucb", "--scenario", "gp_sample_se_box", "--runs", "2",
                 "--horizon", "3", "--no-report"]) == 2
    err = capsys.readouterr().err
    assert "compact box" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert main(["verify", "--theorem", "gp_ucb_compact", "--scenario", "gp_sample_se", "--runs", "2",
                 "--horizon", "3", "--no-report"]) == 2
    err = capsys.readouterr().err
    assert "finite set of points" in err and len(err.strip().splitlines()) == 1


def test_finite_policy_on_a_box_is_one_line(capsys, tmp_path):
    assert main(["verify", "--theorem", "gp_ucb_compact", "--algorithm", "gp_ucb", "--runs", "2", "--horizon", "3",
                 "--no-report", "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "box policy" in err and "Traceback" not in err


BOX = """name = "b"
horizon = 5
delta = 0.1
noise = 0.1
[domain]
box = {dim = 2, low = 0, high = 1}
[kernel]
family = "rbf"
lengthscale = 0.3
[[priors]]
name = "p"
[truth]
prior = "p"
"""


def test_box_scenario_file_reads():
    import tomllib

    sc = parse_scenario(tomllib.loads(BOX))
    assert sc.box.dim == 2 and sc.kernel.lengthscale == 0.3 and sc.eps == 0.0 and sc.truth_index == 0
    assert sc.kernel_error <= 1e-12


@pytest.mark.parametrize("edit, fragment", [
    (("dim = 2", "dim = 4"), "domain.box.dim"),
    (("high = 1", "high = 0"), "domain.box.high"),
    (('family = "rbf"', 'family = "matern"'), "kernel.family"),
    (('prior = "p"', 'prior = "q"'), "truth.prior"),
    (("noise = 0.1", "noise = 0.1\nsurprise = 1"), "surprise"),
    (("[[priors]]\nname = \"p\"", "[[priors]]\nname = \"p\"\n[[priors]]\nname = \"q\""), "priors"),
])
def test_bad_box_scenario_files_are_one_line_errors(edit, fragment, tmp_path, capsys):
    f = tmp_path / "bad.toml"
    f.write_text(BOX.replace(*edit))
    assert main(["verify", "--theorem", "gp_ucb_compact", "--scenario", str(f), "--runs", "2", "--no-report",
                 "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert fragment in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_box_scenario_in_python_and_its_truth_description():
    sc = box_scenario("py", dim=1, horizon=5, eps=0.03)
    assert not sc.truth_index == 0 and "ε = 0.03 chain" in sc.describe_truth()
    assert "quadrature Fourier features" in sc.describe_truth()


def _outside_policy():
    from boundcheck.policies.box import BoxPolicy

    class Outside(BoxPolicy):
        name = "outside"

        def select(self, t):
            return np.full((self.ctx.runs, self.ctx.dim), 0.5 if t < 3 else 1.5)

    Outside.__module__ = "user_code"
    return Outside


def test_a_box_policy_outside_the_box_is_one_line():
    from boundcheck.errors import UserCodeError
    from boundcheck.policies import PolicySpec

    spec = api.build_study("gp_ucb_compact", runs=2, horizon=5, seed=0)
    inst = spec.family.instantiate(spec.scenario, spec.horizon, spec.delta)
    cls = _outside_policy()
    with pytest.raises(UserCodeError, match=r"outside the box .* at step 3"):
        simulate_box(spec.scenario, [PolicySpec("outside", cls)], [0, 1], 0, inst)


@pytest.mark.parametrize("cls, verdict", [("BoxGPUCB", "holds"), ("BoxGPUCBOneStart", "violated")])
def test_a_users_box_code_is_held_to_the_theorems_algorithm(cls, verdict):
    """Conformance on the continuum: the shadow (the theorem's GP-UCB told the code's points and observations)
    maximises the same UCB from its own starts; a code point below the shadow's maximum is a counterexample. The
    example that optimises like BoTorch's optimize_acqf conforms; one L-BFGS-B start does not."""
    from examples_loader import example

    s = run_check("gp_ucb_compact", runs=6, horizon=12, seed=1, algorithm=example("box_gp_ucb", cls))
    conf = next(c for c in s["claims"] if c["id"] == "conformance")
    assert conf["verdict"] == verdict, format_claims(s)


def test_a_users_box_code_without_a_shadow_is_judged_on_a_reference_posterior(tmp_path, capsys):
    """--no-conformance: no shadow runs, the engine keeps the theorem's posterior of the code's data itself (the
    code exposes none): the lemma claims are judged, not left NaN."""
    import json

    code = main(["verify", "--theorem", "gp_ucb_compact", "--algorithm", "examples/box_gp_ucb.py:BoxGPUCB",
                 "--runs", "4", "--horizon", "8", "--no-conformance", "--no-report", "--json", "--out",
                 str(tmp_path / "o")])
    s = json.loads(capsys.readouterr().out)
    assert code in (0, 1, 3, 5)
    judged = {c["id"]: c["verdict"] for c in s["claims"]}
    assert judged["D3_information"] == "holds" and judged["optimiser_gap"] == "holds"


@pytest.mark.parametrize("dim", [1, 2])
def test_the_lipschitz_event_reads_a_certified_sup_of_the_derivative(dim):
    """sup|∂f/∂x_j| from the branch and bound: never below a brute-force fine grid and within its tolerance of it
    (the located value alone was 0.07 too low on a 2-d path: the event must not be judged on it)."""
    from boundcheck.model.continuum import Box, FeaturePaths, QuadratureFeatures

    b = Box(dim)
    P = FeaturePaths.draw(QuadratureFeatures.se(0.3, b), [np.random.default_rng(i) for i in range(3)])
    up, lo = P.sup_abs_gradient_upper(b), P.sup_abs_gradient_lower(b)
    g = np.linspace(0, 1, 20001 if dim == 1 else 201)
    G = np.stack(np.meshgrid(*([g] * dim), indexing="ij"), -1).reshape(-1, dim)
    brute = np.abs(P.gradients(G)).max(axis=1)
    # within the B&B tolerance (1e-3) of the true sup, which the 201² grid itself may miss by a few 1e-3
    assert (up >= brute - 1e-12).all() and (up >= lo).all() and (up <= np.maximum(brute, lo) + 1e-2).all()
    assert (up.max(axis=1) <= P.lipschitz).all()


@pytest.mark.parametrize("theorem, scenario, fragment", [
    ("gp_ucb_rkhs_compact", "rkhs_se_box", "bounded by σ almost surely"),  # Gaussian noise: noise_bounded fails
    ("gp_ucb_compact", "rkhs_se_box", "f ~ GP(0, k)"),  # a fixed RKHS function: model_is_truth fails
    ("igp_ucb_compact", "gp_sample_se_box", "‖f‖_k ≤ B"),  # a GP path: rkhs_norm_bounded fails
])
def test_a_box_scenario_that_breaks_an_assumption_is_not_applicable(theorem, scenario, fragment, tmp_path, capsys):
    assert main(["verify", "--theorem", theorem, "--scenario", scenario, "--runs", "3", "--horizon", "4",
                 "--no-report", "--out", str(tmp_path / "o")]) == 3
    err = capsys.readouterr().err
    assert "not applicable" in err and fragment in err


def test_rkhs_box_regret_bounds_are_vacuous_a_priori():
    """An RKHS truth with ‖f‖_k ≤ B and k ≤ 1 has r_t ≤ 2B: Srinivas' Theorem 3 bound (≈ 3·10⁴ at T = 25) is shown
    as a sanity identity, never judged; IGP-UCB's at T = 100 (479 < 2BT = 600) can bite and is judged; a GP-path box
    has no such a-priori bound."""
    from boundcheck.claims.families import family_for

    for th, T, vacuous in (("gp_ucb_rkhs_compact", 25, True), ("igp_ucb_compact", 100, False),
                           ("gp_ucb_compact", 25, False)):
        spec = api.build_study(th, runs=2, horizon=T)
        fam = family_for(th)
        inst = fam.instantiate(spec.scenario, spec.horizon, spec.delta)
        assert ("regret_bound" in fam.vacuous_claims(spec.scenario, inst)) is vacuous


def test_hostile_box_code_is_kept_out_of_the_verdict(tmp_path, capsys):
    """A box policy that calls sys.exit(0) is one line, exit 2 (never the policy's exit 0); one that prints is judged
    (its constant point is not the argmax: violated) and --json still parses."""
    import json

    f = tmp_path / "h.py"
    f.write_text("import sys\nimport numpy as np\nfrom boundcheck.policies.box import BoxPolicy\n\n"
                 "class Exits(BoxPolicy):\n    name = 'exits'\n    def select(self, t):\n"
                 "        if t == 3:\n            sys.exit(0)\n"
                 "        return np.full((self.ctx.runs, self.ctx.dim), 0.5)\n\n"
                 "class Prints(BoxPolicy):\n    name = 'prints'\n    def select(self, t):\n"
                 "        print('hello from the policy')\n        return np.full((self.ctx.runs, self.ctx.dim), 0.5)\n")
    base = ["verify", "--theorem", "gp_ucb_compact", "--runs", "3", "--horizon", "6", "--no-report", "--json"]
    assert main([*base, "--algorithm", f"{f}:Exits", "--out", str(tmp_path / "a")]) == 2
    err = capsys.readouterr().err
    assert "SystemExit" in err and len(err.strip().splitlines()) == 1
    assert main([*base, "--algorithm", f"{f}:Prints", "--out", str(tmp_path / "b")]) == 1
    out = capsys.readouterr().out
    assert "hello from the policy" not in out and json.loads(out)["verdict"] == "violated"


def test_engine_records_the_located_maximiser_per_step():
    """truth['x_star'] is a point of the box where f takes the located max (what [x*]_t and Lemma 7 read)."""
    from boundcheck.model.continuum.paths import FeaturePaths
    from boundcheck.study.engine import _streams

    spec = api.build_study("gp_ucb_compact", "gp_sample_se_box2", runs=2, horizon=3, seed=2)
    inst = spec.family.instantiate(spec.scenario, spec.horizon, spec.delta)
    traj = simulate_box(spec.scenario, spec.policies, [0, 1], spec.seed, inst)
    xs = traj.truth["x_star"]
    assert xs.shape == (2, 3, 2)
    for r in range(2):
        p = FeaturePaths.draw(spec.scenario.features, [_streams(spec.seed, r, spec.policies).f])
        np.testing.assert_allclose(p.values(xs[r, :][None])[0], traj.f_opt[r], rtol=0, atol=1e-12)


def test_rkhs_truths_go_up_to_six_dimensions_and_gp_paths_to_three(tmp_path, capsys):
    """A fixed RKHS expansion is exact in any dimension (up to MAX_RKHS_DIM = 6); GP sample paths stop at 3 — in
    Python and in files, each refusal one line."""
    import tomllib

    from boundcheck.errors import BoundcheckError

    sc = box_scenario("rk5", dim=5, lengthscale=0.5, rkhs_norm=2.0, B=2.0, horizon=5, model_noise="1+2/T")
    assert sc.box.dim == 5 and sc.rkhs and sc.kernel_error == 0.0
    with pytest.raises(BoundcheckError, match="box dimension"):
        box_scenario("gp5", dim=5, lengthscale=0.5)
    with pytest.raises(BoundcheckError, match="box dimension"):
        box_scenario("rk7", dim=7, lengthscale=0.5, rkhs_norm=2.0, B=2.0)
    text = BOX.replace("dim = 2", "dim = 5").replace('prior = "p"', "rkhs = {norm = 2.0, centres = 4}")
    text = text.replace("noise = 0.1", "noise = 0.1\nB = 2.0")
    assert parse_scenario(tomllib.loads(text)).box.dim == 5
    for bad, frag in ((text.replace("dim = 5", "dim = 7"), "1 to 6"), (BOX.replace("dim = 2", "dim = 4"), "1, 2 or 3")):
        path = tmp_path / "bad.toml"
        path.write_text(bad)
        assert main(["verify", "--theorem", "igp_ucb_compact", "--scenario", str(path), "--runs", "2"]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and frag in err, err


def test_a_four_dimensional_rkhs_box_runs_with_its_certified_maximum():
    """4-d: the certified maximum is never below a brute-force grid, its tolerance (1e−4 per static f in 4–6-d)
    enters the regret, and no claim is violated in a short study."""
    from boundcheck.model.continuum import RKHSExpansion
    from boundcheck.model.kernels import RBF

    b = box_scenario("rk4", dim=4, lengthscale=0.5, rkhs_norm=2.0, B=2.0, horizon=6, model_noise="1+2/T").box
    f = RKHSExpansion.draw(RBF(0.5), b, 6, 2.0, [np.random.default_rng(3)])
    x, lo, up = f.certified_max(b, tol=1e-4)
    g = np.linspace(0, 1, 13)
    G = np.stack(np.meshgrid(*([g] * 4), indexing="ij"), -1).reshape(-1, 4)
    brute = f.values(G[None])[0].max()
    assert up[0] >= brute - 1e-12 and lo[0] >= brute - 1e-2 and up[0] - lo[0] <= 1e-4 + 1e-12
    sc = box_scenario("rk4", dim=4, lengthscale=0.5, rkhs_norm=2.0, B=2.0, horizon=6, model_noise="1+2/T")
    s = run_check("igp_ucb_compact", scenario=sc, runs=3, horizon=6, seed=0)
    assert not [c for c in s["claims"] if c["verdict"] == "violated"], format_claims(s)
