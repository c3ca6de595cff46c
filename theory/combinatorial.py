"""Sandberg, Åkerblom, Chehreghani (ICLR 2025), "Bayesian Analysis of Combinatorial Gaussian Process Bandits"
(paper 002; docs/papers/combinatorial.md): Theorems 3.1 (finite 𝒜) and 3.2 (infinite 𝒜) for
combinatorial GP-UCB, GP-BayesUCB and GP-TS with volatile arms and semi-bandit feedback.

The Bayesian regret BR(T) = E[Σ_t f(a*_t) − f(a_t)] with f ~ GP(μ, k) drawn afresh every run, super arms of at
most K base arms chosen by an exact oracle over exogenous available sets, bounded by
constants + √(C_K T K β_T γ_{TK}) (C_K = 2(λ*_K + ς²)) for each algorithm. The explicit forms checked restore
what the paper leaves implicit (§3.7): λ*_K and γ_{TK} enter as *certified upper bounds* (γ over multisets of TK
observations), and a prior scale s ≠ 1 uses the generalisation of ledger S5 ([ours]). The bounds hold for every
T, so the anytime form is the bound with T → t.

The bound terms use the symbol β_T, whose value is the schedule ``beta_t`` at t = T (for GP-BUCB and the
infinite case evaluated in log space by the verification layer). Each theorem's statement is in its ``Theorem``
object below and in docs/papers/combinatorial.md.
"""

from __future__ import annotations

import sympy as sp

from .core import Assumption, Claim, Correction, S, Theorem
from .empirical import EmpiricalClaim

T, t, R, n_X, gamma_T = S.T, S.t, S.R, S.n_X, S.gamma_T
pi = sp.pi

K = sp.Symbol("K", positive=True)  # maximum super-arm size
lambda_K = sp.Symbol("lambda_K", positive=True)  # certified upper bound on λ*_K
s = sp.Symbol("s", positive=True)  # prior scale sup_a √k(a, a) (1 in the paper's theorem)
beta_T = sp.Symbol("beta_T", positive=True)  # β_T: the schedule beta_t at t = T
omega = sp.Symbol("omega", positive=True)  # GP-BUCB tunable ω > 1
xi = sp.Symbol("xi", positive=True)  # GP-BUCB tunable ξ > ω
# infinite case (Assumption 3.2): discretisation size per dimension, and the regularity constants
tau_t = sp.Symbol("tau_t", positive=True)
d = sp.Symbol("d", positive=True)
C1, C2, C3, L = (sp.Symbol(n, positive=True) for n in ("C1", "C2", "C3", "L"))

SQRT_2PI = sp.sqrt(2 * pi)


def phi(x: sp.Expr) -> sp.Expr:
    """Standard normal density φ(x)."""
    return sp.exp(-x**2 / 2) / SQRT_2PI


# ------------------------------------------------------------------------------------------ schedules
def beta_ucb(step: sp.Expr, size: sp.Expr = n_X) -> sp.Expr:
    """β_t = 2 log(|𝒜| t²/√(2π)) (Theorem 3.1(i),(iii)); ``size`` = τ_t^d in the infinite case (Theorem 3.2)."""
    return 2 * sp.log(size * step**2 / SQRT_2PI)


def eta_bucb(step: sp.Expr, size: sp.Expr = n_X) -> sp.Expr:
    """η_t = √(2π)^ω / (2 |𝒜|^ω t^ξ) (Lemma 3.1); |𝒜| → τ_t^d in the infinite case."""
    return SQRT_2PI**omega / (2 * size**omega * step**xi)


def beta_bucb(step: sp.Expr, size: sp.Expr = n_X) -> sp.Expr:
    """β_t = 2 erf⁻¹(1 − 2η_t)², i.e. √β_t = √2 erf⁻¹(1 − 2η_t) = Φ⁻¹(1 − η_t) (the (1−η_t)-quantile), written
    with erfc⁻¹(2η_t) = erf⁻¹(1 − 2η_t), which stays finite in floating point for tiny η_t."""
    return 2 * sp.erfcinv(2 * eta_bucb(step, size)) ** 2


VARTHETA = sp.sqrt(2 * sp.E / pi) * sp.sqrt(omega - 1) / omega  # largest ϑ of Chang et al. Thm 2 (Lemma A.11)
C_OMEGA = VARTHETA ** (-1 / omega)  # C_ω = ϑ^{−1/ω} = (√π ω / √(2e(ω−1)))^{1/ω}


def S_sum(step: sp.Expr) -> sp.Expr:
    """Lemma 3.1's bound on Σ_{t'≤t} t'^{−ξ/ω}: the three cases ξ/ω < 1, = 1, > 1."""
    r = xi / omega
    return sp.Piecewise((omega / (omega - xi) * step ** (1 - r), r < 1), (1 + sp.log(step), sp.Eq(r, 1)),
                        (xi / (xi - omega), True))


RADIUS = sp.sqrt(2 * (lambda_K + R**2) * T * K * beta_T * gamma_T)  # √(C_K T K β_T γ_{TK}), Lemma A.3
TAU_SIZE = tau_t**d  # |𝒟_t| = τ_t^d replaces |𝒜| in the infinite case

