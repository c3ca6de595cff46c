"""The README is an entry page whose every command runs as written (issue 23).

Each command line of the README's ```bash / ```sh / ```console blocks is either run at small settings (a
``verify`` or ``sweep`` gets ``--runs 10 --horizon 20`` and a temporary ``--out``; the exit code a trailing
``# ... exit N`` comment promises is checked) or, where running it is too slow or needs a machine the tests do
not have (``reproduce``, a dask scheduler, ``make``), checked to exist: the ``boundcheck`` subcommand answers
``--help`` with exit 0, each file it names exists, the Makefile has the target. Every relative link and every
repository path in inline code must exist too, and every ```python block must compile.

A command about the example plugin paper (``examples/plugin_paper``, installed by ``make test``) runs when the
plugin is installed in the test environment; it is skipped elsewhere unless ``BOUNDCHECK_REQUIRE_PLUGIN`` is set
(as ``make test`` sets it), where a missing plugin fails.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
SMALL = {"--runs": "10", "--horizon": "20"}
TIMEOUT = 120  # seconds per command: a small verify takes ~2 s, the slowest (the example's pytest) ~5 s
#: the example plugin paper's theorems (a README command about one needs the plugin installed)
PLUGIN_THEOREMS = ("toy_ucb", "toy_ucb_overstated")


def _blocks(text: str, langs: tuple[str, ...]) -> list[str]:
    return [m.group(2) for m in re.finditer(r"^```(\w*)\n(.*?)^```", text, re.S | re.M) if m.group(1) in langs]


def _command_lines() -> list[tuple[str, int | None]]:
    """(command, promised exit code or None) for every command line of the README's shell blocks."""
    out = []
    for block in _blocks(README.read_text(), ("bash", "sh", "console")):
        for line in block.splitlines():
            line = line.strip()
            if line.startswith("$ "):
                line = line[2:]
            if not line or line.startswith("#"):
                continue
            cmd, _, comment = line.partition(" #")
            promised = re.search(r"\bexit (\d)\b", comment)
            out.append((cmd.strip(), int(promised.group(1)) if promised else None))
    return out


COMMANDS = _command_lines()


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    env.setdefault("MPLBACKEND", "Agg")
    return env


def _run(argv: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(argv, cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=TIMEOUT)


def _skip_without_the_plugin(argv: list[str]) -> None:
    """A command about the example plugin's theorems needs the plugin installed (``make test`` installs it)."""
    from importlib import metadata

    if not any(a in PLUGIN_THEOREMS for a in argv):
        return
    if any(ep.name == "toy_paper" for ep in metadata.entry_points(group="boundcheck.papers")):
        return
    if os.environ.get("BOUNDCHECK_REQUIRE_PLUGIN"):
        pytest.fail("the example plugin paper is not installed (pip install -e examples/plugin_paper)")
    pytest.skip("the example plugin paper is not installed here (make test installs it)")


def _with_small_settings(argv: list[str], out: Path) -> list[str]:
    """argv with --runs/--horizon replaced by small values and a temporary --out (no report for a verify)."""
    argv = list(argv)
    for opt, value in SMALL.items():
        if opt in argv:
            argv[argv.index(opt) + 1] = value
        else:
            argv += [opt, value]
    if "--jobs" in argv:  # the tests run on two shared cores: one process each
        argv[argv.index("--jobs") + 1] = "1"
    if "--out" not in argv:
        argv += ["--out", str(out)]
    if argv[1] == "verify" and "--no-report" not in argv:
        argv.append("--no-report")
    return argv


def test_readme_is_an_entry_page():
    text = README.read_text()
    assert len(text.splitlines()) <= 200
    for needed in ("make verify", "make test", "--algorithm", "boundcheck.testing", "boundcheck.papers",
                   "reproduce", "--backend dask", "docs/"):
        assert needed in text, needed
    assert COMMANDS, "no shell blocks found"


@pytest.mark.parametrize("cmd,promised", COMMANDS, ids=[c for c, _ in COMMANDS])
def test_readme_command(cmd: str, promised: int | None, tmp_path: Path):
    argv = shlex.split(cmd)
    _skip_without_the_plugin(argv)
    if argv[0] == "make":
        makefile = (ROOT / "Makefile").read_text()
        for target in argv[1:]:
            assert re.search(rf"^{re.escape(target)}:", makefile, re.M), f"Makefile has no target {target}"
        return
    if argv[0] == "dask":  # an external program on the cluster's machines; boundcheck ships the extra for it
        assert "dask" in (ROOT / "pyproject.toml").read_text()
        return
    if argv[:3] == ["pip", "install", "-e"]:  # installing into the test environment is not the test's business
        assert (ROOT / argv[3] / "pyproject.toml").exists(), f"{argv[3]} is not an installable package"
        return
    if argv[0] == "pytest":
        for path in argv[1:]:
            assert (ROOT / path).exists(), path
        proc = _run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *argv[1:]])
        assert proc.returncode == (promised or 0), proc.stdout[-2000:] + proc.stderr[-2000:]
        return
    assert argv[0] == "boundcheck", f"the README names a command the test does not know: {cmd}"
    sub = argv[1]
    for arg in argv[2:]:  # every file the command names exists
        path = arg.split(":", 1)[0] if re.fullmatch(r"[\w./-]+\.py:\w+", arg) else arg
        if re.fullmatch(r"[\w./-]+\.(py|toml|csv)", path):
            assert (ROOT / path).exists(), f"{cmd}: {path} does not exist"
    if sub == "reproduce" or "--scheduler" in argv:  # minutes of work / a cluster: the subcommand exists
        help_proc = _run([sys.executable, "-m", "boundcheck", sub, "--help"])
        assert help_proc.returncode == 0, f"boundcheck {sub} --help: {help_proc.stderr}"
        return
    if sub in ("verify", "sweep"):
        argv = _with_small_settings(argv, tmp_path / "out")
    proc = _run([sys.executable, "-m", "boundcheck", *argv[1:]])
    want = promised if promised is not None else 0
    assert proc.returncode == want, f"{shlex.join(argv)} → exit {proc.returncode}, want {want}\n{proc.stderr[-2000:]}"


