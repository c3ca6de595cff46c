"""Process-wide switches backed by an environment variable, read once at import: the posterior arithmetic and
representation (:class:`EnvSwitch`, overridden for a block by a context manager that sets the variable too, so
that worker processes started inside the block make the same choice), and the start-up pieces a benchmark
switches off (:func:`startup_off`)."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator

from ..errors import BoundcheckError

__all__ = ["EnvSwitch", "STARTUP_PIECES", "startup_off"]


class EnvSwitch:
    """One named choice among ``choices``, initially ``os.environ.get(env, default)``; an unknown value of the
    variable is refused when the switch is made (the module that owns it is imported), in one line.

    ``what`` names the switch in the error for an unknown choice (``"posterior arithmetic"``)."""

    def __init__(self, env: str, choices: tuple[str, ...], default: str, what: str) -> None:
        self.env, self.choices, self.what = env, choices, what
        self.value = os.environ.get(env, default)
        if self.value not in choices:  # a typo must not silently mean the default
            raise BoundcheckError(f"environment variable {env}={self.value!r}: unknown {what}; choose "
                                  f"{', '.join(choices)} (or unset it: {default})")

    @contextlib.contextmanager
    def use(self, name: str) -> Iterator[None]:
        """Set the choice to ``name`` in this process and in ``os.environ`` for the block; both are restored."""
        if name not in self.choices:
            raise BoundcheckError(f"unknown {self.what} {name!r}; choose {', '.join(self.choices)}")
        old, old_env = self.value, os.environ.get(self.env)
        self.value = name
        os.environ[self.env] = name
        try:
            yield
        finally:
            self.value = old
            if old_env is None:
                os.environ.pop(self.env, None)
            else:
                os.environ[self.env] = old_env


#: the start-up pieces :func:`startup_off` knows, kept because each saves ≥ 10 % of a default verify's wall time
#: (benchmarks/bench_study.py --startup switches each off in turn; docs/performance.md)
STARTUP_PIECES = ("fork", "drawing")
_STARTUP_OFF = frozenset(p.strip() for p in os.environ.get("BOUNDCHECK_STARTUP_OFF", "").split(",") if p.strip())


def startup_off(piece: str) -> bool:
    """Whether the start-up piece ``piece`` is switched off by ``BOUNDCHECK_STARTUP_OFF`` (comma-separated names
    of :data:`STARTUP_PIECES`, read once at import): only for measuring what each piece saves."""
    return piece in _STARTUP_OFF
