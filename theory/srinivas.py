"""GP-UCB (Srinivas, Krause, Kakade, Seeger 2010, "Gaussian Process Optimization in the Bandit Setting:
No Regret and Experimental Design"), Theorem 1: finite domain, f drawn from the GP prior (Bayesian setting).
The statement (arXiv:0912.3995, Theorem 1 with Lemmas 5.1–5.4):

    β_t = 2 log(|D| t² π² / (6δ))        (the *squared* confidence width: x_t = argmax μ_{t−1} + √β_t σ_{t−1})
    P{ R_T ≤ √(C₁ T β_T γ_T)  for all T ≥ 1 } ≥ 1 − δ,      C₁ = 8 / log(1 + σ⁻²),

for f ~ GP(0, k) with k(x, x) ≤ 1 and Gaussian noise N(0, σ²) (σ = R here), γ_T the maximum information gain
with noise variance σ². The proof: Lemma 5.1 (the confidence event, union over x ∈ D and t with Σ 6/(π²t²) = 1),
Lemma 5.2 (r_t ≤ 2√β_t σ_{t−1}(x_t) on it), Lemma 5.3 (chain rule), Lemma 5.4 (Σ 4β_tσ² ≤ C₁β_Tγ_T),
Cauchy–Schwarz. The bound holds for every T simultaneously, so its anytime form is the theorem itself.

Theorem 2 (compact convex D ⊂ [0, r]^d, derivative tails a, b) is ``gp_ucb_compact`` in ``COMPACT_THEOREMS``: its
statement, proof outline and δ budget are in the block above its code.
"""

from __future__ import annotations

import sympy as sp

from .core import Assumption, Claim, Correction, Domain, S, Theorem

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


# ==============================================================================================================
# Theorem 2 (arXiv:0912.3995): compact convex D ⊂ [0, r]^d, f ~ GP(0, k), k(x, x) ≤ 1, Gaussian noise N(0, σ²), and
# derivative tails P{sup_{x∈D} |∂f/∂x_j| > L} ≤ a e^{−(L/b)²} for every L ≥ 0, j = 1..d. For δ ∈ (0, 1) and
#
#     β_t = 2 ln(2t²π²/(3δ)) + 2d ln(t² d b r √(ln(4da/δ))),
#     P{ R_T ≤ √(C₁ T β_T γ_T) + 2  for all T ≥ 1 } ≥ 1 − δ,      C₁ = 8 / ln(1 + σ⁻²),
#
# with r_t = max_{x∈D} f(x) − f(x_t) and γ_T the maximum information gain over D. Proof, with π_t = π²t²/6
# (Σ 1/π_t = 1) and the δ budget worked out (the paper splits it only in words, "δ/2" twice):
#   * Lemma 5.5 at δ/2 (|f(x_t) − μ_{t−1}(x_t)| ≤ √β_t σ_{t−1}(x_t) ∀t; needs β_t ≥ 2 ln(2π_t/δ), β_t is larger);
#   * Lemma 5.7 at δ/2, itself two events of δ/4 each:
#       - Lipschitz: P{∃j: sup|∂_j f| > L} ≤ d a e^{−(L/b)²} = δ/4 at L = b √(ln(4da/δ)); on it
#         |f(x) − f(x')| ≤ L ‖x − x'‖₁ (D convex);
#       - Lemma 5.6 on D_t, |D_t| ≤ τ_t^d points with ‖x − [x]_t‖₁ ≤ rd/τ_t, τ_t = d t² b r √(ln(4da/δ)) (so that
#         L rd/τ_t = 1/t²): Σ_t |D_t| e^{−β_t/2} ≤ Σ_t δ/(4π_t) = δ/4 needs β_t ≥ 2 ln(4π_t/δ) + 2d ln τ_t, which is
#         β_t exactly; together |f(x*) − μ_{t−1}([x*]_t)| ≤ √β_t σ_{t−1}([x*]_t) + 1/t² ∀t;
#   * Lemma 5.8 (on both events, x_t maximising the UCB at least over D_t): r_t ≤ 2√β_t σ_{t−1}(x_t) + 1/t²;
#   * Lemmas 5.3–5.4 and Cauchy–Schwarz as in Theorem 1, and Σ 1/t² = π²/6 ≤ 2.
# D_t (not specified in the paper): the cell-centred grid with n_t = ⌈τ_t/2⌉ points per side of the box, so that
# ‖x − [x]_t‖₁ ≤ dr/(2n_t) ≤ rd/τ_t and |D_t| = n_t^d ≤ τ_t^d, the latter when τ_t ≥ 1: the constraint τ_1 ≥ 1.
# ==============================================================================================================
d = sp.Symbol("d", positive=True, integer=True)  # dimension: D ⊂ [0, r]^d
r = sp.Symbol("r", positive=True)  # side of the box [0, r]^d containing D
log_a = sp.Symbol("log_a", nonnegative=True)  # ln a of the derivative tails (a ≥ 1): a itself may overflow a float
b_tail = sp.Symbol("b_tail", positive=True)  # b of the derivative tails


