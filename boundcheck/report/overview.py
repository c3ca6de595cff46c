"""One page over many studies (``boundcheck report --index DIR…``).

Every results folder below the given folders (what ``verify`` writes under ``OUT/results``: ``manifest.json``
and ``summary.json``) becomes one row: theorem × scenario → verdict, runs, horizon, tightness (the median of
R_T / Bound(T) over the runs of the checked algorithm), the weak link of the proof (the claim closest to
failing, as the study's own report names it: :meth:`ReportContext.weak_link`), in or outside the theorem, and a
link to the study's report. Three files are written:

* ``studies.html`` — one self-contained page (no network: the sorting is a few lines of inline JavaScript;
  a column header sorts on click or Enter, and ``studies.html#sort=tightness-desc`` opens sorted);
* ``studies-table.tex`` — the table as a ``longtable`` fragment to ``\\input`` in a paper's appendix (needs
  ``booktabs``, ``longtable`` and ``array``);
* ``studies.tex`` — a standalone document around the fragment (one pdflatex pass).

Nothing is recomputed: the numbers are the stored summaries'. A folder whose summary cannot be read (damaged,
or a study still running) is listed under the table with the reason, not fatal.
"""

from __future__ import annotations

import html
import os
from dataclasses import dataclass
from pathlib import Path

from ..errors import BoundcheckError
from ..study.store import ResultStore
from .context import OUTSIDE, ReportContext, fmt, write_text

__all__ = ["StudyRow", "collect", "write_overview", "HTML_NAME", "TEX_NAME", "TABLE_NAME"]

HTML_NAME, TEX_NAME, TABLE_NAME = "studies.html", "studies.tex", "studies-table.tex"
#: in the first lines of every file the index writes: a later index may overwrite it (and only it)
_MARK = "boundcheck report --index"

#: the keys a verify's summary always has (a folder without them is not a verify's results)
_KEYS = ("theorem", "scenario", "verdict", "in_theory", "runs", "horizon", "claims")
#: sort rank of a verdict: the rows that need a reader's attention first
_RANK = {"violated": 0, "incomplete": 1, "inconclusive": 2, "holds": 3}


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
    weak, why = ctx.weak_link()
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


def _check_roots(roots: list[str | Path]) -> list[Path]:
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
    paths = _check_roots(roots)
    rows, skipped = [], []
    for folder in _find(paths):
        try:
            rows.append(_row(folder))
        except (BoundcheckError, OSError, ValueError, TypeError, KeyError) as exc:
            skipped.append((folder, str(exc).splitlines()[0] if str(exc) else type(exc).__name__))
    rows.sort(key=lambda r: (r.theorem, r.scenario, str(r.folder)))
    return rows, skipped


# ------------------------------------------------------------------------------------------------ HTML
def _e(text) -> str:
    return html.escape(str(text), quote=True)


def _rel(target: Path, start: Path) -> str:
    """A link from the index to ``target``: relative (the folders move together), as a URL path."""
    return Path(os.path.relpath(target, start)).as_posix()


