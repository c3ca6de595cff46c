"""GP-UCB (Srinivas et al. 2010) in plain numpy, in boundcheck's per-run ask/tell form.

    boundcheck verify --theorem gp_ucb --algorithm examples/gp_ucb.py:MyGPUCB

boundcheck builds one object per Monte Carlo run from the run's context (the theorem's prior, noise, β_t, ...),
asks it for x_t and tells it y_t; the claims of Srinivas et al.'s Theorem 1 are checked on what it did.
"""

import numpy as np
from scipy.linalg import cho_factor, cho_solve


class MyGPUCB:
    """GP-UCB: x_t = argmax over X_t of μ_{t−1}(x) + β_t σ_{t−1}(x), exact GP posterior refitted each step."""

    records = ("mu", "sigma", "beta")  # optional extras at x_t: they turn on the proof's lemma-level claims

    def __init__(self, ctx):
        self.K, self.m0 = ctx.kernel, ctx.mean  # the prior the theorem gives the algorithm, on ctx.points
        self.lam, self.beta = ctx.noise_var, ctx.beta  # likelihood variance λ and the width schedule β_t
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