# Assumption 3.2 (Discretisation size), as printed, and the corrected sufficient conditions of ledger I1
# (the proof of (67) drops a cross term; these make Lemma A.9 hold with the same π²/12). ``beta`` is β_t.
_beta = sp.Symbol("beta_t", positive=True)
TAU_CONDITIONS = {
    "6a": tau_t - 2 * t**2 * K * L * d * C1 * (1 + t * K / R),
    "6b": tau_t / _beta - 8 * t**4 * K**2 * L * d * C1,
    "6c": tau_t**2 / _beta - 8 * t**5 * K**3 * L**2 * d**2 * C1**2 / R**2,
    "6d": tau_t - t**2 * K * d * C1 * C3 * (sp.sqrt(sp.log(C2 * d)) + sp.sqrt(pi) / 2),
    # corrected (ledger I1): L_diag = 0 for a stationary kernel (k(a,a) constant), so (6b′) is void
    "6b2": tau_t / _beta - 24 * t**sp.Rational(9, 2) * K**sp.Rational(5, 2) * L * d * C1 / R,
    "6c2": tau_t**2 / _beta - 12 * t**5 * K**3 * L**2 * d**2 * C1**2 / R**2,
}
TAU_BETA = _beta  # the β_t symbol of TAU_CONDITIONS (each condition holds iff its expression is ≥ 0)

# ------------------------------------------------------------------------------------------- symbols
_SYMBOLS = {
    "T": (T, "horizon (rounds)"),
    "R": (R, "noise standard deviation ς (Gaussian noise N(0, ς²) per base arm)"),
    "K": (K, "maximum super-arm size K"),
    "lambda_K": (lambda_K, "certified upper bound on λ*_K = max_a λ_max(k(a, a)) over feasible super arms"),
    "gamma_T": (gamma_T, "certified upper bound on γ_{TK} (multisets of TK base-arm observations, noise ς²)"),
    "beta_T": (beta_T, "β_T, the schedule beta_t at t = T"),
}
_FINITE = {**_SYMBOLS, "n_X": (n_X, "|𝒜|, number of base arms (the whole set, not |𝒜_t|)"),
           "s": (s, "prior scale sup_a √k(a,a) (1 in the paper's theorem; ledger S5 generalisation)")}
_BUCB = {"omega": (omega, "GP-BUCB tunable ω > 1"), "xi": (xi, "GP-BUCB tunable ξ > ω")}

# --------------------------------------------------------------------------------------------- claims
_Q_CHAIN = ("Q₁ = Σ_t E[f(a*_t) − U_t(a*_t)] ≤ Q₂ = Σ_t E[Σ_{a∈a*_t}(f(a) − U_t(a))₊] ≤ Q₃ = Σ_t E[Σ_{a∈𝒜} "
            "σ_{t−1}(a)(φ(√β_t) − √β_t Φ̄(√β_t))] ≤ Q₄ = Σ_t φ(√β_t) E[Σ_a σ_{t−1}(a)] ≤ Q₅ = s Σ_t |𝒜| φ(√β_t) ≤ Q₆")


