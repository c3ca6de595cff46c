"""Command-line interface ``boundcheck`` (contract in shared/design.md, documented in the README).

Exit codes: 0 no claim violated, 1 some claim violated, 2 bad input (one line on stderr, no traceback).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tomllib
from pathlib import Path

import theory

from .errors import BoundcheckError
from .utils.validation import check_symbol_values

EXIT_OK, EXIT_VIOLATED, EXIT_BAD_INPUT = 0, 1, 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2 (argparse prints usage over several lines)
        raise BoundcheckError(f"{self.prog}: {message}")


def _json_default(o):
    import numpy as np

    if isinstance(o, np.generic):
        return o.item()
    if isinstance(o, np.ndarray):
        return o.tolist()
    return str(o)


def _print_json(obj) -> None:
    print(json.dumps(obj, indent=2, default=_json_default))


def _console():
    from rich.console import Console

    return Console(highlight=False, width=None if sys.stdout.isatty() else 140)


# ------------------------------------------------------------------------------------------- list / show
def cmd_list(args) -> int:
    rows = [{"id": th.id, "paper": th.source, "guarantee": th.guarantee, "default_scenario": th.default_scenario}
            for th in theory.all_theorems()]
    if args.json:
        _print_json(rows)
        return EXIT_OK
    from rich.table import Table

    table = Table(title="boundcheck theorems")
    for col in ("id", "paper", "guarantee", "default_scenario"):
        table.add_column(col)
    for r in rows:
        table.add_row(*(str(r[c]) for c in ("id", "paper", "guarantee", "default_scenario")))
    _console().print(table)
    return EXIT_OK


def _claim_level(c) -> str | None:
    """A claim's own threshold: its allowed failure probability, or its expectation bound."""
    v = c.alpha if c.kind == "probability" else c.expectation_bound
    return None if v is None else str(v)


def cmd_show(args) -> int:
    import sympy as sp

    th = theory.get(args.theorem)
    if args.json:
        _print_json({
            "id": th.id, "title": th.title, "source": th.source, "paper": th.paper, "guarantee": th.guarantee,
            "symbols": {k: meaning for k, (_, meaning) in th.symbols.items()},
            "bound": str(th.bound), "bound_terms": {k: str(v) for k, v in th.bound_terms.items()},
            "bound_latex": sp.latex(th.bound), "printed": th.printed,
            "schedules": {k: str(v) for k, v in th.schedules.items()},
            "assumptions": [a.text for a in th.assumptions],
            "claims": [{"id": c.id, "kind": c.kind, "level": _claim_level(c), "statement": c.statement,
                        "source": c.source} for c in th.claims],
            "corrections": [c.__dict__ for c in th.corrections],
            "default_scenario": th.default_scenario, "scenarios": list(th.scenarios),
            "algorithms": list(th.algorithms),
        })
        return EXIT_OK
    con = _console()
    con.print(f"[bold]{th.id}[/bold] — {th.title}\n{th.source} (shared/papers/{th.paper}); "
              f"guarantee: {th.guarantee}\n")
    con.print(f"[bold]Paper's statement:[/bold] {th.printed}")
    con.print("[bold]Explicit bound checked:[/bold]")
    for name, expr in th.bound_terms.items():
        con.print(f"  {name:>16}: {sp.sstr(expr)}")
    con.print("[bold]Schedules:[/bold]")
    for name, expr in th.schedules.items():
        con.print(f"  {name:>16} = {sp.sstr(expr)}")
    con.print("[bold]Symbols[/bold] (for `boundcheck bound --set NAME=VALUE`):")
    for name, (_, meaning) in th.symbols.items():
        con.print(f"  {name:>16}: {meaning}")
    con.print("[bold]Assumptions:[/bold]")
    from rich.markup import escape  # statements contain brackets (E[f(a) − U(a)]) that are not markup

    for a in th.assumptions:
        con.print(escape(f"  - {a.text}"))
    con.print("[bold]Claims checked:[/bold]")
    for c in th.claims:
        lvl = f" (level {_claim_level(c)})" if _claim_level(c) is not None else ""
        con.print(escape(f"  - {c.id} [{c.kind}{lvl}]: {c.statement} — {c.source}"))
    con.print("[bold]Corrections to the paper:[/bold]")
    for c in th.corrections:
        con.print(escape(f"  - {c.id} {c.location}: paper '{c.paper}' → implemented '{c.implemented}' ({c.reason})"))
    con.print(f"\nDefault scenario: {th.default_scenario}; scenarios: {', '.join(th.scenarios)}")
    return EXIT_OK


