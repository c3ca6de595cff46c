"""GP-UCB (Srinivas, Krause, Kakade, Seeger 2010, "Gaussian Process Optimization in the Bandit Setting:
No Regret and Experimental Design"), Theorem 1: finite domain, f drawn from the GP prior (Bayesian setting).
The statement (arXiv:0912.3995, Theorem 1 with Lemmas 5.1–5.4):

    β_t = 2 log(|D| t² π² / (6δ))        (the *squared* confidence width: x_t = argmax μ_{t−1} + √β_t σ_{t−1})
    P{ R_T ≤ √(C₁ T β_T γ_T)  for all T ≥ 1 } ≥ 1 − δ,      C₁ = 8 / log(1 + σ⁻²),

for f ~ GP(0, k) with k(x, x) ≤ 1 and Gaussian noise N(0, σ²) (σ = R here), γ_T the maximum information gain
with noise variance σ². The proof: Lemma 5.1 (the confidence event, union over x ∈ D and t with Σ 6/(π²t²) = 1),
Lemma 5.2 (r_t ≤ 2√β_t σ_{t−1}(x_t) on it), Lemma 5.3 (chain rule), Lemma 5.4 (Σ 4β_tσ² ≤ C₁β_Tγ_T),
Cauchy–Schwarz. The bound holds for every T simultaneously, so its anytime form is the theorem itself.
"""

from __future__ import annotations

import sympy as sp

from .core import Assumption, Claim, Correction, S, Theorem

T, t, delta, R, n_X, gamma_T, gamma_t = S.T, S.t, S.delta, S.R, S.n_X, S.gamma_T, S.gamma_t
pi = sp.pi


def beta(step: sp.Expr) -> sp.Expr:
    """Srinivas's β_t (squared width): 2 log(|D| t² π² / (6δ))."""
    return 2 * sp.log(n_X * step**2 * pi**2 / (6 * delta))


C1 = 8 / sp.log(1 + R**-2)  # Lemma 5.4 with k ≤ 1: s² ≤ log(1 + σ⁻²s²)/log(1 + σ⁻²), times 4 from (2√β)², 2 from I

BOUND_TERMS = {"information": sp.sqrt(C1 * T * beta(T) * gamma_T)}
ANYTIME_TERMS = {"information": sp.sqrt(C1 * t * beta(t) * gamma_t)}

SYMBOLS = {
    "T": (T, "horizon"),
    "delta": (delta, "confidence parameter δ ∈ (0,1)"),
    "R": (R, "noise standard deviation σ (Gaussian noise N(0, σ²), the model's noise variance)"),
    "n_X": (n_X, "|D|, size of the finite domain"),
    "gamma_T": (gamma_T, "certified upper bound on γ_T (noise variance σ², multisets of T points)"),
}

CLAIMS = (
    Claim("regret_bound", "probability", "R_T ≤ √(C₁ T β_T γ_T)", "Theorem 1", delta, main=True),
    Claim("regret_bound_anytime", "probability", "R_t ≤ √(C₁ t β_t γ_t) for every t ≤ T (Theorem 1 is uniform in T)",
          "Theorem 1", delta, main=True),
    Claim("confidence_event", "probability",
          "|f(x) − μ_{t−1}(x)| ≤ √β_t σ_{t−1}(x) for all x ∈ D, t ≤ T", "Lemma 5.1", delta),
    Claim("D1_optimism", "deterministic",
          "on the confidence event at step t: UCB_{t−1}(x_t) ≥ max f and r_t ≤ 2√β_t σ_{t−1}(x_t)", "Lemma 5.2"),
    Claim("D2_intermediate", "identity",
          "on the confidence event (all t): R_t ≤ √(t Σ r²) ≤ √(C₁ t β_t · ½Σlog(1+σ⁻²σ²_{s−1}(x_s))): Cauchy–Schwarz "
          "and Lemma 5.4's arithmetic given D1 at every step (true by construction, shown outside the verdict)",
          "Lemma 5.4, Cauchy–Schwarz"),
    Claim("D3_information", "deterministic",
          "chain rule ½Σlog(1+σ⁻²σ²_{s−1}(x_s)) = ½log|I+σ⁻²K_t| (1e−8; the algorithm's σ against the queried points' "
          "Gram matrix) and 0 ≤ realised gain ≤ certified γ_t", "Lemma 5.3"),
    Claim("K1_calibration", "calibration",
          "innovations (y_t − μ_{t−1}(x_t))/√(σ²_{t−1}(x_t)+σ²) are i.i.d. N(0,1) (one omnibus test: Anderson–Darling "
          "against N(0,1) and Ljung–Box within runs; mean, variance, lag-1 as diagnostics)",
          "exact posterior under the prior"),
)

