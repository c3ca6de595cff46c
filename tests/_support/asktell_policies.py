"""User code in the documented ask/tell form, as a new user writes it, without records.

The correct forms (GP-UCB refitted from scratch each step, GP-TS with an exact joint draw, PE-GP-UCB) and the
near misses a new user makes, each planted by a class attribute of a subclass. The conformance tests, the tests
of the verdicts judged on the shadow's records and the user-policy tests share them. A test that hands one to
the command line names this file: ``f"{asktell_policies.__file__}:BetaSmallUCB"``.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import cho_factor, cho_solve


class UCB:
    """GP-UCB refitted from scratch each step (examples/gp_ucb.py without records). The class attributes plant
    the mistakes a new user makes; at their defaults it is the theorem's algorithm."""

    beta_factor = 1.0  # β_t scaled
    lam_factor = 1.0  # the noise variance in the posterior scaled
    index_var = False  # σ² in the index instead of σ
    lam_zero = False  # no noise in the posterior
    beta_lag = 0  # β_{t−1} for β_t
    lam_is_sd = False  # λ = R instead of R²
    deviate_at = None  # the step at which it takes the argmin of its index instead of the argmax

    def __init__(self, ctx):
        self.K, self.m0 = ctx.kernel, ctx.mean
        lam = 1e-9 if self.lam_zero else (ctx.noise_sd if self.lam_is_sd else ctx.noise_var)
        self.lam = lam * self.lam_factor
        self.beta = np.asarray(ctx.beta) * self.beta_factor
        self.X, self.y = [], []

    def ask(self, t, available):
        mu, sd = self.m0.copy(), np.sqrt(np.diag(self.K))
        if self.X:
            X = np.array(self.X)
            c = cho_factor(self.K[np.ix_(X, X)] + self.lam * np.eye(len(X)), lower=True)
            Kx = self.K[:, X]
            mu = self.m0 + Kx @ cho_solve(c, np.array(self.y) - self.m0[X])
            sd = np.sqrt(np.maximum(np.diag(self.K) - np.einsum("ij,ji->i", Kx, cho_solve(c, Kx.T)), 0.0))
        w = self.beta[max(t - self.beta_lag, 1)]
        ucb = mu + w * (sd**2 if self.index_var else sd)
        if t == self.deviate_at:
            return int(np.argmin(np.where(available, ucb, np.inf)))
        return int(np.argmax(np.where(available, ucb, -np.inf)))

    def tell(self, x, y):
        self.X.append(x)
        self.y.append(y)


class BetaSmallUCB(UCB):
    beta_factor = 0.05


class Width099(UCB):
    beta_factor = 0.99


class LambdaLargeUCB(UCB):
    lam_factor = 25.0


class VarianceIndexUCB(UCB):
    index_var = True


class NoNoiseUCB(UCB):
    lam_zero = True


class LaggedBetaUCB(UCB):
    beta_lag = 1


class LambdaIsRUCB(UCB):
    lam_is_sd = True


class OffAtStep5(UCB):
    deviate_at = 5


class TS:
    """GP-TS: f̃ = μ + ``scale``·v_t·σ·z, an exact joint draw on the domain (eigendecomposition)."""

    scale = 1.0

    def __init__(self, ctx):
        self.K, self.m0, self.lam, self.v, self.rng = ctx.kernel, ctx.mean, ctx.noise_var, ctx.beta, ctx.rng
        self.X, self.y = [], []

    def ask(self, t, available):
        mu, cov = self.m0.copy(), self.K.copy()
        if self.X:
            X = np.array(self.X)
            A = self.K[np.ix_(X, X)] + self.lam * np.eye(len(X))
            Kx = self.K[:, X]
            mu = self.m0 + Kx @ np.linalg.solve(A, np.array(self.y) - self.m0[X])
            cov = self.K - Kx @ np.linalg.solve(A, Kx.T)
        w, V = np.linalg.eigh((cov + cov.T) / 2)
        f = mu + self.scale * self.v[t] * (V * np.sqrt(np.maximum(w, 0.0))) @ self.rng.standard_normal(len(mu))
        return int(np.argmax(np.where(available, f, -np.inf)))

    def tell(self, x, y):
        self.X.append(x)
        self.y.append(y)


class NarrowTS(TS):
    scale = 0.05


class PEGPUCB:
    """PE-GP-UCB (Ziomek, Adachi, Osborne 2024, Algorithm 1) as a user writes it: one GP per candidate prior on
    the ε chain (Cov(f_s(x), f_t(x')) = (1 − ε)^{|t−s|/2} k(x, x')), the joint argmax over (x, p) among the active
    priors, and the elimination test on the noise sums; no records."""

    def __init__(self, ctx):
        self.priors, self.lam, self.beta, self.xi = ctx.priors, ctx.noise_var, ctx.beta, ctx.xi
        P = len(self.priors)
        self.active = np.ones(P, dtype=bool)
        self.sum_eta, self.sum_w, self.count = np.zeros(P), np.zeros(P), np.zeros(P)
        self.X, self.T, self.y = [], [], []

    def _posterior(self, p, t):
        pr = self.priors[p]
        K, m0, eps = np.asarray(pr.K), np.asarray(pr.mean), float(pr.eps)
        if not self.X:
            return m0.copy(), np.sqrt(np.diag(K))
        X, s = np.array(self.X), np.array(self.T, dtype=float)
        decay = (1.0 - eps) ** (np.abs(s[:, None] - s[None, :]) / 2)
        c = cho_factor(K[np.ix_(X, X)] * decay + self.lam * np.eye(len(X)), lower=True)
        Kx = K[:, X] * (1.0 - eps) ** ((t - s)[None, :] / 2)
        mu = m0 + Kx @ cho_solve(c, np.array(self.y) - m0[X])
        sd = np.sqrt(np.maximum(np.diag(K) - np.einsum("ij,ji->i", Kx, cho_solve(c, Kx.T)), 0.0))
        return mu, sd

    def ask(self, t, available):
        best = (-np.inf, 0, 0)
        self.post = {}
        for p in np.flatnonzero(self.active):
            mu, sd = self.post[p] = self._posterior(p, t)
            ucb = np.where(available, mu + self.beta[t] * sd, -np.inf)
            x = int(np.argmax(ucb))
            if ucb[x] > best[0]:
                best = (ucb[x], int(p), x)
        _, self.p, x = best
        mu, sd = self.post[self.p]
        self.mu_t, self.w_t, self.t = mu[x], self.beta[t] * sd[x], t
        return x

    def tell(self, x, y):
        p, t = self.p, self.t
        self.sum_eta[p] += y - self.mu_t
        self.sum_w[p] += self.w_t
        self.count[p] += 1
        fails = abs(self.sum_eta[p]) > np.sqrt(self.xi[t] * self.count[p]) + self.sum_w[p]
        if fails and self.active.sum() > 1:
            self.active[p] = False
        self.X.append(x)
        self.T.append(t)
        self.y.append(y)


class Uniform:
    """Not GP-UCB at all: uniformly random queries."""

    def __init__(self, ctx):
        self.rng = ctx.rng

    def ask(self, t, available):
        return int(self.rng.choice(np.flatnonzero(available)))

    def tell(self, x, y):
        pass
