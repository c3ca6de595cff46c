"""Paper 004 at the paper's horizon: the long-horizon forms agree with the short-horizon ones.

* GP-TS's square-root sampler (:class:`~boundcheck.model.posterior.SqrtSampler`): its factor reproduces the grid
  posterior's covariance to 1e-10, and its draws have the posterior's law (empirical mean and covariance of
  30 000 fixed-seed draws within 5 standard errors per entry, as in tests/model/test_samplers.py; a wrong law, the
  repeats counted once, lies far outside);
* GP-TS keeps the pathwise sampler (and its pinned results) up to PATHWISE_MAX_HORIZON."""

from __future__ import annotations

import numpy as np
from sampler_bands import band

from boundcheck.model.kernels import RBF
from boundcheck.model.posterior import (
    PATHWISE_MAX_HORIZON,
    BatchedPosterior,
    PathwiseSampler,
    SqrtSampler,
    joint_sampler,
)
from boundcheck.model.priors import GPPrior

Z = 5.0  # standard errors allowed per entry (see tests/model/test_samplers.py)


def _kernel(n: int, ell: float = 0.35, seed: int = 0) -> np.ndarray:
    x = np.random.default_rng(seed).uniform(size=(n, 1))
    return RBF(ell)(x, x)


def _posterior_cov(K: np.ndarray, X: np.ndarray, lam: float) -> np.ndarray:
    return K - K[:, X] @ np.linalg.solve(K[np.ix_(X, X)] + lam * np.eye(X.size), K[X, :])


def test_sqrt_factor_is_the_grid_posterior_covariance():
    """S Sᵀ = Σ_t of the grid posterior to 1e-10 after 300 observations (repeats included) on 40 points."""
    n, lam, m = 40, 0.0225, 3
    K = _kernel(n, ell=0.2)
    post = BatchedPosterior([GPPrior("p", np.zeros(n), K)], lam, m)
    smp = SqrtSampler(post)
    rng = np.random.default_rng(0)
    for _ in range(300):
        x = rng.integers(0, n, size=m)
        smp.observe(x)
        post.condition(x, rng.normal(size=m))
    assert np.abs(smp.cov() - post.cov()).max() < 1e-10


def test_sqrt_sampler_joint_law_with_repeated_arms():
    """h = S z ~ N(0, Σ_t) jointly, with arms 1 and 4 observed three times (empirical, fixed seeds)."""
    n, lam, N = 6, 0.1, 30000
    K = _kernel(n)
    post = BatchedPosterior([GPPrior("p", np.zeros(n), K)], lam, N)
    smp = SqrtSampler(post, block=4)  # 7 observations: one fold and three pending updates
    X = np.array([1, 4, 1, 4, 1, 4, 2])
    for xt in X:
        smp.observe(np.full(N, xt))
        post.condition(np.full(N, xt), np.zeros(N))
    h = smp.draw([np.random.default_rng(40_000 + i) for i in range(N)])
    Sigma = _posterior_cov(K, X, lam)
    dm, dc = band(h, np.zeros(n), Sigma)
    assert dm < Z and dc < Z, (dm, dc)
    assert band(h, np.zeros(n), _posterior_cov(K, np.unique(X), lam))[1] > 4 * Z
    k = smp.draws([np.random.default_rng(50_000 + i) for i in range(N)], 2).reshape(-1, n)
    dm, dc = band(k, np.zeros(n), Sigma)
    assert dm < Z and dc < Z, (dm, dc)


def test_gp_ts_sampler_by_horizon():
    """Pathwise up to PATHWISE_MAX_HORIZON (the draws, and results, of every shorter study unchanged), the
    square-root factor beyond."""
    K = _kernel(5)
    post = BatchedPosterior([GPPrior("p", np.zeros(5), K)], 0.1, 2)
    assert isinstance(joint_sampler(post, 200), PathwiseSampler)
    assert isinstance(joint_sampler(post, PATHWISE_MAX_HORIZON), PathwiseSampler)
    assert isinstance(joint_sampler(post, 30_000), SqrtSampler)


