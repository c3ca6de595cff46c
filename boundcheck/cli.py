"""Command-line interface ``boundcheck`` (every command and option documented in docs/cli.md).

A thin layer over :mod:`boundcheck.api`: it parses arguments, builds one
:class:`~boundcheck.api.VerifySettings` from the flags (and ``--config FILE.toml``), calls the api and renders
what it returns. It imports nothing else of boundcheck but :mod:`boundcheck.errors` (tests/test_architecture.py
checks it); the api imports the engine only in the functions that need it, so ``list`` and ``--help`` stay fast.

Exit codes (also in ``boundcheck --help``): 0 no claim violated (holds or inconclusive), 1 some claim violated,
2 bad input or work refused (one line on stderr, no traceback, nothing written), 3 not applicable (an assumption
of the theorem fails on the scenario or the algorithm's configuration; nothing simulated, nothing written),
4 internal error (one line on stderr, the traceback in a log file), 5 verify: incomplete (every judged claim
holds but some claim was not applicable to the checked code; ``--allow-incomplete``: 0), 130 interrupted. Every
message starts with ``boundcheck: error:`` (or ``warning:``; exit 3: ``boundcheck: not applicable:``).
``reproduce``: 0 no empirical claim "not reproduced", 1 some claim not reproduced, 2 bad input.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import errno
import json
import math
import os
import re
import signal
import sys
import tempfile
import textwrap
import time
import traceback
import warnings
from pathlib import Path

from . import api
from .errors import BoundcheckError, NotApplicable

EXIT_OK, EXIT_VIOLATED, EXIT_BAD_INPUT, EXIT_NOT_APPLICABLE = 0, 1, 2, 3
EXIT_INTERNAL_ERROR = 4  # an unexpected exception: one line on stderr, the traceback in a log file
EXIT_INTERNAL = EXIT_INTERNAL_ERROR  # the name issue 10 used
#: verify: every judged claim holds but some were not applicable to the checked code ("holds" means every claim
#: was judged, so this is no pass unless --allow-incomplete)
EXIT_INCOMPLETE = 5
EXIT_INTERRUPTED, EXIT_TERMINATED = 130, 143  # Ctrl-C (SIGINT), SIGTERM: completed chunks are kept
#: the reader of the output stopped reading (``| head``): SIGPIPE's status in a shell; what was computed is stored
EXIT_BROKEN_PIPE = 141

#: verify's exit code 5 (a sweep, whose table shows each cell's verdict, does not use it)
_EXIT_5 = """  5    incomplete: every judged claim holds, but some claims were not applicable to the checked code (the
       output names them and the planted defects nothing left catches); --allow-incomplete exits 0
"""
EXIT_CODES_HELP = """exit codes:
  0    no claim violated (holds or inconclusive: the table says which)
  1    some claim violated
  2    bad input or work refused: one line on stderr, no traceback, nothing written
  3    not applicable: an assumption of the theorem fails on the scenario or the algorithm's configuration
       (the message names it; nothing written); --allow-out-of-theory runs it anyway
  4    internal error (a bug): one line on stderr, the traceback in a log file it names
""" + _EXIT_5 + """  130  interrupted (Ctrl-C): completed chunks are kept; re-run the same command to resume
  141  broken pipe: the output's reader stopped reading (| head); what was computed is stored
  143  terminated (SIGTERM): as an interrupt"""


#: the exit codes of the commands that only read or compute (list, show, bound, gamma, scenario, report)
EXIT_CODES_SIMPLE = """exit codes:
  0    done
  2    bad input or work refused: one line on stderr, no traceback, nothing written
  4    internal error (a bug): one line on stderr, the traceback in a log file it names
  130  interrupted (Ctrl-C)
  141  broken pipe: the output's reader stopped reading (| head)"""

EXIT_CODES_SWEEP = EXIT_CODES_HELP.replace("no claim violated (holds", "no claim violated in any cell (holds").replace(
    "some claim violated", "some claim violated in some cell").replace(
    "(the message names it; nothing written)", "in some cell (the message names it; no cell run)").replace(
    _EXIT_5, "")  # a sweep's cells are not held to completeness (the table shows each cell's verdict)

EXIT_CODES_POWER = """exit codes:
  0    the power table was written (whatever it says)
  2    bad input or work refused: one line on stderr, no traceback, nothing written
  3    not applicable: an assumption of the theorem fails on the scenario (nothing written);
       --allow-out-of-theory measures it anyway
  4    internal error (a bug): one line on stderr, the traceback in a log file it names
  130  interrupted (Ctrl-C): completed chunks are kept; re-run the same command to resume
  141  broken pipe: the output's reader stopped reading (| head); what was computed is stored"""

EXIT_CODES_REPRODUCE = """exit codes:
  0    no empirical claim "not reproduced" (reproduced or inconclusive: the table says which)
  1    some empirical claim not reproduced
  2    bad input or work refused: one line on stderr, no traceback, nothing written
  4    internal error (a bug): one line on stderr, the traceback in a log file it names
  130  interrupted (Ctrl-C): completed chunks are kept; re-run the same command to resume
  141  broken pipe: the output's reader stopped reading (| head); what was computed is stored"""


def _reproduce_epilog() -> str:
    lines = ["papers and their experiments (`--experiment NAME` runs one):"]
    for p in api.reproducible_papers():
        lines.append(textwrap.fill(f"{p['id']:<16} {', '.join(p['experiments'])}", width=100, initial_indent="  ",
                                   subsequent_indent=" " * 19))
    return "\n".join(lines + ["", EXIT_CODES_REPRODUCE])


class _Parser(argparse.ArgumentParser):
    """One-line errors (argparse prints usage over several lines), and an epilog built only when help is shown
    (``epilog_fn``: listing theorems needs the theory registry)."""

    def __init__(self, *args, epilog_fn=None, **kwargs) -> None:
        kwargs.setdefault("formatter_class", argparse.RawDescriptionHelpFormatter)
        super().__init__(*args, **kwargs)
        self._epilog_fn = epilog_fn

    def format_help(self) -> str:
        if self._epilog_fn is not None:
            self.epilog = self._epilog_fn()
        return super().format_help()

    def error(self, message: str) -> None:
        sub = self.prog.removeprefix("boundcheck").strip()
        raise BoundcheckError(f"{sub + ': ' if sub else ''}{message} (see `{self.prog} --help`)")


def _integer(text: str) -> int:
    """An integer flag: ``200``, ``-1``, ``1_000``, ``1e6`` or ``10^6`` (exact integers only: ``2.5`` fails).

    ASCII digits only (``５``, a full-width digit, is refused although Python's ``int`` takes it), underscores
    only between groups of three digits (``1_000``; ``1_0`` is refused). Larger than 10⁴⁰⁰ reads as 10⁴⁰⁰: every
    setting refuses far less (:func:`boundcheck.utils.validation.check_int`), before any float could overflow."""
    t = text.strip()
    if "_" in t:  # digit grouping: 1_000_000
        if not re.fullmatch(r"[+-]?[0-9]{1,3}(_[0-9]{3})+", t, flags=re.ASCII):
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer (underscores only between groups of "
                                             f"three digits: 1_000)")
        t = t.replace("_", "")
    value = None
    m = re.fullmatch(r"([+-]?[0-9]+)\^([0-9]+)", t, flags=re.ASCII)
    if m:
        if int(m.group(2)) <= 400:
            value = int(m.group(1)) ** int(m.group(2))
    elif re.fullmatch(r"[+-]?[0-9]+", t, flags=re.ASCII):
        value = int(t) if len(t) <= 400 else 10**400
    else:
        m = re.fullmatch(r"([+-]?[0-9]+(?:\.[0-9]*)?)[eE]\+?([0-9]+)", t, flags=re.ASCII)
        if m and int(m.group(2)) <= 400:
            mant, exp = m.group(1), int(m.group(2))
            whole, _, frac = mant.partition(".")
            frac = frac.rstrip("0")
            if len(frac) <= exp:
                value = int(whole + frac + "0" * (exp - len(frac))) if whole.lstrip("+-") else 0
        elif m:
            value = 10**400  # an exponent above 400: far too large, refused below
    if value is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer")
    return value  # its range (at most 2⁶³ − 1 for every count) is checked by boundcheck.utils.validation
_integer.__name__ = "integer"  # argparse names the type in its message


def _real(text: str) -> float:
    """A number flag: ``0.1``, ``-2``, ``1e-3``, ``.5``, ``1_000.5``; ``inf`` and ``nan`` are read (each setting
    refuses them by name). ASCII digits only, as :func:`_integer` (Python's ``float`` takes ``０.１``, full-width
    digits), underscores only between groups of three digits of the integer part."""
    t = text.strip()
    number = r"[+-]?(?:(?:[0-9]{1,3}(?:_[0-9]{3})+|[0-9]+)(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
    if not (re.fullmatch(number, t, flags=re.ASCII)
            or re.fullmatch(r"[+-]?(?:inf|infinity|nan)", t, flags=re.ASCII | re.IGNORECASE)):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number")
    return float(t.replace("_", ""))