def log_tail(share: sp.Expr, log_a_: sp.Expr = log_a) -> sp.Expr:
    """ln(share · d a / δ) written as ln(share · d / δ) + ln a, so that a huge a (e^{m²/(2s²)}) never overflows."""
    return sp.log(share * d / delta) + log_a_


def lipschitz_level(log_a_: sp.Expr = log_a) -> sp.Expr:
    """L = b √(ln(4da/δ)): sup_x |∂f/∂x_j| ≤ L for every j except with probability d a e^{−(L/b)²} = δ/4."""
    return b_tail * sp.sqrt(log_tail(4, log_a_))


def tau(step: sp.Expr, log_a_: sp.Expr = log_a) -> sp.Expr:
    """τ_t = d t² b r √(ln(4da/δ)): L · rd/τ_t = 1/t², and D_t has at most τ_t^d points."""
    return d * step**2 * b_tail * r * sp.sqrt(log_tail(4, log_a_))


def beta_confidence(step: sp.Expr) -> sp.Expr:
    """The confidence part of Theorem 2's β_t: 2 ln(2t²π²/(3δ)) = 2 ln(4π_t/δ) (Lemma 5.6 at δ/4 without |D_t|)."""
    return 2 * sp.log(2 * step**2 * pi**2 / (3 * delta))


def beta_discretisation(step: sp.Expr, log_a_: sp.Expr = log_a) -> sp.Expr:
    """The discretisation part of Theorem 2's β_t: 2d ln(t² d b r √(ln(4da/δ))) = 2d ln τ_t = 2 ln |D_t|."""
    return 2 * d * sp.log(tau(step, log_a_))


def beta_compact(step: sp.Expr, log_a_: sp.Expr = log_a) -> sp.Expr:
    """Theorem 2's β_t (squared width): 2 ln(2t²π²/(3δ)) + 2d ln(t² d b r √(ln(4da/δ)))."""
    return beta_confidence(step) + beta_discretisation(step, log_a_)


COMPACT_BOUND_TERMS = {"information": sp.sqrt(C1 * T * beta_compact(T) * gamma_T), "discretisation": sp.Integer(2)}
COMPACT_ANYTIME_TERMS = {"information": sp.sqrt(C1 * t * beta_compact(t) * gamma_t), "discretisation": sp.Integer(2)}

