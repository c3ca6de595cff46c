"""Seed 001: ET-GP-UCB (Brunzema, von Rohr, Solowjow, Trimpe, "Event-Triggered Time-Varying Bayesian
Optimization", arXiv 2208.10790, early version) and the two algorithms it builds on, TV-GP-UCB and R-GP-UCB
(Bogunovic, Scarlett, Cevher 2016); the paper's typos and gaps are in the corrections ledger below.

Setting (Assumptions 1–3): f_1 = g_1, f_t = √(1−ε) f_{t−1} + √ε g_t with g_t ~ GP(0, k) i.i.d., k ≤ 1 stationary;
y_t = f_t(x_t) + w_t, w_t ~ N(0, σ_n²) (σ_n is the symbol ``R``); π_t = π²t²/6 throughout.

Four theorem objects: ``et_gp_ucb`` (Theorem 1 in three forms: (A) as stated, (B) realised blocks closing gaps
G1–G3, (C) finite domain), ``et_r_gp_ucb`` (Theorem 2, the δ-budget corrected: ledger R14), ``tv_gp_ucb``
(Srinivas et al.'s argument on the spatio-temporal kernel with the certified γ̃_T) and ``et_trigger`` (Lemma 3
on its own: its premise ε = 0 is not Theorem 1's). Schedules whose variable is a block size N are written with
the symbol ``t`` standing for N (their names end in ``_N``). The paper page: docs/papers/et_gp_ucb.md.
"""

from __future__ import annotations

import math

import sympy as sp

from .core import Assumption, Claim, Correction, Domain, S, Theorem
from .empirical import EmpiricalClaim

T, t, delta, R, n_X, gamma_T, gamma_t = S.T, S.t, S.delta, S.R, S.n_X, S.gamma_T, S.gamma_t
pi = sp.pi

d = sp.Symbol("d", positive=True)  # dimension of X ⊂ [0, r]^d
r = sp.Symbol("r", positive=True)  # side of the box containing X
a0, b0 = sp.Symbol("a0", positive=True), sp.Symbol("b0", positive=True)  # Assumption 3, eq. (3)
a1, b1 = sp.Symbol("a1", positive=True), sp.Symbol("b1", positive=True)  # Assumption 3, eq. (4)
eps = sp.Symbol("eps", nonnegative=True)  # rate of change ε ∈ [0, 1]
tau_bar = sp.Symbol("tau_bar", positive=True)  # τ̄ = min{T, E[τ]/δ} (Lemma 4)
gamma_tau = sp.Symbol("gamma_tau_bar", nonnegative=True)  # certified upper bound on γ_τ̄ (time-invariant k)
tau_bar_C = sp.Symbol("tau_bar_C", positive=True)  # τ̄ of the finite-domain variant, min{T, 3E[τ]/δ}
gamma_tau_C = sp.Symbol("gamma_tau_bar_C", nonnegative=True)  # certified upper bound on γ at τ̄_C
N = sp.Symbol("N", positive=True)  # R-GP-UCB's reset period
gamma_N = sp.Symbol("gamma_N", nonnegative=True)  # certified upper bound on γ_N


# ------------------------------------------------------------------------------------------------ pieces
C1 = 8 / sp.log(1 + R**-2)  # Srinivas et al.'s C₁ (k ≤ 1)
C2 = R**-2 / sp.log(1 + R**-2)  # s² ≤ C₂ log(1 + s²) for s² ∈ [0, σ_n⁻²] (eq. 41, typo fixed)


def g_of(n: sp.Expr) -> sp.Expr:
    """1 − e^{−p(ε) N} = 1 − (1−ε)^{N/2} (written directly: p(ε) = ∞ at ε = 1)."""
    return 1 - (1 - eps) ** (n / 2)


def lemma8_sigma(n: sp.Expr) -> sp.Expr:
    """Lemma 8, eq. (27): Δ^(σ) ≤ √((3σ_n⁻² + σ_n⁻⁴) N² (1 − (1−ε)^{N/2}))."""
    return sp.sqrt((3 * R**-2 + R**-4) * n**2 * g_of(n))


def lemma8_mu_coef(n: sp.Expr) -> sp.Expr:
    """Lemma 8, eq. (28) without its ȳ factor: Δ^(μ) ≤ (σ_n⁻² + σ_n⁻⁴) N² (1 − (1−ε)^{N/2}) · max|y|."""
    return (R**-2 + R**-4) * n**2 * g_of(n)


def lemma8_sigma_previous(n: sp.Expr) -> sp.Expr:
    """Fig. 7's 'previous' form (Bogunovic et al. Lemma D.1, the maximal entry linearised as Nε)."""
    return sp.sqrt((3 * R**-2 + R**-4) * n**3 * eps)


def lemma8_sigma_trivial(n: sp.Expr) -> sp.Expr:
    """Fig. 7's 'trivial' form (‖k − k̃‖₂ ≤ N): N √(3σ_n⁻² + σ_n⁻⁴)."""
    return n * sp.sqrt(3 * R**-2 + R**-4)


def beta_thm1(s: sp.Expr) -> sp.Expr:
    """Theorem 1's β_t: Lemma 7 with δ/4 (which dominates Lemma 5 with δ/4)."""
    return (2 * sp.log(4 * pi**2 * s**2 / (3 * delta))
            + 2 * d * sp.log(s**2 * d * b1 * r * sp.sqrt(sp.log(4 * d * a1 * pi**2 * s**2 / (3 * delta)))))


def beta_thm2_printed(s: sp.Expr) -> sp.Expr:
    """Theorem 2's β_t as printed (eq. 45): Lemma 7 with δ/2."""
    return (2 * sp.log(2 * pi**2 * s**2 / (3 * delta))
            + 2 * d * sp.log(s**2 * d * b1 * r * sp.sqrt(sp.log(2 * d * a1 * pi**2 * s**2 / (3 * delta)))))


def beta_thm2(s: sp.Expr) -> sp.Expr:
    """Theorem 2's β_t with the δ-budget corrected to δ/3 per event (ledger R14) [DERIVED]."""
    return (2 * sp.log(pi**2 * s**2 / delta)
            + 2 * d * sp.log(s**2 * d * b1 * r * sp.sqrt(sp.log(d * a1 * pi**2 * s**2 / delta))))


def beta_finite(s: sp.Expr, share: sp.Expr) -> sp.Expr:
    """Union over the M grid points and all t at level δ/share: 2 log(share · M π_t / δ)."""
    return 2 * sp.log(share * n_X * pi**2 * s**2 / (6 * delta))


def beta_lemma5(s: sp.Expr, share: sp.Expr) -> sp.Expr:
    """Lemma 5 (confidence at the queried point) at level δ/share: 2 log(share · π_t / δ)."""
    return 2 * sp.log(share * pi**2 * s**2 / (6 * delta))


def ybar(s: sp.Expr, share: sp.Expr) -> sp.Expr:
    """Lemma 6 at level δ/share: ȳ_s = (b₀ + √2σ_n) √(log(2(a₀+1) share π_s/δ))."""
    return (b0 + sp.sqrt(2) * R) * sp.sqrt(sp.log((a0 + 1) * share * pi**2 * s**2 / (3 * delta)))


def rho(tp: sp.Expr, delta_b: sp.Expr) -> sp.Expr:
    """The trigger's ρ_{t'} = 2 log(2π_{t'}/δ_B) = 2 log(π²t'²/(3δ_B)) (eqs. 10–11 simplified)."""
    return 2 * sp.log(pi**2 * tp**2 / (3 * delta_b))


# ------------------------------------------------------------------------------ exact false-alarm sum
def false_alarm_sum_value(delta_b: float, head: int = 4000) -> float:
    """Σ_{t'≥1} 2Φ̄(√ρ_{t'}) = Σ erfc(√(ρ_{t'}/2)) as a rigorous upper value: the first ``head`` terms exactly,
    the tail by Mills' ratio, 2Φ̄(x) ≤ 2φ(x)/x, so that Σ_{t'>H} ≤ (6δ_B/π²)/(H √(2π ρ_H))."""
    delta_b = float(delta_b)
    if not 0.0 < delta_b < 1.0:
        raise ValueError(f"delta_B must lie in (0, 1), got {delta_b}")
    c = math.pi**2 / (3.0 * delta_b)
    total = math.fsum(math.erfc(math.sqrt(math.log(c * k * k))) for k in range(1, head + 1))
    rho_h = 2.0 * math.log(c * head * head)
    return total + (6.0 * delta_b / math.pi**2) / (head * math.sqrt(2.0 * math.pi * rho_h))


class FalseAlarmSum(sp.Function):
    r"""``FalseAlarmSum(δ_B)`` = Σ_{t'≥1} 2Φ̄(√ρ_{t'}), the exact-model false-alarm level of the trigger
    (Lemma 3's union bound, exact): ≈ 0.0124 for δ_B = 0.1, for every horizon (the T = 200 and 400 sums agree to three
    figures, and the infinite sum bounds both). Numeric through :func:`false_alarm_sum_value`."""

    nargs = 1

    @staticmethod
    def _imp_(x):  # lambdify hook (scalar δ)
        return false_alarm_sum_value(float(x))

    def _eval_evalf(self, prec):
        (x,) = self.args
        if x.is_number:
            return sp.Float(false_alarm_sum_value(float(x)), prec)
        return None

    def _latex(self, printer, exp=None):
        arg = printer._print(self.args[0])
        s = r"\sum_{t'\ge 1} 2\bar\Phi\big(\sqrt{\rho_{t'}(" + arg + r")}\big)"
        return s if exp is None else r"\left(" + s + r"\right)^{" + str(exp) + "}"


# ============================================================================================ Theorem 1
TAU_A = tau_bar
PHI_A = (2 * sp.sqrt(beta_thm1(T)) * lemma8_sigma(TAU_A)
         + 2 * lemma8_mu_coef(TAU_A) * ybar(TAU_A, 4))  # eq. (13), ȳ_τ̄ as printed (δ/4)
ET_BOUND_TERMS = {
    "information": sp.sqrt(C1 * T * beta_thm1(T) * (T / TAU_A + 1) * gamma_tau),
    "discretisation": sp.Integer(2),
    "mismatch": T * PHI_A,
}
# (C) finite-domain variant: a₀ = M, b₀ = √2, ȳ at the global index T (G3), no "+2", τ̄_C = min{T, 3E[τ]/δ}.
# Its UCB step needs the algorithm's β_t (Theorem 1's) to cover the finite-domain event β_C(t) = 2 log(3Mπ_t/δ)
# at EVERY t ≤ T; the Max below only makes the bound's β_T an upper value at T. Where β_Thm1(t) < β_C(t) for
# some t ≤ T the form is not applicable (ledger E_C_beta; the family checks it per instance).
YBAR_C_T = sp.sqrt(2) * (1 + R) * sp.sqrt(sp.log((n_X + 1) * pi**2 * T**2 / delta))
BETA_C_T = sp.Max(beta_thm1(T), beta_finite(T, 3))
BOUND_C = (sp.sqrt(C1 * T * BETA_C_T * (T / tau_bar_C + 1) * gamma_tau_C)
           + T * (2 * sp.sqrt(BETA_C_T) * lemma8_sigma(tau_bar_C) + 2 * lemma8_mu_coef(tau_bar_C) * YBAR_C_T))

