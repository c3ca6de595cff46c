"""Pins of every built-in scenario, recorded before the scenarios moved from Python builders into TOML files.

``python tests/_support/scenario_pins.py --write`` records, for every built-in scenario, the content fingerprint
of the :class:`~boundcheck.world.scenario.Scenario` object (every array, number and string it holds: identical
fingerprints mean identical simulations at any seed), a fingerprint of its numbers and arrays alone, and, for
the scenarios that ``tests/_support/regression_pins.py`` does not cover, the fingerprints of a small verify
(every stored column, claims, regret, bound) into ``tests/_support/data/scenario_pins.json``;
``tests/world/test_scenario_files.py`` recomputes them from the TOML files. The result pins' claims follow the
regression pins (tests/study/test_regression.py says how they are compared); where only a description's text
changed, the ``full`` fingerprint was re-pinned with the ``numbers`` fingerprint unchanged.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import sys
from pathlib import Path

PINS = Path(__file__).parent / "data" / "scenario_pins.json"
TEXT_FIELDS = ("name", "description", "notes", "out_of_theory_reason")

# scenarios without a results pin in regression_pins.py: (theorem, scenario, runs, horizon, seed)
RESULT_CASES = [
    ("pe_gp_ucb", "pe_sensors_misspecified", 6, 20, 61),
    ("gp_ucb", "gp_sample_matern", 6, 20, 62),
    ("igp_ucb", "rkhs_paper_matern_replication", 6, 20, 63),
    ("igp_ucb", "rkhs_norm_exceeds", 6, 20, 64),
    ("igp_ucb", "rosenbrock", 6, 20, 65),
    ("igp_ucb", "rosenbrock_replication", 4, 15, 66),
    ("gp_ts", "hartmann3", 4, 15, 67),
    ("igp_ucb", "hartmann3_replication", 4, 15, 68),
    ("igp_ucb_confidence", "sensors_004_replication", 6, 20, 69),
]


# the Scenario fields when the pins were recorded; fields added later must keep their defaults on these
# scenarios (``added_fields_at_defaults``), so that a new feature cannot silently change a pinned scenario
PINNED_FIELDS = ("name", "description", "domain", "availability", "candidates", "truth", "truth_index", "noise",
                 "horizon", "delta", "reference_index", "in_theory", "out_of_theory_reason", "notes", "model_noise",
                 "B", "gamma_rule", "gamma_rate_params", "action_set")


def scenario_fingerprints(sc) -> dict[str, str]:
    """``full``: every pinned field (arrays, numbers, texts); ``numbers``: the same without the texts."""
    from boundcheck.utils.hashing import fingerprint

    fields = {name: getattr(sc, name) for name in PINNED_FIELDS}
    numbers = {k: v for k, v in fields.items() if k not in TEXT_FIELDS}
    return {"full": fingerprint(fields), "numbers": fingerprint(numbers)}


def added_fields_at_defaults(sc) -> list[str]:
    """Scenario fields added after the pins whose value on ``sc`` is not their default."""
    out = []
    for f in dataclasses.fields(sc):
        if f.name in PINNED_FIELDS or not f.compare:
            continue
        default = f.default if f.default is not dataclasses.MISSING else (
            f.default_factory() if f.default_factory is not dataclasses.MISSING else dataclasses.MISSING)
        if default is dataclasses.MISSING or getattr(sc, f.name) != default:
            out.append(f.name)
    return out


def result_fingerprint(theorem: str, scenario: str, runs: int, horizon: int, seed: int) -> dict:
    import tempfile

    from regression_pins import _column_hash, _table

    from boundcheck.testing import run_check

    kw = {}
    params = inspect.signature(run_check).parameters  # older versions lack it; newer take it among the settings
    if "allow_out_of_theory" in params or "settings" in params:
        kw["allow_out_of_theory"] = True
    with tempfile.TemporaryDirectory() as tmp:
        summary = run_check(theorem, scenario=scenario, runs=runs, horizon=horizon, seed=seed, jobs=1, out=tmp,
                            **kw)
        results = Path(tmp) / "results"
        tables = {t: {c: _column_hash(df[c]) for c in df.columns} for t in ("runs", "steps")
                  for df in [_table(results, t)]}
    claims = [{k: c[k] for k in ("id", "kind", "violations", "runs", "rate", "ci_low", "ci_high", "verdict")}
              for c in summary["claims"]]
    return {"tables": tables, "claims": claims, "regret": summary["regret"],
            "bound": {"at_horizon": summary["bound"]["at_horizon"], "terms": summary["bound"]["terms"]}}


def case_key(case) -> str:
    return "/".join(map(str, case))


if __name__ == "__main__":
    if "--write" not in sys.argv:
        sys.exit("usage: python tests/_support/scenario_pins.py --write")
    sys.path.insert(0, str(Path(__file__).parent))
    from boundcheck.world import get_scenario, scenario_names

    pins = {"scenarios": {name: scenario_fingerprints(get_scenario(name)) for name in scenario_names()},
            "results": {case_key(c): result_fingerprint(*c) for c in RESULT_CASES}}
    PINS.write_text(json.dumps(pins, indent=1, sort_keys=True))
    print(f"wrote {len(pins['scenarios'])} scenario pins and {len(pins['results'])} result pins to {PINS}")
