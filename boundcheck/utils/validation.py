"""One validation module for every layer (in the spirit of ``sklearn.utils.validation``).

Each helper returns the value converted to its canonical Python type or raises
:class:`~boundcheck.errors.BoundcheckError` with a one-line message naming the quantity, what was expected and
what was given. Values are never coerced silently: ``True`` is not an integer, ``2.9`` is not a count, and a
string is not a number.
"""

from __future__ import annotations

import math
import os
import tempfile
from collections.abc import Iterable
from numbers import Integral, Real
from pathlib import Path

import numpy as np

from ..errors import BoundcheckError

__all__ = [
    "check_int",
    "check_real",
    "check_positive",
    "check_nonnegative",
    "check_probability",
    "check_unit_interval",
    "check_choice",
    "check_square_matrix",
    "check_symbol_values",
    "check_seed",
    "check_jobs",
    "check_text",
    "check_output_dir",
    "check_input_file",
    "check_report_dir",
    "read_toml",
    "MAX_SEED",
    "MAX_INT",
    "MAX_TOML_BYTES",
    "MAX_TOML_DEPTH",
]

#: seeds are stored in int64 columns and fed to numpy.random.SeedSequence
MAX_SEED = 2**63 - 1

#: the largest count any setting takes (runs, T, ...): counts become int64 array sizes and floats in the memory
#: estimates, so a larger one is refused here rather than overflowing there (``--runs 1e400``)
MAX_INT = 2**63 - 1

#: input TOML files (scenarios, configs) larger than this are refused before they are read: a scenario is a few
#: kilobytes, its data lives in CSV files beside it
MAX_TOML_BYTES = 16 * 1024**2

#: deepest nesting of arrays and tables accepted in an input TOML file (tomllib recurses once per level, so a
#: 100 000-deep array would end in a RecursionError; no scenario or config needs more than a handful of levels)
MAX_TOML_DEPTH = 32


def _is_bool(value) -> bool:
    return isinstance(value, bool | np.bool_)


def check_real(name: str, value, *, finite: bool = True) -> float:
    """A real number (int or float, not bool, not str); finite unless ``finite=False``."""
    if _is_bool(value) or not isinstance(value, Real):
        raise BoundcheckError(f"{name} must be a number, got {value!r}")
    v = float(value)
    if math.isnan(v) or (finite and math.isinf(v)):
        raise BoundcheckError(f"{name} must be a finite number, got {value!r}")
    return v


def check_int(name: str, value, minimum: int | None = 1, maximum: int | None = None) -> int:
    """An integer in [minimum, maximum]; integral floats (3.0) pass, 2.9 and booleans do not."""
    if _is_bool(value):
        raise BoundcheckError(f"{name} must be an integer, got {value!r}")
    if isinstance(value, Integral):
        v = int(value)
    elif isinstance(value, Real) and math.isfinite(float(value)) and float(value) == int(value):
        v = int(value)
    else:
        raise BoundcheckError(f"{name} must be an integer, got {value!r}")
    if minimum is not None and v < minimum:
        raise BoundcheckError(f"{name} must be at least {minimum}, got {v}")
    most = MAX_INT if maximum is None else maximum
    if v > most:
        shown = str(v) if v < 10**30 else f"a number of {len(str(v))} digits"
        raise BoundcheckError(f"{name} must be at most {most}, got {shown}")
    return v


def check_positive(name: str, value) -> float:
    """A finite number > 0."""
    v = check_real(name, value)
    if v <= 0:
        raise BoundcheckError(f"{name} must be a positive number, got {value!r}")
    return v


def check_nonnegative(name: str, value) -> float:
    """A finite number ≥ 0."""
    v = check_real(name, value)
    if v < 0:
        raise BoundcheckError(f"{name} must be a non-negative number, got {value!r}")
    return v


def check_probability(name: str, value) -> float:
    """A number in the open interval (0, 1) (δ, a false-alarm budget)."""
    v = check_real(name, value)
    if not 0.0 < v < 1.0:
        raise BoundcheckError(f"{name} must lie in (0, 1), got {value!r}")
    return v


