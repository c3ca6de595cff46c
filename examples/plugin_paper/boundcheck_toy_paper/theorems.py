"""The toy paper's theorems, in sympy (the theory layer of a plugin paper: it imports ``theory``, never
``boundcheck``).

The toy paper: GP-UCB when the horizon T is known in advance, with one fixed width for all steps,

    β = 2 log(|D| T / δ),        x_t = argmax_x μ_{t−1}(x) + √β σ_{t−1}(x),

for f ~ GP(0, k) on a finite domain D with k(x, x) ≤ 1 and Gaussian noise N(0, σ²).

**Lemma 1** (confidence): P{ |f(x) − μ_{t−1}(x)| ≤ √β σ_{t−1}(x) for all x ∈ D, t ≤ T } ≥ 1 − δ. Proof: given the
data, f(x) − μ_{t−1}(x) ~ N(0, σ²_{t−1}(x)) and P(|Z| > c) ≤ e^{−c²/2}; a union bound over the |D|·T pairs
(x, t) gives |D| T e^{−β/2} = δ (Srinivas et al. 2010, Lemma 5.1, with the horizon known: no Σ 1/t² series).

**Lemma 2** (optimism): on that event, r_t = f(x*) − f(x_t) ≤ 2√β σ_{t−1}(x_t) (Srinivas et al., Lemma 5.2).

**Theorem 1**: with probability ≥ 1 − δ, R_t ≤ √(C₁ t β γ_t) for every t ≤ T, in particular R_T ≤ √(C₁ T β γ_T),
C₁ = 8 / log(1 + σ⁻²): Cauchy–Schwarz, Σ 4βσ²_{t−1}(x_t) ≤ C₁ β γ_t (Srinivas et al., Lemmas 5.3 and 5.4).

``TOY_UCB_OVERSTATED`` claims the same rate fifty times sharper, which the toy algorithm does not achieve: a
verify of it is violated (exit 1).
"""

from __future__ import annotations

import dataclasses

import sympy as sp

from theory import Assumption, Claim, Correction, S, Theorem

T, t, delta, R, n_X, gamma_T, gamma_t = S.T, S.t, S.delta, S.R, S.n_X, S.gamma_T, S.gamma_t

BETA = 2 * sp.log(n_X * T / delta)  # Lemma 1: one width for all t ≤ T (β is the squared width)
C1 = 8 / sp.log(1 + R**-2)  # Lemma 5.4 of Srinivas et al. with k ≤ 1
#: the baseline GP-UCB's own width (Srinivas et al. 2010, Theorem 1): √(2 log(|D| t² π² / (6δ)))
GP_UCB_WIDTH = sp.sqrt(2 * sp.log(n_X * t**2 * sp.pi**2 / (6 * delta)))

SYMBOLS = {
    "T": (T, "horizon, known to the algorithm"),
    "delta": (delta, "confidence parameter δ ∈ (0, 1)"),
    "R": (R, "noise standard deviation σ (the model's noise variance is σ²)"),
    "n_X": (n_X, "|D|, the size of the finite domain"),
    "gamma_T": (gamma_T, "certified upper bound on the maximum information gain γ_T"),
}

CLAIMS = (
    Claim("regret_bound", "probability", "R_T ≤ √(C₁ T β γ_T)", "Theorem 1", delta, main=True),
    Claim("regret_bound_anytime", "probability", "R_t ≤ √(C₁ t β γ_t) for every t ≤ T", "Theorem 1", delta,
          main=True),
    Claim("confidence_event", "probability", "|f(x) − μ_{t−1}(x)| ≤ √β σ_{t−1}(x) for all x ∈ D, t ≤ T",
          "Lemma 1", delta),
    Claim("D1_optimism", "deterministic", "on the confidence event at step t: UCB_{t−1}(x_t) ≥ max f and "
          "r_t ≤ 2√β σ_{t−1}(x_t)", "Lemma 2"),
    Claim("D3_information", "deterministic", "chain rule ½Σlog(1+σ⁻²σ²_{s−1}(x_s)) = ½log|I+σ⁻²K_t| and "
          "0 ≤ realised gain ≤ certified γ_t", "Theorem 1 (Srinivas et al., Lemma 5.3)"),
)

ASSUMPTIONS = (
    Assumption("f ~ GP(0, k) drawn fresh per run, and the algorithm is given that prior", "model_is_truth"),
    Assumption("f is static", "static_truth"),
    Assumption("a finite domain D, the same at every step", "fixed_decision_set"),
    Assumption("k(x, x) ≤ 1 for all x ∈ D", "kernel_bounded_by_one"),
    Assumption("noise i.i.d. N(0, σ²) with the σ the model uses", "noise_matches"),
    Assumption("the model's noise variance is σ²", "lambda_is_noise"),
    Assumption("β is the theoretical width (no scaling)", "theoretical_schedules"),
)

CORRECTIONS = (
    Correction("T1", "Theorem 1", "γ_T, the maximum information gain, is not computable",
               "a certified upper bound on γ_T (boundcheck's γ bracket)",
               "a lower estimate in an upper bound would make the check unsound"),
)

TOY_UCB = Theorem(
    id="toy_ucb",
    title="Known-horizon GP-UCB: one fixed width, regret bound on a finite domain",
    paper="",
    source="The toy paper (boundcheck's plugin example), Theorem 1",
    guarantee="high_probability",
    symbols=SYMBOLS,
    bound_terms={"information": sp.sqrt(C1 * T * BETA * gamma_T)},
    anytime_terms={"information": sp.sqrt(C1 * t * BETA * gamma_t)},
    printed=r"R_T \le \sqrt{C_1 T \beta \gamma_T},\quad \beta = 2\log(|D| T/\delta),\ C_1 = 8/\log(1+\sigma^{-2})",
    schedules={"beta_t": BETA, "width_t": sp.sqrt(BETA), "gp_ucb_width_t": GP_UCB_WIDTH, "C1": C1},
    assumptions=ASSUMPTIONS,
    claims=CLAIMS,
    corrections=CORRECTIONS,
    default_scenario="toy_gp_sample",
    scenarios=("toy_gp_sample",),
    algorithms=("toy_ucb", "gp_ucb", "random"),
    anytime_note="β is fixed at the horizon: Bound_T(t) = √(C₁ t β γ_t) with γ_t certified at t.",
)

TOY_UCB_OVERSTATED = dataclasses.replace(
    TOY_UCB,
    id="toy_ucb_overstated",
    title="Known-horizon GP-UCB, overstated: the same rate fifty times sharper",
    source="The toy paper, an overstated Theorem 1 (caught: the regret-bound claims are violated)",
    bound_terms={"information": sp.sqrt(C1 * T * BETA * gamma_T) / 50},
    anytime_terms={"information": sp.sqrt(C1 * t * BETA * gamma_t) / 50},
    printed=r"R_T \le \tfrac{1}{50}\sqrt{C_1 T \beta \gamma_T}",
)

THEOREMS = (TOY_UCB, TOY_UCB_OVERSTATED)
