"""Bots: one small interface for every player that is not a person.

A bot is asked to act through a :class:`Seat`: what one seat may know at one
decision. A learned policy reads ``seat.observation`` and ``seat.mask``; a
search bot plans on ``seat.sample_state(rng)``, a copy of the game state in
which everything the seat cannot see has been drawn anew
(``Game.determinize``), so no bot can peek at hidden cards.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from tablezoo.games.core import Game


@dataclass
class Seat:
    """One seat's decision: its game, its observation and mask, and safe samples of the state."""

    game: Game[Any]
    seat: int
    observation: np.ndarray
    mask: np.ndarray
    _state: Any

    @classmethod
    def of(cls, game: Game[Any], state: Any, seat: int) -> Seat:
        return cls(game, seat, game.observe(state, seat), game.legal_mask(state), state)

    @property
    def legal(self) -> list[int]:
        return np.flatnonzero(self.mask).tolist()

    def public_state(self) -> Any:
        """A copy of the state, for games with no hidden information (raises otherwise)."""
        if self.game.info.hidden_information:
            raise PermissionError(f"{self.game.info.title} hides information: use sample_state(rng)")
        return self.game.clone(self._state)

    def sample_state(self, rng: np.random.Generator) -> Any:
        """A state consistent with what this seat knows, hidden parts drawn from ``rng``."""
        return self.game.determinize(self._state, self.seat, rng)

    def view(self) -> dict[str, Any]:
        return self.game.view(self._state, self.seat)


class Bot(Protocol):
    """Anything that picks a legal action for a seat."""

    name: str

    def reset(self, seed: int | None = None) -> None:
        """Start a new game; reseed the bot's own randomness when ``seed`` is given."""

    def act(self, seat: Seat) -> int:
        """A legal action id for ``seat``."""


class RandomBot:
    """Picks uniformly among the legal actions."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, seat: Seat) -> int:
        legal = np.flatnonzero(seat.mask)
        return int(legal[self.rng.integers(len(legal))])