ET_SYMBOLS = {
    "T": (T, "horizon"),
    "delta": (delta, "confidence parameter δ ∈ (0,1)"),
    "R": (R, "noise standard deviation σ_n (the model's and the data's)"),
    "d": (d, "dimension: X ⊂ [0, r]^d"),
    "r": (r, "side of the box [0, r]^d containing X"),
    "a0": (a0, "Assumption 3 (3): P(sup|f| > L) ≤ a₀ exp(−(L/b₀)²)"),
    "b0": (b0, "Assumption 3 (3)"),
    "a1": (a1, "Assumption 3 (4): P(sup|∂f/∂x_j| > L) ≤ a₁ exp(−(L/b₁)²)"),
    "b1": (b1, "Assumption 3 (4)"),
    "eps": (eps, "rate of change ε ∈ [0, 1] of the Markov chain (Assumption 2)"),
    "tau_bar": (tau_bar, "τ̄ = min{T, E[τ]/δ} (Lemma 4; E[τ] by Monte Carlo)"),
    "gamma_tau_bar": (gamma_tau, "certified upper bound on γ_τ̄ (time-invariant k, noise σ_n²)"),
    "n_X": (n_X, "M = |X| of the finite domain (variant C)"),
    "tau_bar_C": (tau_bar_C, "τ̄_C = min{T, 3E[τ]/δ} of variant C"),
    "gamma_tau_bar_C": (gamma_tau_C, "certified upper bound on γ at τ̄_C"),
}

ET_CLAIMS = (
    Claim("regret_bound", "probability",
          "(A) R_T ≤ √(C₁Tβ_T(T/τ̄+1)γ_τ̄) + 2 + Tφ_T(ε,δ,τ̄) as stated (eqs. 12–13), τ̄ = min{T, Ê[τ]/δ}",
          "Theorem 1", delta, main=True),
    Claim("regret_bound_realised", "probability",
          "(B) R_T ≤ √(T C₁β_T Σ_b I_b) + Σ_{t≤T} t⁻² + Σ_t [2(σ_n⁻²+σ_n⁻⁴)N_t²g_t Y_t + 2√(β_t(3σ_n⁻²+σ_n⁻⁴)N_t²g_t)] "
          "on the realised blocks (N_t = |D_t|, g_t = 1−(1−ε)^{N_t/2}, Y_t = max_{i∈D_t}|y_i|, I_b realised)",
          "Theorem 1 proof, closed (gaps G1–G3: ledger E12, E19, E20)", delta),
    Claim("regret_bound_finite", "probability",
          "(C) finite-domain variant: a₀ = M, b₀ = √2, ȳ_T, no +2, τ̄_C = min{T, 3Ê[τ]/δ}",
          "Theorem 1, finite domain (form C)", delta),
    Claim("confidence_at_query", "probability",
          "Lemma 5 on the block data: |f_t(x_t) − μ̃_{D_t}(x_t)| ≤ √β^{(5)}_t σ̃_{D_t}(x_t) for all t ≤ T, "
          "β^{(5)}_t = 2 log(4π_t/δ) (gap G4: the block start depends on the data)", "Lemma 5 (C4, event A)",
          delta / 4),
    Claim("confidence_at_optimum", "probability",
          "Lemma 7, finite form: |f_t(x*_t) − μ̃_{D_t}(x*_t)| ≤ √β^{(7)}_t σ̃_{D_t}(x*_t) for all t ≤ T, "
          "β^{(7)}_t = 2 log(4Mπ_t/δ) (union over the grid)", "Lemma 7 (C4, event B)", delta / 4),
    Claim("bounded_observations", "probability",
          "Lemma 6: |y_t| ≤ ȳ_t = (b₀+√2σ_n)√(log(8(a₀+1)π_t/δ)) for all t ≤ T", "Lemma 6 (C5)", delta / 4),
    Claim("stopping_time", "probability",
          "Lemma 4 (corrected): τ ≤ τ̄₄ = min{T, 4Ê[τ]/δ} (τ := T without a trigger; the theorem uses δ/4)",
          "Lemma 4 (C2)", delta / 4),
    Claim("blocks_short", "probability",
          "every block is at most τ̄₄ long (what Lemma 8 with N = τ̄ needs; Lemma 4 bounds only the first)",
          "Theorem 1 proof, gap G1 (C7)", delta / 4),
    Claim("lemma8_mismatch", "deterministic",
          "at every step: max_X|σ̃_{D_t} − σ_{D_t}| ≤ √((3σ_n⁻²+σ_n⁻⁴)N_t²g_t) and "
          "max_X|μ̃_{D_t} − μ_{D_t}| ≤ (σ_n⁻²+σ_n⁻⁴)N_t²g_t max_{i∈D_t}|y_i| (same block data, true ε)",
          "Lemma 8 (C3)"),
    Claim("regret_decomposition", "deterministic",
          "where Lemmas 5 and 7 hold at t (with the algorithm's β_t): r_t ≤ 2√β_tσ(x_t) + Δ^μ(x*_t) + Δ^μ(x_t) "
          "+ √β_t(Δ^σ(x*_t) + Δ^σ(x_t)) (pointwise mismatches)", "Theorem 1 proof, eqs. (20)–(26)"),
    Claim("information_steps", "deterministic",
          "the algorithm's σ_{D_t}(x_t) equals the posterior of its data (1e−8); "
          "each block's realised I_b ≤ certified γ_{n_b}", "Theorem 1 proof, eqs. (40)–(43) (C6)"),
    # s² ≤ C₂ log(1 + s²) for s² ≤ σ_n⁻² holds for any recorded σ ≤ 1: an identity of the formula
    Claim("information_steps_identity", "identity", "Σσ² ≤ σ_n²C₂Σlog(1+σ_n⁻²σ²)",
          "Theorem 1 proof, eq. (41)"),
    Claim("algorithm_bookkeeping", "deterministic",
          "Algorithm 1 as executed: reset ⇔ ψ_t > κ_t (strict), ψ_t = |y_t − μ_{D_t}(x_t)|, "
          "κ_t = √ρ_{t'}(σ_{D_t}(x_t)+σ_n) from the pre-update posterior, t' = t − t_r, "
          "D_{t+1} = {(x_t, y_t)} after a reset and D_t ∪ {(x_t, y_t)} otherwise", "Algorithm 1, eqs. (9)–(11)"),
)

ET_CORRECTIONS = (
    Correction("E4", "eqs. (7)–(8)", "k^time_t = [(1−ε)^{|t+1−i|/2}]", "(1−ε)^{(t−i)/2} for predicting f_t from "
               "y_1..y_{t−1}", "off by one (Bogunovic et al.'s convention predicts f_{t+1})"),
    Correction("E5", "Sec. 3", "I = ½ log det(I + σ_n²K)", "½ log det(I + σ_n⁻²K)", "typo",
               changes_computation=False),
    Correction("E9", "Asm. 3 / Lemma 6", "a₀ ≥ 0 vs 'recall a₀ > 0'", "a₀ > 0 (a₀ = M on the grid)", "typo",
               changes_computation=False),
    Correction("E10", "Lemma 4", "P{τ < τ̄} ≥ 1 − δ; τ undefined without a trigger",
               "τ := T without a trigger; P{τ ≤ τ̄} ≥ 1 − δ", "the strict form fails whenever τ̄ = T = τ (no change)"),
    Correction("E11", "Theorem 1", "Lemma 4 used with δ/4 but τ̄ = min{T, E[τ]/δ}",
               "(A) keeps the printed τ̄; claims stopping_time and blocks_short use τ̄₄ = min{T, 4E[τ]/δ}",
               "Markov at level δ/4 needs E[τ]/(δ/4)"),
    Correction("E12", "Lemma 8 / Theorem 1 proof (G3)", "ȳ_N (block index) and ‖y‖₂ ≤ N ȳ_N",
               "(A) keeps ȳ_τ̄ as printed; (B) uses the realised max_{i∈D_t}|y_i|; (C) uses the global ȳ_T",
               "the data in a block are observed at global times up to T"),
    Correction("E16", "eq. (41)", "s ∈ [0, σ_n²]", "s² ∈ [0, σ_n⁻²]", "typo", changes_computation=False),
    Correction("E17", "Lemma 8 proof", "‖k‖₂ ≤ N since ‖·‖₂ ≤ N‖·‖_∞", "√N is the tight factor; (36) stays valid",
               "norm inequality", changes_computation=False),
    Correction("E19", "Theorem 1 proof (G1)", "Lemma 4 bounds every block", "claim blocks_short checks every "
               "block against τ̄₄; form (B) needs no block bound", "Lemma 4 bounds only the first stopping time"),
    Correction("E20", "Theorem 1 proof (G2)", "T/τ̄ blocks of I(y_τ̄; f_τ̄)",
               "form (B) uses the realised Σ_b I_b; the frequency of Σ_b γ_{n_b} > (T/τ̄+1)γ_τ̄ is reported",
               "short blocks make Σ_b γ_{n_b} larger than (T/τ̄+1)γ_τ̄ for concave γ"),
    Correction("E21", "Theorem 1 proof (G4)", "Lemma 5 on block data with data-dependent resets",
               "tested empirically (confidence_at_query, confidence_at_optimum)", "selection effect of the carried "
               "trigger point", changes_computation=False),
    Correction("E22", "Theorem 1 vs experiments", "β_t = c₁ log(c₂t) in the experiments",
               "the bound is checked only with the theoretical β_t; practical-β runs are 'bound not applicable'",
               "the proof's UCB step needs the algorithm's β to be the theorem's"),
    Correction("E_tau", "Theorem 1", "E[τ] has no closed form", "Ê[τ] from a pilot Monte Carlo of the theorem's "
               "algorithm on independent seeds (reported with its standard error); τ̄ = T at ε = 0, where "
               "E[τ] ≥ T(1 − Σ2Φ̄(√ρ)) ≥ δT is certified by Lemma 3's corollary",
               "the RHS is approximate (Ê[τ] is an estimate)"),
    Correction("E_gamma", "Theorem 1", "γ_τ̄ not computable", "a certified upper bound (boundcheck.model.mig)",
               "a lower estimate would make the check unsound"),
    Correction("E_C_beta", "Theorem 1, finite-domain variant (C)",
               "the algorithm's β_t (Theorem 1's) serves the finite-domain confidence event",
               "β_T = Max(β_Thm1(T), β_C(T)) with β_C(t) = 2 log(Mπ²t²/(2δ)) (union over the M points, δ/3); "
               "form (C) is 'not applicable' (outside the verdict, with the first uncovered t) unless "
               "β_Thm1(t) ≥ β_C(t) at every t ≤ T",
               "the UCB step at t needs the algorithm's β_t ≥ β_C(t) at that t, which a Max at T does not ensure: "
               "on a 3 000-point 1-d grid (ℓ = 0.2, δ = 0.1) β_Thm1(t) < β_C(t) for t = 1–5"),
    Correction("E_asm3", "Assumption 3", "a₀, b₀, a₁, b₁ not given",
               "(3) on the grid by a union bound: a₀ = M, b₀ = √2; (4) by Borell–TIS: b₁ = 2√2/l, "
               "a₁ = max{1, exp(m₁²l²/2)} with m₁ = E sup|∂f/∂x_j| estimated by Monte Carlo (upper value)",
               "numbers needed for β_t and ȳ (Assumption 3); a₁ is approximate and reported"),
)

