"""Command-line interface ``boundcheck`` (contract in shared/design.md, documented in the README).

Exit codes (also in ``boundcheck --help``): 0 no claim violated (holds or inconclusive), 1 some claim violated,
2 bad input or work refused (one line on stderr, no traceback, nothing written), 3 not applicable (an assumption
of the theorem fails on the scenario or the algorithm's configuration; nothing simulated, nothing written),
4 internal error (one line on stderr, the traceback in a log file), 130 interrupted. Every message starts with
``boundcheck: error:`` (or ``warning:``; exit 3: ``boundcheck: not applicable:``). ``reproduce``: 0 no empirical
claim "not reproduced", 1 some claim not reproduced, 2 bad input.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import re
import signal
import sys
import tempfile
import textwrap
import time
import tomllib
import traceback
import warnings
from pathlib import Path

from .errors import BoundcheckError, NotApplicable

EXIT_OK, EXIT_VIOLATED, EXIT_BAD_INPUT, EXIT_NOT_APPLICABLE = 0, 1, 2, 3
EXIT_INTERNAL_ERROR = 4  # an unexpected exception: one line on stderr, the traceback in a log file
EXIT_INTERNAL = EXIT_INTERNAL_ERROR  # the name issue 10 used

EXIT_CODES_HELP = """exit codes:
  0    no claim violated (holds or inconclusive: the table says which)
  1    some claim violated
  2    bad input or work refused: one line on stderr, no traceback, nothing written
  3    not applicable: an assumption of the theorem fails on the scenario or the algorithm's configuration
       (the message names it; nothing written); --allow-out-of-theory runs it anyway
  4    internal error (a bug): one line on stderr, the traceback in a log file it names
  130  interrupted (Ctrl-C): completed chunks are kept; re-run the same command to resume
  143  terminated (SIGTERM): as an interrupt"""


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
    """An integer flag: ``200``, ``-1``, ``1_000``, ``1e6`` or ``10^6`` (exact integers only: ``2.5`` fails)."""
    t = text.strip().replace("_", "")
    m = re.fullmatch(r"([+-]?\d+)\^(\d+)", t)
    try:
        if m:
            if int(m.group(2)) > 400:
                raise ValueError
            return int(m.group(1)) ** int(m.group(2))
        if re.fullmatch(r"[+-]?\d+", t):
            return int(t)
        m = re.fullmatch(r"([+-]?\d+(?:\.\d*)?)[eE]\+?(\d+)", t)
        if m and int(m.group(2)) <= 400:
            mant, exp = m.group(1), int(m.group(2))
            whole, _, frac = mant.partition(".")
            frac = frac.rstrip("0")
            if len(frac) <= exp:
                return int(whole + frac + "0" * (exp - len(frac))) if whole.lstrip("+-") else 0
    except ValueError:
        pass
    raise argparse.ArgumentTypeError(f"{text!r} is not an integer")


_integer.__name__ = "integer"  # argparse names the type in its message


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
def _theorem_rows() -> list[dict]:
    """id, paper, guarantee and default scenario of every built-in theorem.

    The theory modules are sympy (≈ 0.3 s to import); the rows are kept in the runtime's cache (``theorems``,
    :mod:`boundcheck.runtime.cache`) under a key made of the theory sources' names, sizes and modification
    times and the package version, so ``boundcheck list`` answers without importing sympy unless a theory
    module changed."""
    import hashlib
    import importlib.util

    from . import __version__
    from .runtime import cache as runtime_cache

    rows = None
    key = None
    store = runtime_cache("theorems", entries=16)
    spec = importlib.util.find_spec("theory")  # locates the package without importing it
    if spec is not None and spec.origin:
        root = Path(spec.origin).parent
        h = hashlib.sha1(__version__.encode())
        for f in sorted(root.glob("*.py")):
            st = f.stat()
            h.update(f"{f.name}:{st.st_size}:{st.st_mtime_ns};".encode())
        key = f"list-{h.hexdigest()[:16]}"
        rows = store.read(key, ".json", lambda path: json.loads(path.read_text()))
    if rows is None:
        import theory

        rows = [{"id": th.id, "paper": th.source, "guarantee": th.guarantee,
                 "default_scenario": th.default_scenario} for th in theory.all_theorems()]
        if key is not None:  # a read-only or full disk: no cache, still correct
            store.write(key, ".json", lambda tmp: Path(tmp).write_text(json.dumps(rows)))
    return rows


def cmd_list(args) -> int:
    rows = _theorem_rows()
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

    import theory

    th = theory.get(args.theorem)
    if args.json:
        _print_json({
            "id": th.id, "title": th.title, "source": th.source, "paper": th.paper, "guarantee": th.guarantee,
            "symbols": {k: meaning for k, (_, meaning) in th.symbols.items()},
            "domains": {k: th.domain(k).describe() for k in th.symbols},
            "bound": str(th.bound), "bound_terms": {k: str(v) for k, v in th.bound_terms.items()},
            "bound_latex": sp.latex(th.bound), "printed": th.printed,
            "schedules": {k: str(v) for k, v in th.schedules.items()},
            "assumptions": [a.text for a in th.assumptions],
            "claims": [{"id": c.id, "kind": c.kind, "level": _claim_level(c), "statement": c.statement,
                        "source": c.source} for c in th.claims],
            "corrections": [c.__dict__ for c in th.corrections],
            "default_scenario": th.default_scenario, "scenarios": list(th.scenarios),
            "controls": list(th.controls), "algorithms": list(th.algorithms),
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
        con.print(f"  {name:>16}: {meaning}; {th.domain(name).describe()}")
    con.print("[bold]Assumptions:[/bold]")
    for a in th.assumptions:
        con.print(f"  - {a.text}")
    from rich.markup import escape

    con.print("[bold]Claims checked:[/bold]")
    for c in th.claims:
        lvl = f" (level {_claim_level(c)})" if _claim_level(c) is not None else ""
        con.print(escape(f"  - {c.id} [{c.kind}{lvl}]: {c.statement} — {c.source}"))
    con.print("[bold]Corrections to the paper:[/bold]")
    for c in th.corrections:
        con.print(f"  - {c.id} {c.location}: paper '{c.paper}' → implemented '{c.implemented}' ({c.reason})")
    con.print(f"\nDefault scenario: {th.default_scenario}; scenarios (every assumption holds): "
              f"{', '.join(th.scenarios)}"
              + (f"; negative controls (--allow-out-of-theory): {', '.join(th.controls)}" if th.controls else ""))
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
        if name.strip() in values:
            raise BoundcheckError(f"--set {name.strip()} given twice")
        values[name.strip()] = val
    return values


def _check_domains(th, values: dict[str, float]) -> None:
    """Each bound symbol in the domain its theorem gives it (B > 0, γ_T ≥ 0, counts integral ≥ 1, δ ∈ (0,1))."""
    for name, v in values.items():
        dom = th.domain(name)
        if not dom.contains(v):
            raise BoundcheckError(f"--set {name}={v:g}: {name} ({th.symbols[name][1]}) must be {dom.describe()} "
                                  f"for {th.id}")


def _finite_result(th, what: str, value) -> float:
    v = float(value)
    if not math.isfinite(v):
        raise BoundcheckError(f"{th.id}: the {what} is not a finite number at these values ({v}): the values are "
                              f"too large (overflow)")
    return v


def cmd_bound(args) -> int:
    import theory

    th = theory.get(args.theorem)
    values = _parse_sets(args.set)
    unknown = [n for n in values if n not in th.symbols]
    if unknown:
        raise BoundcheckError(f"unknown symbol(s) {', '.join(unknown)} for {th.id}; "
                              f"symbols: {', '.join(th.symbols)}")
    missing = [n for n in th.symbols if n not in values]
    if missing:
        raise BoundcheckError(f"missing --set for {', '.join(missing)} (see `boundcheck show {th.id}`)")
    _check_domains(th, values)
    from .utils.validation import check_symbol_values

    check_symbol_values(th, values)  # relations between symbols (e.g. H ≤ T)
    import numpy as np

    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            res = th.evaluate(values)
            schedules = {k: th.schedule_values(k, values.get("T", 1.0), values) for k in th.schedules}
        except (OverflowError, ZeroDivisionError, FloatingPointError):
            raise BoundcheckError(f"{th.id}: the bound cannot be evaluated at these values: they are too large "
                                  f"(overflow)") from None
    out = {"theorem": th.id, "values": values, "value": _finite_result(th, "explicit bound", res["value"]),
           "terms": {k: _finite_result(th, f"bound term {k}", v) for k, v in res["terms"].items()},
           "schedules": {k: _finite_result(th, f"schedule {k}", v) for k, v in schedules.items()}}
    if out["value"] < 0:  # a bound symbol outside the range the formula was derived for
        raise BoundcheckError(f"{th.id}: the explicit bound is negative at these values ({out['value']:.6g}); "
                              f"they are outside the theorem's range")
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
    from .utils.resources import MemoryEstimate, check_memory, gamma_memory, parse_size
    from .utils.validation import check_int, check_positive, check_unit_interval

    check_positive("--lengthscale", args.lengthscale)
    check_positive("--noise", args.noise)
    grid, dim = check_int("--grid", args.grid), check_int("--dim", args.dim)
    horizon, batch = check_int("--horizon", args.horizon), check_int("--batch", args.batch)
    if check_unit_interval("--eps", args.eps) == 1.0:
        raise BoundcheckError("--eps must be below 1 (ε = 1 forgets everything at every step)")
    limit = None if args.max_memory is None else parse_size(args.max_memory)
    n = grid**dim if dim * math.log10(max(grid, 1)) < 30 else 10**30
    check_memory(MemoryEstimate(f"the γ bracket (|X| = {grid}^{dim}, T·K = {horizon * batch})",
                                gamma_memory(n, horizon * batch)), limit,
                 hint="lower --horizon, --grid or --dim, or set --max-memory if you know better")
    status = contextlib.nullcontext()
    if sys.stderr.isatty():  # a spinner with the elapsed time: large brackets take minutes
        from rich.console import Console

        status = Console(stderr=True).status(f"certified γ_T bracket: |X| = {grid}^{dim}, T = {horizon}, K = {batch}")
    with status:
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
               "beta_scale", "out", "no_report", "max_memory", "algorithm", "false_alarm", "until_conclusive",
               "max_runs", "allow_out_of_theory", "defect"}

# TOML value types, checked before anything else: never coerced (runs = 2.9, horizon = true and
# no_report = "false" are errors). Keys of VERIFY_KEYS without an entry are passed on unchecked (api validates).
_INT, _REAL, _STR, _BOOL = ("an integer", (int,)), ("a number", (int, float)), ("a string", (str,)), \
    ("true or false", (bool,))
CONFIG_TYPES = {"theorem": _STR, "scenario": _STR, "runs": _INT, "horizon": _INT, "delta": _REAL, "seed": _INT,
                "jobs": _INT, "backend": _STR, "scheduler": _STR, "beta_scale": _REAL, "out": _STR,
                "no_report": _BOOL, "max_memory": ("a size such as \"4G\"", (str, int)),
                "algorithm": ("FILE.py:CLASS or a list of them", (str, list)), "false_alarm": _REAL,
                "until_conclusive": _BOOL, "max_runs": _INT, "allow_out_of_theory": _BOOL,
                "defect": ("a defect name or a list of them", (str, list))}


def _load_config(path: str) -> dict:
    p = Path(path)
    if not p.is_file():
        raise BoundcheckError(f"config file {path} not found" if not p.exists() else f"config {path} is not a file")
    try:
        data = tomllib.loads(p.read_bytes().decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise BoundcheckError(f"malformed config {path}: {str(exc).splitlines()[0]}") from None
    except OSError as exc:
        raise BoundcheckError(f"cannot read config {path}: {exc.strerror or exc}") from None
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


COLOUR = {"holds": "green", "violated": "red", "inconclusive": "yellow", "not applicable": "dim"}


def _fmt(x, spec: str = ".3g") -> str:
    return "" if x is None else format(x, spec)


def _render_summary(summary: dict) -> None:
    from rich.markup import escape
    from rich.table import Table

    con = _console()
    colour = COLOUR
    theory_label = ("[green]in theory[/green]" if summary["in_theory"]
                    else "[yellow]OUTSIDE THE THEOREM[/yellow]: " + escape("; ".join(summary["out_of_theory_reasons"])))
    con.print(f"[bold]{summary['theorem']}[/bold] on {summary['scenario']} — {theory_label}")
    con.print(f"runs = {summary['runs']}, T = {summary['horizon']}, δ = {summary['delta']}, seed = {summary['seed']}"
              + (f", β × {summary['beta_scale']:g}" if summary["beta_scale"] != 1 else "")
              + (f"; false-alarm budget {summary['false_alarm']:g} (Holm)" if summary.get("false_alarm") else "")
              + ("; anytime-valid (--until-conclusive)" if summary.get("sequential") else ""))
    b = summary["bound"]
    con.print(f"explicit bound at T: {b['at_horizon']:.4g} = "
              + " + ".join(f"{v:.4g} ({k})" for k, v in b["terms"].items())
              + f";  certified γ_T ∈ [{b['gamma_lower']:.4g}, {b['gamma_upper']:.4g}]")
    table = Table(title="claims (p: the claim's own p-value; share: its part of the false-alarm budget)")
    for col in ("claim", "kind", "level", "failures/runs", "rate", "p", "share", "interval (confidence)", "verdict"):
        table.add_column(col, justify="right" if col in ("level", "rate", "p", "share") else "left")
    identities = []
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
        table.add_row(c["id"] + (" *" if c.get("main") else ""), c["kind"], _fmt(c["level"]),
                      f"{c['violations']}/{c['runs']}", rate, _fmt(c.get("p_value"), ".2g"),
                      _fmt(c.get("budget_share"), ".2g"), ci, f"[{colour[v]}]{v}[/{colour[v]}]")
    con.print(table)
    if identities:
        con.print("sanity identities (true by construction, outside the verdict): " + ", ".join(
            f"{c['id']} {'ok' if c['verdict'] == 'holds' else '[red]BROKEN[/red]'}" for c in identities))
    _render_applicability(con, summary, colour)
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
              + ("" if summary["in_theory"] else " (outside the theorem: not a theorem failure)")
              + f"   [{summary['elapsed_s']:.1f} s"
              + (f"; {summary['compute_s_total']:.1f} s over all runs of this study"
                 if summary.get("compute_s_total", 0) > summary["elapsed_s"] + 0.05 else "") + "]")
    if summary["report"].get("html"):
        con.print(f"report: {summary['report']['html']}  {summary['report']['tex']}")


def _render_applicability(con, summary: dict, colour: dict) -> None:
    """Which claims applied to the checked policy, why the others did not; verdicts of further checked ones."""
    na = summary.get("not_applicable") or {}
    if na:
        con.print(f"[dim]not applicable to {summary.get('main_algorithm')}: "
                  + "; ".join(f"{k} ({v})" for k, v in na.items())
                  + " — report these extras (ask/tell `records`) to check them[/dim]")
    for name, info in (summary.get("checked") or {}).items():
        if name == summary.get("main_algorithm"):
            continue
        v = info["verdict"]
        bad = [c["id"] for c in info["claims"] if c["verdict"] == "violated"]
        con.print(f"also checked: [bold]{name}[/bold] — [{colour[v]}]{v}[/{colour[v]}]"
                  + (f" (violated: {', '.join(bad)})" if bad else "")
                  + (f"; not applicable: {', '.join(info['not_applicable'])}" if info.get("not_applicable") else ""))


def _verify_settings(args) -> dict:
    """The settings of one verify: the config file's (type-checked), overridden by the flags given."""
    cfg = _load_config(args.config) if args.config else {}
    for k in VERIFY_KEYS:  # command-line flags win over the config file
        v = getattr(args, k, None)
        if v is not None and v is not False:
            cfg[k] = v
    if "theorem" not in cfg:
        raise BoundcheckError("verify needs --theorem (see `boundcheck list`)")
    return cfg


