"""``python -m boundcheck`` = the ``boundcheck`` command."""

import sys

from .cli import command

code = command()
if code in (130, 143):
    # An interrupt that landed inside a C extension's nested PyRun_* call (while importing it) leaves CPython's
    # "unhandled KeyboardInterrupt" flag set although the command handled it; under ``-m`` CPython then ends the
    # process with SIGINT instead of this exit status (a script, the ``boundcheck`` entry point, is not
    # affected). An empty PyRun_* call clears the flag.
    try:
        import ctypes

        ctypes.pythonapi.PyRun_SimpleString(b"")
    except Exception:  # noqa: BLE001, S110 - no ctypes: the exit status may read as killed by SIGINT
        pass
sys.exit(code)
