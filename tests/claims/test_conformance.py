"""Conformance observed from the outside (issue 24, item 1; boundcheck.claims.conformance).

Every checked implementation runs beside a shadow of the theorem's own algorithm, told only the implementation's
actions and observations. Built-in algorithms given as a harmless copy (a factory of our own, so that the study
sees code other than the theorem's algorithm) conform at their defaults; code that is wrong in ways the other
claims cannot see without records is violated: an ask/tell GP-TS whose draw is 0.05 as wide, GP-UCB with
β × 0.05 and IGP-UCB with λ × 25, none of them declaring records. ``--no-conformance`` turns the claim off and
labels the study out of theory; a plain verify shows the claim as a sanity identity.
"""

import json
from pathlib import Path

import numpy as np
import pytest
from scipy.linalg import cho_factor, cho_solve

import theory
from boundcheck import api
from boundcheck.cli import main
from boundcheck.policies import PolicySpec

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SMALL = {"runs": 20, "horizon": 20, "jobs": 1, "report": False}


def _conformance(summary: dict) -> dict:
    return next(c for c in summary["claims"] if c["id"] == "conformance")


def _copy(theorem: str) -> PolicySpec:
    """The theorem's own algorithm behind a factory of ours: the same code, but not the theorem's spec."""
    own = api.resolve_policy(theory.get(theorem).algorithm)
    factory = own.factory

    def make(**kw):
        return factory(**kw)

    return PolicySpec(own.name, make, dict(own.kwargs), own.label)


@pytest.mark.parametrize("theorem, kind", [
    ("gp_ucb", "deterministic"), ("igp_ucb", "deterministic"), ("gp_ts", "calibration"),
    ("pe_gp_ucb", "deterministic"), ("r_gp_ucb", "deterministic"), ("sw_gp_ucb", "deterministic"),
    ("et_r_gp_ucb", "deterministic"), ("comb_gp_ucb", "deterministic"), ("comb_gp_bucb", "deterministic"),
    ("comb_gp_ts", "calibration"),
])
def test_every_builtin_algorithm_conforms_as_checked_code(theorem, kind):
    s = api.verify(theorem, algorithm=_copy(theorem), policies=[], seed=3, allow_out_of_theory=True, **SMALL)
    c = _conformance(s)
    assert c["kind"] == kind and c["verdict"] == "holds", c


# ---------------------------------------------------------------- user code, in the documented ask/tell form
class _UCB:
    """GP-UCB refitted from scratch each step (examples/gp_ucb.py without records); ``beta_factor`` and
    ``lam_factor`` plant the defects."""

    beta_factor, lam_factor = 1.0, 1.0

    def __init__(self, ctx):
        self.K, self.m0 = ctx.kernel, ctx.mean
        self.lam, self.beta = ctx.noise_var * self.lam_factor, np.asarray(ctx.beta) * self.beta_factor
        self.X, self.y = [], []

    def ask(self, t, available):
        mu, sd = self.m0.copy(), np.sqrt(np.diag(self.K))
        if self.X:
            X = np.array(self.X)
            c = cho_factor(self.K[np.ix_(X, X)] + self.lam * np.eye(len(X)), lower=True)
            Kx = self.K[:, X]
            mu = self.m0 + Kx @ cho_solve(c, np.array(self.y) - self.m0[X])
            sd = np.sqrt(np.maximum(np.diag(self.K) - np.einsum("ij,ji->i", Kx, cho_solve(c, Kx.T)), 0.0))
        return int(np.argmax(np.where(available, mu + self.beta[t] * sd, -np.inf)))

    def tell(self, x, y):
        self.X.append(x)
        self.y.append(y)


class BetaSmallUCB(_UCB):
    beta_factor = 0.05


class LambdaLargeUCB(_UCB):
    lam_factor = 25.0


class AskTellTS:
    """GP-TS: f̃ = μ + ``scale``·v_t·σ·z, an exact joint draw on the domain (eigendecomposition)."""

    scale = 1.0

    def __init__(self, ctx):
        self.K, self.m0, self.lam, self.v, self.rng = ctx.kernel, ctx.mean, ctx.noise_var, ctx.beta, ctx.rng
        self.X, self.y = [], []

    def ask(self, t, available):
        mu, cov = self.m0.copy(), self.K.copy()
        if self.X:
            X = np.array(self.X)
            A = self.K[np.ix_(X, X)] + self.lam * np.eye(len(X))
            Kx = self.K[:, X]
            mu = self.m0 + Kx @ np.linalg.solve(A, np.array(self.y) - self.m0[X])
            cov = self.K - Kx @ np.linalg.solve(A, Kx.T)
        w, V = np.linalg.eigh((cov + cov.T) / 2)
        f = mu + self.scale * self.v[t] * (V * np.sqrt(np.maximum(w, 0.0))) @ self.rng.standard_normal(len(mu))
        return int(np.argmax(np.where(available, f, -np.inf)))

    def tell(self, x, y):
        self.X.append(x)
        self.y.append(y)


