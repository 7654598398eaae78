"""A rule-of-thumb bot for To Court the King (``court``): the game's baseline.

:class:`CourtGreedyBot` (name ``"heuristic"``) reads the public state
(``seat.public_state()``: the game hides nothing) and plays every turn for the
**largest group of equal dice**, which is what the big cards (Hunter, Knight,
General), the King and the final round reward.

A turn
------
* **Target.** After each roll the target face is the one with the most dice
  set aside plus active (plus one for a ready card that brings in a die of that
  face); ties go to the face already set aside, then to the higher face. The
  target may change during the turn when another face overtakes it.
* **Matches.** Every active die of the target face is set aside at once
  (``aside all V``), and the other active dice are rolled again.
* **No match** (a roll without a target die, so a die would be wasted): a card
  that makes a target die is used instead, the narrowest first: a card that
  brings in a die of the target face, the Serving Maid (1-3 pips), the
  Noblewoman (+1 to every die one below), the Nobleman (+2 to every die two
  below), the Philosopher (moving pips), the Alchemist (sharing out the pips of
  two or three dice), the Astronomer (a set-aside value), the Magician (any
  value), the Queen (a new die of the target face); then the re-rolls: the
  Merchant (every active die; before the Fool when two or more dice are
  active) and the Fool (one die). Only when none of them helps is one die set
  aside as waste: a face already set aside besides the target (it builds the
  pairs of the Astronomer, Noblewoman, Bishop and Nobleman), else the highest
  (pip totals).
* **Sure gains.** A Noblewoman, Nobleman, Philosopher or Alchemist that makes
  two or more target dice at once is used at any time. Cards that bring in a
  die of another face are used just before a roll (the die joins the roll),
  and every bring-in card and the Queen is used before the last die is set
  aside (no card may be used after it).
* **Stopping early** (not in the final round): when setting every active die
  aside now buys a better card than going on would (a straight for the
  Magician, a full house, a pip total ...), the bot sets all dice aside at
  once. A quick estimate (the target dice, plus the expected matches of the
  other dice under this policy, :func:`expected_matches`, plus a little for the
  ready cards) picks the candidates; ``samples`` rollouts of the rest of the
  turn with this policy (the bot's own seeded dice) decide, comparing the card
  values. In head-to-head play this is worth a few points of win rate.
* **Final round**: the same play, maximising (group size, face); no stopping.

Every step of a card use is planned when the card is chosen, and each planned
step is checked against ``seat.legal`` before it is played (a step that is not
legal drops the plan and the bot falls back to a legal move).

Taking a card
-------------
The bot takes the legal card with the highest :data:`CARD_VALUE`; from most to
least wanted: General (two extra dice); Knight, Bishop; Hunter, Pawn Broker,
Magician; Astronomer; Laborer, Guard; Alchemist; Farmer, Charlatan,
Noblewoman, Nobleman; Merchant; Serving Maid; Philosopher; Fool (ties go to
the later kind). Cards that give a die every turn come first (a brought-in die
of the target face is a sure match, any other joins the rolls), then the sure
conversions. A Fool is taken when nothing else qualifies, and a Charlatan
(it turns the Fool over for an extra die every turn) once it is held.
``pass`` only when nothing else is legal. The values come from head-to-head
games between variants of the bot: ranking the bring-in cards above the
conversions and the Merchant won clearly (58% in two-seat games); the other
changes tried made no clear difference.
The King (which ends the game) is taken whenever it qualifies, unless the
result is only seven of a kind, some opponent has at least ``king_behind``
more extra dice than the bot (it is behind) and a General is there to take
instead.
"""

from __future__ import annotations

import functools
import itertools
import math
from typing import Any, cast

import numpy as np

from tablezoo.bots.core import Bot, Seat
from tablezoo.games.core import CHANCE
from tablezoo.games.court import (
    ALCHEMIST,
    ASIDE,
    ASIDE_ALL,
    ASTRONOMER,
    BISHOP,
    BIT,
    BRING_IN,
    CHARLATAN,
    DIE,
    DONE,
    EXTRA_DICE,
    FARMER,
    FOOL,
    GENERAL,
    GUARD,
    HUNTER,
    KING,
    KNIGHT,
    LABORER,
    MAGICIAN,
    MAID,
    MERCHANT,
    NOBLEMAN,
    NOBLEWOMAN,
    PASS,
    PAWNBROKER,
    PHILOSOPHER,
    PICK,
    PIPS,
    PLAY,
    QUEEN,
    ROLL,
    TAKE,
    TAKE_PHASE,
    USE_ACTION,
    VALUE,
    Court,
    astronomer_dice,
    kinds_met,
    philosopher_sources,
)

