"""Diamant (Incan Gold without artifacts): the rules as a tablezoo engine game.

Rules (this docstring is the spec; every rule below is tested)
--------------------------------------------------------------
3-8 players explore five caves with one deck of 30 cards: 15 treasures
(1, 2, 3, 4, 5, 5, 7, 7, 9, 11, 11, 13, 14, 15, 17 gems; 124 in all) and
15 hazards, three each of five types (snake, spider, fire, rockfall, mummy).
At the start of a cave every player is IN with an empty haul, the remainder
pool is empty and no hazard has been seen. Then, over and over:

1. A card of the deck is revealed (chance).

   * Treasure ``v`` with ``k`` players IN: each of them adds ``v // k`` to his
     haul and ``v % k`` goes to the pool (never shared among those who stay).
   * A hazard of a type not yet seen in this cave is remembered.
   * A hazard of a type already seen ends the cave: every player still IN loses
     his haul, and one card of that type is removed from the game for all
     later caves.

2. Every player still IN secretly chooses ``go`` (continue) or ``camp``
   (return); nothing is revealed until all have chosen. The ``r`` returners
   each take ``p // r`` of the pool (the remainder stays in it), bank their
   haul plus that share for good, and are OUT for the rest of the cave. If
   nobody is IN any more, the cave ends and what is left in the pool is lost;
   otherwise the next card is revealed.

A decision follows every reveal, the first card of a cave included (even a
first-card hazard); returning with nothing is legal. At the end of a cave all
revealed cards but a removed hazard go back into the deck. After the fifth cave
the most gems win; **Decision**: equal highest scores share the win.

The deck never runs out while someone is IN: at most four hazards are removed
before the fifth cave, so every cave starts with at least 11 hazards; without a
double at most 20 cards come out (the 15 treasures and one hazard of each
type), and then only hazards of seen types are left, so the next card is a
double. A cave therefore has at most 21 cards, and a type keeps at least one
card (it loses one only to a double, so at most two of its three).

Chance and hidden information
-----------------------------
Each reveal is a chance node whose outcome is one card drawn uniformly from
the cards not yet revealed in this cave (``"15"`` for a treasure, ``"snake"``
for a hazard). Drawing the cards one at a time, each uniformly from those left,
gives every order of the deck the same probability: it *is* a shuffle, dealt
lazily. So the state keeps the deck only as counts by kind, the order of the
deck never exists and cannot leak, and :meth:`Diamant.chance_outcomes` is exact
(probability of a kind = its count / cards left).

The go/camp choices are asked seat by seat (the seats IN, in seat order) and
kept in the state; until the last of them has chosen, another seat sees only
*that* a seat has chosen (the lantern lit on the site's screen), never what.
:meth:`Diamant.determinize` redraws those pending choices; nothing else is
hidden.

The state also keeps public records for people and front ends (the choices
revealed last and what each returner banked, the cards, losses and pool of the
cave that ended last) and two counters that make gems checkable:
``treasure_revealed`` (all treasure ever revealed) and ``lost`` (hauls lost to
a double, pools left at a cave's end). At every moment banked + hauls + pool +
lost = treasure revealed; at the end, banked + lost = treasure revealed.
``view`` shows all of it but the other seats' pending choices.

Actions
-------
| id | command | meaning |
|---|---|---|
| 0 | ``go`` (alias ``continue``) | stay in the cave for the next card |
| 1 | ``camp`` (alias ``return``) | return to camp: bank the haul and a share of the pool |

Both are legal whenever a seat is asked.

Observation (seat-relative: the observer first, then the others clockwise)
------------------------------------------------------------------------------
Built from :func:`observation_fields`; for ``n`` seats the size is
``48 + 4 n`` (64 for 4 seats). Card kinds are listed as the 12 treasure values
1, 2, 3, 4, 5, 7, 9, 11, 13, 14, 15, 17, then the hazards snake, spider, fire,
rockfall, mummy.

| field | size | range | meaning |
|---|---|---|---|
| cave | 5 | 0..1 | one-hot: the cave being explored (1..5; stays 5 at the end) |
| path_length | 1 | 0..21 | cards revealed in this cave |
| revealed_treasure | 12 | 0..2 | treasure cards of each value revealed in this cave |
| hazards_seen | 5 | 0..1 | hazard of each type revealed in this cave |
| pool | 1 | 0..124 | gems in the remainder pool |
| in_cave | n | 0..1 | each seat is IN (still exploring this cave) |
| chosen | n | 0..1 | each seat has chosen this round (not what it chose) |
| haul | n | 0..124 | gems each seat holds in this cave, not yet banked |
| banked | n | 0..620 | gems each seat has banked (its score) |
| own_choice | 2 | 0..1 | one-hot: the observer's own pending choice, go / camp (none: zero) |
| deck | 17 | 0..3 | cards of each kind left in the deck (not revealed in this cave) |
| removed | 5 | 0..2 | hazard cards of each type removed from the game |

Rewards
-------
Zero-sum at the end by default (see :mod:`tablezoo.envs.aec`); ``score``
rewards are the gems each seat banks, when it banks them.

Options
-------
None (the site has none).

Version history
---------------
v0: first release.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import chain
from typing import Any

import numpy as np

from tablezoo.games.core import (
    BYTE,
    CHANCE,
    FLOAT32,
    TERMINAL,
    Field,
    Game,
    GameInfo,
    ObservationSpec,
    OutcomeError,
    StateError,
    as_numbers,
    flat_numbers,
    relative_seats,
    require,
    require_list,
    require_range,
)

CAVES = 5
TREASURES = (1, 2, 3, 4, 5, 5, 7, 7, 9, 11, 11, 13, 14, 15, 17)
HAZARDS = ("snake", "spider", "fire", "rockfall", "mummy")
HAZARD_COPIES = 3
VALUES = tuple(sorted(set(TREASURES)))  # the 12 treasure kinds
NUM_TREASURE_KINDS = len(VALUES)
KINDS = (*(str(v) for v in VALUES), *HAZARDS)  # card kinds: outcome words
KIND_INDEX = {name: k for k, name in enumerate(KINDS)}
KIND_VALUE = (*VALUES, *(0 for _ in HAZARDS))  # gems on a card of each kind
FULL_DECK = (*(TREASURES.count(v) for v in VALUES), *(HAZARD_COPIES for _ in HAZARDS))
DECK_SIZE = sum(FULL_DECK)  # 30
TOTAL_TREASURE = sum(TREASURES)  # 124
MAX_PATH = len(TREASURES) + len(HAZARDS) + 1  # 21: see the module docstring
# Rejection limits for an exact uniform draw below k from 64 random bits.
_RAW_LIMITS = [0, *(2**64 - 2**64 % k for k in range(1, DECK_SIZE + 1))]

GO, CAMP = 0, 1
CHOICES = ("go", "camp")

# Pieces of the observation.
_CAVE_ONE_HOT = [(), *(tuple(int(i == c) for i in range(CAVES)) for c in range(CAVES))]  # by cave 1..5
_NO_CHOICE = (0,) * 8  # the chosen field before anyone has chosen, up to 8 seats
_FULL_TREASURE = np.array(FULL_DECK[:NUM_TREASURE_KINDS])
_CHOICE_CODE = {None: 0, "go": 1, "camp": 2}  # the choices as numbers in observe_batch
# what Diamant.observe_batch reads of each state, in one call per state
_BATCH_LISTS = operator.attrgetter("deck", "seen", "removed", "inside", "hauls", "banked")
_BATCH_NUMBERS = operator.attrgetter("cave", "pool")

# Phases.
REVEAL = "reveal"  # a card is to be revealed (chance)
CHOOSE = "choose"  # the seats IN choose go / camp, one by one
OVER = "over"


@dataclass
class DiamantState:
    """Everything about a Diamant game; the pending choices are hidden from other seats."""

    cave: int = 1  # 1..5
    phase: str = REVEAL
    turn: int = -1  # the seat to choose (phase CHOOSE), else -1
    deck: list[int] = field(default_factory=lambda: list(FULL_DECK))  # cards left, per kind
    path: list[str] = field(default_factory=list)  # cards revealed in this cave, in order
    seen: list[int] = field(default_factory=lambda: [0] * len(HAZARDS))  # hazard types seen here
    removed: list[int] = field(default_factory=lambda: [0] * len(HAZARDS))  # removed for good
    inside: list[bool] = field(default_factory=list)  # per seat: IN this cave
    hauls: list[int] = field(default_factory=list)  # per seat: gems held in this cave
    banked: list[int] = field(default_factory=list)  # per seat: gems banked (score)
    pool: int = 0  # the remainder pool
    choices: list[str | None] = field(default_factory=list)  # per seat: pending go/camp
    treasure_revealed: int = 0  # gems on every treasure card revealed so far, all caves
    lost: int = 0  # gems lost: hauls caught by a double, pools left at a cave's end
    # Public records of what happened last, for people and front ends:
    revealed: list[str | None] = field(default_factory=list)  # the choices revealed last
    gains: list[int] = field(default_factory=list)  # gems each seat banked at that reveal
    last_path: list[str] = field(default_factory=list)  # the cards of the cave that ended last
    last_losses: list[int] = field(default_factory=list)  # hauls lost at its end (a double)
    last_pool: int = 0  # gems left in its pool at its end (lost)


def split_treasure(value: int, inside: int) -> tuple[int, int]:
    """``(gems each, gems to the pool)`` when ``inside`` players find ``value`` gems."""
    return divmod(value, inside)


def split_pool(pool: int, returners: int) -> tuple[int, int]:
    """``(share each, pool left)`` when ``returners`` players return together."""
    share = pool // returners
    return share, pool - share * returners


class Diamant(Game[DiamantState]):
    """Diamant for 3-8 seats; no options."""

    info = GameInfo(
        name="diamant",
        title="Diamant",
        version=0,
        min_seats=3,
        max_seats=8,
        default_seats=4,
        options=(),
        hidden_information=True,
        chance=True,
    )
    state_type = DiamantState

    def _configure(self) -> None:
        self.action_names = CHOICES
        self.observation_spec = ObservationSpec(observation_fields(self.num_seats))
        n = self.num_seats
        off = self.observation_spec.offsets
        self._o_chosen, self._o_own_choice = off["chosen"], off["own_choice"]
        # _rotate[seat]: the indices of seat 0's observation that make seat's (the seats'
        # fields start from the observer); one fancy index builds every seat's at once
        rotate = np.tile(np.arange(self.observation_spec.size), (n, 1))
        for name in ("in_cave", "chosen", "haul", "banked"):
            at = off[name]
            for seat in range(n):
                rotate[seat, at : at + n] = [at + s for s in relative_seats(seat, n)]
        self._rotate = rotate
        self._rotations = list(rotate)  # one index array per seat: a row of a 2-D array costs a lookup
        self._table_memo: _Table | None = None

    def _add_aliases(self) -> None:
        self._alias("continue", GO)
        self._alias("return", CAMP)

    # ------------------------------------------------------------ state machine

    def initial_state(self) -> DiamantState:
        n = self.num_seats
        return DiamantState(
            inside=[True] * n,
            hauls=[0] * n,
            banked=[0] * n,
            choices=[None] * n,
            revealed=[None] * n,
            gains=[0] * n,
            last_losses=[0] * n,
        )

    def chance_context(self, state: DiamantState) -> int:
        """The cave: its path is drawn card by card."""
        return state.cave

    def to_move(self, state: DiamantState) -> int:
        phase = state.phase
        if phase == CHOOSE:
            return state.turn
        if phase == REVEAL:
            return CHANCE
        return TERMINAL

    def secret_decision(self, state: DiamantState) -> bool:
        """The go/camp choice is made in secret and revealed together."""
        return state.phase == CHOOSE

    def legal_actions(self, state: DiamantState) -> list[int]:
        if state.phase == CHOOSE:
            return [GO, CAMP]
        return []

    def _apply(self, state: DiamantState, action: int) -> None:
        seat = state.turn
        state.choices[seat] = CHOICES[action]
        inside = state.inside
        for s in range(seat + 1, self.num_seats):
            if inside[s]:
                state.turn = s
                return
        self._reveal_choices(state)

    def _reveal_choices(self, state: DiamantState) -> None:
        """All seats IN have chosen: the returners share the pool, bank and leave."""
        n = self.num_seats
        choices = state.choices
        state.revealed = choices  # public from now on
        state.choices = [None] * n
        state.turn = -1
        gains = state.gains = [0] * n
        if "camp" in choices:
            inside, hauls, banked = state.inside, state.hauls, state.banked
            returners = [s for s in range(n) if choices[s] == "camp"]
            share, state.pool = split_pool(state.pool, len(returners))
            for s in returners:
                gain = hauls[s] + share
                banked[s] += gain
                gains[s] = gain
                hauls[s] = 0
                inside[s] = False
            if True not in inside:
                self._end_cave(state, [0] * n)
                return
        state.phase = REVEAL

    def _end_cave(self, state: DiamantState, losses: list[int]) -> None:
        """Close the cave: the pool is lost, the cards go back; start the next cave or end."""
        n = self.num_seats
        state.lost += state.pool + sum(losses)
        state.last_losses = losses
        state.last_pool = state.pool
        state.pool = 0
        state.deck = [*FULL_DECK[:NUM_TREASURE_KINDS], *(HAZARD_COPIES - r for r in state.removed)]
        state.last_path = state.path
        state.path = []
        state.seen = [0] * len(HAZARDS)
        state.hauls = [0] * n
        state.turn = -1
        if state.cave < CAVES:
            state.cave += 1
            state.inside = [True] * n
            state.phase = REVEAL
        else:
            state.inside = [False] * n
            state.phase = OVER

    # ------------------------------------------------------------ chance

    def sample_chance(self, state: DiamantState, rng: np.random.Generator) -> str:
        deck = state.deck
        total = sum(deck)
        if not total:  # unreachable in play (see the module docstring); a set-up state may do it
            raise OutcomeError("no card is left in the deck to reveal")
        # One exact uniform draw below `total` from the generator's raw 64-bit
        # stream (a rejection happens with probability below 30 / 2**64): about
        # 0.3 us, where rng.integers costs 2 us.
        limit = _RAW_LIMITS[total]
        x = rng.bit_generator.random_raw()
        while x >= limit:
            x = rng.bit_generator.random_raw()
        x %= total
        for k, count in enumerate(deck):
            if x < count:
                return KINDS[k]
            x -= count
        raise AssertionError("unreachable: x < total")

    def chance_outcomes(self, state: DiamantState) -> list[tuple[Any, float]]:
        deck = state.deck
        total = sum(deck)
        return [(KINDS[k], c / total) for k, c in enumerate(deck) if c]

    def check_outcome(self, state: DiamantState, outcome: Any) -> str:
        if isinstance(outcome, (int, np.integer)) and not isinstance(outcome, (bool, np.bool_)):
            key = str(int(outcome))
        elif isinstance(outcome, str):
            key = outcome.strip().lower()
        else:
            key = None
        k = KIND_INDEX.get(key) if key is not None else None
        if k is None:
            raise OutcomeError(
                f"a reveal is one card: a treasure {', '.join(KINDS[:NUM_TREASURE_KINDS])} "
                f"or a hazard {', '.join(HAZARDS)}; not {outcome!r}"
            )
        if not state.deck[k]:
            left = ", ".join(f"{KINDS[j]} x{c}" if c > 1 else KINDS[j] for j, c in enumerate(state.deck) if c)
            raise OutcomeError(f"no {KINDS[k]} is left in the deck; cards left: {left}")
        return KINDS[k]

    def _apply_chance(self, state: DiamantState, outcome: str) -> None:
        k = KIND_INDEX[outcome]
        state.deck[k] -= 1
        state.path.append(outcome)
        if k < NUM_TREASURE_KINDS:
            value = KIND_VALUE[k]
            state.treasure_revealed += value
            inside, hauls = state.inside, state.hauls
            each, rest = split_treasure(value, inside.count(True))
            if each:
                for s, is_in in enumerate(inside):
                    if is_in:
                        hauls[s] += each
            state.pool += rest
        else:
            t = k - NUM_TREASURE_KINDS
            if state.seen[t]:
                self._double(state, t)
                return
            state.seen[t] = 1
        state.phase = CHOOSE
        state.turn = state.inside.index(True)

    def _double(self, state: DiamantState, hazard: int) -> None:
        """A second hazard of one type: those IN lose their hauls; one card leaves the game."""
        state.removed[hazard] += 1
        inside, hauls = state.inside, state.hauls
        self._end_cave(state, [hauls[s] if inside[s] else 0 for s in range(self.num_seats)])

    def describe_outcome(self, state: DiamantState, outcome: Any) -> str:
        return f"cave {state.cave}: revealed {outcome}"

    # ------------------------------------------------------------ states from outside

    def validate(self, state: DiamantState) -> None:
        """Refuse a state no game reaches (:class:`~tablezoo.games.core.StateError` naming it),
        as the native core's ``Diamant::validate`` does, check for check."""
        n = self.num_seats

        def words(value: Any, name: str, allowed: Sequence[str], optional: bool = False) -> list[Any]:
            items = require_list(value, name)
            for i, item in enumerate(items):
                if not (item is None and optional) and (not isinstance(item, str) or item not in allowed):
                    what = ", ".join(map(repr, allowed))
                    raise StateError(f"{name}[{i}] should be one of {what}, not {item!r}")
            return items

        def flags(value: Any, name: str) -> list[bool]:
            items = require_list(value, name)
            for i, item in enumerate(items):
                if not isinstance(item, bool):
                    raise StateError(f"{name}[{i}] should be true or false, not {item!r}")
            return items

        phases = (REVEAL, CHOOSE, OVER)
        require(
            isinstance(state.phase, str) and state.phase in phases,
            f"phase should be one of {', '.join(map(repr, phases))}, not {state.phase!r}",
        )
        cave = require_range(state.cave, 1, CAVES, "cave")
        phase = state.phase
        choose, over = phase == CHOOSE, phase == OVER
        require(not over or cave == CAVES, f"cave is {cave} but the game is over")
        # The cards: every card of the deck is left, on the path, or removed.
        deck = require_list(state.deck, "deck", len(KINDS))
        seen = require_list(state.seen, "seen", len(HAZARDS))
        removed = require_list(state.removed, "removed", len(HAZARDS))
        for t in range(len(HAZARDS)):
            require_range(removed[t], 0, HAZARD_COPIES - 1, "removed")  # a type keeps a card
            require_range(seen[t], 0, 1, "seen")
        ended = cave if over else cave - 1  # one card per double, one double at most per cave
        require(sum(removed) <= ended, f"removed: {sum(removed)} hazard cards removed in {ended} caves ended")
        path = words(state.path, "path", KINDS)
        require(len(path) <= MAX_PATH, "path has more than 21 cards")
        on_path = [0] * len(KINDS)
        for card in path:
            on_path[KIND_INDEX[card]] += 1
        for k, name in enumerate(KINDS):
            full = FULL_DECK[k] if k < NUM_TREASURE_KINDS else HAZARD_COPIES - removed[k - NUM_TREASURE_KINDS]
            require_range(deck[k], 0, full, "deck")
            require(
                deck[k] + on_path[k] == full,
                f"deck and path: the {name} cards are {deck[k] + on_path[k]}, not {full}",
            )
        for t, hazard in enumerate(HAZARDS):  # a second hazard of a type ends the cave
            require(seen[t] == on_path[NUM_TREASURE_KINDS + t], f"seen: {hazard} is not what the path shows")
        require(not over or not path, "path: the game is over with cards on the path")
        require(not choose or bool(path), "path: a choice comes after a card, but the path is empty")
        require(
            len(words(state.last_path, "last_path", KINDS)) <= MAX_PATH, "last_path has more than 21 cards"
        )
        # The seats: who is IN, who is to choose, who has chosen.
        inside = flags(state.inside, "inside")
        choices = words(state.choices, "choices", CHOICES, optional=True)
        revealed = words(state.revealed, "revealed", CHOICES, optional=True)
        for name, value in (("inside", inside), ("choices", choices), ("revealed", revealed)):
            require(len(value) == n, f"{name} has {len(value)} entries, not {n}")
        anyone_in = any(inside)
        require(not over or not anyone_in, "inside: a seat is IN after the game is over")
        require(over or anyone_in, "inside: nobody is IN a cave being explored")
        if choose:
            turn = require_range(state.turn, 0, n - 1, "turn")
            require(inside[turn], f"turn: seat {turn} is to choose but is not IN")
        else:
            require_range(state.turn, -(10**9), 10**9, "turn")
            require(state.turn == -1, f"turn is {state.turn}, not -1, when nobody is to choose")
        for seat in range(n):
            # the seats IN choose in seat order: those before the turn have chosen, no one else
            has_chosen = choose and inside[seat] and seat < state.turn
            require(
                (choices[seat] is not None) == has_chosen,
                f"choices: seat {seat} " + ("has not chosen" if has_chosen else "has chosen out of turn"),
            )
        # The gems: ranges, then the balance.
        hauls = require_list(state.hauls, "hauls", n)
        banked = require_list(state.banked, "banked", n)
        gains = require_list(state.gains, "gains", n)
        losses = require_list(state.last_losses, "last_losses", n)
        revealed_gems = require_range(state.treasure_revealed, 0, CAVES * TOTAL_TREASURE, "treasure_revealed")
        held = require_range(state.lost, 0, CAVES * TOTAL_TREASURE, "lost")
        held += require_range(state.pool, 0, TOTAL_TREASURE, "pool")
        require_range(state.last_pool, 0, TOTAL_TREASURE, "last_pool")
        for seat in range(n):
            require_range(hauls[seat], 0, TOTAL_TREASURE, "hauls")
            require(inside[seat] or not hauls[seat], f"hauls: seat {seat} holds gems but is not IN")
            require_range(banked[seat], 0, CAVES * TOTAL_TREASURE, "banked")
            require_range(gains[seat], 0, TOTAL_TREASURE, "gains")
            require_range(losses[seat], 0, TOTAL_TREASURE, "last_losses")
            held += hauls[seat] + banked[seat]
        require(
            held == revealed_gems,
            f"treasure_revealed is {revealed_gems}, but banked, hauls, pool and lost hold {held}",
        )

    # ------------------------------------------------------------ results

    def scores(self, state: DiamantState) -> list[float]:
        return list(state.banked)

    def winners(self, state: DiamantState) -> list[int]:
        best = max(state.banked)
        return [s for s, b in enumerate(state.banked) if b == best]

    # ------------------------------------------------------------ what seats see

    def _table(self, state: DiamantState) -> _Table:
        """Every seat's observation of ``state`` but the choices, kept until the table changes.

        After a card is revealed the seats IN choose one by one, each observing the same
        table: it is built once per card, for all seats at once, not once per observation.
        """
        memo = self._table_memo
        if (
            memo is not None
            and state.deck == memo.deck
            and state.hauls == memo.hauls
            and state.pool == memo.pool
            and state.inside == memo.inside
            and state.banked == memo.banked
            and len(state.path) == memo.path_length
            and state.seen == memo.seen
            and state.cave == memo.cave
            and state.removed == memo.removed
        ):
            return memo
        memo = self._table_memo = _Table(self, state)
        return memo

    def observe(self, state: DiamantState, seat: int) -> np.ndarray:
        obs = self._table(state).seat0[self._rotations[seat]]  # a new array
        # what changes with every decision: who has chosen, and the observer's own choice
        choices, n = state.choices, self.num_seats
        at = self._o_chosen
        for s, choice in enumerate(choices):
            if choice is not None:
                obs[at + (s - seat) % n] = 1.0
        own = choices[seat]
        if own is not None:
            obs[self._o_own_choice + CHOICES.index(own)] = 1.0
        return obs

    def observe_batch(self, states: Sequence[DiamantState], seats: Sequence[int]) -> np.ndarray:
        """Many observations at once, built with numpy across the batch (row ``i`` is ``observe``'s).

        The states are read column by column with ``map`` and ``chain`` (every state's
        lists in one flat run of numbers), so that no Python line runs once per state.
        """
        seat = self._check_batch(states, seats)
        n, count = self.num_seats, len(states)
        out = np.zeros((count, self.observation_spec.size), np.float32)
        if not count:
            return out
        off = self.observation_spec.offsets
        rows = np.arange(count)
        # deck (17), seen (5), removed (5), then inside, hauls and banked (n each)
        width = len(KINDS) + 2 * len(HAZARDS) + 3 * n
        numbers = flat_numbers(chain.from_iterable(map(_BATCH_LISTS, states))).reshape(count, width)
        ends = np.cumsum([len(KINDS), len(HAZARDS), len(HAZARDS), n, n])
        deck, seen, removed, inside, hauls, banked = np.split(numbers, ends, axis=1)
        choices = chain.from_iterable(map(operator.attrgetter("choices"), states))
        coded = as_numbers(list(map(_CHOICE_CODE.__getitem__, choices))).reshape(count, n)
        choice = coded[rows, seat]  # the observer's: 0 none, 1 go, 2 camp
        by_seat = np.stack([inside, coded > 0, hauls, banked], axis=1)  # in_cave, chosen, haul, banked
        cave, pool = flat_numbers(map(_BATCH_NUMBERS, states)).reshape(count, 2).T
        path_length = as_numbers(list(map(len, map(operator.attrgetter("path"), states))))
        out[rows, off["cave"] + cave - 1] = 1
        out[:, off["path_length"]] = path_length
        at = off["revealed_treasure"]
        out[:, at : at + NUM_TREASURE_KINDS] = _FULL_TREASURE - deck[:, :NUM_TREASURE_KINDS]
        at = off["hazards_seen"]
        out[:, at : at + len(HAZARDS)] = seen
        out[:, off["pool"]] = pool
        # in_cave, chosen, haul and banked are consecutive; each lists the observer first
        others = (seat[:, None] + np.arange(n)) % n
        at = off["in_cave"]
        clockwise = np.take_along_axis(by_seat, others[:, None, :], axis=2)
        out[:, at : at + 4 * n] = clockwise.reshape(count, 4 * n)
        chose = choice > 0
        out[rows[chose], off["own_choice"] + choice[chose] - 1] = 1
        at = off["deck"]  # deck and removed are consecutive
        out[:, at : at + len(KINDS)] = deck
        out[:, at + len(KINDS) : at + len(KINDS) + len(HAZARDS)] = removed
        return out

    def view(self, state: DiamantState, seat: int | None) -> dict[str, Any]:
        return {
            **self.view_base(state, seat),
            "cave": state.cave,
            "caves": CAVES,
            "phase": state.phase,
            "path": list(state.path),
            "hazards_seen": [h for h, s in zip(HAZARDS, state.seen, strict=True) if s],
            "pool": state.pool,
            "in_cave": list(state.inside),
            "chosen": [c is not None for c in state.choices],
            "my_choice": state.choices[seat] if seat is not None else None,
            "hauls": list(state.hauls),
            "banked": list(state.banked),
            "deck": dict(zip(KINDS, state.deck, strict=True)),
            "treasure_cards_left": sum(state.deck[:NUM_TREASURE_KINDS]),
            "removed": dict(zip(HAZARDS, state.removed, strict=True)),
            "revealed": list(state.revealed),
            "gains": list(state.gains),
            "last_path": list(state.last_path),
            "last_losses": list(state.last_losses),
            "last_pool": state.last_pool,
            "lost": state.lost,
        }

    def render(self, state: DiamantState, seat: int | None = None) -> str:
        n = self.num_seats
        if state.phase == OVER:
            head = "game over"
        elif state.phase == CHOOSE:
            head = f"seat {state.turn} to choose"
        else:
            head = "the next card is turned"
        lines = [f"Diamant: cave {state.cave} of {CAVES}, {head}"]
        if state.phase != OVER:
            lines.append("path: " + (" ".join(f"[{c}]" for c in state.path) or "(no card yet)"))
            if state.phase == CHOOSE and state.path:
                card = state.path[-1]
                k = KIND_INDEX[card]
                if k < NUM_TREASURE_KINDS:  # nobody has left since this card came
                    each, rest = split_treasure(KIND_VALUE[k], state.inside.count(True))
                    lines.append(f"found {card}: {each} each, {rest} to the pool")
            seen = [h for h, s in zip(HAZARDS, state.seen, strict=True) if s]
            lines.append(f"hazards seen: {', '.join(seen) or 'none'}   pool: {state.pool}")
        deck = state.deck
        hazards_left = "  ".join(f"{h} {deck[NUM_TREASURE_KINDS + t]}" for t, h in enumerate(HAZARDS))
        lines.append(f"deck: treasure {sum(deck[:NUM_TREASURE_KINDS])}  {hazards_left}")
        gone = [f"{h} x{r}" if r > 1 else h for h, r in zip(HAZARDS, state.removed, strict=True) if r]
        if gone:
            lines.append("removed: " + ", ".join(gone))
        for s in range(n):
            marker = ">" if state.phase == CHOOSE and s == state.turn else " "
            mine = " (you)" if s == seat else ""
            where = "IN  " if state.inside[s] else "OUT "
            choice = state.choices[s]
            if choice is None:
                decided = ""
            elif s == seat:
                decided = f"  chose {choice}"
            else:
                decided = "  chosen"
            gems = f"haul {state.hauls[s]:>3}  banked {state.banked[s]:>3}"
            name = f"seat {s}{mine}:"
            lines.append(f"{marker} {name:<15}{where} {gems}{decided}")
        if state.phase == CHOOSE and seat == state.turn:
            lines.append("moves: go, camp")
        lines.extend(self._notes(state))
        if state.phase == OVER:
            lines.append("winner(s): " + ", ".join(f"seat {s}" for s in self.winners(state)))
        return "\n".join(lines)

    def _notes(self, state: DiamantState) -> list[str]:
        """What happened last, in words: the choices revealed, the end of the last cave."""
        notes = []
        moves = [
            f"seat {s} {c}" + (f" +{state.gains[s]}" if c == "camp" else "")
            for s, c in enumerate(state.revealed)
            if c is not None
        ]
        if moves:
            notes.append("last choices: " + ", ".join(moves))
        if state.last_path and not state.path:
            notes.append(
                f"cave {state.cave - (state.phase != OVER)} ended: "
                + " ".join(f"[{c}]" for c in state.last_path)
            )
            caught = [s for s, g in enumerate(state.last_losses) if g]
            if caught:
                notes.append(
                    "lost to the hazard: " + ", ".join(f"seat {s} {state.last_losses[s]}" for s in caught)
                )
            if state.last_pool:
                notes.append(f"lost with the pool: {state.last_pool}")
        return notes

    def determinize(self, state: DiamantState, seat: int, rng: np.random.Generator) -> DiamantState:
        """A copy with the other seats' pending choices drawn anew (the deck has no order)."""
        new = self.clone(state)
        choices = new.choices
        for s, choice in enumerate(choices):
            if s != seat and choice is not None:
                choices[s] = CHOICES[int(rng.integers(2))]
        return new