COMPACT_SYMBOLS = {
    "T": (T, "horizon"),
    "delta": (delta, "confidence parameter δ ∈ (0,1)"),
    "R": (R, "noise standard deviation σ (Gaussian noise N(0, σ²), the model's noise variance)"),
    "d": (d, "dimension: D ⊂ [0, r]^d"),
    "r": (r, "side of the box [0, r]^d containing D (high − low of the box)"),
    "log_a": (log_a, "ln a of the derivative tails P{sup|∂f/∂x_j| > L} ≤ a e^{−(L/b)²}, a ≥ 1"),
    "b_tail": (b_tail, "b of the derivative tails P{sup|∂f/∂x_j| > L} ≤ a e^{−(L/b)²}"),
    "gamma_T": (gamma_T, "certified upper bound on γ_T over the box (noise variance σ², multisets of T points): "
                         "feature-basis Hadamard bound plus the kernel-approximation term"),
}
COMPACT_DOMAINS = {
    "d": Domain(1, integer=True),
    "r": Domain(0, lower_open=True),
    "log_a": Domain(0),  # a ≥ 1
    "b_tail": Domain(0, lower_open=True),
}

COMPACT_CLAIMS = (
    Claim("regret_bound", "probability",
          "R_T ≤ √(C₁ T β_T γ_T) + 2, r_t = max_{x∈D} f(x) − f(x_t) over the continuum", "Theorem 2", delta,
          main=True),
    Claim("regret_bound_anytime", "probability",
          "R_t ≤ √(C₁ t β_t γ_t) + 2 for every t ≤ T (Theorem 2 is uniform in T)", "Theorem 2", delta, main=True),
    Claim("confidence_chosen", "probability",
          "|f(x_t) − μ_{t−1}(x_t)| ≤ √β_t σ_{t−1}(x_t) ∀t ≤ T: Lemma 5.5 at δ/2 (it needs only 2 ln(2π_t/δ) ≤ β_t)",
          "Lemma 5.5", delta / 2),
    Claim("lipschitz_event", "probability",
          "sup_{x∈D} |∂f/∂x_j| ≤ L for all j = 1..d, L = b√(ln(4da/δ)) (schedule lipschitz_L): the union over j of "
          "the derivative tails at δ/4, Lemma 5.7's Lipschitz half", "Lemma 5.7 proof (Lipschitz step)", delta / 4),
    Claim("confidence_discretised", "probability",
          "|f(x*) − μ_{t−1}([x*]_t)| ≤ √β_t σ_{t−1}([x*]_t) + 1/t² ∀t ≤ T, [x*]_t the nearest point of D_t (cell "
          "centres, ⌈τ_t/2⌉ per side) to x*: Lemma 5.7 at δ/2 (Lipschitz δ/4 and Lemma 5.6 on D_t δ/4)",
          "Lemma 5.7 (with Lemma 5.6)", delta / 2),
    Claim("D1_optimism", "deterministic",
          "on the events of confidence_chosen, lipschitz_event and confidence_discretised: r_t ≤ 2√β_t σ_{t−1}(x_t) "
          "+ 1/t² at every step (it also needs UCB(x_t) ≥ UCB([x*]_t), which optimiser_gap checks apart: a choice "
          "that misses it fails here)", "Lemma 5.8"),
    Claim("optimiser_gap", "deterministic",
          "UCB_{t−1}(x_t) ≥ UCB_{t−1}([x*]_t) − 0: the algorithm's x_t maximises the UCB at least over D_t, which is "
          "all that Lemma 5.8 uses of 'x_t = argmax'; observed on every step, not assumed (the acquisition is "
          "maximised numerically on the continuum)", "Lemma 5.8 proof"),
    Claim("D3_information", "deterministic",
          "chain rule ½Σlog(1+σ⁻²σ²_{s−1}(x_s)) = ½log|I+σ⁻²K_t| (1e−8; the algorithm's σ against the queried points' "
          "Gram matrix) and 0 ≤ realised gain ≤ certified γ_t (over the box)", "Lemma 5.3"),
    Claim("K1_calibration", "calibration",
          "innovations (y_t − μ_{t−1}(x_t))/√(σ²_{t−1}(x_t)+σ²) are i.i.d. N(0,1) (one omnibus test: Anderson–Darling "
          "against N(0,1) and Ljung–Box within runs; mean, variance, lag-1 as diagnostics)",
          "exact posterior under the prior"),
)

