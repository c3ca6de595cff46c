"""A theorem of your own runs its own schedules, and its bound is validated in one place.

Item 1: a family reads every schedule of the checked algorithm and of its claims from the theorem it holds, never
from its paper's module. A single-file theorem whose width is 3× the built-in's runs with that width (the study's
β and the verify JSON's ``width`` say so) and one whose width is the built-in's ÷ 20 is violated, checked like
``gp_ucb``, ``igp_ucb`` and ``gp_ts``; for every built-in family, each schedule ``check_like`` requires
(``Family.schedules_read``) changes the instance when the theorem changes it (each is used).

Item 2: a bound that is negative, 0 at T where its expression is positive, NaN, complex, ±∞ or sympy's ``zoo``
at some t ≤ T is exit 2 with one line that names the theorem of your own (not the one it is checked like), the
step and the term, in ``verify`` and in ``bound`` alike."""

from __future__ import annotations

import copy
import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

from boundcheck import api
from boundcheck.claims.families import family_for
from boundcheck.claims.families.checked_as import CheckedAs
from boundcheck.cli import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
SMALL = ["--runs", "20", "--horizon", "12", "--seed", "0", "--no-report", "--json", "--jobs", "1"]

THEOREMS = '''
import dataclasses, sys
sys.path.insert(0, {examples!r})
import sympy as sp
import theory
from theory import S
from my_bound import MY_THEOREM, beta

T, t = S.T, S.t


def like(base, tid, **schedules):
    """``base`` with some schedules scaled: {{name: factor}}."""
    scaled = {{k: v * schedules.get(k, 1) for k, v in base.schedules.items()}}
    return dataclasses.replace(base, id=tid, family=base.family or base.id, schedules=scaled)


# ---------------------------------------------------------------- item 1: the width that runs is the theorem's
GP_UCB_WIDE = like(MY_THEOREM, "ut_gp_ucb_wide", width_t=3)
GP_UCB_NARROW = like(MY_THEOREM, "ut_gp_ucb_narrow", width_t=sp.Rational(1, 20))
IGP = theory.get("igp_ucb")
IGP_WIDE = like(IGP, "ut_igp_ucb_wide", beta_t=3)
IGP_NARROW = like(IGP, "ut_igp_ucb_narrow", beta_t=sp.Rational(1, 20))
TS = theory.get("gp_ts")
TS_WIDE = like(TS, "ut_gp_ts_wide", v_t=3, ctilde_t=2)
TS_NARROW = like(TS, "ut_gp_ts_narrow", v_t=sp.Rational(1, 20))

# ---------------------------------------------------------------- item 2: bounds that say nothing
def bad(tid, at_T, anytime=None):
    return dataclasses.replace(MY_THEOREM, id=tid, bound_terms={{"information": at_T}},
                               anytime_terms=None if anytime is None else {{"information": anytime}})


NEGATIVE = bad("ut_negative", -sp.sqrt(T))
ZERO = bad("ut_zero", sp.exp(-1000 * T))  # positive by sympy's assumptions, 0.0 in floating point
NAN = bad("ut_nan", sp.sqrt(T - 1000))  # sqrt of a negative number: NaN
COMPLEX = bad("ut_complex", sp.sqrt(-T))  # I*sqrt(T)
INF = bad("ut_inf", 1 / (T - 30))  # divides by 0 at T = 30
MINUS_INF = bad("ut_minus_inf", -1 / (T - 30) ** 2)
ZOO = bad("ut_zoo", T / 0)  # sympy: zoo*T
ANYTIME_NEGATIVE = bad("ut_anytime_negative", sp.sqrt(T), t - 5)  # negative at t = 1..4
ANYTIME_INF = bad("ut_anytime_inf", sp.sqrt(T), t / (t - 3))  # +inf at t = 3
'''


@pytest.fixture(scope="session")  # once per process: a theorem id may come from one file only in a process
def theorems(tmp_path_factory) -> Path:
    f = tmp_path_factory.mktemp("user_theorems") / "my_theorems.py"
    f.write_text(THEOREMS.format(examples=str(EXAMPLES)))
    return f


def _instance(ref, horizon: int = 12):
    spec = api.build_study(ref, runs=20, horizon=horizon, seed=0)
    return spec.family.instantiate(spec.scenario, spec.horizon, spec.delta, spec.beta_scale)