ET_ASSUMPTIONS = (
    Assumption("f_t follows the ε Markov chain of Assumption 2 with the model's kernel, drawn fresh per run",
               "truth_in_candidates"),
    Assumption("k stationary with k(x, x) ≤ 1", "kernel_bounded_by_one"),
    Assumption("noise i.i.d. N(0, σ_n²) with the σ_n the algorithm uses (Assumption 1)", "noise_matches"),
    Assumption("X ⊂ [0, r]^d with the Assumption-3 constants of the scenario's kernel", "assumption3_constants"),
    Assumption("β_t is Theorem 1's schedule (not the practical c₁ log(c₂t))", "tv_theoretical_schedules"),
)

ET_THEOREM = Theorem(
    id="et_gp_ucb",
    title="ET-GP-UCB regret bound (time-varying GP bandit with event-triggered resets)",
    paper="001_5b9a9c576ac10a30.txt",
    source="Brunzema, von Rohr, Solowjow, Trimpe (2022), Theorem 1",
    guarantee="high_probability",
    symbols=ET_SYMBOLS,
    bound_terms=ET_BOUND_TERMS,
    printed=(r"R_T \le \sqrt{C_1 T \beta_T (T/\bar\tau + 1)\gamma_{\bar\tau}} + 2 "
             r"+ T\phi_T(\varepsilon,\delta,\bar\tau)"),
    schedules={
        "beta_t": beta_thm1(t), "width_t": sp.sqrt(beta_thm1(t)), "C1": C1, "C2": C2,
        "beta_lemma5_t": beta_lemma5(t, 4), "beta_lemma7_t": beta_finite(t, 4), "ybar_t": ybar(t, 4),
        "lemma8_sigma_N": lemma8_sigma(t), "lemma8_mu_coef_N": lemma8_mu_coef(t),
        "lemma8_sigma_previous_N": lemma8_sigma_previous(t), "lemma8_sigma_trivial_N": lemma8_sigma_trivial(t),
        "phi_T": PHI_A, "bound_C": BOUND_C, "beta_finite_t": beta_finite(t, 3),
    },
    assumptions=ET_ASSUMPTIONS,
    claims=ET_CLAIMS,
    corrections=ET_CORRECTIONS,
    default_scenario="tv_grid2d_eps003",
    scenarios=("tv_grid2d_eps001", "tv_grid2d_eps003", "tv_grid2d_eps005", "tv_grid2d_static",
               "tv_grid20_eps003", "tv_line_static", "tv_line_eps003"),
    algorithms=("et_gp_ucb", "r_gp_ucb_tv", "tv_gp_ucb", "gp_ucb"),
    domains={"eps": Domain(0, 1), "d": Domain(1, integer=True), "tau_bar": Domain(1), "tau_bar_C": Domain(1)},
    constraints=(sp.Le(tau_bar, T), sp.Le(tau_bar_C, T)),
    notes=("For every ε > 0 of the experiments the bound is vacuous: the mismatch term Tφ_T is "
           "10⁷–10¹² while R_T ≈ 10². The report gives RHS/R_T and the ratio to the trivial bound 2Σ_t max|f_t|.",
           "At ε = 0, φ_T = 0 and τ̄ = T: (A) is √(2C₁Tβ_Tγ_T) + 2, Srinivas' Theorem 2 up to √2 and the β.",),
)


# ============================================================================================ Theorem 2
PHI_2 = 2 * sp.sqrt(beta_thm2(T)) * lemma8_sigma(N) + 2 * lemma8_mu_coef(N) * ybar(T, 3)
R_BOUND_TERMS = {
    "information": sp.sqrt(C1 * T * beta_thm2(T) * (T / N + 1) * gamma_N),
    "discretisation": sp.Integer(2),
    "mismatch": T * PHI_2,
}
# the printed Theorem 2 (eq. 46–47): β with δ/2, ȳ_N with 2(a₀+1)π²N²/(3δ)
R_BOUND_PRINTED = (sp.sqrt(C1 * T * beta_thm2_printed(T) * (T / N + 1) * gamma_N) + 2
                   + T * (2 * sp.sqrt(beta_thm2_printed(T)) * lemma8_sigma(N)
                          + 2 * lemma8_mu_coef(N) * (b0 + sp.sqrt(2) * R)
                          * sp.sqrt(sp.log(2 * (a0 + 1) * pi**2 * N**2 / (3 * delta)))))

R_SYMBOLS = {k: v for k, v in ET_SYMBOLS.items() if k in ("T", "delta", "R", "d", "r", "a0", "b0", "a1", "b1",
                                                          "eps", "n_X")}
R_SYMBOLS["N"] = (N, "reset period N (Bogunovic et al.: ⌈min{T, 12ε^{−1/4}}⌉)")
R_SYMBOLS["gamma_N"] = (gamma_N, "certified upper bound on γ_N (time-invariant k, noise σ_n²)")

R_CLAIMS = (
    Claim("regret_bound", "probability",
          "R_T ≤ √(C₁Tβ_T(T/N+1)γ_N) + 2 + Tφ_T(ε,δ,N) with the δ-budget corrected (δ/3 per event, ȳ_T)",
          "Theorem 2 (corrected: ledger R13, R14)", delta, main=True),
    Claim("regret_bound_printed", "probability",
          "the printed form: β_t with δ/2 (eq. 45), ȳ_N with 2(a₀+1)π²N²/(3δ) (N̄ read as N)",
          "Theorem 2 as printed", delta),
    Claim("regret_bound_realised", "probability",
          "(B) on the realised blocks of length ≤ N (as for Theorem 1)", "Theorem 2 proof, closed (form B)",
          delta),
    Claim("confidence_at_query", "probability",
          "Lemma 5 on the block data (exact here: resets do not depend on the data), level δ/3",
          "Lemma 5 (C4 positive control)", delta / 3),
    Claim("confidence_at_optimum", "probability", "Lemma 7, finite form, level δ/3", "Lemma 7 (C4)", delta / 3),
    Claim("bounded_observations", "probability", "Lemma 6 with δ/3: |y_t| ≤ ȳ_t for all t ≤ T", "Lemma 6 (C5)",
          delta / 3),
    Claim("lemma8_mismatch", "deterministic", "Lemma 8 at every step (N_t = |D_t| ≤ N)", "Lemma 8 (C3)"),
    Claim("regret_decomposition", "deterministic",
          "where Lemmas 5 and 7 hold at t: r_t ≤ 2√β_tσ(x_t) + pointwise mismatches (eq. 26)", "Theorem 2 proof"),
    Claim("information_steps", "deterministic",
          "σ_{D_t}(x_t) as recorded equals the posterior of the data (1e−8); eq. (40); each block's "
          "I_b ≤ γ_N; Σ_b I_b ≤ (T/N + 1)γ_N", "Theorem 2 proof (G2 does not arise: blocks have length N)"),
    Claim("information_steps_identity", "identity", "Σσ² ≤ σ_n²C₂Σlog(1+σ_n⁻²σ²)",
          "Theorem 2 proof, eq. (41)"),
    Claim("reset_schedule", "deterministic",
          "R-GP-UCB forgets everything at t = kN + 1 before choosing x_t: |D_t| = (t − 1) mod N", "Bogunovic et al. "
          "2016, R-GP-UCB; N = ⌈min{T, 12ε^{−1/4}}⌉ (Prop. 4.1)"),
)

R_CORRECTIONS = (
    Correction("R13", "Theorem 2", "ȳ_N contains N̄", "N", "typo", changes_computation=False),
    Correction("R14", "Theorem 2", "δ/2 (Lemma 7) + δ/2 (Lemma 6) + Lemma 5 > δ",
               "δ/3 each: β_t = 2log(π²t²/δ) + 2d log(t²db₁r√log(da₁π²t²/δ)), ȳ at the global T (G3)",
               "the printed budget exceeds δ; the printed form is checked as its own claim"),
    Correction("R_fn6", "Bogunovic et al. Thm 4.2 (footnote 6)", "T ψ_T",
               "T φ_T, where φ_T = 2√β_T Δ^σ + 2 Δ^μ ȳ already counts each mismatch twice (x_t and x*_t; "
               "eq. 26), so the term is not doubled again",
               "the seed notes both mismatches enter twice; φ_T (eq. 13 / PHI_2 here) carries that factor 2",
               changes_computation=False),
    Correction("R_reset", "R-GP-UCB", "when the reset happens", "[PROPOSED] D_t = ∅ at t = kN + 1 before x_t is "
               "chosen", "blocks {1..N}, {N+1..2N}, …", changes_computation=False),
)

R_THEOREM = Theorem(
    id="et_r_gp_ucb",
    title="R-GP-UCB regret bound with the improved mismatch bound (fixed reset period N)",
    paper="001_5b9a9c576ac10a30.txt",
    source="Brunzema, von Rohr, Solowjow, Trimpe (2022), Theorem 2 (App. E)",
    guarantee="high_probability",
    symbols=R_SYMBOLS,
    bound_terms=R_BOUND_TERMS,
    printed=r"R_T \le \sqrt{C_1 T \beta_T (T/N + 1)\gamma_N} + 2 + T\phi_T(\varepsilon,\delta,N)",
    schedules={
        "beta_t": beta_thm2(t), "width_t": sp.sqrt(beta_thm2(t)), "C1": C1, "C2": C2,
        "beta_lemma5_t": beta_lemma5(t, 3), "beta_lemma7_t": beta_finite(t, 3), "ybar_t": ybar(t, 3),
        "lemma8_sigma_N": lemma8_sigma(t), "lemma8_mu_coef_N": lemma8_mu_coef(t),
        "bound_printed": R_BOUND_PRINTED, "beta_printed_t": beta_thm2_printed(t),
    },
    assumptions=(*ET_ASSUMPTIONS[:4],
                 Assumption("β_t is Theorem 2's schedule (not the practical c₁ log(c₂t))", "tv_theoretical_schedules")),
    claims=R_CLAIMS,
    corrections=R_CORRECTIONS,
    default_scenario="tv_grid2d_eps003",
    scenarios=ET_THEOREM.scenarios,
    algorithms=("r_gp_ucb_tv", "et_gp_ucb", "tv_gp_ucb", "gp_ucb"),
    domains={"eps": Domain(0, 1), "d": Domain(1, integer=True), "N": Domain(1, integer=True)},
    constraints=(sp.Le(N, T),),
)


# ========================================================================================= TV-GP-UCB
def beta_tv(s: sp.Expr) -> sp.Expr:
    """Finite-domain β_t = 2 log(|D| π² t²/(6δ)): the union over x ∈ D and t of the exact Kalman predictive law."""
    return 2 * sp.log(n_X * pi**2 * s**2 / (6 * delta))


