"""Deprecated: moved to :mod:`tablezoo.release.ship`. This path goes in the next release."""

from tablezoo.training._moved import moved

__getattr__ = moved(
    "tablezoo.training.ship", "tablezoo.release.ship", "tablezoo.release.cards", "tablezoo.release.recipe"
)

if __name__ == "__main__":  # `python -m tablezoo.training.ship ...`, as older commands say it
    import importlib

    importlib.import_module("tablezoo.release.ship").main()
