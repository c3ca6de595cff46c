"""Orchestration of ``boundcheck verify``: prepare a study, run its chunks on joblib, store them, and turn
the stored runs into claim verdicts and the JSON summary (the contract in ``shared/design.md``)."""

from __future__ import annotations

import contextlib
import platform
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import sympy as sp

import theory

from . import __version__
from .checks import (
    ClaimResult,
    calibration_verdict,
    deterministic_verdict,
    expectation_verdict,
    probability_verdict,
    theorem_verdict,
)
from .engine import simulate
from .errors import BoundcheckError
from .families import family
from .mig import gamma_bracket
from .scenarios import Scenario, get_scenario
from .store import ResultStore
from .study import StudyConfig, StudyContext

__all__ = ["VerifyOptions", "prepare", "run_verify", "summarize", "load_study"]


@dataclass(frozen=True)
class VerifyOptions:
    jobs: int = -1
    backend: str = "loky"
    scheduler: str | None = None
    progress: bool = False


def _validate(config: StudyConfig) -> None:
    if config.runs < 1:
        raise BoundcheckError(f"--runs must be at least 1, got {config.runs}")
    if config.horizon < 1:
        raise BoundcheckError(f"--horizon must be at least 1, got {config.horizon}")
    if not (0.0 < config.delta < 1.0):
        raise BoundcheckError(f"--delta must lie in (0, 1), got {config.delta}")
    if not (config.beta_scale > 0 and np.isfinite(config.beta_scale)):
        raise BoundcheckError(f"--beta-scale must be a positive number, got {config.beta_scale}")


def gamma_curves(groups: dict[str, tuple[np.ndarray, float]], horizon: int, noise_var: float,
                 batch: int = 1) -> tuple[np.ndarray, np.ndarray, dict, dict]:
    """Certified γ_t bracket for t = 1..T, maximised over the distinct (K, ε) of a theorem's models."""
    uppers, lowers, methods, per_group = [], [], {}, {}
    for key, (K, eps) in groups.items():
        br = gamma_bracket(K, horizon, noise_var=noise_var, eps=eps, batch=batch)
        per_group[key] = br.upper
        uppers.append(br.upper)
        lowers.append(br.lower)
        for name, curve in br.methods.items():
            v = float(curve[-1])
            methods[name] = v if name not in methods or not np.isfinite(methods[name]) else max(methods[name], v)
    return np.max(uppers, axis=0), np.max(lowers, axis=0), methods, per_group


def _out_of_theory_reasons(th, scenario: Scenario, config: StudyConfig) -> list[str]:
    """Why a study is outside the theorem: the scenario's own label, any theorem assumption the scenario
    fails (so that a scenario cannot claim to be in theory while breaking an assumption), β scaling."""
    reasons = []
    if not scenario.in_theory:
        reasons.append(scenario.out_of_theory_reason)
    else:
        report = scenario.assumption_report()
        for a in th.assumptions:
            ok, how = report.get(a.predicate, (True, ""))
            if not ok:
                reasons.append(f"assumption not met: {a.text} ({how})")
    if config.beta_scale != 1.0:
        reasons.append(f"β scaled by {config.beta_scale:g} (the theorem needs the theoretical β)")
    return reasons


def prepare(config: StudyConfig) -> tuple[Scenario, StudyContext]:
    """Everything the chunks share: the certified γ curves, the schedules, the bound and its anytime curve.

    A family may provide ``gamma_used(scenario, gamma_upper)`` (the γ_t its schedules and bound use, e.g. a
    paper's uncertified rate; default: the certified upper curve) and ``schedules(theorem, scenario, values,
    gamma_used)`` returning (T+1,) arrays: ``beta`` (the theorem's algorithm's width, scaled by --beta-scale),
    optionally ``xi``, and further schedules by name (a baseline's own β) passed to every policy."""
    _validate(config)
    th = theory.get(config.theorem)
    fam = family(config.theorem)
    scenario = get_scenario(config.scenario, config.horizon, config.delta)
    T = config.horizon
    values = fam.bound_values(scenario, T, config.delta)
    g_up, g_lo, g_methods, per_group = gamma_curves(fam.gamma_groups(scenario), T, fam.gamma_noise_var(scenario))
    g_used = np.asarray(fam.gamma_used(scenario, g_up), dtype=float) if hasattr(fam, "gamma_used") else g_up
    values["gamma_T"] = float(g_used[-1])
    if hasattr(fam, "schedules"):
        sched = {k: np.asarray(v, dtype=float) for k, v in fam.schedules(th, scenario, values, g_used).items()}
        beta, xi = sched.pop("beta"), sched.pop("xi", np.zeros(T + 1))
    else:
        t = np.arange(T + 1, dtype=float)
        t[0] = 1.0
        sched = {}
        beta = np.asarray(th.schedule_values("beta_t", t, values), dtype=float)
        xi = np.asarray(th.schedule_values("xi_t", t, values), dtype=float)
    beta = beta * config.beta_scale
    bound = th.evaluate(values)
    if th.anytime_terms is not None:
        anytime = th.evaluate_anytime(values, np.arange(1, T + 1, dtype=float), g_used)["value"]
    else:
        anytime = np.nan
    reasons = _out_of_theory_reasons(th, scenario, config)

    def constant(name: str) -> float:
        return float(th.schedule_values(name, 1.0, values)) if name in th.schedules else float("nan")

    ctx = StudyContext(
        config=config, in_theory=not reasons, out_of_theory_reasons=reasons, values=values, beta=beta, xi=xi,
        B=constant("B"), C=constant("C"),
        bound_T=float(bound["value"]), bound_terms={k: float(v) for k, v in bound["terms"].items()},
        anytime=np.broadcast_to(np.asarray(anytime, dtype=float), (T,)).copy(),
        gamma_upper=g_up, gamma_lower=g_lo, gamma_methods=g_methods, group_gamma_upper=per_group,
        schedules=sched, gamma_used=g_used,
    )
    return scenario, ctx


