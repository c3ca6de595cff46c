"""The studies page's view model: one row per study as numbers and words, no markup.

:func:`view_model` is pure (it reads the collected :class:`~.context.StudyRow` list and writes nothing); the
templates under ``report/templates/overview/`` turn it into ``studies.html``, ``studies-table.tex`` and
``studies.tex``. Links are relative to the folder the page is written to (the folders move together).
"""

from __future__ import annotations

import os
from pathlib import Path

from ..wording import OUTSIDE, VERDICT_HELP, fmt
from .context import StudyRow

__all__ = ["view_model", "COLUMNS", "RANK"]

#: sort rank of a verdict: the rows that need a reader's attention first
RANK = {"violated": 0, "incomplete": 1, "inconclusive": 2, "holds": 3}

#: (key, header, numeric?) of the page's columns, in order (the key names the column in ``#sort=KEY``)
COLUMNS = (("theorem", "theorem", False), ("scenario", "scenario", False), ("verdict", "verdict", True),
           ("theory", "theory", False), ("runs", "runs", True), ("horizon", "T", True),
           ("tightness", "tightness", True), ("weak_link", "weak link of the proof", False),
           ("study", "study", False))


def _rel(target: Path, start: Path) -> str:
    """A link from the index to ``target``: relative (the folders move together), as a URL path."""
    return Path(os.path.relpath(target, start)).as_posix()


def _row(r: StudyRow, out_dir: Path) -> dict:
    t = r.tightness
    return {"theorem": r.theorem, "scenario": r.scenario, "verdict": r.verdict,
            "verdict_help": VERDICT_HELP.get(r.verdict, ""), "rank": RANK.get(r.verdict, 9),
            "in_theory": r.in_theory, "reasons": "; ".join(r.reasons), "runs": r.runs, "horizon": r.horizon,
            # the page shows (and sorts on) a positive tightness only; the table prints any nonzero one
            "tightness": repr(t) if t else None, "tight": fmt(t, 3) if t else None,
            "slack": fmt(1 / t, 3) if t and t > 0 else None,
            "weak_link": r.weak_link, "weak_why": r.weak_why,
            "where": _rel(r.folder.parent if r.folder.name == "results" else r.folder, out_dir),  # verify's --out
            "report": _rel(r.report, out_dir) if r.report else None}


def view_model(rows: list[StudyRow], skipped: list[tuple[Path, str]], out_dir: Path) -> dict:
    """The studies page: the counts line, one dict per row, and the folders not read (links relative to
    ``out_dir``, where the page is written)."""
    counts = {v: sum(r.verdict == v for r in rows) for v in ("holds", "violated", "inconclusive", "incomplete")}
    outside = sum(not r.in_theory for r in rows)
    theory = (f"{outside} outside the theorem (negative controls: their verdicts are not theorem failures)"
              if outside else "every one in theory")
    line = (f"{len(rows)} stud{'y' if len(rows) == 1 else 'ies'}: "
            + ", ".join(f"{n} {v}" for v, n in counts.items() if n) + f"; {theory}")
    return {"line": line, "count": len(rows), "theory": theory, "outside_label": OUTSIDE.capitalize(),
            "columns": [{"key": k, "header": h, "numeric": num} for k, h, num in COLUMNS],
            "rows": [_row(r, out_dir) for r in rows],
            "skipped": [{"where": _rel(p, out_dir), "why": why} for p, why in skipped]}
