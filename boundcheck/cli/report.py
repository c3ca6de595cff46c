"""``boundcheck report``: its parser and its output (the paths of the rebuilt reports, or of the index page)."""

from __future__ import annotations

from .. import api
from ..errors import BoundcheckError, ExitCode
from . import render
from .options import EXIT_CODES_SIMPLE, add_flags


def add_report(sub) -> None:
    s = sub.add_parser("report", help="rebuild the reports from stored results",
                       description="Rebuild the HTML and LaTeX reports from a results folder (no rerun); every "
                                   "stored file is verified against its recorded sha256. With --index DIR…: one "
                                   "sortable page (and a LaTeX table) over every study below the folders.",
                       epilog=EXIT_CODES_SIMPLE)
    s.add_argument("results_dir", metavar="RESULTS_DIR", nargs="?",
                   help="the --out folder of a verify, or its results/ folder")
    s.add_argument("--index", nargs="*", metavar="DIR",
                   help="instead: one page over every verify's results below the folders DIR… (studies.html, "
                        "studies.tex and the appendix table studies-table.tex; nothing is rerun; --index alone: "
                        "reports) (default: off)")
    s.add_argument("--out-index", dest="index_out", metavar="DIR",
                   help="where --index writes its files (default: the first DIR)")
    add_flags(s, json="print the JSON summary (default: the report paths)")
    s.set_defaults(func=cmd_report, computes=True)


def cmd_report(args) -> int:
    if args.index is not None or args.index_out is not None:
        return _cmd_report_index(args)
    if args.results_dir is None:
        raise BoundcheckError("report needs RESULTS_DIR (a verify's --out folder), or --index DIR… for the page "
                              "over many studies")
    summary = api.rebuild_report(args.results_dir)
    if args.json:
        render.print_json(summary)
    else:
        render.console().print(f"report: {summary['report']['html']}  {summary['report']['tex']}")
    return ExitCode.OK


def _cmd_report_index(args) -> int:
    """``report --index DIR…``: the page over every study below the folders."""
    if args.results_dir is not None:
        raise BoundcheckError(f"report: give either RESULTS_DIR ({args.results_dir}) or --index DIR…, not both "
                              "(the folders to index follow --index)")
    if args.index is None:
        raise BoundcheckError("report --out-index needs --index DIR… (the folders to search for results)")
    res = api.index_report(args.index or ["reports"], args.index_out)  # --index alone: the verifies' default home
    if args.json:
        render.print_json(res)
        return ExitCode.OK
    con = render.console()
    n = len(res["studies"])
    con.print(f"index of {n} stud{'y' if n == 1 else 'ies'}: {res['html']}  {res['tex']}")
    for folder, why in res["skipped"]:
        con.print(f"[dim]not read: {folder}: {why}[/dim]", highlight=False)
    return ExitCode.OK


