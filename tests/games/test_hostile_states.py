"""States and configurations no game has are refused, on both cores alike.

A Heckmeck state whose dice do not add up (a roll in phase "keep" with fewer dice than are
left, or none), a sum the kept dice do not make, a claim with nothing to claim or a tile
missing is refused by ``validate`` with :class:`StateError` naming it, by the Python engine
and by the native core with the same message, and refusing it changes nothing. Every game
refuses a seat count out of its range and an option it does not have with
:class:`ConfigError` naming what is allowed; so does the native core built directly (a
``ValueError`` there, with the same message), where a count of 0 or 200,000,000 seats once
crashed the interpreter or overflowed the observation's size.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from tablezoo.games import GAMES, game_class, make
from tablezoo.games.core import ConfigError, StateError
from tablezoo.games.native import available

needs_native = pytest.mark.skipif(not available(), reason="the native core is not built")

KEEP_FIVE = {"phase": "keep", "roll": [1, 1, 1, 1, 2, 2], "kept": [0] * 6, "left": 8, "total": 0}
"""A Heckmeck state's turn fields that validate accepts: eight dice rolled, a face to keep."""

BAD_TURNS: list[tuple[dict[str, Any], str]] = [
    ({"phase": "keep", "roll": [0] * 6}, "roll has 0 dice, but 8 are left to roll"),
    ({"phase": "keep", "roll": [1, 1, 1, 1, 1, 1]}, "roll has 6 dice, but 8 are left to roll"),
    ({"roll": [0, 0, 0, 0, 0, 8]}, "roll holds dice outside the phase 'keep'"),
    (
        {"phase": "keep", "roll": [0, 0, 0, 0, 0, 6], "kept": [0, 0, 0, 0, 0, 2], "left": 6, "total": 10},
        "phase 'keep': no face of the roll is free to keep",
    ),
    ({"total": 5}, "total: the kept dice do not add up to 5 but to 0"),
    ({"kept": [0, 0, 0, 0, 0, 2]}, "kept dice and dice left do not add up to 8"),
    (
        {"phase": "claim", "kept": [8, 0, 0, 0, 0, 0], "left": 0, "total": 8},
        "phase 'claim': the kept dice claim no tile",
    ),
    (
        {"phase": "decide", "kept": [1, 1, 1, 1, 2, 2], "left": 0, "total": 30},
        "phase 'decide' needs dice left and a face not kept yet",
    ),
    ({"grill": list(range(21, 36))}, "tile 36 is nowhere"),
    ({"phase": "over"}, "the game is over with tiles on the grill"),
]


def _fields(game: Any, **changes: Any) -> dict[str, Any]:
    data = json.loads(game.to_json(game.initial_state()))
    data["state"].update(changes)
    return data


def test_a_roll_of_the_dice_left_is_accepted() -> None:
    game = make("heckmeck", 2)
    state = game.from_json(json.dumps(_fields(game, **KEEP_FIVE)))
    assert game.legal_actions(state) == [0, 1, 2, 3, 4, 5]


@pytest.mark.parametrize(("changes", "message"), BAD_TURNS)
def test_heckmeck_states_whose_dice_do_not_add_up_are_refused(changes: dict[str, Any], message: str) -> None:
    game = make("heckmeck", 2)
    data = _fields(game, **changes)
    before = json.dumps(data)
    with pytest.raises(StateError, match=message.replace("(", r"\(").replace(")", r"\)")):
        game.state_from_dict(data)
    assert json.dumps(data) == before  # the dict it was read from is left as it was
    state = game.initial_state()
    text = game.to_json(state)
    with pytest.raises(StateError):
        game.replace(state, **changes)
    assert game.to_json(state) == text  # and so is the state a replace started from


@needs_native
def test_the_native_bots_never_see_a_keep_without_dice() -> None:
    """Once a crash: a state in phase "keep" with an empty roll reached the heuristic's
    ``legal.front()`` and the solver; the core refuses it before any bot sees it."""
    from tablezoo.games import _native  # type: ignore[attr-defined]

    native = _native.Heckmeck(2, {"quick": False})
    fields = native.initial_state().to_fields()
    fields.update(phase="keep")
    with pytest.raises(StateError, match="roll has 0 dice"):
        native.state_from_fields(fields)
    fields.update(roll=[0, 0, 0, 0, 0, 8])
    state = native.state_from_fields(fields)
    assert native.heuristic(state, _native.Rng(0)) == 5
    game = make("heckmeck", 2, core="native")
    assert game.native_port("solver").act(state) == 5


@pytest.mark.parametrize("name", list(GAMES))
def test_seat_counts_out_of_range_are_refused_by_name(name: str) -> None:
    info = game_class(name).info
    allowed = f"is for {info.min_seats} to {info.max_seats} players"
    for seats in (info.min_seats - 1, info.max_seats + 1, 0, -1, 200_000_000):
        with pytest.raises(ConfigError, match=f"{allowed}, not {seats}"):
            make(name, seats)
    for seats in ("3", 2.0, True):
        with pytest.raises(ConfigError, match="seat count must be a whole number"):
            make(name, seats)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", list(GAMES))
def test_unknown_and_wrong_typed_options_are_refused_by_name(name: str) -> None:
    info = game_class(name).info
    allowed = ", ".join(info.option_names) or "none"
    with pytest.raises(ConfigError, match=f"has no option 'bogus'; its options are: {allowed}"):
        make(name, bogus=True)
    for option in info.option_names:
        for value in (1, "yes", None):
            with pytest.raises(ConfigError, match=f"option '{option}' is on or off"):
                make(name, **{option: value})


@needs_native
@pytest.mark.parametrize("name", list(GAMES))
def test_the_core_built_directly_refuses_what_make_refuses(name: str) -> None:
    """The native classes built without make(): the same refusals and messages (a ValueError,
    the base of ConfigError), never a crash nor an observation size that overflowed."""
    from tablezoo.games import _native  # type: ignore[attr-defined]

    cls = game_class(name)
    info = cls.info
    core = getattr(_native, cls.__name__)
    allowed = f"is for {info.min_seats} to {info.max_seats} players"
    for seats in (info.min_seats - 1, info.max_seats + 1, 0, -1, 200_000_000, 2**31 - 1):
        with pytest.raises(ValueError, match=f"{allowed}, not {seats}"):
            core(seats, {})
    with pytest.raises(ValueError, match="has no option 'bogus'; its options are: "):
        core(info.min_seats, {"bogus": True})
    for seats in info.seat_range:
        game = core(seats, info.defaults())
        assert game.observation_size == make(name, seats, core="python").observation_spec.size


@pytest.mark.parametrize("name", list(GAMES))
def test_every_state_of_a_game_passes_validate(name: str) -> None:
    """validate refuses nothing the rules reach (the Python engine's validate is its own for
    Heckmeck, the native core's for every game through its JSON reader)."""
    game = make(name)
    rng = np.random.default_rng(3)
    state = game.initial_state()
    for _ in range(400):
        copy = game.from_json(game.to_json(state))
        assert game.to_json(copy) == game.to_json(state)
        if game.advance(state, rng) < 0:
            break
        game.apply(state, int(rng.choice(game.legal_actions(state))))