CARD_VALUE = {
    FOOL: 1.0,
    CHARLATAN: 4.0,
    FARMER: 4.0,
    MAID: 2.5,
    PHILOSOPHER: 2.0,
    LABORER: 5.0,
    GUARD: 5.0,
    HUNTER: 6.5,
    MERCHANT: 3.0,
    ASTRONOMER: 5.5,
    PAWNBROKER: 6.5,
    NOBLEWOMAN: 4.0,
    MAGICIAN: 6.5,
    KNIGHT: 7.5,
    BISHOP: 7.5,
    ALCHEMIST: 4.8,
    NOBLEMAN: 4.0,
    GENERAL: 8.0,
    KING: 10.0,
}
"""How much the bot wants each card it can take (the Queen comes with the King)."""

GROUP_CARDS = ((2, FARMER), (3, GUARD), (4, HUNTER), (5, KNIGHT), (6, GENERAL), (7, KING))
"""The cards a group of that many equal dice buys."""

MONOTONE = frozenset(CARD_VALUE) - {MAID, PHILOSOPHER}
"""Cards whose cost stays met when dice are added to a result."""

CONVERTERS = (MAID, NOBLEWOMAN, NOBLEMAN, PHILOSOPHER, ALCHEMIST, ASTRONOMER, MAGICIAN)
"""Cards that change active dice, narrowest first."""

READY_BONUS = {MAGICIAN: 1.0, ASTRONOMER: 1.0, QUEEN: 1.0, MAID: 0.5, NOBLEWOMAN: 0.5, NOBLEMAN: 0.4}
READY_BONUS |= {PHILOSOPHER: 0.4, ALCHEMIST: 0.6, MERCHANT: 0.5, FOOL: 0.2}
"""Rough extra target dice a ready card is worth (for the stopping estimate)."""


@functools.cache
def expected_matches(k: int) -> float:
    """Expected target dice that ``k`` non-target active dice still yield when each
    roll sets aside its matches, or one wasted die when there is none."""
    if k <= 0:
        return 0.0
    total = 0.0
    for m in range(k + 1):
        p = math.comb(k, m) * (1 / 6) ** m * (5 / 6) ** (k - m)
        total += p * (m + expected_matches(k - m) if m else expected_matches(k - 1))
    return total


def _aside_all(face: int, count: int) -> int:
    return ASIDE_ALL + face if count > 1 else ASIDE + face


def _result_value(
    result: tuple[int, ...],
    held: list[int],
    supply: list[int],
    values: dict[int, float],
    kinds: frozenset[int] | None = None,
) -> float:
    """The value of the best card ``result`` lets the seat take (0: none)."""
    best = 0.0
    if supply[FOOL] and not held[FOOL]:
        best = values[FOOL]
    if held[FOOL]:
        best = max(best, values[CHARLATAN])
    for kind in kinds_met(result):
        if supply[kind] and not held[kind] and (kinds is None or kind in kinds):
            best = max(best, values[kind])
    return best