_real.__name__ = "number"


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


def _print_table(con, table) -> None:
    """Print a rich table with its title on a line of its own above it: rich wraps a title to the table's width,
    which breaks a title longer than a narrow table mid-phrase; a line wraps only at the console's width (the
    titles here fit in 80 columns)."""
    title, table.title = table.title, None
    if title:
        con.print(title, style="table.title")
    con.print(table)


# ------------------------------------------------------------------------------------------- list / show
def _identity_word(verdict: str) -> str:
    """A sanity identity's state: ok, BROKEN (a counterexample: a bug in the implementation or in the theory
    module) or, for any other verdict, the verdict itself (not applicable: the checked code does not record what
    it reads; never BROKEN without a counterexample)."""
    return {"holds": "ok", "violated": "[red]BROKEN[/red]"}.get(verdict, str(verdict))


def cmd_list(args) -> int:
    rows = api.list_theorems()
    if args.json:
        _print_json(rows)
        return EXIT_OK
    from rich.table import Table

    table = Table(title="boundcheck theorems")
    for col in ("id", "paper", "guarantee", "default_scenario"):
        table.add_column(col)
    for r in rows:
        table.add_row(*(str(r[c]) for c in ("id", "paper", "guarantee", "default_scenario")))
    _print_table(_console(), table)
    return EXIT_OK


def cmd_show(args) -> int:
    info = api.show_theorem(args.theorem)
    if args.json:
        _print_json(info)
        return EXIT_OK
    con = _console()
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
    return EXIT_OK


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
        if name.strip() in values:
            raise BoundcheckError(f"--set {name.strip()} given twice")
        values[name.strip()] = val
    return values


def cmd_bound(args) -> int:
    th = api.resolve_theorem(args.theorem)  # an unknown theorem is the first error, before the values
    out = api.evaluate_bound(th, _parse_sets(args.set))
    if args.json:
        _print_json(out)
    else:
        con = _console()
        con.print(f"{out['theorem']}: explicit bound = [bold]{out['value']:.6g}[/bold]")
        for k, v in out["terms"].items():
            con.print(f"  {k:>16} = {v:.6g}")
        for k, v in out["schedules"].items():
            con.print(f"  {k:>16} = {v:.6g}  (at t = T)")
    return EXIT_OK


# ------------------------------------------------------------------------------------------------ gamma
def cmd_gamma(args) -> int:
    status = None
    if sys.stderr.isatty():  # a spinner with the elapsed time: large brackets take minutes
        from rich.console import Console

        status = Console(stderr=True).status
    out = api.gamma(args.kernel, args.horizon, lengthscale=args.lengthscale, grid=args.grid, dim=args.dim,
                    noise=args.noise, eps=args.eps, batch=args.batch, max_memory=args.max_memory, status=status)
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
        rate, note = api.gamma_rate(args.kernel, args.dim)
        con.print(f"  asymptotic rate: γ_T = O({rate})  ({note})")
    return EXIT_OK


# ----------------------------------------------------------------------------------------------- verify
#: the keys of VerifySettings a verify config or flag sets directly (no_report sets ``report``)
SETTING_KEYS = ("runs", "horizon", "delta", "seed", "jobs", "backend", "scheduler", "beta_scale", "max_memory",
                "false_alarm", "until_conclusive", "max_runs", "allow_out_of_theory", "policy_timeout",
                "allow_incomplete")
VERIFY_KEYS = {"theorem", "scenario", "runs", "horizon", "delta", "seed", "jobs", "backend", "scheduler",
               "beta_scale", "out", "no_report", "max_memory", "algorithm", "false_alarm", "until_conclusive",
               "max_runs", "allow_out_of_theory", "defect", "no_conformance", "policy_timeout",
               "allow_incomplete"}

# TOML value types, checked before anything else: never coerced (runs = 2.9, horizon = true and
# no_report = "false" are errors). Keys of VERIFY_KEYS without an entry are passed on unchecked (api validates).
_INT, _REAL, _STR, _BOOL = ("an integer", (int,)), ("a number", (int, float)), ("a string", (str,)), \
    ("true or false", (bool,))
CONFIG_TYPES = {"theorem": _STR, "scenario": _STR, "runs": _INT, "horizon": _INT, "delta": _REAL, "seed": _INT,
                "jobs": _INT, "backend": _STR, "scheduler": _STR, "beta_scale": _REAL, "out": _STR,
                "no_report": _BOOL, "max_memory": ("a size such as \"4G\"", (str, int)),
                "algorithm": ("FILE.py:CLASS or a list of them", (str, list)), "false_alarm": _REAL,
                "until_conclusive": _BOOL, "max_runs": _INT, "allow_out_of_theory": _BOOL,
                "defect": ("a defect name or a list of them", (str, list)), "no_conformance": _BOOL,
                "policy_timeout": _REAL, "allow_incomplete": _BOOL}


def _load_config(path: str) -> dict:
    # missing, a special file, huge, undecodable, malformed or nested too deeply: one line, exit 2
    data = api.read_toml("config file", path, where=f"malformed config {path}")
    if "verify" in data:
        if not isinstance(data["verify"], dict):
            raise BoundcheckError(f"malformed config {path}: 'verify' must be a table ([verify])")
        outside = sorted(set(data) - {"verify"})
        if outside:
            raise BoundcheckError(f"malformed config {path}: key(s) {', '.join(outside)} outside [verify]")
        data = data["verify"]
    data = {k.replace("-", "_"): v for k, v in data.items()}
    unknown = set(data) - VERIFY_KEYS
    if unknown:
        raise BoundcheckError(f"malformed config {path}: unknown key(s) {', '.join(sorted(unknown))}; "
                              f"known: {', '.join(sorted(VERIFY_KEYS))}")
    for key, value in data.items():
        if key not in CONFIG_TYPES:
            continue
        what, types = CONFIG_TYPES[key]
        if (isinstance(value, bool) and bool not in types) or not isinstance(value, types):
            raise BoundcheckError(f"config {path}: {key} must be {what}, got {value!r} "
                                  f"({type(value).__name__}; values are never converted)")
    return data


COLOUR = {"holds": "green", "violated": "red", "inconclusive": "yellow", "not applicable": "dim",
          "incomplete": "yellow"}


def _fmt(x, spec: str = ".3g") -> str:
    return "" if x is None else format(x, spec)


