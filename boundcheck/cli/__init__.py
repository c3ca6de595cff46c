"""Command-line interface ``boundcheck`` (every command and option documented in docs/cli.md).

A thin layer over :mod:`boundcheck.api`: it parses the arguments, builds one :class:`~boundcheck.api.VerifySettings`
from the flags (and ``--config FILE.toml``), calls the api and renders what it returns. :data:`COMMANDS` is the
command table (as pip's): each command's module holds its parser (``add_<command>``) and its rendering;
:mod:`.lifetime` the process from start to exit, :mod:`.render` the output the commands share, :mod:`.options` the
flags and exit-code texts they share. It imports of boundcheck only the api, the commands, the errors and the
report's wording (tests/test_architecture.py checks it), so ``list`` and ``--help`` stay fast.
"""

from __future__ import annotations

import argparse

from ..errors import ExitCode
from . import inspect, power, report, reproduce, scenario, store, sweep, verify
from .lifetime import command, main
from .options import EXIT_CODES_HELP, Parser

__all__ = ["COMMANDS", "EXIT_CODES_HELP", "ExitCode", "build_parser", "command", "main"]

#: command name -> the module holding its parser (``add_<name>``) and its rendering, in ``--help`` order
COMMANDS = {"list": inspect, "show": inspect, "bound": inspect, "gamma": inspect, "verify": verify, "sweep": sweep,
            "power": power, "scenario": scenario, "reproduce": reproduce, "report": report, "store": store}


def build_parser() -> argparse.ArgumentParser:
    """The ``boundcheck`` parser: one sub-parser per entry of :data:`COMMANDS`."""
    p = Parser(prog="boundcheck", description="Empirical checks of GP-bandit regret bounds.", epilog=EXIT_CODES_HELP)
    sub = p.add_subparsers(dest="command", required=True, parser_class=Parser, metavar="COMMAND")
    for name, module in COMMANDS.items():
        getattr(module, f"add_{name}")(sub)
    return p

