"""A verify's default output folder: one per theorem, checked code and scenario, so that a user following the
README never finds a folder holding another study (which a verify refuses as a different configuration)."""

from __future__ import annotations

from pathlib import Path

import pytest

from boundcheck import api
from boundcheck.cli import main


@pytest.mark.parametrize("scenario, algorithm, folder", [
    (None, None, "reports/gp_ucb"),
    ("gp_sample_se", None, "reports/gp_ucb"),  # the default scenario named
    (None, "examples/gp_ucb.py:MyGPUCB", "reports/gp_ucb/MyGPUCB"),
    (None, ["examples/gp_ucb.py:MyGPUCB"], "reports/gp_ucb/MyGPUCB"),
    (None, ["a.py:A", "pkg.mod:B"], "reports/gp_ucb/A+B"),
    ("examples/my_problem.toml", None, "reports/gp_ucb/on-my_problem"),
    ("examples/my_problem.toml", "examples/gp_ucb.py:MyGPUCB", "reports/gp_ucb/MyGPUCB-on-my_problem"),
    ("gp_sample_matern", "gp_ucb", "reports/gp_ucb/gp_ucb-on-gp_sample_matern"),
    (None, "x.py:results", "reports/gp_ucb/results-algorithm"),  # never a folder a verify writes itself
    (None, "x.py:power", "reports/gp_ucb/power-algorithm"),  # nor power's default folder
])
def test_default_out_is_one_folder_per_checked_code_and_scenario(scenario, algorithm, folder):
    assert api.default_out("gp_ucb", scenario, algorithm) == Path(folder)


def test_default_out_of_a_class_or_an_object_takes_its_name():
    class Mine:
        pass

    class Named:
        name = "named_policy"

    assert api.default_out("gp_ucb", None, Mine) == Path("reports/gp_ucb/Mine")
    assert api.default_out("gp_ucb", None, Named) == Path("reports/gp_ucb/named_policy")
    assert api.default_out("gp_ucb", None, "../x.py:Odd/Na me") == Path("reports/gp_ucb/Odd_Na_me")


def test_the_command_line_passes_the_default_folder_of_the_checked_code(monkeypatch, capsys):
    seen = {}

    def fake_verify(theorem, scenario=None, *, settings=None, **kw):
        seen["out"] = settings.out
        raise api.BoundcheckError("stop here")

    monkeypatch.setattr(api, "verify", fake_verify)
    assert main(["verify", "--theorem", "gp_ucb", "--algorithm", "examples/gp_ucb_broken.py:NarrowGPUCB"]) == 2
    assert seen["out"] == Path("reports/gp_ucb/NarrowGPUCB")
    assert main(["verify", "--theorem", "gp_ucb", "--out", "elsewhere", "--algorithm", "a.py:A"]) == 2
    assert seen["out"] == Path("elsewhere")  # --out wins
    capsys.readouterr()
