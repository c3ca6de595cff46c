"""PE-GP-UCB's explicit regret bound written out from the paper (Theorem 4.1, Lemmas 5.1–5.3, App. C).

An independent reference: the theory module's bound is compared with it, never computed through it.
"""

import math


def spec_bound(T, nU, R, delta, nX, gamma_T, mu_star_max):  # from Theorem 4.1, Lemmas 5.1–5.3, App. C
    beta = lambda t: math.sqrt(2 * math.log(T * nX * math.pi**2 * t**2 / (3 * delta)))  # noqa: E731
    xi_T = 2 * R**2 * math.log(nU * math.pi**2 * T**2 / (3 * delta))
    B = beta(1) + mu_star_max
    C = 2 / math.log(1 + R**-2)
    return 2 * nU * B + 2 * math.sqrt(nU * xi_T * T) + 2 * beta(T) * math.sqrt(C * T * nU * gamma_T)
