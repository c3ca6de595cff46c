"""Property-based: generated bound-symbol values and verify configs either run or exit 2 with one line;
never a traceback, never a NaN, infinite or negative bound printed as a result."""

import json
import math
import re
import tomllib

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import theory
from boundcheck.cli import main

THEOREMS = [th.id for th in theory.all_theorems()]

# numbers a user might type: ordinary, integral, fractional, negative, zero, tiny, huge, beyond float range
NUMBERS = st.one_of(
    st.integers(min_value=-10, max_value=10**6).map(str),
    st.floats(allow_nan=True, allow_infinity=True, width=64).map(repr),
    st.floats(min_value=1e-12, max_value=1.0, exclude_max=True).map(repr),
    st.sampled_from(["1e308", "1e300", "-0.0", "0", "1", "2.5", "nan", "inf", "1e-320", "1e400", "abc", ""]),
)


def _check_outcome(rc: int, out: str, err: str) -> None:
    assert "Traceback" not in err and "Traceback" not in out
    assert rc in (0, 2), (rc, err)
    if rc == 2:
        assert err.startswith("boundcheck: error: ") and err.count("\n") == 1, err


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(theorem=st.sampled_from(THEOREMS), data=st.data())
def test_bound_runs_or_exits_2_never_nan_or_negative(theorem, data, capsys):
    th = theory.get(theorem)
    argv = ["bound", theorem, "--json"]
    for name in th.symbols:
        if data.draw(st.booleans(), label=f"sensible {name}"):  # mostly in-domain values, so that some runs happen
            dom = th.domain(name)
            if dom.upper is not None:
                value = repr(data.draw(st.floats(min_value=1e-9, max_value=1 - 1e-9), label=name))
            elif dom.integer:
                value = str(data.draw(st.integers(min_value=1, max_value=10**12), label=name))
            else:
                value = repr(data.draw(st.floats(min_value=0.0, max_value=1e12), label=name))
        else:
            value = data.draw(NUMBERS, label=name)
        argv += ["--set", f"{name}={value}"]
    rc = main(argv)
    out, err = capsys.readouterr()
    _check_outcome(rc, out, err)
    if rc == 0:
        res = json.loads(out)
        assert math.isfinite(res["value"]) and res["value"] >= 0, res
        assert all(math.isfinite(v) for v in res["terms"].values()), res
        assert all(math.isfinite(v) for v in res["schedules"].values()), res


# verify configs: valid values are tiny (so that a run takes a second); every key may instead get a wrong type or
# an out-of-range value
def _key(valid, invalid):
    """Mostly valid (so that a fair share of configs run), sometimes a wrong type or value."""
    return st.sampled_from([True] * 5 + [False]).flatmap(lambda ok: valid if ok else invalid)


_WRONG = st.one_of(st.booleans(), st.text(alphabet="ab01 -.", max_size=3), st.floats(allow_nan=False),
                   st.integers(-3, 3),
                   st.lists(st.integers(), max_size=2))
CONFIG = st.fixed_dictionaries({  # runs and horizon always given: the defaults would take minutes
    "theorem": _key(st.sampled_from(["gp_ucb", "igp_ucb"]), _WRONG),
    "runs": _key(st.integers(1, 3), _WRONG),
    "horizon": _key(st.integers(1, 4), _WRONG),
}, optional={
    "scenario": _key(st.sampled_from(["gp_sample_se", "rkhs_paper", "pe_toy"]), _WRONG),
    "delta": _key(st.floats(0.01, 0.5), _WRONG),
    "seed": _key(st.integers(0, 2**63 - 1), _WRONG),
    "jobs": _key(st.just(1), _WRONG),
    "backend": _key(st.sampled_from(["loky", "threading"]), _WRONG),
    "beta_scale": _key(st.floats(0.1, 3.0), _WRONG),
    "max_memory": _key(st.sampled_from(["8G", "1K"]), _WRONG),
})


def _toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, float):
        return repr(v) if math.isfinite(v) else ("nan" if v != v else ("inf" if v > 0 else "-inf"))
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    return str(v)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(config=CONFIG)
def test_verify_config_runs_or_exits_2(config, tmp_path_factory, capsys):
    tmp = tmp_path_factory.mktemp("cfg")
    text = "\n".join(f"{k} = {_toml_value(v)}" for k, v in config.items())
    text += f'\nno_report = true\nout = {json.dumps(str(tmp / "out"))}\n'
    tomllib.loads(text)  # the generator writes valid TOML; the values are what is under test
    (tmp / "c.toml").write_text(text)
    rc = main(["verify", "--config", str(tmp / "c.toml"), "--json"])
    out, err = capsys.readouterr()
    message = re.sub(r"/\S+", "PATH", err)[19:70]
    event(f"exit {rc}: {message}")
    assert "Traceback" not in err
    assert rc in (0, 1, 2, 3), (rc, err)  # ran (verdict 0/1), bad input (2), not applicable (3)
    if rc in (2, 3):  # one line: "boundcheck: error: …" (2) or "boundcheck: not applicable: …" (3)
        prefix = "boundcheck: error: " if rc == 2 else "boundcheck: not applicable: "
        assert err.startswith(prefix) and err.count("\n") == 1, err
        assert not (tmp / "out").exists()
    else:
        s = json.loads(out)
        assert math.isfinite(s["bound"]["at_horizon"]) and s["bound"]["at_horizon"] >= 0