def _common_claims(left: str, left_src: str, infinite: bool) -> list[Claim]:
    """Claims every theorem of the family checks (the regret bound and the model-consistency checks)."""
    claims = [
        Claim("bayes_regret", "expectation", "BR(T) = E[R_T] ≤ Bound(T)", "Theorem 3.2" if infinite else "Theorem 3.1",
              expectation_bound=sp.Integer(0), main=True),
        Claim("bayes_regret_anytime", "expectation",
              "E[R_t] ≤ Bound(t) at every t ≤ T (the bounds hold for every horizon; simultaneous over t)",
              "Theorem 3.2" if infinite else "Theorem 3.1", expectation_bound=sp.Integer(0), main=True),
        Claim("R1_left_term", "expectation", f"Q₁ = Σ_t E[f(a*_t) − U_t(a*_t)] ≤ {left}", left_src,
              expectation_bound=sp.Integer(0)),
    ]
    if not infinite:
        claims += [
            Claim("R1_chain_pathwise", "deterministic",
                  "per run, the steps of the R1 chain a defect can break: Q₄ ≤ Q₅ round by round, σ_{t−1}(a) ≤ s at "
                  "every (t, a) (posterior ≼ prior, read from the algorithm's model), and Q₅ = s|𝒜|Σ_t φ(√β_t) ≤ Q₆ "
                  "with the β_t of the analysis index", "Lemma A.2 / 3.1, eqs. (16)–(33)"),
            Claim("R1_chain_identity", "identity",
                  "per run, the steps of the R1 chain true by construction: Σ_t f(a*_t) − U_t(a*_t) ≤ Σ_t Σ_{a∈a*_t}"
                  "(f(a) − U_t(a))₊ (x ≤ x₊) ≤ Σ_t Σ_{a∈𝒜}(f(a) − U_t(a))₊ (more non-negative terms), and the "
                  "Rao–Blackwellised Q₃ ≤ Q₄ (φ(√β) − √βΦ̄(√β) ≤ φ(√β)): shown outside the verdict",
                  "Lemma A.2 / 3.1, eqs. (16)–(25)"),
            Claim("R1_conditional", "expectation",
                  "Q₂ ≤ Q₃: E[Σ_{a∈a*_t}(f(a) − U_t(a))₊] ≤ E[Σ_{a∈𝒜} E_t[(f(a) − U_t(a))₊ | H_t]] (the exact "
                  "conditional value σ_{t−1}(a)(φ(√β_t) − √β_t Φ̄(√β_t)), Rao–Blackwellised)", "Lemma A.2, eq. (25)",
                  expectation_bound=sp.Integer(0)),
            Claim("coverage", "equality",
                  "per-arm coverage P(f(a) > U_t(a)) = Φ̄(√β_t) at every (t, a) with the theorem's β_t, via the "
                  "probability integral transform: v = Φ((f(a) − U_t(a))/σ_{t−1}(a) + √β_t) ~ U(0,1), E[v²] = 1/3",
                  "Lemma A.2 (proof): f(a) | H_t ~ N(μ_{t−1}(a), σ²_{t−1}(a))"),
        ]
    claims += [
        Claim("radius_chain", "deterministic",
              "per run and prefix t: √(tKβ_t Σσ²) ≤ √(tKβ_t 2(λ̂+ς²) I_t) ≤ √(2(λ*_K+ς²) tKβ_t γ_{tK})",
              "Lemma A.3, eq. (34)"),
        # its first two steps hold for any numbers (they cannot fail): a sanity identity, outside the verdict
        Claim("radius_chain_identity", "identity",
              "per run and prefix t: Σ√β σ(a_τ) ≤ √(Σ|a_τ|β_τ)√(Σσ²) (Cauchy–Schwarz) ≤ √(tKβ_t Σσ²) (|a_τ| ≤ K, "
              "β non-decreasing)", "Lemma A.3, eq. (34)"),
        Claim("lemma_A10", "deterministic",
              "Σ_t Σ_{a∈a_t} σ²_{t−1}(a) ≤ 2(λ̂+ς²) I_T ≤ 2(λ*_K+ς²) γ_{TK}; λ̂ = max_t λ_max(Σ_{t−1}(a_t)) ≤ λ*_K; "
              "chain rule Σ_t ½log|I + ς⁻²Σ_{t−1}(a_t)| = ½log|I + ς⁻²K_{N_T}| (1e−8)", "Lemma A.10, eq. (118)"),
        Claim("K1_innovations", "calibration",
              "total-reward innovations (R_t − μ_{t−1}(a_t))/√(1ᵀ(Σ_{t−1}(a_t) + ς²I)1) are i.i.d. N(0, 1)",
              "exact posterior (eqs. 2–3), exogenous 𝒜_t"),
        Claim("K2_innovation_norms", "calibration",
              "Φ⁻¹(F_{χ²_{|a_t|}}(‖(Σ_{t−1}(a_t)+ς²I)^{−1/2}(r_t − μ_{t−1}(a_t))‖²)) are i.i.d. N(0, 1) "
              "(whitened per-round innovations N(0, I))", "exact posterior (eqs. 2–3)"),
    ]
    return claims


def _ucb_claims(printed_left: str, left_src: str, infinite: bool, bucb: bool) -> tuple[Claim, ...]:
    claims = _common_claims(printed_left, left_src, infinite)
    claims += [
        Claim("lemma_A4", "equality",
              "E[Σ_t U_t(a_t) − f(a_t)] = E[Σ_t √β_t σ_{t−1}(a_t)], i.e. E[Σ_t f(a_t) − μ_{t−1}(a_t)] = 0",
              "Lemma A.4, eq. (42)"),
        Claim("decomposition", "deterministic",
              "exact oracle: U_t(a*_t) ≤ U_t(a_t) at every t, so r_t ≤ [f(a*_t) − U_t(a*_t)] + [U_t(a_t) − f(a_t)]",
              "Lemma A.1, eq. (9)"),
        Claim("special_functions", "deterministic",
              "√β_t used = √2 erf⁻¹(1 − 2η_t) = Φ⁻¹(1 − η_t) (the theorem's width)" if bucb else
              "√β_t used = √(2 log(|𝒜|t²/√(2π))) (|𝒜| → τ_t^d) (the theorem's width)",
              "Lemma 3.1" if bucb else "Theorem 3.1(i)"),
        # identities of the schedule's formulas (no run can break them): outside the verdict
        Claim("special_functions_identity", "identity",
              ("η_t < ½; Lemma A.11 e^{−erf⁻¹(u)²} ≤ ((1−u)/ϑ)^{1/ω} at u = 1 − 2η_t; C_ω = ϑ^{−1/ω}; "
               "Σ_{t≤T} t^{−ξ/ω} ≤ S_{ξ/ω}(T); β_t non-decreasing") if bucb else
              "|𝒜|φ(√β_t) = t⁻², β_t non-decreasing",
              "Lemmas 3.1, A.11, A.12" if bucb else "Theorem 3.1(i)"),
    ]
    return tuple(claims) + _infinite_claims(infinite)