def _render_summary(summary: dict) -> None:
    from rich.markup import escape
    from rich.table import Table

    con = _console()
    colour = COLOUR
    theory_label = ("[green]in theory[/green]" if summary["in_theory"]
                    else "[yellow]OUTSIDE THE THEOREM[/yellow]: " + escape("; ".join(summary["out_of_theory_reasons"])))
    con.print(f"[bold]{escape(summary['theorem'])}[/bold] on {escape(summary['scenario'])} — {theory_label}")
    con.print(f"runs = {summary['runs']}, T = {summary['horizon']}, δ = {summary['delta']}, seed = {summary['seed']}"
              + (f", β × {summary['beta_scale']:g}" if summary["beta_scale"] != 1 else "")
              + (f"; false-alarm budget {summary['false_alarm']:g} (Holm)" if summary.get("false_alarm") else "")
              + ("; anytime-valid (--until-conclusive)" if summary.get("sequential") else ""))
    b = summary["bound"]
    con.print(f"explicit bound at T: {b['at_horizon']:.4g} = "
              + " + ".join(f"{v:.4g} ({k})" for k, v in b["terms"].items())
              + f";  certified γ_T ∈ [{b['gamma_lower']:.4g}, {b['gamma_upper']:.4g}]")
    table = Table(title="claims: the theorem and the lemmas of its proof")
    for col in ("claim", "kind", "level", "failures/runs", "rate", "p", "share", "interval (confidence)", "verdict"):
        table.add_column(col, justify="right" if col in ("level", "rate", "p", "share") else "left")
    identities = []
    settle = False  # some inconclusive claim says how many runs would settle it
    for c in summary["claims"]:
        if c["kind"] == "identity":
            identities.append(c)
            continue
        ci = "" if c["ci_low"] is None or c["kind"] == "deterministic" else \
            f"[{c['ci_low']:.3g}, {c['ci_high']:.3g}]"
        if ci and c.get("test_size") is not None:
            ci += f" ({100 * (1 - c['test_size']):.4g}%)"
        v = c["verdict"]
        rate = "" if c["rate"] is None or c["kind"] == "calibration" else f"{c['rate']:.3g}"
        need = (c.get("details") or {}).get("runs_needed") if v == "inconclusive" else None
        table.add_row(c["id"] + (" *" if c.get("main") else ""), c["kind"], _fmt(c["level"]),
                      f"{c['violations']}/{c['runs']}", rate, _fmt(c.get("p_value"), ".2g"),
                      _fmt(c.get("budget_share"), ".2g"), ci, f"[{colour[v]}]{v}[/{colour[v]}]"
                      + (f" (≈{need} runs)" if need else ""))
        settle = settle or bool(need)
    _print_table(con, table)
    legend = ["* the theorem's own conclusion" if any(c.get("main") and c["kind"] != "identity"
                                                     for c in summary["claims"]) else "",
              "p: the claim's own p-value", "share: its part of the false-alarm budget"]
    con.print(escape("; ".join(x for x in legend if x)), style="dim")
    if settle:
        con.print(escape("inconclusive (≈N runs): N runs would settle it if what was observed persisted (--runs N)"),
                  style="dim")
    if identities:
        con.print("sanity identities (true by construction, outside the verdict): " + ", ".join(
            f"{c['id']} {_identity_word(c['verdict'])}" for c in identities))
        for c in identities:  # a bound no algorithm could exceed here: say why it left the verdict
            why = (c.get("details") or {}).get("vacuous")
            if why and c["id"] != "conformance":
                con.print(escape(f"  {c['id']}: {why}"))
                bite = (c.get("details") or {}).get("bites_from")  # where the bound would be tested
                if isinstance(bite, dict) and bite.get("message"):
                    con.print(escape(f"    → {bite['message']}"))
    _render_applicability(con, summary, colour)
    for line in _user_warning_lines(summary):
        con.print(f"[yellow]{escape(line)}[/yellow]")
    main_alg = escape(summary.get("main_algorithm", "the theorem's algorithm"))
    rt = Table(title="regret R_T")
    for col in ("algorithm", "mean", "median", "max", f"q{1 - summary['delta']:.2g}"):
        rt.add_column(col, justify="right" if col != "algorithm" else "left")
    for a, s in summary["regret"].items():
        rt.add_row(escape(a), *(f"{s[k]:.4g}" for k in ("mean", "median", "max", "quantile_1_minus_delta")))
    _print_table(con, rt)
    con.print(f"tightness of {main_alg} (R_T / Bound(T)): median {summary['tightness']['median']:.3g}, "
              f"max {summary['tightness']['max']:.3g}")
    v = summary["verdict"]
    con.print(f"theorem verdict: [bold {colour[v]}]{v}[/bold {colour[v]}]"
              + ("" if summary["in_theory"] else " (outside the theorem: not a theorem failure)")
              + escape(_roundoff_note(summary))
              + escape(f"   [time taken {summary['elapsed_s']:.1f} s"  # the reports' figure: one wall time
                       + ("; stored results, nothing recomputed" if getattr(summary, "recomputed", True) is False
                          else "")
                       + (f"; {summary['compute_s_total']:.1f} s over all runs of this study"
                          if summary.get("compute_s_total", 0) > summary["elapsed_s"] + 0.05 else "") + "]"))
    if summary["report"].get("html"):
        con.print(f"report: {summary['report']['html']}  {summary['report']['tex']}")


#: the largest relative conformance gap that still looks like the round-off of a lower precision (float32: about
#: 6e-8 per operation, 1e-6 to 1e-5 through a GP posterior) rather than a different algorithm (a width 0.99× the
#: theorem's leaves gaps up to ≈5e-3 at the default runs)
ROUNDOFF_GAP = 1e-4
#: kinds of warning the verify output shows (the first of each); the rest are counted, the log holds them
SHOWN_WARNING_KINDS = 5


def _conformance_gap(summary: dict) -> float | None:
    """The largest relative gap between the checked code's choices and the theorem's algorithm's where the
    (deterministic) conformance claim is violated: the claim's ``max_gap`` where the summary records it, else the
    stored steps' ``conform_gap`` of the checked algorithm; None when neither can be read."""
    c = next((c for c in summary.get("claims") or [] if c.get("id") == "conformance"), None)
    if c is None or c.get("verdict") != "violated" or c.get("kind") != "deterministic":
        return None
    d = c.get("details") or {}
    if isinstance(d.get("max_gap"), int | float) and not isinstance(d.get("max_gap"), bool):
        return float(d["max_gap"])
    return None


def _roundoff_note(summary: dict) -> str:
    """For the verdict line: conformance violated only by gaps the size of float32 round-off says so."""
    gap = _conformance_gap(summary)
    if gap is None or not 0 < gap <= ROUNDOFF_GAP:
        return ""
    c = next(c for c in summary["claims"] if c.get("id") == "conformance")
    f32 = str((c.get("details") or {}).get("dtype", "")) == "float32"  # where the summary knows the precision
    return (f" — conformance gaps of ≤ {gap:.2g} relative look like float32 round-off, not a different algorithm"
            + (" (the checked code computes in float32): run it in float64" if f32 else
               ": if the checked code computes in float32 (torch's default), run it in float64 to tell"))


def _user_warning_lines(summary: dict) -> list[str]:
    """How many warnings the checked code raised in the study's workers, the first of each kind, and the log
    (``results/user-code.log``) that holds them; [] when none."""
    folder = getattr(summary, "folder", None)
    log = api.user_code_log(folder) if folder is not None else None
    found = api.user_code_warnings(log) if log is not None else []
    if not found:
        return []
    total = sum(w["count"] for w in found)
    lines = [f"the checked code raised {total} warning{'s' * (total != 1)} ({len(found)} "
             f"kind{'s' * (len(found) != 1)}); the first of each:"]
    lines += [f"  {w['category']}: {w['message']} ({w['where']}; ×{w['count']})"
              for w in found[:SHOWN_WARNING_KINDS]]
    if len(found) > SHOWN_WARNING_KINDS:
        lines.append(f"  and {len(found) - SHOWN_WARNING_KINDS} more kinds")
    temporary = getattr(summary, "_keep", None) is not None  # the folder goes with the result
    lines.append("  all of them: " + ("in a temporary folder; rerun with --out DIR to keep the log" if temporary
                                       else str(log)))
    return lines


def _render_applicability(con, summary: dict, colour: dict) -> None:
    """Which claims applied to the checked policy, why the others did not; verdicts of further checked ones."""
    from rich.markup import escape

    na = summary.get("not_applicable") or {}
    if na:
        hint = any(str(v).startswith("needs") for v in na.values())  # records the policy could report
        con.print(f"[dim]not applicable to {escape(str(summary.get('main_algorithm')))}: "
                  + escape("; ".join(f"{k} ({v})" for k, v in na.items()))
                  + (" — report these extras (ask/tell `records`) to check them" if hint else "") + "[/dim]")
    other = summary.get("settled_otherwise") or {}
    if other:  # claims the code's own records could not settle: judged on the shadow, or covered by conformance
        for note in dict.fromkeys(other.values()):
            ids = [k for k, v in other.items() if v == note]
            con.print(f"[dim]{escape(', '.join(ids))}: {escape(note)}[/dim]")
    gap = summary.get("incomplete")
    if gap:  # "holds" means every claim was judged: say what was not, and what that leaves uncaught
        unc = gap.get("uncaught_defects")
        con.print(f"[{colour['incomplete']}]incomplete: not judged on the checked code: "
                  + escape(", ".join(gap["claims"]))
                  + ("; planted defects no remaining claim catches (power table): "
                     + escape(", ".join(unc) or "none") if unc is not None else "; no power table to say which "
                     "planted defects stay uncaught") + f"[/{colour['incomplete']}]")
    for c in summary.get("claims", []):  # where the checked code first left the theorem's algorithm
        d = c.get("details") or {}
        if c.get("id") == "conformance" and c.get("verdict") == "violated" and "first_counterexample_step" in d:
            con.print(f"[{colour['violated']}]conformance: in run {d['first_counterexample_run']} (of the "
                      f"{c['runs']}), step {d['first_counterexample_step']} is the first choice the theorem's "
                      f"algorithm would not make[/{colour['violated']}]")
    for name, info in (summary.get("checked") or {}).items():
        if name == summary.get("main_algorithm"):
            continue
        v = info["verdict"]
        bad = [c["id"] for c in info["claims"] if c["verdict"] == "violated"]
        con.print(f"also checked: [bold]{escape(name)}[/bold] — [{colour[v]}]{v}[/{colour[v]}]"
                  + (f" (violated: {', '.join(bad)})" if bad else "")
                  + (f"; not applicable: {', '.join(info['not_applicable'])}" if info.get("not_applicable") else ""))


def _verify_config(args) -> dict:
    """The settings of one verify: the config file's (type-checked), overridden by the flags given."""
    cfg = _load_config(args.config) if args.config else {}
    for k in VERIFY_KEYS:  # command-line flags win over the config file
        v = getattr(args, k, None)
        if v is not None and v is not False:
            cfg[k] = v
    if "theorem" not in cfg:
        raise BoundcheckError("verify needs --theorem (see `boundcheck list`)")
    return cfg


