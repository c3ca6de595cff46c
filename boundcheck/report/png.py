"""Writing the report's figures as PNG files, and reading a PNG's size back: Pillow (matplotlib's own PNG
library), the canvas's RGBA pixels as they are, with the figure's resolution recorded."""

from __future__ import annotations

from pathlib import Path

__all__ = ["write_png", "png_size"]


def write_png(path: Path, rgba, dpi: float | None = None) -> Path:
    """Write an (height, width, 4) uint8 RGBA image (``canvas.buffer_rgba()``) to ``path`` as a PNG file,
    ``dpi`` recorded as its pixel density."""
    import numpy as np
    from PIL import Image

    Image.fromarray(np.asarray(rgba)).save(path, format="png", dpi=(dpi, dpi) if dpi else None)
    return Path(path)


def png_size(path: Path) -> tuple[int, int]:
    """(width, height) in pixels of a PNG file (its header only)."""
    from PIL import Image

    with Image.open(path) as im:
        if im.format != "PNG":
            raise ValueError(f"{path} is not a PNG file")
        return im.size
