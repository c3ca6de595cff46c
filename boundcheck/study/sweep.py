"""Sweeps: a grid of studies over the values of a few parameters, and their tidy table.

A sweep is the Cartesian product of its axes (``--vary NAME=V1,V2,...``). Each cell is an ordinary study with
its own result store (``OUT/cells/<cell>/results``), so a sweep resumes cell by cell and, inside a cell, chunk
by chunk. What can vary:

* the study's ``horizon``, ``delta``, ``runs``, ``seed``, ``beta_scale``;
* the scenario's ``epsilon`` (the drift ε of every candidate prior and of a GP truth) and ``noise`` (R);
* any key of the scenario's file, dotted (``kernel.lengthscale``, ``priors.*.eps``, ``truth.rkhs.norm``): the file
  is read again with the key set (built-in scenarios are files too).

:func:`sweep_table` turns the cells' summaries into one tidy table, one row per cell × claim (the columns are
:data:`COLUMNS`, documented in docs/cli.md, "Sweeps"); :func:`boundcheck.api.sweep` runs a sweep,
:func:`boundcheck.report.sweep.write_sweep_page` draws its page.
"""

from __future__ import annotations

import itertools
import math
import re
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from ..errors import BoundcheckError
from ..model.priors import GPPrior, RKHSFamily
from ..world.scenario import Scenario
from ..world.scenario_files import load_scenario

__all__ = ["Axis", "parse_vary", "cells", "cell_id", "STUDY_PARAMS", "SCENARIO_PARAMS", "vary_scenario",
           "sweep_table", "COLUMNS"]

STUDY_PARAMS = ("horizon", "delta", "runs", "seed", "beta_scale")
SCENARIO_PARAMS = ("epsilon", "noise")

#: the sweep table's columns (the varied parameters are added under their own names when not among these)
COLUMNS = {
    "cell": "the cell's id (its parameter values), also the name of its folder under cells/",
    "theorem": "the theorem id", "scenario": "the scenario name", "algorithm": "the checked algorithm",
    "runs": "Monte Carlo runs", "horizon": "T", "delta": "δ", "seed": "the study's seed",
    "beta_scale": "the β multiplier (1: the theorem's β)", "in_theory": "whether the cell satisfies the theorem's "
    "assumptions", "theorem_verdict": "the cell's theorem verdict (holds / violated / inconclusive)",
    "claim": "the claim id", "kind": "probability / deterministic / expectation / calibration / identity (a sanity "
    "identity, outside the verdict)",
    "level": "the claim's allowed failure probability or expectation bound", "violations": "failing runs",
    "claim_runs": "runs the claim was judged on (0: not applicable)", "rate": "violations / claim_runs",
    "ci_low": "lower end of the claim's interval", "ci_high": "upper end of the claim's interval",
    "p_value": "the claim's own p-value for 'the claim is true' (stochastic claims)",
    "p_adjusted": "its Holm-adjusted p-value: violated iff p_adjusted ≤ the cell's false-alarm budget",
    "budget_share": "its share of the cell's false-alarm budget (the level its interval is reported at)",
    "verdict": "the claim's verdict (holds / violated / inconclusive / not applicable)",
    "bound": "the explicit bound at T", "regret_mean": "mean R_T of the checked algorithm",
    "regret_median": "median R_T", "regret_q": "the (1 − δ)-quantile of R_T", "regret_max": "max R_T",
    "slack_ratio": "bound / regret_q: how many times the bound exceeds the regret it must cover with "
    "probability 1 − δ (≥ 1 holds; large: loose)",
    "regret_uninformed_q": "the (1 − δ)-quantile of R_T of the uninformed baseline (random search), when run",
    "vacuous": "bound ≥ regret_uninformed_q: the bound does not even rule out the regret of random guessing",
}


@dataclass(frozen=True)
class Axis:
    """One varied parameter and its values."""

    name: str
    values: tuple

    @property
    def kind(self) -> str:
        if self.name in STUDY_PARAMS:
            return "study"
        if self.name in SCENARIO_PARAMS:
            return "scenario"
        return "file"


_NAME = re.compile(r"^[A-Za-z_][\w]*(\.([A-Za-z_][\w]*|\d+|\*))*$")


def _scalar(text: str, where: str):
    """A value of ``--vary``: a TOML scalar (integer, float, true/false, "string"), or a bare string."""
    text = text.strip()
    if not text:
        raise BoundcheckError(f"{where}: empty value")
    try:
        return tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        return text


def parse_vary(spec: str) -> Axis:
    """``NAME=V1,V2,...`` as an :class:`Axis` (values as TOML scalars; at least one, no repeats)."""
    name, sep, raw = spec.partition("=")
    name = name.strip()
    if not sep or not name:
        raise BoundcheckError(f"malformed --vary {spec!r}: expected NAME=V1,V2,...")
    if not _NAME.match(name):
        raise BoundcheckError(f"malformed --vary {spec!r}: {name!r} is not a parameter name or a dotted scenario key")
    values = tuple(_scalar(v, f"--vary {spec!r}") for v in raw.split(","))
    if len(set(map(repr, values))) != len(values):
        raise BoundcheckError(f"malformed --vary {spec!r}: a value is repeated")
    return Axis(name, values)