def _verify(capsys, ref: str, out: Path) -> tuple[int, dict]:
    code = main(["verify", "--theorem", ref, *SMALL, "--out", str(out)])
    return code, json.loads(capsys.readouterr().out)


# ------------------------------------------------------------------------------------------------ item 1
@pytest.mark.parametrize("wide, builtin, scaled", [
    ("GP_UCB_WIDE", "gp_ucb", {}),
    ("IGP_WIDE", "igp_ucb", {}),
    ("TS_WIDE", "gp_ts", {"gp_ts_ctilde": 2.0}),  # c̃_t, which Lemmas 5–13 read, is the theorem's too
], ids=["gp_ucb", "igp_ucb", "gp_ts"])
def test_a_wider_width_of_your_own_is_the_width_that_runs(wide, builtin, scaled, theorems):
    mine, ref = _instance(f"{theorems}:{wide}"), _instance(builtin)
    np.testing.assert_allclose(mine.beta, 3 * ref.beta, rtol=1e-12)
    for name, factor in scaled.items():
        np.testing.assert_allclose(mine.schedules[name], factor * ref.schedules[name], rtol=1e-12)
    for name in set(ref.schedules) - set(scaled):  # the baselines keep the widths their papers state
        np.testing.assert_array_equal(mine.schedules[name], ref.schedules[name])


def test_the_verify_json_says_which_width_ran(theorems, tmp_path):
    """β_1 and β_T of the study: 3× Srinivas' for the wide twin (examples/my_bound.py's MY_THEOREM runs Srinivas',
    which is its own: the bug was invisible there)."""
    s = api.verify(f"{theorems}:GP_UCB_WIDE", runs=10, horizon=8, seed=0, jobs=1, report=False, out=tmp_path)
    ref = _instance("gp_ucb", 8).beta
    assert s["width"] == pytest.approx({"at_1": 3 * ref[1], "at_horizon": 3 * ref[-1]}, rel=1e-12)


@pytest.mark.parametrize("narrow", ["GP_UCB_NARROW", "IGP_NARROW", "TS_NARROW"])
def test_a_width_of_your_own_twenty_times_too_narrow_is_violated(narrow, theorems, capsys, tmp_path):
    code, s = _verify(capsys, f"{theorems}:{narrow}", tmp_path)
    assert code == 1 and s["verdict"] == "violated", s["verdict"]
    verdicts = {c["id"]: c["verdict"] for c in s["claims"]}
    assert verdicts["confidence_event"] == "violated"  # |f − μ| ≤ width·σ fails with the width the theorem gave


def _same(x, y) -> bool:
    x, y = np.asarray(x), np.asarray(y)
    if x.dtype.kind in "fc" and y.dtype.kind in "fc":
        return x.shape == y.shape and np.array_equal(x, y, equal_nan=True)
    return x.shape == y.shape and bool(np.all(x == y))


def _differs(a, b) -> bool:
    """Whether two instances differ in anything a study runs with or a claim reads."""
    if not all(_same(getattr(a, f), getattr(b, f)) for f in ("beta", "xi", "anytime", "B", "C", "bound_T")):
        return True
    if set(a.schedules) != set(b.schedules) or not all(_same(a.schedules[k], b.schedules[k]) for k in a.schedules):
        return True
    return set(a.extra) != set(b.extra) or not all(_same(a.extra[k], b.extra[k]) for k in a.extra)


def _cheap(family):
    """A copy of ``family`` whose instantiation runs a pilot of 2 runs (ET-GP-UCB's E[τ]), not 64."""
    inner = family.inner if isinstance(family, CheckedAs) else family
    if hasattr(inner, "pilot_runs"):
        inner.pilot_runs = 2
    return family


def _builtins() -> list[str]:
    import theory

    return [th.id for th in theory.all_theorems() if family_for(th).schedules_read]