def _progress_bar(label: str):
    """A bar on stderr (a terminal only) that moves within a second: a spinner and the elapsed time while the
    study is prepared (certified γ brackets), then run-steps done inside the chunks. Returns (progress or None,
    on_chunk, on_progress)."""
    if not sys.stderr.isatty():
        return None, None, None
    from rich.console import Console
    from rich.progress import BarColumn, Progress, SpinnerColumn, TaskProgressColumn, TextColumn, TimeElapsedColumn

    progress = Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), TaskProgressColumn(),
                        TextColumn("{task.fields[chunks]}"), TimeElapsedColumn(), transient=True,
                        console=Console(stderr=True))
    task = progress.add_task(f"{label}: preparing", total=None, chunks="")

    def on_chunk(done, total):
        progress.update(task, chunks=f"{done}/{total} chunks")

    def on_progress(done, total):
        phase = "summarising" if done >= total else "simulating"
        progress.update(task, description=f"{label}: {phase}", completed=done, total=total)

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
    cfg = _verify_settings(args)
    if isinstance(cfg.get("jobs", -1), int) and isinstance(cfg.get("backend", "loky"), str):
        from . import runtime, study  # noqa: F401 - the study package registers the workers' warm-up (the engine)

        runtime.prewarm(cfg.get("jobs", -1), cfg.get("backend", "loky"))  # workers import while this process does
    from . import api

    th = api.resolve_theorem(cfg["theorem"])
    progress, on_chunk, on_progress = _progress_bar(th.id)
    defects = cfg.get("defect") or []
    defects = [defects] if isinstance(defects, str) else list(defects)
    try:
        with _shown(progress):
            summary = api.verify(
                th, cfg.get("scenario"), runs=cfg.get("runs"), horizon=cfg.get("horizon"),
                delta=cfg.get("delta"), seed=cfg.get("seed", 0), beta_scale=cfg.get("beta_scale", 1.0),
                jobs=cfg.get("jobs", -1), backend=cfg.get("backend", "loky"), scheduler=cfg.get("scheduler"),
                out=cfg["out"] if "out" in cfg else Path("reports") / th.id, report=not cfg.get("no_report"),
                on_chunk=on_chunk, on_progress=on_progress, max_memory=cfg.get("max_memory"),
                algorithm=cfg.get("algorithm") or None, false_alarm=cfg.get("false_alarm", api.DEFAULT_FALSE_ALARM),
                until_conclusive=bool(cfg.get("until_conclusive")), max_runs=cfg.get("max_runs"),
                allow_out_of_theory=bool(cfg.get("allow_out_of_theory")), defects=defects)
    except NotApplicable as exc:
        if args.json:
            _print_json({"theorem": th.id, "scenario": cfg.get("scenario") or th.default_scenario,
                         "verdict": "not applicable", "in_theory": False, "out_of_theory_reasons": exc.reasons})
        raise
    if args.json:
        _print_json(summary)
    else:
        _render_summary(summary)
    return EXIT_VIOLATED if summary["verdict"] == "violated" else EXIT_OK