TV_SYMBOLS = {
    "T": (T, "horizon"),
    "delta": (delta, "confidence parameter δ ∈ (0,1)"),
    "R": (R, "noise standard deviation σ_n"),
    "n_X": (n_X, "|D|, size of the finite domain"),
    "gamma_T": (gamma_T, "certified upper bound on the time-varying γ̃_T (one point per time, kernel "
                         "k(x,x')(1−ε)^{|t−s|/2}, noise σ_n²)"),
}

TV_CLAIMS = (
    Claim("regret_bound", "probability", "R_T ≤ √(C₁ T β_T γ̃_T)", "TV-GP-UCB, finite domain", delta, main=True),
    Claim("regret_bound_anytime", "probability", "R_t ≤ √(C₁ t β_t γ̃_t) for every t ≤ T (uniform in T)",
          "TV-GP-UCB, finite domain", delta, main=True),
    Claim("confidence_event", "probability",
          "|f_t(x) − μ̃_{t−1}(x)| ≤ √β_t σ̃_{t−1}(x) for all x ∈ D, t ≤ T (Kalman posterior with the true ε)",
          "Lemma 5.1 on the spatio-temporal GP", delta),
    Claim("D1_optimism", "deterministic",
          "on the confidence event at t: UCB_{t−1}(x_t) ≥ max f_t and r_t ≤ 2√β_t σ̃_{t−1}(x_t)", "Lemma 5.2"),
    Claim("D2_intermediate", "deterministic",
          "on the confidence event: Σr² ≤ 4β_tΣσ̃² ≤ C₁β_t·½Σlog(1+σ⁻²σ̃²), R_t ≤ √(C₁tβ_tγ̃_t)",
          "Lemma 5.4"),
    # R_t ≤ √(tΣr²) holds for any numbers: an identity, outside the verdict
    Claim("D2_cauchy_schwarz", "identity", "R_t ≤ √(tΣ_{s≤t}r_s²) (Cauchy–Schwarz)", "Lemma 5.4"),
    Claim("D3_information", "deterministic",
          "chain rule ½Σlog(1+σ⁻²σ̃²_{s−1}(x_s)) = ½log|I+σ⁻²K̃_t| on the spatio-temporal Gram (1e−8) and "
          "0 ≤ realised gain ≤ certified γ̃_t", "Lemma 5.3"),
    Claim("K1_calibration", "calibration",
          "innovations (y_t − μ̃_{t−1}(x_t))/√(σ̃²_{t−1}(x_t)+σ²) are i.i.d. N(0,1)", "exact Kalman posterior"),
)

TV_THEOREM = Theorem(
    id="tv_gp_ucb",
    title="TV-GP-UCB regret bound (ε Markov chain, finite domain, certified time-varying γ̃_T)",
    paper="(Bogunovic, Scarlett, Cevher 2016, AISTATS; as used by Brunzema et al. 2022, Sec. 3–4)",
    source="Bogunovic, Scarlett, Cevher (2016), TV-GP-UCB (finite-domain form)",
    reference="Ilija Bogunovic, Jonathan Scarlett, Volkan Cevher (2016). Time-Varying Gaussian Process Bandit "
              "Optimization. AISTATS 2016 (PMLR 51), arXiv:1601.06650",
    guarantee="high_probability",
    symbols=TV_SYMBOLS,
    bound_terms={"information": sp.sqrt(C1 * T * beta_tv(T) * gamma_T)},
    anytime_terms={"information": sp.sqrt(C1 * t * beta_tv(t) * gamma_t)},
    printed=r"R_T \le \sqrt{C_1 T \beta_T \tilde\gamma_T} + 2,\quad \tilde\gamma_T \le (T/\tilde N + 1)"
            r"(\gamma_{\tilde N} + \sigma^{-2}\tilde N^3\varepsilon)",
    schedules={"beta_t": beta_tv(t), "width_t": sp.sqrt(beta_tv(t)), "C1": C1},
    assumptions=(
        Assumption("f_t follows the ε chain with the model's kernel", "truth_in_candidates"),
        Assumption("TV-GP-UCB is told the true ε", "told_true_eps"),
        Assumption("finite domain D", "finite_domain"),
        Assumption("k(x, x) ≤ 1", "kernel_bounded_by_one"),
        Assumption("noise i.i.d. N(0, σ²) with the σ the model uses", "noise_matches"),
        Assumption("β_t is the theoretical schedule", "tv_theoretical_schedules"),
    ),
    claims=TV_CLAIMS,
    corrections=(
        Correction("TV1", "Bogunovic et al. (continuous X)", "β_t with a discretisation term and + 2",
                   "finite D: Srinivas' Theorem-1 argument on the spatio-temporal GP (f_t(x) | y_{1:t−1} is exactly "
                   "N(μ̃, σ̃²) under the Kalman filter), no + 2", "the grid is the domain here [DERIVED]"),
        Correction("TV2", "γ̃_T", "(T/Ñ+1)(γ_Ñ + σ⁻²Ñ³ε) [CITED]", "the certified bracket of boundcheck.model.mig "
                   "(its 'block' method is a proved variant of this bound)", "one certified upper bound"),
        Correction("E4", "eqs. (7)–(8) of seed 001", "exponent |t+1−i|/2", "(t−i)/2 (Kalman predict per step)",
                   "off by one"),
    ),
    default_scenario="tv_grid2d_eps003",
    scenarios=ET_THEOREM.scenarios,
    algorithms=("tv_gp_ucb", "et_gp_ucb", "r_gp_ucb_tv", "gp_ucb"),
)


# ======================================================================================== Lemma 3
TRIGGER_CLAIMS = (
    Claim("false_reset", "probability",
          "no trigger in [1, T] under ε = 0 (any reset is false): P ≤ δ_B", "Lemma 3", delta, main=True),
    Claim("false_reset_sharp", "probability",
          "the same event: P ≤ Σ_{t'} 2Φ̄(√ρ_{t'}) (≈ 0.0124 at δ_B = 0.1)", "Lemma 3, exact-model corollary "
          "(Lemma 3's union bound) [DERIVED]", FalseAlarmSum(delta)),
    Claim("lemma1_part", "probability",
          "|f(x_t) − μ_{D_t}(x_t)| ≤ √ρ_{t'} σ_{D_t}(x_t) for all t up to the first trigger", "Lemma 1 with δ_B/2",
          delta / 2),
    Claim("lemma2_part", "probability",
          "|w_t| ≤ w̄_{t'} = σ_n√ρ_{t'} for all t up to the first trigger", "Lemma 2 with δ_B/2", delta / 2),
    Claim("trigger_bookkeeping", "deterministic",
          "Algorithm 1 as executed (strict >, pre-update κ, t' = t − t_r, the triggering point kept)",
          "Algorithm 1, eqs. (9)–(11)"),
    Claim("K1_calibration", "calibration",
          "until the first trigger, (y_t − μ_{D_t}(x_t))/√(σ²_{D_t}(x_t)+σ_n²) are i.i.d. N(0,1)",
          "exact posterior under ε = 0"),
)

TRIGGER_THEOREM = Theorem(
    id="et_trigger",
    title="ET-GP-UCB event trigger under no change (Lemma 3 and its exact corollary)",
    paper="001_5b9a9c576ac10a30.txt",
    source="Brunzema, von Rohr, Solowjow, Trimpe (2022), Lemma 3",
    guarantee="high_probability",
    symbols={"T": (T, "horizon"), "delta": (delta, "the trigger parameter δ_B ∈ (0, 1) (the study's δ)"),
             "R": (R, "noise standard deviation σ_n")},
    bound_terms={"false_alarm_level": FalseAlarmSum(delta)},
    printed=r"\mathbb P\{|y_t-\mu_{\mathcal D_t}(x_t)| \le \sqrt{\rho_{t'}}\sigma_{\mathcal D_t}(x_t)+\bar w_{t'}\ "
            r"\forall t'\} \ge 1-\delta_B",
    schedules={"rho_t": rho(t, delta), "wbar_t": R * sp.sqrt(rho(t, delta)), "false_alarm_level": FalseAlarmSum(delta)},
    assumptions=(
        Assumption("no change: ε = 0 (Lemma 3's premise)", "static_truth"),
        Assumption("f ~ GP(0, k) with the model's kernel, drawn fresh per run", "truth_in_candidates"),
        Assumption("noise i.i.d. N(0, σ_n²) with the σ_n the trigger uses", "noise_matches"),
        Assumption("k(x, x) ≤ 1", "kernel_bounded_by_one"),
    ),
    claims=TRIGGER_CLAIMS,
    corrections=(
        Correction("E_kappa", "eqs. (10)–(11)", "κ_t = √ρ_{t'}σ + w̄_{t'}",
                   "κ_t = √ρ_{t'}(σ + σ_n) (w̄_{t'} = σ_n√ρ_{t'})", "identical [DERIVED]", changes_computation=False),
        Correction("E25", "Sec. 4", "t' 'time since the previous reset'", "t' = t − t_r (t_r = 0 before any reset)",
                   "[PROPOSED]; logged per step", changes_computation=False),
        Correction("E36", "Lemmas 1, 3 after a reset", "exact posterior after a reset",
                   "the claims cover the first segment only (up to the first trigger)",
                   "after a reset the data set is a data-selected subset"),
    ),
    default_scenario="tv_grid2d_static",
    scenarios=("tv_grid2d_static", "tv_grid20_static", "tv_line_static"),
    controls=("tv_grid20_static_lengthscale", "tv_grid20_static_noise"),
    algorithms=("et_gp_ucb", "gp_ucb"),
    notes=("Lemma 3 holds for any β (x_t only has to be history-measurable); the study runs the scenario's β.",
           "Compensator: p_t = 2Φ̄(κ_t/√(σ²_{D_t}(x_t)+σ_n²)) is the exact conditional trigger "
           "probability under the model, so E[Σ_{t≤τ} p_t] = P(any false reset) (tower property). Its run average is "
           "the low-variance estimate of P(E) reported beside the 0/1 indicator (runs column `compensator`). It is "
           "not a separate verdict: p_t ≤ 2Φ̄(√ρ_t) holds by construction, and the agreement it rests on is tested "
           "by K1_calibration (the model) and trigger_bookkeeping (the recorded κ is the one used).",),
)

THEOREMS = (ET_THEOREM, R_THEOREM, TV_THEOREM, TRIGGER_THEOREM)


# ==============================================================================================================
# The paper's experimental claims (what ``boundcheck reproduce`` checks), as data.
#
# The experimental claims of paper 001 (Brunzema et al. 2022, ET-GP-UCB), §5 and App. B, as data.
#
# Three experiments: the within-model comparison (Fig. 2, ``fig2``), the sensitivity to δ_B (Table 2, ``table2``:
# the only numbers the paper prints) and the stopping-time distribution (Table 3 / Fig. 4, ``table3``). Orderings
# are one-sided paired tests on identical function paths and noise; Table 2's numbers are interval claims whose
# bands are boundcheck's reading of the paper's precision [PROPOSED], stated in each claim's note.
#
# Algorithm names are boundcheck's policy ids: ``et_gp_ucb``, ``r_gp_ucb_tv`` (R-GP-UCB, reset before the block's
# first choice), ``r_gp_ucb_after`` (the other reading of the reset), ``tv_gp_ucb``, ``gp_ucb``.
# ==============================================================================================================
PAPER = "et_gp_ucb"
ET, EMP_R, RA, TV, GP = "et_gp_ucb", "r_gp_ucb_tv", "r_gp_ucb_after", "tv_gp_ucb", "gp_ucb"

