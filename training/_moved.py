"""Old import paths of modules that moved in 0.7, kept for one release with a DeprecationWarning.

Each old module (``tablezoo.training.ship``, ``.train``, ...) is a few lines: it warns once on
import and hands every name on to the modules that now hold it, looked up when asked for
(PEP 562), so the old path imports nothing at import time and draws no import across the
layers (``tablezoo.training.ship`` now lives above training, in :mod:`tablezoo.release`).
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable
from typing import Any


def moved(old: str, *new: str) -> Callable[[str], Any]:
    """Warn that ``old`` moved to ``new`` (the first named in the message) and return the module
    ``__getattr__`` that finds each name in the first of ``new`` that has it."""
    warnings.warn(
        f"{old} moved to {' and '.join(new)}; import from there (the old path goes in the next release)",
        DeprecationWarning,
        stacklevel=3,
    )

    def __getattr__(name: str) -> Any:  # noqa: N807 - the module's __getattr__ (PEP 562)
        for module in new:
            target = importlib.import_module(module)
            if hasattr(target, name):
                return getattr(target, name)
        raise AttributeError(f"module {old!r} has no attribute {name!r} (it moved to {', '.join(new)})")

    return __getattr__
