"""Deprecated: moved to :mod:`tablezoo.training.expert.search_selfplay` (this path goes next release)."""

from tablezoo.training._moved import moved

__getattr__ = moved("tablezoo.training.search_selfplay", "tablezoo.training.expert.search_selfplay")
