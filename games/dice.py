"""Six-sided dice as chance nodes, shared by the dice games.

A roll of ``k`` dice is its face counts ``[ones, twos, ..., sixes]`` (a game
may name the faces differently: Heckmeck's sixth face is the worm).
"""

from __future__ import annotations

import functools
import math

import numpy as np


@functools.cache
def roll_distribution(num_dice: int) -> tuple[tuple[tuple[int, ...], float], ...]:
    """Every roll of ``num_dice`` dice as face counts, with its exact probability."""
    outcomes = []
    for counts in _compositions(num_dice, 6):
        ways = math.factorial(num_dice)
        for c in counts:
            ways //= math.factorial(c)
        outcomes.append((counts, ways / 6**num_dice))
    return tuple(outcomes)


def _compositions(total: int, parts: int) -> list[tuple[int, ...]]:
    if parts == 1:
        return [(total,)]
    return [(k, *rest) for k in range(total + 1) for rest in _compositions(total - k, parts - 1)]


def roll_counts(rng: np.random.Generator, num_dice: int) -> list[int]:
    """Roll ``num_dice`` fair dice and return the face counts.

    One draw of a uniform number below ``6**num_dice``, read as base-6 digits:
    exact, and much faster than an array of die rolls.
    """
    x = int(rng.integers(6**num_dice))
    counts = [0] * 6
    for _ in range(num_dice):
        x, face = divmod(x, 6)
        counts[face] += 1
    return counts
