"""What the processes of a command import ahead of need: registered by the layers that know, run by the runtime.

A higher layer names its modules here (strings, so nothing is imported by registering) instead of the runtime
or the study naming them: the study package registers the engine for a fresh worker, the report package its
libraries and its figures' warm-up. Registering has no other effect; :mod:`boundcheck.runtime.pool` imports
what is registered for a stage when that stage comes (:func:`~boundcheck.runtime.pool.prewarm`, or a caller
with :func:`registered`). An entry ``"module:function"`` also calls ``function()`` once imported.

Stages (:data:`STAGES`):

``"pool"``
    each worker of a pool just started (:func:`~boundcheck.runtime.pool.prewarm`): the engine.
``"parent"``
    the parent, in the background, while the workers finish a study whose reports follow.
``"workers"``
    the pool's idle workers after a study whose reports follow (they then draw part of the figures).
"""

from __future__ import annotations

import threading

__all__ = ["STAGES", "register", "registered"]

STAGES = ("pool", "parent", "workers")

_lock = threading.Lock()
_registry: dict[str, list[str]] = {stage: [] for stage in STAGES}


def register(stage: str, *modules: str) -> None:
    """Import ``modules`` (``"package.module"`` or ``"package.module:function"``) at ``stage``, in the order
    registered; registering one again changes nothing."""
    if stage not in _registry:
        raise ValueError(f"unknown warm-up stage {stage!r}; choose {', '.join(STAGES)}")
    with _lock:
        for name in modules:
            if name not in _registry[stage]:
                _registry[stage].append(name)


def registered(stage: str) -> tuple[str, ...]:
    """What is registered for ``stage`` (empty when nothing that registers was imported)."""
    from ..utils.switches import startup_off

    if startup_off("warmup"):
        return ()
    with _lock:
        return tuple(_registry[stage])