# ------------------------------------------------------------------------------------------------ bound
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
        values[name.strip()] = val
    return values


def cmd_bound(args) -> int:
    th = theory.get(args.theorem)
    values = _parse_sets(args.set)
    unknown = [n for n in values if n not in th.symbols]
    if unknown:
        raise BoundcheckError(f"unknown symbol(s) {', '.join(unknown)} for {th.id}; "
                              f"symbols: {', '.join(th.symbols)}")
    missing = [n for n in th.symbols if n not in values]
    if missing:
        raise BoundcheckError(f"missing --set for {', '.join(missing)} (see `boundcheck show {th.id}`)")
    if "delta" in values and not 0 < values["delta"] < 1:
        raise BoundcheckError(f"delta must lie in (0, 1), got {values['delta']}")
    for name in ("T", "R", "n_X", "n_U"):
        if name in values and values[name] <= 0:
            raise BoundcheckError(f"{name} must be positive, got {values[name]}")
    check_symbol_values(th, values)
    res = th.evaluate(values)
    out = {"theorem": th.id, "values": values, "value": float(res["value"]),
           "terms": {k: float(v) for k, v in res["terms"].items()},
           "schedules": {k: float(th.schedule_values(k, values.get("T", 1.0), values))
                         for k in th.schedules}}
    if args.json:
        _print_json(out)
    else:
        con = _console()
        con.print(f"{th.id}: explicit bound = [bold]{out['value']:.6g}[/bold]")
        for k, v in out["terms"].items():
            con.print(f"  {k:>16} = {v:.6g}")
        for k, v in out["schedules"].items():
            con.print(f"  {k:>16} = {v:.6g}  (at t = T)")
    return EXIT_OK


# ------------------------------------------------------------------------------------------------ gamma
def cmd_gamma(args) -> int:
    from .model.mig import gamma_for_grid

    br = gamma_for_grid(args.kernel, args.lengthscale, args.grid, args.dim, args.noise, args.horizon,
                        eps=args.eps, batch=args.batch)
    out = br.to_dict()
    if args.json:
        _print_json(out)
    else:
        con = _console()
        con.print(f"γ_T bracket (T = {args.horizon}, {args.kernel}, ℓ = {args.lengthscale}, {args.grid}^{args.dim} "
                  f"grid, R = {args.noise}, ε = {args.eps}, K = {args.batch}):")
        con.print(f"  {out['lower']:.6g} ≤ γ_T ≤ {out['upper']:.6g}   (upper/lower = "
                  f"{out['upper'] / max(out['lower'], 1e-300):.3f})")
        for k, v in out["methods"].items():
            con.print(f"  {k:>20}: {'n/a' if v is None else f'{v:.6g}'}")
        from theory.information_gain import NOTE, rate

        con.print(f"  asymptotic rate: γ_T = O({rate(args.kernel, args.dim)})  ({NOTE})")
    return EXIT_OK


# ----------------------------------------------------------------------------------------------- verify
VERIFY_KEYS = {"theorem", "scenario", "runs", "horizon", "delta", "seed", "jobs", "backend", "scheduler",
               "beta_scale", "out", "no_report"}


def _load_config(path: str) -> dict:
    p = Path(path)
    if not p.is_file():
        raise BoundcheckError(f"config file {path} not found")
    try:
        data = tomllib.loads(p.read_text())
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise BoundcheckError(f"malformed config {path}: {exc}") from None
    data = data.get("verify", data)
    data = {k.replace("-", "_"): v for k, v in data.items()}
    unknown = set(data) - VERIFY_KEYS
    if unknown:
        raise BoundcheckError(f"malformed config {path}: unknown key(s) {', '.join(sorted(unknown))}")
    return data


