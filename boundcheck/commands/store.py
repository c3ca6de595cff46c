"""``boundcheck store check|repair``: what a results folder holds and verifies; rebuild a damaged manifest."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:


    pass


def store_check(path: str | Path) -> dict:
    """What a results folder (``--out`` or its ``results/``) holds and what of it verifies, writing nothing:
    :func:`boundcheck.study.store.check` (``status``: ``"ok"``, ``"damaged"`` or ``"unrepairable"``). A folder
    that is not a results folder is a :class:`BoundcheckError`."""
    from ..study.store import check

    return check(path)


def store_repair(path: str | Path) -> dict:
    """Rebuild a damaged manifest from the chunks that verify and belong to the folder's configuration:
    :func:`boundcheck.study.store.repair` (the check after the repair, with ``"repaired"``: what was done). The
    same verify command then recomputes only what was not recovered."""
    from ..study.store import repair

    return repair(path)
