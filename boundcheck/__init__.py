"""boundcheck: empirical verification of regret bounds for Gaussian-process bandit algorithms."""

__version__ = "0.1.0"
