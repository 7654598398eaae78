"""Deprecated: moved to :mod:`tablezoo.games.settings` (the bottom floor, so that every floor's
command declares its flags with it). This path goes in the next release."""

from tablezoo.training._moved import moved

__getattr__ = moved("tablezoo.training.settings", "tablezoo.games.settings")
