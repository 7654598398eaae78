"""Deprecated: moved to :mod:`tablezoo.commands.play`. This path goes in the next release."""

from tablezoo.training._moved import moved

__getattr__ = moved("tablezoo.training.play", "tablezoo.commands.play")