def _render_power(table: dict) -> None:
    from rich.markup import escape
    from rich.table import Table

    from .report.context import describe_detectable as _describe_detectable

    con = _console()
    target = table["power_target"]
    con.print(f"[bold]power of {table['theorem']}[/bold] on {table['scenario']}: a verify of N = {table['runs']} runs, "
              f"T = {table['horizon']}, false-alarm budget {table['false_alarm']:g}")
    base = table["defects"].get("none", {}).get("probability", {})
    t = Table(title=f"per claim: the defects it catches, with the probability that a verify of N runs calls it "
              f"violated (≥ {target:g} = catches)")
    for col in ("claim", "catches", "also flags (p ≥ 0.2)", "false alarms", "smallest detectable effect at N"):
        t.add_column(col)
    for cid, info in table["claims"].items():
        probs = {d: v["probability"][cid] for d, v in table["defects"].items() if d != "none"}
        strong = ", ".join(f"{d} {p:.2f}" for d, p in probs.items() if p >= target)
        weak = ", ".join(f"{d} {p:.2f}" for d, p in probs.items() if 0.2 <= p < target)
        t.add_row(cid, strong or "[red]nothing[/red]", weak, f"{base.get(cid, 0.0):.2f}",
                  _describe_detectable(info.get("detectable")))
    con.print(t)
    d = Table(title="per defect: the claims that catch it")
    for col in ("defect", "what it plants", "caught by"):
        d.add_column(col)
    for name, info in table["defects"].items():
        if name == "none":
            continue
        d.add_row(name, escape(info["description"]), ", ".join(info["caught_by"]) or "[red]no claim[/red]")
    con.print(d)
    if table.get("identities"):
        con.print("sanity identities (outside the verdict, nothing to catch): " + ", ".join(table["identities"]))
    for cid, why in (table.get("vacuous") or {}).items():
        con.print(escape(f"{cid}: {why} (outside the verdict)"))
    con.print(f"[dim]{table['method']}[/dim]")
    if table.get("path"):
        con.print(f"power table: {table['path']}")


