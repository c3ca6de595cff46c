"""Adapters that check a user's BoTorch / GPyTorch or scikit-learn code against the theorems.

The user keeps their own model and acquisition code (``make_model``, ``make_acquisition``); an adapter runs it in
the ask/tell loop over the available candidates X_t and checks, every step, what the theorems assume of it:
float64 throughout, the prior's kernel, mean and noise exactly (no hyperparameter fitting, no outcome
transform, noise fixed). A model that breaks one is refused with the reason (the run is outside the theorem);
the conformance claims judge the actions it takes either way. docs/botorch.md has the β convention, the
stack's usual mistakes and what catches each.

Optional dependencies: ``pip install "boundcheck[botorch]"`` (:mod:`.botorch`) or ``"boundcheck[sklearn]"``
(:mod:`.sklearn`); without them everything else works and importing an adapter says in one line what to install.
"""

from __future__ import annotations

import importlib

from ..errors import BoundcheckError

__all__ = ["MissingExtra", "OutsideTheory", "require"]


class MissingExtra(BoundcheckError, ImportError):
    """An adapter's optional dependencies are not installed (one line saying what to install; CLI exit 2)."""


class OutsideTheory(BoundcheckError):
    """The checked model breaks an assumption of the theorems (float32, a fitted hyperparameter, an outcome
    transform, learnt noise, ...): the message names it; the CLI exits 2."""


def require(extra: str, *modules: str) -> None:
    """Import ``modules`` or raise :class:`MissingExtra` naming the extra that installs them."""
    for name in modules:
        try:
            importlib.import_module(name)
        except ImportError as exc:
            raise MissingExtra(f"the {extra} adapter needs {name}, which is not installed ({exc.msg}): "
                               f'pip install "boundcheck[{extra}]"') from None
