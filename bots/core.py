"""Bots: one small interface for every player that is not a person.

A bot is asked to act through a :class:`Seat`: what one seat may know at one
decision. A learned policy reads ``seat.observation`` and ``seat.mask``; a
search bot plans on ``seat.sample_state(rng)``, a copy of the game state in
which everything the seat cannot see has been drawn anew
(``Game.determinize``), so no bot can peek at hidden cards.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any, Protocol, runtime_checkable

import numpy as np

from tablezoo.games.core import Game, action_mask


class Seat:
    """One seat's decision: its game, its observation and mask, and safe samples of the state.

    The observation, the mask and the legal moves are computed on first use:
    a bot that reads only its view or samples pays for none of them.
    """

    def __init__(self, game: Game[Any], state: Any, seat: int) -> None:
        self.game = game
        self.seat = seat
        self._state = state

    @classmethod
    def of(cls, game: Game[Any], state: Any, seat: int) -> Seat:
        return cls(game, state, seat)

    @cached_property
    def observation(self) -> np.ndarray:
        return self.game.observe(self._state, self.seat)

    @cached_property
    def legal(self) -> list[int]:
        return list(self.game.legal_actions(self._state))  # the bot may keep or change its copy

    @cached_property
    def mask(self) -> np.ndarray:
        return action_mask(self.legal, self.game.num_actions)

    def public_state(self) -> Any:
        """A copy of the state, for games with no hidden information (raises otherwise)."""
        if self.game.info.hidden_information:
            raise PermissionError(f"{self.game.info.title} hides information: use sample_state(rng)")
        return self.game.clone(self._state)

    def sample_state(self, rng: np.random.Generator) -> Any:
        """A state consistent with what this seat knows, hidden parts drawn from ``rng``."""
        return self.game.determinize(self._state, self.seat, rng)

    def native_state(self) -> Any:
        """The state itself, for a bot the native core plays (:mod:`tablezoo.bots.native`).

        A native port reads only what this seat may know, as a Python bot reads only this
        seat (``tests/bots/test_native_bots.py`` checks that its moves do not change with what
        the seat cannot see); no other bot may use it.
        """
        return self._state

    def view(self) -> dict[str, Any]:
        return self.game.view(self._state, self.seat)


@runtime_checkable
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