def _settings(**values) -> api.VerifySettings:
    """The one settings object of a command, from the values given (None: the setting's default)."""
    return api.VerifySettings(**{k: v for k, v in values.items() if v is not None})


#: without a terminal (a CI log), progress is one plain line to stderr at most this often, seconds
PLAIN_PROGRESS_EVERY = 5.0
#: a sweep checks its cells before the first runs: past this many seconds it says how far it got
SWEEP_SETUP_QUIET = 0.5


def _plain_progress(label: str):
    """Progress without a terminal: one line to stderr every :data:`PLAIN_PROGRESS_EVERY` seconds at most (the
    first after that long: a short command prints none), and, once a line was printed, one more when every chunk
    is stored, so that the last line is the finished state. Returns (on_chunk, on_progress)."""
    state = {"chunks": "", "steps": "", "last": time.monotonic(), "printed": False}

    def emit(force: bool = False) -> None:
        now = time.monotonic()
        if now - state["last"] >= PLAIN_PROGRESS_EVERY or (force and state["printed"]):
            state["last"], state["printed"] = now, True
            print(f"boundcheck: {label}: {state['steps']}{state['chunks']} [{now - _STARTED[0]:.0f} s]",
                  file=sys.stderr, flush=True)

    def on_chunk(done, total):
        state["chunks"] = f"{done}/{total} chunks stored" if isinstance(total, int) else f"{done}/{total}"
        finished = isinstance(total, int) and isinstance(done, int) and done >= total
        if finished and state["steps"]:  # every chunk stored: every run-step is done
            state["steps"] = "100% of the run-steps, "
        emit(force=finished)

    def on_progress(done, total):
        state["steps"] = f"{100 * done / max(total, 1):.0f}% of the run-steps, " if total else ""
        emit()

    return on_chunk, on_progress


def _progress_bar(label: str):
    """A bar on stderr (a terminal only) that moves within a second: a spinner and the elapsed time while the
    study is prepared (certified γ brackets), then run-steps done inside the chunks; without a terminal, a
    plain line every few seconds (:func:`_plain_progress`). Returns (progress or None, on_chunk, on_progress)."""
    if not sys.stderr.isatty():
        return None, *_plain_progress(label)
    from rich.console import Console
    from rich.markup import escape
    from rich.progress import BarColumn, Progress, SpinnerColumn, TaskProgressColumn, TextColumn, TimeElapsedColumn

    label = escape(label)
    progress = Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), TaskProgressColumn(),
                        TextColumn("{task.fields[chunks]}"), TimeElapsedColumn(), transient=True,
                        console=Console(stderr=True))
    task = progress.add_task(f"{label}: preparing", total=None, chunks="")
    chunks = {"done": 0, "total": None}

    def on_chunk(done, total):
        chunks.update(done=done, total=total)
        progress.update(task, chunks=f"{done}/{total} chunks")

    def on_progress(done, total):
        # "summarising" only once every chunk is stored: the run-steps of the chunks in flight may all be done
        # while others wait to be written
        finished = done >= total and (chunks["total"] is None or chunks["done"] >= chunks["total"])
        progress.update(task, description=f"{label}: {'summarising' if finished else 'simulating'}",
                        completed=done, total=total)

    return progress, on_chunk, on_progress


@contextlib.contextmanager
def _shown(progress):
    """Show ``progress`` (a rich Progress, or None: no bar) for the duration of the block."""
    if progress is None:
        yield
        return
    progress.start()
    try:
        yield
    finally:
        progress.stop()


def cmd_verify(args) -> int:
    cfg = _verify_config(args)  # no worker starts here: api.verify starts them once everything is validated
    th = api.resolve_theorem(cfg["theorem"])
    settings = _settings(**{k: cfg.get(k) for k in SETTING_KEYS}, report=not cfg.get("no_report"),
                         conformance=not cfg.get("no_conformance"),
                         out=cfg["out"] if "out" in cfg else api.default_out(th, cfg.get("scenario"),
                                                                            cfg.get("algorithm")))
    progress, on_chunk, on_progress = _progress_bar(th.id)
    defects = cfg.get("defect") or []
    defects = [defects] if isinstance(defects, str) else list(defects)
    try:
        with _shown(progress):
            summary = api.verify(th, cfg.get("scenario"), settings=settings, algorithm=cfg.get("algorithm") or None,
                                 defects=defects, on_chunk=on_chunk, on_progress=on_progress)
    except NotApplicable as exc:
        if args.json:
            _print_json({"theorem": th.id, "scenario": cfg.get("scenario") or th.default_scenario,
                         "verdict": "not applicable", "in_theory": False, "out_of_theory_reasons": exc.reasons})
        raise
    if args.json:
        _print_json(summary)
        for line in _user_warning_lines(summary):  # beside the JSON document, never in it
            print(f"boundcheck: {line}" if not line.startswith(" ") else line, file=sys.stderr)
    else:
        _render_summary(summary)
    if summary["verdict"] == "incomplete" and not settings.allow_incomplete:
        return EXIT_INCOMPLETE
    return EXIT_VIOLATED if summary["verdict"] == "violated" else EXIT_OK


def _render_power(table: dict) -> None:
    from rich.markup import escape
    from rich.table import Table

    con = _console()
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
                  api.describe_detectable(info.get("detectable")))
    _print_table(con, t)
    d = Table(title="per defect: the claims that catch it")
    for col in ("defect", "what it plants", "caught by"):
        d.add_column(col)
    for name, info in table["defects"].items():
        if name == "none":
            continue
        d.add_row(name, escape(info["description"]), ", ".join(info["caught_by"]) or "[red]no claim[/red]")
    _print_table(con, d)
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
        plain, _ = _plain_progress(f"power {th.id}")

        def on_study(name, i, total):
            plain(i, f"{total} studies ({name} next)")

    settings = _settings(runs=args.runs, horizon=args.horizon, delta=args.delta, seed=args.seed, jobs=args.jobs,
                         backend=args.backend, out=args.out, false_alarm=args.false_alarm, max_memory=args.max_memory,
                         allow_out_of_theory=args.allow_out_of_theory)  # runs None: api.DEFAULT_RUNS
    table = api.power(th, args.scenario, settings=settings, defects=args.defect or None, subsets=args.subsets,
                      on_study=on_study)
    if args.json:
        _print_json(table)
    else:
        _render_power(table)
    return EXIT_OK


def cmd_report(args) -> int:
    if args.index is not None or args.index_out is not None:
        return _cmd_report_index(args)
    if args.results_dir is None:
        raise BoundcheckError("report needs RESULTS_DIR (a verify's --out folder), or --index DIR… for the page "
                              "over many studies")
    summary = api.rebuild_report(args.results_dir)
    if args.json:
        _print_json(summary)
    else:
        _console().print(f"report: {summary['report']['html']}  {summary['report']['tex']}")
    return EXIT_OK


def _cmd_report_index(args) -> int:
    """``report --index DIR…``: the page over every study below the folders (issue 28)."""
    if args.results_dir is not None:
        raise BoundcheckError(f"report: give either RESULTS_DIR ({args.results_dir}) or --index DIR…, not both "
                              "(the folders to index follow --index)")
    if args.index is None:
        raise BoundcheckError("report --out-index needs --index DIR… (the folders to search for results)")
    res = api.index_report(args.index or ["reports"], args.index_out)  # --index alone: the verifies' default home
    if args.json:
        _print_json(res)
        return EXIT_OK
    con = _console()
    n = len(res["studies"])
    con.print(f"index of {n} stud{'y' if n == 1 else 'ies'}: {res['html']}  {res['tex']}")
    for folder, why in res["skipped"]:
        con.print(f"[dim]not read: {folder}: {why}[/dim]", highlight=False)
    return EXIT_OK


# ------------------------------------------------------------------------------------------------ sweep
def cmd_sweep(args) -> int:
    from rich.markup import escape

    th = api.resolve_theorem(args.theorem)
    con = _console() if not args.json else None

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
                checking["last"] is None or now - checking["last"] >= PLAIN_PROGRESS_EVERY):
            checking["last"] = now
            print(f"sweep {th.id}: {total} cells; checked {done} of them before the first runs "
                  f"[{now - checking['t0']:.0f} s]", file=sys.stderr, flush=True)

    cfg = _load_config(args.config) if args.config else {}
    for k in VERIFY_KEYS:  # command-line flags win over the config file
        v = getattr(args, k, None)
        if v is not None and v is not False:
            cfg[k] = v
    settings = _settings(**{k: cfg.get(k) for k in SETTING_KEYS}, report=not cfg.get("no_report"),
                         out=cfg.get("out") or Path("reports") / f"{th.id}-sweep")
    defects = cfg.get("defect") or []
    defects = [defects] if isinstance(defects, str) else list(defects)
    algorithm = cfg.get("algorithm") or None
    result = api.sweep(th, args.vary, cfg.get("scenario"), settings=settings, algorithm=algorithm,
                       on_cell=on_cell, defects=defects, on_setup=on_setup)
    if args.json:
        _print_json(result)
    else:
        con.print(f"sweep {th.id}: {len(result['cells'])} cells, overall {result['verdict']}")
        con.print(f"table: {result['table']}" + (f"  page: {result['page']}" if result["page"] else ""))
    return EXIT_VIOLATED if result["verdict"] == "violated" else EXIT_OK


