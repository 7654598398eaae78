"""Heckmeck am Bratwurmeck's bots: a greedy rule of thumb and an exact single-turn solver.

| name | bot |
|---|---|
| ``heuristic`` | :class:`HeckmeckGreedyBot`: worms first, then the best face; stops on a good claim |
| ``solver`` | :class:`HeckmeckSolverBot`: exact expectimax over the turn's dice |
| ``margin`` | :class:`HeckmeckMarginBot`: the same, a steal also counted for what the victim loses |

The solver: given the grill and the stacks, the solver plays the turn that maximises the
expected change of the mover's worms: a claimed tile's worms (taken from the
grill or stolen), or minus the worms of the top tile lost in a bust. It looks
at this turn only (what later turns bring, such as a tile being stolen back,
is out of its sight), and it is exact for that: every roll is enumerated with
its probability (:func:`tablezoo.games.dice.roll_distribution`).

The margin solver plays the turn that maximises the expected change of the mover's worms less
the mean of the others' (the margin the game is won by): a steal of ``w`` worms is worth
``w · n / (n - 1)`` at ``n`` seats (twice its worms at 2 seats), a take or a bust what it is to
the solver. It is the advice a searching agent's prior may take (``agent:advice=margin``,
:mod:`tablezoo.bots.search`).

A turn's position is ``(kept faces, dice left, sum)``. After a roll the player
keeps one new face; after a keep he stops with his best claim, or rolls the
dice left. The value of each position is computed once per turn and cached.

The native core has a port of both solvers (``Heckmeck::Solver`` and ``Heckmeck::Margin``, declared in
``native/src/games/heckmeck/heckmeck.h`` and defined, with its ``TurnSolver``, in
``native/src/games/heckmeck/bots.cc``), which :func:`~tablezoo.bots.registry.make_bot` seats on a
native game: the same moves and values, many times faster. :class:`HeckmeckSolverBot` plays on the
Python core and is the reference.
"""

from __future__ import annotations

import functools
from typing import Any

from tablezoo.bots.core import Bot, Seat
from tablezoo.games.dice import roll_distribution
from tablezoo.games.heckmeck import (
    FACE_VALUE,
    KEEPING,
    ROLL,
    STEAL,
    TAKE,
    WORM,
    Heckmeck,
    HeckmeckState,
    worms,
)

ALL_FACES = (1 << 6) - 1


class TurnSolver:
    """Expected worm change of every position of one turn, for one board.

    The board is what the claims depend on: the face-up grill tiles, the
    mover's top tile (lost on a bust) and the opponents' top tiles (stealable).
    A steal of ``w`` worms is worth ``steal · w`` (1: the worms it brings the mover).
    """

    def __init__(
        self, grill: list[int], own_stack: list[int], opponent_tops: list[int], steal: float = 1.0
    ) -> None:
        self.bust_value = -worms(own_stack[-1]) if own_stack else 0
        # best claim for each sum with a worm kept (None: no claim)
        self.claim: list[float | None] = [None] * 41
        for s in range(41):
            best: float | None = None
            below = [t for t in grill if t <= s]
            if below:
                best = worms(max(below))
            if s in opponent_tops:
                best = max(best or 0, steal * worms(s))
            self.claim[s] = best
        # the values of this board's positions, kept as long as the solver (functools.cache on the
        # methods would keep every solver ever made alive, in one cache shared by all of them)
        self.after_keep = functools.cache(self._after_keep)
        self.before_roll = functools.cache(self._before_roll)

    @classmethod
    def for_state(cls, state: HeckmeckState, steal: float = 1.0) -> TurnSolver:
        me = state.turn
        tops = [stack[-1] for seat, stack in enumerate(state.stacks) if stack and seat != me]
        return cls(state.grill, state.stacks[me], tops, steal)

    def claim_value(self, kept: int, total: int) -> float | None:
        """The best claim with these kept faces (a bit mask) and sum, or None."""
        return self.claim[total] if kept >> WORM & 1 else None

    def _after_keep(self, kept: int, left: int, total: int) -> float:
        """Value of a position after a keep: the better of stopping and rolling on."""
        claim = self.claim_value(kept, total)
        if left == 0 or kept == ALL_FACES:
            return claim if claim is not None else self.bust_value
        rolling = self.before_roll(kept, left, total)
        return rolling if claim is None else max(claim, rolling)

    def _before_roll(self, kept: int, left: int, total: int) -> float:
        """Expected value of rolling ``left`` dice, keeping the best face each time."""
        expected = 0.0
        for counts, p in roll_distribution(left):
            best = None
            for face in range(6):
                n = counts[face]
                if n and not kept >> face & 1:
                    v = self.after_keep(kept | 1 << face, left - n, total + n * FACE_VALUE[face])
                    if best is None or v > best:
                        best = v
            expected += p * (self.bust_value if best is None else best)
        return expected

    def best_keep(self, kept: int, left: int, total: int, roll: list[int]) -> tuple[int, float]:
        """The face to keep from ``roll`` and the value it leads to."""
        options = [
            (self.after_keep(kept | 1 << f, left - roll[f], total + roll[f] * FACE_VALUE[f]), -f, f)
            for f in range(6)
            if roll[f] and not kept >> f & 1
        ]
        value, _, face = max(options)
        return face, value