def _ts_claims(printed_left: str, left_src: str, infinite: bool) -> tuple[Claim, ...]:
    claims = _common_claims(printed_left, left_src, infinite)
    claims += [
        Claim("ts_identity", "equality",
              "E[Σ_t U_t(a*_t) − U_t(a_t)] = 0: a*_t | H_t and a_t | H_t have the same law (joint posterior "
              "sample); equality in the decomposition A.1", "Lemma A.1 (TS), eq. (9)"),
        Claim("ts_lcb", "expectation", "Σ_t E[L_t(a_t) − f(a_t)] ≤ s π²/6 (L_t = μ_{t−1} − √β_t σ_{t−1})",
              "Lemma A.5, eq. (47)", expectation_bound=sp.Integer(0)),
        Claim("lemma_A5", "expectation", "Σ_t E[U_t(a_t) − f(a_t)] ≤ 2√(C_K T K β_T γ_{TK}) + s π²/6",
              "Lemma A.5, eq. (47)", expectation_bound=sp.Integer(0)),
    ]
    return tuple(claims) + _infinite_claims(infinite)


def _infinite_claims(infinite: bool) -> tuple[Claim, ...]:
    if not infinite:
        return ()
    return (
        Claim("lemma_A6", "expectation",
              "Σ_t E[f(a*_t) − f([a*_t]_{𝒟_t})] ≤ π²/6 with τ_t = the (6d) size (the condition Lemma A.6 needs)",
              "Lemma A.6, eq. (61)", expectation_bound=sp.Integer(0)),
        Claim("lemma_3_2", "expectation",
              "Σ_t E[U_t([a_t]_{𝒟_t}) − U_t(a_t)] ≤ π²/6 with the theorem's τ_t", "Lemma 3.2, eq. (7)",
              expectation_bound=sp.Integer(0)),
        Claim("lemma_A7", "deterministic",
              "pathwise at every available arm a and x = [a]_{𝒟} of a probe grid: |μ_{t−1}(x) − μ_{t−1}(a)| ≤ "
              "L‖x−a‖₁(1 + √N_{t−1} ς⁻¹‖L⁻¹(y−μ)‖) and, corrected, |σ²_{t−1}(x) − σ²_{t−1}(a)| ≤ "
              "2ς⁻¹L‖x−a‖₁√N_{t−1} + ς⁻²L²‖x−a‖₁²N_{t−1}", "Lemma A.7, eqs. (66)–(67); ledger I1"),
    )


# -------------------------------------------------------------------------------------- corrections
_CORRECTIONS_COMMON = (
    Correction("S1", "eq. (2)", "μ_{t−1}(a) = μ(a) + k(a)ᵀ(K + ς²I)⁻¹(y − μ)ᵀ",
               "(y − μ) a column vector", "stray transpose", changes_computation=False),
    Correction("S2", "§2.2 vs eq. (118)", "σ_{t−1}(a) = Σσ (sum of sds) and σ²_{t−1}(a_t) in Lemma A.10",
               "indices use the sum of standard deviations; Lemma A.10 the sum of variances Σ_{a∈a_t} σ²_{t−1}(a)",
               "notation clash"),
    Correction("S3", "eq. (4), γ_T", "sup over sets a ⊂ 𝒜, |a| ≤ T",
               "γ_{TK} over multisets (sequences) of TK observations, replaced by a certified upper bound "
               "(boundcheck.model.mig, batch = K)", "base arms recur across rounds: with sets the lemma is false"),
    Correction("S4", "λ*_K", "largest eigenvalue of all possible posterior covariance matrices of size ≤ K",
               "= max_a λ_max(k(a, a)) over feasible super arms (posterior ≼ prior; t = 1 is included); certified "
               "upper bound max_i Σ of the K largest |k(a_i, ·)| (Gershgorin)", "not computable as stated"),
    Correction("S5", "k: 𝒜 × 𝒜 → [−1, 1]", "unit prior variance assumed; experiments use outputscale 0.25²σ²_det",
               "[ours] prior-scale generalisation: s = sup √k(a,a), bound s·(constants) + √(2(λ*_K+ς²)TKβ_Tγ_{TK}) "
               "with the unscaled λ*, γ, ς; s = 1 is the paper's theorem; a kernel with k(a,a) > 1 must opt in",
               "rescaling f/s, ς/s leaves γ unchanged and maps λ* → λ*/s²"),
    Correction("S6", "β_1", "2 log(|𝒜|/√(2π)) < 0 for |𝒜| ≤ 2", "|𝒜| ≥ 3 required (bad input otherwise)",
               "β_1 must be positive"),
    Correction("S7", "Lemma A.7 / eq. (94)", "‖L⁻¹(y − μ)‖² ~ χ²_{N_{t−1}} under an adaptive design",
               "checked as i.i.d. N(0, I) whitened per-round innovations (their squared norms sum to it)",
               "sequentially whitened innovations are i.i.d. N(0,1) even with adaptive designs",
               changes_computation=False),
    Correction("S8", "Algorithm 1 (argmax)", "ties in the argmax",
               "deterministic tie-break (lowest index / first edge), as the proof of A.4 needs a_t H_t-measurable",
               "ties have probability zero but the rule must be fixed", changes_computation=False),
)
_CORRECTIONS_BUCB = (
    Correction("B1", "Theorem 3.1(ii) proof", "cases ξ/ω < 1 and > 1 only",
               "Lemma 3.1's three cases (ξ/ω = 1 gives 1 + log T); the theorem as printed needs ξ > ω > 1 and "
               "ξ ≤ ω or ω ≤ 1 is refused", "the case = 1 is omitted; ω = 1 makes C_ω infinite"),
    Correction("B2", "Experiments (ω = 1)", "ω = 1, ξ ∈ {1, 0.5} called 'theoretically valid'",
               "outside the theorem (C_ω = ∞); footnote 2's ξ ≤ 0.5 − δ, ω ≥ 1 + δ gives T^{1−ξ/ω}, worse than √T",
               "Lemma A.11 needs ω > 1"),
    Correction("B3", "√β_t", "2(erf⁻¹(1 − 2η_t))²", "√β_t = Φ⁻¹(1 − η_t) evaluated as −ndtri_exp(log η_t) in log "
               "space (erf⁻¹(1 − 2η) rounds to ∞ for η < 1e−17)", "numerical stability", changes_computation=False),
)
_CORRECTIONS_TS = (
    Correction("T1", "Experiments (§4)", "each edge sampled independently in TS (Nuara et al.)",
               "the theorem's GP-TS draws one joint posterior sample on 𝒜_t (exact, pathwise); the independent "
               "variant is a baseline outside the theorem and a negative control of the TS identity",
               "a*_t | H_t =d a_t | H_t needs a joint sample"),
    Correction("T2", "Theorem 3.2(iii)", "β_t of the analysis not stated", "β_t = 2 log(τ_t^d t²/√(2π))",
               "the finite case's analysis β with |𝒜| → τ_t^d"),
)
_CORRECTIONS_INF = (
    Correction("I1", "proof of (67), eq. (82)", "σ²(x) − σ²(a) expanded with + ΔᵀMΔ",
               "− (2ΔᵀMk(a) + ΔᵀMΔ); corrected sufficient conditions (6b″) τ/β ≥ 24t^{4.5}K^{2.5}LdC₁/ς and (6c′) "
               "τ²/β ≥ 12t⁵K³L²d²C₁²/ς² (with (6b′) void for a stationary kernel) are added to (6a)–(6d)",
               "a cross term is dropped; the corrected conditions give Lemma A.9 with π²/12 again"),
    Correction("I2", "Remark (59), (60)", "closed-form τ_t", "τ_t = the smallest integer satisfying every condition, "
               "by bisection on log τ", "(59) can violate (6b)/(6c) at t = 1; (60) has a stray factor 2"),
    Correction("I3", "(113)", "(1)+(2)+(3)", "(1)+(2)+(4)", "label typo", changes_computation=False),
    Correction("I4", "(86)", "C₂", "C₁", "typo", changes_computation=False),
)