def _inline_paths(text: str) -> set[str]:
    links = {m.group(1) for m in re.finditer(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text) if "://" not in m.group(1)}
    code = {m.group(1).split(":", 1)[0] for m in re.finditer(r"`([\w.-]+/[\w./-]*)`", text)}
    roots = ("examples/", "docs/", "boundcheck/", "theory/", "benchmarks/", "tests/", ".ci/")
    return links | {c for c in code if c.startswith(roots) and "<" not in c}


def test_readme_paths_exist():
    text = README.read_text()
    missing = []
    for path in sorted(_inline_paths(text)):
        if not (ROOT / path).exists():
            missing.append(path)
    assert not missing, f"the README names paths that do not exist: {missing}"


def test_docs_links_resolve():
    """Every relative link in docs/ points at a file or folder of the repository."""
    missing = []
    for page in sorted((ROOT / "docs").rglob("*.md")):
        for m in re.finditer(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text()):
            target = m.group(1)
            if "://" in target or target.startswith("mailto:"):
                continue
            if not (page.parent / target).exists():
                missing.append(f"{page.relative_to(ROOT)}: {target}")
    assert not missing, missing


def test_readme_python_blocks_compile():
    for k, block in enumerate(_blocks(README.read_text(), ("python",))):
        compile(block, f"README.md python block {k}", "exec")


def test_make_bench_rewrites_docs_performance(tmp_path: Path):
    """``make bench`` rewrites only the measured part of docs/performance.md (between its markers)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import run_all
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    page = ROOT / "docs" / "performance.md"
    text = page.read_text()
    assert run_all.START in text and run_all.END in text
    assert run_all.START not in README.read_text()
    copy = tmp_path / "performance.md"
    copy.write_text(text)
    run_all._write(str(copy), "NEW MEASUREMENTS")
    new = copy.read_text()
    head, rest = text.split(run_all.START, 1)
    tail = rest.split(run_all.END, 1)[1]
    assert new == f"{head}{run_all.START}\nNEW MEASUREMENTS\n{run_all.END}{tail}"
    # the default target of ``make bench`` (argparse default of --doc) is that page
    assert 'default=str(HERE.parent / "docs" / "performance.md")' in Path(run_all.__file__).read_text()
