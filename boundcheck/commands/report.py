"""``boundcheck report``: rebuild a verify's reports from its stored results, or index many studies."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import BoundcheckError

if TYPE_CHECKING:


    pass


def write_report(results_dir: str | Path, out_dir: str | Path | None = None) -> dict:
    """(Re)build the HTML and LaTeX reports of a results directory; returns their paths."""
    from ..report import write_reports

    results_dir = Path(results_dir)
    out_dir = results_dir.parent if out_dir is None else Path(out_dir)
    paths = write_reports(results_dir, out_dir)
    return {"html": str(paths["html"]), "tex": str(paths["tex"])}


def rebuild_report(results_dir: str | Path) -> dict:
    """``boundcheck report``: check a stored study (its manifest and summary) and rebuild its HTML and LaTeX
    reports next to it, without running anything. ``results_dir``: the ``out`` folder of a verify, or its
    ``results/`` folder. Returns the stored summary with ``report`` set to the new reports' paths."""
    from ..study.store import ResultStore

    results = Path(results_dir)
    if not results.exists():
        raise BoundcheckError(f"{results} not found")
    if not results.is_dir():
        raise BoundcheckError(f"{results} is not a directory: give the folder verify wrote (OUT or OUT/results)")
    if (results / "results" / "manifest.json").exists():
        results = results / "results"
    store = ResultStore(results)
    store.require_manifest()
    summary = store.read_json("summary")
    missing = [k for k in _SUMMARY_KEYS if k not in summary]
    if missing or not isinstance(summary.get("claims"), list):
        raise BoundcheckError(f"corrupt results file {results / 'summary.json'}: missing "
                              f"{', '.join(missing) or 'the claims list'}; re-run verify to rebuild it")
    summary["report"] = write_report(results, results.parent)
    return summary


_SUMMARY_KEYS = ("theorem", "scenario", "verdict", "in_theory", "runs", "horizon", "delta", "seed", "claims",
                 "bound", "regret")


def index_report(dirs: list[str | Path], out: str | Path | None = None) -> dict:
    """``boundcheck report --index DIR…``: one page over every verify's results folder below ``dirs`` —
    theorem × scenario → verdict, runs, tightness, weak link, in/outside the theorem, a link to each report
    (:mod:`boundcheck.report.overview`). Writes ``studies.html``, ``studies.tex`` and ``studies-table.tex``
    into ``out`` (default: the first of ``dirs``); nothing is rerun.

    Returns
    -------
    dict
        ``html``, ``tex``, ``table`` (the paths written, as strings), ``studies`` (one dict per row) and
        ``skipped`` (``[folder, reason]`` for each results folder that could not be read).
    """
    from ..report.overview import write_overview

    if not dirs:
        raise BoundcheckError("report --index needs at least one folder to search for results")
    res = write_overview(list(dirs), out)
    return {**res, **{k: str(res[k]) for k in ("html", "tex", "table")}}