def _fmt(v) -> str:
    if isinstance(v, float) and v.is_integer() and abs(v) < 1e15:
        return repr(v)
    return str(v)


def cell_id(params: Mapping[str, object]) -> str:
    """A stable, file-name-safe id of a cell: ``epsilon=0.01,horizon=100``."""
    text = ",".join(f"{k}={_fmt(v)}" for k, v in params.items())
    return re.sub(r"[^\w.,=+-]", "_", text)


def cells(axes: Sequence[Axis]) -> list[dict]:
    """Every combination of the axes' values, the first axis varying slowest."""
    names = [a.name for a in axes]
    if len(set(names)) != len(names):
        raise BoundcheckError(f"a parameter is varied twice: {', '.join(names)}")
    return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*(a.values for a in axes))]


def _with_eps(p: GPPrior, eps: float) -> GPPrior:
    return replace(p, eps=float(eps))


def vary_scenario(sc: Scenario, params: Mapping[str, object]) -> Scenario:
    """The scenario of a cell: dotted file keys set (the file is read again), then ``epsilon`` and ``noise``."""
    file_keys = {k: v for k, v in params.items() if k not in STUDY_PARAMS and k not in SCENARIO_PARAMS}
    if file_keys:
        if not sc.source:
            raise BoundcheckError(f"cannot vary {', '.join(file_keys)}: scenario {sc.name!r} was not read from a "
                                  "file (vary epsilon, noise or a study parameter, or give a scenario file)")
        sc = load_scenario(sc.source, file_keys)
    if "epsilon" in params:
        eps = params["epsilon"]
        if isinstance(eps, bool) or not isinstance(eps, int | float) or not 0.0 <= float(eps) <= 1.0:
            raise BoundcheckError(f"epsilon must be a number in [0, 1], got {eps!r}")
        if isinstance(sc.truth, RKHSFamily):
            raise BoundcheckError(f"cannot vary epsilon on {sc.name!r}: its truth is a fixed RKHS function")
        cands = tuple(_with_eps(p, eps) for p in sc.candidates)
        truth = cands[sc.truth_index] if sc.truth_index is not None else _with_eps(sc.truth, eps)
        sc = replace(sc, candidates=cands, truth=truth)
    if "noise" in params:
        r = params["noise"]
        if isinstance(r, bool) or not isinstance(r, int | float) or not (math.isfinite(r) and r > 0):
            raise BoundcheckError(f"noise must be a positive number, got {r!r}")
        sc = replace(sc, noise=float(r))
    return sc


def _q(summary: dict, alg: str | None) -> float:
    if alg is None or alg not in summary.get("regret", {}):
        return float("nan")
    return float(summary["regret"][alg]["quantile_1_minus_delta"])


def sweep_table(rows: Sequence[tuple[str, Mapping[str, object], dict]], uninformed: str | None = None) -> pd.DataFrame:
    """The tidy sweep table from ``(cell id, parameters, summary)`` triples: one row per cell × claim of the
    checked algorithm (:data:`COLUMNS`, plus one column per varied parameter)."""
    out = []
    for cid, params, s in rows:
        alg = s["main_algorithm"]
        reg = s["regret"].get(alg, {})
        bound = float(s["bound"]["at_horizon"])
        q = float(reg.get("quantile_1_minus_delta", np.nan))
        unq = _q(s, uninformed)
        base = {"cell": cid, **{k: v for k, v in params.items() if k not in COLUMNS}, "theorem": s["theorem"],
                "scenario": s["scenario"], "algorithm": alg, "runs": int(s["runs"]), "horizon": int(s["horizon"]),
                "delta": float(s["delta"]), "seed": int(s["seed"]), "beta_scale": float(s.get("beta_scale", 1.0)),
                "in_theory": bool(s["in_theory"]), "theorem_verdict": s["verdict"]}
        stats = {"bound": bound, "regret_mean": float(reg.get("mean", np.nan)),
                 "regret_median": float(reg.get("median", np.nan)), "regret_q": q,
                 "regret_max": float(reg.get("max", np.nan)),
                 "slack_ratio": bound / q if q > 0 else float("inf") if bound > 0 else float("nan"),
                 "regret_uninformed_q": unq, "vacuous": bool(np.isfinite(unq) and bound >= unq)}
        for c in s["claims"]:
            out.append({**base, "claim": c["id"], "kind": c["kind"],
                        "level": np.nan if c["level"] is None else float(c["level"]),
                        "violations": int(c["violations"]), "claim_runs": int(c["runs"]),
                        "rate": np.nan if c["rate"] is None else float(c["rate"]),
                        "ci_low": np.nan if c["ci_low"] is None else float(c["ci_low"]),
                        "ci_high": np.nan if c["ci_high"] is None else float(c["ci_high"]),
                        **{k: np.nan if c.get(k) is None else float(c[k])
                           for k in ("p_value", "p_adjusted", "budget_share")},
                        "verdict": c["verdict"], **stats})
    df = pd.DataFrame(out)
    params = [k for k in (rows[0][1] if rows else {}) if k not in COLUMNS]
    order = ["cell", *params, *[c for c in COLUMNS if c != "cell"]]
    return df[[c for c in order if c in df.columns]]
