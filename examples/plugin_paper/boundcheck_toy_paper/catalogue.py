"""The toy paper's scenarios: the TOML files in ``scenarios/`` (registered under their file names)."""

from __future__ import annotations

from pathlib import Path

SCENARIO_DIR = Path(__file__).parent / "scenarios"
