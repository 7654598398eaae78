"""The padded observation: one layout for every seat count of a game."""

from __future__ import annotations

import numpy as np
import pytest

from tablezoo.games import GAMES, game_class, make
from tablezoo.games.core import TERMINAL


@pytest.mark.parametrize("name", list(GAMES))
def test_one_layout_for_every_seat_count(name: str) -> None:
    info = game_class(name).info
    specs = [make(name, n).padded_spec for n in info.seat_range]
    assert all(s == specs[0] for s in specs)
    widest = make(name, info.max_seats).observation_spec
    assert specs[0].size == widest.size + info.max_seats


@pytest.mark.parametrize("name", list(GAMES))
def test_padding_keeps_every_value_and_marks_the_seat_count(name: str) -> None:
    info = game_class(name).info
    for n in (info.min_seats, info.max_seats):
        game = make(name, n)
        rng = np.random.default_rng(n)
        state = game.initial_state()
        for _ in range(40):
            mover = game.advance(state, rng)
            if mover == TERMINAL:
                break
            plain = game.observe(state, mover)
            padded = game.observe_padded(state, mover)
            spec, wide = game.observation_spec, game.padded_spec
            assert padded.dtype == np.float32 and padded.shape == (wide.size,)
            assert padded[wide.slice("seats")].tolist() == [float(k == n - 1) for k in range(info.max_seats)]
            for f in spec.fields:
                field = padded[wide.slice(f.name)]
                assert field[: f.size].tolist() == plain[spec.slice(f.name)].tolist()
                assert not field[f.size :].any(), f"{f.name}: the seats that are not there read 0"
            assert (padded <= wide.high()).all() and (padded >= wide.low()).all()
            legal = game.legal_actions(state)
            game.apply(state, legal[int(rng.integers(len(legal)))])


def test_pad_takes_a_batch() -> None:
    game = make("diamant", 3)
    rng = np.random.default_rng(0)
    state = game.initial_state()
    game.advance(state, rng)
    rows = np.stack([game.observe(state, s) for s in range(3)])
    assert np.array_equal(game.pad(rows), np.stack([game.observe_padded(state, s) for s in range(3)]))


def test_options_that_change_a_field_size_still_pad() -> None:
    # with `tactic`, 6 nimmt! plays cards 1..10n+4: the per-card fields are padded to the widest deck
    assert make("sechs_nimmt", 3, tactic=True).padded_spec == make("sechs_nimmt", 10, tactic=True).padded_spec
