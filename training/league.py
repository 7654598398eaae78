"""Deprecated: moved to :mod:`tablezoo.training.expert.league`. This path goes in the next release."""

from tablezoo.training._moved import moved

__getattr__ = moved("tablezoo.training.league", "tablezoo.training.expert.league")
