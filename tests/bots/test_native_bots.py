"""The native core's bots: a deterministic bot makes its Python twin's move on every position."""

from __future__ import annotations

import numpy as np
import pytest

from tablezoo.bots.core import Seat
from tablezoo.bots.registry import make_bot
from tablezoo.games import GAMES, game_class, make
from tablezoo.games.native import available

pytestmark = pytest.mark.skipif(not available(), reason="the native core is not built")

DETERMINISTIC = ("heckmeck", "diamant", "sechs_nimmt")
"""Games whose heuristic bot draws no random numbers (To Court the King's plays rollouts)."""


@pytest.fixture(scope="module", autouse=True)
def core() -> str:
    """This module compares the cores itself (it overrides the folder's both-cores fixture)."""
    return "both"


@pytest.mark.parametrize("name", [n for n in GAMES if n in DETERMINISTIC])
def test_the_native_heuristic_makes_the_python_heuristics_moves(name: str) -> None:
    """At the fewest, the usual and the most seats, with no option and with each option on."""
    from tablezoo.games import _native  # type: ignore[attr-defined]

    info = game_class(name).info
    for seats in sorted({info.min_seats, info.default_seats, info.max_seats}):
        for options in [{}, *({option.name: True} for option in info.options)]:
            game = make(name, seats, core="native", **options)
            if not game._native.has_heuristic:
                pytest.skip(f"{info.title} has no native heuristic bot yet")
            bot = make_bot("heuristic", game)
            rng, stream = np.random.default_rng(seats), _native.Rng(seats)
            positions = 0
            for _ in range(8):
                state = game.initial_state()
                while game.advance(state, rng) >= 0:
                    mover = game.to_move(state)
                    assert game._native.heuristic(state, stream) == bot.act(Seat.of(game, state, mover)), (
                        seats,
                        options,
                        game.to_json(state),
                    )
                    positions += 1
                    game.apply(state, int(rng.choice(game.legal_actions(state))))
            assert positions > 50, (seats, options)
