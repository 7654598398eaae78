"""Deprecated: moved to :mod:`tablezoo.training.ppo.imitate`. This path goes in the next release."""

from tablezoo.training._moved import moved

__getattr__ = moved("tablezoo.training.imitate", "tablezoo.training.ppo.imitate")