def kept_mask(state: HeckmeckState) -> int:
    return sum(1 << f for f in range(6) if state.kept[f])


def opening_turn_value(game: Heckmeck, state: HeckmeckState) -> float:
    """The solver's expected worm change for the turn about to be rolled in ``state``."""
    return TurnSolver.for_state(state).before_roll(0, 8, 0)


class HeckmeckSolverBot:
    """Plays each Heckmeck turn by exact expectimax over the turn's dice."""

    name = "solver"

    def __init__(self) -> None:
        self._solvers: dict[Any, TurnSolver] = {}

    def reset(self, seed: int | None = None) -> None:
        self._solvers.clear()

    def steal(self, state: HeckmeckState) -> float:
        """What a steal's worms are worth to this solver, one each (the worms it brings)."""
        return 1.0

    def _solver(self, state: HeckmeckState) -> TurnSolver:
        me = state.turn
        key = (tuple(state.grill), tuple(state.stacks[me][-1:]),
               tuple(sorted(s[-1] for i, s in enumerate(state.stacks) if s and i != me)))  # fmt: skip
        solver = self._solvers.get(key)
        if solver is None:
            if len(self._solvers) > 64:
                self._solvers.clear()
            solver = self._solvers[key] = TurnSolver.for_state(state, self.steal(state))
        return solver

    def action_values(self, seat: Seat) -> list[float]:
        """The expected worm change of each legal move (``seat.legal``'s order), as the solver sees it.

        A keep is worth the position it leads to, a roll what rolling on is
        expected to bring, a claim the worms of the tile it takes.
        """
        state: HeckmeckState = seat.public_state()
        solver = self._solver(state)
        kept, left, total = kept_mask(state), state.left, state.total
        if state.phase == KEEPING:
            roll = state.roll
            return [
                solver.after_keep(kept | 1 << f, left - roll[f], total + roll[f] * FACE_VALUE[f])
                for f in seat.legal
            ]
        game: Heckmeck = seat.game  # type: ignore[assignment]
        tile, _ = game.claims(state)
        claim = {TAKE: float(worms(tile)) if tile else 0.0, STEAL: self.steal(state) * worms(total)}
        return [solver.before_roll(kept, left, total) if a == ROLL else claim[a] for a in seat.legal]

    def act(self, seat: Seat) -> int:
        state: HeckmeckState = seat.public_state()
        solver = self._solver(state)
        kept, left, total = kept_mask(state), state.left, state.total
        if state.phase == KEEPING:
            face, _ = solver.best_keep(kept, left, total, state.roll)
            return face
        legal = seat.legal
        claim = solver.claim_value(kept, total)
        if ROLL in legal and (claim is None or solver.before_roll(kept, left, total) > claim):
            return ROLL
        # stop: the claim worth more (a steal of the same tile number never ties a grill tile)
        game: Heckmeck = seat.game  # type: ignore[assignment]
        tile, victim = game.claims(state)
        if victim >= 0 and (tile == 0 or self.steal(state) * worms(state.total) >= worms(tile)):
            return STEAL
        return TAKE


class HeckmeckMarginBot(HeckmeckSolverBot):
    """Plays each Heckmeck turn by exact expectimax over the turn's dice for the margin: the
    mover's worms less the mean of the others', so a steal of ``w`` worms is worth ``w · n / (n - 1)``
    at ``n`` seats (what it brings the mover, and what it takes from one of the others)."""

    name = "margin"

    def steal(self, state: HeckmeckState) -> float:
        """What a steal's worms are worth to the margin: ``n / (n - 1)`` each at ``n`` seats."""
        seats = len(state.stacks)
        return seats / (seats - 1)


class HeckmeckGreedyBot:
    """Keeps worms first, then the face worth most; stops on a claim once the sum or the dice say so.

    Args:
        stop_at: stop as soon as a claim is possible and the sum is at least this.
        min_dice: stop whenever a claim is possible and fewer dice than this are left.
    """

    name = "heuristic"

    def __init__(self, stop_at: int = 27, min_dice: int = 3) -> None:
        self.stop_at = stop_at
        self.min_dice = min_dice

    def reset(self, seed: int | None = None) -> None:
        pass

    def act(self, seat: Seat) -> int:
        state = seat.public_state()
        legal = seat.legal
        if state.phase == KEEPING:
            if WORM in legal and not state.kept[WORM]:
                return WORM
            # the face whose dice add the most to the sum; ties go to the higher face
            return max(legal, key=lambda f: (state.roll[f] * FACE_VALUE[f], f))
        claims = [a for a in legal if a in (TAKE, STEAL)]
        if claims and (ROLL not in legal or state.total >= self.stop_at or state.left < self.min_dice):
            return max(claims)  # a steal when there is one: it also costs the victim
        return ROLL if ROLL in legal else claims[0]


BOTS: dict[str, type[Bot]] = {
    "heuristic": HeckmeckGreedyBot,
    "solver": HeckmeckSolverBot,
    "margin": HeckmeckMarginBot,
}
"""This game's bots by name; ``random`` and ``agent`` serve every game (:mod:`tablezoo.bots.registry`)."""
