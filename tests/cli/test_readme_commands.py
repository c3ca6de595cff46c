"""The README's commands, run as written, top to bottom, as a new user runs them in a fresh clone.

Every line of the README's ```bash blocks runs in one temporary folder holding a copy of ``examples/`` (the
files the commands name), in the README's order, through the real ``boundcheck`` executable with this tree on
``PYTHONPATH``; the folder keeps what each command wrote (``reports/``), so a command that collides with an
earlier one's default output folder fails here as it fails for the user. Each command must exit as its
trailing ``# … exit N`` comment promises (0 without one) and say what the README says it does.

Not run, and why (``tests/cli/test_readme.py`` checks that each exists and parses): ``make …`` and
``pip install …`` (a fresh virtual environment), the dask lines (a cluster), ``reproduce`` (minutes of work).
A command about the example plugin paper runs where the plugin is installed (``make test``); elsewhere it is
skipped unless ``BOUNDCHECK_REQUIRE_PLUGIN`` is set.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
TIMEOUT = 180  # seconds per command; the slowest as written takes ~15 s on two shared cores
PLUGIN_THEOREMS = ("toy_ucb", "toy_ucb_overstated")


def readme_commands() -> list[tuple[str, int]]:
    """(command, promised exit code) for every command line of the README's ```bash blocks, in order."""
    out = []
    for m in re.finditer(r"^ *```bash\n(.*?)^ *```", README.read_text(), re.S | re.M):  # in a list item too
        for line in m.group(1).splitlines():
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            cmd, _, comment = line.partition(" #")
            promised = re.search(r"\bexit (\d+)\b", comment)
            out.append((cmd.strip(), int(promised.group(1)) if promised else 0))
    return out


def not_run(argv: list[str]) -> str | None:
    """Why a README command is not run here (None: it is)."""
    if argv[0] == "make" or argv[:2] == ["pip", "install"]:
        return "needs a fresh virtual environment"
    if argv[0] == "dask" or "--scheduler" in argv:
        return "needs a dask cluster"
    if argv[:2] == ["boundcheck", "reproduce"]:
        return "minutes of work"
    return None


def _plugin_installed() -> bool:
    from importlib import metadata

    return any(ep.name == "toy_paper" for ep in metadata.entry_points(group="boundcheck.papers"))


def _executable() -> list[str]:
    """The installed ``boundcheck`` console script beside this interpreter (what the README's user runs)."""
    exe = Path(sys.executable).parent / "boundcheck"
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "boundcheck"]


def test_the_readme_names_its_commands_with_the_exit_codes_they_promise():
    cmds = dict(readme_commands())
    pair = [c for c in cmds if "--algorithm examples/gp_ucb" in c and "--scenario" not in c]
    assert [cmds[c] for c in pair] == [0, 1], pair  # the user-algorithm pair: the correct copy holds, the broken fails


def test_readme_commands_run_as_written_top_to_bottom(tmp_path):
    home = tmp_path / "clone"
    home.mkdir()
    shutil.copytree(ROOT / "examples", home / "examples", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    env["MPLBACKEND"] = "Agg"
    env.pop("COLUMNS", None)
    failures, ran = [], []
    for cmd, promised in readme_commands():
        argv = shlex.split(cmd)
        if not_run(argv):
            continue
        if any(a in PLUGIN_THEOREMS for a in argv) and not _plugin_installed():
            if os.environ.get("BOUNDCHECK_REQUIRE_PLUGIN"):
                failures.append(f"{cmd}: the example plugin paper is not installed")
            continue
        if argv[0] == "boundcheck":
            run = [*_executable(), *argv[1:]]
        elif argv[0] == "pytest":
            run = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *argv[1:]]
        else:
            failures.append(f"{cmd}: a command this test does not know")
            continue
        t0 = time.monotonic()
        proc = subprocess.run(run, cwd=home, env=env, capture_output=True, text=True, timeout=TIMEOUT)
        took = time.monotonic() - t0
        ran.append(f"{took:5.1f} s  exit {proc.returncode}  {cmd}")
        if proc.returncode != promised:
            failures.append(f"{cmd} → exit {proc.returncode}, the README promises {promised}:\n"
                            f"{proc.stderr[-1500:]}{proc.stdout[-500:]}")
            continue
        if argv[:2] == ["boundcheck", "verify"]:
            want = "violated" if promised == 1 else "holds"
            if f"theorem verdict: {want}" not in proc.stdout:
                failures.append(f"{cmd}: no 'theorem verdict: {want}' in its output:\n{proc.stdout[-1500:]}")
            report = re.search(r"^report: (\S+)", proc.stdout, re.M)
            if report is None or not (home / report.group(1)).is_file():
                failures.append(f"{cmd}: no report written where it says:\n{proc.stdout[-500:]}")
    print("\n".join(ran))
    assert not failures, "\n\n".join(failures)
    # the two user-algorithm lines: each in its own folder, as the README says
    for name in ("MyGPUCB", "NarrowGPUCB"):
        assert (home / "reports" / "gp_ucb" / name / "index.html").is_file(), name
    # `report --index` (no folder: reports/) found the studies the commands above it wrote
    studies = (home / "reports" / "studies.html").read_text()
    assert "pe_gp_ucb" in studies and "gp_ucb" in studies
