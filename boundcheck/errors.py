"""Errors the CLI turns into a one-line message: exit code 2 (bad input), 3 (theorem not applicable); the warnings
a damaged store or cache raises."""


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
