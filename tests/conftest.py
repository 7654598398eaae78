"""Shared fixtures and helpers of the test suite."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from tablezoo.games import Game, game_class
from tablezoo.games.core import CHANCE, TERMINAL


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
