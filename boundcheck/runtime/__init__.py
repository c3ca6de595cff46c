"""The runtime: worker pools, warm-up, work in idle workers and on-disk caches, behind one interface.

A low layer: it imports only :mod:`boundcheck.utils`, :mod:`boundcheck.errors` and third-party libraries
(joblib/loky through their public API only, and only when a pool is wanted); the model, study and report
layers, the api and the command line use it. Importing it does nothing but define names.

Pool (:mod:`boundcheck.runtime.pool`)
    ``pool(workers)``: the reusable loky executor (started or resized on demand; its workers run BLAS on one
    thread and die with this process). ``pool_workers(jobs)``: the workers ``--jobs`` asks for beside the
    parent. ``prewarm(jobs, backend)``: start the pool early and have each worker import the ``"pool"`` stage.
    ``pool_config()``: the workers' initializer and memmapping options (``NO_MEMMAP``: no array goes through
    /dev/shm), for joblib's loky backend.
    ``idle_pool()``: the running pool or None (never starts one). ``spare_workers()``: how many of its workers
    may work while the parent works. ``preload(obj)``, ``import_in_workers(*modules)``,
    ``submit_to_each_worker(fn, *args)``: one task per idle worker, not waited for. ``import_in_background(
    *modules)``: a daemon thread of this process. ``shutdown()``: stop the pool now, without a traceback and without a worker left behind (every early
    exit of the command line ends with it).
Forked children (:mod:`boundcheck.runtime.forking`)
    ``forking.enabled()``: whether a study's worker share runs in children forked from the warm parent (Linux;
    ``BOUNDCHECK_START_METHOD=fork|spawn``) instead of loky's fresh interpreters. ``forking.executor(workers)``:
    ``submit(fn, *args) -> Future``, one child per task; ``idle_pool()`` returns it after such a study (the
    report's figures use it) and ``shutdown()`` stops its children too.
Warm-up (:mod:`boundcheck.runtime.warmup`)
    ``register(stage, *modules)``: a higher layer names what to import (``"module"`` or ``"module:function"``)
    at a stage (``"pool"``, ``"parent"``, ``"workers"``); ``registered(stage)``: what is named.
Caches (:mod:`boundcheck.runtime.cache`)
    ``cache(namespace, variable=None, entries=256)``: a keyed, size-capped folder under
    ``~/.cache/boundcheck`` (``BOUNDCHECK_CACHE=DIR|off``; a namespace's own variable, e.g.
    ``BOUNDCHECK_GAMMA_CACHE``, wins) with ``read(key, suffix, reader)`` and ``write(key, suffix, writer)``
    (``read_bytes``/``write_bytes`` alike). Every entry is authenticated by an HMAC tag keyed by a per-user secret
    (``key_file()``: ``BOUNDCHECK_CACHE_KEY``); an entry whose tag fails is reported and is a miss.
"""

from __future__ import annotations

from . import forking
from .cache import DiskCache, cache, cache_root, key_file
from .pool import (
    NO_MEMMAP,
    ONE_THREAD,
    ParentInfo,
    idle_pool,
    import_in_background,
    import_in_workers,
    import_modules,
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
from .warmup import register, registered

__all__ = ["NO_MEMMAP", "ONE_THREAD", "ParentInfo", "watch_parent", "pool", "pool_config", "pool_workers", "pool_size",
           "prewarm", "preload", "submit_to_each_worker", "import_in_workers", "import_in_background",
           "import_modules", "idle_pool", "spare_workers", "shutdown", "register", "registered", "DiskCache",
           "cache", "cache_root", "key_file", "forking"]