def check_unit_interval(name: str, value) -> float:
    """A number in the closed interval [0, 1] (the drift ε)."""
    v = check_real(name, value)
    if not 0.0 <= v <= 1.0:
        raise BoundcheckError(f"{name} must lie in [0, 1], got {value!r}")
    return v


def check_choice(name: str, value, choices: Iterable[str]) -> str:
    """One of ``choices`` (case-sensitive), named in the error."""
    choices = tuple(choices)
    if not isinstance(value, str) or value not in choices:
        raise BoundcheckError(f"unknown {name} {value!r}; choose one of {', '.join(choices)}")
    return value


def check_square_matrix(name: str, value) -> np.ndarray:
    """A finite, square, 2-d float64 array."""
    try:
        M = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise BoundcheckError(f"{name} must be a numeric matrix") from None
    if M.ndim != 2 or M.shape[0] != M.shape[1]:
        raise BoundcheckError(f"{name} must be square, got shape {M.shape}")
    if not np.all(np.isfinite(M)):
        raise BoundcheckError(f"{name} has non-finite entries")
    return M


def check_seed(name: str, value) -> int:
    """A seed: an integer in [0, 2⁶³ − 1]."""
    return check_int(name, value, minimum=0, maximum=MAX_SEED)


def check_jobs(name: str, value, maximum: int = 4096) -> int:
    """A number of workers: −1 (all cores) or an integer in [1, maximum]."""
    v = check_int(name, value, minimum=None, maximum=maximum)
    if v == 0 or v < -1:
        raise BoundcheckError(f"{name} must be a positive number of workers or -1 (all cores), got {v}")
    return v


def check_text(name: str, value, *, empty: bool = False) -> str:
    """A string (not a number, not a list); non-empty unless ``empty=True``."""
    if not isinstance(value, str):
        raise BoundcheckError(f"{name} must be a string, got {value!r}")
    if not empty and not value.strip():
        raise BoundcheckError(f"{name} must not be empty")
    return value


def check_output_dir(name: str, value) -> Path:
    """A directory boundcheck may create and write into, checked without leaving anything behind: not an
    empty string, not an existing file, under no existing file, and its nearest existing ancestor writable
    (probed by creating and removing a temporary file there)."""
    if isinstance(value, str) and not value.strip():
        raise BoundcheckError(f"{name} must name a directory, got an empty string")
    if not isinstance(value, str | os.PathLike):
        raise BoundcheckError(f"{name} must be a path, got {value!r}")
    path = Path(value)
    if "\0" in str(path):
        raise BoundcheckError(f"{name} contains a NUL character")
    if path.exists() and not path.is_dir():
        raise BoundcheckError(f"{name} {str(path)!r} exists and is not a directory")
    probe = path.absolute()
    while not probe.exists():
        if probe.is_symlink():
            raise BoundcheckError(f"{name} {str(path)!r}: {probe} is a dangling symbolic link")
        probe = probe.parent
    if not probe.is_dir():
        raise BoundcheckError(f"{name} {str(path)!r} cannot be created: {probe} is not a directory")
    try:
        fd, tmp = tempfile.mkstemp(dir=probe, prefix=".boundcheck-probe-")
        os.close(fd)
        os.unlink(tmp)
    except OSError as exc:
        raise BoundcheckError(f"{name} {str(path)!r} is not writable: {probe}: {exc.strerror or exc}") from None
    return path


#: the files a report writes into its --out folder (boundcheck.report); a folder that holds one of them but no
#: results/ of a study (nor a sweep's sweep.json) is not boundcheck's: it is never overwritten
REPORT_FILES = ("index.html", "report.tex")


