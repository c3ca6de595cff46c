"""A theorem of your own, in one file: GP-UCB's regret bound on a finite domain (Srinivas, Krause, Kakade, Seeger
2010, Theorem 1), restated with its explicit constants, and an overstated twin that boundcheck catches.

    boundcheck show examples/my_bound.py:MY_THEOREM
    boundcheck bound examples/my_bound.py:MY_THEOREM --set T=200 --set delta=0.1 --set R=0.15 --set n_X=100 \\
        --set gamma_T=40
    boundcheck verify --theorem examples/my_bound.py:MY_THEOREM --runs 100 --horizon 40             # exit 0
    boundcheck verify --theorem examples/my_bound.py:MY_THEOREM_OVERSTATED --runs 100 --horizon 40  # exit 1

Each theorem says which family checks it (``family="gp_ucb"``: checked like the built-in theorem gp_ucb, on its
scenarios, with its algorithm); every claim it lists must be one that family computes (``boundcheck show
gp_ucb``), and the bound may use only the symbols that family supplies (T, δ, R, |D|, the certified γ_T).
docs/extending.md walks through it.
"""

from __future__ import annotations

import dataclasses

import sympy as sp

from theory import Assumption, Claim, Correction, S, Theorem

T, t, delta, R, n_X, gamma_T, gamma_t = S.T, S.t, S.delta, S.R, S.n_X, S.gamma_T, S.gamma_t


def beta(step: sp.Expr) -> sp.Expr:
    """β_t = 2 log(|D| t² π² / (6δ)), the squared width of the UCB rule (Srinivas et al. 2010, Theorem 1)."""
    return 2 * sp.log(n_X * step**2 * sp.pi**2 / (6 * delta))


# Lemma 5.4 with k(x, x) ≤ 1: σ² ≤ log(1 + σ⁻²σ²)/log(1 + σ⁻²); the 8 is (2√β)² times 2 from the information gain
C1 = 8 / sp.log(1 + R**-2)

MY_THEOREM = Theorem(
    id="my_gp_ucb_bound",
    title="GP-UCB on a finite domain, restated (Srinivas et al. 2010, Theorem 1)",
    paper="Srinivas, Krause, Kakade, Seeger (2010), arXiv:0912.3995",
    source="my restatement of Srinivas et al. (2010), Theorem 1",
    guarantee="high_probability",
    family="gp_ucb",  # checked like the built-in theorem gp_ucb: its scenarios, claim statistics, algorithm
    symbols={
        "T": (T, "horizon"),
        "delta": (delta, "confidence parameter δ ∈ (0, 1)"),
        "R": (R, "noise standard deviation σ"),
        "n_X": (n_X, "|D|, the size of the finite domain"),
        "gamma_T": (gamma_T, "certified upper bound on the maximum information gain γ_T"),
    },
    bound_terms={"information": sp.sqrt(C1 * T * beta(T) * gamma_T)},
    anytime_terms={"information": sp.sqrt(C1 * t * beta(t) * gamma_t)},  # the bound holds for every T at once
    printed=r"R_T \le \sqrt{C_1 T \beta_T \gamma_T},\quad C_1 = 8/\log(1+\sigma^{-2})",
    schedules={"beta_t": beta(t), "width_t": sp.sqrt(beta(t)), "C1": C1},  # the algorithm uses √β_t σ
    assumptions=(
        Assumption("f ~ GP(0, k), drawn fresh per run, and the algorithm is given that prior", "model_is_truth"),
        Assumption("f is static", "static_truth"),
        Assumption("a finite domain D, the same at every step", "fixed_decision_set"),
        Assumption("k(x, x) ≤ 1 for all x ∈ D", "kernel_bounded_by_one"),
        Assumption("Gaussian noise N(0, σ²) with the σ the model uses", "noise_matches"),
        Assumption("β_t is the theoretical schedule", "theoretical_schedules"),
    ),
    claims=(
        Claim("regret_bound", "probability", "R_T ≤ √(C₁ T β_T γ_T)", "Theorem 1", delta, main=True),
        Claim("regret_bound_anytime", "probability", "R_t ≤ √(C₁ t β_t γ_t) for every t ≤ T", "Theorem 1", delta,
              main=True),
        Claim("confidence_event", "probability", "|f(x) − μ_{t−1}(x)| ≤ √β_t σ_{t−1}(x) for all x ∈ D, t ≤ T",
              "Lemma 5.1", delta),
        Claim("D1_optimism", "deterministic", "on the confidence event: r_t ≤ 2√β_t σ_{t−1}(x_t)", "Lemma 5.2"),
        Claim("D3_information", "deterministic", "the chain rule of the information gain; realised gain ≤ γ_t",
              "Lemma 5.3"),
    ),
    corrections=(
        Correction("M1", "Theorem 1", "γ_T, the maximum information gain, is not computable",
                   "a certified upper bound on γ_T", "a lower estimate in an upper bound would make it unsound"),
    ),
    default_scenario="gp_sample_se",
    scenarios=("gp_sample_se", "gp_sample_matern"),
    algorithms=("gp_ucb", "random"),  # the algorithm the theorem is about, then the baselines run beside it
)

#: the same theorem with a bound a hundred times too small: the regret-bound claims are violated (exit 1)
MY_THEOREM_OVERSTATED = dataclasses.replace(
    MY_THEOREM,
    id="my_gp_ucb_bound_overstated",
    title="GP-UCB on a finite domain, overstated: the bound divided by 100",
    bound_terms={"information": sp.sqrt(C1 * T * beta(T) * gamma_T) / 100},
    anytime_terms={"information": sp.sqrt(C1 * t * beta(t) * gamma_t) / 100},
    printed=r"R_T \le \tfrac{1}{100}\sqrt{C_1 T \beta_T \gamma_T}",
)
