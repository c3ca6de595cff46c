"""boundcheck: empirical verification of regret bounds of Gaussian-process bandit algorithms; its public
interface, imported lazily (``import boundcheck`` stays cheap)::

    import boundcheck as bc

    bc.verify("gp_ucb", algorithm=MyGPUCB, runs=40)          # your policy in the role of the theorem's algorithm
    fast = bc.VerifySettings(runs=40, horizon=60, jobs=1)   # how it runs: one validated object, shared by all
    bc.verify("gp_ucb", settings=fast)                     # ... of verify, sweep, power, reproduce, run_check
    bc.assert_bound_holds("gp_ucb", algorithm=MyGPUCB)       # the same, as a test assertion
    bc.sweep("pe_gp_ucb", ["epsilon=0,0.01", "horizon=50,100"])
    bc.load_scenario("my_problem.toml")

Policies: :class:`AskTellPolicy` (per run: ``ask(t, available) -> index``, ``tell(index, y)``, built from an
:class:`AskTellContext`) or :class:`Policy` (batched over runs: ``start(ctx: RunContext)``,
``select(t, available)``, ``update(t, action, y)``, ``finish()``); :func:`check_policy` checks either.
"""

__version__ = "0.1.0"

_LAZY = {
    "verify": ("boundcheck.api", "verify"),
    "sweep": ("boundcheck.api", "sweep"),
    "VerifySettings": ("boundcheck.api", "VerifySettings"),
    "build_study": ("boundcheck.api", "build_study"),
    "write_report": ("boundcheck.api", "write_report"),
    "Policy": ("boundcheck.policies", "Policy"),
    "RunContext": ("boundcheck.policies", "RunContext"),
    "PolicySpec": ("boundcheck.policies", "PolicySpec"),
    "AskTellPolicy": ("boundcheck.policies", "AskTellPolicy"),
    "AskTellContext": ("boundcheck.policies", "AskTellContext"),
    "register_policy": ("boundcheck.policies", "register"),
    "check_policy": ("boundcheck.testing", "check_policy"),
    "assert_bound_holds": ("boundcheck.testing", "assert_bound_holds"),
    "run_check": ("boundcheck.testing", "run_check"),
    "Scenario": ("boundcheck.world", "Scenario"),
    "load_scenario": ("boundcheck.world", "load_scenario"),
    "register_scenario": ("boundcheck.world", "register_scenario"),
    "register_generator": ("boundcheck.world", "register_generator"),
    "BoundcheckError": ("boundcheck.errors", "BoundcheckError"),
    "UserCodeError": ("boundcheck.errors", "UserCodeError"),
}

__all__ = ["__version__", *_LAZY]


def __getattr__(name: str):
    try:
        module, attr = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'boundcheck' has no attribute {name!r}") from None
    from importlib import import_module

    value = getattr(import_module(module), attr)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)
