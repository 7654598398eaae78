"""``python -m tablezoo``: the ``tablezoo`` command (:func:`tablezoo.commands.main`)."""

from __future__ import annotations

from tablezoo.commands import main

if __name__ == "__main__":
    main()
