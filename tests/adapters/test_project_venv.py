"""A user's BoTorch policy file in a project folder beside its own virtual environment runs (exit 0).

``project/policy.py`` (examples/botorch_ucb.py as a user keeps it, importing a package of the project's
environment too) beside ``project/.venv`` (``pyvenv.cfg`` and ``lib/pythonX.Y/site-packages``): a venv-like tree
with a stub package stands in for an environment with torch installed (building one with torch is too slow for
the suite); the command runs from the project folder with the environment's site-packages on sys.path, as an
activated environment has it, and with two jobs, so the policy travels to worker processes."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

if os.environ.get("BOUNDCHECK_REQUIRE_PLUGIN"):  # make test / CI install the extras: missing, this fails
    import botorch  # noqa: F401
else:  # a bare checkout: skipped
    pytest.importorskip("botorch")

ROOT = Path(__file__).resolve().parents[2]
SITE = Path(".venv") / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"

STUB = """
import threading

_LOCK = threading.Lock()  # module state no pickler can copy, as torch's


def noise_var(ctx):
    with _LOCK:
        return ctx.noise_var
"""


@pytest.mark.parametrize("target", ["botorch_ucb.py:BoTorchUCB", "botorch_ucb_batched.py:BoTorchUCBBatched"])
def test_a_botorch_policy_beside_its_virtual_environment_runs(tmp_path, target):
    name, cls = target.split(":")
    project = tmp_path / "project"
    site = project / SITE
    (site / "projpkg").mkdir(parents=True)
    (site / "projpkg" / "__init__.py").write_text(textwrap.dedent(STUB))
    (project / ".venv" / "pyvenv.cfg").write_text(f"home = {Path(sys.executable).parent}\n"
                                                  "include-system-site-packages = true\n")
    source = (ROOT / "examples" / name).read_text()
    source = source.replace("import torch\n", "import projpkg\nimport torch\n", 1)
    source = source.replace("full_like(train_Y, ctx.noise_var)", "full_like(train_Y, projpkg.noise_var(ctx))")
    assert "projpkg.noise_var" in source
    (project / "policy.py").write_text(source)
    code = "import sys; from boundcheck.cli import main; sys.exit(main(sys.argv[1:]))"
    args = ["verify", "--theorem", "gp_ucb", "--algorithm", f"policy.py:{cls}", "--runs", "4", "--horizon", "6",
            "--jobs", "2", "--no-report", "--out", str(project / "out")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(site), os.environ.get("PYTHONPATH", "")])}
    res = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=300, env=env,
                         cwd=project)
    assert res.returncode == 0, (res.returncode, res.stderr[-3000:])
    assert "conformance" in res.stdout and "internal error" not in res.stderr, res.stderr[-3000:]
