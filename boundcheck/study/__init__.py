"""The study layer: a study as objects (``spec``), the simulation engine over chunks of runs (``engine``), the
runner with its backends (``runner``), the result store (``store``) and the summary (``summary``).

Importing the package registers what a fresh worker of the runtime's pool imports before its first task
(:func:`boundcheck.runtime.prewarm`): the engine, and the parquet writer a task's last step encodes with."""

from .. import runtime as _runtime

_runtime.register("pool", "pyarrow.parquet", "boundcheck.study.runner")
