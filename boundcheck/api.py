"""The one entry point: resolve names, files and classes to objects once, build a study, run it, report it.

``cli.py`` and ``testing.py`` are thin layers over this module (the CLI imports nothing else of boundcheck but
the errors). Everything resolved here crosses process boundaries as objects (the theorem, its family, the
scenario, the policies), never as names looked up again in a worker.

*What* a command checks (theorem, scenario, algorithms, defects) are its arguments; *how* it runs is one
:class:`VerifySettings` (``settings=``), or its fields as keywords, turned into one by
:func:`~boundcheck.utils.settings.settings_from`.

Importing this module is cheap (``boundcheck list`` and ``--help`` do): each function imports the engine's
modules it needs when it is called.

>>> from boundcheck import api
>>> summary = api.verify("gp_ucb", runs=20, horizon=30, seed=1, report=False)  # doctest: +SKIP
>>> quick = api.VerifySettings(runs=20, horizon=30, seed=1, report=False)
>>> summary = api.verify("gp_ucb", settings=quick)  # doctest: +SKIP
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.util
import json
import os
import signal
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from . import __version__
from .errors import BoundcheckError
from .utils import usercode
from .utils.settings import DEFAULT_FALSE_ALARM, DEFAULT_MAX_RUNS, SettingsKeywords, VerifySettings, settings_from

if TYPE_CHECKING:  # the engine's modules are imported by the functions that use them (see the module docstring)
    from typing import Unpack

    from theory import Theorem

    from .claims.defects import Defect
    from .policies import PolicySpec
    from .study.runner import RunOptions
    from .study.spec import StudySpec
    from .study.sweep import Axis
    from .world.scenario import Scenario

__all__ = ["resolve_theorem", "resolve_scenario", "resolve_policy", "resolve_defects", "build_study", "verify",
           "power", "applicability", "write_report", "sweep", "reproduce", "VerifySettings", "DEFAULT_RUNS",
           "DEFAULT_MAX_RUNS", "DEFAULT_FALSE_ALARM", "REPRODUCE_FALSE_ALARM", "list_theorems", "theorem_scenarios",
           "show_theorem", "evaluate_bound", "gamma", "gamma_rate", "scenario_list", "scenario_info",
           "rebuild_report", "describe_detectable", "replication_headline", "effect_text",
           "printed_table", "resolution_text", "reproduce_all", "QUICK_RUNS", "QUICK_MAX_HORIZON", "prewarm",
           "stop_workers", "store_check", "store_repair", "read_toml", "check_environment",
           "reproducible_papers", "default_out", "theorem_reference", "command_started"]

DEFAULT_RUNS = 200
MAX_SWEEP_CELLS = 10_000  # a sweep runs its cells one after another: more is a mistake (issue 25: 1000 × 1000)
REPRODUCE_FALSE_ALARM = 0.05

PolicyLike = "str | PolicySpec | type | Callable"  # a string: PolicySpec is imported only when a study is built


# ------------------------------------------------------------------------------------------------ input files
def read_toml(name: str, path: str | Path, where: str | None = None) -> dict:
    """An input TOML file (a config), parsed, or a one-line :class:`BoundcheckError`: missing, a directory or a
    special file, too large, not UTF-8, malformed or nested too deeply
    (:func:`boundcheck.utils.validation.read_toml`)."""
    from .utils.validation import read_toml as _read

    return _read(name, path, where=where)


def check_environment() -> None:
    """Refuse unknown values of boundcheck's environment variables (``BOUNDCHECK_POSTERIOR_ARITHMETIC``,
    ``BOUNDCHECK_POSTERIOR_REPRESENTATION``, ``BOUNDCHECK_START_METHOD``) before anything starts: making the
    switches checks them (:class:`boundcheck.utils.switches.EnvSwitch`)."""
    from .model import dataspace, posterior  # noqa: F401 - imported for the check their switches make
    from .runtime import forking

    forking.start_method()


# ------------------------------------------------------------------------------------------------ workers
# the one place the api reaches the worker pool (boundcheck.runtime)
def prewarm(jobs: int = -1, backend: str = "loky") -> None:
    """Start the worker processes and let them import the engine while this process sets the study up."""
    from . import runtime, study  # noqa: F401 - importing the study package registers the engine's warm-up

    runtime.prewarm(jobs, backend)


def _capped_jobs(options: RunOptions, spec: StudySpec) -> tuple[RunOptions, str | None]:
    """``options`` with at most as many workers as the machine has cores and the study has chunks (more would only
    start idle processes: ``--jobs 100000`` started hundreds), and the note to print when the cores capped an
    explicit ``--jobs``. A dask scheduler's workers are on other machines: left as they are. Results do not depend
    on the number of workers."""
    if options.backend == "dask" and options.scheduler:
        return options, None
    cores = os.cpu_count() or 1
    chunks = max(1, -(-spec.runs // spec.chunk_size))
    asked = cores if options.jobs == -1 else options.jobs
    jobs = min(asked, cores, chunks)
    note = (f"--jobs {options.jobs} is more than this machine's {cores} cores: running {jobs} worker(s)"
            if options.jobs > cores else None)
    return (options if jobs == options.jobs or (options.jobs == -1 and jobs == cores)
            else replace(options, jobs=jobs)), note


def stop_workers() -> None:
    """Shut the worker processes down (the command is about to exit); never starts a pool. In the command line's
    own process (:func:`command_started`), every process a user's code started and left running is ended too."""
    from . import runtime

    runtime.shutdown()
    usercode.end_processes()


def command_started() -> None:
    """The command line's own process starts its command (not a caller of :func:`boundcheck.cli.main` in its own
    process): its standard output must be open (a closed one is one line, exit 2); it becomes the command's own
    (:func:`~boundcheck.utils.usercode.take_stdout`: a user's threads cannot write into it, what it cannot encode
    is replaced)."""
    if sys.stdout is None:  # started with file descriptor 1 closed (`>&-`)
        raise BoundcheckError("the standard output is closed: boundcheck writes its results there (give it a "
                              "file, a pipe or /dev/null)")
    usercode.take_stdout()


def resolve_theorem(theorem: str | Theorem) -> Theorem:
    """A theorem id, a :class:`theory.Theorem`, or a theorem of your own: ``FILE.py:NAME`` or
    ``package.module:NAME`` naming a Theorem that declares the theorem it is checked like (``family="gp_ucb"``;
    docs/extending.md). A theorem from a file is registered under its id for the rest of the process (the reports
    read it back by id); its id must not be a built-in theorem's."""
    if isinstance(theorem, str) and ":" in theorem:
        return _theorem_from_file(theorem)
    if isinstance(theorem, str) and theorem.endswith(".py"):
        raise BoundcheckError(f"{theorem}: name the theorem in the file too, FILE.py:NAME")
    import theory

    try:
        return theory.get(theorem)
    except theory.UnknownTheorem as exc:
        raise BoundcheckError(exc.args[0]) from None


_USER_THEOREMS: dict[str, str] = {}  # id -> the reference it was loaded from (a file may be loaded again)


def _theorem_from_file(ref: str) -> Theorem:
    import theory
    from theory import Theorem

    from .claims.families import family_for

    th = _load_object(ref, "theorem")
    if not isinstance(th, Theorem):
        raise BoundcheckError(f"{ref} is a {type(th).__name__}, not a theory.Theorem")
    if type(th) is not Theorem:  # a subclass defined in the file would not be importable in a worker process
        raise BoundcheckError(f"{ref} is a {type(th).__name__}: build a theory.Theorem itself, not a subclass")
    builtin = theory.loaded(th.id) is not None or theory.plugins.paper_of_theorem(th.id) is not None
    if builtin and theory.get(th.id) is th:  # an installed paper's theorem named by its module (pkg.mod:NAME)
        return th
    if not th.family:
        raise BoundcheckError(f"theorem {th.id!r} ({ref}) does not say which family checks it: add "
                              "family=\"<theorem id>\" (e.g. \"gp_ucb\"; see `boundcheck list`)")
    target, _, attr = ref.rpartition(":")
    where = f"{Path(target).resolve()}:{attr}" if target.endswith(".py") else ref  # one file, however it is named
    owner = _USER_THEOREMS.get(th.id)
    if owner is not None and owner != where:
        raise BoundcheckError(f"theorem id {th.id!r} ({ref}) is taken by {owner} in this process")
    # the papers' manifests declare their theorem ids: no theory module is imported to find a clash
    if owner is None and builtin:
        raise BoundcheckError(f"theorem id {th.id!r} ({ref}) is a built-in theorem's: give yours another id")
    family_for(th)  # one line now, not in the middle of a study, if the family cannot check it
    _USER_THEOREMS[th.id] = where
    return theory.register(th, replace=True)  # the same file loaded again (an edited bound) replaces it


def resolve_scenario(scenario: str | Path | Scenario | None, theorem: Theorem, horizon: int | None = None,
                     delta: float | None = None) -> Scenario:
    """A scenario object, a built-in name or a scenario file (``FILE.toml``; default: the theorem's default
    scenario), at ``horizon``/``delta``."""
    from .world.catalogue import get_scenario
    from .world.scenario import Scenario
    from .world.scenario_files import load_scenario

    if scenario is None:
        scenario = theorem.default_scenario
    if isinstance(scenario, Scenario):
        return scenario.at(horizon, delta)
    if isinstance(scenario, Path) or (isinstance(scenario, str) and _is_scenario_file(scenario)):
        return load_scenario(scenario).at(horizon, delta)
    if isinstance(scenario, str):
        return get_scenario(scenario, horizon, delta)
    raise BoundcheckError(f"cannot use {scenario!r} as a scenario: give a name, a scenario file or a Scenario")


def _is_scenario_file(ref: str) -> bool:
    """A scenario reference that names a file (``.toml``, or a path that exists) rather than a built-in."""
    return ref.endswith(".toml") or "/" in ref or "\\" in ref or Path(ref).is_file()


_IMPORT_PROBE = """
import importlib, importlib.util, json, os, sys
kind, target, factory = sys.argv[1], sys.argv[2], sys.argv[5]
sys.path[:] = json.loads(sys.argv[3])  # the verifying process's, so that the same module is found
try:
    if kind == "file":
        sys.path.insert(0, os.path.dirname(os.path.abspath(target)))
        spec = importlib.util.spec_from_file_location("boundcheck_import_probe", target)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    else:
        module = importlib.import_module(target)
    obj = getattr(module, factory, None) if factory else None
    if callable(obj) and not isinstance(obj, type):  # a policy factory: the verifying process will call it
        obj()
except BaseException:
    pass
open(sys.argv[4], "w").close()  # the import (and the factory's call) returned
os._exit(0)  # at once: a non-daemon thread the file started must not hold this process up until the timeout
"""
IMPORT_PROBE_TIMEOUT = 60.0  # seconds a user file may take to import in the throwaway process (and here)
IMPORT_NOTICE_AFTER = 2.0  # seconds of an import probe after which the command says what it waits for


def _import_in_child(kind: str, target: str, label: str, factory: str = "") -> None:
    """Import a user's file (``kind`` "file") or module ("module") first in a throwaway Python process, and call
    its attribute ``factory`` there when that is a policy factory (a callable, not a class: this process calls it
    to read the policy it makes): code that ends its process while being imported or called (``os._exit``, a crash,
    a signal) or never finishes is then one line naming ``label`` instead of the end of this one (whose exit status
    it would set). An ordinary exception (or SystemExit) is left to the real import or call, which words it.

    An import that takes more than :data:`IMPORT_NOTICE_AFTER` seconds says so on stderr, with its time limit.
    The probe runs in a session (and process group) of its own, ended with everything in it when the probe ends,
    however it ends (a process the file starts at import does not outlive it; nor does the probe outlive an
    interrupt of the command)."""
    import json
    import subprocess

    # no pipes: a process the file starts at import inherits the probe's descriptors, and one that lives on would
    # hold a pipe open (the probe was waited for until it ended); the probe says it returned with a file
    quiet = subprocess.DEVNULL
    with tempfile.TemporaryDirectory(prefix="boundcheck-probe-") as folder:
        returned = os.path.join(folder, "returned")
        proc = subprocess.Popen([sys.executable, "-c", _IMPORT_PROBE, kind, target, json.dumps(sys.path), returned,
                                 factory], stdin=quiet, stdout=quiet, stderr=quiet, cwd=os.getcwd(),
                                start_new_session=True)
        try:
            ended = _wait_unreaped(proc, IMPORT_NOTICE_AFTER)
            if not ended:
                print(f"boundcheck: importing {label} (limit {IMPORT_PROBE_TIMEOUT:g} s)…", file=sys.stderr,
                      flush=True)
                ended = _wait_unreaped(proc, IMPORT_PROBE_TIMEOUT - IMPORT_NOTICE_AFTER)
        finally:  # the probe's group: what the file started, and the probe itself when it did not end
            with contextlib.suppress(OSError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        if not ended:
            raise BoundcheckError(f"{label} did not finish importing within {IMPORT_PROBE_TIMEOUT:g} s")
        if not os.path.exists(returned):
            raise BoundcheckError(f"{label} ended the process importing it (exit code {proc.returncode}: "
                                  "os._exit, a crash or a signal at import"
                                  + (f", or in {factory}(), the policy factory it names)" if factory else ")"))


def _wait_unreaped(proc, timeout: float) -> bool:
    """Wait at most ``timeout`` seconds for the process ``proc`` to end, without reaping it where the platform
    allows (``os.waitid``): its pid, its process group's id, stays taken until :meth:`~subprocess.Popen.wait`, so
    the group can still be killed safely. Whether it ended."""
    import subprocess
    import time

    if not hasattr(os, "waitid"):
        try:
            proc.wait(timeout=timeout)
            return True
        except subprocess.TimeoutExpired:
            return False
    deadline = time.monotonic() + timeout
    pause = 0.001
    while True:
        try:
            if os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT | os.WNOHANG) is not None:
                return True
        except ChildProcessError:  # reaped already
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(pause)
        pause = min(2 * pause, 0.02)