_FIG2 = "§5 'Within-model comparison', Fig. 2"
_ALWAYS = "The adaptive resetting of ET-GP-UCB always outperforms periodic resetting."
_REF = ("TV-GP-UCB ... is the reference case with full information ... the best performance an UCB algorithm can "
        "obtain")
_D = ("ET-GP-UCB outperforms TV-GP-UCB and R-GP-UCB, which slowly diverge shown by the increase in normalized "
      "regret over time")
_AFTER = ("R-GP-UCB with the other reading of 'reset every N' (the block's first point chosen from the old data and "
          "kept; §5's 'reset every N' reads both ways): the paper does not say which it ran")


def _c(id, experiment, location, wording, reading, kind, metric, subject, others=(), **kw) -> EmpiricalClaim:
    return EmpiricalClaim(id=id, paper=PAPER, experiment=experiment, location=location, wording=wording,
                          reading=reading, kind=kind, metric=metric, subject=subject, others=tuple(others), **kw)


def _fig2_panel(p: str) -> tuple[EmpiricalClaim, ...]:
    return (
        _c(f"fig2{p}_et_beats_r", "fig2", _FIG2, _ALWAYS, f"({p}) E[R_T(ET) − R_T(R-GP-UCB)] < 0", "less", "regret",
           ET, [EMP_R], panels=(p,)),
        _c(f"fig2{p}_et_beats_r_after", "fig2", _FIG2, _ALWAYS,
           f"({p}) E[R_T(ET) − R_T(R-GP-UCB, reset after the choice)] < 0", "less", "regret", ET, [RA], panels=(p,),
           note=_AFTER),
        _c(f"fig2{p}_tv_lowest", "fig2", _FIG2, _REF, f"({p}) R_T(TV-GP-UCB) below ET, R-GP-UCB and GP-UCB in mean",
           "lowest", "regret", TV, [ET, EMP_R, GP], panels=(p,)),
        _c(f"fig2{p}_et_beats_gp", "fig2", _FIG2, "GP-UCB ... performs worst (Fig. 2 a–c)",
           f"({p}) E[R_T(ET) − R_T(GP-UCB)] < 0", "less", "regret", ET, [GP], panels=(p,)),
        _c(f"fig2{p}_r_beats_gp", "fig2", _FIG2, "GP-UCB ... performs worst (Fig. 2 a–c)",
           f"({p}) E[R_T(R-GP-UCB) − R_T(GP-UCB)] < 0", "less", "regret", EMP_R, [GP], panels=(p,)),
    )


FIG2 = (
    *_fig2_panel("a"), *_fig2_panel("b"), *_fig2_panel("c"),
    _c("fig2d_et_beats_r", "fig2", _FIG2, _D, "(d) E[R_T(ET) − R_T(R-GP-UCB, N = 68)] < 0", "less", "regret", ET,
       [EMP_R], panels=("d",)),
    _c("fig2d_et_beats_r_after", "fig2", _FIG2, _D, "(d) E[R_T(ET) − R_T(R-GP-UCB, N = 68, reset after)] < 0",
       "less", "regret", ET, [RA], panels=("d",), note=_AFTER),
    _c("fig2d_et_beats_tv", "fig2", _FIG2, _D, "(d) E[R_T(ET) − R_T(TV-GP-UCB told ε = 0.001)] < 0", "less",
       "regret", ET, [TV], panels=("d",)),
    _c("fig2d_tv_diverges", "fig2", _FIG2, _D, "(d) E[R_T/T − R_{T/2}/(T/2)] > 0 for TV-GP-UCB (R_t/t grows)",
       "above", "col:norm_regret_growth", TV, panels=("d",), threshold=0.0,
       note="'slowly diverge' read as: the normalised regret is higher at T than at T/2"),
    _c("fig2d_r_diverges", "fig2", _FIG2, _D, "(d) E[R_T/T − R_{T/2}/(T/2)] > 0 for R-GP-UCB (R_t/t grows)",
       "above", "col:norm_regret_growth", EMP_R, panels=("d",), threshold=0.0,
       note="'slowly diverge' read as: the normalised regret is higher at T than at T/2"),
)

#: Table 2 of the paper: (ε, δ_B) → (average number of resets, average R_400)
TABLE2 = {
    (0.01, 0.005): (2.66, 191.39), (0.01, 0.01): (2.96, 193.05), (0.01, 0.05): (3.20, 200.16),
    (0.01, 0.1): (3.38, 200.33), (0.01, 0.5): (3.98, 196.03),
    (0.03, 0.005): (6.42, 276.84), (0.03, 0.01): (6.82, 273.37), (0.03, 0.05): (7.72, 269.01),
    (0.03, 0.1): (8.04, 271.59), (0.03, 0.5): (10.32, 280.05),
    (0.05, 0.005): (9.60, 331.69), (0.05, 0.01): (9.96, 328.74), (0.05, 0.05): (11.40, 329.47),
    (0.05, 0.1): (11.88, 332.04), (0.05, 0.5): (14.44, 334.80),
}
#: Table 2's equivalence margins. The paper's printed numbers are themselves 50-run means with a sampling error
#: of their own (it prints none): an exact re-run of its procedure, 50 fresh runs, would miss each printed mean by
#: a normal variable of sd √2·σ/√50, σ the per-run sd (≈ 45 for R_400, ≈ 2 for the resets in our runs). A margin
#: of 3 such sd leaves a faithful replication outside it with probability ≈ 0.3 % per row, and it is wide enough
#: that the paper's own 50 runs resolve it (the simultaneous interval's half-width at 50 runs, ≈ 3.4·σ/√50, is
#: below it); the former ±0.5 resets / ±15 regret were narrower than 50 runs can resolve, so every row was
#: "inconclusive" whatever the data. [PROPOSED]
TABLE2_RUNS, TABLE2_SD = 50, {"resets": 2.0, "regret": 45.0}
RESET_BAND = round(3 * math.sqrt(2.0 / TABLE2_RUNS) * TABLE2_SD["resets"], 1)  # 1.2
REGRET_BAND = round(3 * math.sqrt(2.0 / TABLE2_RUNS) * TABLE2_SD["regret"], 0)  # 27
_T2 = "App. B, Table 2"
_BAND_NOTE = ("equivalence margin ± {w:g} [PROPOSED]: 3 standard deviations of the difference between two 50-run "
              "means (per-run sd ≈ {sd}), i.e. how far a faithful re-run of the paper's 50 runs may land from its "
              "printed mean; 50 runs resolve it (theory.et_gp_ucb, TABLE2_SD)")


def _p(e: float, d: float) -> str:
    return f"eps{e:g}_dB{d:g}"


TABLE2_CLAIMS = tuple(
    claim for (e, d), (res, reg) in TABLE2.items() for claim in (
        _c(f"t2_resets_{_p(e, d)}", "table2", _T2, f"Avg. No. of Resets = {res:.2f} (ε = {e:g}, δ_B = {d:g})",
           f"E[resets] within {res:.2f} ± {RESET_BAND:g}", "interval", "col:n_resets", ET, panels=(_p(e, d),),
           band=(round(res - RESET_BAND, 6), round(res + RESET_BAND, 6)),
           note=_BAND_NOTE.format(w=RESET_BAND, sd="1.5–2.5")),
        _c(f"t2_regret_{_p(e, d)}", "table2", _T2, f"Avg. Regret R_T = {reg:.2f} (ε = {e:g}, δ_B = {d:g})",
           f"E[R_400] within {reg:.2f} ± {REGRET_BAND:g}", "interval", "regret", ET, panels=(_p(e, d),),
           band=(round(reg - REGRET_BAND, 6), round(reg + REGRET_BAND, 6)),
           note=_BAND_NOTE.format(w=REGRET_BAND, sd="40–50")),
    )) + tuple(
    _c(f"t2_resets_increase_eps{e:g}", "table2", _T2,
       "As δ_B is increased, the average number of resets increases as the probabilistic uniform error bound is "
       "softened.", f"resets increase across δ_B = 0.005 … 0.5 at ε = {e:g} (per-run slope over the ordered panels)",
       "increasing", "col:n_resets", ET, panels=tuple(_p(e, d) for d in (0.005, 0.01, 0.05, 0.1, 0.5)))
    for e in (0.01, 0.03, 0.05))

TABLE3_CLAIMS = (
    _c("t3_tau_decreases_with_eps", "table3", "§6, Fig. 4",
       "the time between reset can vary significantly as it does not consider the expected changes ... but "
       "rather the realized changes", "E[τ] (first trigger) is smaller at ε = 0.1 than at ε = 0.03",
       "decreasing", "col:tau_first", ET, panels=("eps0.03", "eps0.1"),
       note="the figure's two rates of change: faster change, earlier trigger (Fig. 4, §5)"),
)

EMPIRICAL = FIG2 + TABLE2_CLAIMS + TABLE3_CLAIMS


# ==============================================================================================================
# Theorem 1 on the continuum (``et_gp_ucb_compact``): X = [low, high]^d ⊂ [0, r]^d (translated), f_t the ε chain
# of GP(0, k) paths, x_t the UCB's argmax over the box, β_t Theorem 1's with its discretisation term. Lemma 7 at
# δ/4 splits into two δ/8 events (π_t = π²t²/6, Σ1/π_t = 1):
#   * Lipschitz, per step: P{∃t, j: sup|∂f_t/∂x_j| > L_t} ≤ Σ_t d a₁ e^{−(L_t/b₁)²} = δ/8 at
#     L_t = b₁√(ln(8da₁π_t/δ)) = b₁√(ln(4da₁π²t²/(3δ))) (each f_t is marginally GP(0, k): Assumption 3 at every t);
#   * the TV posterior on D_t = the ϑ_t^d cell centres (‖x − [x]_t‖₁ ≤ rd/ϑ_t, ϑ_t = rdt²L_t, so L_t rd/ϑ_t = 1/t²):
#     Σ_t ϑ_t^d e^{−β_t/2} = δ/8 iff β_t = 2 ln(8π_t/δ) + 2d ln ϑ_t = Theorem 1's β_t exactly.
# D_t: the cell-centred grid with n_t = ⌈ϑ_t/2⌉ points per side (‖x − [x]_t‖₁ ≤ dr/(2n_t) ≤ rd/ϑ_t; |D_t| ≤ ϑ_t^d
# when ϑ_t ≥ 1: the constraint ϑ_1 ≥ 1). a₀ and a₁ enter as ln a (a Borell–TIS a = e^{m²/(2s²)} may overflow).
# ==============================================================================================================
log_a0 = sp.Symbol("log_a0", nonnegative=True)  # ln a₀ of Assumption 3 (3) (a₀ ≥ 1)
log_a1 = sp.Symbol("log_a1", nonnegative=True)  # ln a₁ of Assumption 3 (4) (a₁ ≥ 1)