def _evaluators(theorem: str, scenario, T: int = 40, m: int = 3):
    """The claim statistics of one small chunk, from the T × T factorisations and from the grid chains."""
    from boundcheck import api
    from boundcheck.claims.families import kernelized
    from boundcheck.study.engine import simulate

    spec = api.build_study(theorem, scenario, runs=m, horizon=T, seed=3)
    inst = spec.family.instantiate(spec.scenario, spec.horizon, spec.delta, spec.beta_scale)
    traj = simulate(spec.scenario, spec.policies, list(range(m)), 3, inst)
    dense = kernelized.KernelEvaluator(traj, spec.scenario, inst, spec.main)
    grid = kernelized.KernelEvaluator(traj, spec.scenario, inst, spec.main)
    return dense, grid, list(traj.algorithms)


def test_grid_claim_statistics_agree_with_the_factorisations(monkeypatch):
    """Theorem 1's statistics, the realised information gain and the batch formulas at t = T: the grid chains
    (used beyond GRID_CLAIMS_HORIZON) against the T × T Cholesky factorisations, to 1e-10 (relative to the
    quantity's scale), for λ = 1 + η (the theorem's scenario: one chain serves both) and λ = R² (the paper's
    replication mode: two chains)."""
    from boundcheck.claims.families import kernelized
    from boundcheck.papers.igp_ucb_gp_ts.experiments import gp_sample_replication

    for theorem, scenario in (("igp_ucb", None), ("gp_ts", gp_sample_replication("se"))):
        dense, grid, names = _evaluators(theorem, scenario)
        monkeypatch.setattr(kernelized, "GRID_CLAIMS_HORIZON", 0)
        assert grid.on_grid
        for name in names:
            a = grid.data(name)
            monkeypatch.setattr(kernelized, "GRID_CLAIMS_HORIZON", 10**9)
            b = dense.data(name)
            monkeypatch.setattr(kernelized, "GRID_CLAIMS_HORIZON", 0)
            keys = set(a) if name != dense.main else set(b)
            assert keys <= set(a), (name, keys - set(a))
            for k in keys:
                x, y = np.asarray(a[k], dtype=float), np.asarray(b[k], dtype=float)
                assert np.allclose(x, y, rtol=1e-10, atol=1e-10 * max(1.0, np.abs(y).max())), (theorem, name, k)
        bg = grid._batch
        monkeypatch.setattr(kernelized, "GRID_CLAIMS_HORIZON", 10**9)
        bd = dense._batch
        for k in ("mu_f", "mu_e", "var"):
            assert np.allclose(bg[k], bd[k], rtol=0, atol=1e-10), (theorem, k)


