"""``python -m tablezoo``: the ``tablezoo`` command (:func:`tablezoo.training.cli.main`)."""

from __future__ import annotations

from tablezoo.training.cli import main

if __name__ == "__main__":
    main()
