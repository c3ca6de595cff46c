"""Errors the CLI turns into a one-line message and exit code 2."""


class BoundcheckError(ValueError):
    """Bad user input: unknown theorem or scenario, invalid parameter, non-PSD kernel, bad config."""