def cmd_power(args) -> int:
    from . import api

    th = api.resolve_theorem(args.theorem)
    on_study = None
    if sys.stderr.isatty():
        from rich.console import Console

        err = Console(stderr=True)

        def on_study(name, i, total):
            err.print(f"[dim]power {th.id}: study {i + 1}/{total} ({name})[/dim]")

    table = api.power(th, args.scenario, runs=args.runs if args.runs is not None else api.DEFAULT_RUNS,
                      horizon=args.horizon, delta=args.delta, seed=args.seed, defects=args.defect or None,
                      jobs=args.jobs, backend=args.backend, out=args.out, false_alarm=args.false_alarm,
                      subsets=args.subsets, allow_out_of_theory=args.allow_out_of_theory, on_study=on_study)
    if args.json:
        _print_json(table)
    else:
        _render_power(table)
    return EXIT_OK


SUMMARY_KEYS = ("theorem", "scenario", "verdict", "in_theory", "runs", "horizon", "delta", "seed", "claims",
                "bound", "regret")


def cmd_report(args) -> int:
    from .report import write_reports  # not the api: rebuilding reports needs neither studies nor defects
    from .study.store import ResultStore

    results = Path(args.results_dir)
    if not results.exists():
        raise BoundcheckError(f"{results} not found")
    if not results.is_dir():
        raise BoundcheckError(f"{results} is not a directory: give the folder verify wrote (OUT or OUT/results)")
    if (results / "results" / "manifest.json").exists():
        results = results / "results"
    store = ResultStore(results)
    store.require_manifest()
    summary = store.read_json("summary")
    missing = [k for k in SUMMARY_KEYS if k not in summary]
    if missing or not isinstance(summary.get("claims"), list):
        raise BoundcheckError(f"corrupt results file {results / 'summary.json'}: missing "
                              f"{', '.join(missing) or 'the claims list'}; re-run verify to rebuild it")
    paths = write_reports(results, results.parent)  # what api.write_report does, without importing the api
    summary["report"] = {"html": str(paths["html"]), "tex": str(paths["tex"])}
    if args.json:
        _print_json(summary)
    else:
        _console().print(f"report: {summary['report']['html']}  {summary['report']['tex']}")
    return EXIT_OK


