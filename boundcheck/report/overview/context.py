"""The studies below the folders given to ``boundcheck report --index``, read from their stored summaries.

Every results folder (what ``verify`` writes under ``OUT/results``: ``manifest.json`` and ``summary.json``)
becomes one :class:`StudyRow`. Nothing is recomputed; the weak link is the study's own report's
(:func:`boundcheck.report.wording.weak_link`). A folder whose summary cannot be read (damaged, or
a study still running) is returned with the reason, not fatal.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ...errors import BoundcheckError
from ...study.store import ResultStore
from ..context import ReportContext
from ..wording import weak_link

__all__ = ["StudyRow", "collect", "check_roots"]

#: the keys a verify's summary always has (a folder without them is not a verify's results)
_KEYS = ("theorem", "scenario", "verdict", "in_theory", "runs", "horizon", "claims")


@dataclass(frozen=True)
class StudyRow:
    """One study of the index, read from its stored summary."""

    folder: Path  # the results folder (manifest.json, summary.json)
    theorem: str
    scenario: str
    algorithm: str  # the algorithm the claims were checked on
    verdict: str
    in_theory: bool
    reasons: tuple[str, ...]  # why the study is outside the theorem (empty in theory)
    runs: int
    horizon: int
    seed: int | None
    tightness: float | None  # median R_T / Bound(T); None when the summary has none
    weak_link: str | None  # the claim closest to failing, None when no claim failed in any run
    weak_why: str
    report: Path | None  # the study's HTML report (beside its results folder), when written

    def to_dict(self) -> dict:
        """JSON-ready view (paths as strings)."""
        d = {k: getattr(self, k) for k in self.__dataclass_fields__}
        d["folder"], d["reasons"] = str(self.folder), list(self.reasons)
        d["report"] = str(self.report) if self.report else None
        return d


def _is_results(d: Path) -> bool:
    return (d / "manifest.json").is_file() and (d / "summary.json").is_file()


def _find(roots: list[Path]) -> list[Path]:
    """Every results folder at or below ``roots``, each once, in path order. A results folder's own
    subfolders (chunks/) are not searched: studies do not nest."""
    found: set[Path] = set()
    for root in roots:
        for here, dirs, _ in os.walk(root):  # symbolic links to folders are not followed: no cycles
            d = Path(here)
            if _is_results(d):
                found.add(d.resolve())
                dirs.clear()
            else:
                dirs.sort()
    return sorted(found)


def _row(folder: Path) -> StudyRow:
    store = ResultStore(folder)
    manifest = store.require_manifest()
    summary = store.read_json("summary")  # verified against its recorded sha256
    missing = [k for k in _KEYS if k not in summary]
    if missing:
        raise BoundcheckError(f"not a verify's summary (no {', '.join(missing)})")
    ctx = ReportContext(results_dir=folder, summary=summary, manifest=manifest, runs=None, steps=None,
                        gamma=None, theorem=None)  # weak_link reads the claims only
    weak, why = weak_link(ctx)
    med = (summary.get("tightness") or {}).get("median")
    tight = float(med) if isinstance(med, int | float) and med == med else None
    report = folder.parent / "index.html"
    seed = summary.get("seed")
    return StudyRow(folder=folder, theorem=str(summary["theorem"]), scenario=str(summary["scenario"]),
                    algorithm=str(summary.get("main_algorithm") or ""), verdict=str(summary["verdict"]),
                    in_theory=bool(summary["in_theory"]), reasons=tuple(ctx.reasons), runs=int(summary["runs"]),
                    horizon=int(summary["horizon"]), seed=int(seed) if isinstance(seed, int) else None,
                    tightness=tight, weak_link=weak, weak_why=why,
                    report=report if folder.name == "results" and report.is_file() else None)


def check_roots(roots: list[str | Path]) -> list[Path]:
    """``roots`` as paths; one that is missing or not a folder is a :class:`BoundcheckError` (exit 2)."""
    paths = [Path(r) for r in roots]
    for p in paths:
        if not p.exists():
            raise BoundcheckError(f"{p} not found")
        if not p.is_dir():
            raise BoundcheckError(f"{p} is not a directory: give folders that hold verify results")
    return paths


def collect(roots: list[str | Path]) -> tuple[list[StudyRow], list[tuple[Path, str]]]:
    """The studies below ``roots`` (sorted by theorem, scenario, folder) and the results folders that could not
    be read, with the reason. A root that is not a folder is a :class:`BoundcheckError` (exit 2)."""
    paths = check_roots(roots)
    rows, skipped = [], []
    for folder in _find(paths):
        try:
            rows.append(_row(folder))
        except (BoundcheckError, OSError, ValueError, TypeError, KeyError) as exc:
            skipped.append((folder, str(exc).splitlines()[0] if str(exc) else type(exc).__name__))
    rows.sort(key=lambda r: (r.theorem, r.scenario, str(r.folder)))
    return rows, skipped
