"""Shared fixtures and helpers of the test suite."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from tablezoo.games import Game, game_class
from tablezoo.games.core import CHANCE, TERMINAL
from tablezoo.games.native import available as native_available


def configurations(name: str) -> list[tuple[int, dict[str, bool]]]:
    """Every seat count with every combination of options when that makes at most
    16 configurations; otherwise every seat count with the default options, and
    every other combination of options at the fewest and the most seats."""
    info = game_class(name).info
    combos = [
        dict(zip(info.option_names, values, strict=True))
        for values in itertools.product((False, True), repeat=len(info.options))
    ]
    defaults, others = combos[0], combos[1:]
    seats = range(info.min_seats, info.max_seats + 1)
    if len(seats) * len(combos) <= 16:
        return [(n, c) for n in seats for c in combos]
    return [(n, defaults) for n in seats] + [
        (n, c) for c in others for n in sorted({info.min_seats, info.max_seats})
    ]


def config_id(config: tuple[int, dict[str, bool]]) -> str:
    n, options = config
    on = [k for k, v in options.items() if v]
    return f"{n}p" + "".join(f"-{k}" for k in on)


def random_playout(
    game: Game[Any], seed: int, max_steps: int = 100_000, visit: Any = None
) -> tuple[Any, int]:
    """Play one game with random legal moves; call ``visit(state)`` before each step."""
    rng = np.random.default_rng(seed)
    state = game.initial_state()
    for step in range(max_steps):
        if visit is not None:
            visit(state)
        mover = game.to_move(state)
        if mover == TERMINAL:
            return state, step
        if mover == CHANCE:
            game.step_chance(state, rng)
        else:
            legal = game.legal_actions(state)
            game.apply(state, legal[int(rng.integers(len(legal)))])
    raise AssertionError(f"{game!r} did not end in {max_steps} steps (seed {seed})")


CORES = ["python", "native"] if native_available() else ["python"]
"""The cores the engine, env and bot tests run on: both where the native core is built."""


@pytest.fixture(scope="module", params=CORES)
def on_each_core(request: pytest.FixtureRequest) -> Iterator[str]:
    """Run a module's tests once per core (``TABLEZOO_CORE`` set for its games, envs and bots).

    The engine, env and bot test folders use it for every test (their conftest.py); a
    module that chooses its cores itself overrides it with a fixture of the same name.
    """
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TABLEZOO_CORE", request.param)
        yield request.param
