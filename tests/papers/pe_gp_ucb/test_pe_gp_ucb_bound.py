"""The explicit bound and schedules of Theorem 4.1 against an independent reference implementation."""


import pytest
import sympy as sp
from pe_gp_ucb_reference import spec_bound

import theory


@pytest.mark.parametrize("vals", [(60, 11, 0.1, 0.1, 50, 187.0, 2.0), (200, 13, 0.05, 0.01, 100, 500.0, 0.0)])
def test_bound_matches_spec(vals):
    th = theory.get("pe_gp_ucb")
    T, nU, R, delta, nX, g, mu = vals
    res = th.evaluate(dict(T=T, n_U=nU, R=R, delta=delta, n_X=nX, gamma_T=g, mu_max=mu))
    assert float(res["value"]) == pytest.approx(spec_bound(T, nU, R, delta, nX, g, mu), rel=1e-12)
    assert set(res["terms"]) == {"critical_rounds", "noise", "information"}


def test_spec_magnitudes():
    # computed by hand: beta_T = 6.28, xi_T = 0.28, C = 0.433 for n = 50, R = 0.1, T = 60, delta = 0.1, |U| = 11
    th = theory.get("pe_gp_ucb")
    v = dict(T=60, n_U=11, R=0.1, delta=0.1, n_X=50, gamma_T=187, mu_max=2.0)
    assert th.schedule_values("beta_t", 60, v) == pytest.approx(6.28, abs=5e-3)
    assert th.schedule_values("xi_t", 60, v) == pytest.approx(0.28, abs=5e-3)
    assert th.schedule_values("C", 1, v) == pytest.approx(0.433, abs=5e-4)
    assert th.evaluate(v)["terms"]["critical_rounds"] == pytest.approx(149.5, abs=0.1)


def test_anytime_equals_bound_at_horizon():
    th = theory.get("pe_gp_ucb")
    v = dict(T=100, n_U=11, R=0.1, delta=0.1, n_X=100, gamma_T=300, mu_max=2.0)
    at = th.evaluate_anytime(v, t=100.0, gamma_t=300.0)
    assert float(at["value"]) == pytest.approx(float(th.evaluate(v)["value"]), rel=1e-12)


def test_symbols_and_registry():
    th = theory.get("pe_gp_ucb")
    assert list(th.symbols) == ["T", "delta", "R", "n_X", "n_U", "gamma_T", "mu_max"]
    assert {s.name for s in th.bound.free_symbols} == set(th.symbols)
    with pytest.raises(theory.UnknownTheorem):
        theory.get("nope")
    ids = {c.id for c in th.corrections}
    assert {"C1", "C5", "C8", "C14", "C17", "C_gamma"} <= ids
    assert isinstance(th.schedules["beta_t"], sp.Expr)


def test_theory_layer_is_pure():
    import ast
    import pathlib

    for f in pathlib.Path(theory.__file__).parent.glob("*.py"):
        tree = ast.parse(f.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom | ast.Import):
                names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
                assert not any(n.startswith("boundcheck") for n in names), f"{f} imports boundcheck"
