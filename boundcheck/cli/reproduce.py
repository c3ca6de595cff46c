"""``boundcheck reproduce``: its parser and its output (per experiment: each claim's verdict and effect, the
paper's printed numbers beside ours; ``--all``: one line per paper)."""

from __future__ import annotations

import sys
import textwrap

from .. import api
from ..errors import BoundcheckError, ExitCode
from . import render
from .options import JOBS_HELP, STOPPED, add_flags, exit_codes_text, integer

EXIT_CODES_REPRODUCE = exit_codes_text({
    ExitCode.OK: 'no empirical claim "not reproduced" (reproduced or inconclusive: the table says which)',
    ExitCode.VIOLATED: "some empirical claim not reproduced", ExitCode.BAD_INPUT: None,
    **STOPPED})


def add_reproduce(sub) -> None:
    s = sub.add_parser("reproduce", help="run a paper's experiments and judge its empirical claims",
                       description="Run a paper's experiments (stated settings, documented guesses where the paper "
                                   "is silent) and judge its empirical claims with paired tests inside one "
                                   "false-alarm budget. Exit 0: no claim 'not reproduced'; 1: some claim not "
                                   "reproduced.", epilog_fn=reproduce_epilog)
    s.add_argument("paper", nargs="?", help="paper id, one of those listed below (required unless --all)")
    s.add_argument("--all", action="store_true",
                   help="every experiment of every paper at the paper's settings, and one index page of every "
                        "claim's verdict (OUT/index.html; OUT default reports/reproduce); prints the total time")
    s.add_argument("--quick", action="store_true",
                   help="a smaller run, not the paper's settings: each experiment's own smaller form where it has "
                        "one (paper 004's Figs 1-3: T = 200 instead of 30 000), else 5 runs per panel (unless "
                        "--runs); horizons capped at 2000; every page says so (default: off)")
    s.add_argument("--experiment", help="one experiment of the paper, as listed below (default: all)")
    add_flags(s, runs="paired runs per panel (default: each experiment's own, >= 30)", seed="seed (default: 0)",
              jobs=JOBS_HELP, out="output folder (default: reports/reproduce/<paper>)",
              false_alarm="family-wise probability that any verdict is wrong (default: 0.05)")
    s.add_argument("--explore", action="store_true",
                   help="re-test the claims that did not reproduce over the grid of unstated settings (default: off)")
    s.add_argument("--explore-runs", dest="explore_runs", type=integer,
                   help="paired runs per explored setting (default: the grid's own)")
    add_flags(s, json="print the JSON summary (default: tables)", no_report="write no report (default: write it)",
              max_memory="refuse work estimated above SIZE, e.g. 4G or 500M (default: the memory available now)")
    s.set_defaults(func=cmd_reproduce, computes=True)


def printed_table(experiment: dict) -> tuple[list[str], list[list[str]]]:
    """The paper's printed numbers beside ours: the header and the rows (the report's wording)."""
    from ..report.reproduce.model import PRINTED_HEAD, printed_rows

    return list(PRINTED_HEAD), printed_rows(experiment)


def reproduce_epilog() -> str:
    lines = ["papers and their experiments (`--experiment NAME` runs one):"]
    for p in api.reproducible_papers():
        lines.append(textwrap.fill(f"{p['id']:<16} {', '.join(p['experiments'])}", width=100, initial_indent="  ",
                                   subsequent_indent=" " * 19))
    return "\n".join(lines + ["", EXIT_CODES_REPRODUCE])



_VERDICT_STYLE = {"reproduced": "green", "not reproduced": "red", "inconclusive": "yellow", "not run": "dim"}


