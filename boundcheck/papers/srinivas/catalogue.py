"""GP-UCB's scenarios (Srinivas et al. 2010, Theorem 1): f drawn from the GP prior the algorithm uses, on paper
004's decision set (files in ``scenarios/``)."""

from __future__ import annotations

from pathlib import Path

#: the scenario files (registered under their file names)
SCENARIO_DIR = Path(__file__).parent / "scenarios"