COMPACT_CORRECTIONS = tuple(c for c in CORRECTIONS if c.id in ("S2", "S3", "S4")) + (
    Correction("SC1", "Lemmas 5.7–5.8",
               "β_t = 2 log(2π_t/δ) + 4d log(dtbr√(log(2da/δ))) (Lemma 5.7; Lemma 5.8 with 4π_t and 4da)",
               "the theorem's β_t = 2 ln(2t²π²/(3δ)) + 2d ln(t²dbr√(ln(4da/δ))), with τ_t = dt²br√(ln(4da/δ)) and "
               "L = b√(ln(4da/δ)) at the theorem's δ",
               "the union bound gives exactly the theorem's form: Lemma 5.7 at δ/2 spends δ/4 on the Lipschitz event "
               "(d a e^{−(L/b)²} = δ/4 at L = b√(ln(4da/δ))) and δ/4 on Lemma 5.6 over D_t with |D_t| = τ_t^d, "
               "Σ_t τ_t^d e^{−β_t/2} = Σ_t δ/(4π_t) = δ/4 iff β_t = 2 ln(4π_t/δ) + 2d ln τ_t, and 2 ln(4π_t/δ) = "
               "2 ln(2t²π²/(3δ)); Lemma 5.5 takes the other δ/2. The lemma's 4d ln(dtbr√·) = 2d ln τ_t + "
               "2d ln(dbr√·) is a rewriting that is looser when dbr√· ≥ 1 and too small (unsound) when dbr√· < 1",
               changes_computation=False),
    Correction("SC2", "Theorem 2", "ln(4da/δ) with a the tail constant",
               "ln(4d/δ) + log_a, the symbol log_a = ln a ≥ 0 (a ≥ 1)",
               "the Borell–TIS a = exp(m²/(2s²)) overflows a float for moderate m/s; the sum is the same number",
               changes_computation=False),
    Correction("SC3", "Theorem 2", "a, b assumed, given for no kernel",
               "for the squared-exponential prior boundcheck derives them by Borell–TIS: b = 2√2 s with "
               "s² = sup Var ∂_j f = 1/ℓ², a = max{1, exp(m²/(2s²))} (log_a = max{0, m²/(2s²)}) with m a "
               "certified upper bound on E sup|∂_j f|; P{sup|h| > L} ≤ a e^{−(L/b)²} for all L ≥ 0 since "
               "(L − m)² ≥ L²/4 for L ≥ 2m and the right side is ≥ 1 below; for Matérn-5/2 the same with "
               "s² = 5/(3ℓ²) and m from chaining with the fourth spectral moment 25/ℓ⁴ (docs/compact.md)",
               "the theorem needs numbers to evaluate β_t"),
    Correction("SC4", "Theorem 2", "γ_T = max information gain over the continuum D, not computable",
               "a certified upper bound: the feature-basis Hadamard bound plus the kernel-approximation term",
               "plugging a lower estimate (greedy) into an upper bound would make the check unsound"),
    Correction("SC6", "Lemma 5.8", "x_t = argmax_D UCB_{t−1}, exactly",
               "the acquisition maximised numerically: x_t may fall short of UCB_{t−1}([x*]_t) by g_t ≤ 10⁻⁵(1 + "
               "|UCB_{t−1}(x_t)|) (optimiser_gap fails beyond); then r_t ≤ 2√β_t σ_{t−1}(x_t) + 1/t² + g_t and "
               "R_T ≤ √(C₁Tβ_Tγ_T) + 2 + Σ_t g_t, which is what D1 and the regret claims check, with the observed g_t",
               "two basins of the UCB within 10⁻⁵ of each other are a near-tie a numerical optimiser may resolve "
               "either way; the proof carries the shortfall additively"),
    Correction("SC5", "Theorem 2 proof", "'a discretisation D_t of size (τ_t)^d' with τ_t not an integer",
               "D_t = the cell-centred grid with ⌈τ_t/2⌉ points per side: ‖x − [x]_t‖₁ ≤ rd/τ_t and |D_t| ≤ τ_t^d "
               "when τ_t ≥ 1; values with τ_1 = dbr√(ln(4da/δ)) < 1 are refused (constraint)",
               "for τ_t < 1 the term 2d ln τ_t is negative while |D_t| ≥ 1: the union bound would fail",
               changes_computation=False),
)

