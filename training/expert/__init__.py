"""Expert iteration: a policy-and-value network trained from its own search, one per game.

:mod:`~tablezoo.training.expert.config` holds the settings (its `ExpertConfig`)
and the flags made from them; :mod:`~tablezoo.training.expert.run` the loop (imitation, league
and search rounds); :mod:`~tablezoo.training.expert.league` the league's policy gradient;
:mod:`~tablezoo.training.expert.selfplay` the played games' buffers and the minibatch fit;
:mod:`~tablezoo.training.expert.search_selfplay` the Gumbel search self-play in the native core;
:mod:`~tablezoo.training.expert.calibrate` refits a network's value head.

Before 0.7 this was one module, ``tablezoo.training.expert``: its names are still found here
(with a DeprecationWarning) for one release.
"""

from __future__ import annotations

import importlib
import warnings
from typing import Any


def __getattr__(name: str) -> Any:
    """The names of the old ``tablezoo.training.expert`` module, from the modules that hold them now."""
    if name.startswith("__"):
        raise AttributeError(name)
    for module in ("tablezoo.training.expert.config", "tablezoo.training.expert.run"):
        target = importlib.import_module(module)
        if hasattr(target, name):
            warnings.warn(
                f"tablezoo.training.expert.{name} moved to {module}.{name}; import it from there "
                "(the old path goes in the next release)",
                DeprecationWarning,
                stacklevel=2,
            )
            return getattr(target, name)
    raise AttributeError(f"module 'tablezoo.training.expert' has no attribute {name!r}")
