"""Deprecated: moved to :mod:`tablezoo.release.reproduce`. This path goes in the next release."""

from tablezoo.training._moved import moved

__getattr__ = moved("tablezoo.training.reproduce", "tablezoo.release.reproduce", "tablezoo.release.recipe")
