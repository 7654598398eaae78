"""Deprecated: moved to :mod:`tablezoo.training.ppo.sb3_batched`. This path goes in the next release."""

from tablezoo.training._moved import moved

__getattr__ = moved("tablezoo.training.sb3_batched", "tablezoo.training.ppo.sb3_batched")