def compact_lipschitz_level(s: sp.Expr) -> sp.Expr:
    """L_t = b₁√(ln(4da₁π²t²/(3δ))): sup|∂f_t/∂x_j| ≤ L_t for every j and t except with probability δ/8."""
    return b1 * sp.sqrt(sp.log(4 * d * pi**2 * s**2 / (3 * delta)) + log_a1)


def compact_vartheta(s: sp.Expr) -> sp.Expr:
    """ϑ_t = t²db₁r√(ln(4da₁π²t²/(3δ))) = rdt²L_t: L_t·rd/ϑ_t = 1/t², |D_t| ≤ ϑ_t^d."""
    return d * s**2 * r * compact_lipschitz_level(s)


def compact_beta_confidence(s: sp.Expr) -> sp.Expr:
    """The confidence part of Theorem 1's β_t: 2 ln(4π²t²/(3δ)) = 2 ln(8π_t/δ) (Lemma 7's grid event at δ/8)."""
    return 2 * sp.log(4 * pi**2 * s**2 / (3 * delta))


def compact_beta_discretisation(s: sp.Expr) -> sp.Expr:
    """The discretisation part: 2d ln ϑ_t = 2 ln |D_t|."""
    return 2 * d * sp.log(compact_vartheta(s))


def compact_beta(s: sp.Expr) -> sp.Expr:
    """Theorem 1's β_t = 2 ln(4π²t²/(3δ)) + 2d ln(t²db₁r√(ln(4da₁π²t²/(3δ)))) (beta_thm1 with a₁ = e^{log_a1})."""
    return compact_beta_confidence(s) + compact_beta_discretisation(s)


def compact_ybar(s: sp.Expr) -> sp.Expr:
    """Lemma 6 at δ/4: ȳ_s = (b₀ + √2σ_n)√(ln(8(a₀+1)π_s/δ)), ln(a₀ + 1) = ln a₀ + ln(1 + e^{−ln a₀})."""
    return (b0 + sp.sqrt(2) * R) * sp.sqrt(sp.log(4 * pi**2 * s**2 / (3 * delta)) + log_a0
                                           + sp.log(1 + sp.exp(-log_a0)))


COMPACT_PHI = 2 * sp.sqrt(compact_beta(T)) * lemma8_sigma(tau_bar) + 2 * lemma8_mu_coef(tau_bar) * compact_ybar(tau_bar)
COMPACT_BOUND_TERMS = {
    "information": sp.sqrt(C1 * T * compact_beta(T) * (T / tau_bar + 1) * gamma_tau),
    "discretisation": sp.Integer(2),
    "mismatch": T * COMPACT_PHI,
}

COMPACT_SYMBOLS = {
    "T": (T, "horizon"),
    "delta": (delta, "confidence parameter δ ∈ (0,1)"),
    "R": (R, "noise standard deviation σ_n (the model's and the data's)"),
    "d": (d, "dimension: X ⊂ [0, r]^d"),
    "r": (r, "side of the box (high − low; X translated into [0, r]^d)"),
    "log_a0": (log_a0, "ln a₀ of Assumption 3 (3): P(sup_X|f| > L) ≤ a₀ e^{−(L/b₀)²}, a₀ ≥ 1"),
    "b0": (b0, "b₀ of Assumption 3 (3)"),
    "log_a1": (log_a1, "ln a₁ of Assumption 3 (4): P(sup_X|∂f/∂x_j| > L) ≤ a₁ e^{−(L/b₁)²}, a₁ ≥ 1"),
    "b1": (b1, "b₁ of Assumption 3 (4)"),
    "eps": (eps, "rate of change ε ∈ [0, 1] of the chain (Assumption 2)"),
    "tau_bar": (tau_bar, "τ̄ = min{T, E[τ]/δ} (Lemma 4; E[τ] by a pilot Monte Carlo on the box, T at ε = 0)"),
    "gamma_tau_bar": (gamma_tau, "certified upper bound on γ_τ̄ over the box (time-invariant k, noise σ_n²)"),
}

COMPACT_CLAIMS = (
    Claim("regret_bound", "probability",
          "(A) R_T ≤ √(C₁Tβ_T(T/τ̄+1)γ_τ̄) + 2 + Tφ_T(ε,δ,τ̄) as stated (eqs. 12–13), r_t = max_X f_t − f_t(x_t) "
          "against the certified maximum of each f_t on the box", "Theorem 1", delta, main=True),
    Claim("confidence_at_query", "probability",
          "Lemma 5 on the block data: |f_t(x_t) − μ̃_{D_t}(x_t)| ≤ √β^{(5)}_t σ̃_{D_t}(x_t) for all t ≤ T, "
          "β^{(5)}_t = 2 log(4π_t/δ) (the TV posterior of the recomputed block; gap G4)", "Lemma 5 (C4, event A)",
          delta / 4),
    Claim("confidence_at_optimum", "probability",
          "Lemma 7 on the box: |f_t(x*_t) − μ̃_{D_t}([x*_t]_t)| ≤ √β_t σ̃_{D_t}([x*_t]_t) + 1/t² for all t ≤ T, "
          "[x]_t the nearest of ⌈ϑ_t/2⌉^d cell centres, β_t Theorem 1's (x*_t: the located maximiser)",
          "Lemma 7 (C4, event B)", delta / 4),
    Claim("lipschitz_event", "probability",
          "sup_X |∂f_t/∂x_j| ≤ L_t = b₁√(ln(4da₁π²t²/(3δ))) for every j and t ≤ T (schedule lipschitz_L_t; "
          "certified sup): Lemma 7's Lipschitz half at δ/8", "Lemma 7 proof (Lipschitz step)", delta / 8),
    Claim("bounded_observations", "probability",
          "Lemma 6: |y_t| ≤ ȳ_t = (b₀+√2σ_n)√(log(8(a₀+1)π_t/δ)) for all t ≤ T", "Lemma 6 (C5)", delta / 4),
    Claim("stopping_time", "probability",
          "Lemma 4 (corrected): τ ≤ τ̄₄ = min{T, 4Ê[τ]/δ} (τ := T without a trigger; τ from the recomputed resets)",
          "Lemma 4 (C2)", delta / 4),
    Claim("blocks_short", "probability",
          "every recomputed block is at most τ̄₄ long (what Lemma 8 with N = τ̄ needs)", "Theorem 1 proof, gap G1 (C7)",
          delta / 4),
    Claim("algorithm_bookkeeping", "deterministic",
          "Algorithm 1 as executed, recomputed from the observed (x_t, y_t): μ_{D_t}(x_t), σ_{D_t}(x_t) of an "
          "independent block posterior, t' = t − t_r, κ_t = √ρ_{t'}(σ+σ_n), reset ⇔ ψ_t > κ_t (strict), the "
          "triggering point kept; the algorithm's recorded μ, σ, t', ψ, κ and reset flags equal them",
          "Algorithm 1, eqs. (9)–(11)"),
    Claim("optimiser_gap", "deterministic",
          "UCB_{D_t}(x_t) ≥ UCB_{D_t}([x*_t]_t) − g_t, g_t ≤ 10⁻⁵(1 + |UCB(x_t)|), on the recomputed block posterior "
          "with the width the algorithm ran with (eq. 25's UCB step)", "Theorem 1 proof, eq. (25)"),
    Claim("K1_calibration", "calibration",
          "up to the first recomputed trigger, (y_t − μ̃_{t−1}(x_t))/√(σ̃²_{t−1}(x_t)+σ_n²) are i.i.d. N(0,1) (the "
          "TV posterior of all data so far is exact there; {t ≤ τ} is decided at t − 1)", "exact TV posterior"),
)

COMPACT_CORRECTIONS = tuple(c for c in ET_CORRECTIONS if c.id in ("E4", "E10", "E11", "E12", "E19", "E20", "E21",
                                                                   "E22", "E_tau")) + (
    Correction("EC1", "Lemma 7 / eq. (15)", "'X_t of size (ϑ_t)^d with ‖x − [x]_t‖ ≤ rd/ϑ_t ∀x ∈ X_t', norm unstated",
               "D_t = the cell-centred grid with ⌈ϑ_t/2⌉ points per side, ℓ₁ norm: ‖x − [x]_t‖₁ ≤ rd/ϑ_t and "
               "|D_t| ≤ ϑ_t^d when ϑ_t ≥ 1 (constraint ϑ_1 ≥ 1); schedule grid_n_t",
               "ϑ_t is not an integer; for ϑ_t < 1 the term 2d ln ϑ_t is negative while |D_t| ≥ 1 (ledger 15)"),
    Correction("EC2", "Lemma 7 (Bogunovic et al.)", "one Lipschitz constant for the whole horizon",
               "a level per step, L_t = b₁√(ln(4da₁π²t²/(3δ))) (schedule lipschitz_L_t): the union over j and t at "
               "δ/8; the claim lipschitz_event checks sup|∂f_t/∂x_j| ≤ L_t at every t (certified sups)",
               "f_t changes with t, so the event is a union over t: the π_t inside the √ln is what makes Theorem 1's "
               "β_t exactly 2 ln(8π_t/δ) + 2d ln ϑ_t", changes_computation=False),
    Correction("EC3", "Assumption 3 on the box", "a₀, b₀, a₁, b₁ not given",
               "Borell–TIS on the truth's feature prior (each f_t is marginally GP(0, k̂)): b = 2√2 s, ln a = "
               "max{0, m²/(2s²)} with m a proven upper bound on E sup (value_tails: s = 1, m₀ = √(π/2)Σ√w_k; "
               "derivative_tails: s = 1/ℓ, m₁ = √(π/2)Σ√w_k|ω_kj|), entered as ln a (overflow)",
               "numbers needed for β_t, L_t and ȳ; the grid pair (a₀ = M, b₀ = √2) of the finite form does not exist "
               "on a continuum"),
    Correction("EC4", "Theorem 1", "γ_τ̄ over the continuum", "gamma_upper_se: the feature-basis Hadamard bound plus "
               "the kernel-approximation term, certified over the box",
               "a lower estimate would make the check unsound"),
    Correction("EC5", "eq. (25)", "x_t = argmax_X UCB exactly",
               "the acquisition maximised numerically: x_t may fall short of UCB([x*_t]_t) by "
               "g_t ≤ 10⁻⁵(1 + |UCB(x_t)|) (optimiser_gap fails beyond); r_t then gains g_t, and the regret claim "
               "subtracts the tolerated g_t (as gp_ucb_compact's SC6)",
               "a near-tie of two basins may be resolved either way"),
    Correction("EC6", "Definition 1", "r_t = f_t(x*_t) − f_t(x_t) with the exact maximum",
               "the regret against the located maximum of each f_t plus its certified tolerance (branch and bound, "
               "10⁻³ per step; the total enters R_T): a maximum found too low cannot make the bound hold",
               "max_X f_t is not computable exactly on a continuum"),
    Correction("EC7", "Lemma 7", "the event at the true maximiser x*_t",
               "checked at the located maximiser x̂*_t, where f_t is known exactly: the proof's event holds for every "
               "x ∈ X at once (Lipschitz step plus the grid union), so any point of the box is an instance of it",
               "the true x*_t is not computable; the event's uniformity makes the located one as good",
               changes_computation=False),
    Correction("EC8", "Theorem 1, vacuity", "no bound on max|f_t| on the continuum",
               "on the event sup_{t,x}|f_t| ≤ L = b₀√(ln(3Ta₀/δ)) (Assumption 3 (3) and a union over t, probability "
               "≥ 1 − δ/3) every r_t ≤ 2L; a bound ≥ 2LT is vacuous (outside the verdict) and the regret claim's "
               "premise is that event as observed (max f_t + tolerance ≤ L and f_t(x_t) ≥ −L)",
               "at ε > 0 the mismatch term Tφ_T is 10⁴–10¹²: the report must say the bound cannot fail"),
)

