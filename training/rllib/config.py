"""The settings of ``tablezoo train --backend rllib``: :class:`RLlibTrainConfig`.

A :class:`~tablezoo.training.ppo.config.TrainConfig` with the RLlib backend's own settings,
each a ``train`` flag of the group "RLlib backend" (:mod:`tablezoo.games.settings`). Importing
this module imports neither torch nor Ray, so that the command line's parser is built on the
core install; :mod:`tablezoo.training.rllib.backend` runs a config.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tablezoo.games.settings import setting
from tablezoo.training.ppo.config import TrainConfig

RLLIB_GROUP = "RLlib backend (--backend rllib, needs the rllib extra)"
"""The title of ``tablezoo train --help``'s group of the RLlib backend's flags."""


def rllib_setting(default: object, help: str) -> Any:
    """A setting of the RLlib backend: a flag of :data:`RLLIB_GROUP` whose help is ``help``."""
    return setting(default, group=RLLIB_GROUP, help=help)


@dataclass
class RLlibTrainConfig(TrainConfig):
    """A :class:`TrainConfig` with the settings of the RLlib backend (saved with the run)."""

    learner_share: float = rllib_setting(0.0, "chance another seat is the learner too")
    """Probability that a seat other than the first learner is also the learner (1: pure self-play)."""
    pool_size: int = rllib_setting(20, "newest snapshots kept in the league")
    """Newest snapshots kept in the league."""
    address: str | None = rllib_setting(None, "Ray cluster to join: auto, HOST:PORT or ray://HOST:10001")
    """Ray cluster to join (``auto``, ``HOST:PORT`` or ``ray://HOST:10001``); none: a local Ray."""
    num_env_runners: int = rllib_setting(1, "actors sampling the envs (default 1)")
    """Actors that sample the envs (0: the driver samples)."""
    num_learners: int = rllib_setting(0, "actors updating the network (default 0)")
    """Actors that update the network (0: the driver does)."""
    checkpoint_every: int = rllib_setting(50_000, "steps between RLlib checkpoints")
    """Steps between RLlib checkpoints (and ``state.json``) in the run folder (0: only at the end)."""
    resume: str | None = rllib_setting(None, "run folder to continue up to --timesteps in all")
    """A run folder of this backend to continue (from its checkpoint) up to ``timesteps`` in all."""
    max_cycles: int | None = rllib_setting(None, "decisions after which an episode is cut")
    """Decisions after which an episode is cut (To Court the King between bots need not end)."""


RLLIB_FLAGS = (
    "address",
    "num_env_runners",
    "num_learners",
    "learner_share",
    "pool_size",
    "checkpoint_every",
    "resume",
    "max_cycles",
)
"""The RLlib backend's own settings, in the order ``tablezoo train --help`` lists them."""
