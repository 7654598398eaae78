"""Deprecated: moved to :mod:`tablezoo.training.expert.selfplay`. This path goes in the next release."""

from tablezoo.training._moved import moved

__getattr__ = moved("tablezoo.training.selfplay", "tablezoo.training.expert.selfplay")