# sorting: numbers (data-type="num") by value, missing ones last either way; ties keep the page's order
_SCRIPT = """
(function () {
  var table = document.getElementById("studies"), body = table.tBodies[0];
  var heads = Array.prototype.slice.call(table.tHead.rows[0].cells);
  function key(td, num) {
    var v = td.hasAttribute("data-sort") ? td.getAttribute("data-sort") : td.textContent.trim();
    if (!num) return v.toLowerCase();
    var x = parseFloat(v);
    return isNaN(x) ? null : x;
  }
  function sort(col, desc) {
    var num = heads[col].getAttribute("data-type") === "num";
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = key(a.cells[col], num), y = key(b.cells[col], num);
      if (x === null || y === null) {
        if (x !== y) return x === null ? 1 : -1;
      } else if (x !== y) {
        return (x < y ? -1 : 1) * (desc ? -1 : 1);
      }
      return a.getAttribute("data-i") - b.getAttribute("data-i");
    });
    rows.forEach(function (r) { body.appendChild(r); });
    heads.forEach(function (h, i) {
      h.setAttribute("aria-sort", i === col ? (desc ? "descending" : "ascending") : "none");
    });
    table.setAttribute("data-sorted", heads[col].getAttribute("data-key") + (desc ? "-desc" : ""));
  }
  heads.forEach(function (h, i) {
    h.tabIndex = 0;
    h.title = "sort by this column (again: reverse)";
    function go() { sort(i, h.getAttribute("aria-sort") === "ascending"); }
    h.addEventListener("click", go);
    h.addEventListener("keydown", function (ev) {
      if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); go(); }
    });
  });
  var m = /sort=([a-z_]+?)(-desc)?$/.exec(window.location.hash), col = 0, desc = false;
  if (m) {
    heads.forEach(function (h, i) { if (h.getAttribute("data-key") === m[1]) { col = i; desc = !!m[2]; } });
  }
  sort(col, desc);
})();
"""

_CSS = """
th[data-key] { cursor: pointer; user-select: none; white-space: nowrap; }
th[aria-sort="ascending"]::after { content: " \\25B2"; font-size: 10px; }
th[aria-sort="descending"]::after { content: " \\25BC"; font-size: 10px; }
table.studies .id { white-space: nowrap; } td.weak { min-width: 16em; } td.why { max-width: 26em; }
.badge.out { background: #7a5200; }
"""

#: (key, header, numeric?) of the columns, in order
_COLUMNS = (("theorem", "theorem", False), ("scenario", "scenario", False), ("verdict", "verdict", True),
            ("theory", "theory", False), ("runs", "runs", True), ("horizon", "T", True),
            ("tightness", "tightness", True), ("weak_link", "weak link of the proof", False),
            ("study", "study", False))


def render_html(rows: list[StudyRow], skipped: list[tuple[Path, str]], out_dir: Path) -> str:
    """The index page (links relative to ``out_dir``, where it is written)."""
    from .html import CSS, badge

    counts = {v: sum(r.verdict == v for r in rows) for v in ("holds", "violated", "inconclusive", "incomplete")}
    outside = sum(not r.in_theory for r in rows)
    line = (f"{len(rows)} stud{'y' if len(rows) == 1 else 'ies'}: "
            + ", ".join(f"{n} {v}" for v, n in counts.items() if n)
            + (f"; {outside} outside the theorem (negative controls: their verdicts are not theorem failures)"
               if outside else "; every one in theory"))
    heads = "".join(f'<th data-key="{k}"' + (' data-type="num" class="num"' if num and k != "verdict" else
                                             ' data-type="num"' if num else "") + f">{_e(h)}</th>"
                    for k, h, num in _COLUMNS)
    body = []
    for i, r in enumerate(rows):
        theory = ('<span class="badge yes">in</span>' if r.in_theory else
                  f'<span class="badge out" title="{_e("; ".join(r.reasons))}">outside</span>')
        tight = (f'<td class="num" data-sort="{r.tightness!r}" title="median R_T / Bound(T); the bound is '
                 f'{_e(fmt(1 / r.tightness, 3))}× the median regret">{_e(fmt(r.tightness, 3))}</td>'
                 if r.tightness and r.tightness > 0 else '<td class="num" data-sort="">—</td>')
        weak = (f'<td class="weak"><span class="id">{_e(r.weak_link)}</span><br>'
                f'<span class="small mute">{_e(r.weak_why)}</span></td>' if r.weak_link else
                f'<td class="weak" data-sort="~"><span class="small mute">{_e(r.weak_why)}</span></td>')
        where = _rel(r.folder.parent if r.folder.name == "results" else r.folder, out_dir)  # verify's --out
        study = (f'<a href="{_e(_rel(r.report, out_dir))}">report</a> <span class="small mute">{_e(where)}</span>'
                 if r.report else f'<span class="small mute">{_e(where)} (no report)</span>')
        body.append(
            f'<tr data-i="{i}"><td><span class="id">{_e(r.theorem)}</span></td>'
            f'<td><span class="id">{_e(r.scenario)}</span></td>'
            f'<td data-sort="{_RANK.get(r.verdict, 9)}">{badge(r.verdict)}</td>'
            f'<td data-sort="{0 if r.in_theory else 1}">{theory}</td>'
            f'<td class="num">{r.runs}</td><td class="num">{r.horizon}</td>{tight}{weak}'
            f'<td class="why">{study}</td></tr>')
    notes = ""
    if skipped:
        notes = ("<h2>Results folders not read</h2><ul>"
                 + "".join(f"<li><code>{_e(_rel(p, out_dir))}</code>: {_e(why)}</li>" for p, why in skipped)
                 + "</ul>")
    explain = ("<p class='small mute'>Tightness: the median over the runs of R_T / Bound(T), the final regret of "
               "the checked algorithm over the explicit bound at the horizon (1/tightness is the bound's slack). "
               "Weak link: the claim of the proof closest to failing. "
               f"{_e(OUTSIDE.capitalize())} (outside): the scenario or configuration misses an assumption of "
               "the theorem (hover for which). Click a column header to sort (again: reverse); "
               "<code>#sort=tightness-desc</code> in the address opens the page sorted.</p>")
    return "\n".join([
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f'<meta name="generator" content="{_MARK}">',
        f"<title>boundcheck: {_e(line)}</title>",
        f"<style>{CSS}{_CSS}</style></head><body><main>",
        "<h1>boundcheck: studies at a glance</h1>",
        f"<p class='sub' id='counts'>{_e(line)}</p>",
        f'<table id="studies" class="studies"><thead><tr>{heads}</tr></thead><tbody>{"".join(body)}</tbody>'
        "</table>",
        explain,
        notes,
        f"<script>{_SCRIPT}</script>",
        "</main></body></html>",
    ])