def _code_root(target: str) -> str:
    """Where the code of the module ``target`` lives, for :func:`~boundcheck.utils.usercode.import_fence`: its
    top-level package's folder, or the file of a top-level module (the current folder when it cannot be found)."""
    with contextlib.suppress(ImportError, ValueError, AttributeError):
        found = importlib.util.find_spec(target.split(".")[0])
        if found is not None and found.submodule_search_locations:
            return list(found.submodule_search_locations)[0]
        if found is not None and found.origin and os.path.isfile(found.origin):
            return found.origin
    return os.getcwd()


def _load_object(ref: str, what: str = "policy"):
    """``pkg.module:Name`` or ``path/to/file.py:Name`` (``what``: a policy or a theorem, for the messages)."""
    target, sep, attr = ref.rpartition(":")
    if not sep or not target or not attr:
        name = "CLASS" if what == "policy" else "NAME"
        raise BoundcheckError(f"malformed {what} reference {ref!r}: expected FILE.py:{name} or package.module:{name}")
    if target.endswith(".py"):
        path = Path(target)
        if not path.is_file():
            raise BoundcheckError(f"{what} file {target} not found")
        # a name that is the same in every process (the resume key holds it: hash() of a str is salted per process)
        digest = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:8]
        modname = f"boundcheck_user_{path.stem}_{digest}"
        # a file that ends the process at import ends a throwaway one
        _import_in_child("file", str(path), f"{what} file {target}", attr if what == "policy" else "")
        spec = importlib.util.spec_from_file_location(modname, path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[modname] = module
        folder = str(path.resolve().parent)
        before = set(sys.modules)
        sys.path.insert(0, folder)  # the file may import its siblings, as when run as a script
        try:
            with _user_code_here(folder, f"{what} file {target}"):
                spec.loader.exec_module(module)
        except usercode.PolicyTimeout:  # the probe's import took less: this one may not hang the command either
            sys.modules.pop(modname, None)
            raise BoundcheckError(f"{what} file {target} did not finish importing within "
                                  f"{IMPORT_PROBE_TIMEOUT:g} s") from None
        except (Exception, SystemExit, KeyboardInterrupt, GeneratorExit) as exc:  # user code: one line, the file
            sys.modules.pop(modname, None)
            detail = f"{type(exc).__name__}({exc.code!r})" if isinstance(exc, SystemExit) else \
                f"{type(exc).__name__}: {exc}".splitlines()[0]
            raise BoundcheckError(f"{what} file {target} failed to import: {detail}") from None
        finally:
            sys.path.remove(folder)
        # siblings it imported travel to worker processes by value with it (they are not importable there); an
        # installed package, even in a virtual environment inside the folder (project/.venv), never does
        module.__boundcheck_siblings__ = usercode.own_modules(set(sys.modules) - before, folder)
    else:
        try:
            if target in sys.modules or _ours(target):
                module = importlib.import_module(target)  # imported before (nothing runs now), or ours
            else:  # a user's module, as for a file: first in a throwaway process, then fenced
                _import_in_child("module", target, f"{what} module {target}", attr if what == "policy" else "")
                with _user_code_here(_code_root(target), f"{what} module {target}"):
                    module = importlib.import_module(target)
        except usercode.PolicyTimeout:
            sys.modules.pop(target, None)
            raise BoundcheckError(f"{what} module {target} did not finish importing within "
                                  f"{IMPORT_PROBE_TIMEOUT:g} s") from None
        except ImportError as exc:
            raise BoundcheckError(f"cannot import {target!r} for {what} {ref!r}: {exc}") from None
        except (SystemExit, KeyboardInterrupt, GeneratorExit) as exc:  # user code may not end this process
            raise BoundcheckError(f"importing {target!r} for {what} {ref!r} raised {type(exc).__name__}"
                                  f"{f'({exc.code!r})' if isinstance(exc, SystemExit) else ''}") from None
        except Exception as exc:  # noqa: BLE001 - the user's module failed at import: one line, exit 2
            detail = f"{type(exc).__name__}: {exc}".splitlines()[0]
            raise BoundcheckError(f"{what} module {target} failed to import: {detail}") from None
    try:
        return getattr(module, attr)
    except AttributeError:
        raise BoundcheckError(f"{target} has no {attr!r}") from None


def resolve_policy(policy: PolicyLike) -> PolicySpec:
    """A registered name, a ``FILE.py:CLASS`` / ``pkg.mod:CLASS`` reference, a class, a factory or a spec."""
    from .policies import policy_spec

    if isinstance(policy, str) and ":" in policy:
        obj = _load_object(policy)
        _check_policy_protocol(policy, obj)
        if callable(obj) and not isinstance(obj, type) and not _ours(str(getattr(obj, "__module__", ""))):
            _call_factory(policy, obj)
        return policy_spec(obj)
    return policy_spec(policy)


def _ours(module: str) -> bool:
    """Whether the module named ``module`` is boundcheck's or theory's (not a user's code)."""
    return module.split(".")[0] in ("boundcheck", "theory")


@contextlib.contextmanager
def _user_code_here(where: str, label: str):
    """A user's import or call in this process (``where``: its code's folder or file, ``label``: for the messages):
    what it does to the process is undone after it (:func:`~boundcheck.utils.usercode.import_fence`, each undone
    change one warning), what it writes to stdout goes to stderr (verify --json prints one JSON document there),
    and it may take at most :data:`IMPORT_PROBE_TIMEOUT` seconds (:class:`~boundcheck.utils.usercode.PolicyTimeout`).
    In the command line's own process, the user's threads and processes are contained from then on
    (:func:`~boundcheck.utils.usercode.contain`)."""
    usercode.contain()
    with usercode.import_fence(where) as notes, usercode.stdout_to_stderr(), usercode.time_limit(IMPORT_PROBE_TIMEOUT):
        yield
    for note in notes:
        warnings.warn(f"{label}: {note}", stacklevel=4)


def _call_factory(ref: str, factory) -> None:
    """Call a user's policy factory once as user code, here: this process calls it again to read the policy it
    makes (its class, records, label), so an exception or an exit in it is one line now (exit 2), never an
    internal error or this process's exit status (``os._exit`` in it was caught by the import probe)."""
    code = getattr(factory, "__code__", None)  # where its code lives (the fence's user folder)
    where = os.path.dirname(os.path.abspath(code.co_filename)) if code is not None else os.getcwd()
    try:
        with _user_code_here(where, f"policy factory {ref}"):
            usercode.call(f"policy factory {ref}", factory)
    except usercode.UserCallFailed as exc:  # SystemExit, KeyboardInterrupt, the time limit
        raise BoundcheckError(f"policy factory {ref} {exc.detail}") from None
    except Exception as exc:  # noqa: BLE001 - the user's code: one line, exit 2
        detail = f"{type(exc).__name__}: {exc}".splitlines()[0]
        raise BoundcheckError(f"policy factory {ref} raised {detail}") from None


def _check_policy_protocol(ref: str, obj) -> None:
    """A class named by ``FILE.py:CLASS`` follows one of the two protocols (docs/extending.md): the per-run
    ask/tell form (methods ``ask`` and ``tell``) or a batched :class:`~boundcheck.policies.base.Policy`; a
    factory (any other callable) is checked when it is called. Refused at once, before any study starts."""
    from .policies.asktell import is_ask_tell
    from .policies.base import Policy

    if isinstance(obj, type):
        if not (is_ask_tell(obj) or issubclass(obj, Policy)):
            raise BoundcheckError(f"{ref}: {obj.__name__} follows neither policy protocol: an ask/tell class needs "
                                  f"methods ask(self) and tell(self, x, y), a batched policy subclasses "
                                  f"boundcheck.policies.base.Policy")
    elif not callable(obj):
        raise BoundcheckError(f"{ref}: {type(obj).__name__} {obj!r} is not a policy class or factory")


def recorded_by(spec: PolicySpec, scenario: Scenario) -> frozenset[str]:
    """What a study will hold about a policy: its declared per-step and final records, its own truth-side
    monitors, and the engine's monitors (through its posterior, or the engine's reference posterior when it
    exposes none; not for uninformed references, nor when the scenario names no reference prior)."""
    d = spec.declared
    return frozenset(d.records) | frozenset(d.final_records) | monitors_of(spec, scenario)


def monitors_of(spec: PolicySpec, scenario: Scenario) -> frozenset[str]:
    """The truth-side monitors a study records for a policy: its own (``monitors``, which include what its
    family's observers compute for it) and the engine's."""
    from .study.engine import ENGINE_MONITORS

    d = spec.declared
    have = frozenset(d.monitors)
    monitored = getattr(d, "provides_posterior", False) or getattr(d, "role", "baseline") != "uninformed"
    if monitored and (scenario.truth_index is not None or scenario.reference_index is not None):
        have |= ENGINE_MONITORS if scenario.actions.K == 1 else frozenset({"z_all"})
    return have


def _as_sequence(x) -> list:
    if x is None:
        return []
    return list(x) if isinstance(x, list | tuple) else [x]


def build_study(theorem: str | Theorem, scenario: str | Scenario | None = None, *, runs: int | None = None,
                horizon: int | None = None, delta: float | None = None, seed: int = 0, beta_scale: float = 1.0,
                policies: Sequence[PolicyLike] | None = None, chunk_size: int = 25,
                algorithm: PolicyLike | Sequence[PolicyLike] | None = None) -> StudySpec:
    """Resolve everything a study needs, once.

    ``policies``: the algorithms to run, the checked one first (default: the theorem's algorithm and its
    baselines). ``algorithm``: one or several user algorithms (classes, ``FILE.py:CLASS`` references, specs) that
    take the role of the theorem's algorithm: their claims are checked, and ``policies`` run alongside as paired
    baselines on the same functions and noise, each keeping the random stream it has without them.
    ``runs``: default the scenario's ``runs`` (scenario files), else :data:`DEFAULT_RUNS`."""
    from .claims.conformance import shadow_fills
    from .claims.families import family_for
    from .claims.table import not_applicable as not_applicable_claims
    from .study.engine import record_clashes
    from .study.spec import StudySpec
    from .utils.validation import check_int, check_positive, check_seed

    th = resolve_theorem(theorem)
    fam = family_for(th)
    sc = resolve_scenario(scenario, th, horizon, delta)
    fam.check_scenario(sc)
    specs = tuple(resolve_policy(p) for p in (policies if policies is not None else th.algorithms))
    users = tuple(resolve_policy(a) for a in _as_sequence(algorithm))
    checked: tuple[str, ...] = ()
    if users:  # baselines keep the streams of a study without the user's algorithms; users get the next ones
        specs = tuple(replace(s, stream=j) for j, s in enumerate(specs))
        users = tuple(replace(u, stream=len(specs) + k) for k, u in enumerate(users))
        specs = users + specs
        checked = tuple(u.name for u in users)
    if not specs:
        raise BoundcheckError("a study needs at least one policy")
    names = [s.name for s in specs]
    dup = sorted({n for n in names if names.count(n) > 1})
    if dup:
        raise BoundcheckError(f"policy names must be distinct, got {', '.join(names)} ({', '.join(dup)} twice; give "
                              "a user policy class a `name` attribute)")
    for s in specs:  # one column per name in the steps table: a record and a monitor must not share one
        clash = record_clashes(s.declared.records, monitors_of(s, sc))
        if clash:
            raise BoundcheckError(f"policy {s.name!r} declares the record(s) {', '.join(clash)}, which are also "
                                  "truth-side monitors of the study: rename the record(s)")
    not_applicable, on_shadow = {}, {}
    own = _shadow_of(th) if users else None
    for s in (users or specs[:1]):
        have = recorded_by(s, sc)
        # what the theorem's algorithm, run beside the code as its conformance shadow, records at the code's actions
        fills = shadow_fills(own.declared, s.declared) if own is not None and s != own else frozenset()
        missing = sorted(fam.requires - have - fills)
        if missing:
            raise BoundcheckError(f"the checks of {th.id} read {', '.join(missing)} for every claim, which policy "
                                  f"{s.name!r} does not record: implement the batched Policy protocol with these "
                                  "records (see docs/architecture.md)")
        not_applicable[s.name] = not_applicable_claims(fam.claims, have | fills)
        # claim -> what it reads that the code does not record (judged on the shadow's records instead)
        on_shadow[s.name] = {c: need for c, need in not_applicable_claims(fam.claims, have).items()
                             if c not in not_applicable[s.name]}
    runs = runs if runs is not None else (sc.default_runs or DEFAULT_RUNS)
    return StudySpec(family=fam, scenario=sc, policies=specs, runs=check_int("runs", runs), seed=check_seed(
        "seed", seed), beta_scale=check_positive("beta scale", beta_scale),
        chunk_size=check_int("chunk size", chunk_size), checked=checked,
        not_applicable={k: v for k, v in not_applicable.items() if v},
        on_shadow={k: v for k, v in on_shadow.items() if v})


def _shadow_of(theorem: Theorem) -> PolicySpec | None:
    """The theorem's own algorithm where it can run as a conformance shadow (else None)."""
    try:
        own = resolve_policy(theorem.algorithm)
    except BoundcheckError:
        return None
    return own if own.declared.conformance_monitors else None


def conformance_shadows(spec: StudySpec, conformance: bool = True) -> tuple[StudySpec, dict[str, PolicySpec]]:
    """The study with its conformance claim settled, and the shadows to run (:mod:`boundcheck.claims.conformance`):
    every checked algorithm that is not the theorem's own unwrapped algorithm runs beside a shadow, a fresh
    instance of that algorithm (checked name -> its spec). ``conformance=False`` (``--no-conformance``) or a
    theorem's algorithm that cannot run as a shadow: the claim is not applicable to those algorithms."""
    from .claims.conformance import CONFORMANCE, NO_SHADOW, OFF_REASON

    if not any(c.id == CONFORMANCE for c in spec.family.claims):
        return spec, {}
    try:
        own = resolve_policy(spec.theorem.algorithm)
    except BoundcheckError:
        own = None
    by_name = {p.name: p for p in spec.policies}
    shadows, skip = {}, {}
    for name in spec.checked_algorithms:
        if not conformance:
            skip[name] = OFF_REASON
        elif own is not None and by_name[name] == own:
            continue  # the theorem's own algorithm: conforms by construction (a sanity identity)
        elif own is None or not own.declared.conformance_monitors:
            skip[name] = f"{spec.theorem.algorithm} cannot run as a shadow (no conformance check for it yet)"
        else:
            shadows[name] = own
    if skip:
        na = {k: dict(v) for k, v in spec.not_applicable.items()}
        on_shadow = {k: dict(v) for k, v in spec.on_shadow.items()}
        for name, why in skip.items():
            na.setdefault(name, {})[CONFORMANCE] = why
            # the claims that would have been judged on the shadow's records: not applicable without it
            for cid, need in on_shadow.pop(name, {}).items():
                na[name][cid] = f"{need} ({NO_SHADOW}: {why})"
        spec = replace(spec, not_applicable=na, on_shadow=on_shadow)
    return replace(spec, shadowed=tuple(shadows)), shadows


def resolve_defects(theorem: Theorem, defects: Sequence[str | Defect] | None) -> list[Defect]:
    """Defect names or objects, each checked to apply to the theorem (one-line error otherwise)."""
    from .claims.defects import Defect, defects_for, get_defect

    out = []
    for d in defects or ():
        d = d if isinstance(d, Defect) else get_defect(str(d))
        if not d.applies(theorem.id):
            raise BoundcheckError(f"defect {d.name!r} does not apply to {theorem.id}; its defects: "
                                  f"{', '.join(x.name for x in defects_for(theorem.id))}")
        out.append(d)
    return out


def applicability(theorem: str | Theorem, scenario: str | Scenario | None = None, *, horizon: int | None = None,
                  delta: float | None = None) -> list[str]:
    """Why ``theorem`` does not apply to ``scenario`` (empty: every assumption holds)."""
    from .claims.families import family_for
    from .world.assumptions import Conditions

    th = resolve_theorem(theorem)
    sc = resolve_scenario(scenario, th, horizon, delta)
    return family_for(th).unmet_assumptions(sc, Conditions())


def _meta(spec: StudySpec) -> dict:
    """What the reports need about the scenario and the algorithms, stored in the manifest."""
    sc = spec.scenario
    algos = []
    checked = set(spec.checked_algorithms)
    for i, p in enumerate(spec.policies):
        cls = p.declared
        role = "theorem" if i == 0 else ("checked" if p.name in checked else getattr(cls, "role", "baseline"))
        label = p.label or getattr(p.make(), "label", None) or p.name  # an instance knows a label set in __init__
        algos.append({"name": p.name, "label": label, "role": role,
                      "description": getattr(cls, "description", "")})
    return {
        "main_algorithm": spec.main,
        "checked_algorithms": list(spec.checked_algorithms),
        "not_applicable": {k: dict(v) for k, v in spec.not_applicable.items()},
        "algorithm_info": algos,
        "scenario_info": {"name": sc.name, "description": sc.description, "n_candidates": len(sc.candidates),
                          "candidate_names": [c.name for c in sc.candidates], "truth_index": sc.truth_index,
                          "reference_index": sc.reference_index, "domain_size": sc.domain.n,
                          "notes": list(sc.notes)},
        "assumptions": spec.family.assumption_rows(sc, spec.beta_scale),
    }


def user_code_log(results: str | os.PathLike) -> Path:
    """The log of what the checked code wrote and warned in a study's workers (``results/user-code.log``)."""
    return Path(results) / usercode.LOG_NAME


def user_code_warnings(log: str | os.PathLike) -> list[dict]:
    """The warnings the checked code raised, one dict per kind (category, message, where, count), from its log."""
    return usercode.warnings_in_log(log)


#: folder names a verify's default output folder never takes below ``reports/<theorem>/`` (what a verify writes
#: there, and power's default folder)
_RESERVED_FOLDERS = frozenset({"results", "figures", "tables", "power"})


def _folder_part(name: str) -> str:
    part = "".join(ch if ch.isalnum() or ch in "._+-" else "_" for ch in str(name)).strip(".") or "_"
    return f"{part}-algorithm" if part in _RESERVED_FOLDERS else part


def _reference_name(ref) -> str:
    """The name a checked algorithm's default folder takes, read without importing it: a ``FILE.py:CLASS`` or
    ``pkg.mod:CLASS`` reference's CLASS, a registered name as it is, a class's or factory's ``__name__``."""
    if isinstance(ref, str):
        return ref.rsplit(":", 1)[-1]
    name = getattr(ref, "name", None)  # a policy spec's, or a class's own `name`
    if isinstance(name, str) and name:
        return name
    return str(getattr(ref, "__name__", None) or type(ref).__name__)


def default_out(theorem: str | Theorem, scenario: str | Scenario | None = None,
                algorithm: PolicyLike | Sequence[PolicyLike] | None = None) -> Path:
    """A verify's output folder when none is given: ``reports/<theorem>`` for the theorem's own algorithm on its
    default scenario; with ``--algorithm`` (the checked algorithms' names, joined by ``+``) and/or another scenario
    (``on-<scenario>``: a file's stem, a built-in's name) one folder below it, e.g. ``reports/gp_ucb/MyGPUCB``,
    ``reports/gp_ucb/MyGPUCB-on-my_problem``. Studies of different code or worlds thus never share a folder by
    default (a second one would be refused as a different configuration)."""
    th = resolve_theorem(theorem) if isinstance(theorem, str) else theorem
    base = Path("reports") / th.id
    names = [_reference_name(a) for a in _as_sequence(algorithm)]
    if scenario is None:
        where = None
    elif isinstance(scenario, str):
        where = Path(scenario).stem if scenario.endswith(".toml") else scenario
    else:
        where = getattr(scenario, "name", None)
    if where == th.default_scenario:
        where = None
    part = "+".join(names) + (f"-on-{where}" if names and where else f"on-{where}" if where else "")
    return base / _folder_part(part) if part else base


def verify(theorem: str | Theorem, scenario: str | Scenario | None = None, *, settings: VerifySettings | None = None,
           policies: Sequence[PolicyLike] | None = None, algorithm: PolicyLike | Sequence[PolicyLike] | None = None,
           defects: Sequence[str | Defect] | None = None, on_chunk: Callable[[int, int], None] | None = None,
           on_progress: Callable[[int, int], None] | None = None, **keywords: Unpack[SettingsKeywords]) -> dict:
    """Run (or resume) ``boundcheck verify`` and return its JSON summary.

    How it runs is ``settings`` (a :class:`VerifySettings`: runs, horizon, δ, seed, jobs, backend, false-alarm
    budget, β scale, memory limit, output, ...), or its fields given as keywords (``runs=40, seed=1``); a keyword
    that contradicts a ``settings`` object given with it is an error. What it checks: ``theorem``; ``scenario`` (a
    name, a :class:`~boundcheck.world.scenario.Scenario` or a scenario file, ``.toml``; default: the theorem's);
    ``policies`` (the algorithms run, the checked one first; default: the theorem's and its baselines);
    ``algorithm``: the user's implementation(s) checked in the role of the theorem's algorithm (see
    :func:`build_study`); ``defects``: planted defects (a negative control).

    ``false_alarm`` (default 0.01): the probability that a verify of a correct theorem on correct code calls any
    claim violated is at most this (Holm across the stochastic claims). ``until_conclusive``: add chunks of runs
    until every claim is settled or ``max_runs`` (anytime-valid tests). A scenario that breaks an assumption of
    the theorem raises :class:`~boundcheck.errors.NotApplicable` (nothing is simulated) unless
    ``allow_out_of_theory`` or the study is an explicit negative control (``beta_scale`` ≠ 1, ``defects``).

    Results go to ``out/results`` (default: :func:`default_out`, ``reports/<theorem>`` for the theorem's own
    algorithm on its default scenario, a folder below it per checked algorithm or other scenario); with
    ``out=None`` and ``report=False`` they go to a temporary folder, removed when the returned result is. Every
    input is validated, and the memory estimate checked against ``max_memory`` (default: the memory available),
    before anything is written; an error leaves no results folder behind. ``on_chunk(done, total)`` counts
    chunks, ``on_progress(done, total)`` run-steps (from a background thread, several times a second). Returns a
    :class:`~boundcheck.results.VerifyResult`: the JSON summary (a dict) with its tables as DataFrames, and
    ``recomputed`` (False: a rerun that found every chunk stored and computed none)."""
    from .claims.budget import HolmBudget
    from .claims.conformance import OUT_OF_THEORY
    from .results import VerifyResult
    from .study.power import apply_defects, defect_instance
    from .study.preflight import preflight, run_options
    from .study.runner import Sequential, forks_workers, preload_workers, run_study
    from .utils.validation import check_output_dir, check_report_dir
    from .world.assumptions import Conditions

    started = time.perf_counter()  # the verify's "time taken" runs from here to its judged summary
    s = settings_from(settings, keywords, caller="verify")
    options = replace(run_options(s), report=s.report)  # the parent may import the reports' libraries meanwhile
    if s.report:
        from . import report as _report  # noqa: F401 - registers what the reports import (boundcheck.runtime.warmup)
    out_path, limit, report = s.out, s.max_memory, s.report
    spec = build_study(theorem, scenario, runs=s.runs, horizon=s.horizon, delta=s.delta, seed=s.seed,
                       beta_scale=s.beta_scale, policies=policies, algorithm=algorithm)
    spec, _ = conformance_shadows(spec, s.conformance)  # before the preflight: the key it checks holds them
    budget = HolmBudget(DEFAULT_FALSE_ALARM if s.false_alarm is None else s.false_alarm)
    planted = resolve_defects(spec.theorem, defects)
    sequential = None
    if s.until_conclusive:  # (max_runs without until_conclusive: refused by VerifySettings)
        most = DEFAULT_MAX_RUNS if s.max_runs is None else s.max_runs
        if most < spec.chunk_size:
            raise BoundcheckError(f"--max-runs {most} is smaller than one chunk ({spec.chunk_size} runs)")
        sequential = Sequential(max_runs=most)
    cond = Conditions(beta_scale=spec.beta_scale, defects=tuple(d.name for d in planted))
    temporary = out_path is None and not report
    if out_path is None and not temporary:
        out_path = check_output_dir("--out", default_out(spec.theorem, scenario, algorithm))
    largest = spec if sequential is None else replace(spec, runs=sequential.max_runs)  # memory at the most runs
    options, note = _capped_jobs(options, largest)
    preflight(largest, options, None if temporary else out_path / "results", limit, conditions=cond,
              allow_out_of_theory=s.allow_out_of_theory)
    if report and not temporary:
        check_report_dir(out_path)
    spec = apply_defects(spec, planted)
    spec, shadows = conformance_shadows(spec, s.conformance)  # after the defects: a wrapped algorithm is checked
    # labels from what is actually run: a defect that changes the world breaks assumptions of its own
    reasons = spec.family.out_of_theory_reasons(spec.scenario, spec.beta_scale, cond)
    if not s.conformance:
        reasons.append(OUT_OF_THEORY)
    from .claims.families.instance_cache import instantiate  # read from disk when computed before

    inst = defect_instance(instantiate(spec.family, spec.scenario, spec.horizon, spec.delta, spec.beta_scale),
                           planted)
    inst = replace(inst, shadows=shadows)
    if note:
        warnings.warn(note, stacklevel=2)
    # only now, with every input validated and the theorem instantiated, do worker processes start (issue 25);
    # children forked from this process when the study sends them tasks need no warm-up (runtime.forking)
    if not forks_workers(spec, options):
        prewarm(options.jobs, options.backend)
        preload_workers(spec, inst)  # the workers unpickle the study (and import what it needs) before their first task
    meta = _meta(spec)
    meta["assumptions"] = spec.family.assumption_rows(spec.scenario, conditions=cond)
    meta["defects"] = [{"name": d.name, "description": d.description} for d in planted]
    kwargs = dict(in_theory=not reasons, reasons=reasons, meta=meta, on_chunk=on_chunk, on_progress=on_progress,
                  budget=budget, sequential=sequential, started=started)
    if temporary:  # the result keeps the folder (its tables) until the result itself goes (boundcheck.results)
        tmp = tempfile.TemporaryDirectory(prefix="boundcheck-")
        try:
            summary = run_study(spec, inst, Path(tmp.name) / "results", options, **kwargs)
        except BaseException:
            tmp.cleanup()
            raise
        return VerifyResult(summary, Path(tmp.name) / "results", keep=tmp)
    created = _missing_parents(out_path)
    try:
        summary = run_study(spec, inst, out_path / "results", options, **kwargs)
    except BaseException:
        for d in created:  # folders this call created and left empty (run_study removes an empty study)
            with contextlib.suppress(OSError):
                d.rmdir()
        raise
    if report:
        summary["report"] = _write_report_if_stale(summary, out_path)
    result = VerifyResult(summary, out_path / "results")
    result.recomputed = _recomputed(out_path / "results")
    return result


def _recomputed(results: Path) -> bool:
    """Whether the verify that just stored ``results`` computed any chunk (False: a resume of complete results)."""
    from .study.store import ResultStore

    timing = ResultStore(results).require_manifest().get("timing") or {}
    return bool(timing.get("recomputed", True)) if isinstance(timing, dict) else True


#: the manifest's record of the reports last written from the results: the digest of what they show and each
#: file's sha256 (a resume that changes nothing they show, with the files as written, leaves them as they are)
REPORTS_WRITTEN = "reports_written"


def _reports_digest(summary: dict, manifest: dict) -> str:
    """A digest of everything a verify's reports are drawn from: the summary and the manifest (the chunks'
    sha256s, the configuration, the labels) less what only accounts for running them (the cumulative compute
    time, timings, this record itself), and the code that draws them (boundcheck's version, the report
    package's and the papers' figure modules' sources)."""
    root = Path(__file__).parent
    h = hashlib.sha256(__version__.encode())
    for src in sorted([*(root / "report").glob("*.py"), *(root / "papers").glob("*/figures.py")]):
        h.update(str(src.relative_to(root)).encode() + b"\0" + src.read_bytes())
    shown = {"summary": {k: v for k, v in summary.items() if k not in ("report", "compute_s_total")},
             "manifest": {k: v for k, v in manifest.items()
                          if k not in ("timing", "compute_s_total", REPORTS_WRITTEN)}}
    h.update(json.dumps(shown, sort_keys=True, default=str).encode())
    return h.hexdigest()


def _report_files(out: Path) -> dict[str, str]:
    """sha256 of each file a verify's reports consist of (index.html, report.tex, figures/, tables/)."""
    files = [out / "index.html", out / "report.tex", *sorted((out / "figures").glob("*")),
             *sorted((out / "tables").glob("*"))]
    return {str(f.relative_to(out)): hashlib.sha256(f.read_bytes()).hexdigest() for f in files if f.is_file()}


def _write_report_if_stale(summary: dict, out: Path) -> dict:
    """Write the reports of ``out/results`` into ``out`` unless the ones there are current: drawn from the same
    summary and results by the same code (:func:`_reports_digest`), every file as it was written. A resume that
    recomputes nothing thus rewrites nothing (the figures are most of a default verify's time);
    ``boundcheck report DIR`` rebuilds them regardless. Records the time the reports took
    (``timing.report_s``: benchmarks/bench_study.py reads it) and what was written."""
    from .study.store import ResultStore

    store = ResultStore(out / "results")
    manifest = store.require_manifest()
    digest = _reports_digest(summary, manifest)
    written = manifest.get(REPORTS_WRITTEN)
    paths = {"html": str(out / "index.html"), "tex": str(out / "report.tex")}
    if isinstance(written, dict) and written.get("digest") == digest and written.get("files"):
        with contextlib.suppress(OSError):
            if _report_files(out) == written["files"]:
                return paths
    t0 = time.perf_counter()
    paths = write_report(out / "results", out)
    manifest = store.require_manifest()
    manifest.setdefault("timing", {})["report_s"] = time.perf_counter() - t0
    manifest[REPORTS_WRITTEN] = {"digest": digest, "files": _report_files(out)}
    store.write_manifest(manifest)
    return paths


#: the settings power does not read (a keyword among them is refused; see settings_from)
_POWER_UNUSED = ("beta_scale", "until_conclusive", "max_runs", "report", "conformance")


def power(theorem: str | Theorem, scenario: str | Scenario | None = None, *, settings: VerifySettings | None = None,
          defects: Sequence[str | Defect] | None = None, pool: int = 2, subsets: int = 200,
          on_study: Callable[[str, int, int], None] | None = None, **keywords: Unpack[SettingsKeywords]) -> dict:
    """``boundcheck power``: the theorem's claims against planted defects (default: every defect of the library
    that applies), with the probability that a verify of ``runs`` runs (default :data:`DEFAULT_RUNS`) catches
    each, and each claim's smallest detectable effect. Writes ``out/power.json`` (default
    ``reports/<theorem>/power``) and returns it. ``settings`` or its fields as keywords: see :func:`verify` (of
    them, power reads runs, horizon, delta, seed, jobs, backend, scheduler, false_alarm, allow_out_of_theory,
    max_memory and out). Validated like ``verify`` (one pass, nothing written on an error; not applicable: exit 3),
    and sized like it: the pool of ``pool`` × N runs each defect study simulates is estimated and refused above
    ``max_memory`` (default: the memory available) before anything runs."""
    from .claims.budget import HolmBudget
    from .claims.defects import defects_for
    from .study.power import run_power
    from .study.preflight import check_applicable, estimate_study_memory, run_options
    from .utils.io import atomic_write_json
    from .utils.resources import check_memory
    from .utils.validation import check_int, check_output_dir
    from .world.assumptions import Conditions

    s = settings_from(settings, keywords, caller="power", unused=_POWER_UNUSED)
    options = run_options(s)
    th = resolve_theorem(theorem)
    planted = resolve_defects(th, defects) if defects else defects_for(th.id)
    spec = build_study(th, scenario, runs=DEFAULT_RUNS if s.runs is None else s.runs, horizon=s.horizon,
                       delta=s.delta, seed=s.seed)
    budget = HolmBudget(DEFAULT_FALSE_ALARM if s.false_alarm is None else s.false_alarm)
    check_int("pool", pool)
    check_int("subsets", subsets)
    out_path = s.out if s.out is not None else check_output_dir("--out", Path("reports") / th.id / "power")
    check_applicable(spec, Conditions(), s.allow_out_of_theory)  # in the order of the preflight
    spec.family.bound_values(spec.scenario, spec.horizon, spec.delta)
    # each defect study simulates a pool of pool × N runs of the checked algorithm (study/power.py: run_power)
    pooled = replace(spec, policies=spec.policies[:1], runs=spec.runs * pool)
    options, note = _capped_jobs(options, pooled)
    est = estimate_study_memory(pooled, options)
    est.parts["subsets judged"] = 8 * subsets * spec.runs * 4
    est.total += est.parts["subsets judged"]
    check_memory(est, s.max_memory, hint="lower --runs, --horizon, --subsets or --jobs, or set --max-memory if "
                                         "you know better")
    inst = spec.family.instantiate(spec.scenario, spec.horizon, spec.delta, spec.beta_scale)
    if note:
        warnings.warn(note, stacklevel=2)
    # every defect study runs beside a shadow of the correct algorithm, as a verify of that code would: the table
    # then says which defects the conformance claim catches (and its false alarms, on the correct algorithm)
    table = run_power(spec, inst, planted, out_path, options, budget=budget, pool=pool, subsets=subsets,
                      seed=s.seed, on_study=on_study, shadow=_shadow_of(th))
    atomic_write_json(out_path / "power.json", table, default=float)
    table["path"] = str(out_path / "power.json")
    from .results import PowerResult

    return PowerResult(table, out_path)


def _missing_parents(path: Path) -> list[Path]:
    """``path`` and its ancestors that do not exist yet, deepest first."""
    missing, p = [], path.absolute()
    while not p.exists():
        missing.append(p)
        p = p.parent
    return missing


def write_report(results_dir: str | Path, out_dir: str | Path | None = None) -> dict:
    """(Re)build the HTML and LaTeX reports of a results directory; returns their paths."""
    from .report import write_reports

    results_dir = Path(results_dir)
    out_dir = results_dir.parent if out_dir is None else Path(out_dir)
    paths = write_reports(results_dir, out_dir)
    return {"html": str(paths["html"]), "tex": str(paths["tex"])}


def rebuild_report(results_dir: str | Path) -> dict:
    """``boundcheck report``: check a stored study (its manifest and summary) and rebuild its HTML and LaTeX
    reports next to it, without running anything. ``results_dir``: the ``out`` folder of a verify, or its
    ``results/`` folder. Returns the stored summary with ``report`` set to the new reports' paths."""
    from .study.store import ResultStore

    results = Path(results_dir)
    if not results.exists():
        raise BoundcheckError(f"{results} not found")
    if not results.is_dir():
        raise BoundcheckError(f"{results} is not a directory: give the folder verify wrote (OUT or OUT/results)")
    if (results / "results" / "manifest.json").exists():
        results = results / "results"
    store = ResultStore(results)
    store.require_manifest()
    summary = store.read_json("summary")
    missing = [k for k in _SUMMARY_KEYS if k not in summary]
    if missing or not isinstance(summary.get("claims"), list):
        raise BoundcheckError(f"corrupt results file {results / 'summary.json'}: missing "
                              f"{', '.join(missing) or 'the claims list'}; re-run verify to rebuild it")
    summary["report"] = write_report(results, results.parent)
    return summary


_SUMMARY_KEYS = ("theorem", "scenario", "verdict", "in_theory", "runs", "horizon", "delta", "seed", "claims",
                 "bound", "regret")


def index_report(dirs: list[str | Path], out: str | Path | None = None) -> dict:
    """``boundcheck report --index DIR…``: one page over every verify's results folder below ``dirs`` —
    theorem × scenario → verdict, runs, tightness, weak link, in/outside the theorem, a link to each report
    (:mod:`boundcheck.report.overview`). Writes ``studies.html``, ``studies.tex`` and ``studies-table.tex``
    into ``out`` (default: the first of ``dirs``); nothing is rerun.

    Returns
    -------
    dict
        ``html``, ``tex``, ``table`` (the paths written, as strings), ``studies`` (one dict per row) and
        ``skipped`` (``[folder, reason]`` for each results folder that could not be read).
    """
    from .report.overview import write_overview

    if not dirs:
        raise BoundcheckError("report --index needs at least one folder to search for results")
    res = write_overview(list(dirs), out)
    return {**res, **{k: str(res[k]) for k in ("html", "tex", "table")}}


__all__ += ["index_report"]


def store_check(path: str | Path) -> dict:
    """What a results folder (``--out`` or its ``results/``) holds and what of it verifies, writing nothing:
    :func:`boundcheck.study.store.check` (``status``: ``"ok"``, ``"damaged"`` or ``"unrepairable"``). A folder
    that is not a results folder is a :class:`BoundcheckError`."""
    from .study.store import check

    return check(path)


def store_repair(path: str | Path) -> dict:
    """Rebuild a damaged manifest from the chunks that verify and belong to the folder's configuration:
    :func:`boundcheck.study.store.repair` (the check after the repair, with ``"repaired"``: what was done). The
    same verify command then recomputes only what was not recovered."""
    from .study.store import repair

    return repair(path)


def sweep(theorem: str | Theorem, vary: Sequence[str | Axis], scenario: str | Path | Scenario | None = None, *,
          settings: VerifySettings | None = None, policies: Sequence[PolicyLike] | None = None,
          algorithm: PolicyLike | Sequence[PolicyLike] | None = None, page: bool | None = None,
          on_cell: Callable[[int, int, str, dict | None], None] | None = None,
          defects: Sequence[str] | None = None, on_setup: Callable[[int, int], None] | None = None,
          **keywords: Unpack[SettingsKeywords]) -> dict:
    """Run (or resume) a sweep: one study per cell of the grid of ``vary`` (``"NAME=V1,V2"`` or :class:`Axis`).

    ``settings`` or its fields as keywords: see :func:`verify`; a varied runs, horizon, delta, seed or beta_scale
    replaces the setting in its cells. Each cell is stored in ``out/cells/<cell>/results`` (resumable, chunk by
    chunk; ``out`` default ``reports/<theorem>-sweep``); the tidy table goes to ``out/sweep.parquet`` (one row
    per cell × claim, columns in :data:`boundcheck.study.sweep.COLUMNS`), the configuration and the cells'
    verdicts to ``out/sweep.json``, the page to ``out/index.html`` (unless ``report`` is false; ``page`` is its
    older name). Returns the content of ``sweep.json`` with the paths. ``on_cell(done, total, cell, summary)`` is
    called before each cell (summary None) and after it; ``on_setup(checked, total)`` while the cells are checked
    before the first one runs (first ``(0, total)``, before any cell is resolved, then after each cell). Each cell is
    a verify with its own false-alarm budget ``false_alarm``; a cell where the theorem does not apply refuses the
    whole sweep before any cell runs (exit 3) unless ``allow_out_of_theory``. ``defects``: planted in every cell
    (a negative control, as in verify).

    Sized before any cell runs: at most :data:`MAX_SWEEP_CELLS` cells (counted from the values, before any of them
    is read), and each cell's memory estimate within ``max_memory`` (default: the memory available). The checks
    cost one pass over the cells: a scenario, a study and the theorem's instance are made once per distinct
    combination of the values they depend on (a sweep over seeds checks one), not once per cell."""
    import math

    from .study.preflight import check_applicable, estimate_study_memory, run_options
    from .study.sweep import Axis, cell_id, cells, parse_vary, sweep_table, vary_scenario
    from .utils.io import atomic_write_json
    from .utils.resources import check_memory
    from .world.assumptions import Conditions

    if page is not None:
        keywords = {**keywords, "report": page}
    s = settings_from(settings, keywords, caller="sweep")
    th = resolve_theorem(theorem)
    if not vary:
        raise BoundcheckError("a sweep needs at least one --vary NAME=V1,V2,...")
    # the cap first, from the number of values alone (a value is read only when the sweep is small enough)
    sizes = [len(a.values) if isinstance(a, Axis) else str(a).partition("=")[2].count(",") + 1 for a in vary]
    count = math.prod(sizes)
    if count > MAX_SWEEP_CELLS:
        raise BoundcheckError(f"a sweep of {count} cells ({' × '.join(map(str, sizes))}) is more "
                              f"than {MAX_SWEEP_CELLS}; split it into several sweeps")
    if on_setup:
        on_setup(0, count)
    axes = [a if isinstance(a, Axis) else parse_vary(a) for a in vary]
    planted = resolve_defects(th, defects) if defects else []
    base = resolve_scenario(scenario, th)
    grid = cells(axes)
    # user files are imported once, not once per cell
    algorithm = [resolve_policy(a) for a in _as_sequence(algorithm)] or None
    policies = None if policies is None else [resolve_policy(p) for p in policies]
    out = s.out if s.out is not None else Path("reports") / f"{th.id}-sweep"
    if s.report:
        from .utils.validation import check_report_dir

        check_report_dir(out)  # its index.html is the sweep's page: never someone else's, overwritten
    fixed = {"runs": s.runs, "horizon": s.horizon, "delta": s.delta, "seed": s.seed, "beta_scale": s.beta_scale}
    # resolve every cell before running any: a bad value fails at once, with nothing written. What is checked
    # depends on the scenario's values and on runs, horizon, δ, β scale (never on the seed): each distinct
    # combination is checked once, so the pass is linear in the cells and a sweep over seeds checks one study
    scenario_keys = [a.name for a in axes if a.name not in fixed]
    scenarios: dict[tuple, Scenario] = {}
    settings_of: dict[tuple, VerifySettings] = {}
    checked: dict[tuple, StudySpec] = {}
    conditions = Conditions(beta_scale=s.beta_scale, defects=tuple(d.name for d in planted))
    plan = []
    for i, params in enumerate(grid):
        skey = tuple(repr(params[k]) for k in scenario_keys)
        if skey not in scenarios:
            scenarios[skey] = vary_scenario(base, params)
        sc = scenarios[skey]
        study = {k: v for k, v in params.items() if k in fixed}
        vkey = tuple(repr(v) for v in study.values())
        if vkey not in settings_of:  # validated without its folder (the cell's own is set when it runs)
            settings_of[vkey] = s.replace(**study, out=None, report=False)
        cell = settings_of[vkey]
        ckey = (skey, cell.runs, cell.horizon, cell.delta, cell.beta_scale)
        if ckey not in checked:
            spec = build_study(th, sc, runs=cell.runs, horizon=cell.horizon, delta=cell.delta, seed=cell.seed,
                               beta_scale=cell.beta_scale, policies=policies, algorithm=algorithm)
            check_applicable(spec, replace(conditions, beta_scale=spec.beta_scale), s.allow_out_of_theory)
            spec.family.bound_values(spec.scenario, spec.horizon, spec.delta)
            # the bound and β_t finite in every cell (a non-finite one is refused before the first cell runs)
            spec.family.instantiate(spec.scenario, spec.horizon, spec.delta, spec.beta_scale)
            largest = spec if not cell.until_conclusive else replace(
                spec, runs=DEFAULT_MAX_RUNS if cell.max_runs is None else cell.max_runs)
            check_memory(estimate_study_memory(largest, _capped_jobs(run_options(cell), largest)[0]),
                         cell.max_memory, hint=f"cell {cell_id(params)}: lower --runs, --horizon or --jobs, or set "
                                               f"--max-memory if you know better")
            checked[ckey] = spec
        plan.append((cell_id(params), params, sc, cell, checked[ckey]))
        if on_setup:
            on_setup(i + 1, count)
    uninformed = next((p.name for p in plan[0][4].policies if getattr(p.declared, "role", "") == "uninformed"), None)
    rows, info = [], []
    for i, (cid, params, sc, cell, _) in enumerate(plan):
        if on_cell:
            on_cell(i, len(plan), cid, None)
        cell = cell.replace(out=out / "cells" / cid)
        summary = verify(th, sc, settings=cell, policies=policies, algorithm=algorithm, defects=planted)
        rows.append((cid, params, summary))
        info.append({"cell": cid, "params": params, "verdict": summary["verdict"], "in_theory": summary["in_theory"],
                     "results": str(out / "cells" / cid / "results")})
        if on_cell:
            on_cell(i + 1, len(plan), cid, summary)
    table = sweep_table(rows, uninformed)
    out.mkdir(parents=True, exist_ok=True)
    from .utils.io import atomic_write

    atomic_write(out / "sweep.parquet", lambda tmp: table.to_parquet(tmp, index=False), mode=None)
    result = {"theorem": th.id, "scenario": rows[0][2]["scenario"], "vary": [{"name": a.name, "values": list(a.values)}
                                                                           for a in axes],
              "fixed": fixed, "cells": info, "table": str(out / "sweep.parquet"), "page": None,
              "verdict": ("violated" if any(c["verdict"] == "violated" for c in info) else
                          "holds" if all(c["verdict"] == "holds" for c in info) else "inconclusive")}
    if s.report:
        from .report.sweep import write_sweep_page

        result["page"] = str(write_sweep_page(table, result, out))
    atomic_write_json(out / "sweep.json", result, default=str)
    from .results import SweepResult

    return SweepResult(result, out)


# ------------------------------------------------------------------------------------------------ reproduce
_STEP_COLUMNS = ["run", "algorithm", "t", "cum_regret", "prior"]


def _run_spec(spec: StudySpec, results_dir: Path, options: RunOptions,
              on_chunk: Callable[[int, int], None] | None = None) -> dict:
    """Run (or resume) one study into ``results_dir``, exactly as ``verify`` does."""
    from .study.runner import run_study

    reasons = spec.family.out_of_theory_reasons(spec.scenario, spec.beta_scale)
    inst = spec.family.instantiate(spec.scenario, spec.horizon, spec.delta, spec.beta_scale)
    return run_study(spec, inst, results_dir, options, in_theory=not reasons, reasons=reasons, meta=_meta(spec),
                     on_chunk=on_chunk)


def _panel_cost(spec: StudySpec) -> float:
    """A panel's simulation cost, relative to the others: runs × T × |D|. At the papers' sizes (|D| ≤ 300, a few
    dozen runs per batch) a step costs per-call overhead plus O(|D|) per run more than O(|D|²) (paper 004 at
    T = 30 000: |D| = 100, 200, 300 cost 1 : 2.1 : 3.1, docs/performance.md)."""
    n = getattr(getattr(spec.scenario, "domain", None), "n", None) or 1
    return float(spec.runs) * float(spec.horizon) * float(n)


def _run_panels(items: list[tuple[StudySpec, Path, Callable[[int, int], None] | None]], options: RunOptions,
                max_memory: float | None = None) -> list[dict]:
    """Run (or resume) the studies of a reproduce, each into its folder; their summaries, in order.

    With loky and more than one process, whole panels go to the processes when they are balanced enough
    (no panel costs more than a process's share, :func:`_panel_cost`) and at least as many as the processes:
    each panel is then one study on one process (``--jobs 1``: one batch of its runs), the parent among them,
    the costliest first (longest processing time first). A batch of 25 runs costs about 1.4× one of 13 where a
    step's per-call overhead dominates (|D| = 100), so two panels side by side beat each panel split in two
    (paper 004's Figs 1–3 at T = 30 000). Otherwise every panel is split into chunks over all processes in turn,
    as ``verify`` does. Results do not depend on which process ran a study, nor on its batches (stored chunks
    are bit-identical for any ``--jobs``). A panel's error is raised as it is, after the panels finished before
    it are stored; an interruption stops the workers (the chunks stored so far are kept: a rerun resumes)."""
    import threading
    from collections import deque

    from . import runtime
    from .study.preflight import estimate_study_memory
    from .utils.resources import MemoryEstimate, check_memory

    # no more processes than cores (as _capped_jobs): --jobs far above the machine starts no idle workers
    workers = min(runtime.pool_workers(options.jobs), (os.cpu_count() or 1) - 1) if options.backend == "loky" else 0
    costs = [_panel_cost(spec) for spec, _, _ in items]
    one = replace(options, jobs=1)
    side_by_side = workers >= 1 and len(items) > workers and max(costs) <= sum(costs) / (workers + 1)
    if side_by_side:
        # as many panels at once as processes: the largest of them must fit together
        sizes = sorted((estimate_study_memory(spec, one).total for spec, _, _ in items), reverse=True)
        try:
            check_memory(MemoryEstimate("panels side by side", sum(sizes[:workers + 1])), max_memory)
        except BoundcheckError:
            side_by_side = False  # each panel over all processes in turn: its own estimate was checked
    if not side_by_side:
        return [_run_spec(spec, path, options, on_chunk) for spec, path, on_chunk in items]
    queue = deque(sorted(range(len(items)), key=lambda i: -costs[i]))
    take, stop = threading.Lock(), threading.Event()
    summaries: dict[int, dict] = {}
    errors: list[BaseException] = []
    executor = runtime.pool(workers)

    def feed() -> None:
        while not stop.is_set():
            with take:
                if not queue:
                    return
                i = queue.popleft()
            spec, path, on_chunk = items[i]
            try:
                summaries[i] = executor.submit(_run_spec, spec, path, one).result()
            except BaseException as exc:  # noqa: BLE001 - handed to the main thread, which raises it
                errors.append(exc)
                stop.set()
                return
            if on_chunk:  # a worker's panel reports when it is done (its progress stays in the worker)
                on_chunk(spec.n_chunks, spec.n_chunks)

    feeders = [threading.Thread(target=feed, name=f"boundcheck-panels-{k}", daemon=True) for k in range(workers)]
    for th in feeders:
        th.start()
    try:
        while not stop.is_set():
            with take:
                if not queue:
                    break
                i = queue.popleft()
            spec, path, on_chunk = items[i]
            summaries[i] = _run_spec(spec, path, one, on_chunk)
    except BaseException:
        stop.set()  # the feeders send nothing more
        runtime.shutdown()  # a panel in a worker takes minutes: stop it (its stored chunks stay)
        raise
    for th in feeders:
        th.join()
    if errors:
        raise errors[0]
    return [summaries[i] for i in range(len(items))]


def _panel_data(results_dir: Path, spec: StudySpec):
    """The stored tables an empirical claim reads (runs; steps: cumulative regret and the prior used)."""
    from .claims.empirical import PanelData
    from .study.store import ResultStore

    store = ResultStore(results_dir)
    runs = store.read_table("runs")
    runs["algorithm"] = runs["algorithm"].astype(str)
    steps = store.read_table("steps")
    steps = steps[[c for c in _STEP_COLUMNS if c in steps]]
    sc = spec.scenario
    return PanelData(runs=runs, steps=steps, horizon=spec.horizon, truth_index=sc.truth_index,
                     n_candidates=len(sc.candidates))


def _run_cell(build: Callable, cell: dict, theorem: str, algorithms: list[str], runs: int, seed: int,
              results_dir: Path):
    """One cell of an explored grid, in a worker: build its scenario, run (or resume) it with the theorem's
    family stripped of its claims, and return the data the empirical claims read."""
    from dataclasses import replace

    from .claims.empirical import RegretOnlyFamily
    from .study.runner import RunOptions

    scenario, beta_scale = build(cell)
    spec = build_study(theorem, scenario, runs=runs, seed=seed, policies=algorithms, beta_scale=beta_scale,
                       chunk_size=runs)
    spec = replace(spec, family=RegretOnlyFamily(spec.family))
    _run_spec(spec, results_dir, RunOptions(jobs=1, backend="threading"))
    return _panel_data(results_dir, spec)


def _run_cells(tasks: list[tuple], options: RunOptions, on_done: Callable[[int, int], None] | None) -> list:
    """Run many small studies (the cells of an explored grid), one worker per cell: cheaper than splitting each
    small study into chunks. Stored cells are read back, not recomputed. Returns their data, in order."""
    import joblib

    backend = options.backend if options.backend in ("loky", "threading") else "loky"
    # no more workers than cores and cells (as the grid's preflight assumes): more would only start idle processes
    cores = os.cpu_count() or 1
    jobs = max(1, min(cores if options.jobs < 0 else options.jobs, cores, len(tasks)))
    out = []
    if on_done:
        on_done(0, len(tasks))
    if backend == "loky" and jobs > 1:
        return _run_cells_on_pool(tasks, jobs, on_done)
    with joblib.parallel_config(backend=backend):
        for data in joblib.Parallel(n_jobs=jobs, return_as="generator")(
                joblib.delayed(_run_cell)(*task) for task in tasks):
            out.append(data)
            if on_done:
                on_done(len(out), len(tasks))
    return out


def _run_cells_on_pool(tasks: list[tuple], jobs: int, on_done: Callable[[int, int], None] | None) -> list:
    """The cells on the runtime's pool of ``jobs`` workers (the one ``--jobs`` warmed; its workers die with this
    process, and no array goes through /dev/shm), the parent waiting. Results in the tasks' order; the first
    error is raised after the cells not started are cancelled (the stored cells stay: a rerun reads them)."""
    from concurrent.futures import as_completed

    from . import runtime

    with warnings.catch_warnings():  # a pool warmed for jobs − 1 processes grows by one: not the user's concern
        warnings.filterwarnings("ignore", message="Trying to resize an executor")
        executor = runtime.pool(jobs)
    futures = [executor.submit(_run_cell, *task) for task in tasks]
    try:
        for n, fut in enumerate(as_completed(futures), start=1):
            fut.result()  # raises the cell's error here
            if on_done:
                on_done(n, len(tasks))
    finally:
        for fut in futures:
            fut.cancel()  # no-op for the cells done or running
    return [fut.result() for fut in futures]


def _confirm(grid, panel, algos: list[str], cells: list[dict], per_claim: dict, by_id: dict, root: Path,
             screen_runs: int, seed: int, false_alarm: float, options: RunOptions, progress, exp_name: str,
             experiment_claims: list) -> tuple[int, int, dict | None]:
    """The confirmation stage of an explored grid: for each claim, the cells most favourable to it in the screen
    are re-run on seeds independent of the screen, with more runs, and tested again (Holm over all of them)."""
    import numpy as np

    from .claims.empirical import cell_tests, judge_empirical
    from .utils.hashing import fingerprint

    picks = {cid: [i for i in sorted(range(len(cells)), key=lambda i, b=b: b["cells"][i]["p_reproduced"])
                   if b["cells"][i]["favourable"]][:grid.confirm] for cid, b in per_claim.items()}
    chosen = sorted({i for v in picks.values() for i in v})
    n_conf = max(grid.confirm_runs, screen_runs)
    seed_conf = int(np.random.SeedSequence([seed, 1]).generate_state(1)[0])  # independent of the screen's runs
    tasks = [(grid.build, cells[i], panel.theorem, algos, n_conf, seed_conf,
              root / "confirm" / f"cell{i:03d}-{fingerprint(cells[i], 8)}-n{n_conf}-s{seed_conf}" / "results")
             for i in chosen]
    data = dict(zip(chosen, _run_cells(tasks, options, progress(f"{panel.name}: confirm")), strict=True))
    pairs = [(cid, i) for cid, v in picks.items() for i in v]
    for (cid, i), row in zip(pairs, cell_tests([(by_id[cid], data[i]) for cid, i in pairs], false_alarm),
                             strict=True):
        per_claim[cid].setdefault("confirmed", []).append({"cell": i, "settings": cells[i], **row})
    for b in per_claim.values():
        conf = b.setdefault("confirmed", [])
        ok = [c for c in conf if c["reproduces"]]
        if not conf:
            b["confirmation"] = "no setting of the grid favours it in mean: nothing to confirm"
            continue
        text = f"confirmed in {len(ok)} of its {len(conf)} most favourable settings, re-run with {n_conf} fresh runs"
        if ok:
            text += ": " + "; ".join(", ".join(f"{k} = {v}" for k, v in c["settings"].items())
                                     + f" (effect {c['estimate']:+.3g}"
                                     + (f", {c['relative']:+.0%}" if c.get("relative") is not None else "") + ")"
                                     for c in ok)
        b["confirmation"] = text
    # the setting that confirms the most claims: every claim of the experiment judged there (descriptive: the
    # setting was chosen with these data)
    score = {i: sum(any(c["cell"] == i and c["reproduces"] for c in b["confirmed"]) for b in per_claim.values())
             for i in chosen}
    best = None
    if score and max(score.values()) > 0:
        i = max(chosen, key=lambda i: (score[i], -sum(c["p_adj_reproduced"] for b in per_claim.values()
                                                      for c in b["confirmed"] if c["cell"] == i)))
        exp_claims = [c for c in experiment_claims if (not c.panels or list(c.panels) == [panel.name])
                      and set(c.algorithms) <= set(algos)]
        judged = judge_empirical(exp_claims, {(exp_name, panel.name): data[i]}, false_alarm)
        best = {"cell": i, "settings": cells[i], "runs": n_conf, "confirms": score[i],
                "claims": [r.to_json() for r in judged],
                "counts": {v: sum(r.verdict == v for r in judged) for v in ("reproduced", "not reproduced",
                                                                            "inconclusive")}}
    return n_conf, seed_conf, best


#: beyond this horizon a reproduce panel stores its steps table every T/1000 steps, cumulative regret (and the
#: prior used) only: what the replication figures and the empirical claims read (25 runs × 30 000 steps × 6
#: algorithms of every record would be ~1 GB per panel); the claims are judged on every step all the same
LONG_HORIZON = 1000
STEPS_KEPT = 1000


def _long_horizon(spec: StudySpec) -> StudySpec:
    """``spec`` with its family's stored steps table thinned (:data:`LONG_HORIZON`), on a copy of the family."""
    import copy

    import numpy as np

    T = int(spec.horizon)
    if T <= LONG_HORIZON:
        return spec
    every = max(1, T // STEPS_KEPT)
    fam = copy.copy(spec.family)
    fam.steps_at = np.unique(np.concatenate([[1], np.arange(every, T + 1, every), [T]]))
    return replace(spec, family=fam)


#: the settings reproduce does not read: each panel has its own horizon, δ and β scale (see settings_from)
_REPRODUCE_UNUSED = ("horizon", "delta", "beta_scale", "until_conclusive", "max_runs", "conformance",
                     "allow_out_of_theory")


def _stand_in_rows(exp, scenario) -> list[dict]:
    """The stand-in's measured properties beside what the paper reports about its real data (one row each)."""
    from .world.stand_in import STAND_IN_ROWS, stand_in_properties

    ours = stand_in_properties(scenario, exp.stand_in_data)
    paper = dict(exp.stand_in_paper)
    return [{"property": label, "paper": paper.get(key, "not reported"), "ours": ours[key]}
            for key, label in STAND_IN_ROWS]


#: ``reproduce --quick``: the runs per panel (the fewest a paired test takes) and the cap on a panel's horizon
QUICK_RUNS, QUICK_MAX_HORIZON = 5, 2000


def reproduce(paper: str, experiment: str | None = None, *, settings: VerifySettings | None = None,
              explore: bool = False, explore_runs: int | None = None, quick: bool = False,
              on_progress: Callable[[str, int, int], None] | None = None,
              **keywords: Unpack[SettingsKeywords]) -> dict:
    """Run (or resume) the experiments of a paper and judge its empirical claims: ``boundcheck reproduce``.

    Every experiment (or only ``experiment``) runs its panels as studies, stored resumably under
    ``out/<experiment>/<panel>-n<runs>-s<seed>/results`` (``out`` default ``reports/reproduce/<paper>``); the
    claims of all of them are judged inside one family-wise false-alarm budget (Holm; ``false_alarm`` default
    :data:`REPRODUCE_FALSE_ALARM`). ``settings`` or its fields as keywords: see :func:`verify` (of them,
    reproduce reads runs, seed, jobs, backend, scheduler, false_alarm, report and out; ``runs`` default: each
    experiment's own). With ``explore``, the claims that did not reproduce are re-tested on the experiment's grid
    of unstated settings (``explore_runs`` per setting). ``quick``: a smaller run, not the paper's settings — each
    experiment's own smaller form where it declares one
    (:meth:`~boundcheck.study.experiments.Experiment.at_quick`: paper 004's Figs 1–3 at T = 200 with 50 / 30 runs
    instead of the paper's T = 30 000), else :data:`QUICK_RUNS` runs per panel (unless ``runs`` says otherwise);
    every horizon capped at :data:`QUICK_MAX_HORIZON`; stored apart (``…-quick``), and every page of its report
    says so. Returns the JSON summary (also written to ``out/reproduce.json``).

    Sized before anything runs: each panel's memory estimate, and with ``explore`` each grid's
    (:func:`~boundcheck.study.preflight.estimate_grid_memory`: every cell and every confirmation, as if no claim
    reproduced), within ``max_memory`` (default: the memory available)."""
    import math
    import time

    from theory.empirical import empirical_claims

    from . import __version__
    from .claims.budget import HolmBudget
    from .claims.empirical import MIN_RUNS, describe_region, explore_claim, judge_empirical, printed_beside_ours
    from .study.experiments import experiments_of, get_experiment, get_paper
    from .study.needs import with_needs
    from .study.preflight import estimate_grid_memory, estimate_study_memory, run_options
    from .utils.hashing import fingerprint
    from .utils.io import atomic_write_json
    from .utils.resources import check_memory
    from .utils.validation import check_int, check_output_dir

    s = settings_from(settings, keywords, caller="reproduce", unused=_REPRODUCE_UNUSED)
    runs, seed, report = s.runs, s.seed, s.report
    false_alarm = REPRODUCE_FALSE_ALARM if s.false_alarm is None else s.false_alarm
    t0 = time.perf_counter()
    pap = get_paper(paper)
    chosen = [get_experiment(pap.id, experiment)] if experiment is not None else experiments_of(pap.id)
    own_quick = sorted(e.name for e in chosen if e.quick is not None)  # experiments with their own quick form
    if quick:
        chosen = [e.at_quick() for e in chosen]
    for name, value in (("runs", runs), ("explore runs", explore_runs)):
        if value is not None and check_int(name, value, minimum=None) < MIN_RUNS:
            raise BoundcheckError(f"{name} must be at least {MIN_RUNS} for a paired test to say anything, got {value}")
    budget = HolmBudget(false_alarm)  # the budget verify uses
    options = run_options(s)
    out = s.out if s.out is not None else check_output_dir("--out", Path("reports") / "reproduce" / pap.id)

    def progress(label: str):
        return None if on_progress is None else (lambda done, total: on_progress(label, done, total))

    # ----------------------------------------------------------------------------- the experiments' studies
    # every panel is built and sized before the first one runs: a refusal leaves nothing behind
    planned, stand_ins = [], {}
    for exp in chosen:
        if not exp.runnable:
            continue
        n = (runs if runs is not None else QUICK_RUNS if quick and exp.name not in own_quick
             else exp.default_runs)
        for panel in exp.panels:
            sc = panel.scenario()
            horizon = exp.horizon if exp.horizon is not None else (sc.horizon if quick else None)
            if quick and horizon is not None:
                horizon = min(horizon, QUICK_MAX_HORIZON)
            spec = build_study(panel.theorem, sc, runs=n, horizon=horizon, seed=seed, policies=panel.algorithms,
                               beta_scale=panel.beta_scale, chunk_size=exp.chunk_size)
            if exp.horizon is not None:  # an experiment at a paper's own long horizon (its figures read R_t only)
                spec = _long_horizon(spec)
            spec = with_needs(spec, exp.needs)  # only what the experiment measures (stop at its event, ...)
            if exp.stand_in and exp.name not in stand_ins:  # the first panel's scenario stands for the data
                stand_ins[exp.name] = _stand_in_rows(exp, spec.scenario)
            check_memory(estimate_study_memory(spec, _capped_jobs(options, spec)[0]), s.max_memory,
                         hint=f"{exp.name}/{panel.name}: lower --runs or --jobs, or set --max-memory if you know "
                              f"better")
            planned.append((exp, n, panel, spec))
    if explore:  # the grids too, as if every claim failed: the screen and confirmation run only after the panels
        for exp, _, panel, spec in planned:
            grid = exp.explore
            if grid is None or panel.name != grid.panel:
                continue
            n_cell = explore_runs if explore_runs is not None else grid.runs
            n_cells = math.prod(len(a.levels) for a in grid.axes)
            check_memory(estimate_grid_memory(
                replace(spec, runs=n_cell), options, n_cells, confirm_cells=grid.confirm * len(exp.claims),
                confirm_runs=max(grid.confirm_runs, n_cell), what=f"{exp.name}: --explore"), s.max_memory,
                hint="lower --explore-runs or --jobs, or set --max-memory if you know better")
    data, panels_json, specs = {}, {}, {}
    rels = [Path(exp.name) / ((f"{panel.name}-n{n}-s{seed}" if exp.horizon is None else
                               f"{panel.name}-n{n}-T{exp.horizon}-s{seed}") + ("-quick" if quick else ""))
            for exp, n, panel, _ in planned]
    summaries = _run_panels([(spec, out / rel / "results", progress(f"{exp.name}/{panel.name}"))
                             for (exp, _, panel, spec), rel in zip(planned, rels, strict=True)], options,
                            s.max_memory)
    for (exp, _, panel, spec), rel, summary in zip(planned, rels, summaries, strict=True):
        data[(exp.name, panel.name)] = _panel_data(out / rel / "results", spec)
        specs[(exp.name, panel.name)] = spec
        panels_json.setdefault(exp.name, []).append({
            "name": panel.name, "title": panel.title, "results": str(rel / "results"), "theorem": spec.theorem.id,
            "scenario": spec.scenario.name, "scenario_description": spec.scenario.description,
            "runs": spec.runs, "horizon": spec.horizon, "delta": spec.delta, "beta_scale": spec.beta_scale,
            "algorithms": list(spec.algorithms), "truth_index": spec.scenario.truth_index,
            "candidate_names": [c.name for c in spec.scenario.candidates],
            "in_theory": summary["in_theory"], "out_of_theory_reasons": summary["out_of_theory_reasons"],
            # a study that stops its runs at an event checks none of the theorem's claims (boundcheck.study.needs)
            "theorem_verdict": summary["verdict"] if spec.needs is None else "not checked (runs stop at their event)",
            "regret": summary["regret"],
            # R-GP-UCB's period N of a time-varying scenario (the stopping-time figure's reference line)
            "reset_period": getattr(spec.scenario, "period", None)})
    claims = [c for exp in chosen for c in empirical_claims(pap.id, exp.name)]
    results = judge_empirical(claims, data, budget)
    printed = {exp.name: printed_beside_ours(exp.printed, {p: d for (e, p), d in data.items() if e == exp.name})
               for exp in chosen if exp.printed and exp.runnable}

    # ----------------------------------------------------------------------------- explore the unstated settings
    explored: dict = {}
    if explore:
        for exp in chosen:
            todo = [r for r in results if r.experiment == exp.name and r.verdict in ("not reproduced", "inconclusive")]
            if not exp.runnable or not todo:
                continue
            if exp.explore is None:
                explored[exp.name] = {"note": "no grid of unstated settings is defined for this experiment"}
                continue
            grid, panel = exp.explore, exp.panel(exp.explore.panel)
            todo = [r for r in todo if r.panels == [panel.name]]
            by_id = {c.id: c for c in claims}
            algos = list(dict.fromkeys([panel.algorithms[0]] + [a for r in todo for a in by_id[r.id].algorithms]))
            n_cell = explore_runs if explore_runs is not None else grid.runs
            cells = grid.cells()
            tasks = [(grid.build, cell, panel.theorem, algos, n_cell, seed,
                      out / exp.name / "explore" / f"cell{i:03d}-{fingerprint(cell, 8)}-n{n_cell}-s{seed}" / "results")
                     for i, cell in enumerate(cells)]
            cell_data = _run_cells(tasks, options, progress(f"{exp.name}: explore"))
            axes = {a.name: list(a.levels) for a in grid.axes}
            per_claim = {}
            for r in todo:
                rows = explore_claim(by_id[r.id], cell_data, false_alarm)
                per_claim[r.id] = {
                    "cells": rows, "where": describe_region(axes, cells, [x["reproduces"] for x in rows]),
                    "favourable_where": describe_region(axes, cells, [x["favourable"] for x in rows]),
                    "reversed_where": describe_region(axes, cells, [x["reversed"] for x in rows])}
            n_conf, seed_conf, best = _confirm(grid, panel, algos, cells, per_claim, by_id,
                                               out / exp.name / "explore", explore_runs or n_cell, seed, false_alarm,
                                               options, progress, exp.name, exp.claims)
            explored[exp.name] = {
                "panel": panel.name, "runs": n_cell, "algorithms": algos, "note": grid.note,
                "axes": [{"name": a.name, "label": a.label, "levels": list(a.levels), "meaning": a.meaning}
                         for a in grid.axes],
                "cells": cells, "claims": per_claim, "confirm_runs": n_conf, "confirm_seed": seed_conf,
                "best_setting": best}

    counts = {v: sum(r.verdict == v for r in results) for v in ("reproduced", "not reproduced", "inconclusive",
                                                                "not run")}
    summary = {
        "paper": pap.to_json(), "experiments": [e.to_json() | {"panel_results": panels_json.get(e.name, []),
                                                               "printed_results": printed.get(e.name, []),
                                                               "stand_in_rows": stand_ins.get(e.name, [])}
                                                for e in chosen],
        "seed": seed, "runs": runs, "false_alarm": false_alarm,
        "budget": (f"family-wise {false_alarm:g} over the {2 * (len(results) - counts['not run'])} one-sided tests "
                   "of this run (two per claim: 'the claim is false', 'the claim is true'), Holm step-down"),
        "claims": [r.to_json() for r in results], "counts": counts, "explore": explored,
        "elapsed_s": time.perf_counter() - t0, "version": __version__, "report": {"html": None, "tex": None},
        "quick": ({"runs": runs if runs is not None else QUICK_RUNS, "max_horizon": QUICK_MAX_HORIZON,
                   "own_form": own_quick} if quick else None),
    }
    out.mkdir(parents=True, exist_ok=True)
    atomic_write_json(out / "reproduce.json", summary, default=str)
    if report:
        from .report.reproduce import write_reports as write_replication_reports

        paths = write_replication_reports(out)
        summary["report"] = {"html": str(paths["html"]), "tex": str(paths["tex"])}
        atomic_write_json(out / "reproduce.json", summary, default=str)
    from .results import ReproduceResult

    return ReproduceResult(summary, out)


def reproduce_all(*, settings: VerifySettings | None = None, quick: bool = False,
                  on_progress: Callable[[str, int, int], None] | None = None,
                  **keywords: Unpack[SettingsKeywords]) -> dict:
    """Every experiment of every paper (:func:`reproduce` on each paper id in turn, ``out/<paper>``), and one
    index page ``out/index.html`` with every claim's verdict: ``boundcheck reproduce --all``.

    Each paper runs at its own settings (``runs`` default: each experiment's own) inside its own family-wise
    budget, as ``reproduce PAPER`` would; ``quick`` as in :func:`reproduce`. ``out`` default
    ``reports/reproduce``. Returns the summary (also ``out/reproduce_all.json``): per paper its counts, claims
    (id, experiment, reading, verdict, effect) and time, the summed counts and the total wall time."""
    import time

    from .report.reproduce.model import quick_text
    from .study.experiments import get_paper, paper_ids
    from .utils.io import atomic_write_json
    from .utils.validation import check_output_dir

    s = settings_from(settings, keywords, caller="reproduce", unused=_REPRODUCE_UNUSED)
    out = s.out if s.out is not None else check_output_dir("--out", Path("reports") / "reproduce")
    t0 = time.perf_counter()
    papers = []
    for pid in paper_ids():
        summ = reproduce(pid, settings=s.replace(out=Path(out) / pid), quick=quick, on_progress=on_progress)
        pap = get_paper(pid)
        papers.append({
            "id": pid, "title": getattr(pap, "title", ""), "source": getattr(pap, "source", ""),
            "counts": summ["counts"], "elapsed_s": summ["elapsed_s"], "report": summ["report"],
            "claims": [{"id": c["id"], "experiment": c["experiment"], "reading": c.get("reading", ""),
                        "verdict": c["verdict"], "effect": effect_text(c, short=True),
                        "details": {"resolution": (c.get("details") or {}).get("resolution")}}
                       for c in summ["claims"]]})
    counts = {v: sum(p["counts"].get(v, 0) for p in papers) for v in ("reproduced", "not reproduced",
                                                                      "inconclusive", "not run")}
    summary = {"papers": papers, "counts": counts, "seed": s.seed, "runs": s.runs, "elapsed_s": 0.0,
               "quick": ({"runs": s.runs or QUICK_RUNS, "max_horizon": QUICK_MAX_HORIZON} if quick else None),
               "version": __version__, "index": None}
    summary["quick_text"] = quick_text(summary)
    summary["elapsed_s"] = time.perf_counter() - t0
    Path(out).mkdir(parents=True, exist_ok=True)
    if s.report:
        from .report.reproduce import write_index as write_reproduce_index

        summary["index"] = str(write_reproduce_index(summary, Path(out)))
    atomic_write_json(Path(out) / "reproduce_all.json", summary, default=str)
    return summary


# ----------------------------------------------------------------------------------- theorems: list, show, bound
# What the CLI shows about theorems, scenarios and reports, as data: cli.py renders it and imports nothing else
# of boundcheck. Each function imports what it needs, so that `boundcheck list` and `--help` stay fast.
def reproducible_papers() -> list[dict]:
    """The papers ``reproduce`` takes: id, title and the names of their experiments (``reproduce --help``)."""
    from .study.experiments import experiments_of, get_paper, paper_ids

    return [{"id": pid, "title": getattr(get_paper(pid), "title", ""),
             "experiments": [e.name for e in experiments_of(pid)]} for pid in paper_ids()]


def list_theorems() -> list[dict]:
    """id, paper, guarantee and default scenario of every installed theorem (``boundcheck list``).

    The theory modules are sympy (≈ 0.3 s to import); the rows are kept in the runtime's cache (``theorems``,
    :mod:`boundcheck.runtime.cache`) under a key made of the theory sources' names, sizes and modification times,
    the installed paper plugins (:func:`boundcheck.utils.discovery.installed_papers_key`) and the package version,
    so ``boundcheck list`` answers without importing sympy unless a theory module or a plugin changed."""
    import json

    from .runtime import cache as runtime_cache
    from .utils.discovery import installed_papers_key

    rows = None
    key = None
    store = runtime_cache("theorems", entries=16)
    spec = importlib.util.find_spec("theory")  # locates the package without importing it
    if spec is not None and spec.origin:
        root = Path(spec.origin).parent
        h = hashlib.sha1(__version__.encode())
        for f in sorted(root.glob("*.py")):
            st = f.stat()
            h.update(f"{f.name}:{st.st_size}:{st.st_mtime_ns};".encode())
        h.update(installed_papers_key().encode())  # a paper installed, removed or edited outside theory/
        key = f"list-{h.hexdigest()[:16]}"
        rows = store.read(key, ".json", lambda path: json.loads(path.read_text()))
    if rows is None:
        import theory

        rows = [{"id": th.id, "paper": th.source, "guarantee": th.guarantee,
                 "default_scenario": th.default_scenario} for th in theory.all_theorems()]
        if key is not None:  # a read-only or full disk: no cache, still correct
            store.write(key, ".json", lambda tmp: Path(tmp).write_text(json.dumps(rows)))
    return rows


def theorem_scenarios() -> list[tuple[str, str, list[str]]]:
    """(id, default scenario, its other scenarios) of every built-in theorem (``verify --help``)."""
    import theory

    return [(th.id, th.default_scenario, [sc for sc in th.scenarios if sc != th.default_scenario])
            for th in theory.all_theorems()]


def _claim_level(c) -> str | None:
    """A claim's own threshold: its allowed failure probability, or its expectation bound."""
    v = c.alpha if c.kind == "probability" else c.expectation_bound
    return None if v is None else str(v)


def theorem_reference(theorem: str | Theorem) -> str:
    """The full reference of the paper a theorem comes from (authors (year), title, venue, arXiv id): the
    theorem's own ``reference``, else that of the paper manifest declaring it, else its ``paper`` field where that
    is a citation (a theorem of your own) rather than a file name; "" when none is known. Never a path: the papers'
    texts are not part of the repository."""
    from theory import plugins

    th = resolve_theorem(theorem)
    if th.reference:
        return th.reference
    paper = plugins.paper_of_theorem(th.id)
    if paper is not None and paper.reference:
        return paper.reference
    text = str(th.paper or "").strip()
    return "" if not text or text.endswith(".txt") or "/" in text else text


def show_theorem(theorem: str | Theorem) -> dict:
    """Everything ``boundcheck show`` prints about a theorem, as JSON: the paper's reference
    (:func:`theorem_reference`), statement, explicit bound and its terms (sympy's ``str``, and LaTeX), schedules,
    symbols and their domains, assumptions, claims, corrections, scenarios, controls and algorithms."""
    import sympy as sp

    th = resolve_theorem(theorem)
    return {
        "id": th.id, "title": th.title, "source": th.source, "reference": theorem_reference(th),
        "guarantee": th.guarantee,
        "symbols": {k: meaning for k, (_, meaning) in th.symbols.items()},
        "domains": {k: th.domain(k).describe() for k in th.symbols},
        "bound": str(th.bound), "bound_terms": {k: str(v) for k, v in th.bound_terms.items()},
        "bound_latex": sp.latex(th.bound), "printed": th.printed,
        "schedules": {k: str(v) for k, v in th.schedules.items()},
        "assumptions": [a.text for a in th.assumptions],
        "claims": [{"id": c.id, "kind": c.kind, "level": _claim_level(c), "statement": c.statement,
                    "source": c.source} for c in th.claims],
        "corrections": [c.__dict__ for c in th.corrections],
        "default_scenario": th.default_scenario, "scenarios": list(th.scenarios),
        "controls": list(th.controls), "algorithms": list(th.algorithms),
        "bites_from": bound_horizons(th),
    }


def bound_horizons(theorem: str | Theorem, scenario: str | Scenario | None = None, *,
                   horizon: int | None = None) -> dict | None:
    """Where each regret bound of the theorem bites on a scenario (default its default scenario and horizon):
    vacuous there or not, and the smallest horizon at which it could be violated
    (:func:`boundcheck.study.bites.theorem_bites`); None for a theorem without a bound claim. Never raises: a
    failure is reported as {"error": …} (``boundcheck show`` stays a description)."""
    from .claims.families import family_for
    from .study.bites import theorem_bites

    th = resolve_theorem(theorem)
    try:
        fam = family_for(th)
        if not any(s.bound is not None for s in fam.claims):
            return None
        sc = resolve_scenario(scenario, th, horizon)
        return theorem_bites(fam, sc, horizon=horizon)
    except Exception as e:  # noqa: BLE001 - advisory
        return {"error": f"{type(e).__name__}: {e}"}


def _finite_result(th, what: str, value) -> float:
    from .claims.families.base import not_a_number

    problem = not_a_number(value)
    if problem is not None:
        raise BoundcheckError(f"theorem {th.id!r}: the {what} is not finite at these values: it is {problem}")
    return float(value.real if isinstance(value, complex) else value)


def evaluate_bound(theorem: str | Theorem, values: dict[str, float]) -> dict:
    """``boundcheck bound``: the explicit bound, its terms and the schedules at t = T, at ``values`` of every
    bound symbol of the theorem (each in its domain: B > 0, γ_T ≥ 0, counts integral ≥ 1, δ ∈ (0, 1); the
    relations between symbols, e.g. H ≤ T, hold). One-line error on anything else, or on overflow."""
    import warnings

    import numpy as np

    from .utils.validation import check_symbol_values

    th = resolve_theorem(theorem)
    unknown = [n for n in values if n not in th.symbols]
    if unknown:
        raise BoundcheckError(f"unknown symbol(s) {', '.join(unknown)} for {th.id}; "
                              f"symbols: {', '.join(th.symbols)}")
    missing = [n for n in th.symbols if n not in values]
    if missing:
        raise BoundcheckError(f"missing --set for {', '.join(missing)} (see `boundcheck show {th.id}`)")
    for name, v in values.items():  # each symbol in the domain its theorem gives it
        dom = th.domain(name)
        if not dom.contains(v):
            raise BoundcheckError(f"--set {name}={v:g}: {name} ({th.symbols[name][1]}) must be {dom.describe()} "
                                  f"for {th.id}")
    check_symbol_values(th, values)  # relations between symbols (e.g. H ≤ T)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            res = th.evaluate(values)
            schedules = {k: th.schedule_values(k, values.get("T", 1.0), values) for k in th.schedules}
        except (OverflowError, ZeroDivisionError, FloatingPointError):
            raise BoundcheckError(f"{th.id}: the bound cannot be evaluated at these values: they are too large "
                                  f"(overflow)") from None
    from .claims.families.base import check_bound

    # the validation verify's instantiation applies too (NaN, ±∞, complex, negative, 0 where positive), at t = T
    T = float(values["T"]) if "T" in values else None
    check_bound(th.id, res["terms"], None if T is None else [T], horizon=T, positive=bool(th.bound.is_positive))
    return {"theorem": th.id, "values": values, "value": _finite_result(th, "explicit bound", res["value"]),
            "terms": {k: _finite_result(th, f"bound term {k}", v) for k, v in res["terms"].items()},
            "schedules": {k: _finite_result(th, f"schedule {k} (at t = T)", v) for k, v in schedules.items()}}


# ------------------------------------------------------------------------------------------------ gamma
MAX_NOISE = 1e100  # boundcheck gamma --noise R: R² is the noise variance


def gamma(kernel: str, horizon: int, *, lengthscale: float = 0.2, grid: int = 20, dim: int = 1, noise: float = 0.1,
          eps: float = 0.0, batch: int = 1, max_memory: int | str | None = None,
          status: Callable[[str], contextlib.AbstractContextManager] | None = None) -> dict:
    """``boundcheck gamma``: a certified bracket on the maximum information gain γ_T of ``kernel`` on a regular
    grid of ``grid``^``dim`` points in [0, 1]^dim, noise R (λ = R²), time variation ``eps`` ∈ [0, 1), ``batch``
    observations per round. Refused (one line) if its memory estimate exceeds ``max_memory`` (default: the memory
    available). ``status(text)``: a context manager shown while it computes (large brackets take minutes).
    Returns the bracket as JSON (lower, upper, methods)."""
    import math

    from .model.kernels import check_lengthscale
    from .model.mig import gamma_for_grid
    from .utils.resources import MemoryEstimate, check_memory, gamma_memory, parse_size
    from .utils.validation import check_int, check_positive, check_unit_interval

    check_lengthscale(lengthscale, "--lengthscale")
    if check_positive("--noise", noise) > MAX_NOISE:  # R² overflows beyond ≈ 1e154
        raise BoundcheckError(f"--noise {noise!r} is too large: at most {MAX_NOISE:g} (R² must be a finite number)")
    grid, dim = check_int("--grid", grid), check_int("--dim", dim)
    horizon, batch = check_int("--horizon", horizon), check_int("--batch", batch)
    if check_unit_interval("--eps", eps) == 1.0:
        raise BoundcheckError("--eps must be below 1 (ε = 1 forgets everything at every step)")
    limit = None if max_memory is None else parse_size(max_memory)
    n = grid**dim if dim * math.log10(max(grid, 1)) < 30 else 10**30
    check_memory(MemoryEstimate(f"the γ bracket (|X| = {grid}^{dim}, T·K = {horizon * batch})",
                                gamma_memory(n, horizon * batch)), limit,
                 hint="lower --horizon, --grid or --dim, or set --max-memory if you know better")
    with status(f"certified γ_T bracket: |X| = {grid}^{dim}, T = {horizon}, K = {batch}") if status else \
            contextlib.nullcontext():
        br = gamma_for_grid(kernel, lengthscale, grid, dim, noise, horizon, eps=eps, batch=batch)
    return br.to_dict()


def gamma_rate(kernel: str, dim: int) -> tuple[str, str]:
    """The asymptotic rate of γ_T for ``kernel`` in ``dim`` dimensions, and the note that says where it is from."""
    from theory.information_gain import NOTE, rate

    return rate(kernel, dim), NOTE


# --------------------------------------------------------------------------------------------- scenarios
def scenario_list() -> list[dict]:
    """Every built-in scenario: its name and its TOML file (None: built by a Python builder)."""
    from .world.catalogue import scenario_files, scenario_names

    files = scenario_files()
    return [{"name": n, "file": str(files[n]) if n in files else None} for n in scenario_names()]


def scenario_info(ref: str | Path, theorem: str | Theorem | None = None) -> dict:
    """A scenario file or built-in scenario in words (``boundcheck scenario show``; validates it on the way).
    With ``theorem``, ``applicability`` says whether the theorem applies to it (:func:`scenario_applicability`)."""
    from .world.catalogue import get_scenario
    from .world.scenario_files import load_scenario, scenario_summary

    ref = str(ref)
    th = None if theorem is None else resolve_theorem(theorem)  # an unknown id: one line before any work
    sc = load_scenario(ref) if _is_scenario_file(ref) else get_scenario(ref)
    info = scenario_summary(sc)
    if th is not None:
        info["applicability"] = scenario_applicability(sc, th)
    return info


def scenario_applicability(scenario: Scenario, theorem: str | Theorem) -> dict:
    """Whether ``theorem`` applies to ``scenario``, predicate by predicate: what ``verify`` checks before it
    simulates anything (exit 3 when it does not apply).

    Returns ``{"theorem", "applies", "rows", "reasons"}``: ``rows`` are ``{predicate, text, ok, how}``, first
    ``scenario_kind`` (whether the theorem's claims can be computed on this kind of scenario at all: if not,
    ``verify`` refuses it, exit 2), then ``labelled`` (the scenario's own in/out-of-theory label), then every
    assumption of the theorem with its predicate's answer (``ok`` None: no predicate checks it); ``reasons``
    is what ``verify`` would say."""
    from .claims.families import family_for

    th = resolve_theorem(theorem)
    fam = family_for(th)
    rows = []
    try:
        fam.check_scenario(scenario)
    except BoundcheckError as exc:
        rows.append({"predicate": "scenario_kind", "text": "the theorem's claims can be computed on this kind of "
                     "scenario", "ok": False, "how": str(exc)})
        return {"theorem": th.id, "applies": False, "rows": rows, "reasons": [str(exc)]}
    rows.append({"predicate": "scenario_kind", "text": "the theorem's claims can be computed on this kind of "
                 "scenario", "ok": True, "how": f"{type(scenario).__name__} with a {type(scenario.truth).__name__} "
                                              "truth"})
    rows.append({"predicate": "labelled", "text": "the scenario's own label", "ok": bool(scenario.in_theory),
                 "how": "in theory" if scenario.in_theory else scenario.out_of_theory_reason})
    rows += fam.assumption_rows(scenario)
    reasons = fam.unmet_assumptions(scenario)
    return {"theorem": th.id, "applies": not reasons, "rows": rows, "reasons": reasons}


def scenario_schema(family: str | None = None) -> dict:
    """The JSON Schema of scenario files (every family, or the one named): ``boundcheck scenario schema``."""
    from .world.scenario_files import schema

    return schema(family)


# ---------------------------------------------------------------------------------------- report wording
def describe_detectable(detectable) -> str:
    """A claim's smallest detectable effect (a power table's ``detectable``) in words."""
    from .report.context import describe_detectable as _describe

    return _describe(detectable)


def replication_headline(summary: dict) -> str:
    """The one-line headline of a ``reproduce`` summary."""
    from .report.reproduce.model import headline

    return headline(summary)


def effect_text(claim: dict, short: bool = False) -> str:
    """An empirical claim's effect (mean paired difference and its simultaneous interval) in words."""
    from .report.reproduce.model import effect_text as _effect_text

    return _effect_text(claim, short=short)


def printed_table(experiment: dict) -> tuple[list[str], list[list[str]]]:
    """The paper's printed numbers beside ours for one experiment of a ``reproduce`` summary, as (header, rows)
    of plain text: paper | ours ± 2 SE | difference | z | relative difference (the terminal's table)."""
    from .report.reproduce.model import PRINTED_HEAD, printed_rows

    return list(PRINTED_HEAD), printed_rows(experiment)


def resolution_text(claim: dict, short: bool = False) -> str:
    """"cannot be resolved at N runs; N′ would" for a judged claim whose band its runs cannot resolve, else ""."""
    from .claims.empirical import resolution_text as _resolution_text

    return _resolution_text(claim, short=short)
