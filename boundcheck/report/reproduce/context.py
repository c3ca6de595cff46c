"""The stored results of one ``boundcheck reproduce`` run, read once for the figures and the view model.

``reproduce.json`` (verdicts, settings, the paper's printed numbers beside ours, the explored grid) and, on
demand, each panel's stored steps and algorithm labels (the curves and histograms). Nothing is simulated and no
verdict recomputed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from ...study.store import ResultStore
from ...utils.io import read_json
from ..context import _read_columns

__all__ = ["ReplicationContext", "load_replication"]

_STEPS = ["run", "algorithm", "t", "cum_regret", "prior"]


@dataclass
class ReplicationContext:
    """A reproduce output folder: its summary, and notes on what could not be read or drawn."""

    out_dir: Path
    summary: dict
    notes: list[str] = field(default_factory=list)
    _steps: dict = field(default_factory=dict)
    _manifests: dict = field(default_factory=dict)

    @property
    def paper(self) -> dict:
        return self.summary["paper"]

    @property
    def experiments(self) -> list[dict]:
        return list(self.summary.get("experiments", []))

    @property
    def claims(self) -> list[dict]:
        return list(self.summary.get("claims", []))

    @property
    def explore(self) -> dict:
        return {k: v for k, v in (self.summary.get("explore") or {}).items() if "claims" in v}

    def claim(self, claim_id: str) -> dict | None:
        return next((c for c in self.claims if c["id"] == claim_id), None)

    def _panel(self, exp: str, panel: str) -> dict | None:
        for e in self.experiments:
            if e["name"] == exp:
                return next((p for p in e.get("panel_results", []) if p["name"] == panel), None)
        return None

    def steps(self, exp: str, panel: str) -> pd.DataFrame | None:
        key = (exp, panel)
        if key not in self._steps:
            p = self._panel(exp, panel)
            df = None
            if p is not None:
                try:
                    df = _read_columns(ResultStore(self.out_dir / p["results"]), "steps", _STEPS)
                except Exception as exc:  # noqa: BLE001 - a missing panel still gets a report
                    self.notes.append(f"steps of {exp}/{panel} could not be read: {exc}")
            self._steps[key] = df
        return self._steps[key]

    def _algorithm_info(self, exp: str, panel: str) -> dict:
        key = (exp, panel)
        if key not in self._manifests:
            p = self._panel(exp, panel)
            info = {}
            if p is not None:
                m = ResultStore(self.out_dir / p["results"]).read_manifest() or {}
                info = {a["name"]: a for a in m.get("algorithm_info") or []}
            self._manifests[key] = info
        return self._manifests[key]

    def label(self, exp: str, panel: str, algorithm: str) -> str:
        return str(self._algorithm_info(exp, panel).get(algorithm, {}).get("label") or algorithm)

    def role(self, exp: str, panel: str, algorithm: str) -> str:
        return str(self._algorithm_info(exp, panel).get(algorithm, {}).get("role") or "baseline")


def load_replication(out_dir: Path) -> ReplicationContext:
    """The context of a ``boundcheck reproduce`` output folder (its ``reproduce.json``)."""
    out_dir = Path(out_dir)
    path = out_dir / "reproduce.json"
    if not path.exists():
        from ...errors import BoundcheckError

        raise BoundcheckError(f"{out_dir} has no reproduce.json: not a `boundcheck reproduce` output folder")
    return ReplicationContext(out_dir=out_dir, summary=read_json(path, "reproduce summary"))
