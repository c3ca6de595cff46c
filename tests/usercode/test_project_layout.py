"""A policy file in a folder that also holds its virtual environment.

``project/policy.py`` beside ``project/.venv``: what the file imports from the environment's site-packages is an
installed package, imported by name in the worker processes, never the user's own code shipped by value (torch
made 734 such modules and cloudpickle failed), and its exit handlers are the library's, not the user's (the
bogus warning about a pybind11 exit handler). A policy that cannot be pickled is one line naming the object, in
the verifying process (exit 2), not a worker that "ended unexpectedly". The fake package ``fakepkg`` stands in
for torch: module-level state that cannot be pickled (a lock), an exit handler, many submodules."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SITE = Path(".venv") / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"

FAKEPKG = """
import atexit, threading
from . import {subs}
from .policies import InstalledUCB

_LOCK = threading.Lock()  # module state no pickler can copy (torch's is a C extension's)


class Thing:
    def __init__(self):
        self.lock = _LOCK

    def scale(self):
        with _LOCK:
            return 1.0


@atexit.register
def _goodbye():
    pass
"""

# the policy class of an installed package: named by a user's file (`from fakepkg import InstalledUCB`)
INSTALLED_POLICY = """
import threading
import numpy as np

_GUARD = threading.Lock()


class InstalledUCB:
    def __init__(self, ctx):
        self.K, self.m0, self.lam, self.beta = ctx.kernel, ctx.mean, ctx.noise_var, ctx.beta
        self.X, self.y = [], []

    def ask(self, t, available):
        with _GUARD:
            if not self.X:
                mu, sd = self.m0.copy(), np.sqrt(np.diag(self.K))
            else:
                X = np.array(self.X)
                A = self.K[np.ix_(X, X)] + self.lam * np.eye(len(X))
                Kx = self.K[:, X]
                mu = self.m0 + Kx @ np.linalg.solve(A, np.array(self.y) - self.m0[X])
                var = np.diag(self.K) - np.einsum("ij,ji->i", Kx, np.linalg.solve(A, Kx.T))
                sd = np.sqrt(np.maximum(var, 0.0))
            return int(np.argmax(np.where(available, mu + self.beta[t] * sd, -np.inf)))

    def tell(self, x, y):
        self.X.append(x)
        self.y.append(y)
"""

POLICY = """
import fakepkg
from fakepkg import InstalledUCB
from helpers import width  # the user's own sibling module: it travels by value
{gp_ucb}

class P(MyGPUCB):
    def __init__(self, ctx):
        super().__init__(ctx)
        self.thing = fakepkg.Thing()  # built in the worker: the library is imported there by name
        self.beta = self.beta * width() * self.thing.scale()
"""


def _project(tmp_path: Path, submodules: int = 40) -> tuple[Path, Path]:
    """``tmp_path/project`` with ``.venv/lib/pythonX.Y/site-packages/fakepkg`` and ``policy.py`` (MyGPUCB of
    examples/gp_ucb.py, which imports fakepkg and a sibling ``helpers.py``); the project folder and the
    site-packages folder."""
    project = tmp_path / "project"
    site = project / SITE
    pkg = site / "fakepkg"
    pkg.mkdir(parents=True)
    subs = [f"sub{i}" for i in range(submodules)]
    (pkg / "__init__.py").write_text(textwrap.dedent(FAKEPKG).format(subs=", ".join(subs)))
    (pkg / "policies.py").write_text(textwrap.dedent(INSTALLED_POLICY))
    for i, name in enumerate(subs):  # a chain of imports: each submodule imports the next
        nxt = f"from . import sub{i + 1}\n" if i + 1 < submodules else ""
        (pkg / f"{name}.py").write_text(f"{nxt}import threading\nLOCK = threading.Lock()\n")
    (project / ".venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    gp_ucb = (ROOT / "examples" / "gp_ucb.py").read_text()
    (project / "policy.py").write_text(textwrap.dedent(POLICY).format(gp_ucb=gp_ucb))
    (project / "helpers.py").write_text("def width():\n    return 1.0\n")
    return project, site


def _verify(project: Path, site: Path, algorithm: str, *extra: str) -> subprocess.CompletedProcess:
    """``boundcheck verify`` run from the project folder, with the environment's site-packages on sys.path as an
    activated virtual environment has it (PYTHONPATH stands in for the environment's interpreter)."""
    code = "import sys; from boundcheck.cli import main; sys.exit(main(sys.argv[1:]))"
    args = ["verify", "--theorem", "gp_ucb", "--algorithm", algorithm, "--runs", "4", "--horizon", "5",
            "--jobs", "2", "--no-report", "--out", str(project / "out"), *extra]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(site), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=240,
                          env=env, cwd=project)


def test_a_policy_beside_its_virtual_environment_runs(tmp_path):
    """Nothing of fakepkg is pickled by value (its lock would fail, as torch failed), its exit handler is no
    warning, and the user's own sibling still travels with the file."""
    project, site = _project(tmp_path)
    res = _verify(project, site, "policy.py:P")
    assert res.returncode == 0, (res.returncode, res.stderr[-3000:])
    assert "warning" not in res.stderr and "_goodbye" not in res.stderr, res.stderr[-3000:]