def _render_summary(summary: dict) -> None:
    from rich.table import Table

    con = _console()
    theory_label = ("[green]in theory[/green]" if summary["in_theory"]
                    else "[yellow]OUT OF THEORY[/yellow]: " + "; ".join(summary["out_of_theory_reasons"]))
    colour = {"holds": "green", "violated": "red", "inconclusive": "yellow"}
    con.print(f"[bold]{summary['theorem']}[/bold] on {summary['scenario']} — {theory_label}")
    con.print(f"runs = {summary['runs']}, T = {summary['horizon']}, δ = {summary['delta']}, seed = {summary['seed']}"
              + (f", β × {summary['beta_scale']:g}" if summary["beta_scale"] != 1 else ""))
    b = summary["bound"]
    con.print(f"explicit bound at T: {b['at_horizon']:.4g} = "
              + " + ".join(f"{v:.4g} ({k})" for k, v in b["terms"].items())
              + f";  certified γ_T ∈ [{b['gamma_lower']:.4g}, {b['gamma_upper']:.4g}]")
    table = Table(title="claims")
    for col in ("claim", "kind", "level", "failures/runs", "rate", "CI (confidence)", "verdict"):
        table.add_column(col, justify="right" if col in ("level", "rate") else "left")
    for c in summary["claims"]:
        ci = "" if c["ci_low"] is None else f"[{c['ci_low']:.3g}, {c['ci_high']:.3g}]"
        if ci and c.get("test_size") is not None:
            ci += f" ({100 * (1 - c['test_size']):.4g}%)"
        lvl = "" if c["level"] is None else f"{c['level']:.3g}"
        rate = "" if c["rate"] is None else f"{c['rate']:.3g}"
        v = c["verdict"]
        table.add_row(c["id"] + (" *" if c.get("main") else ""), c["kind"], lvl,
                      f"{c['violations']}/{c['runs']}", rate, ci, f"[{colour[v]}]{v}[/{colour[v]}]")
    con.print(table)
    main_alg = summary.get("main_algorithm", "the theorem's algorithm")
    rt = Table(title=f"regret R_T (tightness of {main_alg}: median "
               f"{summary['tightness']['median']:.3g}, max {summary['tightness']['max']:.3g})")
    for col in ("algorithm", "mean", "median", "max", f"q{1 - summary['delta']:.2g}"):
        rt.add_column(col, justify="right" if col != "algorithm" else "left")
    for a, s in summary["regret"].items():
        rt.add_row(a, *(f"{s[k]:.4g}" for k in ("mean", "median", "max", "quantile_1_minus_delta")))
    con.print(rt)
    v = summary["verdict"]
    con.print(f"theorem verdict: [bold {colour[v]}]{v}[/bold {colour[v]}]"
              + ("" if summary["in_theory"] else " (out of theory: not a theorem failure)")
              + f"   [{summary['elapsed_s']:.1f} s]")
    if summary["report"].get("html"):
        con.print(f"report: {summary['report']['html']}  {summary['report']['tex']}")


def cmd_verify(args) -> int:
    from . import api

    cfg = _load_config(args.config) if args.config else {}
    for k in VERIFY_KEYS:  # command-line flags win over the config file
        v = getattr(args, k, None)
        if v is not None and v is not False:
            cfg[k] = v
    if "theorem" not in cfg:
        raise BoundcheckError("verify needs --theorem (see `boundcheck list`)")
    th = api.resolve_theorem(str(cfg["theorem"]))
    on_chunk, progress = None, None
    if sys.stderr.isatty():
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        progress = Progress(TextColumn(f"{th.id}"), BarColumn(), MofNCompleteColumn(), TextColumn("chunks"),
                            TimeElapsedColumn(), transient=True, console=Console(stderr=True))
        task = progress.add_task("runs", total=None)

        def on_chunk(done, total):
            progress.update(task, completed=done, total=total)

    try:
        if progress is not None:
            progress.start()
        summary = api.verify(
            th, cfg.get("scenario"), runs=cfg.get("runs", api.DEFAULT_RUNS), horizon=cfg.get("horizon"),
            delta=cfg.get("delta"), seed=cfg.get("seed", 0), beta_scale=cfg.get("beta_scale", 1.0),
            jobs=cfg.get("jobs", -1), backend=cfg.get("backend", "loky"), scheduler=cfg.get("scheduler"),
            out=cfg.get("out") or Path("reports") / th.id, report=not cfg.get("no_report"), on_chunk=on_chunk)
    finally:
        if progress is not None:
            progress.stop()
    if args.json:
        _print_json(summary)
    else:
        _render_summary(summary)
    return EXIT_VIOLATED if summary["verdict"] == "violated" else EXIT_OK


