"""Standalone LaTeX of a ``boundcheck reproduce`` report (pdflatex, standard packages, pure ASCII), and the
claims table as a fragment (``tables/claims.tex``) to ``\\input`` in a paper."""

from __future__ import annotations

from .context import fmt
from .figures import MAX_WIDTH_IN, FigureInfo
from .latex import PREAMBLE, ident, pdf_string, tex
from .latex import longtable as _longtable
from .replication import (
    PRINTED_HEAD,
    STAND_IN_HEAD,
    ReplicationContext,
    best_setting_sentence,
    effect_text,
    explore_sentence,
    headline,
    printed_rows,
    replication_note,
    resolution_text,
    stand_in_rows,
    table_cell,
)
from .replication_figures import ReplicationTable, paper_figure_names

__all__ = ["render_latex", "claims_table"]


def _fixed(*widths: float | str) -> str:
    r"""A longtable spec of fixed-width columns: each width a fraction of ``\linewidth`` that *includes* the
    column's padding (``2\tabcolsep``), so fractions summing to at most 1 fit the line; a width given as
    ``"r0.1"`` is a right-aligned (numeric) column. Why fixed: longtable settles the width of an ``l``/``r``
    column only on a second pdflatex pass ("Table widths have changed. Rerun LaTeX."); with fixed widths one
    pass gives the final PDF, as for ``report.tex`` (:mod:`boundcheck.report.latex`)."""
    out = []
    for w in widths:
        right = isinstance(w, str) and w.startswith("r")
        frac = float(w[1:]) if right else float(w)
        out.append(f">{{\\{'raggedleft' if right else 'raggedright'}\\arraybackslash}}"
                   f"p{{\\dimexpr {frac:.3f}\\linewidth-2\\tabcolsep\\relax}}")
    return "".join(out)


def _table(widths: tuple, header: list[str], rows: list[list[str]]) -> str:
    return _longtable(_fixed(*widths), header, rows, raw=True)


def _claim_rows(claims: list[dict]) -> list[list[str]]:
    rows = []
    for c in claims:
        pv = "--" if c.get("p_adj_reproduced") is None else (f"{tex(fmt(c['p_adj_reproduced'], 2))} / "
                                                             f"{tex(fmt(c['p_adj_not_reproduced'], 2))}")
        rows.append([ident(c["id"]) + r"\newline{\footnotesize " + tex(c["location"]) + "}",
                     r"\emph{" + tex(c["wording"]) + r"}\newline{\footnotesize tested: " + tex(c["reading"]) + "}",
                     tex(effect_text(c)), pv, r"\textbf{" + tex(c["verdict"]) + "}"
                     + (r"\newline{\footnotesize " + tex(resolution_text(c)) + "}" if resolution_text(c) else "")])
    return rows


_WIDTHS = (0.17, 0.33, 0.22, 0.13, 0.15)
_HEAD = ["claim", "the paper says / tested as", "effect (simultaneous interval)", "Holm p (false / true)", "verdict"]


def claims_table(ctx: ReplicationContext) -> str:
    """Every judged claim, as a longtable fragment (needs booktabs, longtable, array)."""
    return ("% \\input this in a document with \\usepackage{booktabs,longtable,array}\n"
            + _table(_WIDTHS, _HEAD, _claim_rows(ctx.claims)) + "\n")


def _figure(f: FigureInfo) -> list[str]:
    frac = min(1.0, (f.width_in or MAX_WIDTH_IN) / MAX_WIDTH_IN)
    return [r"\begin{figure}[htbp]\centering",
            f"\\includegraphics[width={frac:.3f}\\linewidth,height=0.5\\textheight,keepaspectratio]"
            f"{{figures/{f.png.name}}}",
            # no \label: nothing refers to a figure, and a label asks for a second pdflatex pass
            r"\caption{\textbf{" + tex(f.title) + ".} " + tex(f.caption) + "}",
            r"\end{figure}"]


def _paper_table(t: ReplicationTable) -> list[str]:
    n = len(t.columns)
    cells = [[str(c) for c in t.columns], *[[table_cell(v) for v in r] for r in t.rows]]
    # every column a wrapping paragraph column, as wide as its longest word asks (a word cannot break: TeX does
    # not hyphenate a cell's first word), so a wide table (paper 001's Table 3 has 18 columns) fits the line;
    # the numeric ones right-aligned
    need = [max([3, *(len(w) for row in cells if i < len(row) for w in str(row[i]).split())]) for i in range(n)]
    widths = tuple(f"r{x / sum(need)}" if i in t.numeric else x / sum(need) for i, x in enumerate(need))
    # a wide table's padding would take a third of the line at the usual 6pt a side
    narrow = r"\setlength{\tabcolsep}{2pt}" if n > 8 else ""
    return [r"\subsection*{" + tex(t.title) + "}",
            r"{\scriptsize" + narrow, _table(widths, [tex(c) for c in t.columns],
                                              [[tex(table_cell(v)) for v in r] for r in t.rows]), "}",
            r"{\small " + tex(t.caption) + r"}\par"]


