"""The public face of boundcheck: every command as a function, re-exported from :mod:`boundcheck.commands`.

*What* a command checks (theorem, scenario, algorithms, defects) are its arguments; *how* it runs is one
:class:`VerifySettings` (``settings=``), or its fields as keywords (:func:`~boundcheck.utils.settings.settings_from`).
The code lives in one module per command (``boundcheck/commands/``); importing this module is cheap
(``boundcheck list`` and ``--help`` do): each function imports the engine's modules it needs when called.

>>> from boundcheck import api
>>> summary = api.verify("gp_ucb", runs=20, horizon=30, seed=1, report=False)  # doctest: +SKIP
>>> quick = api.VerifySettings(runs=20, horizon=30, seed=1, report=False)
>>> summary = api.verify("gp_ucb", settings=quick)  # doctest: +SKIP
"""

from __future__ import annotations

from . import __version__
from .commands.inspect import (
                               bound_horizons,
                               evaluate_bound,
                               gamma,
                               gamma_rate,
                               list_theorems,
                               show_theorem,
                               theorem_reference,
                               theorem_scenarios,
)
from .commands.power import power
from .commands.report import index_report, rebuild_report, write_report
from .commands.reproduce import (
                               QUICK_MAX_HORIZON,
                               QUICK_RUNS,
                               REPRODUCE_FALSE_ALARM,
                               reproduce,
                               reproduce_all,
                               reproducible_papers,
)
from .commands.resolve import (
                               DEFAULT_RUNS,
                               applicability,
                               build_study,
                               conformance_shadows,
                               default_out,
                               resolve_defects,
                               resolve_policy,
                               resolve_scenario,
                               resolve_theorem,
)
from .commands.scenario import scenario_applicability, scenario_info, scenario_list, scenario_schema
from .commands.session import check_environment, command_started, prewarm, read_toml, stop_workers
from .commands.store import store_check, store_repair
from .commands.sweep import sweep
from .commands.usercode import user_code_log, user_code_warnings
from .commands.verify import verify
from .errors import BoundcheckError
from .utils.settings import DEFAULT_FALSE_ALARM, DEFAULT_MAX_RUNS, VerifySettings

__all__ = ["resolve_theorem", "resolve_scenario", "resolve_policy", "resolve_defects", "build_study", "verify",
           "power", "applicability", "write_report", "sweep", "reproduce", "VerifySettings", "DEFAULT_RUNS",
           "DEFAULT_MAX_RUNS", "DEFAULT_FALSE_ALARM", "REPRODUCE_FALSE_ALARM", "list_theorems", "theorem_scenarios",
           "show_theorem", "evaluate_bound", "gamma", "gamma_rate", "scenario_list", "scenario_info",
           "scenario_applicability", "scenario_schema", "rebuild_report", "index_report", "reproduce_all",
           "QUICK_RUNS", "QUICK_MAX_HORIZON", "prewarm", "stop_workers", "store_check", "store_repair", "read_toml",
           "check_environment", "reproducible_papers", "default_out", "theorem_reference", "command_started",
           "bound_horizons", "conformance_shadows", "user_code_log", "user_code_warnings", "BoundcheckError",
           "__version__"]