# --------------------------------------------------------------------------------------------- scenario
def cmd_scenario(args) -> int:
    if args.theorem and args.action != "show":
        raise BoundcheckError(f"--theorem goes with scenario show, not scenario {args.action}")
    if args.family and args.action != "schema":
        raise BoundcheckError(f"--family goes with scenario schema, not scenario {args.action}")
    if args.action == "schema":
        if args.file:
            raise BoundcheckError(f"scenario schema takes no FILE, got {args.file!r} (--family NAME: one family)")
        _print_json(api.scenario_schema(args.family))
        return EXIT_OK
    if args.action == "list":
        if args.file:
            raise BoundcheckError(f"scenario list takes no FILE, got {args.file!r}")
        rows = api.scenario_list()
        if args.json:
            _print_json(rows)
        else:
            for r in rows:
                print(f"{r['name']:<32} {r['file'] or '(Python builder)'}")
        return EXIT_OK
    if not args.file:
        raise BoundcheckError(f"scenario {args.action} needs a FILE (or a built-in name)")
    info = api.scenario_info(args.file, args.theorem)
    if args.action == "validate":
        if args.json:
            _print_json({"file": args.file, "valid": True, "scenario": info["name"]})
        else:
            print(f"{args.file}: valid scenario {info['name']!r} ({info['domain']['points']} points, "
                  f"{len(info['priors'])} prior(s), truth: {info['truth']['kind']}, T = {info['horizon']}, "
                  f"δ = {info['delta']})")
        return EXIT_OK
    if args.json:
        _print_json(info)
        return EXIT_OK
    from rich.markup import escape

    con = _console()
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
    return EXIT_OK


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


# -------------------------------------------------------------------------------------------- reproduce
_VERDICT_STYLE = {"reproduced": "green", "not reproduced": "red", "inconclusive": "yellow", "not run": "dim"}


def _render_reproduce(summary: dict) -> None:
    """One screen: the headline, one line per claim (verdict and effect), the paper's printed numbers beside ours,
    the explored settings, the report."""
    from rich.markup import escape
    from rich.table import Table

    con = _console()
    con.print(f"[bold]{api.replication_headline(summary)}[/bold]")
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
            unresolved = api.resolution_text(c, short=True)
            table.add_row(c["id"], f"[{_VERDICT_STYLE[v]}]{v}[/{_VERDICT_STYLE[v]}]",
                          api.effect_text(c, short=True) + (f"; {unresolved}" if unresolved else ""))
        _print_table(con, table)
        if e.get("printed_results"):
            head, rows = api.printed_table(e)
            keep = [0, 2, 3, 4, 5, 6]  # the label names the panel; the ±2 SE column says the same as z
            printed = Table(title=f"{e['name']}: the paper's numbers beside ours", title_justify="left",
                            show_edge=False, pad_edge=False)
            for i in keep:
                printed.add_column(head[i], overflow="fold", justify="left" if i == 0 else "right")
            for r in rows:  # the cells are plain text from the paper and the data: never rich markup
                printed.add_row(*(escape(r[i]) for i in keep))
            _print_table(con, printed)
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

    con = _console()
    if summary.get("quick_text"):
        con.print(f"[bold yellow]{escape(summary['quick_text'])}[/bold yellow]")
    table = Table(title="reproduce --all", title_justify="left", show_edge=False, pad_edge=False)
    verdicts = ("reproduced", "not reproduced", "inconclusive", "not run")
    for col in ("paper", *verdicts, "time"):
        table.add_column(col, justify="left" if col == "paper" else "right")
    for p in summary["papers"]:
        table.add_row(escape(p["id"]), *(str(p["counts"].get(v, 0)) for v in verdicts), f"{p['elapsed_s']:.0f} s")
    table.add_row("all", *(str(summary["counts"].get(v, 0)) for v in verdicts), f"{summary['elapsed_s']:.0f} s")
    _print_table(con, table)
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
        plain, _ = _plain_progress(args.paper or "all papers")

        def on_progress(label, done, total):
            plain(done, f"{total} chunks of {label}")

    settings = _settings(runs=args.runs, seed=args.seed, jobs=args.jobs, out=args.out, false_alarm=args.false_alarm,
                         report=not args.no_report, max_memory=args.max_memory)
    if args.all:
        with _shown(progress):
            summary = api.reproduce_all(settings=settings, quick=args.quick, on_progress=on_progress)
        if args.json:
            _print_json(summary)
        else:
            _render_reproduce_all(summary)
        return EXIT_VIOLATED if summary["counts"].get("not reproduced") else EXIT_OK
    with _shown(progress):
        summary = api.reproduce(args.paper, args.experiment, settings=settings, explore=args.explore,
                                explore_runs=args.explore_runs, quick=args.quick, on_progress=on_progress)
    if args.json:
        _print_json(summary)
    else:
        _render_reproduce(summary)
    return EXIT_VIOLATED if summary["counts"].get("not reproduced") else EXIT_OK


# ------------------------------------------------------------------------------------------------- main
def _theorems_epilog() -> str:
    lines = ["theorems and their scenarios (the first is the default; see `boundcheck show THEOREM`):"]
    for th_id, default, others in api.theorem_scenarios():
        lines.append(textwrap.fill(f"{th_id:<20} {default}" + (f"; also {', '.join(others)}" if others else ""),
                                   width=100, initial_indent="  ", subsequent_indent=" " * 23))
    lines += ["", "config file (--config): TOML with the same keys as the flags (theorem, scenario, runs, horizon, "
              "delta,", "  seed, jobs, backend, scheduler, beta_scale, out, no_report, max_memory, algorithm, "
              "false_alarm,", "  until_conclusive, max_runs, allow_out_of_theory, allow_incomplete, defect), "
              "optionally under [verify]; values are",
              "  type-checked, never converted; flags given on the command line win.",
              "", EXIT_CODES_HELP]
    return "\n".join(lines)