# ------------------------------------------------------------------------------------------------ sweep
def cmd_sweep(args) -> int:
    from . import api

    th = api.resolve_theorem(args.theorem)
    con = _console() if not args.json else None

    def on_cell(done, total, cell, summary):
        if con is not None and summary is not None:
            con.print(f"[{done}/{total}] {cell}: {summary['verdict']}"
                      + ("" if summary["in_theory"] else " (out of theory)"))

    result = api.sweep(th, args.vary, args.scenario, runs=args.runs, horizon=args.horizon, delta=args.delta,
                       seed=args.seed if args.seed is not None else 0,
                       beta_scale=args.beta_scale if args.beta_scale is not None else 1.0,
                       algorithm=args.algorithm or None, jobs=args.jobs if args.jobs is not None else -1,
                       backend=args.backend or "loky", scheduler=args.scheduler,
                       out=args.out or Path("reports") / f"{th.id}-sweep", page=not args.no_report, on_cell=on_cell,
                       false_alarm=args.false_alarm if args.false_alarm is not None else api.DEFAULT_FALSE_ALARM,
                       allow_out_of_theory=args.allow_out_of_theory)
    if args.json:
        _print_json(result)
    else:
        con.print(f"sweep {th.id}: {len(result['cells'])} cells, overall {result['verdict']}")
        con.print(f"table: {result['table']}" + (f"  page: {result['page']}" if result["page"] else ""))
    return EXIT_VIOLATED if result["verdict"] == "violated" else EXIT_OK


# --------------------------------------------------------------------------------------------- scenario
def _scenario_arg(ref: str):
    """A scenario file or a built-in name."""
    from .world.catalogue import get_scenario
    from .world.scenario_files import load_scenario

    if ref.endswith(".toml") or "/" in ref or Path(ref).is_file():
        return load_scenario(ref)
    return get_scenario(ref)


def cmd_scenario(args) -> int:
    from .world.catalogue import scenario_files, scenario_names
    from .world.scenario_files import scenario_summary

    if args.action == "list":
        files = scenario_files()
        rows = [{"name": n, "file": str(files[n]) if n in files else None} for n in scenario_names()]
        if args.json:
            _print_json(rows)
        else:
            for r in rows:
                print(f"{r['name']:<32} {r['file'] or '(Python builder)'}")
        return EXIT_OK
    if not args.file:
        raise BoundcheckError(f"scenario {args.action} needs a FILE (or a built-in name)")
    sc = _scenario_arg(args.file)
    info = scenario_summary(sc)
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
    con = _console()
    con.print(f"[bold]{info['name']}[/bold]" + (f"  ({info['source']})" if info["source"] else ""))
    con.print(info["description"])
    con.print("in theory" if info["in_theory"] else f"[yellow]OUT OF THEORY[/yellow]: {info['out_of_theory_reason']}")
    d = info["domain"]
    con.print(f"domain: {d['name']}, {d['points']} points in R^{d['dim']}, box {d['low']} – {d['high']}")
    con.print(f"priors U ({len(info['priors'])}, {info['kernel_groups']} kernel(s)): "
              + ", ".join(f"{p['name']} (ε = {p['eps']:g})" for p in info["priors"]))
    t = info["truth"]
    con.print(f"truth: {t['kind']} {t['name']!r}" + (f", {t['norm']}" if "norm" in t else "")
              + (f"; monitors use {t['reference']!r}" if t.get("reference") else ""))
    con.print(f"noise R = {info['noise']:.4g}, model λ = {info['model_noise']}, B = {info['B']}, "
              f"T = {info['horizon']}, δ = {info['delta']}, runs = {info['runs'] or 'default'}, "
              f"γ: {info['gamma_rule']}")
    con.print(f"actions: {info['actions']}")
    for n in info["notes"]:
        con.print(f"note: {n}")
    return EXIT_OK


# -------------------------------------------------------------------------------------------- reproduce
_VERDICT_STYLE = {"reproduced": "green", "not reproduced": "red", "inconclusive": "yellow", "not run": "dim"}


def _render_reproduce(summary: dict) -> None:
    """One screen: the headline, one line per claim (verdict and effect), the explored settings, the report."""
    from rich.table import Table

    from .report.replication import effect_text, headline

    con = _console()
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
            table.add_row(c["id"], f"[{_VERDICT_STYLE[v]}]{v}[/{_VERDICT_STYLE[v]}]", effect_text(c, short=True))
        con.print(table)
    for name, ex in (summary.get("explore") or {}).items():
        if "claims" not in ex:
            con.print(f"explore {name}: {ex.get('note', '')}")
            continue
        for cid, block in ex["claims"].items():
            con.print(f"explore {name}: [bold]{cid}[/bold] reproduces {block['where']} (screen); "
                      f"{block.get('confirmation', '')}")
    con.print(f"[{summary['elapsed_s']:.1f} s]  budget: {summary['budget']}")
    if summary["report"].get("html"):
        con.print(f"report: {summary['report']['html']}  {summary['report']['tex']}")


