"""Deprecated: moved to :mod:`tablezoo.commands`. This path goes in the next release."""

from tablezoo.training._moved import moved

__getattr__ = moved("tablezoo.training.cli", "tablezoo.commands")

if __name__ == "__main__":  # `python -m tablezoo.training.cli ...`, as older commands say it
    import importlib

    importlib.import_module("tablezoo.commands").main()