JOBS_HELP = ("worker processes, or -1 for all cores; at most 4096, and never more than the cores or the chunks to run "
             "(default: -1)")


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="boundcheck", description="Empirical checks of GP-bandit regret bounds.",
                epilog=EXIT_CODES_HELP)
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser, metavar="COMMAND")
    json_help = "print JSON instead of tables (default: tables)"

    s = sub.add_parser("list", help="theorems: id, paper, guarantee, default scenario",
                       description="List the theorems boundcheck can check.", epilog=EXIT_CODES_SIMPLE)
    s.add_argument("--json", action="store_true", help=json_help)
    s.set_defaults(func=cmd_list)

    s = sub.add_parser("show", help="statement, explicit bound, assumptions, claims, corrections",
                       description="Show a theorem: statement, explicit bound, symbols, assumptions, claims, "
                                   "corrections.", epilog=EXIT_CODES_SIMPLE)
    s.add_argument("theorem", help="theorem id (see `boundcheck list`) or FILE.py:NAME, a theorem of your own")
    s.add_argument("--json", action="store_true", help=json_help)
    s.set_defaults(func=cmd_show)

    s = sub.add_parser("bound", help="evaluate the explicit bound and each of its terms",
                       description="Evaluate a theorem's explicit bound at given values of its symbols. Each "
                                   "symbol must lie in its domain (B > 0, γ_T ≥ 0, counts integral ≥ 1, δ ∈ (0,1)).",
                       epilog=EXIT_CODES_SIMPLE)
    s.add_argument("theorem", help="theorem id (see `boundcheck list`) or FILE.py:NAME, a theorem of your own")
    s.add_argument("--set", action="append", metavar="NAME=VALUE", default=[],
                   help="a bound symbol's value, once per symbol; all are required (names and domains: "
                        "`boundcheck show THEOREM`)")
    s.add_argument("--json", action="store_true", help=json_help)
    s.set_defaults(func=cmd_bound)

    s = sub.add_parser("gamma", help="certified bracket on the maximum information gain γ_T",
                       description="Certified lower and upper ends of γ_T on a regular grid in [0,1]^d.",
                       epilog=EXIT_CODES_SIMPLE)
    s.add_argument("--kernel", required=True, choices=["rbf", "matern12", "matern32", "matern52", "linear"],
                   help="kernel (required)")
    s.add_argument("--lengthscale", type=_real, default=0.2, help="ℓ in exp(-d²/(2ℓ²)) (usual form; default: 0.2)")
    s.add_argument("--grid", type=_integer, default=20, help="points per axis of the regular grid in [0,1]^d "
                                                             "(default: 20)")
    s.add_argument("--dim", type=_integer, default=1, help="dimension d (default: 1)")
    s.add_argument("--noise", type=_real, default=0.1, help="noise standard deviation R, λ = R² (default: 0.1)")
    s.add_argument("--horizon", type=_integer, required=True, help="T, number of rounds (required)")
    s.add_argument("--eps", type=_real, default=0.0, help="time-variation ε ∈ [0, 1) of the kernel "
                                                          "(default: 0, stationary)")
    s.add_argument("--batch", type=_integer, default=1, help="K observations per round (default: 1)")
    s.add_argument("--max-memory", dest="max_memory", metavar="SIZE",
                   help="refuse work estimated above SIZE, e.g. 4G (default: the memory available now)")
    s.add_argument("--json", action="store_true", help=json_help)
    s.set_defaults(func=cmd_gamma)

    s = sub.add_parser("verify", help="Monte Carlo check of a theorem and every claim of its proof",
                       description="Monte Carlo check of a theorem and of every claim of its proof. Results are "
                                   "stored as they complete; re-running the same command resumes.",
                       epilog_fn=_theorems_epilog)
    s.add_argument("--theorem", help="theorem id (required here or in --config; see the list below) or "
                   "FILE.py:NAME, a theorem of your own (docs/extending.md)")
    s.add_argument("--scenario", help="scenario name (default: the theorem's default scenario, listed below)")
    s.add_argument("--runs", type=_integer, help=f"Monte Carlo runs, e.g. 200, 1e4 (default: {200})")
    s.add_argument("--horizon", type=_integer, help="T, rounds per run (default: the scenario's)")
    s.add_argument("--delta", type=_real, help="confidence parameter δ ∈ (0, 1) (default: the scenario's)")
    s.add_argument("--seed", type=_integer, help="seed, an integer in [0, 2^63 - 1] (default: 0)")
    s.add_argument("--jobs", type=_integer, help=JOBS_HELP)
    s.add_argument("--backend", choices=["loky", "threading", "dask"],
                   help="joblib backend; dask needs boundcheck[dask] (default: loky)")
    s.add_argument("--scheduler", metavar="ADDR",
                   help="dask.distributed scheduler address; only with --backend dask (default: a LocalCluster)")
    s.add_argument("--beta-scale", dest="beta_scale", type=_real, metavar="C",
                   help="multiply β_t by C > 0; out of theory, a negative control (default: 1)")
    s.add_argument("--false-alarm", dest="false_alarm", type=_real, metavar="A",
                   help="family-wise false-alarm budget A ∈ (0, 1): a verify of a correct theorem on correct code "
                        "calls any claim violated with probability at most A (Holm across the stochastic claims; "
                        "default: 0.01)")
    s.add_argument("--until-conclusive", dest="until_conclusive", action="store_true",
                   help="add chunks of runs until every claim is settled (anytime-valid tests) or --max-runs "
                        "(default: off)")
    s.add_argument("--max-runs", dest="max_runs", type=_integer, metavar="N",
                   help="with --until-conclusive: stop at N runs, at least one chunk of 25 and --runs (default: 2000)")
    s.add_argument("--allow-out-of-theory", dest="allow_out_of_theory", action="store_true",
                   help="run a scenario that breaks an assumption anyway, labelled 'outside the theorem' "
                        "(default: refuse, exit 3)")
    s.add_argument("--defect", action="append", metavar="NAME",
                   help="plant a defect (a negative control, implies --allow-out-of-theory; names: `boundcheck "
                        "power`); repeat for several (default: none)")
    s.add_argument("--no-conformance", dest="no_conformance", action="store_true",
                   help="do not check that the checked code behaves as the theorem's algorithm (for a deliberately "
                        "different algorithm); the verdict is then out of theory (default: checked)")
    s.add_argument("--policy-timeout", dest="policy_timeout", type=_real, metavar="SECONDS",
                   help="time limit of one call into a user's policy code (ask, tell, select, update); overrunning "
                        "it is an error, exit 2 (0.001 to 86400, a day; default: 60)")
    s.add_argument("--allow-incomplete", dest="allow_incomplete", action="store_true",
                   help="exit 0 when the verdict is incomplete (every judged claim holds but some claims were not "
                        "applicable to the checked code; default: exit 5)")
    s.add_argument("--max-memory", dest="max_memory", metavar="SIZE",
                   help="refuse a study estimated above SIZE, e.g. 4G or 500M (default: the memory available now)")
    s.add_argument("--config", metavar="FILE", help="TOML file with the same keys; flags win (default: none)")
    s.add_argument("--out", metavar="DIR",
                   help="report directory; results in DIR/results (default: reports/<theorem>, with --algorithm or "
                        "another --scenario a folder below it: reports/<theorem>/<CLASS>[-on-<scenario>])")
    s.add_argument("--json", action="store_true", help="print the JSON summary instead of tables (default: tables)")
    s.add_argument("--no-report", dest="no_report", action="store_true",
                   help="store the results but write no HTML/LaTeX report (default: write it)")
    s.add_argument("--algorithm", action="append", metavar="FILE.py:CLASS",
                   help="your implementation (FILE.py:CLASS or package.module:CLASS, ask/tell or batched Policy) "
                        "checked in the role of the theorem's algorithm, the built-in ones as paired baselines; "
                        "repeat to compare several (default: none)")
    s.set_defaults(func=cmd_verify)

    s = sub.add_parser("sweep", help="a grid of verifies over parameter values: tidy table and page",
                       description="One verify per cell of the grid of --vary values, each resumable; a tidy parquet "
                                   "table (one row per cell × claim) and an HTML page of bound and regret against "
                                   "each varied parameter.", epilog=EXIT_CODES_SWEEP)
    s.add_argument("--theorem", required=True, help="theorem id (required) or FILE.py:NAME")
    s.add_argument("--vary", action="append", required=True, metavar="NAME=V1,V2,...",
                   help="horizon, delta, runs, seed, beta_scale, epsilon, noise, or a dotted key of the scenario "
                        "file (kernel.lengthscale); repeat for a grid (required)")
    s.add_argument("--scenario", help="a built-in scenario name or a scenario file (default: the theorem's)")
    s.add_argument("--runs", type=_integer, help="Monte Carlo runs per cell (default: the scenario's, else 200)")
    s.add_argument("--horizon", type=_integer, help="T (default: the scenario's)")
    s.add_argument("--delta", type=_real, help="δ ∈ (0, 1) (default: the scenario's)")
    s.add_argument("--seed", type=_integer, help="seed (default: 0)")
    s.add_argument("--beta-scale", dest="beta_scale", type=_real, help="multiply β_t by C > 0 (default: 1)")
    s.add_argument("--algorithm", action="append", metavar="FILE.py:CLASS",
                   help="your implementation checked in each cell (default: the theorem's algorithm)")
    s.add_argument("--jobs", type=_integer, help=JOBS_HELP)
    s.add_argument("--backend", choices=["loky", "threading", "dask"], help="joblib backend (default: loky)")
    s.add_argument("--scheduler", metavar="ADDR", help="dask scheduler address (default: a LocalCluster)")
    s.add_argument("--out", metavar="DIR", help="sweep directory (default: reports/<theorem>-sweep)")
    s.add_argument("--json", action="store_true", help="print the sweep's JSON (default: a table)")
    s.add_argument("--false-alarm", dest="false_alarm", type=_real, metavar="A",
                   help="each cell's false-alarm budget, as in verify (default: 0.01)")
    s.add_argument("--allow-out-of-theory", dest="allow_out_of_theory", action="store_true",
                   help="run cells that break an assumption anyway, labelled (default: refuse the sweep, exit 3)")
    s.add_argument("--no-report", dest="no_report", action="store_true", help="no HTML page (default: write it)")
    s.add_argument("--until-conclusive", dest="until_conclusive", action="store_true",
                   help="in each cell, add chunks of runs until every claim is settled or --max-runs (default: off)")
    s.add_argument("--max-runs", dest="max_runs", type=_integer, metavar="N",
                   help="with --until-conclusive: stop each cell at N runs (default: 2000)")
    s.add_argument("--defect", action="append", metavar="NAME",
                   help="plant a defect in every cell (a negative control; names: `boundcheck power`); repeat for "
                        "several (default: none)")
    s.add_argument("--max-memory", dest="max_memory", metavar="SIZE",
                   help="refuse a cell estimated above SIZE, e.g. 4G or 500M (default: the memory available now)")
    s.add_argument("--config", metavar="FILE",
                   help="TOML file with verify's keys (runs, horizon, seed, ...); flags win (default: none)")
    s.set_defaults(func=cmd_sweep)

    s = sub.add_parser("power", help="which claims catch which planted defect, with what probability",
                       description="Run the theorem's claims against a library of planted defects (wrappers around "
                                   "the algorithm, the scenario or the bound's evaluation) and print, per defect, "
                                   "which claims catch it and with what probability at N runs, and each claim's "
                                   "smallest detectable effect.", epilog=EXIT_CODES_POWER)
    s.add_argument("--theorem", required=True, help="theorem id (required) or FILE.py:NAME")
    s.add_argument("--scenario", help="scenario name or file (default: the theorem's)")
    s.add_argument("--runs", type=_integer, help="N: the verify whose power is measured (default: 200)")
    s.add_argument("--horizon", type=_integer, help="T (default: the scenario's)")
    s.add_argument("--delta", type=_real, help="δ ∈ (0, 1) (default: the scenario's)")
    s.add_argument("--seed", type=_integer, default=0, help="seed (default: 0)")
    s.add_argument("--defect", action="append", metavar="NAME",
                   help="only these defects; repeat for several (default: every one that applies to the theorem)")
    s.add_argument("--jobs", type=_integer, default=-1, help=JOBS_HELP)
    s.add_argument("--backend", choices=["loky", "threading", "dask"], default="loky",
                   help="joblib backend (default: loky)")
    s.add_argument("--false-alarm", dest="false_alarm", type=_real, default=0.01, metavar="A",
                   help="the false-alarm budget of the verify whose power is measured (default: 0.01)")
    s.add_argument("--subsets", type=_integer, default=200, help="random N-run subsets judged per defect "
                                                                 "(default: 200)")
    s.add_argument("--allow-out-of-theory", dest="allow_out_of_theory", action="store_true",
                   help="measure on a scenario that breaks an assumption (default: refuse, exit 3)")
    s.add_argument("--max-memory", dest="max_memory", metavar="SIZE",
                   help="refuse work estimated above SIZE, e.g. 4G or 500M (default: the memory available now)")
    s.add_argument("--out", metavar="DIR",
                   help="folder for the defect studies and power.json (default: reports/<theorem>/power)")
    s.add_argument("--json", action="store_true", help="print the power table's JSON (default: tables)")
    s.set_defaults(func=cmd_power)

    s = sub.add_parser("scenario", help="show or validate a scenario file (or a built-in scenario); list them",
                       description="Show a scenario file or built-in scenario in words, validate a file, or list "
                                   "the built-in scenarios.", epilog=EXIT_CODES_SIMPLE)
    s.add_argument("action", choices=["show", "validate", "list", "schema"],
                   help="what to do (required); schema: print the JSON Schema of scenario files")
    s.add_argument("file", nargs="?", help="FILE.toml or a built-in scenario name (required for show, validate)")
    s.add_argument("--theorem", help="show: say, predicate by predicate, whether this theorem applies")
    s.add_argument("--family", help="schema: only this family's schema (e.g. et_gp_ucb.eps_chain; default: every "
                                     "family's)")
    s.add_argument("--json", action="store_true", help="print JSON (default: text)")
    s.set_defaults(func=cmd_scenario)

    s = sub.add_parser("reproduce", help="run a paper's experiments and judge its empirical claims",
                       description="Run a paper's experiments (stated settings, documented guesses where the paper "
                                   "is silent) and judge its empirical claims with paired tests inside one "
                                   "false-alarm budget. Exit 0: no claim 'not reproduced'; 1: some claim not "
                                   "reproduced.", epilog_fn=_reproduce_epilog)
    s.add_argument("paper", nargs="?", help="paper id, one of those listed below (required unless --all)")
    s.add_argument("--all", action="store_true",
                   help="every experiment of every paper at the paper's settings, and one index page of every "
                        "claim's verdict (OUT/index.html; OUT default reports/reproduce); prints the total time")
    s.add_argument("--quick", action="store_true",
                   help="a smaller run, not the paper's settings: each experiment's own smaller form where it has "
                        "one (paper 004's Figs 1-3: T = 200 instead of 30 000), else 5 runs per panel (unless "
                        "--runs); horizons capped at 2000; every page says so (default: off)")
    s.add_argument("--experiment", help="one experiment of the paper, as listed below (default: all)")
    s.add_argument("--runs", type=_integer, help="paired runs per panel (default: each experiment's own, >= 30)")
    s.add_argument("--seed", type=_integer, help="seed (default: 0)")
    s.add_argument("--jobs", type=_integer, help=JOBS_HELP)
    s.add_argument("--out", metavar="DIR", help="output folder (default: reports/reproduce/<paper>)")
    s.add_argument("--false-alarm", dest="false_alarm", type=_real,
                   help="family-wise probability that any verdict is wrong (default: 0.05)")
    s.add_argument("--explore", action="store_true",
                   help="re-test the claims that did not reproduce over the grid of unstated settings (default: off)")
    s.add_argument("--explore-runs", dest="explore_runs", type=_integer,
                   help="paired runs per explored setting (default: the grid's own)")
    s.add_argument("--json", action="store_true", help="print the JSON summary (default: tables)")
    s.add_argument("--no-report", dest="no_report", action="store_true", help="write no report (default: write it)")
    s.add_argument("--max-memory", dest="max_memory", metavar="SIZE",
                   help="refuse work estimated above SIZE, e.g. 4G or 500M (default: the memory available now)")
    s.set_defaults(func=cmd_reproduce)

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
    s.add_argument("--json", action="store_true", help="print the JSON summary (default: the report paths)")
    s.set_defaults(func=cmd_report)

    # ``store check|repair DIR`` (issue 25): one self-contained block, calling only the api
    s = sub.add_parser("store", help="check a results folder, or repair a damaged one from its verified chunks",
                       description="check: list what a results folder holds and what of it verifies (writes "
                                   "nothing). repair: rebuild a damaged or lost manifest.json from store.json and "
                                   "the chunks whose sha256 verifies and whose recorded configuration key is the "
                                   "folder's; then re-run the same verify command to recompute the rest.",
                       epilog=STORE_EXIT_CODES_HELP)
    s.add_argument("action", choices=["check", "repair"], help="what to do (required)")
    s.add_argument("results_dir", metavar="DIR", help="the --out folder of a verify, or its results/ folder")
    s.add_argument("--json", action="store_true", help="print the result as JSON (default: text)")
    s.set_defaults(func=cmd_store)
    return p


