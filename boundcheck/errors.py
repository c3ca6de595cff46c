"""Errors the CLI turns into a one-line message and exit code 2."""


class BoundcheckError(ValueError):
    """Bad user input: unknown theorem or scenario, invalid parameter, non-PSD kernel, bad config."""


class UserCodeError(BoundcheckError):
    """A user's policy raised, or broke the policy protocol (an index outside the available set, a non-integer
    index, …). The message names the policy, the run and the step; the CLI exits with code 2."""
