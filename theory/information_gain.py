"""Symbolic growth rates of the maximum information gain γ_T, for display only (pure sympy).

These are *rates without constants*. None of them is a number to plug into a bound. A bound needs a
certified upper bound on γ_T, which the toolkit computes numerically elsewhere. The module never imports
``boundcheck``.

* Srinivas et al. (2010), Theorem 5, for compact convex X ⊂ R^d:
  linear ``O(d log T)``; squared exponential ``O((log T)^{d+1})``; Matérn with ν > 1
  ``O(T^{d(d+1)/(2ν+d(d+1))} log T)``.
* Time-varying kernel ``k_X(x,x') (1−ε)^{|t−t'|/2}`` with k_X ≤ 1 and noise variance σ² = R²:
  Bogunovic et al. (2016), cited form ``(T/Ñ + 1)(γ_Ñ + σ⁻² Ñ³ ε)`` for any block length Ñ. boundcheck
  derives the self-contained form ``⌈T/Ñ⌉(γ_Ñ + ¼ R⁻² Ñ^{5/2} ε)`` (Fischer + concavity of log det +
  ‖E‖_* ≤ Ñ^{3/2} max|E_ij|).
"""

from __future__ import annotations

import sympy as sp

from .core import S

__all__ = [
    "T",
    "d",
    "nu",
    "epsilon",
    "N_tilde",
    "R",
    "gamma_N",
    "NOTE",
    "RATES",
    "rate",
    "block_bound_bogunovic",
    "block_bound_self_contained",
]

T = S.T
R = S.R
d = sp.Symbol("d", positive=True, integer=True)
nu = sp.Symbol("nu", positive=True)
epsilon = sp.Symbol("epsilon", nonnegative=True)
N_tilde = sp.Symbol("N_tilde", positive=True, integer=True)
gamma_N = sp.Function("gamma")(N_tilde)  # stationary MIG of k_X after Ñ points

NOTE = "rate without constants; not a number to plug into a bound"

_SRINIVAS = "Srinivas et al. (2010), Theorem 5"

RATES: dict[str, dict] = {
    "linear": {
        "expr": d * sp.log(T),
        "latex": r"O(d \log T)",
        "source": _SRINIVAS,
        "note": NOTE,
    },
    "rbf": {
        "expr": sp.log(T) ** (d + 1),
        "latex": r"O((\log T)^{d+1})",
        "source": _SRINIVAS + " (squared exponential)",
        "note": NOTE,
    },
    "matern": {
        "expr": T ** (d * (d + 1) / (2 * nu + d * (d + 1))) * sp.log(T),
        "latex": r"O\big(T^{d(d+1)/(2\nu+d(d+1))}\log T\big)",
        "source": _SRINIVAS + " (Matérn, ν > 1)",
        "note": NOTE,
    },
    "time_varying_bogunovic": {
        "expr": (T / N_tilde + 1) * (gamma_N + R**-2 * N_tilde**3 * epsilon),
        "latex": r"\big(\tfrac{T}{\tilde N}+1\big)\big(\gamma_{\tilde N}+\sigma^{-2}\tilde N^3\epsilon\big)",
        "source": "Bogunovic et al. (2016), as cited (σ = R), not proved here; verify before use",
        "note": NOTE + "; an upper-bound expression in γ_Ñ, minimised over Ñ",
    },
    "time_varying_self_contained": {
        "expr": sp.ceiling(T / N_tilde) * (gamma_N + sp.Rational(1, 4) * R**-2 * N_tilde**sp.Rational(5, 2)
                                            * epsilon),
        "latex": r"\lceil T/\tilde N\rceil\big(\gamma_{\tilde N}+\tfrac14R^{-2}\tilde N^{5/2}\epsilon\big)",
        "source": "self-contained alternative (derived; proof in boundcheck.mig)",
        "note": NOTE + "; an upper-bound expression in γ_Ñ, minimised over Ñ",
    },
}

_ALIASES = {
    "linear": ("linear", None),
    "rbf": ("rbf", None),
    "se": ("rbf", None),
    "squared_exponential": ("rbf", None),
    "rbf_paper": ("rbf", None),
    "matern": ("matern", None),
    "matern32": ("matern", sp.Rational(3, 2)),
    "matern52": ("matern", sp.Rational(5, 2)),
}


def rate(kernel: str, d_value=d) -> sp.Expr:
    """Growth rate of γ_T (without constants) for ``kernel`` in dimension ``d_value``.

    ``kernel``: ``linear``, ``rbf`` (aliases ``se``, ``rbf_paper``), ``matern`` (symbolic ν), ``matern32``
    or ``matern52``. ``matern12`` (ν = 1/2) raises ``ValueError``: Srinivas et al.'s Theorem 5 needs
    ν > 1. The result is a sympy expression in ``T`` (and ``nu`` for ``matern``). It is a rate, not a number
    to plug into a bound (see :data:`NOTE`).
    """
    key = str(kernel).lower()
    if key == "matern12":
        raise ValueError("no γ_T rate for Matérn ν = 1/2: Srinivas et al. (2010) Thm 5 needs ν > 1")
    if key not in _ALIASES:
        raise ValueError(f"unknown kernel {kernel!r} for a γ_T rate; choose one of {', '.join(_ALIASES)}")
    base, nu_value = _ALIASES[key]
    expr = RATES[base]["expr"]
    subs = {d: sp.sympify(d_value)}
    if nu_value is not None:
        subs[nu] = nu_value
    return expr.subs(subs)


def block_bound_bogunovic(gamma=gamma_N) -> sp.Expr:
    """Bogunovic et al.'s ``(T/Ñ + 1)(γ_Ñ + R⁻² Ñ³ ε)`` (cited, not derived here)."""
    return (T / N_tilde + 1) * (gamma + R**-2 * N_tilde**3 * epsilon)


def block_bound_self_contained(gamma=gamma_N) -> sp.Expr:
    """The block bound ``⌈T/Ñ⌉(γ_Ñ + ¼ R⁻² Ñ^{5/2} ε)`` (k_X ≤ 1; see ``boundcheck.mig`` for the proof)."""
    return sp.ceiling(T / N_tilde) * (gamma + sp.Rational(1, 4) * R**-2 * N_tilde ** sp.Rational(5, 2) * epsilon)
