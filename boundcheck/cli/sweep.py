"""``boundcheck sweep``: its parser and its output (a line per cell as it completes, the table and the page)."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from .. import api
from ..errors import ExitCode
from . import render
from .options import JOBS_HELP, add_flags, exit_codes_text
from .verify import SETTING_KEYS, defects_of, verify_config

#: a sweep checks its cells before the first runs: past this many seconds it says how far it got
SWEEP_SETUP_QUIET = 0.5


def _sweep_meaning(line: str) -> str:
    """verify's meaning of an exit code, said of a sweep's cells."""
    return line.replace("no claim violated (holds", "no claim violated in any cell (holds").replace(
        "some claim violated", "some claim violated in some cell").replace(
        "(the message names it; nothing written)", "in some cell (the message names it; no cell run)")


#: a sweep's cells are not held to completeness (the table shows each cell's verdict): no exit code 5
EXIT_CODES_SWEEP = exit_codes_text({code: _sweep_meaning(code.meaning) for code in ExitCode
                                    if code != ExitCode.INCOMPLETE})


def add_sweep(sub) -> None:
    s = sub.add_parser("sweep", help="a grid of verifies over parameter values: tidy table and page",
                       description="One verify per cell of the grid of --vary values, each resumable; a tidy parquet "
                                   "table (one row per cell × claim) and an HTML page of bound and regret against "
                                   "each varied parameter.", epilog=EXIT_CODES_SWEEP)
    add_flags(s, theorem=("theorem id (required) or FILE.py:NAME", {"required": True}))
    s.add_argument("--vary", action="append", required=True, metavar="NAME=V1,V2,...",
                   help="horizon, delta, runs, seed, beta_scale, epsilon, noise, or a dotted key of the scenario "
                        "file (kernel.lengthscale); repeat for a grid (required)")
    add_flags(
        s, scenario="a built-in scenario name or a scenario file (default: the theorem's)",
        runs="Monte Carlo runs per cell (default: the scenario's, else 200)", horizon="T (default: the scenario's)",
        delta="δ ∈ (0, 1) (default: the scenario's)", seed="seed (default: 0)",
        beta_scale="multiply β_t by C > 0 (default: 1)",
        algorithm="your implementation checked in each cell (default: the theorem's algorithm)", jobs=JOBS_HELP,
        backend="joblib backend (default: loky)", scheduler="dask scheduler address (default: a LocalCluster)",
        out="sweep directory (default: reports/<theorem>-sweep)", json="print the sweep's JSON (default: a table)",
        false_alarm="each cell's false-alarm budget, as in verify (default: 0.01)",
        allow_out_of_theory="run cells that break an assumption anyway, labelled (default: refuse the sweep, exit 3)",
        no_report="no HTML page (default: write it)",
        until_conclusive="in each cell, add chunks of runs until every claim is settled or --max-runs "
                         "(default: off)",
        max_runs="with --until-conclusive: stop each cell at N runs (default: 2000)",
        defect="plant a defect in every cell (a negative control; names: `boundcheck power`); repeat for several "
               "(default: none)",
        max_memory="refuse a cell estimated above SIZE, e.g. 4G or 500M (default: the memory available now)",
        config="TOML file with verify's keys (runs, horizon, seed, ...); flags win (default: none)")
    s.set_defaults(func=cmd_sweep, computes=True)


def cmd_sweep(args) -> int:
    from rich.markup import escape

    th = api.resolve_theorem(args.theorem)
    con = render.console() if not args.json else None

    started = [0.0]

    def on_cell(done, total, cell, summary):
        if summary is None and done == 0:  # sized first: how many cells, then how long the first took
            started[0] = time.monotonic()
            print(f"sweep {th.id}: {total} cells", file=sys.stderr, flush=True)
        if summary is not None and done == 1 and total > 1:
            took = time.monotonic() - started[0]
            print(f"sweep {th.id}: the first cell took {took:.1f} s; the {total - 1} others, about "
                  f"{took * (total - 1):.0f} s if they take as long (resumable: completed cells are kept)",
                  file=sys.stderr, flush=True)
        if con is not None and summary is not None:
            con.print(escape(f"[{done}/{total}] {cell}: {summary['verdict']}")
                      + ("" if summary["in_theory"] else " (out of theory)"))

    checking = {"t0": 0.0, "last": None}

    def on_setup(done, total):  # every cell is checked before the first runs: a line from the first second on
        now = time.monotonic()
        if done == 0:
            checking["t0"] = now
        elif done < total and now - checking["t0"] >= SWEEP_SETUP_QUIET and (
                checking["last"] is None or now - checking["last"] >= render.PLAIN_PROGRESS_EVERY):
            checking["last"] = now
            print(f"sweep {th.id}: {total} cells; checked {done} of them before the first runs "
                  f"[{now - checking['t0']:.0f} s]", file=sys.stderr, flush=True)

    cfg = verify_config(args)
    settings = render.settings_of(**{k: cfg.get(k) for k in SETTING_KEYS}, report=not cfg.get("no_report"),
                                  out=cfg.get("out") or Path("reports") / f"{th.id}-sweep")
    defects = defects_of(cfg)
    algorithm = cfg.get("algorithm") or None
    result = api.sweep(th, args.vary, cfg.get("scenario"), settings=settings, algorithm=algorithm,
                       on_cell=on_cell, defects=defects, on_setup=on_setup)
    if args.json:
        render.print_json(result)
    else:
        con.print(f"sweep {th.id}: {len(result['cells'])} cells, overall {result['verdict']}")
        con.print(f"table: {result['table']}" + (f"  page: {result['page']}" if result["page"] else ""))
    return ExitCode.VIOLATED if result["verdict"] == "violated" else ExitCode.OK