@pytest.mark.parametrize("tid", _builtins())
def test_every_schedule_a_theorem_must_define_is_used_and_no_other_is_read(tid):
    """check_like requires the schedules ``schedules_read`` names. Each changes the instance when the theorem
    checked changes it (none is read from the paper's module, none is required for nothing); and a theorem that
    defines only those runs exactly as the built-in (none read is left out of the names)."""
    import theory

    th = theory.get(tid)
    base = _cheap(copy.copy(family_for(th)))
    sc = api.resolve_scenario(None, th, 8, None)
    delta = 0.1 if th.id != "et_trigger" else sc.delta_B
    ref = base.instantiate(sc, 8, delta)
    assert set(base.schedules_read) <= set(th.schedules), "a built-in theorem defines what its family reads"

    def instance(schedules: dict, tag: str):
        mine = dataclasses.replace(th, id=f"ut_{tag}_{tid}", family=tid, schedules=schedules)
        return _cheap(CheckedAs(family_for(th), mine)).instantiate(sc, 8, delta)

    only = {k: v for k, v in th.schedules.items() if k in base.schedules_read}
    assert not _differs(instance(only, "only"), ref)
    for name in base.schedules_read:
        assert any(_differs(instance({**th.schedules, name: th.schedules[name] * factor}, f"used_{name}"), ref)
                   for factor in (2, 1e-3, 1e3)), f"{tid}: {name} is required of a theorem checked like it, unused"


def test_a_theorem_need_not_define_what_its_family_does_not_read(theorems):
    """gp_ucb's family reads width_t alone: a theorem without β_t or C1 is checked (they were required before)."""
    import theory
    from boundcheck.claims.families.checked_as import check_like

    mine = theory.get("gp_ucb")
    check_like(dataclasses.replace(mine, id="ut_width_only", family="gp_ucb",
                                   schedules={"width_t": mine.schedules["width_t"]}), family_for("gp_ucb"))


# ------------------------------------------------------------------------------------------------ item 2
BOUND_SETS = ["--set", "T=30", "--set", "delta=0.1", "--set", "R=0.1", "--set", "n_X=100", "--set", "gamma_T=10"]


@pytest.mark.parametrize("name, fragments", [
    ("NEGATIVE", ["is negative at t = T = 30", "bound term 'information' = -5.47723"]),
    ("ZERO", ["is 0 at t = T = 30", "positive"]),
    ("NAN", ["is not finite at t = T = 30", "bound term 'information' is NaN"]),
    ("COMPLEX", ["is not a real number at t = T = 30", "bound term 'information' is complex (0+5.47723j)"]),
    ("INF", ["is not finite at t = T = 30", "bound term 'information' is +∞"]),
    ("MINUS_INF", ["is not finite at t = T = 30", "bound term 'information' is −∞"]),
    ("ZOO", ["bound term information is zoo (complex infinity", "at every t"]),
], ids=["NEGATIVE", "ZERO", "NAN", "COMPLEX", "INF", "MINUS_INF", "ZOO"])
@pytest.mark.parametrize("command", ["verify", "bound"])
def test_a_bad_bound_is_exit_2_naming_your_theorem_the_step_and_the_term(name, fragments, command, theorems,
                                                                         capsys, tmp_path):
    ref = f"{theorems}:{name}"
    argv = (["verify", "--theorem", ref, "--runs", "5", "--horizon", "30", "--no-report", "--out", str(tmp_path)]
            if command == "verify" else ["bound", ref, *BOUND_SETS])
    assert main(argv) == 2
    err = capsys.readouterr().err
    tid = f"ut_{name.lower()}"
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert f"theorem {tid!r}" in err and "gp_ucb" not in err.replace("checked like gp_ucb", ""), err
    assert all(f in err for f in fragments), err