# ------------------------------------------------------------------------------------------ assumptions
_ASSUMPTIONS_FINITE = (
    Assumption("f ~ GP(μ, k) drawn afresh every run from the prior the algorithm uses (Bayesian regret)",
               "truth_in_candidates"),
    Assumption("finite base-arm set 𝒜 with |𝒜| ≥ 3", "finite_domain"),
    Assumption("k(a, a) ≤ 1, or the prior-scale generalisation requested (bound scaled by s)",
               "comb_kernel_scaled"),
    Assumption("observation noise i.i.d. N(0, ς²) per base arm with the ς the model uses", "noise_matches"),
    Assumption("available sets 𝒜_t, 𝒮_t exogenous (drawn independently of f) and an exact oracle",
               "comb_exogenous_exact"),
    Assumption("β_t (η_t) are the theoretical schedules (no scaling)", "theoretical_schedules"),
)
_ASSUMPTIONS_INFINITE = (
    Assumption("f ~ GP(0, k) drawn afresh every run, 𝒜 = [0, C₁]^d, k(a, a) = 1", "truth_in_candidates"),
    Assumption("Regularity (μ, k L-Lipschitz in ℓ₁; derivative tails (5) with C₂, C₃): random-Fourier-feature "
               "kernel with explicit constants (instance S4 [PROPOSED])", "comb_regularity"),
    Assumption("observation noise i.i.d. N(0, ς²) per base arm with the ς the model uses", "noise_matches"),
    Assumption("available contexts exogenous (drawn independently of f) and an exact oracle", "comb_exogenous_exact"),
    Assumption("τ_t satisfies (6a)–(6d) and the corrected (6b″), (6c′); β_t theoretical", "theoretical_schedules"),
)

_SCENARIOS_FINITE = ("comb_topk", "comb_topk_k1", "comb_topk_k2", "comb_topk_k4", "comb_topk_k8", "comb_topk_n100",
                     "comb_topk_smooth", "comb_grid", "comb_grid_open", "comb_road_1", "comb_road_2", "comb_road_3",
                     "comb_road_4")
_SCENARIOS_INFINITE = ("comb_rff",)
# negative controls: each breaks one assumption (verify refuses them unless --allow-out-of-theory)
_CONTROLS_FINITE = ("comb_topk_noise", "comb_topk_rough")
_CONTROLS_INFINITE = ("comb_rff_noise",)
_FIN_NOTE = ("Bound(t): T → t, β_T → β_t, γ_{TK} → γ_{tK} (certified at every t); the theorem holds for every "
             "horizon, so E[R_t] ≤ Bound(t) is checked at every t ≤ T.")