class NarrowTS(AskTellTS):
    scale = 0.05


@pytest.mark.parametrize("theorem, algo", [("gp_ucb", _UCB), ("igp_ucb", _UCB), ("gp_ts", AskTellTS)])
def test_correct_user_code_without_records_conforms(theorem, algo):
    s = api.verify(theorem, algorithm=algo, policies=[], seed=1, **SMALL)
    assert _conformance(s)["verdict"] == "holds"
    assert s["verdict"] != "violated"


@pytest.mark.parametrize("theorem, algo", [("gp_ucb", BetaSmallUCB), ("igp_ucb", LambdaLargeUCB),
                                           ("gp_ts", NarrowTS)])
def test_wrong_user_code_without_records_is_violated(theorem, algo):
    s = api.verify(theorem, algorithm=algo, policies=[], seed=1, **SMALL)
    na = s.get("not_applicable") or {}
    assert "conformance" not in na.get(algo.__name__, {})
    c = _conformance(s)
    assert c["verdict"] == "violated"
    assert s["verdict"] == "violated" and s["in_theory"]
    if c["kind"] == "deterministic":  # the message can name where: the first run and step off the algorithm
        assert c["details"]["first_counterexample_step"] >= 1


def test_example_gp_ucb_conforms_on_the_command_line(tmp_path, capsys):
    rc = main(["verify", "--theorem", "gp_ucb", "--algorithm", f"{EXAMPLES}/gp_ucb.py:MyGPUCB", "--runs", "20",
               "--horizon", "30", "--jobs", "1", "--out", str(tmp_path), "--json", "--no-report"])
    out = json.loads(capsys.readouterr().out)
    c = _conformance(out)
    assert c["kind"] == "deterministic" and c["verdict"] == "holds" and c["violations"] == 0
    assert rc in (0, 3) and out["verdict"] != "violated"


def test_no_conformance_is_out_of_theory(tmp_path, capsys):
    rc = main(["verify", "--theorem", "gp_ucb", "--algorithm", f"{__file__}:BetaSmallUCB", "--runs", "20",
               "--horizon", "20", "--jobs", "1", "--out", str(tmp_path), "--json", "--no-report",
               "--no-conformance"])
    out = json.loads(capsys.readouterr().out)
    assert _conformance(out)["verdict"] == "not applicable"
    assert not out["in_theory"] and any("not the theorem's algorithm" in r for r in out["out_of_theory_reasons"])
    assert rc != 1 or out["verdict"] == "violated"  # only another claim could call it violated


def test_a_plain_verify_shows_conformance_as_a_sanity_identity():
    s = api.verify("gp_ucb", policies=["gp_ucb"], seed=2, **SMALL)
    c = _conformance(s)
    assert c["kind"] == "identity" and c["violations"] == 0


def test_the_shadow_changes_nothing_the_checked_code_does():
    """The shadow has a stream of its own: the checked code's regret is the same with the claim off."""
    on = api.verify("gp_ts", algorithm=_copy("gp_ts"), policies=["igp_ucb"], seed=4, **SMALL)
    off = api.verify("gp_ts", algorithm=_copy("gp_ts"), policies=["igp_ucb"], seed=4, conformance=False, **SMALL)
    assert on["regret"] == off["regret"]


def test_a_runs_shadow_ranks_do_not_depend_on_its_batch():
    """Results are bit-identical for any number of workers: a run's conform_z is the same in any batch."""
    from dataclasses import replace

    from boundcheck.study.engine import simulate

    spec, shadows = api.conformance_shadows(api.build_study("gp_ts", algorithm=_copy("gp_ts"), policies=[],
                                                            runs=8, horizon=12))
    assert spec.shadowed == ("gp_ts",)
    inst = replace(spec.family.instantiate(spec.scenario, spec.horizon, spec.delta), shadows=shadows)
    whole = simulate(spec.scenario, spec.policies, list(range(8)), 0, inst).algorithms["gp_ts"].monitors
    part = simulate(spec.scenario, spec.policies, list(range(5, 8)), 0, inst).algorithms["gp_ts"].monitors
    assert np.array_equal(whole["conform_z"][5:], part["conform_z"])
