"""Deprecated: moved to :mod:`tablezoo.training.ppo.sb3`. This path goes in the next release."""

from tablezoo.training._moved import moved

__getattr__ = moved(
    "tablezoo.training.train",
    "tablezoo.training.ppo.sb3",
    "tablezoo.training.ppo.config",
    "tablezoo.commands.train",
    "tablezoo.envs.names",
)