def cmd_reproduce(args) -> int:
    from . import api

    on_progress, progress = None, None
    if sys.stderr.isatty():
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                            TextColumn("chunks"), TimeElapsedColumn(), transient=True, console=Console(stderr=True))
        task = progress.add_task(args.paper, total=None)

        def on_progress(label, done, total):
            progress.update(task, description=label, completed=done, total=total)

    with _shown(progress):
        summary = api.reproduce(
            args.paper, args.experiment, runs=args.runs, seed=args.seed if args.seed is not None else 0,
            jobs=args.jobs if args.jobs is not None else -1, out=args.out,
            false_alarm=args.false_alarm if args.false_alarm is not None else api.REPRODUCE_FALSE_ALARM,
            explore=args.explore, explore_runs=args.explore_runs, report=not args.no_report, on_progress=on_progress)
    if args.json:
        _print_json(summary)
    else:
        _render_reproduce(summary)
    return EXIT_VIOLATED if summary["counts"].get("not reproduced") else EXIT_OK


# ------------------------------------------------------------------------------------------------- main
def _theorems_epilog() -> str:
    import theory

    lines = ["theorems and their scenarios (the first is the default; see `boundcheck show THEOREM`):"]
    for th in theory.all_theorems():
        others = [sc for sc in th.scenarios if sc != th.default_scenario]
        lines.append(textwrap.fill(f"{th.id:<20} {th.default_scenario}" + (f"; also {', '.join(others)}" if others
                                                                              else ""),
                                   width=100, initial_indent="  ", subsequent_indent=" " * 23))
    lines += ["", "config file (--config): TOML with the same keys as the flags (theorem, scenario, runs, horizon, "
              "delta,", "  seed, jobs, backend, scheduler, beta_scale, out, no_report, max_memory, algorithm, "
              "false_alarm,", "  until_conclusive, max_runs, allow_out_of_theory, defect), optionally under [verify]; "
              "values are", "  type-checked, never converted; flags given on the command line win.",
              "", EXIT_CODES_HELP]
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="boundcheck", description="Empirical checks of GP-bandit regret bounds.",
                epilog=EXIT_CODES_HELP)
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser, metavar="COMMAND")
    json_help = "print JSON instead of tables (default: tables)"

    s = sub.add_parser("list", help="theorems: id, paper, guarantee, default scenario",
                       description="List the theorems boundcheck can check.", epilog=EXIT_CODES_HELP)
    s.add_argument("--json", action="store_true", help=json_help)
    s.set_defaults(func=cmd_list)

    s = sub.add_parser("show", help="statement, explicit bound, assumptions, claims, corrections",
                       description="Show a theorem: statement, explicit bound, symbols, assumptions, claims, "
                                   "corrections.", epilog=EXIT_CODES_HELP)
    s.add_argument("theorem", help="theorem id (see `boundcheck list`)")
    s.add_argument("--json", action="store_true", help=json_help)
    s.set_defaults(func=cmd_show)

    s = sub.add_parser("bound", help="evaluate the explicit bound and each of its terms",
                       description="Evaluate a theorem's explicit bound at given values of its symbols. Each "
                                   "symbol must lie in its domain (B > 0, γ_T ≥ 0, counts integral ≥ 1, δ ∈ (0,1)).",
                       epilog=EXIT_CODES_HELP)
    s.add_argument("theorem", help="theorem id (see `boundcheck list`)")
    s.add_argument("--set", action="append", metavar="NAME=VALUE", default=[],
                   help="a bound symbol's value, once per symbol; all are required (names and domains: "
                        "`boundcheck show THEOREM`)")
    s.add_argument("--json", action="store_true", help=json_help)
    s.set_defaults(func=cmd_bound)

    s = sub.add_parser("gamma", help="certified bracket on the maximum information gain γ_T",
                       description="Certified lower and upper ends of γ_T on a regular grid in [0,1]^d.",
                       epilog=EXIT_CODES_HELP)
    s.add_argument("--kernel", required=True, choices=["rbf", "matern12", "matern32", "matern52", "linear"],
                   help="kernel (required)")
    s.add_argument("--lengthscale", type=float, default=0.2, help="ℓ in exp(-d²/(2ℓ²)) (usual form; default: 0.2)")
    s.add_argument("--grid", type=_integer, default=20, help="points per axis of the regular grid in [0,1]^d "
                                                             "(default: 20)")
    s.add_argument("--dim", type=_integer, default=1, help="dimension d (default: 1)")
    s.add_argument("--noise", type=float, default=0.1, help="noise standard deviation R, λ = R² (default: 0.1)")
    s.add_argument("--horizon", type=_integer, required=True, help="T, number of rounds (required)")
    s.add_argument("--eps", type=float, default=0.0, help="time-variation ε ∈ [0, 1) of the kernel "
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
    s.add_argument("--theorem", help="theorem id (required here or in --config; see the list below)")
    s.add_argument("--scenario", help="scenario name (default: the theorem's default scenario, listed below)")
    s.add_argument("--runs", type=_integer, help=f"Monte Carlo runs, e.g. 200, 1e4 (default: {200})")
    s.add_argument("--horizon", type=_integer, help="T, rounds per run (default: the scenario's)")
    s.add_argument("--delta", type=float, help="confidence parameter δ ∈ (0, 1) (default: the scenario's)")
    s.add_argument("--seed", type=_integer, help="seed, an integer in [0, 2^63 - 1] (default: 0)")
    s.add_argument("--jobs", type=_integer, help="worker processes, or -1 for all cores (default: -1)")
    s.add_argument("--backend", choices=["loky", "threading", "dask"],
                   help="joblib backend; dask needs boundcheck[dask] (default: loky)")
    s.add_argument("--scheduler", metavar="ADDR",
                   help="dask.distributed scheduler address; only with --backend dask (default: a LocalCluster)")
    s.add_argument("--beta-scale", dest="beta_scale", type=float, metavar="C",
                   help="multiply β_t by C > 0; out of theory, a negative control (default: 1)")
    s.add_argument("--false-alarm", dest="false_alarm", type=float, metavar="A",
                   help="family-wise false-alarm budget A ∈ (0, 1): a verify of a correct theorem on correct code "
                        "calls any claim violated with probability at most A (Holm across the stochastic claims; "
                        "default: 0.01)")
    s.add_argument("--until-conclusive", dest="until_conclusive", action="store_true",
                   help="add chunks of runs until every claim is settled (anytime-valid tests) or --max-runs "
                        "(default: off)")
    s.add_argument("--max-runs", dest="max_runs", type=_integer, metavar="N",
                   help="with --until-conclusive: stop at N runs, at least one chunk of 25 (default: 2000)")
    s.add_argument("--allow-out-of-theory", dest="allow_out_of_theory", action="store_true",
                   help="run a scenario that breaks an assumption anyway, labelled 'outside the theorem' "
                        "(default: refuse, exit 3)")
    s.add_argument("--defect", action="append", metavar="NAME",
                   help="plant a defect (a negative control, implies --allow-out-of-theory; names: `boundcheck "
                        "power`); repeat for several (default: none)")
    s.add_argument("--max-memory", dest="max_memory", metavar="SIZE",
                   help="refuse a study estimated above SIZE, e.g. 4G or 500M (default: the memory available now)")
    s.add_argument("--config", metavar="FILE", help="TOML file with the same keys; flags win (default: none)")
    s.add_argument("--out", metavar="DIR",
                   help="report directory; results in DIR/results (default: reports/<theorem>)")
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
                                   "each varied parameter.", epilog=EXIT_CODES_HELP)
    s.add_argument("--theorem", required=True, help="theorem id (required)")
    s.add_argument("--vary", action="append", required=True, metavar="NAME=V1,V2,...",
                   help="horizon, delta, runs, seed, beta_scale, epsilon, noise, or a dotted key of the scenario "
                        "file (kernel.lengthscale); repeat for a grid (required)")
    s.add_argument("--scenario", help="a built-in scenario name or a scenario file (default: the theorem's)")
    s.add_argument("--runs", type=_integer, help="Monte Carlo runs per cell (default: the scenario's, else 200)")
    s.add_argument("--horizon", type=_integer, help="T (default: the scenario's)")
    s.add_argument("--delta", type=float, help="δ ∈ (0, 1) (default: the scenario's)")
    s.add_argument("--seed", type=_integer, help="seed (default: 0)")
    s.add_argument("--beta-scale", dest="beta_scale", type=float, help="multiply β_t by C > 0 (default: 1)")
    s.add_argument("--algorithm", action="append", metavar="FILE.py:CLASS",
                   help="your implementation checked in each cell (default: the theorem's algorithm)")
    s.add_argument("--jobs", type=_integer, help="worker processes, or -1 for all cores (default: -1)")
    s.add_argument("--backend", choices=["loky", "threading", "dask"], help="joblib backend (default: loky)")
    s.add_argument("--scheduler", metavar="ADDR", help="dask scheduler address (default: a LocalCluster)")
    s.add_argument("--out", metavar="DIR", help="sweep directory (default: reports/<theorem>-sweep)")
    s.add_argument("--json", action="store_true", help="print the sweep's JSON (default: a table)")
    s.add_argument("--false-alarm", dest="false_alarm", type=float, metavar="A",
                   help="each cell's false-alarm budget, as in verify (default: 0.01)")
    s.add_argument("--allow-out-of-theory", dest="allow_out_of_theory", action="store_true",
                   help="run cells that break an assumption anyway, labelled (default: refuse the sweep, exit 3)")
    s.add_argument("--no-report", dest="no_report", action="store_true", help="no HTML page (default: write it)")
    s.set_defaults(func=cmd_sweep)

    s = sub.add_parser("power", help="which claims catch which planted defect, with what probability",
                       description="Run the theorem's claims against a library of planted defects (wrappers around "
                                   "the algorithm, the scenario or the bound's evaluation) and print, per defect, "
                                   "which claims catch it and with what probability at N runs, and each claim's "
                                   "smallest detectable effect.", epilog=EXIT_CODES_HELP)
    s.add_argument("--theorem", required=True, help="theorem id (required)")
    s.add_argument("--scenario", help="scenario name or file (default: the theorem's)")
    s.add_argument("--runs", type=_integer, help="N: the verify whose power is measured (default: 200)")
    s.add_argument("--horizon", type=_integer, help="T (default: the scenario's)")
    s.add_argument("--delta", type=float, help="δ ∈ (0, 1) (default: the scenario's)")
    s.add_argument("--seed", type=_integer, default=0, help="seed (default: 0)")
    s.add_argument("--defect", action="append", metavar="NAME",
                   help="only these defects; repeat for several (default: every one that applies to the theorem)")
    s.add_argument("--jobs", type=_integer, default=-1, help="worker processes, or -1 for all cores (default: -1)")
    s.add_argument("--backend", choices=["loky", "threading", "dask"], default="loky",
                   help="joblib backend (default: loky)")
    s.add_argument("--false-alarm", dest="false_alarm", type=float, default=0.01, metavar="A",
                   help="the false-alarm budget of the verify whose power is measured (default: 0.01)")
    s.add_argument("--subsets", type=_integer, default=200, help="random N-run subsets judged per defect "
                                                                 "(default: 200)")
    s.add_argument("--allow-out-of-theory", dest="allow_out_of_theory", action="store_true",
                   help="measure on a scenario that breaks an assumption (default: refuse, exit 3)")
    s.add_argument("--out", metavar="DIR",
                   help="folder for the defect studies and power.json (default: reports/<theorem>/power)")
    s.add_argument("--json", action="store_true", help="print the power table's JSON (default: tables)")
    s.set_defaults(func=cmd_power)

    s = sub.add_parser("scenario", help="show or validate a scenario file (or a built-in scenario); list them",
                       description="Show a scenario file or built-in scenario in words, validate a file, or list "
                                   "the built-in scenarios.", epilog=EXIT_CODES_HELP)
    s.add_argument("action", choices=["show", "validate", "list"], help="what to do (required)")
    s.add_argument("file", nargs="?", help="FILE.toml or a built-in scenario name (required for show, validate)")
    s.add_argument("--json", action="store_true", help="print JSON (default: text)")
    s.set_defaults(func=cmd_scenario)

    s = sub.add_parser("reproduce", help="run a paper's experiments and judge its empirical claims",
                       description="Run a paper's experiments (stated settings, documented guesses where the paper "
                                   "is silent) and judge its empirical claims with paired tests inside one "
                                   "false-alarm budget. Exit 0: no claim 'not reproduced'; 1: some claim not "
                                   "reproduced.", epilog=EXIT_CODES_HELP)
    s.add_argument("paper", help="paper id: pe_gp_ucb (seed 000), igp_ucb_gp_ts (seed 004), ... (required)")
    s.add_argument("--experiment", help="one experiment of the paper (default: all)")
    s.add_argument("--runs", type=_integer, help="paired runs per panel (default: each experiment's own, >= 30)")
    s.add_argument("--seed", type=_integer, help="seed (default: 0)")
    s.add_argument("--jobs", type=_integer, help="worker processes, or -1 for all cores (default: -1)")
    s.add_argument("--out", metavar="DIR", help="output folder (default: reports/reproduce/<paper>)")
    s.add_argument("--false-alarm", dest="false_alarm", type=float,
                   help="family-wise probability that any verdict is wrong (default: 0.05)")
    s.add_argument("--explore", action="store_true",
                   help="re-test the claims that did not reproduce over the grid of unstated settings (default: off)")
    s.add_argument("--explore-runs", dest="explore_runs", type=_integer,
                   help="paired runs per explored setting (default: the grid's own)")
    s.add_argument("--json", action="store_true", help="print the JSON summary (default: tables)")
    s.add_argument("--no-report", dest="no_report", action="store_true", help="write no report (default: write it)")
    s.set_defaults(func=cmd_reproduce)

    s = sub.add_parser("report", help="rebuild the reports from stored results",
                       description="Rebuild the HTML and LaTeX reports from a results folder (no rerun); every "
                                   "stored file is verified against its recorded sha256.", epilog=EXIT_CODES_HELP)
    s.add_argument("results_dir", metavar="RESULTS_DIR", help="the --out folder of a verify, or its results/ folder")
    s.add_argument("--json", action="store_true", help="print the JSON summary (default: the report paths)")
    s.set_defaults(func=cmd_report)
    return p