class _Theorem(Theorem):
    """Theorem whose schedules may use erfc⁻¹: numbers through ``sympy.lambdify`` with SciPy's special functions."""

    def _lambdified(self, key, exprs, extra=()):
        if key not in self._cache:
            syms = [s for s, _ in self.symbols.values()] + list(extra)
            self._cache[key] = {name: sp.lambdify(syms, e, ["scipy", "numpy"]) for name, e in exprs.items()}
        return self._cache[key]

    def schedule(self, name: str):
        key = f"sched:{name}"
        if key not in self._cache:
            syms = [t] + [s for s, _ in self.symbols.values()] + [S.gamma_tm1]
            self._cache[key] = sp.lambdify(syms, self.schedules[name], ["scipy", "numpy"])
        return self._cache[key]


def _constraints(symbols: dict) -> tuple:
    """Relations the bound symbols must satisfy: |𝒜| ≥ 3 (β_1 > 0), ξ > ω > 1 (Theorem 3.x(ii))."""
    out = []
    if "n_X" in symbols:
        out.append(sp.Ge(n_X, 3))
    if "omega" in symbols:
        out += [sp.Gt(omega, 1), sp.Gt(xi, omega)]
    return tuple(out)


def _theorem(tid: str, title: str, alg: str, terms: dict, printed: str, schedules: dict, claims, corrections,
             symbols: dict, infinite: bool, baselines: tuple[str, ...]) -> Theorem:
    return _Theorem(
        id=tid, title=title, paper="002_a9367e40936ada03.txt",
        source=f"Sandberg, Åkerblom, Chehreghani (2025), Theorem {'3.2' if infinite else '3.1'}",
        guarantee="expectation", symbols=symbols, bound_terms=terms, printed=printed, schedules=schedules,
        assumptions=_ASSUMPTIONS_INFINITE if infinite else _ASSUMPTIONS_FINITE, claims=claims,
        corrections=_CORRECTIONS_COMMON + corrections, default_scenario="comb_rff" if infinite else "comb_topk",
        scenarios=_SCENARIOS_INFINITE if infinite else _SCENARIOS_FINITE,
        controls=_CONTROLS_INFINITE if infinite else _CONTROLS_FINITE, algorithms=(alg, *baselines),
        anytime_note=_FIN_NOTE, constraints=_constraints(symbols),
        notes=((_INF_NOTE,) if infinite else ()) + (
               "Bayesian regret: f is redrawn from the prior in every run, so every claim is about an "
               "expectation over f, noise, availability and the algorithm's randomness.",
               "Expectation and equality claims are centred: the per-run statistic is X − (its bound or value), so "
               "their level is 0 (e.g. bayes_regret tests E[R_T − Bound(T)] ≤ 0).",),
    )


# ------------------------------------------------------------------------------------ finite theorems
_UCB_SCHED = {"beta_t": beta_ucb(t), "width_t": sp.sqrt(beta_ucb(t)), "left_summand_t": n_X * phi(sp.sqrt(beta_ucb(t)))}
_BUCB_SCHED = {"eta_t": eta_bucb(t), "beta_t": beta_bucb(t), "width_t": sp.sqrt(2) * sp.erfcinv(2 * eta_bucb(t)),
               "vartheta": VARTHETA, "C_omega": C_OMEGA, "S_t": S_sum(t)}

COMB_GP_UCB = _theorem(
    "comb_gp_ucb", "Combinatorial GP-UCB: Bayesian regret with volatile super arms (finite 𝒜)", "comb_gp_ucb",
    {"left_term": s * pi**2 / 6, "radius": RADIUS},
    r"\mathrm{BR}(T) \le \frac{\pi^2}{6} + \sqrt{C_K T K \beta_T \gamma_{TK}},\quad C_K = 2(\lambda^*_K + \varsigma^2)",
    _UCB_SCHED, _ucb_claims("s π²/6", "Lemma A.2, eq. (16)", False, False), (), _FINITE, False,
    ("comb_gp_bucb", "comb_gp_ts", "comb_gp_ts_independent", "comb_bi_ucb", "comb_random"))

COMB_GP_BUCB = _theorem(
    "comb_gp_bucb", "Combinatorial GP-BayesUCB: Bayesian regret with volatile super arms (finite 𝒜)",
    "comb_gp_bucb",
    {"left_term": s * C_OMEGA * xi / (xi - omega), "radius": RADIUS},
    r"\mathrm{BR}(T) \le \sqrt{C_K T K \beta_T \gamma_{TK}} + C_\omega \frac{\xi}{\xi - \omega},\quad \xi > \omega > 1",
    _BUCB_SCHED, _ucb_claims("s C_ω ξ/(ξ−ω)", "Lemma 3.1, eqs. (26)–(33)", False, True), _CORRECTIONS_BUCB,
    {**_FINITE, **_BUCB}, False,
    ("comb_gp_ucb", "comb_gp_ts", "comb_gp_ts_independent", "comb_bi_bucb", "comb_random"))

COMB_GP_TS = _theorem(
    "comb_gp_ts", "Combinatorial GP Thompson sampling: Bayesian regret with volatile super arms (finite 𝒜)",
    "comb_gp_ts",
    {"left_terms": s * pi**2 / 3, "radius": 2 * RADIUS},
    r"\mathrm{BR}(T) \le \frac{\pi^2}{3} + 2\sqrt{C_K T K \beta_T \gamma_{TK}}",
    _UCB_SCHED, _ts_claims("s π²/6", "Lemma A.2, eq. (16)", False), _CORRECTIONS_TS, _FINITE, False,
    ("comb_gp_ts_independent", "comb_gp_ucb", "comb_gp_bucb", "comb_bi_ts", "comb_random"))

