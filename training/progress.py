"""Deprecated: moved to :mod:`tablezoo.training.ppo.progress`. This path goes in the next release."""

from tablezoo.training._moved import moved

__getattr__ = moved("tablezoo.training.progress", "tablezoo.training.ppo.progress")