CORRECTIONS = (
    Correction("S1", "Theorem 1", "γ_T = max information gain, not computable",
               "a certified upper bound on γ_T over multisets (boundcheck.mig); the greedy value is reported as "
               "the lower end only", "plugging a lower estimate into an upper bound would make the check unsound"),
    Correction("S2", "notation", "β_t is the squared width (x_t = argmax μ + β_t^{1/2} σ)",
               "schedule beta_t is Srinivas's β_t; width_t = √β_t multiplies σ in the UCB rule",
               "other papers (000, 004) write β_t for the width itself", changes_computation=False),
    Correction("S3", "Lemma 5.1", "tail bound P(|Z| > c) ≤ e^{−c²/2}",
               "used as stated; valid for c ≥ 0 because P(Z > c) ≤ ½e^{−c²/2}", "two-sided Gaussian tail",
               changes_computation=False),
    Correction("S4", "Lemma 5.4", "Σ_t 4β_t σ² ≤ C₁ β_T γ_T uses σ²_{t−1} ≤ k(x,x) ≤ 1",
               "kernel normalised so that max_x k(x,x) ≤ 1 (checked as an assumption)",
               "C₁ absorbs s² ≤ log(1+σ⁻²s²)/log(1+σ⁻²), valid only for s² ≤ 1", changes_computation=False),
)

ASSUMPTIONS = (
    Assumption("f ~ GP(0, k) drawn fresh per run (Bayesian setting), and the algorithm is given that prior",
               "model_is_truth"),
    Assumption("f is static (ε = 0): a fixed function, not a time-varying one", "static_truth"),
    Assumption("finite domain D, the same at every step", "fixed_decision_set"),
    Assumption("k(x, x) ≤ 1 for all x ∈ D", "kernel_bounded_by_one"),
    Assumption("noise i.i.d. N(0, σ²) with the σ the model uses", "noise_matches"),
    Assumption("the model's noise variance is σ² (λ = R²)", "lambda_is_noise"),
    Assumption("β_t is the theoretical schedule (no scaling)", "theoretical_schedules"),
)

THEOREM = Theorem(
    id="gp_ucb",
    title="GP-UCB regret bound for a GP sample on a finite domain",
    paper="(Srinivas et al. 2010, arXiv:0912.3995; cited by Ziomek et al. 2024 as Theorem 3.1)",
    source="Srinivas, Krause, Kakade, Seeger (2010), Theorem 1",
    guarantee="high_probability",
    symbols=SYMBOLS,
    bound_terms=BOUND_TERMS,
    anytime_terms=ANYTIME_TERMS,
    printed=r"R_T \le \sqrt{C_1 T \beta_T \gamma_T}\ \ \forall T \ge 1,\quad C_1 = 8/\log(1+\sigma^{-2})",
    schedules={"beta_t": beta(t), "width_t": sp.sqrt(beta(t)), "C1": C1},
    assumptions=ASSUMPTIONS,
    claims=CLAIMS,
    corrections=CORRECTIONS,
    default_scenario="gp_sample_se",
    scenarios=("gp_sample_se", "gp_sample_matern"),
    algorithms=("gp_ucb", "gp_ei", "gp_pi", "random"),
    anytime_note="The theorem holds for all T simultaneously: Bound(t) = √(C₁ t β_t γ_t) with γ_t certified at t.",
)

THEOREMS = (THEOREM,)