@pytest.mark.parametrize("name, fragment", [
    ("ANYTIME_NEGATIVE", "the anytime bound Bound_T(t) is negative at t = 1 (-4; anytime term 'information' = -4)"),
    ("ANYTIME_INF", "the anytime bound Bound_T(t) is not finite at t = 3: anytime term 'information' is +∞"),
], ids=["ANYTIME_NEGATIVE", "ANYTIME_INF"])
def test_an_anytime_bound_that_fails_at_some_t_before_T_is_exit_2(name, fragment, theorems, capsys, tmp_path):
    ref = f"{theorems}:{name}"
    assert main(["verify", "--theorem", ref, "--runs", "5", "--horizon", "30", "--no-report",
                 "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"theorem 'ut_{name.lower()}'" in err and fragment in err, err


def test_a_builtin_bound_at_values_outside_its_range_names_the_step_and_term(capsys):
    """``bound`` on a built-in theorem goes through the same validation (the term and t = T are named)."""
    assert main(["bound", "gp_ucb", "--set", "T=10", "--set", "delta=5e-324", "--set", "n_X=10", "--set",
                 "gamma_T=3", "--set", "R=0.1"]) == 2
    err = capsys.readouterr().err
    assert "theorem 'gp_ucb': the explicit bound is not finite at t = T = 10: bound term 'information' is +∞" in err


def _refused(tid: str, builtin: str, horizon: int = 8, **schedules) -> str:
    """The one line that refuses the instance of ``builtin``'s theorem with ``schedules`` replaced, checked like
    it under the id ``tid``."""
    import theory
    from boundcheck.errors import BoundcheckError

    th = theory.get(builtin)
    mine = dataclasses.replace(th, id=tid, family=builtin, schedules={**th.schedules, **schedules})
    fam = _cheap(CheckedAs(family_for(th), mine))
    sc = api.resolve_scenario(None, th, horizon, None)
    with pytest.raises(BoundcheckError) as exc:
        fam.instantiate(sc, horizon, 0.1)
    msg = str(exc.value)
    assert "\n" not in msg and f"theorem {tid!r}" in msg, msg
    return msg


def test_another_form_of_the_bound_that_a_claim_reads_is_validated_too():
    """PE-GP-UCB's tight bound, ET-GP-UCB's form (C) and ET-R-GP-UCB's printed bound are the bounds of claims of
    their own: a NaN one would make its claim hold whatever the regret."""
    import sympy as sp

    from theory import S

    nan = sp.sqrt(S.T - 10**9)  # numpy's square root of a negative number
    assert "the tight form of the bound is not finite at t = T = 8: schedule 'bound_tight' is NaN" in _refused(
        "ut_tight_nan", "pe_gp_ucb", bound_tight=nan)
    assert "form (C) of the bound is not finite at t = T = 8: schedule 'bound_C' is NaN" in _refused(
        "ut_form_c_nan", "et_gp_ucb", bound_C=nan)
    assert "the bound as printed is not finite at t = T = 8: schedule 'bound_printed' is NaN" in _refused(
        "ut_printed_nan", "et_r_gp_ucb", bound_printed=nan)


def test_a_claim_threshold_or_width_that_is_not_a_finite_real_number_is_refused():
    """GP-TS's c̃_t (Lemmas 5–13 read it) NaN before t = 5; a width with an imaginary part (numpy would drop it with
    a warning and run the real part); R-GP-UCB's one-block width of Lemma 1 infinite."""
    import sympy as sp

    from theory import S

    assert "the schedule 'gp_ts_ctilde' of the study is not finite at t = 1" in _refused(
        "ut_ctilde_nan", "gp_ts", ctilde_t=sp.sqrt(S.t - 5))
    assert "the width schedule of its algorithm is not finite at t = 1" in _refused(
        "ut_width_complex", "gp_ucb", width_t=sp.I * sp.sqrt(S.t))
    assert "the schedule 'block_width' of the study is not finite" in _refused(
        "ut_block_inf", "r_gp_ucb", beta_block_t=sp.oo)


def test_the_instance_cache_is_keyed_by_the_code_of_the_family_a_theorem_is_checked_like():
    """A theorem of your own is checked by a copy of another paper's family: its instance is computed by that
    paper's code (the kernelized family's schedules and claim table are in the paper's module)."""
    import theory
    from boundcheck.claims.families.instance_cache import _code_files

    for builtin, module in (("gp_ucb", "srinivas"), ("r_gp_ucb", "r_sw_gp_ucb")):
        th = theory.get(builtin)
        mine = CheckedAs(family_for(th), dataclasses.replace(th, id=f"ut_cache_{builtin}", family=builtin))
        want = str(ROOT / "boundcheck" / "papers" / module / "family.py")
        assert want in _code_files(family_for(th)) and want in _code_files(mine)


def test_a_kernelized_family_takes_schedule_names_not_a_function():
    """The schedules are names of the theorem checked (or a baseline's (theorem, name)): a function of the values
    could read the paper's module instead, which is how a theorem of your own once ran the built-in width."""
    import theory
    from boundcheck.claims.families.kernelized import KernelizedFamily
    from boundcheck.papers.srinivas.family import claims

    th = theory.get("gp_ucb")
    with pytest.raises(TypeError, match="schedules is a mapping policy name -> schedule name"):
        KernelizedFamily(th, claims, lambda values, t, gamma_prev: {"gp_ucb": t})
    with pytest.raises(TypeError, match="must be a schedule of the theorem checked"):
        KernelizedFamily(th, claims, {"gp_ucb": (th, "width_t")})
