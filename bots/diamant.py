"""Diamant's bots.

| name | bot |
|---|---|
| ``heuristic`` | :class:`DiamantThresholdBot`: to camp once the haul or the hazards seen reach a threshold |
| ``search`` | :class:`DiamantSearchBot`: go or camp by Monte Carlo rollouts over the deck |

They read only what their seat may see (its view), like every bot. The deck is
public in Diamant (its composition, not its order: the order never exists, see
:mod:`tablezoo.games.diamant`), and so are the hauls, the pool and who is still in;
the only hidden things are the go/camp choices of the seats that chose before this
one in the same round.

:class:`DiamantSearchBot` (``"search"``)
    *What is compared*: ``go`` and ``camp`` now. Each is played out on the same
    ``samples`` futures (common random numbers: one seeded stream of cards per
    sample, shared by both actions, so the two differ only by the decision).

    *Model of the others*: every other seat plays the threshold rule (camp once
    its haul plus its share of the pool reaches ``others_haul`` gems, or
    ``others_hazards`` hazard types are out). The seats that have chosen already
    in this round are given the rule's choice too: they chose on the same table.

    *Its own later play* in a rollout: the one-card rule. Going on risks the haul
    and the pool share on the chance of a second hazard (exact from the deck) for
    the expected share of the next treasure card; it goes on while that bet pays.

    *Score*: rollouts run to the end of the game (the deck of later caves is the
    full deck less the hazards removed). An outcome scores the win credit
    (1, or ``1/k`` for a ``k``-way tie for the most gems) plus ``margin_weight``
    times the gems this seat ends ahead of the best other seat; the action with
    the higher mean is played, ``go`` on a tie.

    *Budget*: ``2 * samples`` (192) rollouts of the rest of the game by a small
    simulator of the rules (the deck kept as counts, as the engine keeps it), not
    the engine, for speed; the tests check the simulator against the engine.
    Measured (CPU time, one game per seat count): about 18 ms per decision on
    average at 3 to 6 seats and 23 ms at 8, at most about 55 ms (a decision in
    the first cave, with the whole game behind it).

    *Strength* (one search bot against ``heuristic`` at every other seat, seats
    rotated, ``tablezoo evaluate diamant --players N --bots search heuristic``):
    4 seats, 200 games: win rate 0.990 (95% CI 0.964-0.997; fair share 0.25),
    48.6 gems against 15.9; 3 seats: 0.922 (0.864-0.956, fair share 0.333) over
    the first 136 games (48.3 gems against 23.2); 6 and 8 seats: every one of the
    first 55 games (0.935-1.000; fair shares 0.167 and 0.125). Against the
    shipped 4-seat agent, which it does not model: 0.553 (0.484-0.620) over 200
    games, 30.5 gems against 25.4.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import numpy as np

from tablezoo.bots.core import Bot, Seat
from tablezoo.games.diamant import (
    CAMP,
    CAVES,
    FULL_DECK,
    GO,
    HAZARD_COPIES,
    HAZARDS,
    KIND_VALUE,
    KINDS,
    NUM_TREASURE_KINDS,
)

T = NUM_TREASURE_KINDS
KINDS_COUNT = len(KINDS)


class DiamantThresholdBot:
    """Returns to camp once its haul reaches ``haul`` gems or ``hazards`` hazard types are out.

    The threshold family of Diamant bots: ``DiamantThresholdBot(haul=10, hazards=2)``.
    """

    name = "heuristic"

    def __init__(self, haul: int = 10, hazards: int = 2) -> None:
        self.haul = haul
        self.hazards = hazards

    def reset(self, seed: int | None = None) -> None:
        pass

    def act(self, seat: Seat) -> int:
        view = seat.view()
        me = seat.seat
        risky = len(view["hazards_seen"]) >= self.hazards
        rich = view["hauls"][me] + view["pool"] // max(1, sum(view["in_cave"])) >= self.haul
        return seat.game.parse_command("camp" if risky or rich else "go")


# --------------------------------------------------------------------------- the simulator


@dataclass
class Table:
    """The public state of a Diamant game at a decision, as the rollouts keep it."""

    cave: int  # 1..5
    deck: list[int]  # cards left per kind (KINDS order)
    seen: list[int]  # per hazard type: seen in this cave
    removed: list[int]  # per hazard type: cards removed from the game
    inside: list[bool]
    hauls: list[int]
    banked: list[int]
    pool: int

    @classmethod
    def of_view(cls, view: dict[str, Any]) -> Table:
        """The table a seat's view shows (all of it is public)."""
        return cls(
            cave=view["cave"],
            deck=[view["deck"][k] for k in KINDS],
            seen=[int(h in view["hazards_seen"]) for h in HAZARDS],
            removed=[view["removed"][h] for h in HAZARDS],
            inside=list(view["in_cave"]),
            hauls=list(view["hauls"]),
            banked=list(view["banked"]),
            pool=view["pool"],
        )

    def copy(self) -> Table:
        return Table(
            self.cave,
            self.deck.copy(),
            self.seen.copy(),
            self.removed.copy(),
            self.inside.copy(),
            self.hauls.copy(),
            self.banked.copy(),
            self.pool,
        )


