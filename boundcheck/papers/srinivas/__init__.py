"""Srinivas, Krause, Kakade, Seeger (2010), *Gaussian Process Optimization in the Bandit Setting: No Regret
and Experimental Design* — GP-UCB on a finite domain (Theorem 1).

This module is the paper's manifest (what it defines, how each part is imported): it is what the
``boundcheck.papers`` entry point names, and it imports nothing heavy."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from theory.plugins import Paper


def _theory() -> ModuleType:
    import theory.srinivas as module

    return module


def _family() -> ModuleType:
    from . import family as module

    return module


def _scenarios() -> ModuleType:
    from . import catalogue as module

    return module



def _defects() -> ModuleType:
    from . import defects as module

    return module

PAPER = Paper(
    id="srinivas", title="Gaussian Process Optimization in the Bandit Setting: No Regret and Experimental Design",
    source="Srinivas, Krause, Kakade, Seeger (2010), ICML, arXiv 0912.3995", file="",
    theorems=("gp_ucb",),
    policies=(),
    scenarios=("gp_sample_matern", "gp_sample_se"),
    parts={"theory": _theory, "family": _family, "scenarios": _scenarios, "defects": _defects},
    power_dir=Path(__file__).parent / "power",
    order=1,
    reference=("Niranjan Srinivas, Andreas Krause, Sham M. Kakade, Matthias Seeger (2010). Gaussian Process "
               "Optimization in the Bandit Setting: No Regret and Experimental Design. ICML 2010, "
               "arXiv:0912.3995"),
)
