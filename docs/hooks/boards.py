"""Boards drawn for the documentation: one seeded game of each, stopped part-way.

The site's pages draw each game's board at build time from this module (see
``pages.py``), and ``docs/images/board-court.svg``, the picture in the README, is
written by it too::

    .venv/bin/python docs/hooks/boards.py          # rewrite docs/images/board-court.svg

``tests/tools/test_docs.py`` checks that the committed picture is what this module
draws now, so it cannot drift from the drawing code.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from tablezoo.bots.core import Seat
from tablezoo.bots.registry import make_bot
from tablezoo.games import CHANCE, TERMINAL, draw, make

GAMES = ("heckmeck", "sechs_nimmt", "diamant", "court")
"""The games, in the order of the documentation."""
NAMES = ["Ann", "Bob", "Cy", "Dee"]
"""The players' names on every board."""
POSITIONS: dict[str, tuple[int, int]] = {
    "heckmeck": (3, 40),
    "sechs_nimmt": (4, 14),
    "diamant": (4, 9),
    "court": (3, 60),
}
"""Each game's seat count and the decisions played before it is drawn."""
README_BOARD = Path(__file__).resolve().parents[1] / "images" / "board-court.svg"
"""The board the README shows."""


def board_svg(name: str, seed: int = 7) -> str:
    """The board of ``name`` after a seeded game of heuristic bots, seen by the seat to move."""
    seats, decisions = POSITIONS[name]
    game = make(name, seats)
    state = game.initial_state()
    rng = np.random.default_rng(seed)
    bots = [make_bot("heuristic", game) for _ in range(seats)]
    for i, bot in enumerate(bots):
        bot.reset(seed + i)
    played = 0
    while True:
        mover = game.to_move(state)
        if mover == CHANCE:
            game.step_chance(state, rng)
            continue
        if mover == TERMINAL or played == decisions:
            break
        game.apply(state, bots[mover].act(Seat.of(game, state, mover)))
        played += 1
    seat = mover if mover >= 0 else 0
    return draw.svg(game, game.view(state, seat), names=NAMES[:seats])


def main() -> None:
    """Write the README's board (``docs/images/board-court.svg``)."""
    README_BOARD.parent.mkdir(parents=True, exist_ok=True)
    README_BOARD.write_text(board_svg("court"))
    print(README_BOARD, file=sys.stderr)


if __name__ == "__main__":
    main()