STORE_EXIT_CODES_HELP = """exit codes:
  0    check: everything recorded verifies; repair: repaired, or nothing to repair
  1    check: damage found (`boundcheck store repair DIR` fixes it)
  2    bad input: DIR is not a boundcheck results folder (one line on stderr)
  5    cannot be repaired: no readable manifest.json and no store.json, so nothing proves which configuration
       the chunks belong to (re-run verify into another --out)"""
EXIT_STORE_DAMAGED, EXIT_STORE_UNREPAIRABLE = 1, 5


def cmd_store(args) -> int:
    from . import api

    result = api.store_check(args.results_dir) if args.action == "check" else api.store_repair(args.results_dir)
    if args.json:
        _print_json(result)
    else:
        for line in result.get("repaired", []):
            print(f"repaired: {line}")
        for line in result.get("problems", []) if args.action == "check" else []:
            print(f"problem: {line}")
        for what, why in result["refused"].items():
            print(f"not recovered: {what}: {why}")
        print(result["message"])
    return {"ok": EXIT_OK, "damaged": EXIT_STORE_DAMAGED}.get(result["status"], EXIT_STORE_UNREPAIRABLE)


def _log_dir() -> Path:
    return Path(os.environ.get("BOUNDCHECK_LOG_DIR") or Path(tempfile.gettempdir()) / "boundcheck-logs")


def _crash_log(argv: list[str] | None, exc: BaseException) -> str:
    """Write the traceback of an unexpected exception to a log file; its path, or why there is none."""
    try:
        d = _log_dir()
        d.mkdir(parents=True, exist_ok=True)
        path = d / f"crash-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.log"
        path.write_text(f"boundcheck {api.__version__}, python {sys.version.split()[0]}\n"
                        f"argv: {sys.argv[:1] + list(argv if argv is not None else sys.argv[1:])}\n\n"
                        + "".join(traceback.format_exception(exc)))
        return f"traceback in {path}"
    except OSError as err:
        return f"the traceback could not be written ({err})"


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    text = " ".join(str(message).split())
    print(f"boundcheck: warning: {text}", file=sys.stderr)


