"""Deprecated: moved to :mod:`tablezoo.release.export`. This path goes in the next release."""

from tablezoo.training._moved import moved

__getattr__ = moved("tablezoo.training.export", "tablezoo.release.export", "tablezoo.release.onnx_graph")