COMPACT_ASSUMPTIONS = (
    Assumption("X is a box, low ≤ x_j ≤ high for j = 1..d (compact and convex), of side r = high − low; f_t evaluated "
               "and the acquisition maximised on the continuum", "compact_box_domain"),
    Assumption("f_t is the ε chain of GP(0, k) paths (Assumption 2) with the algorithm's kernel, drawn fresh per run "
               "(the truth's features certified within the kernel error)", "box_eps_chain_truth"),
    Assumption("k stationary with k(x, x) ≤ 1", "kernel_bounded_by_one"),
    Assumption("noise i.i.d. N(0, σ_n²) with the σ_n the algorithm uses (Assumption 1)", "noise_matches"),
    Assumption("the model's noise variance is σ_n² (λ = R²)", "lambda_is_noise"),
    Assumption("Assumption 3's a₀, b₀, a₁, b₁ certified for the prior on the box (Borell–TIS, EC3)",
               "derivative_tails_certified"),
    Assumption("β_t is Theorem 1's schedule (not the practical c₁ log(c₂t))", "tv_theoretical_schedules"),
)

ET_COMPACT_THEOREM = Theorem(
    id="et_gp_ucb_compact",
    title="ET-GP-UCB regret bound on a compact box (Theorem 1 on the continuum, with its discretisation term)",
    paper="001_5b9a9c576ac10a30.txt",
    source="Brunzema, von Rohr, Solowjow, Trimpe (2022), Theorem 1 (compact X ⊂ [0, r]^d)",
    guarantee="high_probability",
    symbols=COMPACT_SYMBOLS,
    bound_terms=COMPACT_BOUND_TERMS,
    printed=(r"R_T \le \sqrt{C_1 T \beta_T (T/\bar\tau + 1)\gamma_{\bar\tau}} + 2 "
             r"+ T\phi_T(\varepsilon,\delta,\bar\tau),\quad \beta_t = 2\ln\frac{4\pi^2t^2}{3\delta} + "
             r"2d\ln\Big(t^2db_1r\sqrt{\ln\frac{4da_1\pi^2t^2}{3\delta}}\Big)"),
    schedules={
        "beta_t": compact_beta(t), "width_t": sp.sqrt(compact_beta(t)), "C1": C1,
        "beta_confidence_t": compact_beta_confidence(t), "beta_discretisation_t": compact_beta_discretisation(t),
        "lipschitz_L_t": compact_lipschitz_level(t), "tau_t": compact_vartheta(t),
        "grid_n_t": sp.ceiling(compact_vartheta(t) / 2),  # points per side of D_t (EC1)
        "beta_lemma5_t": beta_lemma5(t, 4), "ybar_t": compact_ybar(t), "phi_T": COMPACT_PHI,
    },
    assumptions=COMPACT_ASSUMPTIONS,
    claims=COMPACT_CLAIMS,
    corrections=COMPACT_CORRECTIONS,
    default_scenario="et_box_line_static",
    scenarios=("et_box_line_static", "et_box_line_eps003"),
    algorithms=("et_gp_ucb_box_theory",),
    domains={"eps": Domain(0, 1), "d": Domain(1, integer=True), "tau_bar": Domain(1), "r": Domain(0, lower_open=True),
             "log_a0": Domain(0), "log_a1": Domain(0)},
    constraints=(sp.Le(tau_bar, T), sp.Ge(compact_vartheta(1), 1)),
    notes=("At ε = 0, φ_T = 0 and τ̄ = T: (A) is √(2C₁Tβ_Tγ_T) + 2, the only regime where it can bite.",
           "For ε > 0 the mismatch term Tφ_T is 10⁴–10¹² while R_T ≈ 10: the bound is vacuous (reported as such).",
           "Lemma 8 (the sup of the posterior mismatch over X) is checked on the grid by et_gp_ucb; here its "
           "constants enter the bound only."),
)

COMPACT_THEOREMS = (ET_COMPACT_THEOREM,)
THEOREMS = THEOREMS + COMPACT_THEOREMS
# TV-GP-UCB on a compact box (Bogunovic, Scarlett, Cevher 2016, the continuous-X theorem), ``tv_gp_ucb_compact``.
#
# Setting: X = [low, high]^d ⊂ [0, r]^d after translation, f_1 = g_1, f_{t+1} = √(1−ε) f_t + √ε g_{t+1} with g_t ~
# GP(0, k) i.i.d., k the SE kernel (k ≤ 1), y_t = f_t(x_t) + w_t, w_t ~ N(0, σ²); TV-GP-UCB told the true ε chooses
# x_t = argmax_X μ̃_{t−1}(x) + √β_t σ̃_{t−1}(x), μ̃, σ̃ the exact posterior of f_t given y_1..y_{t−1} (the GP on X × N
# with k̃((x,s),(x',s')) = k(x,x')(1−ε)^{|s−s'|/2}). Each f_t is marginally GP(0, k), so the derivative tails
# P{sup_X |∂f_t/∂x_j| > L} ≤ a e^{−(L/b)²} hold at every t with the prior's (a, b). With π_t = π²t²/6 (Σ 1/π_t = 1):
#
#   (A) Lemma 5.5 at δ/2: given the history, f_t(x_t) ~ N(μ̃_{t−1}(x_t), σ̃²_{t−1}(x_t)) exactly (x_t is a function
#       of the history and the algorithm's own randomness), so P{|f_t(x_t) − μ̃| > √β_t σ̃} ≤ e^{−β_t/2}; the sum
#       over t is ≤ δ/2 as soon as β_t ≥ 2 ln(2π_t/δ), which the β_t below is (its confidence part is
#       2 ln(4π_t/δ) and its discretisation part is ≥ 0 because τ_t ≥ 1).
#   (L) the Lipschitz event for EVERY f_t, t ≥ 1, at δ/4: the union over j ≤ d and over t of the tails at
#       L_t = b √(ln(4 d a π_t/δ)) costs Σ_t d a e^{−(L_t/b)²} = Σ_t δ/(4π_t) = δ/4. (Srinivas' Theorem 2 has one f
#       and one L; a chain has T functions, so the level grows with t — correction TVK1.) On it, X convex:
#       |f_t(x) − f_t(x')| ≤ L_t ‖x − x'‖₁.
#   (D) Lemma 5.6 on D_t at δ/4: D_t = the cell-centred grid of n_t = ⌈τ_t/2⌉ points per side, fixed in advance
#       (not data-dependent), τ_t = d t² r L_t; ‖x − [x]_t‖₁ ≤ dr/(2n_t) ≤ rd/τ_t and |D_t| = n_t^d ≤ τ_t^d
#       (τ_t ≥ 1: the constraint τ_1 ≥ 1). Σ_t τ_t^d e^{−β_t/2} = Σ_t δ/(4π_t) = δ/4 iff
#       β_t = 2 ln(4π_t/δ) + 2d ln τ_t.  On (L) and (D): |f_t(x*_t) − μ̃_{t−1}([x*_t]_t)| ≤ √β_t σ̃_{t−1}([x*_t]_t)
#       + L_t rd/τ_t, and L_t rd/τ_t = 1/t².
#   Lemma 5.8 on A ∩ L ∩ D (x_t maximises the UCB at least over D_t): r_t ≤ 2√β_t σ̃_{t−1}(x_t) + 1/t² (+ g_t,
#       the optimiser's tolerated shortfall, correction SC6 of theory.srinivas).
#   Lemmas 5.3–5.4 on the spatio-temporal GP: σ̃² ≤ 1, β_t non-decreasing, so Σ_t 4β_tσ̃²_{t−1}(x_t) ≤
#       C₁β_T · ½Σ_t log(1 + σ⁻²σ̃²_{t−1}(x_t)) = C₁β_T I(y_{1:T}; f) ≤ C₁β_T γ̃_T, γ̃_T the maximum over
#       x_1..x_T ∈ X of ½ log det(I + σ⁻²K̃_T), K̃_T = [k(x_s, x_s')(1−ε)^{|s−s'|/2}] (chain rule: the posterior's
#       σ̃_{t−1}(x_t) is the spatio-temporal GP's); Cauchy–Schwarz and Σ 1/t² ≤ π²/6 ≤ 2 give
#       R_T ≤ √(C₁Tβ_Tγ̃_T) + 2 for all T at once, with probability ≥ 1 − δ (δ/2 + δ/4 + δ/4).
# So β_t = 2 ln(2t²π²/(3δ)) + 2d ln(t² d b r √(ln(2 d a π² t²/(3δ)))): Srinivas' β_t with ln(4da/δ) → ln(4daπ_t/δ).
# γ̃_T over the box: boundcheck.model.continuum.gamma_tv (a proof in its docstring; correction TVK3).
# ==============================================================================================================
tvk_d = sp.Symbol("d", positive=True, integer=True)  # dimension of the box
tvk_log_a = sp.Symbol("log_a", nonnegative=True)  # ln a of the derivative tails (a ≥ 1)
tvk_b = sp.Symbol("b_tail", positive=True)  # b of the derivative tails


def tvk_pi(s: sp.Expr) -> sp.Expr:
    """π_t = π²t²/6 (Σ_t 1/π_t = 1)."""
    return pi**2 * s**2 / 6


def tvk_lipschitz(s: sp.Expr) -> sp.Expr:
    """L_t = b √(ln(4 d a π_t/δ)), written ln(4dπ_t/δ) + ln a: sup_X |∂f_t/∂x_j| ≤ L_t for all j and all t except
    with probability Σ_t d a e^{−(L_t/b)²} = δ/4 (every f_t is marginally GP(0, k))."""
    return tvk_b * sp.sqrt(sp.log(4 * tvk_d * tvk_pi(s) / delta) + tvk_log_a)


def tvk_tau(s: sp.Expr) -> sp.Expr:
    """τ_t = d t² r L_t: L_t · rd/τ_t = 1/t², and D_t has at most τ_t^d points."""
    return tvk_d * s**2 * r * tvk_lipschitz(s)


def tvk_beta_confidence(s: sp.Expr) -> sp.Expr:
    """The confidence part of β_t: 2 ln(4π_t/δ) = 2 ln(2t²π²/(3δ))."""
    return 2 * sp.log(2 * s**2 * pi**2 / (3 * delta))


def tvk_beta_discretisation(s: sp.Expr) -> sp.Expr:
    """The discretisation part of β_t: 2d ln τ_t = 2 ln |D_t| (|D_t| ≤ τ_t^d)."""
    return 2 * tvk_d * sp.log(tvk_tau(s))