def render_latex(ctx: ReplicationContext, figs: list[FigureInfo],
                 tables: dict[str, list[ReplicationTable]] | None = None) -> str:
    s, p = ctx.summary, ctx.paper
    head = headline(s)
    by_name = {f.name: f for f in figs}
    L = [PREAMBLE, f"\\hypersetup{{pdftitle={{{pdf_string(head)}}}}}", r"\begin{document}",
         r"\noindent\textbf{" + tex(head) + r"}\par\medskip",
         r"{\LARGE boundcheck reproduce: " + ident(p["id"]) + r"}\par",
         r"{\large " + tex(p["title"]) + " --- " + tex(p["source"]) + r"}\par"
         + (r"{\small " + tex(p["reference"]) + r"}\par" if p.get("reference") else "") + r"\medskip",
         r"\section{Replication note}"]
    for heading, lines in replication_note(s):
        L.append(r"\paragraph{" + tex(heading) + "}")
        L.append(r"\begin{itemize}" + "".join(r"\item " + tex(x) for x in lines) + r"\end{itemize}")
    for x in p.get("notes", []):
        L.append(r"{\small " + tex(x) + r"}\par")
    for exp in ctx.experiments:
        L.append(r"\clearpage")
        L.append(r"\section{" + tex(exp["title"]) + "}")
        L.append(tex(f"{exp['location']}; experiment ") + ident(exp["name"]) + ". " + tex(exp["description"]))
        if exp.get("offline_reason"):
            L.append(r"\par\fbox{\parbox{0.96\linewidth}{\textbf{Not run:} " + tex(exp["offline_reason"]) + "}}")
        elif exp.get("stand_in"):
            L.append(r"\par\fbox{\parbox{0.96\linewidth}{\textbf{Stand-in:} " + tex(exp["stand_in"]) + "}}")
        if exp.get("stand_in_rows"):
            L.append(r"\subsection*{What stands in for the real data}")
            L.append(_table((0.18, 0.41, 0.41), [tex(h) for h in STAND_IN_HEAD],
                            [[tex(c) for c in r] for r in stand_in_rows(exp)]))
        L.append(r"\subsection*{Settings}")
        L.append(_table((0.2, 0.38, 0.12, 0.3), ["setting", "value", "status", "source / why"],
                        [[tex(x["name"]), tex(x["value"]), tex(x["status"]), tex(x.get("source", ""))]
                         for x in exp["settings"]]))
        if exp.get("panel_results"):
            L.append(r"\subsection*{Studies run}")
            L.append(_table((0.2, 0.24, "r0.08", "r0.08", 0.4), ["panel", "scenario", "runs", "T", "stored results"],
                            [[tex(x["title"]), ident(x["scenario"]), tex(fmt(x["runs"])), tex(fmt(x["horizon"])),
                              ident(x["results"])] for x in exp["panel_results"]]))
        mine = [c for c in ctx.claims if c["experiment"] == exp["name"]]
        if mine:
            L.append(r"\subsection*{Claims}")
            L.append(_table(_WIDTHS, _HEAD, _claim_rows(mine)))
        if exp.get("printed_results"):
            L.append(r"\subsection*{The paper's numbers beside ours}")
            L.append(r"{\scriptsize")
            L.append(_table((0.15, 0.11, "r0.1", 0.16, "r0.12", "r0.12", "r0.12", 0.12),
                            [tex(h) for h in PRINTED_HEAD], [[tex(c) for c in r] for r in printed_rows(exp)]))
            L.append("}")
        for t in (tables or {}).get(exp["name"], []):
            L += _paper_table(t)
        for key in paper_figure_names(exp):
            if key in by_name:
                L += _figure(by_name[key])
    if "claims" in by_name:
        L.append(r"\clearpage\section{Effects at a glance}")
        L += _figure(by_name["claims"])
    if ctx.explore:
        L.append(r"\clearpage\section{Sensitivity to the unstated settings}")
        for name, ex in ctx.explore.items():
            L.append(r"\subsection{" + tex(f"{name}: {len(ex['cells'])} settings, {ex['runs']} paired runs each")
                     + "}")
            L.append(tex(ex.get("note", "")))
            L.append(_table((0.25, 0.33, 0.42), ["axis", "levels", "meaning"],
                            [[tex(a["label"]), tex(", ".join(map(str, a["levels"]))), tex(a.get("meaning", ""))]
                             for a in ex["axes"]]))
            for cid, block in ex["claims"].items():
                L.append(r"\paragraph{" + ident(cid) + "} " + tex(explore_sentence(cid, block, ex)))
                f = by_name.get(f"explore_{cid}")
                if f is not None:
                    L += _figure(f)
            if ex.get("best_setting"):
                L.append(r"\paragraph{Every claim at the setting that confirms the most} "
                         + tex(best_setting_sentence(name, ex["best_setting"])))
                L.append(_table(_WIDTHS, _HEAD, _claim_rows(ex["best_setting"]["claims"])))
    L.append(r"\clearpage\section{How the verdicts are reached}")
    L.append(tex("Two one-sided paired t-tests per claim ('the claim is false': reproduced; 'the claim is true': "
                 "not reproduced); intersection-union for conditions that must all hold, Bonferroni for one of "
                 f"several. Budget: {s['budget']}. Intervals are simultaneous (Bonferroni) at the same budget."))
    L.append(r"\section{Configuration and provenance}")
    # a header row: a longtable whose head has none asks for a second pass ("Column widths have changed")
    L.append(_table((0.3, 0.7), ["", "value"], [
        [tex("boundcheck version"), tex(s.get("version"))], [tex("seed"), tex(s.get("seed"))],
        [tex("runs"), tex(s.get("runs") or "each experiment's default")],
        [tex("false-alarm budget"), tex(s.get("false_alarm"))],
        [tex("time taken"), tex(f"{float(s.get('elapsed_s', 0)):.1f} s")]]))
    if ctx.notes:
        L.append(r"\subsection*{Notes}\begin{itemize}" + "".join(r"\item " + tex(n) for n in ctx.notes)
                 + r"\end{itemize}")
    L.append(r"\end{document}")
    return "\n".join(L) + "\n"
