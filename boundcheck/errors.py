"""What a command ends with: the exit codes (:class:`ExitCode`, the one source of the CLI help, the README and
docs/cli.md tables), the errors the CLI turns into a one-line message (exit 2 bad input, 3 not applicable) and the
warnings a damaged store or cache raises."""

import enum


class ExitCode(enum.IntEnum):
    """The exit status of a ``boundcheck`` command; ``meaning`` is its line in ``--help`` and in the docs' tables
    (a command with codes of its own, ``reproduce``, ``power``, ``store``, says so in its help)."""

    meaning: str

    def __new__(cls, value: int, meaning: str) -> "ExitCode":
        member = int.__new__(cls, value)
        member._value_ = value
        member.meaning = meaning
        return member

    OK = 0, "no claim violated (holds or inconclusive: the table says which)"
    VIOLATED = 1, "some claim violated"
    BAD_INPUT = 2, "bad input or work refused: one line on stderr, no traceback, nothing written"
    NOT_APPLICABLE = 3, ("not applicable: an assumption of the theorem fails on the scenario or the algorithm's "
                         "configuration (the message names it; nothing written); --allow-out-of-theory runs it anyway")
    INTERNAL_ERROR = 4, "internal error (a bug): one line on stderr, the traceback in a log file it names"
    INCOMPLETE = 5, ("incomplete: every judged claim holds, but some claims were not applicable to the checked code "
                     "(the output names them and the planted defects nothing left catches); --allow-incomplete exits 0")
    INTERRUPTED = 130, "interrupted (Ctrl-C): completed chunks are kept; re-run the same command to resume"
    BROKEN_PIPE = 141, "broken pipe: the output's reader stopped reading (| head); what was computed is stored"
    TERMINATED = 143, "terminated (SIGTERM): as an interrupt"


class BoundcheckError(ValueError):
    """Bad user input: unknown theorem or scenario, invalid parameter, non-PSD kernel, bad config; also work
    refused (a study larger than the memory allowed, a results folder in use by another run)."""


class NotApplicable(BoundcheckError):
    """The theorem's assumptions fail on this scenario or configuration: nothing is simulated (exit code 3)."""

    def __init__(self, message: str, reasons: list[str] | None = None) -> None:
        super().__init__(message)
        self.reasons = list(reasons or [])


class IntegrityWarning(UserWarning):
    """A stored file failed verification (its sha256 differs from the manifest's) or was never recorded:
    it is not used, and ``verify`` recomputes it. The CLI prints it as one line on stderr."""


class CacheIntegrityWarning(IntegrityWarning):
    """An entry of an on-disk cache (:mod:`boundcheck.runtime.cache`) is not used: its authentication tag does not
    verify, or its content fails the checks of the code that reads it (a γ bracket: :mod:`boundcheck.model.mig`);
    it is recomputed and rewritten. Also: the cache's key file is refused (the cache is then not used)."""


class UserCodeError(BoundcheckError):
    """A user's policy raised, or broke the policy protocol (an index outside the available set, a non-integer
    index, …). The message names the policy, the run and the step; the CLI exits with code 2."""
