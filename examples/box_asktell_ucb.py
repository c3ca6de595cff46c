"""GP-UCB on a compact box in the per-run ask/tell form: one object per run, ``ask(t)`` returns a point of the box,
``tell(x, y)`` receives its observation — the way most research code is written.

    boundcheck verify --theorem gp_ucb_compact --algorithm examples/box_asktell_ucb.py:AskTellBoxUCB

boundcheck builds one object per Monte Carlo run, runs its own GP-UCB beside it as a shadow (told this code's points
and observations, never f) and judges Srinivas et al.'s Theorem 2 on what the code did. ``AskTellBoxUCBSquared``
multiplies σ by β_t where the theorem's algorithm multiplies it by √β_t (``ctx.beta[t]`` is already the width):
the conformance claim catches it.
"""

import numpy as np
from scipy.linalg import cho_factor, cho_solve
from scipy.optimize import minimize

from boundcheck.policies import BoxAskTellPolicy


class AskTellBoxUCB(BoxAskTellPolicy):
    """x_t = argmax_{x in the box} μ_{t−1}(x) + w_t σ_{t−1}(x), w_t = ``ctx.beta[t]``: the UCB scored at 512 random
    points, the corners and the data, then L-BFGS-B from the best 5 of them."""

    label = "my GP-UCB (ask/tell)"
    raw_samples, restarts = 512, 5

    def __init__(self, ctx):
        super().__init__(ctx)
        self.X, self.y = np.empty((0, ctx.dim)), np.empty(0)

    def k(self, A, B):
        ell = self.ctx.kernel.lengthscale
        return np.exp(-0.5 * ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1) / ell**2)

    def width(self, t):
        return self.ctx.beta[t]

    def ucb(self, P, w):
        if not len(self.y):
            return np.full(len(P), w)
        c = cho_factor(self.k(self.X, self.X) + self.ctx.noise_var * np.eye(len(self.y)), lower=True)
        kx = self.k(P, self.X)
        var = np.maximum(1.0 - np.einsum("nt,tn->n", kx, cho_solve(c, kx.T)), 0.0)
        return kx @ cho_solve(c, self.y) + w * np.sqrt(var)

    def ask(self, t):
        b, w = self.ctx.bounds, self.width(t)
        corners = np.stack(np.meshgrid(*b, indexing="ij"), axis=-1).reshape(-1, self.ctx.dim)
        raw = b[:, 0] + (b[:, 1] - b[:, 0]) * self.ctx.rng.random((self.raw_samples, self.ctx.dim))
        P = np.vstack([raw, corners, self.X])
        v = self.ucb(P, w)
        res = [minimize(lambda x: -self.ucb(x[None, :], w)[0], s, method="L-BFGS-B", bounds=list(map(tuple, b)))
               for s in P[np.argsort(-v)[: self.restarts]]]
        return max([(-q.fun, q.x) for q in res] + [(v.max(), P[v.argmax()])], key=lambda p: p[0])[1]

    def tell(self, x, y):
        self.X, self.y = np.vstack([self.X, x]), np.append(self.y, y)


class AskTellBoxUCBSquared(AskTellBoxUCB):
    """σ multiplied by β_t instead of √β_t (the width squared once more): not the theorem's algorithm."""

    label = "my GP-UCB, width squared"

    def width(self, t):
        return self.ctx.beta[t] ** 2