def threshold_camps(table: Table, seat: int, haul: int, hazards: int) -> bool:
    """The threshold rule (:class:`DiamantThresholdBot`) on ``table``: does ``seat`` camp?"""
    if sum(table.seen) >= hazards:
        return True
    return table.hauls[seat] + table.pool // max(1, table.inside.count(True)) >= haul


def one_card_camps(table: Table, seat: int, staying: int, leaving: int) -> bool:
    """The one-card rule: camp unless the next card's expected gain beats the risk.

    ``staying`` seats are expected to go on (this one included) and ``leaving`` to camp
    besides this one. Camping now banks the haul and ``pool // (leaving + 1)``; going on
    keeps that at stake against the chance of a second hazard (exact from the deck),
    for an even share of the next treasure and, later, the pool.
    """
    deck = table.deck
    total = sum(deck)
    if total == 0:
        return True
    bust = 0
    for t in range(len(HAZARDS)):
        if table.seen[t]:
            bust += deck[T + t]
    staying = max(1, staying)
    gain = 0
    for k in range(T):
        if deck[k]:
            gain += deck[k] * (KIND_VALUE[k] // staying)
    at_stake = table.hauls[seat] + table.pool // (leaving + 1)
    # go: (total - bust) / total of (at_stake + gain / (total - bust)); camp: at_stake
    return (total - bust) * at_stake + gain <= total * at_stake


class Rollout:
    """Plays a :class:`Table` to the end of the game: ``me`` by the one-card rule, the
    others by the threshold rule, the cards from ``rnd`` (one draw per card)."""

    def __init__(self, me: int, others_haul: int, others_hazards: int) -> None:
        self.me = me
        self.others_haul = others_haul
        self.others_hazards = others_hazards

    def choices(self, table: Table, mine: bool | None) -> list[bool]:
        """Per seat: camps now (seats out: False). ``mine`` forces this seat's choice."""
        n = len(table.inside)
        camps = [False] * n
        for s in range(n):
            if table.inside[s] and s != self.me:
                camps[s] = threshold_camps(table, s, self.others_haul, self.others_hazards)
        if table.inside[self.me]:
            if mine is None:
                leaving = sum(camps)
                staying = table.inside.count(True) - leaving
                mine = one_card_camps(table, self.me, staying, leaving)
            camps[self.me] = mine
        return camps

    @staticmethod
    def resolve(table: Table, camps: list[bool]) -> bool:
        """The returners bank; whether anyone is still in."""
        returners = sum(camps)
        if returners:
            share = table.pool // returners
            table.pool -= share * returners
            for s, camp in enumerate(camps):
                if camp:
                    table.banked[s] += table.hauls[s] + share
                    table.hauls[s] = 0
                    table.inside[s] = False
        return True in table.inside

    @staticmethod
    def next_cave(table: Table) -> bool:
        """Close the cave; whether another one follows."""
        n = len(table.inside)
        table.cave += 1
        if table.cave > CAVES:
            return False
        table.deck = [*FULL_DECK[:T], *(HAZARD_COPIES - r for r in table.removed)]
        table.seen = [0] * len(HAZARDS)
        table.inside = [True] * n
        table.hauls = [0] * n
        table.pool = 0
        return True

    def play(self, table: Table, mine: bool, rnd: random.Random) -> None:
        """From a decision of the seats in (this seat choosing ``mine``) to the game's end."""
        forced: bool | None = mine
        while True:
            alive = self.resolve(table, self.choices(table, forced))
            forced = None
            if not alive and not self.next_cave(table):
                return
            while not self.reveal(table, rnd):  # a second hazard: the next cave, if any
                if not self.next_cave(table):
                    return

    @staticmethod
    def reveal(table: Table, rnd: random.Random) -> bool:
        """Turn a card; whether the cave goes on (False: a second hazard ended it).

        A cave just opened gets its first card here too; then the seats decide.
        """
        deck = table.deck
        x = int(rnd.random() * sum(deck))
        k = 0
        while x >= deck[k]:
            x -= deck[k]
            k += 1
        deck[k] -= 1
        if k < T:
            inside = table.inside
            k_in = inside.count(True)
            each, rest = divmod(KIND_VALUE[k], k_in)
            if each:
                hauls = table.hauls
                for s in range(len(inside)):
                    if inside[s]:
                        hauls[s] += each
            table.pool += rest
            return True
        t = k - T
        if table.seen[t]:
            table.removed[t] += 1
            return False
        table.seen[t] = 1
        return True


# --------------------------------------------------------------------------- the search bot


class DiamantSearchBot:
    """Go or camp by Monte Carlo rollouts over the deck (see the module docstring).

    On the native core, ``make_bot("search", game)`` seats its port (``Diamant::Search``, declared
    in ``native/src/games/diamant/diamant.h`` and defined in ``native/src/games/diamant/bots.cc``,
    with this simulator's ``Table``, ``threshold_camps``, ``one_card_camps`` and ``Rollout`` piece
    for piece): the same futures, scored alike, each
    sample's stream of cards drawn from the core's generator (seeded by the bot's own) rather
    than ``random.Random``, so that its moves differ in the draws only. Given the same cards
    its rollouts end as these do; it is the same player (two ports against two of these bots
    at 4 seats, seats rotated, 1,000 games: the ports won 0.509 of the games, 95% CI
    0.478-0.540, 23.0 gems a seat against 22.9) and about 60 times faster: 0.17-0.20 ms per
    move against 11-13 ms (CPU time, default settings, the decisions of two seeded games at
    3, 4, 6 and 8 seats).

    Args:
        samples: futures each of ``go`` and ``camp`` is played out on.
        seed: seed of the bot's own generator (``reset(seed)`` reseeds it).
        others_haul: the others' model: they camp at this haul plus pool share...
        others_hazards: ...or once this many hazard types are out.
        margin_weight: weight of the gems ended ahead of the best other seat, next to
            the win credit (it breaks the ties of futures where the decision does not
            change the winner).
    """

    name = "search"

    def __init__(
        self,
        samples: int = 96,
        seed: int | None = None,
        others_haul: int = 10,
        others_hazards: int = 2,
        margin_weight: float = 0.01,
    ) -> None:
        if samples < 1:
            raise ValueError(f"samples is the number of futures per action, at least 1, not {samples}")
        self.samples = samples
        self.others_haul = others_haul
        self.others_hazards = others_hazards
        self.margin_weight = margin_weight
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, seat: Seat) -> int:
        values = self.evaluate(seat)
        return CAMP if values[CAMP] > values[GO] else GO

    def action_values(self, seat: Seat) -> list[float]:
        """The mean score of each legal move (``seat.legal``'s order): win credit plus lead."""
        values = self.evaluate(seat)
        return [values[a] for a in seat.legal]

    def evaluate(self, seat: Seat) -> dict[int, float]:
        """Mean score of ``go`` and ``camp`` over ``samples`` futures."""
        table = Table.of_view(seat.view())
        me = seat.seat
        rollout = Rollout(me, self.others_haul, self.others_hazards)
        seeds = self.rng.integers(2**63, size=self.samples).tolist()
        totals = {GO: 0.0, CAMP: 0.0}
        for seed in seeds:
            for action in (GO, CAMP):
                future = table.copy()
                rollout.play(future, action == CAMP, random.Random(seed))
                totals[action] += self.score(future.banked, me)
        return {a: t / self.samples for a, t in totals.items()}

    def score(self, banked: list[int], me: int) -> float:
        """Win credit at the end of the game plus ``margin_weight`` times the lead."""
        mine = banked[me]
        best_other = max(b for s, b in enumerate(banked) if s != me)
        if mine > best_other:
            credit = 1.0
        elif mine < best_other:
            credit = 0.0
        else:
            credit = 1.0 / (1 + sum(b == mine for s, b in enumerate(banked) if s != me))
        return credit + self.margin_weight * (mine - best_other)


BOTS: dict[str, type[Bot]] = {"heuristic": DiamantThresholdBot, "search": DiamantSearchBot}
"""This game's bots by name; ``random`` and ``agent`` serve every game (:mod:`tablezoo.bots.registry`)."""