# ---------------------------------------------------------------------------------- infinite theorems
# the infinite case's schedules involve τ_t (solved numerically from (6a)–(6d), not a bound symbol): they are
# stated here for the reports; ``schedules`` keeps what the bound symbols alone determine
INFINITE_SCHEDULES = {"beta_t (UCB, TS)": beta_ucb(t, TAU_SIZE), "eta_t (BUCB)": eta_bucb(t, TAU_SIZE),
                      "beta_t (BUCB)": beta_bucb(t, TAU_SIZE), **{f"({k})": v for k, v in TAU_CONDITIONS.items()}}
_INF_NOTE = ("β_t = 2 log(τ_t^d t²/√(2π)) (UCB, TS) or 2 erfc⁻¹(2η_t)², η_t = (2π)^{ω/2}/(2τ_t^{dω}t^ξ) (BUCB), with "
             "τ_t the smallest integer meeting (6a)–(6d) and the corrected (6b″), (6c′), solved numerically per t "
             "(theory.combinatorial.TAU_CONDITIONS); β_T is a bound symbol.")
_INF_SCHED_UCB: dict = {}
_INF_SCHED_BUCB = {"vartheta": VARTHETA, "C_omega": C_OMEGA}
_INF = {**_SYMBOLS}

COMB_GP_UCB_INF = _theorem(
    "comb_gp_ucb_infinite", "Combinatorial GP-UCB: Bayesian regret, continuous contexts (infinite 𝒜)",
    "comb_gp_ucb", {"discretisation": pi**2 / 2, "radius": RADIUS},
    r"\mathrm{BR}(T) \le \frac{\pi^2}{2} + \sqrt{C_K T K \beta_T \gamma_{TK}}",
    _INF_SCHED_UCB, _ucb_claims("π²/6", "Theorem 3.2 proof, term (2)", True, False), _CORRECTIONS_INF, _INF, True,
    ("comb_gp_ts", "comb_random"))

COMB_GP_BUCB_INF = _theorem(
    "comb_gp_bucb_infinite", "Combinatorial GP-BayesUCB: Bayesian regret, continuous contexts (infinite 𝒜)",
    "comb_gp_bucb", {"discretisation": pi**2 / 3, "radius": RADIUS, "left_term": C_OMEGA * xi / (xi - omega)},
    r"\mathrm{BR}(T) \le \frac{\pi^2}{3} + \sqrt{C_K T K \beta_T \gamma_{TK}} + C_\omega\frac{\xi}{\xi-\omega}",
    _INF_SCHED_BUCB, _ucb_claims("C_ω ξ/(ξ−ω)", "Theorem 3.2 proof, term (2)", True, True),
    _CORRECTIONS_BUCB + _CORRECTIONS_INF, {**_INF, **_BUCB}, True, ("comb_gp_ucb", "comb_random"))

COMB_GP_TS_INF = _theorem(
    "comb_gp_ts_infinite", "Combinatorial GP Thompson sampling: Bayesian regret, continuous contexts (infinite 𝒜)",
    "comb_gp_ts", {"discretisation": 2 * pi**2 / 3, "radius": 2 * RADIUS},
    r"\mathrm{BR}(T) \le \frac{2\pi^2}{3} + 2\sqrt{C_K T K \beta_T \gamma_{TK}}",
    _INF_SCHED_UCB, _ts_claims("π²/6", "Theorem 3.2 proof, term (2)", True), _CORRECTIONS_TS + _CORRECTIONS_INF,
    _INF, True, ("comb_gp_ts_independent", "comb_gp_ucb", "comb_random"))

THEOREMS = (COMB_GP_UCB, COMB_GP_BUCB, COMB_GP_TS, COMB_GP_UCB_INF, COMB_GP_BUCB_INF, COMB_GP_TS_INF)


# ==============================================================================================================
# The paper's experimental claims (what ``boundcheck reproduce`` checks), as data.
#
# The experimental claims of paper 002 (Sandberg, Åkerblom, Chehreghani 2025, §4 "Experiments"), as data.
#
# Experiments (``boundcheck reproduce combinatorial``), on a synthetic road network standing in for the paper's
# Luxembourg and Monaco networks (four routes, one panel each): the algorithm comparison (Fig. 2,
# ``algorithms``), the GP-BUCB parametrisation (Fig. 3, ``bucb``) and the lengthscale sweep (Figs. 4–5,
# ``lengthscale``: one panel per route and model lengthscale). The paper prints no numbers: every claim is an
# ordering read off its plots, tested per route with a paired test over identical functions and noise. "Generally
# lower" is read as lower in mean on the route. The BI methods' "no discernible pattern" across lengthscales is
# not tested: with the environment fixed, BI does not use a lengthscale, so its runs are identical across the
# panels by construction (the report's table of the claims pooled over routes, ``pooled_tests`` in
# ``boundcheck/papers/combinatorial/figures.py``, reports it).
#
# Algorithm names are boundcheck's policy ids, Algorithm 2 variants: ``comb_gp_ucb_alg2``, ``comb_gp_bucb_alg2``,
# ``comb_gp_ts_alg2`` (edges sampled independently, as the paper does), ``comb_bi_*_alg2``,
# ``comb_gp_bucb_half_alg2`` (ξ = 0.5), ``comb_gp_ucb_half_alg2`` (β_t × 0.5).
# ==============================================================================================================
PAPER = "combinatorial"
ROUTES = (1, 2, 3, 4)
LENGTHSCALES = (0.1, 0.5, 1.0, 2.0)
GU, GB, GT = "comb_gp_ucb_alg2", "comb_gp_bucb_alg2", "comb_gp_ts_alg2"
BU, BB, BT = "comb_bi_ucb_alg2", "comb_bi_bucb_alg2", "comb_bi_ts_alg2"
GB_HALF, GU_HALF = "comb_gp_bucb_half_alg2", "comb_gp_ucb_half_alg2"

