"""``boundcheck verify``: its parser, its config file (``--config``: the flags' keys, type-checked, never
converted) and its output (the claims table, what was not judged and why, the regret, the verdict line)."""

from __future__ import annotations

import sys
import textwrap

from .. import api
from ..errors import BoundcheckError, ExitCode, NotApplicable
from . import render
from .options import EXIT_CODES_HELP, JOBS_HELP, add_flags

#: verify's flags that a sweep takes too, with its help texts (the sweep's own help shorter)
SETTING_HELPS = {
    "runs": f"Monte Carlo runs, e.g. 200, 1e4 (default: {200})",
    "horizon": "T, rounds per run (default: the scenario's)",
    "delta": "confidence parameter δ ∈ (0, 1) (default: the scenario's)",
    "seed": "seed, an integer in [0, 2^63 - 1] (default: 0)",
}


def add_verify(sub) -> None:
    s = sub.add_parser("verify", help="Monte Carlo check of a theorem and every claim of its proof",
                       description="Monte Carlo check of a theorem and of every claim of its proof. Results are "
                                   "stored as they complete; re-running the same command resumes.",
                       epilog_fn=theorems_epilog)
    add_flags(
        s, theorem="theorem id (required here or in --config; see the list below) or FILE.py:NAME, a theorem of "
                   "your own (docs/extending.md)",
        scenario="scenario name (default: the theorem's default scenario, listed below)", **SETTING_HELPS,
        jobs=JOBS_HELP, backend="joblib backend; dask needs boundcheck[dask] (default: loky)",
        scheduler="dask.distributed scheduler address; only with --backend dask (default: a LocalCluster)",
        beta_scale="multiply β_t by C > 0; out of theory, a negative control (default: 1)",
        false_alarm="family-wise false-alarm budget A ∈ (0, 1): a verify of a correct theorem on correct code "
                    "calls any claim violated with probability at most A (Holm across the stochastic claims; "
                    "default: 0.01)",
        until_conclusive="add chunks of runs until every claim is settled (anytime-valid tests) or --max-runs "
                         "(default: off)",
        max_runs="with --until-conclusive: stop at N runs, at least one chunk of 25 and --runs (default: 2000)",
        allow_out_of_theory="run a scenario that breaks an assumption anyway, labelled 'outside the theorem' "
                            "(default: refuse, exit 3)",
        defect="plant a defect (a negative control, implies --allow-out-of-theory; names: `boundcheck power`); "
               "repeat for several (default: none)",
        no_conformance="do not check that the checked code behaves as the theorem's algorithm (for a deliberately "
                       "different algorithm); the verdict is then out of theory (default: checked)",
        policy_timeout="time limit of one call into a user's policy code (ask, tell, select, update); overrunning "
                       "it is an error, exit 2 (0.001 to 86400, a day; default: 60)",
        allow_incomplete="exit 0 when the verdict is incomplete (every judged claim holds but some claims were not "
                         "applicable to the checked code; default: exit 5)",
        max_memory="refuse a study estimated above SIZE, e.g. 4G or 500M (default: the memory available now)",
        config="TOML file with the same keys; flags win (default: none)",
        out="report directory; results in DIR/results (default: reports/<theorem>, with --algorithm or another "
            "--scenario a folder below it: reports/<theorem>/<CLASS>[-on-<scenario>])",
        json="print the JSON summary instead of tables (default: tables)",
        no_report="store the results but write no HTML/LaTeX report (default: write it)",
        algorithm="your implementation (FILE.py:CLASS or package.module:CLASS, ask/tell or batched Policy) checked "
                  "in the role of the theorem's algorithm, the built-in ones as paired baselines; repeat to compare "
                  "several (default: none)")
    s.set_defaults(func=cmd_verify, computes=True)


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


def load_config(path: str) -> dict:
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