def cmd_report(args) -> int:
    from . import api
    from .study.store import ResultStore

    results = Path(args.results_dir)
    if (results / "results" / "manifest.json").exists():
        results = results / "results"
    store = ResultStore(results)
    store.require_manifest()
    summary = store.read_json("summary")
    summary["report"] = api.write_report(results)
    if args.json:
        _print_json(summary)
    else:
        _console().print(f"report: {summary['report']['html']}  {summary['report']['tex']}")
    return EXIT_OK


# ------------------------------------------------------------------------------------------------- main
def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="boundcheck", description="Empirical checks of GP-bandit regret bounds.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)

    s = sub.add_parser("list", help="theorems: id, paper, guarantee, default scenario")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_list)

    s = sub.add_parser("show", help="statement, explicit bound, assumptions, claims, corrections")
    s.add_argument("theorem")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_show)

    s = sub.add_parser("bound", help="evaluate the explicit bound and each of its terms")
    s.add_argument("theorem")
    s.add_argument("--set", action="append", metavar="NAME=VALUE", default=[])
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_bound)

    s = sub.add_parser("gamma", help="certified bracket on the maximum information gain γ_T")
    s.add_argument("--kernel", required=True, choices=["rbf", "matern12", "matern32", "matern52", "linear"])
    s.add_argument("--lengthscale", type=float, default=0.2, help="ℓ in exp(-d²/(2ℓ²)) (usual form)")
    s.add_argument("--grid", type=int, default=20, help="points per axis of the regular grid in [0,1]^d")
    s.add_argument("--dim", type=int, default=1)
    s.add_argument("--noise", type=float, default=0.1, help="noise standard deviation R (λ = R²)")
    s.add_argument("--horizon", type=int, required=True)
    s.add_argument("--eps", type=float, default=0.0)
    s.add_argument("--batch", type=int, default=1)
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_gamma)

    s = sub.add_parser("verify", help="Monte Carlo check of a theorem and every claim of its proof")
    s.add_argument("--theorem")
    s.add_argument("--scenario")
    s.add_argument("--runs", type=int)
    s.add_argument("--horizon", type=int)
    s.add_argument("--delta", type=float)
    s.add_argument("--seed", type=int)
    s.add_argument("--jobs", type=int, help="joblib workers (-1: all cores)")
    s.add_argument("--backend", choices=["loky", "threading", "dask"])
    s.add_argument("--scheduler", help="dask.distributed scheduler address (with --backend dask)")
    s.add_argument("--beta-scale", dest="beta_scale", type=float,
                   help="multiply β_t by C (out of theory: a negative control)")
    s.add_argument("--config", help="TOML file with the same keys (command-line flags win)")
    s.add_argument("--out", help="report directory (default reports/<theorem>); results in OUT/results")
    s.add_argument("--json", action="store_true")
    s.add_argument("--no-report", dest="no_report", action="store_true")
    s.set_defaults(func=cmd_verify)

    s = sub.add_parser("report", help="rebuild the reports from stored results")
    s.add_argument("results_dir")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=cmd_report)
    return p


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        return int(args.func(args))
    except (BoundcheckError, theory.UnknownTheorem) as exc:
        msg = exc.args[0] if exc.args else str(exc)
        print(f"boundcheck: error: {msg}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("boundcheck: interrupted; completed chunks are stored — re-run the same command to resume",
              file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