class _Table:
    """Seat 0's observation of a Diamant state with no choice made yet (every seat's is a permutation).

    It keeps copies of what it was built from, so :meth:`Diamant._table` can tell
    whether a state still has it.
    """

    __slots__ = (
        "banked",
        "cave",
        "deck",
        "hauls",
        "inside",
        "path_length",
        "pool",
        "removed",
        "seat0",
        "seen",
    )

    def __init__(self, game: Diamant, state: DiamantState) -> None:
        self.cave, self.pool, self.path_length = state.cave, state.pool, len(state.path)
        self.deck, self.seen, self.removed = state.deck.copy(), state.seen.copy(), state.removed.copy()
        self.inside, self.hauls, self.banked = state.inside.copy(), state.hauls.copy(), state.banked.copy()
        # seat 0's observation with no choice shown, the fields in the order of
        # observation_fields; every seat's is a permutation of it (Diamant._rotate)
        seat0 = [
            *_CAVE_ONE_HOT[self.cave],
            self.path_length,
            *map(operator.sub, FULL_DECK[:NUM_TREASURE_KINDS], self.deck),  # treasure revealed here
            *self.seen,
            self.pool,
            *self.inside,
            *_NO_CHOICE[: game.num_seats],
            *self.hauls,
            *self.banked,
            0,
            0,
            *self.deck,
            *self.removed,
        ]
        # every number is whole; all but a banked score above 255 (five rich caves) fit a byte,
        # and numpy reads bytes about twice as fast as a list
        if max(self.banked) < 256:
            self.seat0 = np.frombuffer(bytes(seat0), BYTE).astype(FLOAT32)
        else:
            self.seat0 = np.array(seat0, FLOAT32)