def test_an_installed_packages_policy_class_is_not_shipped_by_value(tmp_path):
    """A class the file takes from an installed package (its module refers to a lock) is imported by name in the
    workers, not pickled with its module."""
    project, site = _project(tmp_path, submodules=2)
    res = _verify(project, site, "policy.py:InstalledUCB")
    assert res.returncode == 0, (res.returncode, res.stderr[-3000:])


def test_only_the_users_own_modules_are_siblings(tmp_path, monkeypatch):
    """The modules a file newly imports that travel by value with it: its own sibling, not the environment's
    package, nor a package of the folder that is importable by name without it (an editable install, src/)."""

    project, site = _project(tmp_path, submodules=3)
    src = project / "src" / "mylib"
    src.mkdir(parents=True)
    (src / "__init__.py").write_text("VALUE = 2\n")
    (project / "policy.py").write_text((project / "policy.py").read_text() + "\nimport mylib\n")
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.syspath_prepend(str(project / "src"))  # as an editable install's .pth puts it
    monkeypatch.chdir(project)
    for name in [m for m in sys.modules if m.split(".")[0] in ("fakepkg", "helpers", "mylib")]:
        monkeypatch.delitem(sys.modules, name)
    from boundcheck.commands.usercode import _load_object

    cls = _load_object("policy.py:P")
    siblings = sys.modules[cls.__module__].__boundcheck_siblings__
    assert siblings == ["helpers"], siblings


def test_an_unpicklable_policy_is_one_line_naming_the_object(tmp_path):
    """A user's class whose method uses a module-level lock cannot travel: named, in this process, exit 2."""
    project, site = _project(tmp_path, submodules=1)
    (project / "locked.py").write_text(textwrap.dedent("""
        import threading
        from policy import MyGPUCB

        _LOCK = threading.Lock()


        class Locked(MyGPUCB):
            def ask(self, t, available):
                with _LOCK:
                    return super().ask(t, available)
    """))
    res = _verify(project, site, "locked.py:Locked")
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert res.returncode == 2 and len(lines) == 1 and "Traceback" not in res.stderr, res.stderr[-3000:]
    assert "'Locked'" in lines[0] and "in this process" in lines[0] and "_LOCK" in lines[0], lines
    assert "ended unexpectedly" not in lines[0], lines


def test_a_pickling_failure_sending_a_task_is_not_a_dead_worker():
    """Where loky itself fails to pickle a task (no process ended): said as such, with the pickler's error."""
    import pickle

    from boundcheck.study.runner import _death
    from boundcheck.utils.usercode import SandboxConfig

    class _Spec:
        policies = [type("S", (), {"name": "P"})()]

    exc = pickle.PicklingError("Could not pickle the task to send it to the workers.")
    exc.__cause__ = RuntimeError('\n"""\nTraceback ...\nTypeError: cannot pickle \'_thread.lock\' object\n"""')
    msg = str(_death(_Spec(), SandboxConfig(markers=None), exc))
    assert "could not be sent" in msg and "cannot pickle '_thread.lock'" in msg, msg
    assert "ended unexpectedly" not in msg, msg


@pytest.mark.parametrize("where", ["<frozen importlib._bootstrap>", "SITE/ext/__init__.py"])
def test_the_fence_does_not_blame_the_user_for_a_librarys_exit_handler(tmp_path, monkeypatch, where):
    """With the working directory in the user's folder: a handler a C extension registers while imported (the
    nearest Python frame is importlib's, which has no file) and one from the folder's site-packages are kept;
    one from the user's file is dropped."""
    import atexit

    from boundcheck.utils.usercode import import_fence

    kept = []
    real = atexit.register
    monkeypatch.setattr(atexit, "register", lambda f, *a, **k: (kept.append(f), real(f, *a, **k))[1])
    monkeypatch.chdir(tmp_path)

    def library():
        pass

    def users():
        pass

    where = where.replace("SITE", str(tmp_path / SITE))
    with import_fence(tmp_path) as notes:
        for name, f in ((where, library), (str(tmp_path / "policy.py"), users)):
            exec(compile("atexit.register(f)", name, "exec"), {"atexit": atexit, "f": f})
    atexit.unregister(library)
    assert kept == [library] and len(notes) == 1 and "users" in notes[0], (kept, notes)


def test_installed_code_is_told_from_the_users():
    from boundcheck.utils.usercode import installed

    assert installed("/p/.venv/lib/python3.11/site-packages/torch/__init__.py", "/p")
    assert installed("/usr/lib/python3/dist-packages/numpy/core.py", "/p")
    assert installed(os.path.join(sys.prefix, "lib", "x.py"), "/p")
    assert not installed("/p/policy.py", "/p") and not installed("/p/pkg/mod.py", "/p")
    # a user's code that is itself installed: what lies below it is still the user's
    mine = os.path.join(sys.prefix, "lib", "site-packages", "mypkg")
    assert not installed(os.path.join(mine, "policy.py"), mine)
