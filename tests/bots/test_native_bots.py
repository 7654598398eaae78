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
    from tablezoo.games import _native  # type: ignore[attr-defined]

    info = game_class(name).info
    for seats in sorted({info.min_seats, info.default_seats, info.max_seats}):
        game = make(name, seats, core="native")
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
                    game.to_json(state)
                )
                positions += 1
                game.apply(state, int(rng.choice(game.legal_actions(state))))
        assert positions > 50


CHEAP = {"search": "search:samples=2", "montecarlo": "montecarlo:samples=2", "agent": "agent:search=4"}
"""Settings that keep a searching bot's moves cheap enough for a test."""


@pytest.mark.parametrize("name", list(GAMES))
def test_every_bot_plays_the_same_moves_on_both_cores(name: str) -> None:
    """The Python bots read a native state through its fields and play it through the
    contract: seeded alike, every bot makes the same moves on either core."""
    from tablezoo.bots.registry import bot_names

    py, nat = make(name, core="python"), make(name, core="native")
    for bot_name in bot_names(py):
        spec = CHEAP.get(bot_name, bot_name)
        bots = {
            core: [make_bot(spec, game) for _ in range(game.num_seats)]
            for core, game in (("py", py), ("nat", nat))
        }
        for k in range(py.num_seats):
            bots["py"][k].reset(seed=k)
            bots["nat"][k].reset(seed=k)
        r1, r2 = np.random.default_rng(3), np.random.default_rng(3)
        a, b = py.initial_state(), nat.initial_state()
        for _ in range(12):
            mover = py.advance(a, r1)
            assert nat.advance(b, r2) == mover
            if mover < 0:
                break
            x = int(bots["py"][mover].act(Seat.of(py, a, mover)))
            y = int(bots["nat"][mover].act(Seat.of(nat, b, mover)))
            assert x == y, f"{bot_name}: {x} on the Python core, {y} on the native core at {py.to_json(a)}"
            py.apply(a, x)
            nat.apply(b, y)
