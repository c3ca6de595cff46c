"""``boundcheck power``: its parser and its two tables (per claim: the defects it catches; per defect: the claims
that catch it)."""

from __future__ import annotations

import sys

from .. import api
from ..errors import ExitCode
from . import render
from .options import JOBS_HELP, STOPPED, add_flags, exit_codes_text, integer

EXIT_CODES_POWER = exit_codes_text({
    ExitCode.OK: "the power table was written (whatever it says)", ExitCode.BAD_INPUT: None,
    ExitCode.NOT_APPLICABLE: "not applicable: an assumption of the theorem fails on the scenario (nothing "
                             "written); --allow-out-of-theory measures it anyway",
    **STOPPED})


def add_power(sub) -> None:
    s = sub.add_parser("power", help="which claims catch which planted defect, with what probability",
                       description="Run the theorem's claims against a library of planted defects (wrappers around "
                                   "the algorithm, the scenario or the bound's evaluation) and print, per defect, "
                                   "which claims catch it and with what probability at N runs, and each claim's "
                                   "smallest detectable effect.", epilog=EXIT_CODES_POWER)
    add_flags(
        s, theorem=("theorem id (required) or FILE.py:NAME", {"required": True}),
        scenario="scenario name or file (default: the theorem's)",
        runs="N: the verify whose power is measured (default: 200)", horizon="T (default: the scenario's)",
        delta="δ ∈ (0, 1) (default: the scenario's)", seed=("seed (default: 0)", {"default": 0}),
        defect="only these defects; repeat for several (default: every one that applies to the theorem)",
        jobs=(JOBS_HELP, {"default": -1}), backend=("joblib backend (default: loky)", {"default": "loky"}),
        false_alarm=("the false-alarm budget of the verify whose power is measured (default: 0.01)",
                     {"default": 0.01}))
    s.add_argument("--subsets", type=integer, default=200, help="random N-run subsets judged per defect "
                                                                "(default: 200)")
    add_flags(
        s, allow_out_of_theory="measure on a scenario that breaks an assumption (default: refuse, exit 3)",
        max_memory="refuse work estimated above SIZE, e.g. 4G or 500M (default: the memory available now)",
        out="folder for the defect studies and power.json (default: reports/<theorem>/power)",
        json="print the power table's JSON (default: tables)")
    s.set_defaults(func=cmd_power, computes=True)


def _render_power(table: dict) -> None:
    from rich.markup import escape
    from rich.table import Table

    from ..report.wording import describe_detectable  # the report's wording of an effect

    con = render.console()
    target = table["power_target"]
    con.print(f"[bold]power of {escape(table['theorem'])}[/bold] on {escape(table['scenario'])}: a verify of "
              f"N = {table['runs']} runs, "
              f"T = {table['horizon']}, false-alarm budget {table['false_alarm']:g}")
    base = table["defects"].get("none", {}).get("probability", {})
    t = Table(title=f"per claim: the defects it catches (P(violated) ≥ {target:g} in a verify of N runs)")
    for col in ("claim", "catches", "also flags (p ≥ 0.2)", "false alarms", "smallest detectable effect at N"):
        t.add_column(col)
    for cid, info in table["claims"].items():
        probs = {d: v["probability"][cid] for d, v in table["defects"].items() if d != "none"}
        strong = ", ".join(f"{d} {p:.2f}" for d, p in probs.items() if p >= target)
        weak = ", ".join(f"{d} {p:.2f}" for d, p in probs.items() if 0.2 <= p < target)
        t.add_row(cid, strong or "[red]nothing[/red]", weak, f"{base.get(cid, 0.0):.2f}",
                  describe_detectable(info.get("detectable")))
    render.print_table(con, t)
    d = Table(title="per defect: the claims that catch it")
    for col in ("defect", "what it plants", "caught by"):
        d.add_column(col)
    for name, info in table["defects"].items():
        if name == "none":
            continue
        d.add_row(name, escape(info["description"]), ", ".join(info["caught_by"]) or "[red]no claim[/red]")
    render.print_table(con, d)
    if table.get("identities"):
        con.print("sanity identities (outside the verdict, nothing to catch): " + ", ".join(table["identities"]))
    for cid, why in (table.get("vacuous") or {}).items():
        con.print(escape(f"{cid}: {why} (outside the verdict)"))
    con.print(f"[dim]{table['method']}[/dim]")
    if table.get("path"):
        con.print(f"power table: {table['path']}")


def cmd_power(args) -> int:
    from rich.markup import escape

    th = api.resolve_theorem(args.theorem)
    on_study = None
    if sys.stderr.isatty():
        from rich.console import Console

        err = Console(stderr=True)

        def on_study(name, i, total):
            err.print(escape(f"power {th.id}: study {i + 1}/{total} ({name})"), style="dim")
    else:  # a CI log: the same, as plain lines, at most one every few seconds
        plain, _ = render.plain_progress(f"power {th.id}")

        def on_study(name, i, total):
            plain(i, f"{total} studies ({name} next)")

    # runs None: api.DEFAULT_RUNS
    settings = render.settings_of(runs=args.runs, horizon=args.horizon, delta=args.delta, seed=args.seed,
                                  jobs=args.jobs, backend=args.backend, out=args.out, false_alarm=args.false_alarm,
                                  max_memory=args.max_memory, allow_out_of_theory=args.allow_out_of_theory)
    table = api.power(th, args.scenario, settings=settings, defects=args.defect or None, subsets=args.subsets,
                      on_study=on_study)
    if args.json:
        render.print_json(table)
    else:
        _render_power(table)
    return ExitCode.OK

