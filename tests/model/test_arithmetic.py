"""Faster posterior kernels and the data-space representation change floating-point order, nothing else.

On every pinned regression case (tests/_support/regression_pins.py), the default arithmetic (blocked rank-K folds, data
space where it is cheaper) against the reference arithmetic the pins were recorded with, and the grid against
the data-space representation: identical selections (every integer, boolean and categorical column of the
stored tables), identical claims and regret statistics, stored floats equal to round-off (1e-10 relative or
1e-12 of the column's scale: innovations and z-scores divide small differences by σ; the chain-rule error is
round-off itself and only has to stay below 1e-11), the summary's floats to 1e-12.
"""

import tempfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from regression_pins import CASES, _table, case_key

from boundcheck.model.dataspace import use_representation
from boundcheck.model.posterior import use_arithmetic
from boundcheck.testing import run_check


def _run(case, arithmetic="fast", representation="auto", **kw):
    theorem, scenario, runs, horizon, seed, beta_scale = case
    with tempfile.TemporaryDirectory() as tmp, use_arithmetic(arithmetic), use_representation(representation):
        summary = run_check(theorem, scenario=scenario, runs=runs, horizon=horizon, seed=seed,
                            beta_scale=beta_scale, jobs=1, out=tmp, allow_out_of_theory=True, **kw)  # as the pins
        tables = {t: _table(Path(tmp) / "results", t) for t in ("runs", "steps")}
    return summary, tables


def assert_same_up_to_roundoff(a, b, rtol_tables=1e-10, rtol_summary=1e-12):
    (sa, ta), (sb, tb) = a, b
    for name in ta:
        assert list(ta[name].columns) == list(tb[name].columns)
        for col in ta[name].columns:
            x, y = ta[name][col], tb[name][col]
            if col == "chain_rule_rel_err":  # round-off itself: both tiny
                assert np.nanmax(x.to_numpy()) < 1e-11 and np.nanmax(y.to_numpy()) < 1e-11
            elif pd.api.types.is_float_dtype(x.dtype):
                scale = max(1.0, float(np.nanmax(np.abs(x.to_numpy()), initial=0.0)))
                np.testing.assert_allclose(y.to_numpy(), x.to_numpy(), rtol=rtol_tables, atol=1e-12 * scale,
                                           err_msg=f"{name}.{col}")
            else:
                assert x.equals(y), f"{name}.{col} differs (a selection, not round-off)"
    keys = ("id", "kind", "violations", "runs", "verdict")
    assert [{k: c[k] for k in keys} for c in sa["claims"]] == [{k: c[k] for k in keys} for c in sb["claims"]]
    for c1, c2 in zip(sa["claims"], sb["claims"], strict=True):
        for k in ("rate", "ci_low", "ci_high"):
            assert c1[k] == pytest.approx(c2[k], rel=rtol_summary, abs=0) if c1[k] is not None else c2[k] is None
    for alg, st in sa["regret"].items():
        for k, v in st.items():
            assert sb["regret"][alg][k] == pytest.approx(v, rel=rtol_summary)
    assert sa["tightness"]["median"] == pytest.approx(sb["tightness"]["median"], rel=rtol_summary)


@pytest.mark.parametrize("case", CASES, ids=case_key)
def test_fast_arithmetic_changes_only_roundoff(case):
    assert_same_up_to_roundoff(_run(case, "reference"), _run(case, "fast"))


@pytest.mark.parametrize("case", [CASES[0], CASES[4], CASES[7], CASES[10]], ids=case_key)
def test_representation_changes_only_roundoff(case):
    assert_same_up_to_roundoff(_run(case, representation="grid"), _run(case, representation="dataspace"))


def test_variation_budget_and_rademacher_noise_change_only_roundoff():
    """The variation-budget sampler (f_t = Φ θ_t by blocked products), R-/SW-GP-UCB (data-space posteriors), the
    verifier's window replay and a non-Gaussian noise law."""
    case = ("r_gp_ucb", "vb_rademacher", 12, 30, 7, 1.0)
    assert_same_up_to_roundoff(_run(case, "reference"), _run(case, "fast"))


def test_engine_reference_posterior_changes_only_roundoff():
    """A user's ask/tell policy exposes no posterior: the engine's reference posterior (make_posterior, here the
    data space: T = 12 observations on 100 points) monitors it exactly as the first engine's grid form did."""
    examples = Path(__file__).resolve().parents[2] / "examples"
    case = ("gp_ucb", "gp_sample_se", 10, 12, 5, 1.0)
    kw = {"algorithm": f"{examples / 'gp_ucb.py'}:MyGPUCB"}
    assert_same_up_to_roundoff(_run(case, "reference", **kw), _run(case, "fast", **kw))