# ----------------------------------------------------------------------------------------------- LaTeX
def _cell_id(text: str) -> str:
    """An identifier in typewriter that may break after an underscore (a narrow appendix column)."""
    from .latex import ident

    return ident(text).replace(r"\_", r"\_\allowbreak{}")


#: (header, width, alignment) of the LaTeX columns: the short ones in em (their widest entry: a bold
#: "inconclusive", "outside", 30000, 1.73e-04), the identifiers' ones a share of what is left of the line
_FIXED = r"20em-16\tabcolsep"  # subtracted from the line: the short columns and every column's padding
_TEX_COLUMNS = (("theorem", rf"\dimexpr(\linewidth-{_FIXED})*36/100\relax", "raggedright"),
                ("scenario", rf"\dimexpr(\linewidth-{_FIXED})*32/100\relax", "raggedright"),
                ("verdict", "6.2em", "raggedright"), ("theory", "4em", "raggedright"),
                ("runs", "2.6em", "raggedleft"), ("$T$", "2.8em", "raggedleft"),
                (r"tight\-ness", "4.4em", "raggedleft"),
                ("weak link", rf"\dimexpr(\linewidth-{_FIXED})*31/100\relax", "raggedright"))


def render_table(rows: list[StudyRow]) -> str:
    """The index as a ``longtable`` fragment. Every column has a fixed width (:data:`_TEX_COLUMNS`): longtable
    then needs no second pdflatex pass to settle the widths, and the table fills the line without running into
    the margin (identifiers break after an underscore on a narrow page)."""
    from .latex import tex

    spec = "".join(f">{{\\{al}\\arraybackslash}}p{{{w}}}" for _, w, al in _TEX_COLUMNS)
    lines = [f"% {_MARK}: one row per study; needs booktabs, longtable and array",
             r"\begingroup\footnotesize\setlength{\tabcolsep}{3pt}\setlength{\LTleft}{0pt}",
             r"\begin{longtable}{" + spec + "}", r"\toprule", " & ".join(h for h, _, _ in _TEX_COLUMNS) + r" \\",
             r"\midrule", r"\endhead", r"\bottomrule", r"\endlastfoot"]
    for r in rows:
        verdict = tex(r.verdict) if r.verdict == "holds" else r"\textbf{" + tex(r.verdict) + "}"
        lines.append(" & ".join([
            _cell_id(r.theorem), _cell_id(r.scenario), verdict, "in" if r.in_theory else r"\textbf{outside}",
            str(r.runs), str(r.horizon), tex(fmt(r.tightness, 3)) if r.tightness else "--",
            _cell_id(r.weak_link) if r.weak_link else "none"]) + r" \\")
    lines += [r"\end{longtable}", r"\endgroup"]
    return "\n".join(lines) + "\n"


