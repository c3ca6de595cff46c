"""What every command does around its work: read an input TOML, check the environment variables, start and
stop the worker pool, take the command line's standard output as its own."""

from __future__ import annotations

import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import BoundcheckError
from ..utils import usercode

if TYPE_CHECKING:


    from ..study.runner import RunOptions
    from ..study.spec import StudySpec


# ------------------------------------------------------------------------------------------------ input files
def read_toml(name: str, path: str | Path, where: str | None = None) -> dict:
    """An input TOML file (a config), parsed, or a one-line :class:`BoundcheckError`: missing, a directory or a
    special file, too large, not UTF-8, malformed or nested too deeply
    (:func:`boundcheck.utils.validation.read_toml`)."""
    from ..utils.validation import read_toml as _read

    return _read(name, path, where=where)


def check_environment() -> None:
    """Refuse unknown values of boundcheck's environment variables (``BOUNDCHECK_POSTERIOR_ARITHMETIC``,
    ``BOUNDCHECK_POSTERIOR_REPRESENTATION``, ``BOUNDCHECK_START_METHOD``) before anything starts: making the
    switches checks them (:class:`boundcheck.utils.switches.EnvSwitch`)."""
    from ..model import dataspace, posterior  # noqa: F401 - imported for the check their switches make
    from ..runtime import forking

    forking.start_method()


# ------------------------------------------------------------------------------------------------ workers
# the one place the api reaches the worker pool (boundcheck.runtime)
def prewarm(jobs: int = -1, backend: str = "loky") -> None:
    """Start the worker processes and let them import the engine while this process sets the study up."""
    from .. import runtime, study  # noqa: F401 - importing the study package registers the engine's warm-up

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
    from .. import runtime

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