def _run_chunk(config: StudyConfig, ctx: StudyContext, chunk: int, run_ids: list[int]):
    """Worker: simulate one chunk of runs and evaluate every claim on it (runs in a joblib worker)."""
    start = time.perf_counter()
    fam = family(config.theorem)
    scenario = get_scenario(config.scenario, config.horizon, config.delta)
    traj = simulate(scenario, config.algorithms, run_ids, config.seed, config.horizon, ctx.beta, ctx.xi,
                    schedules=ctx.schedules)
    runs, steps = fam.evaluate(traj, scenario, ctx, config.seed)
    return chunk, {"runs": runs, "steps": steps}, {"runs": [run_ids[0], run_ids[-1]],
                                                    "seconds": time.perf_counter() - start}


@contextlib.contextmanager
def _backend(options: VerifyOptions):
    import joblib

    if options.backend == "dask":
        try:
            from dask.distributed import Client, LocalCluster
        except ImportError:
            raise BoundcheckError("--backend dask needs dask.distributed: pip install 'boundcheck[dask]'") from None
        if options.scheduler:
            client = Client(options.scheduler)
        else:
            n = options.jobs if options.jobs > 0 else None
            client = Client(LocalCluster(n_workers=n, threads_per_worker=1, processes=True))
        try:
            with joblib.parallel_config(backend="dask"):
                yield
        finally:
            client.close()
    elif options.backend in ("loky", "threading"):
        with joblib.parallel_config(backend=options.backend):
            yield
    else:
        raise BoundcheckError(f"unknown backend {options.backend!r}; choose loky, threading or dask")


def run_verify(config: StudyConfig, results_dir: Path, options: VerifyOptions,
               on_chunk: Callable[[int, int], None] | None = None) -> dict:
    """Run (or resume) a study, store every chunk as it completes, and return the JSON summary."""
    import joblib

    if options.backend not in ("loky", "threading", "dask"):
        raise BoundcheckError(f"unknown backend {options.backend!r}; choose loky, threading or dask")
    t0 = time.perf_counter()
    scenario, ctx = prepare(config)
    store = ResultStore(results_dir)
    manifest = store.open(config.to_dict(), config.key, {
        "theorem": config.theorem, "scenario": config.scenario, "version": __version__,
        "python": platform.python_version(), "numpy": np.__version__,
    })
    done = store.done_chunks()
    todo = [(c, ids) for c, ids in config.chunks() if c not in done]
    total = len(config.chunks())
    if on_chunk:
        on_chunk(len(done), total)
    if todo:
        with _backend(options):
            par = joblib.Parallel(n_jobs=options.jobs, return_as="generator_unordered")
            for chunk, tables, info in par(joblib.delayed(_run_chunk)(config, ctx, c, ids) for c, ids in todo):
                store.write_chunk(chunk, tables, info)
                done.add(chunk)
                if on_chunk:
                    on_chunk(len(done), total)
    manifest = store.read_manifest() or manifest
    manifest["elapsed_s"] = manifest.get("elapsed_s", 0.0) + (time.perf_counter() - t0)
    manifest["jobs"], manifest["backend"] = options.jobs, options.backend
    store.write_manifest(manifest)
    summary = summarize(store, config, scenario, ctx)
    return summary


def _finite_or_none(x: float) -> float | None:
    return float(x) if x is not None and np.isfinite(x) else None


def _level(claim_level, delta: float) -> float | None:
    if claim_level is None:
        return None
    return float(sp.sympify(claim_level).subs(theory.S.delta, delta))


