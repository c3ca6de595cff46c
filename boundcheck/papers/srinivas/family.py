"""GP-UCB on a finite domain (Srinivas et al. 2010, Theorem 1), checked by the kernelized family it shares with
paper 004."""

from __future__ import annotations

from boundcheck.claims.families.kernelized import KernelizedFamily
from theory import srinivas

FAMILIES = tuple(KernelizedFamily(th) for th in srinivas.THEOREMS)