def test_paper_settings_are_the_default_and_quick_says_so():
    """Figs 1–3 of paper 004 run at the paper's T = 30 000 with 25 trials by default (two chunks, the steps
    table thinned, every posterior in grid-state form); ``--quick`` is the former T = 200 study (same runs,
    chunking and results folder, so its results are unchanged) and its settings rows say so. Nothing is
    simulated here."""
    from boundcheck import api
    from boundcheck.commands.reproduce import _long_horizon
    from boundcheck.model.dataspace import choose_representation
    from boundcheck.study.experiments import get_experiment

    for name, quick_runs in (("fig1_rkhs", 50), ("fig2_gp", 50), ("fig3_benchmarks", 30)):
        exp = get_experiment("igp_ucb_gp_ts", name)
        assert (exp.horizon, exp.default_runs) == (30_000, 25)
        rows = {s.name: s for s in exp.settings}
        assert rows["horizon"].value == "T = 30 000" and rows["horizon"].status in ("stated", "guessed")
        q = exp.at_quick()
        assert (q.horizon, q.default_runs, q.chunk_size, q.quick) == (None, quick_runs, 25, None)
        rows = {s.name: s for s in q.settings}
        assert "--quick" in rows["horizon"].value and rows["horizon"].status == "deviates"
        assert "--quick" in rows["runs"].value
        assert [s.name for s in q.settings] == [s.name for s in exp.settings]
        panel = exp.panels[-1]
        sc = panel.scenario()
        spec = _long_horizon(api.build_study(panel.theorem, sc, runs=exp.default_runs, horizon=exp.horizon,
                                                 policies=panel.algorithms, chunk_size=exp.chunk_size))
        assert spec.horizon == 30_000 and spec.n_chunks == 2
        at = spec.family.steps_at
        assert at[0] == 1 and at[-1] == 30_000 and at.size <= 1002
        assert choose_representation(sc.domain.n, max_data=spec.horizon) == "grid"
        short = api.build_study(panel.theorem, sc, runs=q.default_runs, policies=panel.algorithms)
        assert short.horizon == 200 and _long_horizon(short) is short  # nothing changes at T = 200
    assert get_experiment("igp_ucb_gp_ts", "fig4a_temperature").at_quick().horizon is None


def test_long_horizon_gp_ts_is_bit_identical_for_any_batching():
    """Beyond PATHWISE_MAX_HORIZON (square-root sampler, grid claim chains) a run's draws, choices and claim
    statistics do not depend on which runs share its batch."""
    from boundcheck import api
    from boundcheck.claims.families import kernelized
    from boundcheck.papers.igp_ucb_gp_ts.experiments import gp_sample_replication
    from boundcheck.study.engine import simulate

    T = PATHWISE_MAX_HORIZON + 10
    spec = api.build_study("gp_ts", gp_sample_replication("se"), runs=4, horizon=T, seed=2,
                           policies=["gp_ts", "random"])
    inst = spec.family.instantiate(spec.scenario, spec.horizon, spec.delta, spec.beta_scale)
    whole = simulate(spec.scenario, spec.policies, [0, 1, 2, 3], 2, inst)
    parts = [simulate(spec.scenario, spec.policies, ids, 2, inst) for ids in ([0], [1, 2, 3])]
    a = whole.algorithms["gp_ts"]
    assert np.array_equal(a.idx, np.concatenate([p.algorithms["gp_ts"].idx for p in parts]))
    assert np.array_equal(a.steps["sample"], np.concatenate([p.algorithms["gp_ts"].steps["sample"] for p in parts]))
    ev = kernelized.KernelEvaluator(whole, spec.scenario, inst, "gp_ts")
    evs = [kernelized.KernelEvaluator(p, spec.scenario, inst, "gp_ts") for p in parts]
    assert ev.on_grid
    for k in ("sn_q", "ay_q", "gain_dir"):
        assert np.array_equal(ev.data("gp_ts")[k], np.concatenate([e.data("gp_ts")[k] for e in evs])), k


def test_cli_reproduce_quick_reaches_the_api(monkeypatch):
    """``boundcheck reproduce PAPER --quick`` asks the API for the quick form (nothing is run: the API is stubbed)."""
    from boundcheck import api, cli
    from boundcheck.cli import reproduce

    seen = {}

    def fake(paper, experiment=None, **kw):
        seen.update(kw, paper=paper)
        return {"counts": {}, "experiments": [], "claims": [], "explore": {}, "elapsed_s": 0.0, "budget": "",
                "report": {}}

    monkeypatch.setattr(api, "reproduce", fake)
    monkeypatch.setattr(reproduce, "_render_reproduce", lambda summary: None)
    assert cli.main(["reproduce", "igp_ucb_gp_ts", "--quick", "--no-report"]) == 0
    assert seen["paper"] == "igp_ucb_gp_ts" and seen["quick"] is True
    cli.main(["reproduce", "igp_ucb_gp_ts", "--no-report"])
    assert seen["quick"] is False
