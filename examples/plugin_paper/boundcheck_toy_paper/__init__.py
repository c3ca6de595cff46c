"""A toy paper for boundcheck, as an installable plugin (docs/extending/paper.md): known-horizon GP-UCB.

This module is the paper's manifest: what it defines (theorem ids, policy and scenario names) and how each part
is imported. The entry point ``toy_paper = "boundcheck_toy_paper:PAPER"`` in the group ``boundcheck.papers``
(this package's ``pyproject.toml``) is all boundcheck needs to find it; nothing here is imported until a
command asks for one of its names, and then only the part it needs.
"""

from __future__ import annotations

from pathlib import Path

from theory.plugins import Paper, parts_in

PAPER = Paper(
    id="toy_paper",
    title="Known-horizon GP-UCB (a toy paper: boundcheck's plugin example)",
    source="boundcheck's plugin example (examples/plugin_paper), Theorem 1",
    theorems=("toy_ucb", "toy_ucb_overstated"),
    policies=("toy_ucb",),
    scenarios=("toy_gp_sample",),
    notes=("a toy paper: its Theorem 1 is Srinivas et al. (2010)'s Theorem 1 with the horizon known in advance",),
    parts=parts_in(__name__, "theory", "family", "policies", "scenarios", "defects"),
    scenario_dir=Path(__file__).parent / "scenarios",
    power_dir=Path(__file__).parent / "power",
)
