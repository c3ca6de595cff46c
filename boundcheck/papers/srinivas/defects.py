"""The generic defect hooks GP-UCB's Theorem 1 (Srinivas et al. 2010) offers (:mod:`boundcheck.claims.defects`);
the paper plants no defect of its own."""

from __future__ import annotations

#: Theorem 1: a width √β_t, the posterior of the true prior, f drawn from a GP prior, the oracle's argmax, an
#: explicit bound
HOOKS = {"gp_ucb": frozenset({"width", "likelihood", "update", "conditioning", "gp_truth", "data_noise", "oracle",
                              "bound"}),
         "gp_ucb_compact": frozenset({"width", "likelihood", "update", "data_noise", "bound", "box_conditioning",
                                      "box_prior", "box_optimiser", "box_truth"})}
DEFECTS = ()
