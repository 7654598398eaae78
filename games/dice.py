"""Six-sided dice as chance nodes, shared by the dice games.

A roll of ``k`` dice is its face counts ``[ones, twos, ..., sixes]`` (a game
may name the faces differently: Heckmeck's sixth face is the worm).
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from tablezoo.games.core import OutcomeError


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


class DiceFaces:
    """How a game names its six faces: rolls as text both ways, and forced rolls checked.

    Args:
        names: the six faces in count order (``"1" .. "5", "W"`` for Heckmeck).
        word: what a face is called in messages (``"face"``, ``"value"``).
        example: a roll written out, for messages.
        highest_first: write rolls from the last face down (``"6 5 2"``).
    """

    def __init__(self, names: tuple[str, ...], word: str, example: str, highest_first: bool = False) -> None:
        if len(names) != 6:
            raise ValueError("a die has six faces")
        self.names = names
        self.word = word
        self.example = example
        self._order = tuple(range(5, -1, -1)) if highest_first else tuple(range(6))

    def parse(self, text: str) -> list[int]:
        """Face counts from faces written out, with or without spaces or commas."""
        counts = [0] * 6
        faces = " ".join(self.names)
        for ch in text.replace(",", "").replace(" ", ""):
            face = ch.upper()  # "w" is the worm; the message quotes what was typed
            if face not in self.names:
                raise OutcomeError(
                    f"{ch!r} is not a die {self.word}; dice show {faces}, e.g. {self.example!r}"
                )
            counts[self.names.index(face)] += 1
        return counts

    def text(self, counts: list[int] | tuple[int, ...]) -> str:
        """Face counts written out as faces: ``[0, 0, 0, 2, 1, 1]`` -> ``"4 4 5 W"``."""
        return " ".join(self.names[f] for f in self._order for _ in range(counts[f]))

    def check_roll(self, outcome: Any, num_dice: int) -> list[int]:
        """A forced roll (six counts, or faces written out) of ``num_dice`` dice, as counts."""
        counts = self.parse(outcome) if isinstance(outcome, str) else outcome
        if (
            not isinstance(counts, (list, tuple))
            or len(counts) != 6
            or not all(isinstance(c, int) and not isinstance(c, bool) and c >= 0 for c in counts)
        ):
            names = ", ".join(f"{n}s" for n in self.names)
            raise OutcomeError(
                f"a roll is six counts [{names}] or faces like {self.example!r}, not {outcome!r}"
            )
        if sum(counts) != num_dice:
            raise OutcomeError(f"the roll must have {num_dice} dice, not {sum(counts)}")
        return list(counts)