_FIG2 = "§4 'Algorithm comparison', Fig. 2"
_FIG3 = "§4 'GP-BUCB parametrization', Fig. 3"
_FIG4 = "§4 'Lengthscale', Figs. 4–5"
_LOWER = "mean R_T lower on the route (paired over identical functions and noise)"


def _c(id, experiment, panel, location, wording, reading, kind, subject, others=(), **kw) -> EmpiricalClaim:
    return EmpiricalClaim(id=id, paper=PAPER, experiment=experiment, location=location, wording=wording,
                          reading=reading, kind=kind, metric="regret", subject=subject, others=tuple(others),
                          panels=panel if isinstance(panel, tuple) else (panel,), **kw)


def _fig2(r: int) -> tuple[EmpiricalClaim, ...]:
    p = f"route{r}"
    w = "The results show that the TS-based methods have significantly lower regret than both UCB and BUCB."
    return (
        _c(f"r{r}_gp_ts_best", "algorithms", p, _FIG2, "Thereby, GP-TS yields the best results in terms of "
           "minimizing cumulative regret.", "R_T(GP-TS) below each of the other five methods in mean", "lowest", GT,
           (GU, GB, BU, BB, BT)),
        _c(f"r{r}_bi_ts_lowest", "algorithms", p, _FIG2, w, "R_T(BI-TS) below R_T(BI-UCB) and R_T(BI-BUCB) in mean",
           "lowest", BT, (BU, BB)),
        *(_c(f"r{r}_gp_lt_bi_{i}", "algorithms", p, _FIG2, "Similarly, the GP-based methods generally have lower "
             "regret than their BI-based counterparts.", f"{_LOWER}: GP-{i.upper()} < BI-{i.upper()}", "less", g, (b,),
             note="'generally' read route by route")
          for i, g, b in (("ucb", GU, BU), ("bucb", GB, BB), ("ts", GT, BT))),
        _c(f"r{r}_gp_bucb_lt_ucb", "algorithms", p, _FIG2, "Finally, we observe that GP-BUCB has lower regret than "
           "GP-UCB.", f"{_LOWER}: GP-BUCB < GP-UCB", "less", GB, (GU,)),
    )


def _fig3(r: int) -> tuple[EmpiricalClaim, ...]:
    p = f"route{r}"
    w = ("The experimental results indicate that the parametrization with lower β_t generally has lower cumulative "
         "regret.")
    return (
        _c(f"r{r}_bucb_half_lt_bucb", "bucb", p, _FIG3, w, f"{_LOWER}: GP-BUCB ξ = 0.5 < GP-BUCB ξ = 1", "less",
           GB_HALF, (GB,)),
        _c(f"r{r}_ucb_half_lt_ucb", "bucb", p, _FIG3, w, f"{_LOWER}: GP-UCB β × 0.5 < GP-UCB", "less", GU_HALF, (GU,)),
        _c(f"r{r}_bucb_lt_ucb", "bucb", p, _FIG3, "The theoretically valid β_t values for GP-BUCB are smaller than for "
           "GP-UCB [… lower β_t, lower regret]", f"{_LOWER}: GP-BUCB ξ = 1 < GP-UCB", "less", GB, (GU,)),
    )


def _fig4(r: int) -> tuple[EmpiricalClaim, ...]:
    panels = tuple(f"route{r}_l{ell:g}" for ell in LENGTHSCALES)
    w = "For GP-based methods, increasing the lengthscale increases the cumulative regret overall"
    note = ("the model's feature lengthscale varies over 0.1, 0.5, 1, 2 with the environment's fixed at 1 "
            "([PROPOSED]: Fig. 4's caption says 'prior lengthscale'; the grid is not stated)")
    return tuple(_c(f"r{r}_{name}_lengthscale_trend", "lengthscale", panels, _FIG4, w,
                    f"{label}: per-run slope of R_T on the ordered lengthscales > 0", "increasing", alg, note=note)
                 for name, alg, label in (("gp_bucb", GB, "GP-BUCB"), ("gp_ts", GT, "GP-TS")))


EMPIRICAL = (*(c for r in ROUTES for c in _fig2(r)), *(c for r in ROUTES for c in _fig3(r)),
             *(c for r in ROUTES for c in _fig4(r)))