COMPACT_ASSUMPTIONS = (
    Assumption("D is a box, low ≤ x_j ≤ high for j = 1..d (compact and convex), of side r = high − low (translated to "
               "[0, r]^d); the "
               "truth is evaluated and the acquisition maximised on the continuum", "compact_box_domain"),
    *(a for a in ASSUMPTIONS if a.predicate != "fixed_decision_set"),
    Assumption("P{sup_{x∈D} |∂f/∂x_j| > L} ≤ a e^{−(L/b)²} for all L ≥ 0 and j = 1..d with the (log_a, b_tail) given: "
               "certified for the prior (Borell–TIS for the squared-exponential kernel, correction SC3)",
               "derivative_tails_certified"),
)

COMPACT_THEOREM = Theorem(
    id="gp_ucb_compact",
    title="GP-UCB regret bound for a GP sample on a compact box",
    paper="(Srinivas et al. 2010, arXiv:0912.3995)",
    source="Srinivas, Krause, Kakade, Seeger (2010), Theorem 2",
    guarantee="high_probability",
    symbols=COMPACT_SYMBOLS,
    bound_terms=COMPACT_BOUND_TERMS,
    anytime_terms=COMPACT_ANYTIME_TERMS,
    printed=(r"R_T \le \sqrt{C_1 T \beta_T \gamma_T} + 2\ \ \forall T \ge 1,\quad "
             r"\beta_t = 2\ln\frac{2t^2\pi^2}{3\delta} + 2d\ln\Big(t^2 d b r\sqrt{\ln(4da/\delta)}\Big),"
             r"\quad C_1 = 8/\log(1+\sigma^{-2})"),
    schedules={
        "beta_t": beta_compact(t),
        "width_t": sp.sqrt(beta_compact(t)),
        "C1": C1,
        "beta_confidence_t": beta_confidence(t),
        "beta_discretisation_t": beta_discretisation(t),
        "lipschitz_L": lipschitz_level(),
        "tau_t": tau(t),
        "grid_n_t": sp.ceiling(tau(t) / 2),  # points per side of D_t (correction SC5)
    },
    assumptions=COMPACT_ASSUMPTIONS,
    claims=COMPACT_CLAIMS,
    corrections=COMPACT_CORRECTIONS,
    default_scenario="gp_sample_se_box",
    scenarios=("gp_sample_se_box", "gp_sample_se_box2"),
    algorithms=("gp_ucb_box", "random_box"),
    anytime_note="The theorem holds for all T simultaneously: Bound(t) = √(C₁ t β_t γ_t) + 2 with γ_t certified at t.",
    constraints=(sp.Ge(tau(1), 1),),  # τ_1 ≥ 1: D_t with at most τ_t^d points exists (correction SC5)
    domains=COMPACT_DOMAINS,
    reference=("Niranjan Srinivas, Andreas Krause, Sham M. Kakade, Matthias Seeger (2010). Gaussian Process "
               "Optimization in the Bandit Setting: No Regret and Experimental Design. ICML 2010, arXiv:0912.3995"),
)

