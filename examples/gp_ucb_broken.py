"""A deliberately broken copy of examples/gp_ucb.py: β_t is 20 times too small (a common tuning "trick").

    boundcheck verify --theorem gp_ucb --algorithm examples/gp_ucb_broken.py:NarrowGPUCB     # exit 1

Its regret may even look good; the proof's optimism step (D1: UCB_{t−1}(x_t) ≥ max f on the confidence event)
fails at once, and boundcheck reports the claim violated.
"""

import numpy as np
from scipy.linalg import cho_factor, cho_solve


class NarrowGPUCB:
    """GP-UCB with β_t / 20: broken on purpose (otherwise a copy of examples/gp_ucb.py)."""

    records = ("mu", "sigma", "beta")  # optional extras at x_t: they turn on the proof's lemma-level claims

    def __init__(self, ctx):
        self.K, self.m0 = ctx.kernel, ctx.mean  # the prior the theorem gives the algorithm, on ctx.points
        self.lam, self.beta = ctx.noise_var, ctx.beta / 20.0  # BROKEN: β_t 20 times too small
        self.X, self.y = [], []

    def posterior(self):
        """μ_{t−1} and σ_{t−1} on the whole domain given the data so far."""
        if not self.X:
            return self.m0.copy(), np.sqrt(np.diag(self.K))
        X = np.array(self.X)
        c = cho_factor(self.K[np.ix_(X, X)] + self.lam * np.eye(len(X)), lower=True)
        Kx = self.K[:, X]
        mu = self.m0 + Kx @ cho_solve(c, np.array(self.y) - self.m0[X])
        var = np.diag(self.K) - np.einsum("ij,ji->i", Kx, cho_solve(c, Kx.T))
        return mu, np.sqrt(np.maximum(var, 0.0))

    def ask(self, t, available):
        mu, sd = self.posterior()
        ucb = np.where(available, mu + self.beta[t] * sd, -np.inf)
        x = int(np.argmax(ucb))  # ties: the lowest index
        self.record = {"mu": mu[x], "sigma": sd[x], "beta": self.beta[t]}
        return x

    def tell(self, x, y):
        self.X.append(x)
        self.y.append(y)
