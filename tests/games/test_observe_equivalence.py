"""Fast observations are the old observations, value for value.

Every game's ``observe`` keeps digests of the table between calls, and
``observe_batch`` builds many observations at once; both must give exactly what
the plain earlier code gives (``tests/games/observe_oracle.py``). Random legal
games at every configuration the contract tests use (every seat count, the
options) are checked at every state, for every seat, with the seats and the
states observed in orders that keep and that break those digests.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tablezoo.games import GAMES, make
from tablezoo.games.core import CHANCE, TERMINAL
from tests.conftest import config_id, configurations
from tests.games.observe_oracle import ORACLES

CONFIGS = [(name, *c) for name in GAMES for c in configurations(name)]
IDS = [f"{name}-{config_id((seats, options))}" for name, seats, options in CONFIGS]
MAX_DECISIONS = 1500  # per game: To Court the King's random games run to thousands


def _states(game: Any, seed: int) -> list[Any]:
    """Copies of every state of a random legal game (the first ``MAX_DECISIONS`` decisions)."""
    rng = np.random.default_rng(seed)
    state = game.initial_state()
    states = [game.clone(state)]
    decisions = 0
    while decisions < MAX_DECISIONS:
        mover = game.to_move(state)
        if mover == TERMINAL:
            break
        if mover == CHANCE:
            game.step_chance(state, rng)
        else:
            legal = game.legal_actions(state)
            game.apply(state, legal[int(rng.integers(len(legal)))])
            decisions += 1
        states.append(game.clone(state))
    return states


def _assert_same(game: Any, state: Any, seat: int, got: np.ndarray) -> None:
    expected = ORACLES[game.name](game, state, seat)
    assert got.dtype == np.float32 and got.shape == expected.shape
    if not np.array_equal(got, expected):
        spec = game.observation_spec
        wrong = {
            name: (value.tolist(), spec.unpack(expected)[name].tolist())
            for name, value in spec.unpack(got).items()
            if not np.array_equal(value, spec.unpack(expected)[name])
        }
        raise AssertionError(f"{game!r} seat {seat}: fields differ (got, expected): {wrong}")


@pytest.mark.parametrize(("name", "seats", "options"), CONFIGS, ids=IDS)
@pytest.mark.parametrize("seed", [0, 1])
def test_observe_equals_the_old_observe(name: str, seats: int, options: dict[str, bool], seed: int) -> None:
    game = make(name, seats, **options)
    states = _states(game, seed)
    # as an env asks: the mover of each state, in game order (digests kept between calls)
    for state in states:
        mover = game.to_move(state)
        if mover >= 0:
            _assert_same(game, state, mover, game.observe(state, mover))
    # every seat of every state, and the same state twice in a row
    for state in states[:: max(1, len(states) // 300)]:
        for seat in range(seats):
            _assert_same(game, state, seat, game.observe(state, seat))
            _assert_same(game, state, seat, game.observe(state, seat))
    # states far apart, alternately, as a search jumps between nodes
    rng = np.random.default_rng(seed)
    for i in rng.integers(len(states), size=200):
        seat = int(rng.integers(seats))
        _assert_same(game, states[i], seat, game.observe(states[i], seat))


@pytest.mark.parametrize(("name", "seats", "options"), CONFIGS, ids=IDS)
def test_a_state_changed_in_place_is_observed_anew(name: str, seats: int, options: dict[str, bool]) -> None:
    """Digests notice a state that is changed after it was observed (the same object)."""
    game = make(name, seats, **options)
    rng = np.random.default_rng(7)
    state = game.initial_state()
    for _ in range(400):
        mover = game.to_move(state)
        if mover == TERMINAL:
            break
        for seat in range(seats):
            _assert_same(game, state, seat, game.observe(state, seat))
        if mover == CHANCE:
            game.step_chance(state, rng)
        else:
            legal = game.legal_actions(state)
            game.apply(state, legal[int(rng.integers(len(legal)))])


@pytest.mark.parametrize(("name", "seats", "options"), CONFIGS, ids=IDS)
def test_observe_batch_equals_observe(name: str, seats: int, options: dict[str, bool]) -> None:
    game = make(name, seats, **options)
    states = _states(game, 3)
    rng = np.random.default_rng(3)
    picked = [states[i] for i in rng.integers(len(states), size=150)]
    observers = [int(s) for s in rng.integers(seats, size=len(picked))]
    batch = game.observe_batch(picked, observers)
    assert batch.dtype == np.float32 and batch.shape == (len(picked), game.observation_spec.size)
    for row, state, seat in zip(batch, picked, observers, strict=True):
        _assert_same(game, state, seat, row)
    # rows are independent arrays: a batch of one, and an empty batch
    one = game.observe_batch(picked[:1], observers[:1])
    assert one.shape == (1, game.observation_spec.size)
    _assert_same(game, picked[0], observers[0], one[0])
    assert game.observe_batch([], []).shape == (0, game.observation_spec.size)


@pytest.mark.parametrize(("name", "seats", "options"), CONFIGS, ids=IDS)
def test_observe_batch_covers_every_state_of_a_game(name: str, seats: int, options: dict[str, bool]) -> None:
    """One batch of every state of a game (every phase: chance nodes, row choices, drafts,
    the end), each seen by a seat that changes from state to state, row for row ``observe``."""
    game = make(name, seats, **options)
    states = _states(game, 5)
    observers = [i % seats for i in range(len(states))]
    batch = game.observe_batch(states, np.array(observers))  # numpy seats too
    for row, state, seat in zip(batch, states, observers, strict=True):
        expected = game.observe(state, seat)
        if not np.array_equal(row, expected):
            _assert_same(game, state, seat, row)  # names the fields that differ
            raise AssertionError(f"{game!r} seat {seat}: observe_batch differs from observe")


@pytest.mark.parametrize("name", GAMES)
def test_observe_batch_refuses_bad_input(name: str) -> None:
    game = make(name)
    state = game.initial_state()
    with pytest.raises(ValueError, match="2 states and 1 seats"):
        game.observe_batch([state, state], [0])
    with pytest.raises(ValueError, match=f"seat 9 is out of range 0..{game.num_seats - 1}"):
        game.observe_batch([state], [9])
    with pytest.raises(ValueError, match=f"seat -1 is out of range 0..{game.num_seats - 1}"):
        game.observe_batch([state, state], [0, -1])
    for wrong in (True, 1.0, "1"):
        with pytest.raises(ValueError, match=f"seat {wrong!r} is not a seat number 0..{game.num_seats - 1}"):
            game.observe_batch([state, state], [0, wrong])


def test_a_diamant_score_beyond_a_byte_is_observed_exactly() -> None:
    """Diamant builds its table in bytes while every score fits one; a score of five rich caves may not."""
    game = make("diamant", 3)
    rng = np.random.default_rng(3)
    state = game.initial_state()
    game.advance(state, rng)
    for banked in ([0, 255, 3], [256, 0, 0], [0, 7, 600]):
        # the gems banked come from treasure revealed (the native core checks the balance)
        revealed = sum(banked) + sum(state.hauls) + state.pool
        state = game.replace(state, banked=banked, treasure_revealed=revealed)
        for seat in range(3):
            got = game.observe(state, seat)
            _assert_same(game, state, seat, got)
            assert sorted(game.observation_spec.unpack(got)["banked"].tolist()) == sorted(banked)