def _log_dir() -> Path:
    return Path(os.environ.get("BOUNDCHECK_LOG_DIR") or Path(tempfile.gettempdir()) / "boundcheck-logs")


def _crash_log(argv: list[str] | None, exc: BaseException) -> str:
    """Write the traceback of an unexpected exception to a log file; its path, or why there is none."""
    try:
        d = _log_dir()
        d.mkdir(parents=True, exist_ok=True)
        path = d / f"crash-{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}.log"
        from . import __version__

        path.write_text(f"boundcheck {__version__}, python {sys.version.split()[0]}\n"
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


def _on_signal(signum, frame) -> None:
    _signals.append(signum)
    code = getattr(frame, "f_code", None)
    if code is not None and (code.co_filename.startswith("<frozen importlib") or code.co_name == "__del__"):
        # raised here (the import system's weakref callbacks, a finaliser) the exception would be printed with its
        # traceback and ignored: the signal is sent again once this frame is left
        import threading

        threading.Timer(0.05, os.kill, (os.getpid(), signum)).start()
        return
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
            from . import runtime

            runtime.shutdown()  # no worker outlives the command, and loky's exit handler has nothing to wait for


def _main(argv: list[str] | None) -> int:
    parser = build_parser()
    with warnings.catch_warnings():
        warnings.showwarning = _show_warning  # every warning is one line with the one prefix
        try:
            args = parser.parse_args(argv)
            code = int(args.func(args))
            if _signals:
                # a signal whose exception was lost: one that lands while a C extension is being imported can be
                # raised inside the extension's own nested evaluation, which clears it; the command still ends
                # as interrupted
                raise _Terminated if _signals[-1] == int(signal.SIGTERM) else KeyboardInterrupt
            return code
        except NotApplicable as exc:  # not an error of the user's input: the theorem does not cover the scenario
            msg = " ".join(str(exc.args[0] if exc.args else exc).split())
            print(f"boundcheck: {msg}", file=sys.stderr)
            return EXIT_NOT_APPLICABLE
        except KeyboardInterrupt as exc:
            what, code = ("terminated", 143) if isinstance(exc, _Terminated) else ("interrupted", 130)
            print(f"boundcheck: error: {what}; completed chunks are stored — re-run the same command to resume",
                  file=sys.stderr)
            return code
        except SystemExit as exc:  # --help
            return exc.code if isinstance(exc.code, int) else EXIT_OK
        except BrokenPipeError:  # output piped into a command that stopped reading (| head)
            with contextlib.suppress(OSError):
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 141
        except Exception as exc:  # noqa: BLE001 - the boundary: bad input exit 2, else one line + a log (exit 4)
            th = sys.modules.get("theory")  # imported lazily: only commands that use it can raise its errors
            if isinstance(exc, BoundcheckError) or (th is not None and isinstance(exc, th.UnknownTheorem)):
                msg = " ".join(str(exc.args[0] if exc.args else exc).split())
                print(f"boundcheck: error: {msg}", file=sys.stderr)
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
    sys.exit(main())
