"""``python -m boundcheck.cli``: the same as ``python -m boundcheck`` (the ``boundcheck`` command)."""

import runpy

runpy.run_module("boundcheck", run_name="__main__", alter_sys=True)