# ==============================================================================================================
# Theorem 3 (arXiv:0912.3995): f in the RKHS of k on any compact D with ‖f‖²_k ≤ B_S, the noise a martingale
# difference sequence bounded by σ a.s.; GP-UCB with the prior GP(0, k), noise model N(0, σ²) and
#
#     β_t = 2B_S + 300 γ_t ln³(t/δ)   gives   P{ R_T ≤ √(C₁ T β_T γ_T)  for all T ≥ 1 } ≥ 1 − δ,   C₁ = 8/ln(1 + σ⁻²).
#
# No discretisation: the confidence bound of its Theorem 6, |μ_{t−1}(x) − f(x)| ≤ β_t^{1/2} σ_{t−1}(x) for all x ∈ D
# and t, holds on the whole domain at once. boundcheck's B is the norm (‖f‖_k ≤ B), so 2B_S = 2B² (correction SR1).
# ==============================================================================================================
B_norm = sp.Symbol("B", positive=True)  # ‖f‖_k ≤ B (the norm; the paper's B is its square)


def beta_rkhs(step: sp.Expr) -> sp.Expr:
    """Theorem 3's β_t (squared width) as boundcheck runs it: 2B² + 300 γ_T ln³(t/δ) (γ_T ≥ γ_t: correction SR3)."""
    return 2 * B_norm**2 + 300 * gamma_T * sp.log(step / delta) ** 3


RKHS_SYMBOLS = {
    "T": (T, "horizon"),
    "delta": (delta, "confidence parameter δ ∈ (0,1)"),
    "R": (R, "noise bound σ: |ε_t| ≤ σ a.s. (a martingale difference sequence), the model's noise N(0, σ²)"),
    "B": (B_norm, "RKHS norm bound ‖f‖_k ≤ B given to the algorithm (the paper's B is B²)"),
    "gamma_T": (gamma_T, "certified upper bound on γ_T over the box (noise variance σ², multisets of T points)"),
}

RKHS_CLAIMS = (
    Claim("regret_bound", "probability", "R_T ≤ √(C₁ T β_T γ_T), β_T = 2B² + 300γ_T ln³(T/δ), over the continuum",
          "Theorem 3", delta, main=True),
    Claim("regret_bound_anytime", "probability", "R_t ≤ √(C₁ t β_t γ_t) for every t ≤ T (uniform in T)", "Theorem 3",
          delta, main=True),
    Claim("confidence_chosen", "probability",
          "|f(x_t) − μ_{t−1}(x_t)| ≤ √β_t σ_{t−1}(x_t) ∀t ≤ T: Theorem 6 holds for all x ∈ D at once; over the whole "
          "box it cannot be observed, so its restriction to the chosen points and to x* (D1) is checked",
          "Theorem 6", delta),
    Claim("D1_optimism", "identity",
          "on the confidence event at x_t and x* at step t: UCB_{t−1}(x_t) ≥ max f and r_t ≤ 2√β_t σ_{t−1}(x_t) — "
          "arithmetic given that event and optimiser_gap, and with √β_t ≈ 10²–10³ at feasible horizons no choice of "
          "points breaks it (shown outside the verdict)", "Lemma 5.2 (with Theorem 6)"),
    Claim("optimiser_gap", "deterministic",
          "UCB_{t−1}(x_t) ≥ UCB_{t−1}(x*) − 0: all that the proof uses of 'x_t = argmax_D UCB'; observed on every step "
          "(the acquisition is maximised numerically on the continuum)", "Lemma 5.2 proof"),
    Claim("D3_information", "deterministic",
          "chain rule ½Σlog(1+σ⁻²σ²_{s−1}(x_s)) = ½log|I+σ⁻²K_t| (1e−8; the algorithm's σ against the queried points' "
          "Gram matrix) and 0 ≤ realised gain ≤ certified γ_t (over the box)", "Lemma 5.3"),
)

