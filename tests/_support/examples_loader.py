"""A class from the repository's examples/ folder, loaded from its file as a user's would be (examples/ is not a
package)."""

import importlib.util
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def example(name: str, cls: str):
    """``examples/<name>.py``'s class ``cls``, from a module of its own (``example_<name>``)."""
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return getattr(mod, cls)
