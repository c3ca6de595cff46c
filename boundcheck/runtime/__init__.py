"""The runtime: worker processes and on-disk caches, behind one interface.

A low layer: it imports only :mod:`boundcheck.utils`, :mod:`boundcheck.errors` and third-party libraries (joblib
through its public API, and only when a pool is wanted); importing it does nothing but define names.

========================================  ==================================================================
:mod:`~boundcheck.runtime.pool`            the reusable loky pool: ``pool``, ``prewarm``, ``preload``,
                                           ``idle_pool``, ``spare_workers``, ``shutdown`` (every early exit)
:mod:`~boundcheck.runtime.forking`         a study's worker share in children forked from the warm parent
:mod:`~boundcheck.runtime.watchdog`        a worker dies with its parent (``watch_parent``)
:mod:`~boundcheck.runtime.cache`           keyed, size-capped, authenticated folders under
                                           ``~/.cache/boundcheck`` (``cache``, ``key_file``)
========================================  ==================================================================
"""

from __future__ import annotations

from . import forking
from .cache import DiskCache, cache, cache_root, key_file
from .pool import (
    NO_MEMMAP,
    ONE_THREAD,
    ParentInfo,
    idle_pool,
    pool,
    pool_config,
    pool_size,
    pool_workers,
    preload,
    prewarm,
    shutdown,
    spare_workers,
    submit_to_each_worker,
    watch_parent,
)

__all__ = ["NO_MEMMAP", "ONE_THREAD", "ParentInfo", "watch_parent", "pool", "pool_config", "pool_workers", "pool_size",
           "prewarm", "preload", "submit_to_each_worker", "idle_pool", "spare_workers", "shutdown", "DiskCache",
           "cache", "cache_root", "key_file", "forking"]
