"""``boundcheck list``, ``show``, ``bound``, ``gamma``: their parsers and how their answers are printed."""

from __future__ import annotations

import math
import sys

from .. import api
from ..errors import BoundcheckError, ExitCode
from . import render
from .options import EXIT_CODES_SIMPLE, add_flags, add_theorem, integer, real, theorem_of

JSON_HELP = "print JSON instead of tables (default: tables)"


def add_list(sub) -> None:
    s = sub.add_parser("list", help="theorems: id, paper, guarantee, default scenario",
                       description="List the theorems boundcheck can check.", epilog=EXIT_CODES_SIMPLE)
    add_flags(s, json=JSON_HELP)
    s.set_defaults(func=cmd_list)


def add_show(sub) -> None:
    s = sub.add_parser("show", help="statement, explicit bound, assumptions, claims, corrections",
                       description="Show a theorem: statement, explicit bound, symbols, assumptions, claims, "
                                   "corrections.", epilog=EXIT_CODES_SIMPLE)
    add_theorem(s)
    add_flags(s, json=JSON_HELP)
    s.set_defaults(func=cmd_show)


def add_bound(sub) -> None:
    s = sub.add_parser("bound", help="evaluate the explicit bound and each of its terms",
                       description="Evaluate a theorem's explicit bound at given values of its symbols. Each "
                                   "symbol must lie in its domain (B > 0, γ_T ≥ 0, counts integral ≥ 1, δ ∈ (0,1)).",
                       epilog=EXIT_CODES_SIMPLE)
    add_theorem(s)
    s.add_argument("--set", action="append", metavar="NAME=VALUE", default=[],
                   help="a bound symbol's value, once per symbol; all are required (names and domains: "
                        "`boundcheck show --theorem THEOREM`)")
    add_flags(s, json=JSON_HELP)
    s.set_defaults(func=cmd_bound)


def add_gamma(sub) -> None:
    s = sub.add_parser("gamma", help="certified bracket on the maximum information gain γ_T",
                       description="Certified lower and upper ends of γ_T on a regular grid in [0,1]^d.",
                       epilog=EXIT_CODES_SIMPLE)
    s.add_argument("--kernel", required=True, choices=["rbf", "matern12", "matern32", "matern52", "linear"],
                   help="kernel (required)")
    s.add_argument("--lengthscale", type=real, default=0.2, help="ℓ in exp(-d²/(2ℓ²)) (usual form; default: 0.2)")
    s.add_argument("--grid", type=integer, default=20, help="points per axis of the regular grid in [0,1]^d "
                                                            "(default: 20)")
    s.add_argument("--dim", type=integer, default=1, help="dimension d (default: 1)")
    s.add_argument("--noise", type=real, default=0.1, help="noise standard deviation R, λ = R² (default: 0.1)")
    s.add_argument("--horizon", type=integer, required=True, help="T, number of rounds (required)")
    s.add_argument("--eps", type=real, default=0.0, help="time-variation ε ∈ [0, 1) of the kernel "
                                                         "(default: 0, stationary)")
    s.add_argument("--batch", type=integer, default=1, help="K observations per round (default: 1)")
    add_flags(s, max_memory="refuse work estimated above SIZE, e.g. 4G (default: the memory available now)",
              json=JSON_HELP)
    s.set_defaults(func=cmd_gamma, computes=True)



def cmd_list(args) -> int:
    rows = api.list_theorems()
    if args.json:
        render.print_json(rows)
        return ExitCode.OK
    from rich.table import Table

    table = Table(title="boundcheck theorems")
    for col in ("id", "paper", "guarantee", "default_scenario"):
        table.add_column(col)
    for r in rows:
        table.add_row(*(str(r[c]) for c in ("id", "paper", "guarantee", "default_scenario")))
    render.print_table(render.console(), table)
    return ExitCode.OK