def render_tex(rows: list[StudyRow]) -> str:
    """A standalone pdflatex document around :data:`TABLE_NAME`."""
    outside = sum(not r.in_theory for r in rows)
    return "\n".join([
        f"% {_MARK}: the standalone document around {TABLE_NAME} (one pdflatex pass)",
        r"\documentclass[10pt]{article}",
        r"\IfFileExists{lmodern.sty}{\usepackage[T1]{fontenc}\usepackage{lmodern}}{}",
        r"\usepackage{amsmath,booktabs,longtable,array}",
        r"\usepackage[margin=1.5cm]{geometry}",
        r"\setlength{\parindent}{0pt}",
        r"\begin{document}",
        r"{\Large boundcheck: studies at a glance}\par\medskip",
        f"{len(rows)} studies"
        + (f", {outside} outside the theorem (negative controls: their verdicts are not theorem failures)"
           if outside else ", every one in theory")
        + r". Tightness: median over the runs of $R_T/\mathrm{Bound}(T)$. Weak link: the claim of the proof "
          r"closest to failing.\par\medskip",
        r"\input{" + TABLE_NAME + "}",
        r"\end{document}",
    ]) + "\n"


def write_overview(roots: list[str | Path], out_dir: str | Path | None = None) -> dict:
    """Collect the studies below ``roots`` and write the index into ``out_dir`` (default: the first root).

    Returns
    -------
    dict
        ``html``, ``tex``, ``table``: the files written; ``studies``: one dict per row
        (:meth:`StudyRow.to_dict`); ``skipped``: ``[folder, reason]`` for each results folder not read.
        No results folder at all is a :class:`BoundcheckError` (exit 2).
    """
    _check_roots(roots)  # the folders, then where the files go: both before anything is read
    from ..utils.validation import check_output_dir

    out = check_output_dir("--out-index", out_dir if out_dir is not None else roots[0])
    theirs = [n for n in (HTML_NAME, TEX_NAME, TABLE_NAME) if (out / n).is_file() and _MARK not in
              (out / n).read_text(encoding="utf-8", errors="replace")[:2000]]
    if theirs:  # never overwrite, without a word, a file of the same name that boundcheck did not write
        raise BoundcheckError(f"--out-index {out} already holds {' and '.join(theirs)} that boundcheck did not "
                              "write; choose another folder (--out-index) or remove them")
    rows, skipped = collect(roots)
    if not rows:
        where = ", ".join(str(r) for r in roots)
        raise BoundcheckError(f"no verify results below {where}" + (
            f" ({len(skipped)} results folder{'s' if len(skipped) != 1 else ''} could not be read: "
            f"{skipped[0][0]}: {skipped[0][1]})" if skipped else
            " (a results folder holds manifest.json and summary.json: `boundcheck verify --out DIR` writes one)"))
    out.mkdir(parents=True, exist_ok=True)
    base = out.resolve()
    paths = {"html": write_text(out / HTML_NAME, render_html(rows, skipped, base)),
             "table": write_text(out / TABLE_NAME, render_table(rows), encoding="ascii"),
             "tex": write_text(out / TEX_NAME, render_tex(rows), encoding="ascii")}
    return {**paths, "studies": [r.to_dict() for r in rows],
            "skipped": [[str(p), why] for p, why in skipped]}