RKHS_CORRECTIONS = tuple(c for c in CORRECTIONS if c.id in ("S2", "S4")) + (
    Correction("SR1", "Theorem 3", "‖f‖²_k ≤ B and β_t = 2B + 300γ_t log³(t/δ)",
               "‖f‖_k ≤ B (the norm, as every other theorem of boundcheck states it) and β_t = 2B² + 300γ_t ln³(t/δ)",
               "one meaning of B across the theorems; the same number", changes_computation=False),
    Correction("SR2", "Theorem 3", "γ_T over the continuum D, not computable",
               "a certified upper bound: the feature-basis Hadamard bound plus the kernel-approximation term",
               "plugging a lower estimate (greedy) into an upper bound would make the check unsound"),
    Correction("SR3", "Theorem 3", "β_t = 2B + 300γ_t log³(t/δ) with γ_t at step t",
               "β_t = 2B² + 300γ_T ln³(t/δ): the certified γ_T at the study's horizon in place of γ_t (a larger, still "
               "non-decreasing β_t); the bound at T is the paper's, the anytime form R_t ≤ √(C₁tβ_tγ_t) with this β_t",
               "Theorem 6 needs only β_t ≥ 2B + 300γ_t ln³(t/δ) and Lemma 5.4 only β_s ≤ β_t for s ≤ t; the schedules "
               "are evaluated with one γ (boundcheck's schedules read γ_T or γ_{t−1}, not γ_t)"),
)

RKHS_ASSUMPTIONS = (
    Assumption("D is a box, low ≤ x_j ≤ high for j = 1..d (compact); the truth is evaluated and the acquisition "
               "maximised on the continuum", "compact_box_domain"),
    Assumption("f is a fixed function of the RKHS of k with ‖f‖_k ≤ B (B given to the algorithm)", "rkhs_norm_bounded"),
    Assumption("the algorithm's kernel is the RKHS kernel", "model_kernel_is_truth"),
    Assumption("k(x, x) ≤ 1 for all x ∈ D", "kernel_bounded_by_one"),
    Assumption("noise ε_t a martingale difference sequence bounded by σ almost surely (here i.i.d. ±σ, Rademacher)",
               "noise_bounded"),
    Assumption("the model's noise variance is σ² (λ = R²)", "lambda_is_noise"),
    Assumption("β_t is the theoretical schedule (no scaling)", "theoretical_schedules"),
)

RKHS_THEOREM = Theorem(
    id="gp_ucb_rkhs_compact",
    title="GP-UCB regret bound for a fixed RKHS function with bounded noise on a compact box",
    paper="(Srinivas et al. 2010, arXiv:0912.3995)",
    source="Srinivas, Krause, Kakade, Seeger (2010), Theorem 3",
    guarantee="high_probability",
    symbols=RKHS_SYMBOLS,
    bound_terms={"information": sp.sqrt(C1 * T * beta_rkhs(T) * gamma_T)},
    anytime_terms={"information": sp.sqrt(C1 * t * beta_rkhs(t) * gamma_t)},
    printed=(r"R_T \le \sqrt{C_1 T \beta_T \gamma_T}\ \ \forall T \ge 1,\quad "
             r"\beta_t = 2B + 300\gamma_t\log^3(t/\delta)"),
    schedules={"beta_t": beta_rkhs(t), "width_t": sp.sqrt(beta_rkhs(t)), "C1": C1},
    assumptions=RKHS_ASSUMPTIONS,
    claims=RKHS_CLAIMS,
    corrections=RKHS_CORRECTIONS,
    default_scenario="rkhs_se_box_bounded",
    scenarios=("rkhs_se_box_bounded",),
    algorithms=("gp_ucb_rkhs_box", "random_box"),
    anytime_note="The theorem holds for all T simultaneously: Bound(t) = √(C₁ t β_t γ_t) with γ_t certified at t.",
    reference=("Niranjan Srinivas, Andreas Krause, Sham M. Kakade, Matthias Seeger (2010). Gaussian Process "
               "Optimization in the Bandit Setting: No Regret and Experimental Design. ICML 2010, arXiv:0912.3995"),
)

COMPACT_THEOREMS = (COMPACT_THEOREM, RKHS_THEOREM)
THEOREMS = (THEOREM, *COMPACT_THEOREMS)