class CourtGreedyBot:
    """Plays each turn for the largest group of equal dice and takes the most valuable card.

    Args:
        stop_margin: set everything aside early only when that buys a card worth
            at least this much more than the rollouts' mean.
        samples: rollouts per stopping decision (0: stop on the quick estimate alone).
        king_behind: pass up a bare seven of a kind's King for a General when
            some opponent has at least this many more extra dice.
        card_values: values to use instead of some of :data:`CARD_VALUE`.
        seed: seeds the dice of the rollouts (``reset(seed)`` reseeds them).
    """

    name = "heuristic"

    def __init__(
        self,
        stop_margin: float = 0.0,
        samples: int = 24,
        king_behind: int = 3,
        card_values: dict[int, float] | None = None,
        seed: int | None = None,
    ) -> None:
        self.stop_margin = stop_margin
        self.samples = samples
        self.king_behind = king_behind
        self.values = {**CARD_VALUE, **(card_values or {})}
        self.rng = np.random.default_rng(seed)
        self._plan: list[int] = []  # the steps still to play of the current decision
        self._plan_key = (0, 0)  # (round, place in the round) of the turn it belongs to

    def reset(self, seed: int | None = None) -> None:
        self._plan = []
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    # ------------------------------------------------------------ acting

    def act(self, seat: Seat) -> int:
        state = seat.public_state()
        legal = seat.legal
        phase = state.phase
        if phase == TAKE_PHASE:
            self._plan = []
            return self._take(state, legal)
        key = (state.round, state.pos)
        if phase == PLAY and not (self._plan and self._plan_key == key):
            # a new decision (a stopping plan, all asides, is kept to its end)
            self._plan = self._play(state, None if state.final else cast(Court, seat.game))
            self._plan_key = key
        if self._plan and self._plan_key == key and self._plan[0] in legal:
            return self._plan.pop(0)
        self._plan = []
        return self._fallback(state, legal)

    @staticmethod
    def _fallback(state: Any, legal: list[int]) -> int:
        """A legal move when no plan applies (never expected)."""
        if state.phase == PICK and DONE in legal:
            return DONE
        return legal[0]

    # ------------------------------------------------------------ taking a card

    def _take(self, state: Any, legal: list[int]) -> int:
        takes = [a for a in legal if a != PASS]
        if not takes:
            return PASS
        me = state.turn
        if TAKE + KING in takes and TAKE + GENERAL in takes and max(state.aside) == 7:
            mine = self._extra_dice(state.held[me])
            theirs = max(self._extra_dice(h) for s, h in enumerate(state.held) if s != me)
            if theirs - mine >= self.king_behind:
                takes.remove(TAKE + KING)
        return max(takes, key=lambda a: (self.values[a - TAKE], a))

    @staticmethod
    def _extra_dice(held: list[int]) -> int:
        return sum(EXTRA_DICE[k] * c for k, c in enumerate(held) if c)

    # ------------------------------------------------------------ playing the dice

    def _play(self, state: Any, game: Court | None) -> list[int]:
        """The next steps in the play phase; ``game`` (not in the final round) allows
        stopping early."""
        aside, a, ready = state.aside, state.active, state.ready
        bring = {face: card for card, face in BRING_IN.items() if ready & BIT[card]}
        t = max(range(6), key=lambda f: (aside[f] + a[f] + (f in bring), aside[f], f))
        others = sum(a) - a[t]

        if game is not None:
            stop = self._stop(game, state, t, bring)
            if stop:
                return stop

        # two or more target dice at once: worth a card at any time
        for card in (NOBLEWOMAN, NOBLEMAN, PHILOSOPHER, ALCHEMIST):
            if ready & BIT[card]:
                gain, plan = self._convert(card, state, t)
                if gain >= 2:
                    return plan

        if a[t]:
            if others == 0:  # setting them aside ends the turn: use what adds dice first
                if t in bring:
                    return [USE_ACTION[bring[t]]]
                if ready & BIT[QUEEN]:
                    return [USE_ACTION[QUEEN], VALUE + t]
                if bring:
                    return [USE_ACTION[min(bring.values())]]
            return [_aside_all(t, a[t])]

        if state.fresh:  # the target dice are aside: roll the others (with any brought-in dice)
            if bring:
                return [USE_ACTION[bring[t] if t in bring else min(bring.values())]]
            return [ROLL]

        # no target die in this roll: make one, re-roll, or waste a die
        if t in bring:
            return [USE_ACTION[bring[t]]]
        for card in CONVERTERS:
            if ready & BIT[card]:
                gain, plan = self._convert(card, state, t)
                if gain >= 1:
                    return plan
        if ready & BIT[QUEEN]:
            return [USE_ACTION[QUEEN], VALUE + t]
        rerolls = [MERCHANT, FOOL] if others >= 2 else [FOOL, MERCHANT]
        for card in rerolls:
            if ready & BIT[card]:
                if card == FOOL:
                    return [USE_ACTION[FOOL], DIE + self._spare_die(a, t)]
                dice = [DIE + f for f in range(6) if f != t for _ in range(a[f])]
                return [USE_ACTION[MERCHANT], *dice, DONE]
        if others == 1 and bring:  # the last die: bring in dice to roll after it
            return [USE_ACTION[min(bring.values())]]
        faces = [f for f in range(6) if a[f] and f != t]
        waste = max(faces, key=lambda f: (0 < aside[f] < 3, f))
        return [ASIDE + waste]

    @staticmethod
    def _spare_die(a: list[int], t: int) -> int:
        """A non-target active die to change or re-roll: the lowest."""
        return min(f for f in range(6) if a[f] and f != t)

    def _stop(self, game: Court, state: Any, t: int, bring: dict[int, int]) -> list[int]:
        """Set every die aside now when that buys a clearly better card than going on:
        a quick estimate picks the candidates, rollouts of the rest of the turn decide."""
        aside, a = state.aside, state.active
        held, supply = state.held[state.turn], state.supply
        now = tuple(x + y for x, y in zip(aside, a, strict=True))
        stop_value = _result_value(now, held, supply, self.values)
        if stop_value <= 0:
            return []
        others = sum(a) - a[t]
        group = aside[t] + a[t] + expected_matches(others) + (t in bring)
        group += sum(v for card, v in READY_BONUS.items() if state.ready & BIT[card])
        kept = list(aside)
        kept[t] += a[t]
        go_on = _result_value(tuple(kept), held, supply, self.values, MONOTONE)
        for size, card in GROUP_CARDS:
            if group + 0.5 >= size and supply[card] and not held[card]:
                go_on = max(go_on, self.values[card])
        if stop_value <= go_on:
            return []
        if self.samples and stop_value < self._rollouts(game, state) + self.stop_margin:
            return []
        return [_aside_all(f, a[f]) for f in range(6) if a[f]]

    def _rollouts(self, game: Court, state: Any) -> float:
        """The mean value of the best card at the end of the turn, going on without stopping."""
        held, supply = state.held[state.turn], state.supply
        total = 0.0
        for _ in range(self.samples):
            s = game.clone(state)
            while s.phase != TAKE_PHASE:
                if s.phase == PLAY:
                    for action in self._play(s, None):
                        game.apply(s, action)
                elif game.to_move(s) == CHANCE:
                    game.step_chance(s, self.rng)
                else:  # an unfinished card use (not expected): no estimate
                    return math.inf
            total += _result_value(tuple(s.aside), held, supply, self.values)
        return total / self.samples

    # ------------------------------------------------------------ card uses

    def _convert(self, card: int, state: Any, t: int) -> tuple[int, list[int]]:
        """How many active dice ``card`` turns into target dice, and the steps of that use."""
        a = state.active
        use = USE_ACTION[card]
        if card == MAID:
            for d in range(max(0, t - 3), t):
                if a[d]:
                    return 1, [use, DIE + d, PIPS + t - d - 1]
            return 0, []
        if card in (NOBLEWOMAN, NOBLEMAN):
            d = t - (1 if card == NOBLEWOMAN else 2)
            top = 4 if card == NOBLEWOMAN else 3
            if 0 <= d <= top and a[d]:
                return a[d], [use, *[DIE + d] * a[d], DONE]
            return 0, []
        if card == PHILOSOPHER:
            return self._philosopher(a, t)
        if card == ALCHEMIST:
            return self._alchemist(a, t)
        if card == ASTRONOMER:
            if state.aside[t]:
                dice = [d for d in astronomer_dice(a, state.aside) if d != t]
                if dice:
                    return 1, [use, DIE + dice[0], VALUE + t]
            return 0, []
        if card == MAGICIAN:
            if sum(a) - a[t]:
                return 1, [use, DIE + self._spare_die(a, t), VALUE + t]
            return 0, []
        return 0, []

    @staticmethod
    def _philosopher(a: list[int], t: int) -> tuple[int, list[int]]:
        best: tuple[int, list[int]] = (0, [])
        for s in philosopher_sources(a):
            if s == t:
                continue
            for d in range(5):
                if d == t or a[d] - (d == s) <= 0:
                    continue
                for k in range(1, min(s, 5 - d) + 1):
                    gain = (s - k == t) + (d + k == t)
                    if gain > best[0]:
                        best = (gain, [USE_ACTION[PHILOSOPHER], DIE + s, DIE + d, PIPS + k - 1])
        return best

    @staticmethod
    def _alchemist(a: list[int], t: int) -> tuple[int, list[int]]:
        """The best share-out of two or three non-target dice (values are faces 0..5,
        pips are face + 1)."""
        pool = [f for f in range(6) if f != t for _ in range(a[f])]
        best: tuple[int, list[int]] = (0, [])
        v = t + 1  # the target's pips
        for size in (2, 3):
            for dice in sorted(set(itertools.combinations(pool, size))):
                total = sum(d + 1 for d in dice)
                values: list[int] = []
                if total == size * v:
                    values = [v] * (size - 1)
                elif size == 3 and 1 <= total - 2 * v <= 6:
                    values = [v, v]
                elif 1 + (size - 2) <= total - v <= 6 * (size - 1):
                    values = [v]
                    if size == 3:  # split the rest over two dice, neither the target
                        rest = total - v
                        values += [next(x for x in range(6, 0, -1) if 1 <= rest - x <= 6)]
                else:
                    continue
                gain = len([x for x in values if x == v]) + (total - sum(values) == v)
                if gain > best[0]:
                    picks = [DIE + d for d in dice] + ([DONE] if size == 2 else [])
                    best = (gain, [USE_ACTION[ALCHEMIST], *picks, *[VALUE + x - 1 for x in values]])
        return best


__all__ = ["CARD_VALUE", "CourtGreedyBot", "expected_matches"]


BOTS: dict[str, type[Bot]] = {"heuristic": CourtGreedyBot}
"""This game's bots by name; ``random`` and ``agent`` serve every game (:mod:`tablezoo.bots.registry`)."""