class _Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread wherever the command is: it stops as an interrupt does (completed
    chunks kept, the worker pool stopped in order, no resource left to loky's resource tracker to report)."""


_signals: list[int] = []  # the signals the command received (SIGINT, SIGTERM)
_held: list[float] = []  # when the signal being held back (see _must_not_raise_in) first arrived
HOLD_AT_MOST = 2.0  # seconds a signal is held back at most: then it is raised wherever the command is
#: bookkeeping of the worker pool that an exception must not cut in two: loky registers each semaphore with its
#: resource tracker (loky/backend/*resource_tracker.py) and only then attaches the finaliser that unregisters it
#: at exit (loky/backend/synchronize.py, SemLock.__init__; the finalisers are multiprocessing/util.py's). An
#: interrupt raised in between leaves a semaphore registered that nothing unregisters: the tracker reports it as
#: "leaked" when the command exits (1 SIGTERM in 100, landing while the pool was being built).
_POOL_BOOKKEEPING = (f"{os.sep}loky{os.sep}backend{os.sep}", f"{os.sep}multiprocessing{os.sep}util.py",
                     f"{os.sep}multiprocessing{os.sep}synchronize.py",
                     f"{os.sep}multiprocessing{os.sep}resource_tracker.py")


def _must_not_raise_in(frame) -> bool:
    """Whether an exception raised in ``frame`` (where the main thread was when the signal came) would be lost or
    would break bookkeeping that has to finish: the import system's weakref callbacks and finalisers print it and
    drop it; in the pool's bookkeeping (:data:`_POOL_BOOKKEEPING`, anywhere in the innermost frames) it leaves a
    resource that the resource tracker reports at exit."""
    code = getattr(frame, "f_code", None)
    if code is None:
        return False
    if code.co_filename.startswith("<frozen importlib") or code.co_name == "__del__":
        return True
    for _ in range(16):  # the bookkeeping is a few calls deep (register -> _send -> ensure_running -> spawn)
        if frame is None:
            return False
        if any(part in frame.f_code.co_filename for part in _POOL_BOOKKEEPING):
            return True
        frame = frame.f_back
    return False


def _on_signal(signum, frame) -> None:
    _signals.append(signum)
    now = time.monotonic()
    if _must_not_raise_in(frame) and (not _held or now - _held[0] < HOLD_AT_MOST):
        # the signal is sent again once this frame is (most likely) left; the bookkeeping takes microseconds, so
        # the command still stops at once
        import threading

        _held[:1] = _held[:1] or [now]
        threading.Timer(0.05, os.kill, (os.getpid(), signum)).start()
        return
    _held.clear()
    raise _Terminated if signum == signal.SIGTERM else KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    """The ``boundcheck`` command (``argv``: its arguments, default ``sys.argv[1:]``)."""
    if argv is None:  # the command itself (a caller in the same process keeps its own signal handling)
        with contextlib.suppress(ValueError, OSError):  # ValueError: not the main thread
            signal.signal(signal.SIGTERM, _on_signal)
            signal.signal(signal.SIGINT, _on_signal)
    try:
        return _main(argv)
    finally:
        if argv is None:  # the command itself, not a caller in the same process: the process exits next
            api.stop_workers()


def command() -> int:
    """The ``boundcheck`` executable and ``python -m boundcheck``: :func:`main` on the process's arguments, after
    which the process exits with its status without the interpreter's teardown (:func:`_leave_at_once`). A script
    or a test that calls :func:`main` keeps its own exit."""
    code = main()
    _LEAVE_WITH[:] = [code]
    return code


#: the exit status :func:`_leave_at_once` leaves with: set by :func:`command` when the command returns (never for
#: a caller of :func:`main`, nor when an exception escapes: those exit the usual way)
_LEAVE_WITH: list[int] = []


def _leave_at_once() -> None:
    """The command's last exit handler: flush the standard streams and ``os._exit`` with the command's status.

    Why: after :func:`main` returns, a normal interpreter exit tears down every module the command imported
    (sympy, pandas, pyarrow, matplotlib, scipy): 0.3 s of a 3.5 s default verify, measured, with nothing left to
    do. Exit handlers run last-registered first and this one is registered when the command's module is
    imported, before anything else of the command is, so every handler the command's imports register (joblib,
    loky, multiprocessing, tempfile, weakref finalizers) has run when it runs, and so have the joins of
    non-daemon threads (which precede all exit handlers); every file the command writes is closed by then
    (atomic writes). It is registered only where no exit handler was registered before it (so one of a tool
    that runs the command, such as coverage's, is never skipped)."""
    if not _LEAVE_WITH:
        return
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):  # a closed pipe (| head): nothing more can be written anyway
            stream.flush()
    os._exit(_LEAVE_WITH[0])


def _arm_quick_exit() -> None:
    # atexit._ncallbacks (CPython): how many handlers are registered; without it, the interpreter's usual exit
    count = getattr(atexit, "_ncallbacks", None)
    if count is not None and count() == 0:
        atexit.register(_leave_at_once)


_arm_quick_exit()


#: when the command started (time.monotonic()): the plain progress lines count from here
_STARTED = [time.monotonic()]


#: errors of a full disk or quota: not a bug, the store keeps what it completed (its writes are atomic)
_DISK_FULL = (errno.ENOSPC, errno.EDQUOT)


def _main(argv: list[str] | None) -> int:
    if argv is not None:  # called in-process: the command starts now (else: when this module was imported)
        _STARTED[0] = time.monotonic()
    parser = build_parser()
    with warnings.catch_warnings():
        warnings.showwarning = _show_warning  # every warning is one line with the one prefix
        try:
            if argv is None:  # the command line's own process: its standard output checked and made its own
                api.command_started()
            args = parser.parse_args(argv)
            if args.func in (cmd_verify, cmd_sweep, cmd_power, cmd_reproduce, cmd_gamma, cmd_report):
                api.check_environment()  # the commands that compute: environment variables first
            code = int(args.func(args))
            if _signals:
                # a signal whose exception was lost: one that lands while a C extension is being imported can be
                # raised inside the extension's own nested evaluation, which clears it; the command still ends
                # as interrupted
                raise _Terminated if _signals[-1] == int(signal.SIGTERM) else KeyboardInterrupt
            if sys.stdout is not None:
                sys.stdout.flush()  # a broken pipe or a full disk behind stdout is reported here, not lost at exit
            return code
        except NotApplicable as exc:  # not an error of the user's input: the theorem does not cover the scenario
            msg = " ".join(str(exc.args[0] if exc.args else exc).split())
            print(f"boundcheck: {msg}", file=sys.stderr)
            return EXIT_NOT_APPLICABLE
        except KeyboardInterrupt as exc:
            what, code = (("terminated", EXIT_TERMINATED) if isinstance(exc, _Terminated)
                          else ("interrupted", EXIT_INTERRUPTED))
            print(f"boundcheck: error: {what}; completed chunks are stored — re-run the same command to resume",
                  file=sys.stderr)
            return code
        except SystemExit as exc:  # --help; rich's answer to a broken pipe (SystemExit(1), raised while handling it)
            with contextlib.suppress(OSError, ValueError):  # the help's last lines, still buffered
                if sys.stdout is not None:
                    sys.stdout.flush()
            # argparse swallows a write error: the command's stdout remembers it (api.command_started)
            if isinstance(exc.__context__, BrokenPipeError) or isinstance(getattr(sys.stdout, "failed", None),
                                                                          BrokenPipeError):
                return EXIT_BROKEN_PIPE
            return exc.code if isinstance(exc.code, int) else EXIT_OK
        except BrokenPipeError:  # output piped into a command that stopped reading (| head)
            with contextlib.suppress(OSError, ValueError, AttributeError):
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return EXIT_BROKEN_PIPE
        except Exception as exc:  # noqa: BLE001 - the boundary: bad input exit 2, else one line + a log (exit 4)
            th = sys.modules.get("theory")  # imported lazily: only commands that use it can raise its errors
            if isinstance(exc, BoundcheckError) or (th is not None and isinstance(exc, th.UnknownTheorem)):
                msg = " ".join(str(exc.args[0] if exc.args else exc).split())
                print(f"boundcheck: error: {msg}", file=sys.stderr)
                return EXIT_BAD_INPUT
            if isinstance(exc, OSError) and exc.errno in _DISK_FULL and getattr(exc, "boundcheck_stream", None):
                print(f"boundcheck: error: no space left on the device of {exc.boundcheck_stream} "
                      f"({os.strerror(exc.errno)}): the output is cut short; what the command stores (a verify's "
                      f"results) is kept — re-run it with the output elsewhere", file=sys.stderr)
                return EXIT_BAD_INPUT
            if isinstance(exc, OSError) and exc.errno in _DISK_FULL:
                where = Path(exc.filename).parent if exc.filename else "the output folder"
                print(f"boundcheck: error: no space left on the device writing into {where} "
                      f"({os.strerror(exc.errno)}); every chunk completed before is kept there — free some space "
                      f"and re-run the same command to resume", file=sys.stderr)
                return EXIT_BAD_INPUT
            if isinstance(exc, MemoryError):
                print(f"boundcheck: error: out of memory despite the estimate; lower --runs, --horizon or --jobs "
                      f"({_crash_log(argv, exc)})", file=sys.stderr)
                return EXIT_INTERNAL_ERROR
            what = " ".join(str(exc).split())[:200]
            print(f"boundcheck: error: internal error ({type(exc).__name__}: {what}); this is a bug in boundcheck "
                  f"or in code it ran — {_crash_log(argv, exc)}", file=sys.stderr)
            return EXIT_INTERNAL_ERROR


if __name__ == "__main__":  # pragma: no cover
    sys.exit(command())