def _render_summary(summary: dict) -> None:
    from rich.markup import escape
    from rich.table import Table

    con = render.console()
    colour = render.COLOUR
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
    cont = summary.get("continuum")
    if cont:  # a compact box: the truth, its errors, the optimiser (docs/compact.md)
        o = cont["optimiser"]
        con.print(escape(f"truth: {cont['truth']}; the regret's maximum certified to ≤ {cont['max_tolerance']:.2g} "
                         f"per run (summed over its steps)"))
        con.print(escape(f"optimiser: a fresh Sobol point beat the chosen x_t on {o['steps_missed']} of "
                         f"{o['run_steps']} run-steps (largest gap {o['max_gap']:.2g}; the bound's slack at T "
                         f"{o['bound_slack']:.4g})"))
    at_T = b.get("schedules_at_T") or {}
    if "beta_discretisation_t" in at_T and "beta_confidence_t" in at_T:  # a compact-domain theorem's β_T
        con.print(f"β_T = {at_T['beta_confidence_t'] + at_T['beta_discretisation_t']:.4g} = "
                  f"{at_T['beta_confidence_t']:.4g} (confidence) + {at_T['beta_discretisation_t']:.4g} "
                  "(discretisation of the box)")
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
        table.add_row(c["id"] + (" *" if c.get("main") else ""), c["kind"], render.fmt(c["level"]),
                      f"{c['violations']}/{c['runs']}", rate, render.fmt(c.get("p_value"), ".2g"),
                      render.fmt(c.get("budget_share"), ".2g"), ci, f"[{colour[v]}]{v}[/{colour[v]}]"
                      + (f" (≈{need} runs)" if need else ""))
        settle = settle or bool(need)
    render.print_table(con, table)
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
    render.print_table(con, rt)
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


def verify_config(args) -> dict:
    """The settings of one verify: the config file's (type-checked), overridden by the flags given."""
    cfg = load_config(args.config) if args.config else {}
    for k in VERIFY_KEYS:  # command-line flags win over the config file
        v = getattr(args, k, None)
        if v is not None and v is not False:
            cfg[k] = v
    if "theorem" not in cfg:
        raise BoundcheckError(f"{args.command} needs --theorem (see `boundcheck list`)")
    return cfg




def defects_of(cfg: dict) -> list[str]:
    """The planted defects of a verify's or a sweep's settings (one name or a list of them)."""
    defects = cfg.get("defect") or []
    return [defects] if isinstance(defects, str) else list(defects)


def cmd_verify(args) -> int:
    cfg = verify_config(args)  # no worker starts here: api.verify starts them once everything is validated
    th = api.resolve_theorem(cfg["theorem"])
    settings = render.settings_of(**{k: cfg.get(k) for k in SETTING_KEYS}, report=not cfg.get("no_report"),
                         conformance=not cfg.get("no_conformance"),
                         out=cfg["out"] if "out" in cfg else api.default_out(th, cfg.get("scenario"),
                                                                            cfg.get("algorithm")))
    progress, on_chunk, on_progress = render.progress_bar(th.id)
    defects = defects_of(cfg)
    try:
        with render.shown(progress):
            summary = api.verify(th, cfg.get("scenario"), settings=settings, algorithm=cfg.get("algorithm") or None,
                                 defects=defects, on_chunk=on_chunk, on_progress=on_progress)
    except NotApplicable as exc:
        if args.json:
            render.print_json({"theorem": th.id, "scenario": cfg.get("scenario") or th.default_scenario,
                         "verdict": "not applicable", "in_theory": False, "out_of_theory_reasons": exc.reasons})
        raise
    if args.json:
        render.print_json(summary)
        for line in _user_warning_lines(summary):  # beside the JSON document, never in it
            print(f"boundcheck: {line}" if not line.startswith(" ") else line, file=sys.stderr)
    else:
        _render_summary(summary)
    if summary["verdict"] == "incomplete" and not settings.allow_incomplete:
        return ExitCode.INCOMPLETE
    return ExitCode.VIOLATED if summary["verdict"] == "violated" else ExitCode.OK



def theorems_epilog() -> str:
    lines = ["theorems and their scenarios (the first is the default; see `boundcheck show --theorem THEOREM`):"]
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


def _identity_word(verdict: str) -> str:
    """A sanity identity's state: ok, BROKEN (a counterexample: a bug in the implementation or in the theory
    module) or, for any other verdict, the verdict itself (not applicable: the checked code does not record what
    it reads; never BROKEN without a counterexample)."""
    return {"holds": "ok", "violated": "[red]BROKEN[/red]"}.get(verdict, str(verdict))
