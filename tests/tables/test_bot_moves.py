"""The bot endpoint's moves on their own: from an observation, and for a seat of a table (no server)."""

from __future__ import annotations

import numpy as np
import pytest

from tablezoo.bots.core import Seat
from tablezoo.bots.registry import make_bot
from tablezoo.games import make
from tablezoo.games.core import CHANCE
from tablezoo.tables.bot_moves import check_seat_request, move_from_observation, seat_move
from tablezoo.tables.table import Table
from tablezoo.tables.wire import ApiError


def test_a_move_from_an_observation_is_the_bots_own() -> None:
    game = make("heckmeck", 2)
    state, rng = game.initial_state(), np.random.default_rng(0)
    while (mover := game.to_move(state)) == CHANCE:
        game.step_chance(state, rng)
    seat = Seat.of(game, state, mover)
    body = {"game": "heckmeck", "num_players": 2, "bot": "agent",
            "observation": seat.observation.tolist(), "mask": seat.mask.tolist()}  # fmt: skip
    expected = make_bot("agent", game).act(seat)
    assert move_from_observation(body) == {"action": expected, "command": game.command(expected)}
    with pytest.raises(ApiError, match="the heuristic bot plays from the game's state") as refused:
        move_from_observation({**body, "bot": "heuristic"})
    assert refused.value.status == 400


def test_a_seat_of_a_table_is_asked_for_only_when_it_is_to_move() -> None:
    table = Table.new("diamant", table_id="t", seed=5)
    for command in ("/join Alice", "/bot random", "/bot heuristic"):
        assert table.handle("alice", command).ok
    with pytest.raises(ApiError, match=r"not under way \(waiting\)"):
        check_seat_request(table, 0, "random", "alice")
    assert table.handle("alice", "/start").ok
    assert table.to_move() == 0  # Alice's seat
    for seat, bot, client, status in [(0, "random", "bob", 403), (9, "random", "alice", 400),
                                      (0, "solver", "alice", 400)]:  # fmt: skip
        with pytest.raises(ApiError) as refused:
            check_seat_request(table, seat, bot, client)
        assert refused.value.status == status
    bot = check_seat_request(table, 0, "heuristic", "alice")
    before = table.version
    move = seat_move(table, 0, bot)
    assert move["command"] in ("go", "camp") and table.version == before
