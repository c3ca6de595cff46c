"""What every command's output shares: JSON on stdout, rich tables with their titles above them, the verdicts'
colours, progress (a bar on a terminal, a plain line every few seconds in a CI log), the settings of a command."""

from __future__ import annotations

import contextlib
import json
import sys
import time

from .. import api

#: when the command started (time.monotonic()): the plain progress lines count from here (lifetime resets it)
STARTED = [time.monotonic()]


def _json_default(o):
    import numpy as np

    if isinstance(o, np.generic):
        return o.item()
    if isinstance(o, np.ndarray):
        return o.tolist()
    return str(o)


def print_json(obj) -> None:
    print(json.dumps(obj, indent=2, default=_json_default))


def console():
    from rich.console import Console

    return Console(highlight=False, width=None if sys.stdout.isatty() else 140)


def print_table(con, table) -> None:
    """Print a rich table with its title on a line of its own above it: rich wraps a title to the table's width,
    which breaks a title longer than a narrow table mid-phrase; a line wraps only at the console's width (the
    titles here fit in 80 columns)."""
    title, table.title = table.title, None
    if title:
        con.print(title, style="table.title")
    con.print(table)


COLOUR = {"holds": "green", "violated": "red", "inconclusive": "yellow", "not applicable": "dim",
          "incomplete": "yellow"}


def fmt(x, spec: str = ".3g") -> str:
    return "" if x is None else format(x, spec)


def settings_of(**values) -> api.VerifySettings:
    """The one settings object of a command, from the values given (None: the setting's default)."""
    return api.VerifySettings(**{k: v for k, v in values.items() if v is not None})


#: without a terminal (a CI log), progress is one plain line to stderr at most this often, seconds
PLAIN_PROGRESS_EVERY = 5.0


def plain_progress(label: str):
    """Progress without a terminal: one line to stderr every :data:`PLAIN_PROGRESS_EVERY` seconds at most (the
    first after that long: a short command prints none), and, once a line was printed, one more when every chunk
    is stored, so that the last line is the finished state. Returns (on_chunk, on_progress)."""
    state = {"chunks": "", "steps": "", "last": time.monotonic(), "printed": False}

    def emit(force: bool = False) -> None:
        now = time.monotonic()
        if now - state["last"] >= PLAIN_PROGRESS_EVERY or (force and state["printed"]):
            state["last"], state["printed"] = now, True
            print(f"boundcheck: {label}: {state['steps']}{state['chunks']} [{now - STARTED[0]:.0f} s]",
                  file=sys.stderr, flush=True)

    def on_chunk(done, total):
        state["chunks"] = f"{done}/{total} chunks stored" if isinstance(total, int) else f"{done}/{total}"
        finished = isinstance(total, int) and isinstance(done, int) and done >= total
        if finished and state["steps"]:  # every chunk stored: every run-step is done
            state["steps"] = "100% of the run-steps, "
        emit(force=finished)

    def on_progress(done, total):
        state["steps"] = f"{100 * done / max(total, 1):.0f}% of the run-steps, " if total else ""
        emit()

    return on_chunk, on_progress


def progress_bar(label: str):
    """A bar on stderr (a terminal only) that moves within a second: a spinner and the elapsed time while the
    study is prepared (certified γ brackets), then run-steps done inside the chunks; without a terminal, a
    plain line every few seconds (:func:`_plain_progress`). Returns (progress or None, on_chunk, on_progress)."""
    if not sys.stderr.isatty():
        return None, *plain_progress(label)
    from rich.console import Console
    from rich.markup import escape
    from rich.progress import BarColumn, Progress, SpinnerColumn, TaskProgressColumn, TextColumn, TimeElapsedColumn

    label = escape(label)
    progress = Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), TaskProgressColumn(),
                        TextColumn("{task.fields[chunks]}"), TimeElapsedColumn(), transient=True,
                        console=Console(stderr=True))
    task = progress.add_task(f"{label}: preparing", total=None, chunks="")
    chunks = {"done": 0, "total": None}

    def on_chunk(done, total):
        chunks.update(done=done, total=total)
        progress.update(task, chunks=f"{done}/{total} chunks")

    def on_progress(done, total):
        # "summarising" only once every chunk is stored: the run-steps of the chunks in flight may all be done
        # while others wait to be written
        finished = done >= total and (chunks["total"] is None or chunks["done"] >= chunks["total"])
        progress.update(task, description=f"{label}: {'summarising' if finished else 'simulating'}",
                        completed=done, total=total)

    return progress, on_chunk, on_progress


@contextlib.contextmanager
def shown(progress):
    """Show ``progress`` (a rich Progress, or None: no bar) for the duration of the block."""
    if progress is None:
        yield
        return
    progress.start()
    try:
        yield
    finally:
        progress.stop()

