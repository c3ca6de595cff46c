import atexit
import os
import shutil
import tempfile

os.environ.setdefault("MPLBACKEND", "Agg")
# a figure that raises fails the test that draws it (reports otherwise note it and go on)
os.environ.setdefault("BOUNDCHECK_STRICT_FIGURES", "1")

# certified γ brackets are cached on disk between commands (boundcheck.model.mig): the tests use a folder of their
# own, empty at the start (nothing from an earlier run or another tree) and removed at the end
if "BOUNDCHECK_GAMMA_CACHE" not in os.environ:
    _gamma_cache = tempfile.mkdtemp(prefix="boundcheck-gamma-")
    os.environ["BOUNDCHECK_GAMMA_CACHE"] = _gamma_cache
    atexit.register(shutil.rmtree, _gamma_cache, ignore_errors=True)
# the runtime's other caches (boundcheck.runtime.cache: the theorem rows of `boundcheck list`) likewise
if "BOUNDCHECK_CACHE" not in os.environ:
    _cache = tempfile.mkdtemp(prefix="boundcheck-cache-")
    os.environ["BOUNDCHECK_CACHE"] = _cache
    atexit.register(shutil.rmtree, _cache, ignore_errors=True)
# the secret that authenticates cache entries (boundcheck.runtime.cache): the tests' own, never the user's
if "BOUNDCHECK_CACHE_KEY" not in os.environ:
    _key_dir = tempfile.mkdtemp(prefix="boundcheck-key-")
    os.environ["BOUNDCHECK_CACHE_KEY"] = os.path.join(_key_dir, "cache.key")
    atexit.register(shutil.rmtree, _key_dir, ignore_errors=True)
