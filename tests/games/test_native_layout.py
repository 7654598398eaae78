"""The native observations laid out as the Python spec says, field by field.

The native core writes each game's observation at offsets of its own; the Python
reference's ``observation_spec`` is the description a user reads (the observation table of
the game's docstring). For every configuration, the native vector has the spec's size, and
each field of the spec, at the spec's offset, holds what the reference writes there, at
every state and seat of seeded random games. Each field also changes somewhere in those
games, so that no misplaced offset can hide behind a field that stays zero.
"""

from __future__ import annotations

import collections
from typing import Any

import numpy as np
import pytest

from tablezoo.games import GAMES, make
from tablezoo.games.core import TERMINAL
from tablezoo.games.native import available
from tests.conftest import config_id, configurations

pytestmark = pytest.mark.skipif(not available(), reason="the native core is not built")

CONFIGS = [(name, *c) for name in GAMES for c in configurations(name)]
IDS = [f"{name}-{config_id((seats, options))}" for name, seats, options in CONFIGS]
GAMES_PER_CONFIG = 3
WINDOW = 150  # decisions kept from the start and from the end of each game


@pytest.fixture(scope="module", autouse=True)
def core() -> str:
    """This module compares the cores itself (it overrides the folder's one-core fixture)."""
    return "both"


def _native_states(game: Any, seed: int) -> list[Any]:
    """States of a seeded random game played to its end: its first and its last decisions (a
    game's last round, To Court the King's final roll, comes thousands of decisions in)."""
    rng = np.random.default_rng(seed)
    state = game.initial_state()
    first: list[Any] = []
    last: collections.deque[Any] = collections.deque(maxlen=WINDOW)
    while True:
        mover = game.advance(state, rng)
        (first if len(first) < WINDOW else last).append(game.clone(state))
        if mover == TERMINAL:
            return [*first, *last]
        game.apply(state, int(rng.choice(game.legal_actions(state))))


@pytest.mark.parametrize(("name", "seats", "options"), CONFIGS, ids=IDS)
def test_every_field_is_where_the_spec_puts_it(name: str, seats: int, options: dict[str, bool]) -> None:
    native = make(name, seats, core="native", **options)
    spec = native.reference.observation_spec
    assert native._native.observation_size == spec.size
    seen: dict[str, set[bytes]] = {f.name: set() for f in spec.fields}
    for seed in range(GAMES_PER_CONFIG):
        for state in _native_states(native, seed):
            reference = native.to_reference(state)
            for seat in range(seats):
                mine = native._native.observe(state, seat)
                theirs = native.reference.observe(reference, seat)
                for f in spec.fields:
                    part = mine[spec.slice(f.name)]
                    assert np.array_equal(part, theirs[spec.slice(f.name)]), f"{name} field {f.name!r}"
                    seen[f.name].add(part.tobytes())
    constant = sorted(field for field, values in seen.items() if len(values) < 2)
    assert not constant, f"{name}: fields that never changed in {GAMES_PER_CONFIG} games: {constant}"