def _render_reproduce(summary: dict) -> None:
    """One screen: the headline, one line per claim (verdict and effect), the paper's printed numbers beside ours,
    the explored settings, the report."""
    from rich.markup import escape
    from rich.table import Table

    from ..report.reproduce.model import effect_text, headline, resolution_text  # the report's wording

    con = render.console()
    con.print(f"[bold]{headline(summary)}[/bold]")
    for e in summary["experiments"]:
        mine = [c for c in summary["claims"] if c["experiment"] == e["name"]]
        panels = e.get("panel_results") or []
        where = ("not run: " + e["offline_reason"].split(";")[0]) if e.get("offline_reason") else ", ".join(
            f"{p['scenario']} ({p['runs']} runs, T = {p['horizon']})" for p in panels)
        table = Table(title=f"{e['name']} — {e['location']}: {where}", title_justify="left", show_edge=False,
                      pad_edge=False)
        for col in ("claim", "verdict", "effect: mean paired difference [simultaneous interval]"):
            table.add_column(col, overflow="fold")
        for c in mine:
            v = c["verdict"]
            unresolved = resolution_text(c, short=True)
            table.add_row(c["id"], f"[{_VERDICT_STYLE[v]}]{v}[/{_VERDICT_STYLE[v]}]",
                          effect_text(c, short=True) + (f"; {unresolved}" if unresolved else ""))
        render.print_table(con, table)
        if e.get("printed_results"):
            head, rows = printed_table(e)
            keep = [0, 2, 3, 4, 5, 6]  # the label names the panel; the ±2 SE column says the same as z
            printed = Table(title=f"{e['name']}: the paper's numbers beside ours", title_justify="left",
                            show_edge=False, pad_edge=False)
            for i in keep:
                printed.add_column(head[i], overflow="fold", justify="left" if i == 0 else "right")
            for r in rows:  # the cells are plain text from the paper and the data: never rich markup
                printed.add_row(*(escape(r[i]) for i in keep))
            render.print_table(con, printed)
    for name, ex in (summary.get("explore") or {}).items():
        if "claims" not in ex:
            con.print(f"explore {name}: {ex.get('note', '')}")
            continue
        for cid, block in ex["claims"].items():
            con.print(f"explore {name}: [bold]{cid}[/bold] reproduces {block['where']} (screen); "
                      f"{block.get('confirmation', '')}")
    con.print(escape(f"[time taken {summary['elapsed_s']:.1f} s]  budget: {summary['budget']}"))
    if summary["report"].get("html"):
        con.print(f"report: {summary['report']['html']}  {summary['report']['tex']}")


def _render_reproduce_all(summary: dict) -> None:
    """``reproduce --all``: one line per paper (verdict counts, time), the total time and the index page."""
    from rich.markup import escape
    from rich.table import Table

    con = render.console()
    if summary.get("quick_text"):
        con.print(f"[bold yellow]{escape(summary['quick_text'])}[/bold yellow]")
    table = Table(title="reproduce --all", title_justify="left", show_edge=False, pad_edge=False)
    verdicts = ("reproduced", "not reproduced", "inconclusive", "not run")
    for col in ("paper", *verdicts, "time"):
        table.add_column(col, justify="left" if col == "paper" else "right")
    for p in summary["papers"]:
        table.add_row(escape(p["id"]), *(str(p["counts"].get(v, 0)) for v in verdicts), f"{p['elapsed_s']:.0f} s")
    table.add_row("all", *(str(summary["counts"].get(v, 0)) for v in verdicts), f"{summary['elapsed_s']:.0f} s")
    render.print_table(con, table)
    con.print(f"total time: {summary['elapsed_s']:.1f} s")
    if summary.get("index"):
        con.print(f"index: {summary['index']}")


def cmd_reproduce(args) -> int:
    if args.all and (args.paper or args.experiment or args.explore):
        raise BoundcheckError("reproduce --all runs every experiment of every paper: give no paper, --experiment "
                              "or --explore with it")
    if not args.all and not args.paper:
        raise BoundcheckError("reproduce needs a paper id, or --all for every paper (see `boundcheck reproduce "
                              "--help`)")
    on_progress, progress = None, None
    if sys.stderr.isatty():
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                            TextColumn("chunks"), TimeElapsedColumn(), transient=True, console=Console(stderr=True))
        task = progress.add_task(args.paper or "all papers", total=None)

        def on_progress(label, done, total):
            progress.update(task, description=label, completed=done, total=total)
    else:  # a CI log: plain lines, at most one every few seconds
        plain, _ = render.plain_progress(args.paper or "all papers")

        def on_progress(label, done, total):
            plain(done, f"{total} chunks of {label}")

    settings = render.settings_of(runs=args.runs, seed=args.seed, jobs=args.jobs, out=args.out,
                                  false_alarm=args.false_alarm, report=not args.no_report, max_memory=args.max_memory)
    if args.all:
        with render.shown(progress):
            summary = api.reproduce_all(settings=settings, quick=args.quick, on_progress=on_progress)
        if args.json:
            render.print_json(summary)
        else:
            _render_reproduce_all(summary)
        return ExitCode.VIOLATED if summary["counts"].get("not reproduced") else ExitCode.OK
    with render.shown(progress):
        summary = api.reproduce(args.paper, args.experiment, settings=settings, explore=args.explore,
                                explore_runs=args.explore_runs, quick=args.quick, on_progress=on_progress)
    if args.json:
        render.print_json(summary)
    else:
        _render_reproduce(summary)
    return ExitCode.VIOLATED if summary["counts"].get("not reproduced") else ExitCode.OK


