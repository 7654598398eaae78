"""Deprecated: moved to :mod:`tablezoo.training.ppo.sb3_masks`. This path goes in the next release."""

from tablezoo.training._moved import moved

__getattr__ = moved("tablezoo.training.sb3_masks", "tablezoo.training.ppo.sb3_masks")