def observation_fields(num_seats: int) -> tuple[Field, ...]:
    """The observation table of Diamant for ``num_seats`` seats."""
    n = num_seats
    return (
        Field("cave", CAVES, 0, 1, "one-hot: the cave being explored (1..5; stays 5 at the end)"),
        Field("path_length", 1, 0, MAX_PATH, "cards revealed in this cave"),
        Field("revealed_treasure", NUM_TREASURE_KINDS, 0, 2, "treasure cards of each value revealed here"),
        Field("hazards_seen", len(HAZARDS), 0, 1, "hazard of each type revealed in this cave"),
        Field("pool", 1, 0, TOTAL_TREASURE, "gems in the remainder pool"),
        Field("in_cave", n, 0, 1, "each seat is IN, observer first"),
        Field("chosen", n, 0, 1, "each seat has chosen this round (not what)"),
        Field("haul", n, 0, TOTAL_TREASURE, "gems each seat holds in this cave, not yet banked"),
        Field("banked", n, 0, CAVES * TOTAL_TREASURE, "gems each seat has banked (its score)"),
        Field("own_choice", 2, 0, 1, "one-hot: the observer's pending choice, go / camp"),
        Field("deck", len(KINDS), 0, HAZARD_COPIES, "cards of each kind left in the deck"),
        Field("removed", len(HAZARDS), 0, HAZARD_COPIES - 1, "hazard cards of each type removed"),
    )
