"""``boundcheck scenario list|show|validate|schema``: its parser and how a scenario is printed in words."""

from __future__ import annotations

from .. import api
from ..errors import BoundcheckError, ExitCode
from . import render
from .options import EXIT_CODES_SIMPLE, add_flags


def add_scenario(sub) -> None:
    s = sub.add_parser("scenario", help="show or validate a scenario file (or a built-in scenario); list them",
                       description="Show a scenario file or built-in scenario in words, validate a file, or list "
                                   "the built-in scenarios.", epilog=EXIT_CODES_SIMPLE)
    s.add_argument("action", choices=["show", "validate", "list", "schema"],
                   help="what to do (required); schema: print the JSON Schema of scenario files")
    s.add_argument("file", nargs="?", help="FILE.toml or a built-in scenario name (required for show, validate)")
    add_flags(s, theorem="show: say, predicate by predicate, whether this theorem applies")
    s.add_argument("--family", help="schema: only this family's schema (e.g. et_gp_ucb.eps_chain; default: every "
                                    "family's)")
    add_flags(s, json="print JSON (default: text)")
    s.set_defaults(func=cmd_scenario)


def cmd_scenario(args) -> int:
    if args.theorem and args.action != "show":
        raise BoundcheckError(f"--theorem goes with scenario show, not scenario {args.action}")
    if args.family and args.action != "schema":
        raise BoundcheckError(f"--family goes with scenario schema, not scenario {args.action}")
    if args.action == "schema":
        if args.file:
            raise BoundcheckError(f"scenario schema takes no FILE, got {args.file!r} (--family NAME: one family)")
        render.print_json(api.scenario_schema(args.family))
        return ExitCode.OK
    if args.action == "list":
        if args.file:
            raise BoundcheckError(f"scenario list takes no FILE, got {args.file!r}")
        rows = api.scenario_list()
        if args.json:
            render.print_json(rows)
        else:
            for r in rows:
                print(f"{r['name']:<32} {r['file'] or '(Python builder)'}")
        return ExitCode.OK
    if not args.file:
        raise BoundcheckError(f"scenario {args.action} needs a FILE (or a built-in name)")
    info = api.scenario_info(args.file, args.theorem)
    if args.action == "validate":
        if args.json:
            render.print_json({"file": args.file, "valid": True, "scenario": info["name"]})
        else:
            print(f"{args.file}: valid scenario {info['name']!r} ({info['domain']['points']} points, "
                  f"{len(info['priors'])} prior(s), truth: {info['truth']['kind']}, T = {info['horizon']}, "
                  f"δ = {info['delta']})")
        return ExitCode.OK
    if args.json:
        render.print_json(info)
        return ExitCode.OK
    from rich.markup import escape

    con = render.console()
    say = con.print

    def text(line: str) -> None:  # names and descriptions come from the file: printed literally, never as markup
        say(escape(line))

    say(f"[bold]{escape(info['name'])}[/bold]" + escape(f"  ({info['source']})" if info["source"] else ""))
    text(info["description"])
    if not info["in_theory"]:
        say(f"[yellow]OUT OF THEORY[/yellow]: {escape(info['out_of_theory_reason'])}")
    else:  # a label: whether a theorem's assumptions hold is the theorem's question (--theorem T asks it)
        say("in theory (its label" + ("" if "applicability" in info else
                                       "; --theorem T checks a theorem's assumptions on it") + ")")
    d = info["domain"]
    text(f"domain: {d['name']}, {d['points']} points in R^{d['dim']}, box {d['low']} – {d['high']}")
    text(f"priors U ({len(info['priors'])}, {info['kernel_groups']} kernel(s)): "
         + ", ".join(f"{p['name']} (ε = {p['eps']:g})" for p in info["priors"]))
    t = info["truth"]
    text(f"truth: {t['kind']} {t['name']!r}" + (f", {t['norm']}" if "norm" in t else "")
         + (f"; monitors use {t['reference']!r}" if t.get("reference") else ""))
    text(f"noise R = {info['noise']:.4g}, model λ = {info['model_noise']}, B = {info['B']}, "
         f"T = {info['horizon']}, δ = {info['delta']}, runs = {info['runs'] or 'default'}, "
         f"γ: {info['gamma_rule']}")
    text(f"actions: {info['actions']}")
    for n in info["notes"]:
        text(f"note: {n}")
    if "applicability" in info:
        _render_scenario_applicability(say, info["applicability"])
    return ExitCode.OK


def _render_scenario_applicability(say, app: dict) -> None:
    """``scenario show --theorem T``: each predicate, whether it holds and why, then the conclusion."""
    from rich.markup import escape

    mark = {True: "[green]yes[/green]", False: "[red]NO[/red] ", None: "[dim]–[/dim]  "}
    say(f"[bold]does {escape(app['theorem'])} apply?[/bold]")
    for r in app["rows"]:
        say(f"  {mark[r['ok']]} {escape(r['predicate'])}: {escape(r['how'])}")
    if any(r["ok"] is None for r in app["rows"]):
        say("  [dim]–: no predicate checks this assumption (stated, not verified)[/dim]")
    if app["applies"]:
        say(f"[green]{escape(app['theorem'])} applies[/green]: every assumption it states holds on this scenario")
    else:
        kind = app["rows"][0]["ok"] is False
        say(f"[yellow]{escape(app['theorem'])} does not apply[/yellow]: verify "
            + ("refuses this scenario (exit 2)" if kind else
               "says 'not applicable' (exit 3) unless run with --allow-out-of-theory"))