def summarize(store: ResultStore, config: StudyConfig, scenario: Scenario, ctx: StudyContext) -> dict:
    """Claims table, regret statistics and the JSON summary, from the stored chunks only."""
    th = theory.get(config.theorem)
    fam = family(config.theorem)
    runs = store.read_table("runs")
    main = runs[runs["algorithm"] == fam.MAIN].sort_values("run")
    results: list[ClaimResult] = []
    for c in th.claims:
        meta = {"statement": c.statement, "source": c.source, "main": c.main}
        level = _level(c.level, config.delta)
        if c.kind == "probability":
            results.append(probability_verdict(c.id, c.kind, main[f"fail_{c.id}"].to_numpy(), level, **meta))
        elif c.kind == "deterministic":
            results.append(deterministic_verdict(c.id, main[f"fail_{c.id}"].to_numpy(),
                                                 main[f"premise_{c.id}"].to_numpy(), **meta))
        elif c.kind == "expectation":
            results.append(expectation_verdict(c.id, main[f"value_{c.id}"].to_numpy(), level, **meta))
        elif c.kind == "calibration":
            steps = store.read_table("steps")
            s = steps[steps["algorithm"] == fam.MAIN]
            u = s.pivot(index="run", columns="t", values="innov").to_numpy()
            results.append(calibration_verdict(c.id, u, level, **meta))
    verdict = theorem_verdict(results)
    claims_df = pd.DataFrame([r.to_json() | {"in_theory": ctx.in_theory} for r in results])
    claims_df["details"] = claims_df["details"].map(str)
    store.write_table("claims", claims_df)
    q = 1.0 - config.delta
    regret = {
        a: {"mean": float(g.mean()), "median": float(g.median()), "max": float(g.max()),
            "quantile_1_minus_delta": float(g.quantile(q))}
        for a, g in runs.groupby("algorithm", sort=False, observed=True)["regret"]
    }
    paired = _paired_regret(runs, fam.MAIN, q=0.05)
    store.write_table("gamma", pd.DataFrame({
        "t": np.arange(1, config.horizon + 1), "gamma_upper": ctx.gamma_upper, "gamma_lower": ctx.gamma_lower,
        "bound_anytime": ctx.anytime,
        "gamma_used": ctx.gamma_upper if ctx.gamma_used is None else ctx.gamma_used}))
    manifest = store.read_manifest() or {}
    summary = {
        "theorem": config.theorem, "scenario": config.scenario, "main_algorithm": fam.MAIN, "verdict": verdict,
        "in_theory": ctx.in_theory,
        "out_of_theory_reasons": ctx.out_of_theory_reasons,
        "runs": config.runs, "horizon": config.horizon, "delta": config.delta, "seed": config.seed,
        "beta_scale": config.beta_scale,
        "claims": [r.to_json() for r in results],
        "bound": {"at_horizon": ctx.bound_T, "terms": ctx.bound_terms, "gamma_upper": float(ctx.gamma_upper[-1]),
                  "gamma_lower": float(ctx.gamma_lower[-1]), "gamma_methods": ctx.gamma_methods,
                  "values": ctx.values, "B": _finite_or_none(ctx.B), "C": _finite_or_none(ctx.C),
                  "gamma_used": None if ctx.gamma_used is None else float(ctx.gamma_used[-1])},
        "tightness": {"median": float(main["tightness"].median()), "max": float(main["tightness"].max())},
        "regret": regret,
        "paired_regret": paired,
        "elapsed_s": float(manifest.get("elapsed_s", 0.0)),
        "version": __version__,
        "report": {"html": None, "tex": None},
    }
    store.write_json("summary", summary)
    return summary


def _paired_regret(runs: pd.DataFrame, main: str, q: float = 0.05) -> dict:
    """Paired comparison on common random numbers: R_T(algorithm) − R_T(main) run by run, its mean with a
    two-sided Student-t interval at 1 − q, and the fraction of runs where the theorem's algorithm did better."""
    from scipy import stats

    wide = runs.pivot(index="run", columns="algorithm", values="regret")
    out = {}
    if main not in wide:
        return out
    for alg in wide.columns:
        if alg == main:
            continue
        d = (wide[alg] - wide[main]).dropna().to_numpy()
        n = d.size
        if n == 0:
            continue
        half = float(stats.t.ppf(1 - q / 2, n - 1) * d.std(ddof=1) / np.sqrt(n)) if n > 1 else float("nan")
        out[str(alg)] = {"mean_diff": float(d.mean()), "ci_low": float(d.mean() - half),
                         "ci_high": float(d.mean() + half), "frac_main_better": float((d > 0).mean()), "runs": n}
    return out


def load_study(results_dir: Path) -> tuple[ResultStore, dict, dict]:
    """A completed results directory: (store, manifest, summary)."""
    store = ResultStore(results_dir)
    manifest = store.read_manifest()
    if manifest is None:
        raise BoundcheckError(f"{results_dir} has no manifest.json: not a boundcheck results directory")
    return store, manifest, store.read_json("summary")
