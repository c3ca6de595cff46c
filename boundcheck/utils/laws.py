"""The few distribution functions boundcheck's verdicts and diagnostics use (``stats.norm.sf``, ``stats.t.ppf``,
``stats.chi2.cdf``, ``stats.beta.ppf``, ``stats.binom.sf``), computed exactly as ``scipy.stats`` computes them
inside: the same scipy.special functions with the same edge cases (support bounds, q ∈ {0, 1}, invalid
parameters), so the values are bit-for-bit those of scipy.stats (tests/claims/test_verdict_statistics.py)
without importing scipy.stats (≈ 0.4 s for every command, and for every worker that evaluates a claim)."""

from __future__ import annotations

import numpy as np

__all__ = ["stats"]


class _Special:  # scipy.special on first use: importing this module must not pay for it
    def __getattr__(self, attr: str):
        import scipy.special

        return getattr(scipy.special, attr)


special = _Special()


def _ufuncs():
    import scipy.special._ufuncs as scu  # the boost-backed functions scipy.stats itself calls (beta, binomial)

    return scu


def _where(x, *cases):
    """``cases``: (mask, value) pairs applied in order onto ``x`` (a float array); a numpy scalar for a scalar."""
    out = np.array(x, dtype=float, copy=True)
    for mask, value in cases:
        out = np.where(mask, value, out)
    return out[()]


class _Norm:
    @staticmethod
    def cdf(x):
        return special.ndtr(np.asarray(x, dtype=float))[()]

    @staticmethod
    def sf(x):
        return special.ndtr(-np.asarray(x, dtype=float))[()]

    @staticmethod
    def ppf(q):
        return special.ndtri(np.asarray(q, dtype=float))[()]

    @staticmethod
    def isf(q):
        return (-special.ndtri(np.asarray(q, dtype=float)))[()]

    @staticmethod
    def pdf(x):
        x = np.asarray(x, dtype=float)
        return (np.exp(-x**2 / 2.0) / np.sqrt(2 * np.pi))[()]


class _StudentT:
    @staticmethod
    def cdf(x, df):
        x, df = np.broadcast_arrays(np.asarray(x, dtype=float), np.asarray(df, dtype=float))
        return _where(special.stdtr(df, x), (df <= 0, np.nan))

    @staticmethod
    def sf(x, df):
        x, df = np.broadcast_arrays(np.asarray(x, dtype=float), np.asarray(df, dtype=float))
        return _where(special.stdtr(df, -x), (df <= 0, np.nan))

    @staticmethod
    def ppf(q, df):
        q, df = np.broadcast_arrays(np.asarray(q, dtype=float), np.asarray(df, dtype=float))
        with np.errstate(invalid="ignore"):
            inner = special.stdtrit(df, np.clip(q, 0.0, 1.0))
        return _where(inner, (q == 0, -np.inf), (q == 1, np.inf), ((q < 0) | (q > 1) | (df <= 0), np.nan))


class _ChiSquared:
    @staticmethod
    def cdf(x, df):
        x, df = np.broadcast_arrays(np.asarray(x, dtype=float), np.asarray(df, dtype=float))
        return _where(special.chdtr(df, np.maximum(x, 0.0)), (x <= 0, 0.0), (df <= 0, np.nan))

    @staticmethod
    def sf(x, df):
        x, df = np.broadcast_arrays(np.asarray(x, dtype=float), np.asarray(df, dtype=float))
        return _where(special.chdtrc(df, np.maximum(x, 0.0)), (x <= 0, 1.0), (df <= 0, np.nan))


class _Beta:
    @staticmethod
    def ppf(q, a, b):
        q, a, b = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (q, a, b)))
        with np.errstate(invalid="ignore"):
            inner = _ufuncs()._beta_ppf(np.clip(q, 0.0, 1.0), a, b)
        return _where(inner, (q == 0, 0.0), (q == 1, 1.0), ((q < 0) | (q > 1) | (a <= 0) | (b <= 0), np.nan))


class _Binomial:
    @staticmethod
    def sf(k, n, p):
        k, n, p = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (k, n, p)))
        k = np.floor(k)
        with np.errstate(invalid="ignore"):
            inner = _ufuncs()._binom_sf(np.clip(k, 0.0, n), n, p)
        bad = (n < 0) | (n != np.floor(n)) | (p < 0) | (p > 1)
        return _where(inner, (k < 0, 1.0), (k >= n, 0.0), (bad, np.nan))


class _Laws:
    """``stats.norm``, ``stats.t``, ``stats.chi2``, ``stats.beta``, ``stats.binom``: scipy.stats's frozen-free API."""

    norm, t, chi2, beta, binom = _Norm, _StudentT, _ChiSquared, _Beta, _Binomial


stats = _Laws()
