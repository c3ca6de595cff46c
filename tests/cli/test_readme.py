"""The README is an entry page whose every command exists as written.

Each command line of the README's ```bash / ```sh / ```console blocks is checked to exist: a ``boundcheck``
command parses (its subcommand and every option are known), each file it names exists, the Makefile has the
target, a ``pip install -e`` folder is a package. Running them — as written, top to bottom, with the exit code a
trailing ``# ... exit N`` comment promises — is ``tests/test_readme_commands.py``. Every relative link and every
repository path in inline code must exist too, and every ```python block must compile.

A command about the example plugin paper (``examples/plugin_paper``, installed by ``make test``) runs when the
plugin is installed in the test environment; it is skipped elsewhere unless ``BOUNDCHECK_REQUIRE_PLUGIN`` is set
(as ``make test`` sets it), where a missing plugin fails.
"""

from __future__ import annotations

import re
import shlex
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"


def _blocks(text: str, langs: tuple[str, ...]) -> list[str]:
    """The fenced blocks of these languages, a list item's indented ones too (dedented)."""
    return [textwrap.dedent(m.group(2)) for m in re.finditer(r"^ *```(\w*)\n(.*?)^ *```", text, re.S | re.M)
            if m.group(1) in langs]


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


def test_readme_points_to_every_way_in():
    text = README.read_text()
    for needed in ("make verify", "make test", "--algorithm", "boundcheck.testing", "boundcheck.papers",
                   "reproduce", "--backend dask", "docs/"):
        assert needed in text, needed
    assert COMMANDS, "no shell blocks found"


@pytest.mark.parametrize("cmd,promised", COMMANDS, ids=[c for c, _ in COMMANDS])
def test_readme_command(cmd: str, promised: int | None):
    argv = shlex.split(cmd)
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
    if argv[0] == "pytest":  # run, as written, by tests/test_readme_commands.py
        for path in argv[1:]:
            assert (ROOT / path).exists(), path
        return
    assert argv[0] == "boundcheck", f"the README names a command the test does not know: {cmd}"
    for arg in argv[2:]:  # every file the command names exists
        path = arg.split(":", 1)[0] if re.fullmatch(r"[\w./-]+\.py:\w+", arg) else arg
        if re.fullmatch(r"[\w./-]+\.(py|toml|csv)", path):
            assert (ROOT / path).exists(), f"{cmd}: {path} does not exist"
    from boundcheck.cli import build_parser

    try:  # the subcommand and every option exist (running them: tests/test_readme_commands.py)
        build_parser().parse_args(argv[1:])
    except SystemExit as exc:
        pytest.fail(f"{cmd}: boundcheck does not parse it (exit {exc.code})")
    from boundcheck.errors import ExitCode

    assert promised is None or promised in set(ExitCode), f"{cmd}: an exit code boundcheck does not have"


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