def tvk_beta(s: sp.Expr) -> sp.Expr:
    """β_t (squared width) = 2 ln(2t²π²/(3δ)) + 2d ln(t² d b r √(ln(4daπ_t/δ)))."""
    return tvk_beta_confidence(s) + tvk_beta_discretisation(s)


TVK_SYMBOLS = {
    "T": (T, "horizon"),
    "delta": (delta, "confidence parameter δ ∈ (0,1)"),
    "R": (R, "noise standard deviation σ (the model's and the data's)"),
    "d": (tvk_d, "dimension of the box X ⊂ [0, r]^d"),
    "r": (r, "side of the box (high − low)"),
    "log_a": (tvk_log_a, "ln a of the derivative tails P{sup|∂f_t/∂x_j| > L} ≤ a e^{−(L/b)²} (every t), a ≥ 1"),
    "b_tail": (tvk_b, "b of the derivative tails"),
    "eps": (eps, "rate of change ε ∈ [0, 1] of the chain (TV-GP-UCB is told it; it enters through γ̃_T)"),
    "gamma_T": (gamma_T, "certified upper bound on the time-varying γ̃_T over the box (one point per time, kernel "
                         "k(x,x')(1−ε)^{|t−s|/2}, noise σ²)"),
}

TVK_CLAIMS = (
    Claim("regret_bound", "probability",
          "R_T ≤ √(C₁Tβ_Tγ̃_T) + 2, r_t = max_X f_t − f_t(x_t) over the continuum", "Bogunovic et al. 2016, "
          "TV-GP-UCB on a compact X (δ budget and Lipschitz levels corrected: TVK1)", delta, main=True),
    Claim("regret_bound_anytime", "probability", "R_t ≤ √(C₁tβ_tγ̃_t) + 2 for every t ≤ T (uniform in T)",
          "TV-GP-UCB on a compact X", delta, main=True),
    Claim("confidence_chosen", "probability",
          "|f_t(x_t) − μ̃_{t−1}(x_t)| ≤ √β_t σ̃_{t−1}(x_t) ∀t ≤ T (exact spatio-temporal posterior, told the true ε): "
          "event (A) at δ/2", "Lemma 5.5 on the ε chain", delta / 2),
    Claim("lipschitz_event", "probability",
          "sup_X |∂f_t/∂x_j| ≤ L_t for all j and every t ≤ T, L_t = b√(ln(4daπ_t/δ)) (schedule lipschitz_L_t): "
          "event (L), a union over j and t at δ/4", "Lemma 5.7 proof, per step (TVK1)", delta / 4),
    Claim("confidence_discretised", "probability",
          "|f_t(x*_t) − μ̃_{t−1}([x*_t]_t)| ≤ √β_t σ̃_{t−1}([x*_t]_t) + 1/t² ∀t ≤ T, [x*_t]_t the nearest cell centre "
          "of D_t (⌈τ_t/2⌉ per side): events (L) and (D), δ/4 each", "Lemma 5.7 (with Lemma 5.6) on the chain",
          delta / 2),
    Claim("D1_optimism", "deterministic",
          "on confidence_chosen, lipschitz_event and confidence_discretised at t: r_t ≤ 2√β_t σ̃_{t−1}(x_t) + 1/t²",
          "Lemma 5.8"),
    Claim("optimiser_gap", "deterministic",
          "UCB_{t−1}(x_t) ≥ UCB_{t−1}([x*_t]_t) − 0 (within the stated tolerance): the numerical argmax at least as "
          "good as D_t's point the proof compares with", "Lemma 5.8 proof"),
    Claim("D3_information", "deterministic",
          "chain rule ½Σlog(1+σ⁻²σ̃²_{s−1}(x_s)) = ½log|I+σ⁻²K̃_T| on the spatio-temporal Gram of the queried "
          "(x_s, s) with the true ε (1e−8), and 0 ≤ realised gain up to t ≤ certified γ̃_t for every t",
          "Lemma 5.3 on the spatio-temporal GP"),
    Claim("K1_calibration", "calibration",
          "innovations (y_t − μ̃_{t−1}(x_t))/√(σ̃²_{t−1}(x_t)+σ²) are i.i.d. N(0,1)", "exact spatio-temporal posterior"),
)

TVK_CORRECTIONS = (
    Correction("TVK1", "Bogunovic et al., TV-GP-UCB on a compact X (β_t)",
               "Srinivas' β_t = 2 log(2π²t²/(3δ)) + 2d log(t²dbr√(log(4da/δ))): one Lipschitz level L = b√(log(4da/δ))",
               "L_t = b√(ln(4daπ_t/δ)), τ_t = dt²rL_t, β_t = 2 ln(2t²π²/(3δ)) + 2d ln τ_t [DERIVED]",
               "the Lipschitz step is needed for every f_t, t ≤ T: the T functions are different (only marginally "
               "alike), so one level L at δ/4 covers one of them; the union over t at δ/(4π_t) makes the level grow "
               "with t (Lemma 7 of Brunzema et al. reads it so too)"),
    Correction("TVK2", "Lemma 5.6 on the chain", "'a discretisation D_t of size τ_t^d' (τ_t not an integer)",
               "D_t = the cell-centred grid of ⌈τ_t/2⌉ points per side (theory.srinivas SC5); τ_1 ≥ 1 (constraint)",
               "|D_t| ≤ τ_t^d needs τ_t ≥ 1; D_t must not depend on the data (it does not)",
               changes_computation=False),
    Correction("TVK3", "γ̃_T", "(T/Ñ+1)(γ_Ñ + σ⁻²Ñ³ε) [CITED], γ_Ñ over the continuum not computable",
               "the certified bound of boundcheck.model.continuum.gamma_tv: Fischer over the quadrature-feature "
               "blocks, the cos/sin pair by concavity, ½ log det(I + a D_t) exactly by scalar AR(1) filters, plus "
               "the kernel-error term t²·err/(2σ²); and the block form ⌈t/N⌉(γ_N + ¼σ⁻²N^{5/2}ε) with the "
               "certified box γ_N (docs/gamma.md, 'block'); the smaller, and the trivial (t/2)log(1+σ⁻²)",
               "a lower estimate of γ̃ would make the check unsound; the feature form is far smaller than the "
               "block form at small ε"),
    Correction("TVK4", "Lemma 5.8", "x_t = argmax_X UCB_{t−1}, exactly",
               "the acquisition maximised numerically: a shortfall g_t ≤ 10⁻⁵(1 + |UCB|) below UCB([x*_t]_t) is "
               "carried additively (r_t ≤ … + g_t; theory.srinivas SC6); optimiser_gap fails beyond",
               "a numerical optimiser may resolve near-ties of two basins either way"),
    Correction("TVK5", "the truth's maximum", "r_t = f_t(x*_t) − f_t(x_t) with the exact max of each f_t",
               "the located max plus its certified tolerance (10⁻³ per step of a chain), summed step by step in the "
               "regret claims", "the maximum of a continuous path is known only to a certified tolerance"),
    Correction("TVK6", "a and b", "the derivative-tail constants assumed",
               "Borell–TIS on the truth's feature prior (theory.srinivas SC3): the same (a, b) for every f_t, each "
               "f_t being marginally GP(0, k)", "numbers needed for β_t", changes_computation=False),
)

TVK_ASSUMPTIONS = (
    Assumption("X is a box, low ≤ x_j ≤ high (compact, convex), side r; the truth is evaluated and the acquisition "
               "maximised on the continuum", "compact_box_domain"),
    Assumption("f_t follows the ε chain of GP(0, k) with the algorithm's kernel (fresh per run)", "tv_box_chain"),
    Assumption("TV-GP-UCB is told the true ε", "told_true_eps"),
    Assumption("k(x, x) ≤ 1", "kernel_bounded_by_one"),
    Assumption("noise i.i.d. N(0, σ²) with the σ the model uses", "noise_matches"),
    Assumption("the model's noise variance is σ² (λ = R²)", "lambda_is_noise"),
    Assumption("β_t is the theorem's schedule (no scaling)", "tv_theoretical_schedules"),
    Assumption("P{sup_X |∂f/∂x_j| > L} ≤ a e^{−(L/b)²} for GP(0, k) with the (log_a, b_tail) given (Borell–TIS)",
               "derivative_tails_certified"),
)

TV_COMPACT_THEOREM = Theorem(
    id="tv_gp_ucb_compact",
    title="TV-GP-UCB regret bound on a compact box (ε Markov chain, certified time-varying γ̃_T)",
    paper="(Bogunovic, Scarlett, Cevher 2016, AISTATS; continuous-X form)",
    source="Bogunovic, Scarlett, Cevher (2016), TV-GP-UCB on a compact domain (corrected: TVK1)",
    reference="Ilija Bogunovic, Jonathan Scarlett, Volkan Cevher (2016). Time-Varying Gaussian Process Bandit "
              "Optimization. AISTATS 2016 (PMLR 51), arXiv:1601.06650",
    guarantee="high_probability",
    symbols=TVK_SYMBOLS,
    bound_terms={"information": sp.sqrt(C1 * T * tvk_beta(T) * gamma_T), "discretisation": sp.Integer(2)},
    anytime_terms={"information": sp.sqrt(C1 * t * tvk_beta(t) * gamma_t), "discretisation": sp.Integer(2)},
    printed=(r"R_T \le \sqrt{C_1 T \beta_T \tilde\gamma_T} + 2,\quad \beta_t = 2\ln\frac{2t^2\pi^2}{3\delta} + "
             r"2d\ln\Big(t^2 d b r\sqrt{\ln(4da\pi_t/\delta)}\Big)"),
    schedules={
        "beta_t": tvk_beta(t),
        "width_t": sp.sqrt(tvk_beta(t)),
        "C1": C1,
        "beta_confidence_t": tvk_beta_confidence(t),
        "beta_discretisation_t": tvk_beta_discretisation(t),
        "lipschitz_L_t": tvk_lipschitz(t),
        "tau_t": tvk_tau(t),
        "grid_n_t": sp.ceiling(tvk_tau(t) / 2),  # points per side of D_t (TVK2)
    },
    assumptions=TVK_ASSUMPTIONS,
    claims=TVK_CLAIMS,
    corrections=TVK_CORRECTIONS,
    default_scenario="tv_box_eps002",
    scenarios=("tv_box_eps002",),
    algorithms=("tv_gp_ucb_box", "random_box"),
    anytime_note="The theorem holds for all T simultaneously: Bound(t) = √(C₁tβ_tγ̃_t) + 2 with γ̃_t certified at t.",
    constraints=(sp.Ge(tvk_tau(1), 1),),  # τ_1 ≥ 1 (TVK2)
    domains={"d": Domain(1, integer=True), "r": Domain(0, lower_open=True), "log_a": Domain(0),
             "b_tail": Domain(0, lower_open=True), "eps": Domain(0, 1)},
)

COMPACT_THEOREMS = (*COMPACT_THEOREMS, TV_COMPACT_THEOREM)
THEOREMS = (*THEOREMS, TV_COMPACT_THEOREM)
