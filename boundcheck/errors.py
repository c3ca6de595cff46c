"""Errors the CLI turns into a one-line message: exit code 2 (bad input), 3 (theorem not applicable)."""


class BoundcheckError(ValueError):
    """Bad user input: unknown theorem or scenario, invalid parameter, non-PSD kernel, bad config."""


class NotApplicable(BoundcheckError):
    """The theorem's assumptions fail on this scenario or configuration: nothing is simulated (exit code 3)."""

    def __init__(self, message: str, reasons: list[str] | None = None) -> None:
        super().__init__(message)
        self.reasons = list(reasons or [])
