"""Fingerprints of verify results at fixed seeds, for pinning behaviour across refactorings.

``python tests/_support/regression_pins.py --write`` records the fingerprints of every case in ``CASES`` into
``tests/_support/data/regression_pins.json``; ``tests/study/test_regression.py`` recomputes them and asserts
bit-identity of every stored column and of the summary's regret statistics and bound. A column that a later
change adds is not compared; a column that disappears or changes is a failure.
"""

from __future__ import annotations

import hashlib
import json
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

PINS = Path(__file__).parent / "data" / "regression_pins.json"

# (theorem, scenario, runs, horizon, seed, beta_scale)
CASES = [
    ("pe_gp_ucb", "pe_toy_tv", 30, 40, 11, 1.0),
    ("pe_gp_ucb", "pe_toy", 20, 30, 12, 1.0),
    ("pe_gp_ucb", "pe_sensors", 10, 30, 13, 1.0),
    ("pe_gp_ucb", "pe_toy_tv", 20, 30, 14, 0.3),
    ("gp_ucb", "gp_sample_se", 30, 40, 21, 1.0),
    ("gp_ucb", "gp_sample_matern", 20, 30, 22, 1.0),
    ("igp_ucb_confidence", "rkhs_paper", 20, 40, 31, 1.0),
    ("igp_ucb", "rkhs_paper", 20, 40, 41, 1.0),
    ("igp_ucb", "sensors_004", 10, 30, 42, 1.0),
    ("igp_ucb", "rkhs_paper_replication", 10, 30, 43, 1.0),
    ("gp_ts", "rkhs_paper", 20, 40, 51, 1.0),
    ("gp_ts", "rkhs_paper_matern", 10, 30, 52, 1.0),
]


def _column_hash(s: pd.Series) -> str:
    if isinstance(s.dtype, pd.CategoricalDtype):
        s = s.astype(str)
    if not (pd.api.types.is_numeric_dtype(s.dtype) or pd.api.types.is_bool_dtype(s.dtype)):
        data = "\x1f".join(map(str, s.tolist())).encode()
    else:
        data = np.ascontiguousarray(s.to_numpy()).tobytes()
    return hashlib.sha256(data).hexdigest()[:20]


def _table(results: Path, table: str) -> pd.DataFrame:
    files = sorted((results / "chunks").glob(f"{table}-*.parquet"))
    df = pd.concat([pd.read_parquet(f) for f in files], ignore_index=True)
    df["algorithm"] = df["algorithm"].astype(str)
    keys = ["run", "algorithm"] + (["t"] if "t" in df else [])
    return df.sort_values(keys, kind="stable", ignore_index=True)


def fingerprint(theorem: str, scenario: str, runs: int, horizon: int, seed: int, beta_scale: float) -> dict:
    from boundcheck.testing import run_check

    with tempfile.TemporaryDirectory() as tmp:
        kw = {"allow_out_of_theory": True}  # negative controls and replication modes run outside the theorem
        try:
            summary = run_check(theorem, scenario=scenario, runs=runs, horizon=horizon, seed=seed,
                                beta_scale=beta_scale, jobs=1, out=tmp, **kw)
        except TypeError:  # before allow_out_of_theory existed
            summary = run_check(theorem, scenario=scenario, runs=runs, horizon=horizon, seed=seed,
                                beta_scale=beta_scale, jobs=1, out=tmp)
        results = Path(tmp) / "results"
        tables = {t: {c: _column_hash(df[c]) for c in df.columns} for t in ("runs", "steps")
                  for df in [_table(results, t)]}
        runs_df = _table(results, "runs")
        runs_values = {c: [None if (isinstance(v, float) and v != v) else v for v in runs_df[c].tolist()]
                       for c in runs_df.columns
                       if pd.api.types.is_float_dtype(runs_df[c].dtype)}
    claims = [{k: c[k] for k in ("id", "kind", "violations", "runs", "rate", "ci_low", "ci_high", "verdict")}
              for c in summary["claims"]]
    return {
        "tables": tables,
        "runs_values": runs_values,
        "claims": claims,
        "regret": summary["regret"],
        "bound": {"at_horizon": summary["bound"]["at_horizon"], "terms": summary["bound"]["terms"],
                  "gamma_upper": summary["bound"]["gamma_upper"], "gamma_lower": summary["bound"]["gamma_lower"]},
    }


def case_key(case) -> str:
    return "/".join(map(str, case))


if __name__ == "__main__":
    if "--write" not in sys.argv:
        sys.exit("usage: python tests/_support/regression_pins.py --write")
    pins = {case_key(c): fingerprint(*c) for c in CASES}
    PINS.write_text(json.dumps(pins, indent=1, sort_keys=True))
    print(f"wrote {len(pins)} pins to {PINS}")
