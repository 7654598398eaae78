"""Deprecated: moved to :mod:`tablezoo.training.expert.calibrate`. This path goes in the next release."""

from tablezoo.training._moved import moved

__getattr__ = moved("tablezoo.training.calibrate", "tablezoo.training.expert.calibrate")

if __name__ == "__main__":  # `python -m tablezoo.training.calibrate ...`, as older commands say it
    import importlib

    importlib.import_module("tablezoo.training.expert.calibrate").main()
