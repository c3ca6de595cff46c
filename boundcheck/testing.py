"""Helpers for pytest suites: ``assert_bound_holds`` and a pytest plugin (entry point ``pytest11``) that adds the
``--boundcheck-runs N`` option and a ``boundcheck`` fixture whose ``verify(...)`` uses that number of runs by
default. Everything goes through :mod:`boundcheck.api`. A test a user can copy::

    from boundcheck.testing import assert_bound_holds
    from mypackage import MyGPUCB          # an ask/tell class (see examples/gp_ucb.py)

    def test_pe_gp_ucb_bound():              # 40 runs settle few claims: accept "inconclusive", not "violated"
        assert_bound_holds("pe_gp_ucb", runs=40, horizon=60, seed=1, allow_inconclusive=True)

    def test_my_gp_ucb_behaves_as_theorem_1_says():
        assert_bound_holds("gp_ucb", algorithm=MyGPUCB, runs=40, horizon=40, scenario="gp_sample_se",
                           allow_inconclusive=True)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .utils.settings import settings_from

if TYPE_CHECKING:
    from typing import Unpack

    from .utils.settings import SettingsKeywords, VerifySettings

__all__ = ["assert_bound_holds", "run_check", "format_claims", "check_policy", "BoundcheckFixture"]

#: run_check's own defaults, where they differ from VerifySettings' (a test wants a small, serial, quiet check)
RUN_CHECK_DEFAULTS = {"runs": 50, "jobs": 1, "report": False}


def run_check(theorem, *, settings: VerifySettings | None = None, scenario=None, policies=None, algorithm=None,
              defects=None, **keywords: Unpack[SettingsKeywords]) -> dict:
    """Run ``boundcheck verify`` in-process (no report) and return the JSON summary.

    ``settings`` (a :class:`~boundcheck.api.VerifySettings`) or its fields as keywords (``runs=40, seed=1``),
    as in :func:`boundcheck.api.verify`, with this function's own defaults: 50 runs, one job (the test's
    process), and never a report (``report`` is taken as false whatever it says). ``theorem``, ``scenario`` and
    ``policies`` may be names or objects; ``scenario`` may be a scenario file. ``algorithm``: your implementation
    (an ask/tell class, a batched :class:`~boundcheck.policies.Policy` subclass, ``"FILE.py:CLASS"``), or a list
    of them, checked in the role of the theorem's algorithm with the theorem's own algorithms as paired
    baselines. ``defects``: planted defects (see ``boundcheck power``). A scenario the theorem does not cover
    raises :class:`~boundcheck.errors.NotApplicable` unless ``allow_out_of_theory``."""
    from . import api

    s = settings_from(settings, keywords, caller="run_check", **RUN_CHECK_DEFAULTS)
    if s.report:
        s = s.replace(report=False)
    return api.verify(theorem, scenario, settings=s, policies=policies, algorithm=algorithm, defects=defects)


def format_claims(summary: dict) -> str:
    """The claims table as plain text (used in assertion messages)."""
    lines = [f"{summary['theorem']} on {summary['scenario']}: verdict {summary['verdict']}"
             f" ({'in theory' if summary['in_theory'] else 'OUTSIDE THE THEOREM'}), runs={summary['runs']}, "
             f"T={summary['horizon']}, delta={summary['delta']}, seed={summary['seed']}",
             f"{'claim':<26}{'kind':<14}{'level':>8}{'fail/runs':>12}{'p':>9}{'share':>9}{'CI':>22}  verdict"]
    for c in summary["claims"]:
        ci = "" if c["ci_low"] is None else f"[{c['ci_low']:.3g}, {c['ci_high']:.3g}]"
        lvl = "" if c["level"] is None else f"{c['level']:.3g}"
        p = "" if c.get("p_value") is None else f"{c['p_value']:.2g}"
        sh = "" if c.get("budget_share") is None else f"{c['budget_share']:.2g}"
        why = f" ({c['details']['reason']})" if c["verdict"] == "not applicable" and c.get("details") else ""
        lines.append(f"{c['id']:<26}{c['kind']:<14}{lvl:>8}{c['violations']:>6}/{c['runs']:<5}{p:>9}{sh:>9}{ci:>22}  "
                     f"{c['verdict']}{why}")
    for name, info in (summary.get("checked") or {}).items():
        if name != summary.get("main_algorithm"):
            bad = [c["id"] for c in info["claims"] if c["verdict"] == "violated"]
            lines.append(f"also checked {name}: {info['verdict']}" + (f" (violated: {', '.join(bad)})" if bad else ""))
    return "\n".join(lines)


def assert_bound_holds(theorem, *, allow_inconclusive: bool = False, allow_incomplete: bool = False,
                       **kwargs) -> dict:
    """Fail (AssertionError with the claims table) unless every claim of ``theorem`` holds.

    ``kwargs``: those of :func:`run_check` (``settings``, or ``runs``, ``horizon``, ``seed``, ..., ``scenario``,
    ``algorithm``). A violated claim always fails. An *inconclusive* claim (too few runs to decide it) fails
    unless ``allow_inconclusive=True``; an *incomplete* verdict (claims not applicable to the checked code, which
    does not record what they read) fails unless ``allow_incomplete=True``: "holds" means every claim was
    judged."""
    summary = run_check(theorem, **kwargs)
    claims = list(summary["claims"])
    for name, info in (summary.get("checked") or {}).items():  # several implementations: every one must hold
        if name != summary.get("main_algorithm"):
            claims += [dict(c, id=f"{name}:{c['id']}") for c in info["claims"]]
    bad = [c["id"] for c in claims
           if c["verdict"] == "violated" or (not allow_inconclusive and c["verdict"] == "inconclusive")]
    if bad:
        raise AssertionError(f"claims not holding: {', '.join(bad)}\n{format_claims(summary)}")
    gaps = {name: info.get("incomplete") for name, info in (summary.get("checked") or {}).items()}
    gaps = {name: g for name, g in (gaps or {summary.get("main_algorithm"): summary.get("incomplete")}).items() if g}
    settings = kwargs.get("settings")
    if gaps and not (allow_incomplete or (settings is not None and settings.allow_incomplete)):
        raise AssertionError("verdict incomplete (pass allow_incomplete=True to accept): " + "; ".join(
            f"{name}: not judged {', '.join(g['claims'])}" + (f", uncaught defects {', '.join(g['uncaught_defects'])}"
                                                               if g.get("uncaught_defects") else "")
            for name, g in gaps.items()) + f"\n{format_claims(summary)}")
    return summary


def check_policy(policy, scenario="gp_sample_se", *, runs: int = 3, horizon: int = 8, seed: int = 0) -> None:
    """Check that ``policy`` (a name, class, factory, spec or ``FILE.py:CLASS``) keeps the policy protocol, in
    the style of scikit-learn's ``check_estimator``; raises AssertionError naming the first broken rule.

    Rules: ``select`` returns (m, K) integer base arms inside the available set; every per-step record is
    declared in ``records`` and has one row per run; ``finish`` returns the declared ``final_records`` with one
    row per run; a policy that says it provides a posterior exposes one with the true prior's index; the same
    seeds give the same actions (no hidden global randomness); and each run's actions do not depend on the
    other runs of its batch (vectorisation keeps runs independent).
    """
    import numpy as np

    from . import api
    from .model.posterior import Posterior
    from .study.engine import simulate

    spec = api.resolve_policy(policy)
    if getattr(spec.declared, "domain_kind", "finite") == "box":  # a policy on a compact box: its own rules
        return _check_box_policy(spec, "gp_sample_se_box" if scenario == "gp_sample_se" else scenario, runs,
                                 horizon, seed)
    study = api.build_study("gp_ucb", scenario, runs=runs, horizon=horizon, seed=seed, policies=["gp_ucb"])
    sc = study.scenario
    inst = study.family.instantiate(sc, horizon, study.delta)
    cls = spec.declared
    traj = simulate(sc, [spec], list(range(runs)), seed, inst)
    tr = traj.algorithms[spec.name]
    K, n = sc.actions.K, sc.domain.n
    assert tr.actions.shape == (runs, horizon, K), f"{spec.name}: actions have shape {tr.actions.shape}"
    assert ((tr.actions >= 0) & (tr.actions < n)).all(), f"{spec.name}: an action is outside the domain"
    for t in range(1, horizon + 1):
        avail = np.broadcast_to(sc.actions.available(t, []), (runs, n))
        chosen = np.take_along_axis(avail, tr.actions[:, t - 1], axis=1)
        assert chosen.all(), f"{spec.name}: step {t} chose a base arm that was not available"
    undeclared = set(tr.steps) - set(cls.records)
    assert not undeclared, f"{spec.name}: records {sorted(undeclared)} are not declared in `records`"
    missing = set(cls.records) - set(tr.steps)
    assert not missing, f"{spec.name}: declared records {sorted(missing)} were never recorded"
    for k, v in tr.steps.items():
        assert v.shape[:2] == (runs, horizon), f"{spec.name}: record {k!r} does not have one row per run and step"
    missing = set(cls.final_records) - set(tr.final)
    assert not missing, f"{spec.name}: finish() does not return the declared {sorted(missing)}"
    for k, v in tr.final.items():
        assert np.shape(v)[:1] == (runs,), f"{spec.name}: finish() value {k!r} does not have one row per run"
    if getattr(cls, "provides_posterior", False):
        pol = spec.make()
        from .policies import RunContext

        pol.start(RunContext(runs=1, horizon=horizon, candidates=sc.candidates, truth=sc.truth, noise_sd=sc.noise,
                             noise_var=sc.model_noise_var, beta=inst.beta, xi=inst.xi, actions=sc.actions,
                             rngs=[np.random.default_rng(0)], truth_index=sc.truth_index))
        assert isinstance(pol.posterior, Posterior), f"{spec.name}: provides_posterior but no Posterior after start"
        assert pol.truth_prior is not None, f"{spec.name}: provides_posterior but truth_prior is None"
    again = simulate(sc, [spec], list(range(runs)), seed, inst).algorithms[spec.name]
    assert np.array_equal(again.actions, tr.actions), f"{spec.name}: the same seeds gave different actions"
    for r in range(runs):
        alone = simulate(sc, [spec], [r], seed, inst).algorithms[spec.name]
        assert np.array_equal(alone.actions[0], tr.actions[r]), (
            f"{spec.name}: run {r} acts differently when batched with other runs (runs must be independent)")


def _check_box_policy(spec, scenario, runs: int, horizon: int, seed: int) -> None:
    """:func:`check_policy` for a box policy: points inside the box (the engine refuses others), declared records
    with one row per run and step, the declared final records, the same seeds giving the same points, and each
    run's points independent of the other runs of its batch."""
    import numpy as np

    from . import api
    from .study.continuum import simulate_box

    study = api.build_study("gp_ucb_compact", scenario, runs=runs, horizon=horizon, seed=seed,
                            policies=["gp_ucb_box"])
    sc, cls = study.scenario, spec.declared
    inst = study.family.instantiate(sc, horizon, study.delta)

    def points(run_ids):
        tr = simulate_box(sc, [spec], list(run_ids), seed, inst).algorithms[spec.name]
        return tr, np.stack([tr.monitors[f"x{j}"] for j in range(sc.box.dim)], axis=-1)

    tr, X = points(range(runs))
    undeclared = set(tr.steps) - set(cls.records)
    assert not undeclared, f"{spec.name}: records {sorted(undeclared)} are not declared in `records`"
    missing = set(cls.records) - set(tr.steps)
    assert not missing, f"{spec.name}: declared records {sorted(missing)} were never recorded"
    missing = set(cls.final_records) - set(tr.final)
    assert not missing, f"{spec.name}: finish() does not return the declared {sorted(missing)}"
    for k, v in tr.final.items():
        assert np.shape(v)[:1] == (runs,), f"{spec.name}: finish() value {k!r} does not have one row per run"
    assert np.array_equal(points(range(runs))[1], X), f"{spec.name}: the same seeds gave different points"
    for r in range(runs):
        assert np.array_equal(points([r])[1][0], X[r]), (
            f"{spec.name}: run {r} acts differently when batched with other runs (runs must be independent)")


class BoundcheckFixture:
    """What the ``boundcheck`` fixture returns: ``verify(...)`` and ``assert_holds(...)``."""

    def __init__(self, runs: int | None) -> None:
        self.runs = runs

    def _with_runs(self, kwargs: dict) -> dict:
        """``--boundcheck-runs`` (else 50) where the call gives no number of runs itself."""
        settings = kwargs.get("settings")
        if settings is None:
            kwargs.setdefault("runs", self.runs or 50)
        elif settings.runs is None and "runs" not in kwargs:
            kwargs["settings"] = settings.replace(runs=self.runs or 50)
        return kwargs

    def verify(self, theorem, **kwargs) -> dict:
        return run_check(theorem, **self._with_runs(kwargs))

    def assert_holds(self, theorem, **kwargs) -> dict:
        return assert_bound_holds(theorem, **self._with_runs(kwargs))


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
