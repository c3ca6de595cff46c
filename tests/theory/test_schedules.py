"""Schedules against the printed formulas: β_t, v_t, c̃_t, ξ_t and their γ indices, written out
here by hand from the papers with the instance's certified γ curve, never through the code that computes them for
the study (the theory module's lambdified expressions, the families' ``schedules``) — a γ index off by one there
would otherwise stay consistent with itself. Then the same numbers must be what the policies *used* at each step
(their ``width`` records), so that the checker and the algorithm cannot drift apart either."""

from __future__ import annotations

import math

import numpy as np
import pytest

from boundcheck.api import build_study
from boundcheck.study.engine import simulate

T = 8


def _instance(theorem: str):
    spec = build_study(theorem, runs=3, horizon=T, seed=5)
    return spec, spec.family.instantiate(spec.scenario, T, spec.delta)


def _gamma_prev(inst) -> np.ndarray:
    """γ_{t−1} for t = 0..T from the certified upper curve (gamma_upper[i] = γ_{i+1}; γ_0 = 0)."""
    g = np.asarray(inst.gamma_upper, dtype=float)
    out = np.zeros(T + 1)
    out[2:] = g[: T - 1]
    return out


def _igp_width(B: float, R: float, gamma_prev: float, conf: float) -> float:
    """Chowdhury & Gopalan (2017): β_t (conf = δ, Algorithm 1) and v_t (conf = δ/2, Algorithm 2) =
    B + R√(2(γ_{t−1} + 1 + ln(1/conf)))."""
    return B + R * math.sqrt(2.0 * (gamma_prev + 1.0 + math.log(1.0 / conf)))


@pytest.mark.parametrize("theorem, conf_of", [("igp_ucb", lambda d: d), ("gp_ts", lambda d: d / 2)])
def test_igp_ucb_and_gp_ts_widths_use_gamma_t_minus_one(theorem, conf_of):
    spec, inst = _instance(theorem)
    sc, d = spec.scenario, spec.delta
    gp = _gamma_prev(inst)
    want = np.array([_igp_width(float(sc.B), float(sc.noise), gp[t], conf_of(d)) for t in range(1, T + 1)])
    np.testing.assert_allclose(inst.beta[1:], want, rtol=1e-12)
    # γ_t instead of γ_{t−1} is detectably different from step 1 on (γ_1 > 0)
    assert not np.allclose(inst.beta[1:], [_igp_width(float(sc.B), float(sc.noise), g, conf_of(d))
                                           for g in inst.gamma_upper[:T]], rtol=1e-9)
    if theorem == "gp_ts":
        ct = np.array([math.sqrt(2 * math.log(sc.domain.n * t**2)) for t in range(1, T + 1)])
        np.testing.assert_allclose(inst.schedules["gp_ts_ctilde"][1:], ct, rtol=1e-12)
    else:
        v = [_igp_width(float(sc.B), float(sc.noise), gp[t], d / 2) for t in range(1, T + 1)]
        np.testing.assert_allclose(inst.schedules["gp_ts"][1:], v, rtol=1e-12)


def test_srinivas_width():
    """Srinivas et al. Theorem 1: β_t = 2 log(|D| t² π²/(6δ)); the policy's width is √β_t."""
    spec, inst = _instance("gp_ucb")
    n, d = spec.scenario.domain.n, spec.delta
    want = [math.sqrt(2 * math.log(n * t**2 * math.pi**2 / (6 * d))) for t in range(1, T + 1)]
    np.testing.assert_allclose(inst.beta[1:], want, rtol=1e-12)


def test_pe_gp_ucb_beta_and_xi():
    """PE-GP-UCB, finite case: β_t = √(2 log(T|X|π²t²/(3δ))) and ξ_t = 2R² log(|U|π²t²/(3δ))."""
    spec, inst = _instance("pe_gp_ucb")
    sc, d = spec.scenario, spec.delta
    n, nU, R = sc.domain.n, float(inst.values["n_U"]), float(sc.noise)
    beta = [math.sqrt(2 * math.log(T * n * math.pi**2 * t**2 / (3 * d))) for t in range(1, T + 1)]
    xi = [2 * R**2 * math.log(nU * math.pi**2 * t**2 / (3 * d)) for t in range(1, T + 1)]
    np.testing.assert_allclose(inst.beta[1:], beta, rtol=1e-12)
    np.testing.assert_allclose(inst.xi[1:], xi, rtol=1e-12)


@pytest.mark.parametrize("theorem", ["igp_ucb", "gp_ts", "gp_ucb"])
def test_policies_use_the_schedule_of_their_step(theorem):
    """What each policy recorded as its width at step t is the schedule's value at t (no index shift between
    the checker and the algorithm)."""
    spec, inst = _instance(theorem)
    traj = simulate(spec.scenario, spec.policies[:1], [0, 1], spec.seed, inst)
    used = np.asarray(traj.algorithms[spec.main].steps["width"], dtype=float)
    np.testing.assert_allclose(used, np.broadcast_to(inst.beta[1:], used.shape), rtol=1e-12)