def check_report_dir(path) -> None:
    """Refuse a report folder whose ``index.html`` or ``report.tex`` boundcheck did not write (it would be
    overwritten without a word): the folder exists, holds one of :data:`REPORT_FILES`, and no ``results/``
    folder nor ``sweep.json`` says a study wrote it."""
    path = Path(path)
    if not path.is_dir() or (path / "results").exists() or (path / "sweep.json").exists():
        return
    theirs = [f for f in REPORT_FILES if (path / f).exists()]
    if theirs:
        raise BoundcheckError(f"--out {path} already holds {' and '.join(theirs)} that boundcheck did not write "
                              f"(no results/ beside them); choose another folder or remove them")


def check_symbol_values(theorem, values: dict) -> None:
    """Values given for a theorem's bound symbols (``boundcheck bound --set``) must satisfy the theorem's
    ``constraints``, the relations between symbols (e.g. H ≤ T); each symbol's own range is its ``Domain``."""
    symbols = getattr(theorem, "symbols", {})
    subs = {symbols[k][0]: v for k, v in values.items() if k in symbols}
    for rel in getattr(theorem, "constraints", ()):
        if not rel.free_symbols <= set(subs):
            continue
        if not bool(rel.subs(subs)):
            given = ", ".join(f"{s}={subs[s]:g}" for s in rel.free_symbols)
            raise BoundcheckError(f"the values violate {rel} ({given})")


def check_input_file(name: str, value, *, max_bytes: int | None = None) -> Path:
    """A regular file that can be read: not missing, not a directory, not a FIFO, device or socket (reading
    those blocks or never ends: a symbolic link to ``/dev/zero``), and at most ``max_bytes`` long."""
    import stat

    path = Path(value)
    try:
        st = path.stat()  # follows symbolic links: the file that would be read
    except FileNotFoundError:
        raise BoundcheckError(f"{name} {path} not found") from None
    except OSError as exc:
        raise BoundcheckError(f"cannot read {name} {path}: {exc.strerror or exc}") from None
    if stat.S_ISDIR(st.st_mode):
        raise BoundcheckError(f"{name} {path} is not a file: it is a directory")
    if not stat.S_ISREG(st.st_mode):
        raise BoundcheckError(f"{name} {path} is not a regular file (a FIFO, device or socket)")
    if max_bytes is not None and st.st_size > max_bytes:
        raise BoundcheckError(f"{name} {path} is too large ({st.st_size} bytes; at most {max_bytes} are read)")
    return path


def _toml_depth(data) -> int:
    """The nesting depth of parsed TOML (iterative: the value may be as deep as the parser allowed)."""
    deepest, stack = 0, [(data, 1)]
    while stack:
        value, depth = stack.pop()
        deepest = max(deepest, depth)
        if depth > MAX_TOML_DEPTH:
            break
        children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
        stack.extend((c, depth + 1) for c in children if isinstance(c, dict | list))
    return deepest


def read_toml(name: str, path, error: type[BoundcheckError] = BoundcheckError, where: str | None = None) -> dict:
    """The parsed TOML of the file ``path``, every failure one line (``error``, a :class:`BoundcheckError`
    class): missing or special file, too large (:data:`MAX_TOML_BYTES`), not UTF-8, malformed, nested deeper than
    :data:`MAX_TOML_DEPTH`. ``name`` says what the file is (``"scenario file"``) in the messages about the file,
    ``where`` starts those about its content (default: the path)."""
    import tomllib

    try:
        p = check_input_file(name, path, max_bytes=MAX_TOML_BYTES)
    except BoundcheckError as exc:
        raise error(str(exc)) from None
    name = where if where is not None else str(p)
    try:
        text = p.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise error(f"{name}: not a UTF-8 text file") from None
    except OSError as exc:
        raise error(f"{name}: cannot read it: {exc.strerror or exc}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise error(f"{name}: malformed TOML: {str(exc).splitlines()[0]}") from None
    except RecursionError:  # tomllib recurses once per level of nesting
        raise error(f"{name}: arrays or tables nested too deeply (at most {MAX_TOML_DEPTH} levels)") from None
    if _toml_depth(data) > MAX_TOML_DEPTH:
        raise error(f"{name}: arrays or tables nested too deeply (at most {MAX_TOML_DEPTH} levels)")
    return data
