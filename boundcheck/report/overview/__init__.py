"""One page over many studies (``boundcheck report --index DIR…``).

:func:`write_overview` reads straight down: collect the studies below the folders (:mod:`.context`: one
:class:`StudyRow` per stored summary, nothing recomputed), build the view model (:mod:`.model`: numbers and
words), render it with the templates under ``templates/overview/`` (:mod:`.render`) and write three files:

* ``studies.html`` — one self-contained page (a column header sorts on click or Enter;
  ``studies.html#sort=tightness-desc`` opens sorted);
* ``studies-table.tex`` — the table as a ``longtable`` fragment to ``\\input`` in a paper's appendix;
* ``studies.tex`` — a standalone document around the fragment (one pdflatex pass).
"""

from __future__ import annotations

from pathlib import Path

from ...errors import BoundcheckError
from ..context import write_text
from .context import StudyRow, check_roots, collect
from .model import view_model
from .render import MARK, TABLE_NAME, render_html, render_table, render_tex

__all__ = ["StudyRow", "collect", "view_model", "render_html", "render_table", "render_tex", "write_overview",
           "HTML_NAME", "TEX_NAME", "TABLE_NAME"]

HTML_NAME, TEX_NAME = "studies.html", "studies.tex"


def write_overview(roots: list[str | Path], out_dir: str | Path | None = None) -> dict:
    """Collect the studies below ``roots`` and write the index into ``out_dir`` (default: the first root).

    Returns
    -------
    dict
        ``html``, ``tex``, ``table``: the files written; ``studies``: one dict per row
        (:meth:`StudyRow.to_dict`); ``skipped``: ``[folder, reason]`` for each results folder not read.
        No results folder at all is a :class:`BoundcheckError` (exit 2).
    """
    check_roots(roots)  # the folders, then where the files go: both before anything is read
    from ...utils.validation import check_output_dir

    out = check_output_dir("--out-index", out_dir if out_dir is not None else roots[0])
    theirs = [n for n in (HTML_NAME, TEX_NAME, TABLE_NAME) if (out / n).is_file() and MARK not in
              (out / n).read_text(encoding="utf-8", errors="replace")[:2000]]
    if theirs:  # never overwrite, without a word, a file of the same name that boundcheck did not write
        raise BoundcheckError(f"--out-index {out} already holds {' and '.join(theirs)} that boundcheck did not "
                              "write; choose another folder (--out-index) or remove them")
    rows, skipped = collect(roots)  # the stored summaries
    if not rows:
        where = ", ".join(str(r) for r in roots)
        raise BoundcheckError(f"no verify results below {where}" + (
            f" ({len(skipped)} results folder{'s' if len(skipped) != 1 else ''} could not be read: "
            f"{skipped[0][0]}: {skipped[0][1]})" if skipped else
            " (a results folder holds manifest.json and summary.json: `boundcheck verify --out DIR` writes one)"))
    out.mkdir(parents=True, exist_ok=True)
    view = view_model(rows, skipped, out.resolve())  # numbers and words
    paths = {"html": write_text(out / HTML_NAME, render_html(view)),
             "table": write_text(out / TABLE_NAME, render_table(view), encoding="ascii"),
             "tex": write_text(out / TEX_NAME, render_tex(view), encoding="ascii")}
    return {**paths, "studies": [r.to_dict() for r in rows],
            "skipped": [[str(p), why] for p, why in skipped]}
