"""Helpers for pytest suites: ``assert_bound_holds`` and a pytest plugin (entry point ``pytest11``).

Example (a test a user can copy)::

    from boundcheck.testing import assert_bound_holds

    def test_pe_gp_ucb_bound():
        assert_bound_holds("pe_gp_ucb", runs=40, horizon=60, seed=1)

The plugin adds the ``--boundcheck-runs N`` option and a ``boundcheck`` fixture whose ``verify(...)``
uses that number of runs by default.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

__all__ = ["assert_bound_holds", "run_check", "format_claims", "BoundcheckFixture"]


def run_check(theorem: str, *, scenario: str | None = None, runs: int = 50, horizon: int | None = None,
              delta: float | None = None, seed: int = 0, beta_scale: float = 1.0, jobs: int = 1,
              out: str | Path | None = None) -> dict:
    """Run ``boundcheck verify`` in-process (no report) and return the JSON summary."""
    import theory

    from .families import family
    from .scenarios import get_scenario
    from .study import StudyConfig
    from .verify import VerifyOptions, run_verify

    th = theory.get(theorem)
    sc_name = scenario or th.default_scenario
    sc = get_scenario(sc_name)
    config = StudyConfig(theorem=th.id, scenario=sc_name, runs=runs, horizon=horizon or sc.horizon,
                         delta=sc.delta if delta is None else delta, seed=seed, beta_scale=beta_scale,
                         algorithms=tuple(family(th.id).ALGORITHMS))
    if out is None:
        with tempfile.TemporaryDirectory(prefix="boundcheck-") as tmp:
            return run_verify(config, Path(tmp) / "results", VerifyOptions(jobs=jobs))
    return run_verify(config, Path(out) / "results", VerifyOptions(jobs=jobs))


def format_claims(summary: dict) -> str:
    """The claims table as plain text (used in assertion messages)."""
    lines = [f"{summary['theorem']} on {summary['scenario']}: verdict {summary['verdict']}"
             f" ({'in theory' if summary['in_theory'] else 'OUT OF THEORY'}), runs={summary['runs']}, "
             f"T={summary['horizon']}, delta={summary['delta']}, seed={summary['seed']}",
             f"{'claim':<26}{'kind':<14}{'level':>8}{'fail/runs':>12}{'CI':>22}  verdict"]
    for c in summary["claims"]:
        ci = "" if c["ci_low"] is None else f"[{c['ci_low']:.3g}, {c['ci_high']:.3g}]"
        lvl = "" if c["level"] is None else f"{c['level']:.3g}"
        lines.append(f"{c['id']:<26}{c['kind']:<14}{lvl:>8}{c['violations']:>6}/{c['runs']:<5}{ci:>22}  "
                     f"{c['verdict']}")
    return "\n".join(lines)


def assert_bound_holds(theorem: str, *, runs: int = 50, horizon: int | None = None, seed: int = 0,
                       allow_inconclusive: bool = True, **kwargs) -> dict:
    """Fail (AssertionError with the claims table) if any claim of ``theorem`` comes out violated.

    With ``allow_inconclusive=False`` every claim must also *hold* (enough runs to be conclusive)."""
    summary = run_check(theorem, runs=runs, horizon=horizon, seed=seed, **kwargs)
    bad = [c["id"] for c in summary["claims"]
           if c["verdict"] == "violated" or (not allow_inconclusive and c["verdict"] != "holds")]
    if bad:
        raise AssertionError(f"claims not holding: {', '.join(bad)}\n{format_claims(summary)}")
    return summary


class BoundcheckFixture:
    """What the ``boundcheck`` fixture returns: ``verify(...)`` and ``assert_holds(...)``."""

    def __init__(self, runs: int | None) -> None:
        self.runs = runs

    def verify(self, theorem: str, **kwargs) -> dict:
        kwargs.setdefault("runs", self.runs or 50)
        return run_check(theorem, **kwargs)

    def assert_holds(self, theorem: str, **kwargs) -> dict:
        kwargs.setdefault("runs", self.runs or 50)
        return assert_bound_holds(theorem, **kwargs)


# ------------------------------------------------------------------------------ pytest plugin hooks
def pytest_addoption(parser) -> None:
    group = parser.getgroup("boundcheck")
    group.addoption("--boundcheck-runs", type=int, default=None,
                    help="Monte Carlo runs for boundcheck checks (default: each call's own)")


try:  # the fixture only exists when pytest is importable (it is a test extra)
    import pytest

    @pytest.fixture
    def boundcheck(request) -> BoundcheckFixture:
        """Run boundcheck verifications from a test; honours ``--boundcheck-runs``."""
        return BoundcheckFixture(request.config.getoption("--boundcheck-runs"))
except ImportError:  # pragma: no cover
    pass
