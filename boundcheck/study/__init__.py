"""The study layer: a study as objects (``spec``), the simulation engine over chunks of runs (``engine``), the
runner with its backends (``runner``), the result store (``store``) and the summary (``summary``)."""
