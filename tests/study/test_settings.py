"""One frozen, validated VerifySettings shared by verify, sweep, power, reproduce and run_check."""

import dataclasses
import inspect
import json
import typing
from pathlib import Path

import pytest

from boundcheck import api, testing
from boundcheck.cli import main
from boundcheck.errors import BoundcheckError
from boundcheck.utils.settings import BACKENDS, DEFAULT_FALSE_ALARM, SettingsKeywords, VerifySettings, settings_from


def test_settings_are_frozen_validated_and_canonical(tmp_path):
    s = VerifySettings(runs=3.0, horizon=7, max_memory="1K", out=str(tmp_path / "o"), seed=5)
    assert (s.runs, type(s.runs), s.max_memory, s.out) == (3, int, 1024, tmp_path / "o")
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.runs = 4
    t = s.replace(seed=6)
    assert (t.seed, s.seed, t.runs) == (6, 5, 3)
    with pytest.raises(BoundcheckError, match="seed must be at least 0"):
        s.replace(seed=-1)
    with pytest.raises(TypeError, match="unknown setting"):
        s.replace(runz=3)
    d = s.to_dict()
    assert list(d) == [f.name for f in dataclasses.fields(VerifySettings)]
    assert d["out"] == str(tmp_path / "o") and VerifySettings(**d) == s


@pytest.mark.parametrize("kw, message", [
    ({"runs": 0}, "runs must be at least 1, got 0"),
    ({"runs": 2.5}, "runs must be an integer"),
    ({"horizon": True}, "horizon must be an integer"),
    ({"delta": 1.0}, "delta must lie in \\(0, 1\\)"),
    ({"seed": 2**63}, "seed must be at most"),
    ({"beta_scale": 0}, "beta scale must be a positive number"),
    ({"jobs": 0}, "jobs must be a positive number of workers or -1"),
    ({"backend": "mpi"}, "unknown backend 'mpi'"),
    ({"scheduler": "tcp://x:1"}, "needs --backend dask"),
    ({"max_memory": "lots"}, "--max-memory must be a size"),
    ({"false_alarm": 0}, "false-alarm budget must lie in \\(0, 1\\)"),
    ({"max_runs": 100}, "--max-runs needs --until-conclusive"),
    ({"report": "no"}, "report must be true or false"),
    ({"out": ""}, "--out must name a directory"),
])
def test_bad_settings_are_one_line_errors(kw, message):
    with pytest.raises(BoundcheckError, match=message) as e:
        VerifySettings(**kw)
    assert "\n" not in str(e.value)


def test_keywords_and_fields_are_the_same_list():
    hints = typing.get_type_hints(SettingsKeywords)
    assert list(hints) == [f.name for f in dataclasses.fields(VerifySettings)]


def test_constants_have_one_source():
    from boundcheck.claims.budget import DEFAULT_FALSE_ALARM as budget_default
    from boundcheck.study.runner import BACKENDS as runner_backends

    assert BACKENDS == runner_backends
    assert DEFAULT_FALSE_ALARM == budget_default == api.DEFAULT_FALSE_ALARM


def test_settings_from_builds_overrides_and_refuses_conflicts():
    assert settings_from(None, {"runs": 4}) == VerifySettings(runs=4)
    assert settings_from(None, {}, runs=50, jobs=1) == VerifySettings(runs=50, jobs=1)
    assert settings_from(None, {"runs": 4}, runs=50).runs == 4  # the caller's keyword wins over its default
    s = VerifySettings(runs=4, seed=2)
    assert settings_from(s, {}) is s
    assert settings_from(s, {"runs": 4.0}) is s  # the same value is no conflict
    with pytest.raises(BoundcheckError, match="runs=5 conflicts with the settings given"):
        settings_from(s, {"runs": 5})
    with pytest.raises(TypeError, match="unexpected keyword"):
        settings_from(None, {"rnus": 5})
    with pytest.raises(TypeError, match="must be a VerifySettings"):
        settings_from({"runs": 3}, {})
    with pytest.raises(TypeError, match="does not use the setting\\(s\\) beta_scale"):
        settings_from(None, {"beta_scale": 2.0}, caller="power", unused=("beta_scale",))
    assert settings_from(VerifySettings(beta_scale=2.0), {}, unused=("beta_scale",)).beta_scale == 2.0


def test_power_and_reproduce_refuse_keywords_they_would_ignore():
    with pytest.raises(TypeError, match="power\\(\\) does not use the setting\\(s\\) beta_scale"):
        api.power("gp_ucb", beta_scale=2.0)
    with pytest.raises(TypeError, match="reproduce\\(\\) does not use the setting\\(s\\) horizon"):
        api.reproduce("pe_gp_ucb", horizon=10)


@pytest.mark.parametrize("fn", [api.verify, api.sweep, api.power, api.reproduce, testing.run_check])
def test_every_entry_point_takes_settings_and_its_keywords(fn):
    params = inspect.signature(fn).parameters
    assert "settings" in params and params["settings"].kind is inspect.Parameter.KEYWORD_ONLY
    kwargs = [p for p in params.values() if p.kind is inspect.Parameter.VAR_KEYWORD]
    assert len(kwargs) == 1 and "SettingsKeywords" in str(kwargs[0].annotation)
    # no setting is repeated as a parameter of its own: the list lives on VerifySettings only
    assert not {f.name for f in dataclasses.fields(VerifySettings)} & set(params)


def test_settings_object_and_keywords_give_identical_results():
    kw = dict(runs=6, horizon=8, seed=4, jobs=1, report=False)
    by_keywords = api.verify("gp_ucb", **kw)
    by_settings = api.verify("gp_ucb", settings=VerifySettings(**kw))
    by_check = testing.run_check("gp_ucb", settings=VerifySettings(runs=6, horizon=8, seed=4))
    strip = ("elapsed_s", "compute_s_total", "timing", "report")

    def same(summary):  # JSON: NaN entries (methods that do not apply) compare equal as text
        return json.dumps({k: v for k, v in summary.items() if k not in strip}, sort_keys=True, default=str)

    assert same(by_settings) == same(by_keywords) == same(by_check)
    with pytest.raises(BoundcheckError, match="conflicts"):
        api.verify("gp_ucb", settings=VerifySettings(**kw), runs=7)


def test_cli_config_file_becomes_the_settings(tmp_path, monkeypatch):
    seen = {}

    def fake_verify(theorem, scenario=None, *, settings=None, **kw):
        seen["settings"] = settings
        raise BoundcheckError("stop here")

    monkeypatch.setattr(api, "verify", fake_verify)
    cfg = tmp_path / "c.toml"
    cfg.write_text('[verify]\ntheorem = "gp_ucb"\nruns = 30\nseed = 3\nno_report = true\nfalse_alarm = 0.05\n')
    assert main(["verify", "--config", str(cfg), "--runs", "40", "--jobs", "1"]) == 2
    s = seen["settings"]
    assert isinstance(s, VerifySettings)
    assert (s.runs, s.seed, s.jobs, s.report, s.false_alarm, s.out) == (40, 3, 1, False, 0.05,
                                                                          Path("reports") / "gp_ucb")
