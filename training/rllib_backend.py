"""Deprecated: moved to :mod:`tablezoo.training.rllib.backend`. This path goes in the next release."""

from tablezoo.training._moved import moved

__getattr__ = moved("tablezoo.training.rllib_backend", "tablezoo.training.rllib.backend")
