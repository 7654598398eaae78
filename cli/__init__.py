"""tablezoo: multi-agent RL environments for tabletop games with chance, hidden information and more
than two players.

The package's layers, each its own subpackage (imports point one way): :mod:`tablezoo.games` (the
engine and the rules) ← :mod:`tablezoo.bots` ← :mod:`tablezoo.envs`, :mod:`tablezoo.wrappers`,
:mod:`tablezoo.tables` ← :mod:`tablezoo.evaluation` ← :mod:`tablezoo.training`, :mod:`tablezoo.release`
← the command line (:mod:`tablezoo.commands`: ``tablezoo``, ``python -m tablezoo``). Importing
``tablezoo`` itself loads none of them.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("tablezoo")
    """The installed package's version."""
except PackageNotFoundError:  # run from a copy of the sources that was never installed
    __version__ = "unknown"

__all__ = ["__version__"]