def cmd_show(args) -> int:
    info = api.show_theorem(theorem_of(args))
    if args.json:
        render.print_json(info)
        return ExitCode.OK
    con = render.console()
    con.print(f"[bold]{info['id']}[/bold] — {info['title']}\n{info['source']}; guarantee: {info['guarantee']}")
    if info["reference"]:  # the paper by reference: its text is not part of the repository
        from rich.markup import escape as _escape

        con.print(_escape(f"Reference: {info['reference']}"))
    con.print()
    con.print(f"[bold]Paper's statement:[/bold] {info['printed']}")
    con.print("[bold]Explicit bound checked:[/bold]")
    for name, expr in info["bound_terms"].items():
        con.print(f"  {name:>16}: {expr}")
    con.print("[bold]Schedules:[/bold]")
    for name, expr in info["schedules"].items():
        con.print(f"  {name:>16} = {expr}")
    con.print("[bold]Symbols[/bold] (for `boundcheck bound --set NAME=VALUE`):")
    for name, meaning in info["symbols"].items():
        con.print(f"  {name:>16}: {meaning}; {info['domains'][name]}")
    con.print("[bold]Assumptions:[/bold]")
    for a in info["assumptions"]:
        con.print(f"  - {a}")
    from rich.markup import escape

    con.print("[bold]Claims checked:[/bold]")
    for c in info["claims"]:
        lvl = f" (level {c['level']})" if c["level"] is not None else ""
        con.print(escape(f"  - {c['id']} [{c['kind']}{lvl}]: {c['statement']} — {c['source']}"))
    con.print("[bold]Corrections to the paper:[/bold]")
    for c in info["corrections"]:
        con.print(f"  - {c['id']} {c['location']}: paper '{c['paper']}' → implemented '{c['implemented']}' "
                  f"({c['reason']})")
    con.print(f"\nDefault scenario: {info['default_scenario']}; scenarios (every assumption holds): "
              f"{', '.join(info['scenarios'])}"
              + (f"; negative controls (--allow-out-of-theory): {', '.join(info['controls'])}" if info["controls"]
                 else ""))
    _render_bites(con, info.get("bites_from"))
    return ExitCode.OK


def _render_bites(con, bites: dict | None) -> None:
    """``show``: where each regret bound bites on the default scenario (vacuous at its horizon or tested there)."""
    from rich.markup import escape

    if not bites:
        return
    if "error" in bites:
        con.print(escape(f"Where the bound bites: not computed ({bites['error']})"))
        return
    con.print(escape(f"Where the bound bites on {bites['scenario']} (default horizon T = {bites['horizon']}; "
                     "vacuous: Bound(T) ≥ r_max·T, the largest regret any algorithm can incur):"))
    for cid, b in bites["claims"].items():
        state = f"vacuous at T = {bites['horizon']}; " if b.get("vacuous") else ""
        con.print(escape(f"  - {cid}: {state}{b['message']}"))



def _parse_sets(pairs: list[str]) -> dict[str, float]:
    values = {}
    for pair in pairs or []:
        name, sep, raw = pair.partition("=")
        if not sep or not name.strip():
            raise BoundcheckError(f"malformed --set {pair!r}: expected NAME=VALUE")
        try:
            val = float(raw)
        except ValueError:
            raise BoundcheckError(f"malformed --set {pair!r}: {raw!r} is not a number") from None
        if not math.isfinite(val):
            raise BoundcheckError(f"malformed --set {pair!r}: value must be finite")
        if name.strip() in values:
            raise BoundcheckError(f"--set {name.strip()} given twice")
        values[name.strip()] = val
    return values


def cmd_bound(args) -> int:
    th = api.resolve_theorem(theorem_of(args))  # an unknown theorem is the first error, before the values
    out = api.evaluate_bound(th, _parse_sets(args.set))
    if args.json:
        render.print_json(out)
    else:
        con = render.console()
        con.print(f"{out['theorem']}: explicit bound = [bold]{out['value']:.6g}[/bold]")
        for k, v in out["terms"].items():
            con.print(f"  {k:>16} = {v:.6g}")
        for k, v in out["schedules"].items():
            con.print(f"  {k:>16} = {v:.6g}  (at t = T)")
    return ExitCode.OK



def cmd_gamma(args) -> int:
    status = None
    if sys.stderr.isatty():  # a spinner with the elapsed time: large brackets take minutes
        from rich.console import Console

        status = Console(stderr=True).status
    out = api.gamma(args.kernel, args.horizon, lengthscale=args.lengthscale, grid=args.grid, dim=args.dim,
                    noise=args.noise, eps=args.eps, batch=args.batch, max_memory=args.max_memory, status=status)
    if args.json:
        render.print_json(out)
    else:
        con = render.console()
        con.print(f"γ_T bracket (T = {args.horizon}, {args.kernel}, ℓ = {args.lengthscale}, {args.grid}^{args.dim} "
                  f"grid, R = {args.noise}, ε = {args.eps}, K = {args.batch}):")
        con.print(f"  {out['lower']:.6g} ≤ γ_T ≤ {out['upper']:.6g}   (upper/lower = "
                  f"{out['upper'] / max(out['lower'], 1e-300):.3f})")
        for k, v in out["methods"].items():
            con.print(f"  {k:>20}: {'n/a' if v is None else f'{v:.6g}'}")
        rate, note = api.gamma_rate(args.kernel, args.dim)
        con.print(f"  asymptotic rate: γ_T = O({rate})  ({note})")
    return ExitCode.OK



