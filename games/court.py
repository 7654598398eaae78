"""To Court the King (Um Krone und Kragen): the rules as a tablezoo engine game.

Rules (this docstring is the spec; every rule below is tested)
--------------------------------------------------------------
Players court the characters of a royal court with dice. On his turn a player
rolls 3 dice plus the extra dice his cards give (Farmer +1, each Charlatan +1,
General +2). After each roll he sets aside active dice (set-aside dice are
final) and may use each of his cards' abilities once per turn, in any order;
once at least one die has been set aside since the last roll he may roll all
still-active dice again. When no die is active, his **result** is final and he
may take one card whose cost the result meets, of which a copy is left and
which he does not hold yet (Charlatans excepted), or pass. Groups in a cost
count each die in one group only (4-4-4-4 is two pairs; six equal dice are
three pairs or two triplets).

| kind | command | cost: the result includes | ability (once per turn) |
|---|---|---|---|
| 0 | ``fool`` | anything, while he holds no Fool | re-roll one active die |
| 1 | ``charlatan`` | anything; turns his Fool over | must roll 1 extra die each turn |
| 2 | ``farmer`` | a pair | must roll 1 extra die each turn |
| 3 | ``maid`` | only odd dice | add 1, 2 or 3 pips to one active die |
| 4 | ``philosopher`` | only even dice | move pips from one active die to another |
| 5 | ``laborer`` | pip total >= 15 | bring in an active 1 |
| 6 | ``guard`` | a triplet | bring in an active 2 |
| 7 | ``hunter`` | four of a kind | bring in an active 3 |
| 8 | ``merchant`` | pip total >= 20 | re-roll any number of active dice |
| 9 | ``astronomer`` | two pairs | set an active die to the value of a set-aside die |
| 10 | ``pawnbroker`` | pip total >= 30 | bring in an active 4 |
| 11 | ``noblewoman`` | a full house | add 1 pip to each of any number of active dice |
| 12 | ``magician`` | a straight 1-5 or 2-6 | set an active die to any value |
| 13 | ``knight`` | five of a kind | bring in an active 5 |
| 14 | ``bishop`` | three pairs | bring in an active 6 |
| 15 | ``alchemist`` | a straight 1-6 | redistribute the pips of up to three active dice |
| 16 | ``nobleman`` | two triplets | add 2 pips to each of any number of active dice (not 5, 6) |
| 17 | ``general`` | six of a kind | must roll 2 extra dice each turn |
| 18 | ``king`` | seven of a kind | comes with the Queen; starts the end of the game |
| 19 | ``queen`` | only with the first King | bring in an active die of any value |

The rules read every card's cost, extra dice and ability from one table,
:data:`CARDS`; the table above is made from it (:func:`card_table`).

Supply by seat count (2/3/4/5): row 0 (Fool/Charlatan, one double-sided card)
as many as players (**Decision**); row I (Farmer, Maid, Philosopher, Laborer,
Guard) 2/2/3/4; row II (Hunter, Merchant, Astronomer) 1/2/3/3; rows III and IV
1/2/2/3; King and Queen 1. Taking a Fool uses a row-0 card of the supply;
taking a Charlatan turns the taker's own Fool over and uses none, after which
he may take a Fool again. A player holds at most one Fool.

Rounds: each seat plays one turn per round, clockwise from the round's start
seat (seat 0 in the first round); the next round starts with the last player
of the round just ended. A seat whose result has seven of a kind may take the
King (and with it the Queen); the round is finished, then comes the final
round: the usual next start seat, but the claimer K skips his place and plays
last. In it nobody takes cards; a result's strength is (size of the largest
group, its face; with two largest groups the higher face). K's claiming result
is the first best; a seat that strictly beats the best takes the King card;
K, last, wins if he equals or beats the best, otherwise the King card's holder
wins.

Decisions (``court.md``)
------------------------
* Row 0 holds as many Fool/Charlatan cards as there are players.
* No card may be used once the last die is set aside (the turn is over then);
  a die brought in can be set aside at once.
* ``pass`` is always offered, and is the only action when nothing qualifies.

Decisions of this module (nobody says otherwise)
------------------------------------------------
* Abilities are offered only when they can be applied: the Maid, the
  Noblewoman and the Nobleman need an active die they may raise, the
  Philosopher a die of 2+ and another die of 5 or less, the Astronomer a
  set-aside value that differs from an active die, the Alchemist two active
  dice. A Philosopher move is at least 1 pip. An Alchemist redistribution may
  give back the values it started from (the card is then used for nothing).
* A Fool or Merchant re-roll is not a roll of the turn: it neither needs nor
  clears "a die set aside since the last roll".

Whose move: every roll (the turn's first, ``roll``, the Fool's and the
Merchant's re-rolls) is a chance node; its outcome is the count of each face
``[1s, 2s, 3s, 4s, 5s, 6s]`` of the dice rolled (forced outcomes may be
written ``"6 5 2"``). :meth:`Court.chance_outcomes` enumerates rolls of up to
8 dice exactly. The phase of the state (and of the view) is ``start`` (chance:
the turn's first roll, of as many dice as the cards held say), ``roll``
(chance: ``roll`` or a re-roll), ``play``, ``take``, one of the card-use steps
``die``, ``target``, ``pips``, ``value``, ``pick``, or ``over``.

Actions
-------
A card use is a short sequence of small decisions; each step offers only the
choices that lead to a legal completion.

| id | command | meaning |
|---|---|---|
| 0-5 | ``aside 1`` .. ``aside 6`` | set aside one active die showing that value |
| 6-11 | ``aside all 1`` .. ``aside all 6`` | set aside every active die showing it (offered for 2 or more) |
| 12 | ``roll`` | roll all active dice (a die was set aside since the last roll) |
| 13-28 | ``use fool`` .. ``use queen`` | use an ability card (the 16 with an ability, in kind order) |
| 29-34 | ``die 1`` .. ``die 6`` | choose an active die by its value (or pick one more, see below) |
| 35-40 | ``value 1`` .. ``value 6`` | choose a value |
| 41-45 | ``pips 1`` .. ``pips 5`` | choose how many pips to add or move |
| 46 | ``done`` | finish picking dice (Merchant, Noblewoman, Nobleman, Alchemist) |
| 47-65 | ``take fool`` .. ``take king`` | take that card (not the Queen: it comes with the King) |
| 66 | ``pass`` | take no card |

The ``use`` actions in order: fool, maid, philosopher, laborer, guard, hunter,
merchant, astronomer, pawnbroker, noblewoman, magician, knight, bishop,
alchemist, nobleman, queen. The ``take`` actions: the kinds 0-18 of the card
table. Aliases: ``r`` (roll), ``p`` (pass), ``ok`` (done), ``serving maid``,
``pawn broker`` and ``jester`` (fool) after ``use`` / ``take``.
``aside all V`` is one decision for what several ``aside V`` do; it keeps turns
short for people and agents (and random games about four times shorter).

The sequences: Fool ``die V`` (then the re-roll); Maid ``die V``, ``pips K``;
Philosopher ``die V`` (from), ``die W`` (to), ``pips K``; Astronomer ``die V``,
``value W`` (a set-aside value); Magician ``die V``, ``value W``; Queen
``value W``; Merchant, Noblewoman, Nobleman: ``die V`` for each die (one at a
time), then ``done``; Alchemist: ``die V`` for two or three dice (``done``
after two), then ``value W`` for each but the last die, which gets the rest of
the sum. Laborer, Guard, Hunter, Pawn Broker, Knight and Bishop act at once.

Observation (seat-relative: the observer first, then the others clockwise)
------------------------------------------------------------------------------
Built from :func:`observation_fields`; for ``n`` seats the size is
``23 n + 94``; ``D = 13 + n`` is the most dice a turn can have (3 + Farmer 1 +
Charlatans n + General 2 + seven dice brought in). Kinds are in the order of
the card table; "ability cards" are the 16 kinds with a ``use`` command.

| field | size | range | meaning |
|---|---|---|---|
| to_move | n | 0..1 | one-hot: whose turn it is |
| place | n | 0..n | each seat's place in this round's order (1 = first) |
| played | n | 0..1 | the seat has finished its turn this round |
| held | 20 n | 0..n | cards each seat holds, per kind (Charlatans counted) |
| supply | 19 | 0..n | copies left per kind, Charlatan left out (Fool: row-0 cards) |
| active | 6 | 0..D | active dice showing 1..6 (picked dice not included) |
| aside | 6 | 0..D | set-aside dice showing 1..6 |
| fresh | 1 | 0..1 | a die was set aside since the last roll (``roll`` allowed) |
| used | 16 | 0..1 | the mover has used this ability card this turn |
| phase | 7 | 0..1 | one-hot: play / take / die / target / pips / value / pick |
| card | 16 | 0..1 | one-hot: the ability card being used |
| chosen | 6 | 0..1 | one-hot: the value of the die chosen for the card |
| target | 6 | 0..1 | one-hot: the value of the Philosopher's target die |
| picked | 6 | 0..D | dice picked for the card so far, by value |
| pool | 1 | 0..18 | Alchemist: pips still to share out |
| pool_dice | 1 | 0..3 | Alchemist: dice still to get a value |
| final | 1 | 0..1 | the final round is being played |
| best_size | 1 | 0..D | size of the best end-game result so far (the King's claim first; 0: none) |
| best_face | 1 | 0..6 | face of that group |

Rewards
-------
Zero-sum at the end by default (see :mod:`tablezoo.envs.aec`): the seat with
the King card after the final round wins. ``score`` rewards shape towards it:
a seat's score is the number of extra dice its cards give per turn (Farmer,
each Charlatan, Laborer, Guard, Hunter, Pawn Broker, Knight, Bishop and Queen
1 each, General 2: more dice are what lets a seat reach the next row), plus
``10`` while it holds the King card. Rewards are the changes of that score.

Game length
-----------
The King needs seven of a kind, so random play runs long. Decisions (chance
steps not counted) of random legal games, 200 seeds per seat count:

| seats | median | 90th percentile | longest | rounds: median / longest |
|---|---|---|---|---|
| 2 | 4,487 | 11,879 | 32,159 | 100 / 606 |
| 3 | 4,924 | 8,874 | 16,212 | 74 / 196 |
| 4 | 5,292 | 12,572 | 31,340 | 64 / 312 |
| 5 | 5,416 | 11,141 | 21,342 | 54 / 164 |

With chance steps the longest was 35,877 steps. The env's ``max_cycles``
truncates an episode after that many decisions; the rules never change.

Options
-------
None.

Version history
---------------
v0: first release.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import chain, repeat
from operator import attrgetter
from typing import Any, Literal

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
    flat_numbers,
    relative_seats,
    require,
    require_list,
    require_range,
    require_text,
)
from tablezoo.games.dice import DiceFaces, roll_counts, roll_distribution

# --------------------------------------------------------------------------- cards

(
    FOOL,
    CHARLATAN,
    FARMER,
    MAID,
    PHILOSOPHER,
    LABORER,
    GUARD,
    HUNTER,
    MERCHANT,
    ASTRONOMER,
    PAWNBROKER,
    NOBLEWOMAN,
    MAGICIAN,
    KNIGHT,
    BISHOP,
    ALCHEMIST,
    NOBLEMAN,
    GENERAL,
    KING,
    QUEEN,
) = range(20)

Effect = Literal["none", "re-roll", "add pips", "move pips", "set value", "share pips", "bring in a die"]
"""What using a card's ability does to the active dice (:attr:`Card.effect`)."""
# plain strings, not an Enum: the rules compare them on every card step, and Enum member
# lookups are an order of magnitude slower
NO_ABILITY: Effect = "none"  # nothing to use: extra dice every turn, or the King
REROLL: Effect = "re-roll"  # roll the chosen dice again (Fool, Merchant)
ADD_PIPS: Effect = "add pips"  # raise each chosen die by its pips (Maid, Noblewoman, Nobleman)
MOVE_PIPS: Effect = "move pips"  # pips from the chosen die to a target die (Philosopher)
SET_VALUE: Effect = "set value"  # the chosen die shows the chosen value (Astronomer, Magician)
SHARE_PIPS: Effect = "share pips"  # the chosen dice share their pip total out anew (Alchemist)
BRING_IN_DIE: Effect = "bring in a die"  # a new active die (Laborer ... Bishop; Queen: any value)

LAST_FACE = 5
"""The face (index) of a 6: no die shows more."""
NUMBER_WORDS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven"}


def faces(low: int, high: int) -> range:
    """The faces (indices 0..5, as in dice counts) of the die values ``low`` to ``high``."""
    return range(low - 1, high)


ALL_FACES = faces(1, 6)
NO_FACES = range(0)
Counts = list[int] | tuple[int, ...]
"""Dice as counts of 1s..6s."""


def pip_total(counts: Counts) -> int:
    return sum((face + 1) * count for face, count in enumerate(counts))


def has_full_house(counts: Counts) -> bool:
    """A triplet and a pair with different dice (five equal dice are one)."""
    for triplet in range(6):
        if counts[triplet] >= 3:
            for pair in range(6):
                if counts[pair] - (3 if pair == triplet else 0) >= 2:
                    return True
    return False


@dataclass(frozen=True)
class Cost:
    """What a result (counts of 1s..6s) must include for a card to be taken; every
    condition given must hold, and a cost with none is met by anything.

    Groups count each die in one group only: pairs are ``sum(count // 2)``,
    triplets ``sum(count // 3)`` (4-4-4-4 is two pairs, six equal dice three pairs
    or two triplets).
    """

    of_a_kind: int = 0  # a group of at least this many equal dice
    pairs: int = 0  # at least this many pairs
    triplets: int = 0  # at least this many triplets
    full_house: bool = False  # a triplet and a pair
    pip_total: int = 0  # the pips of all dice add up to at least this
    only_faces: tuple[int, ...] = ()  # every die shows one of these faces (and there is one)
    straights: tuple[range, ...] = ()  # the result has a die of every face of one of these runs
    bought: bool = True  # False: no result takes the card (the Queen comes with the King)
    condition: str = ""  # the rest of the condition, on the cards held (said after the dice)

    check: Callable[[Counts], bool] = field(init=False, repr=False, compare=False)
    """The conditions as one function of a result, made once: results are checked
    against every cost whenever a turn ends with a result not seen before."""

    def __post_init__(self) -> None:
        checks = tuple(self._conditions())
        if len(checks) == 1:
            check = checks[0]
        elif checks:
            check = lambda counts: all(one(counts) for one in checks)  # noqa: E731
        else:
            check = lambda counts: True  # noqa: E731
        object.__setattr__(self, "check", check)

    def _conditions(self) -> Iterator[Callable[[Counts], bool]]:
        """One check of a result (counts of 1s..6s) per condition of the cost."""
        if not self.bought:
            yield lambda counts: False
            return
        if self.of_a_kind:
            size = self.of_a_kind
            yield lambda counts: max(counts) >= size
        if self.pairs:
            pairs = self.pairs
            yield lambda counts: sum([count // 2 for count in counts]) >= pairs
        if self.triplets:
            triplets = self.triplets
            yield lambda counts: sum([count // 3 for count in counts]) >= triplets
        if self.full_house:
            yield has_full_house
        if self.pip_total:
            total = self.pip_total
            yield lambda counts: pip_total(counts) >= total
        if self.only_faces:
            others = [face for face in range(6) if face not in self.only_faces]
            yield lambda counts: any(counts) and not any([counts[face] for face in others])
        if self.straights:
            runs = [slice(run.start, run.stop) for run in self.straights]
            yield lambda counts: any([all(counts[run]) for run in runs])

    def met_by(self, counts: Counts) -> bool:
        """Whether a result meets this cost (the conditions on cards held not included)."""
        return self.check(counts)

    @property
    def text(self) -> str:
        """The cost as the card table says it: "the result includes ..."."""
        if not self.bought:
            return self.condition
        parts = []
        if self.of_a_kind:
            named = {2: "a pair", 3: "a triplet"}
            parts.append(named.get(self.of_a_kind, f"{NUMBER_WORDS[self.of_a_kind]} of a kind"))
        if self.pairs:
            parts.append(f"{NUMBER_WORDS[self.pairs]} pairs")
        if self.triplets:
            parts.append(f"{NUMBER_WORDS[self.triplets]} triplets")
        if self.full_house:
            parts.append("a full house")
        if self.pip_total:
            parts.append(f"pip total >= {self.pip_total}")
        if self.only_faces:
            parity = {(0, 2, 4): "odd", (1, 3, 5): "even"}
            shown = ", ".join(str(face + 1) for face in self.only_faces)
            parts.append(
                f"only {parity[self.only_faces]} dice" if self.only_faces in parity else f"only {shown}"
            )
        if self.straights:
            runs = " or ".join(f"{run[0] + 1}-{run[-1] + 1}" for run in self.straights)
            parts.append(f"a straight {runs}")
        return (" and ".join(parts) or "anything") + self.condition


@dataclass(frozen=True)
class Card:
    """One kind of card: what it costs, the extra dice it gives and its ability.

    The ability's fields say which dice it acts on and how: a use chooses
    ``fewest_dice`` to ``most_dice`` active dice among ``faces`` (one die: ``die V``;
    several: ``die V`` each, then ``done``), and then, by ``effect``, pips from
    ``pips`` (chosen when there are several), a value, or a target die among
    ``targets``; a card that brings in a die adds an active die of a face in
    ``brings_in`` (chosen when there are several).
    """

    kind: int  # its index in the card table (and in counts per kind)
    command: str  # its name in commands (``use``, ``take``) and views
    title: str  # its name for people
    row: int  # 0 = the Fool/Charlatan card, 1..5 = rows I..V of the supply
    cost: Cost
    ability: str  # what the card table says it does (once per turn)
    extra_rolled: int = 0  # extra dice rolled at the start of every turn (Farmer, Charlatan, General)
    effect: Effect = NO_ABILITY
    faces: range = ALL_FACES  # the faces of the active dice the ability may choose
    fewest_dice: int = 1  # dice to choose before ``done`` is offered
    most_dice: int | None = 1  # dice it may choose (None: any number)
    pips: range = NO_FACES  # pips added to or moved between dice
    targets: range = NO_FACES  # faces of the die receiving moved pips
    copies_aside: bool = False  # the new value must be one a set-aside die shows
    brings_in: range = NO_FACES  # faces the die it brings in may show

    @property
    def extra_dice(self) -> int:
        """Extra dice per turn the card gives, rolled at the start or brought in."""
        return self.extra_rolled + (1 if self.brings_in else 0)

    @property
    def brings_in_at_once(self) -> bool:
        """Whether its use brings in a die of its one value without a step to choose."""
        return len(self.brings_in) == 1

    @property
    def picks_dice(self) -> bool:
        """Whether its use picks dice one by one and ends with ``done``."""
        return self.most_dice != 1


# fmt: off
CARDS = (
    Card(FOOL, "fool", "Fool", 0, Cost(condition=", while he holds no Fool"),
         "re-roll one active die", effect=REROLL),
    Card(CHARLATAN, "charlatan", "Charlatan", 0, Cost(condition="; turns his Fool over"),
         "must roll 1 extra die each turn", extra_rolled=1),
    Card(FARMER, "farmer", "Farmer", 1, Cost(of_a_kind=2),
         "must roll 1 extra die each turn", extra_rolled=1),
    Card(MAID, "maid", "Serving Maid", 1, Cost(only_faces=(0, 2, 4)),
         "add 1, 2 or 3 pips to one active die", effect=ADD_PIPS, faces=faces(1, 5), pips=range(1, 4)),
    Card(PHILOSOPHER, "philosopher", "Philosopher", 1, Cost(only_faces=(1, 3, 5)),
         "move pips from one active die to another",
         effect=MOVE_PIPS, faces=faces(2, 6), targets=faces(1, 5), pips=range(1, 6)),
    Card(LABORER, "laborer", "Laborer", 1, Cost(pip_total=15),
         "bring in an active 1", effect=BRING_IN_DIE, brings_in=faces(1, 1)),
    Card(GUARD, "guard", "Guard", 1, Cost(of_a_kind=3),
         "bring in an active 2", effect=BRING_IN_DIE, brings_in=faces(2, 2)),
    Card(HUNTER, "hunter", "Hunter", 2, Cost(of_a_kind=4),
         "bring in an active 3", effect=BRING_IN_DIE, brings_in=faces(3, 3)),
    Card(MERCHANT, "merchant", "Merchant", 2, Cost(pip_total=20),
         "re-roll any number of active dice", effect=REROLL, most_dice=None),
    Card(ASTRONOMER, "astronomer", "Astronomer", 2, Cost(pairs=2),
         "set an active die to the value of a set-aside die", effect=SET_VALUE, copies_aside=True),
    Card(PAWNBROKER, "pawnbroker", "Pawn Broker", 3, Cost(pip_total=30),
         "bring in an active 4", effect=BRING_IN_DIE, brings_in=faces(4, 4)),
    Card(NOBLEWOMAN, "noblewoman", "Noblewoman", 3, Cost(full_house=True),
         "add 1 pip to each of any number of active dice",
         effect=ADD_PIPS, faces=faces(1, 5), most_dice=None, pips=range(1, 2)),
    Card(MAGICIAN, "magician", "Magician", 3, Cost(straights=(faces(1, 5), faces(2, 6))),
         "set an active die to any value", effect=SET_VALUE),
    Card(KNIGHT, "knight", "Knight", 3, Cost(of_a_kind=5),
         "bring in an active 5", effect=BRING_IN_DIE, brings_in=faces(5, 5)),
    Card(BISHOP, "bishop", "Bishop", 4, Cost(pairs=3),
         "bring in an active 6", effect=BRING_IN_DIE, brings_in=faces(6, 6)),
    Card(ALCHEMIST, "alchemist", "Alchemist", 4, Cost(straights=(faces(1, 6),)),
         "redistribute the pips of up to three active dice", effect=SHARE_PIPS, fewest_dice=2, most_dice=3),
    Card(NOBLEMAN, "nobleman", "Nobleman", 4, Cost(triplets=2),
         "add 2 pips to each of any number of active dice (not 5, 6)",
         effect=ADD_PIPS, faces=faces(1, 4), most_dice=None, pips=range(2, 3)),
    Card(GENERAL, "general", "General", 4, Cost(of_a_kind=6),
         "must roll 2 extra dice each turn", extra_rolled=2),
    Card(KING, "king", "King", 5, Cost(of_a_kind=7),
         "comes with the Queen; starts the end of the game"),
    Card(QUEEN, "queen", "Queen", 5, Cost(bought=False, condition="only with the first King"),
         "bring in an active die of any value", effect=BRING_IN_DIE, brings_in=ALL_FACES),
)
"""The card table, in kind order: every rule of a card that is not about the turn
or the end of the game is read from here."""
# fmt: on

KINDS = tuple(card.command for card in CARDS)
TITLES = tuple(card.title for card in CARDS)
NUM_KINDS = len(CARDS)
ROW = tuple(card.row for card in CARDS)
"""The row of each kind (0 = the Fool/Charlatan card, 1..5 = rows I..V)."""
ROW_COPIES = {1: (2, 2, 3, 4), 2: (1, 2, 3, 3), 3: (1, 2, 2, 3), 4: (1, 2, 2, 3), 5: (1, 1, 1, 1)}
"""Copies of each kind of rows I..V for 2, 3, 4, 5 seats."""

ABILITY = tuple(card.kind for card in CARDS if card.effect != NO_ABILITY)
"""The kinds with an ability to use, in kind order (the ``use`` actions)."""
TAKEABLE = tuple(card.kind for card in CARDS if card.cost.bought)
"""The kinds a ``take`` action names (the Queen comes with the King)."""
BRING_IN = {card.kind: card.brings_in[0] for card in CARDS if card.brings_in_at_once}
"""Cards that bring in an active die of one value, and the face (index: value - 1) it shows."""
EXTRA_DICE = tuple(card.extra_dice for card in CARDS)
"""Extra dice per turn a card gives, rolled at the start (Farmer, Charlatan, General)
or brought in (Laborer ... Bishop, Queen): the ``score`` of a seat."""
EXTRA_ROLLED = tuple((card.kind, card.extra_rolled) for card in CARDS if card.extra_rolled)
"""The kinds that add dice to the turn's first roll, and how many each."""
KING_POINTS = 10
"""Score of holding the King card (``reward="score"``)."""
BASE_DICE = 3

# --------------------------------------------------------------------------- actions

ASIDE = 0  # 0..5: aside value 1..6 (one die)
ASIDE_ALL = 6  # 6..11: aside all 1 .. aside all 6 (every active die showing it)
ROLL = 12
USE = 13  # 13..28: use ABILITY[i]
DIE = USE + len(ABILITY)  # 29..34
VALUE = DIE + 6  # 35..40
PIPS = VALUE + 6  # 41..45: pips 1..5
DONE = PIPS + 5  # 46
TAKE = DONE + 1  # 47..65: take TAKEABLE[i] (= kind i)
PASS = TAKE + len(TAKEABLE)  # 66
NUM_ACTIONS = PASS + 1
USE_ACTION = {card: USE + i for i, card in enumerate(ABILITY)}
BIT = {card: 1 << i for i, card in enumerate(ABILITY)}
"""The bit of each ability card in :attr:`CourtState.ready`."""
COPIES_ASIDE_BITS = sum(BIT[kind] for kind in ABILITY if CARDS[kind].copies_aside)
"""The bits of the cards that need a set-aside die of another value to copy (the Astronomer)."""

# --------------------------------------------------------------------------- phases

START = "start"  # chance: the turn's first roll (3 dice + the extra dice of the cards)
PLAY = "play"  # set aside, roll or use a card
TAKE_PHASE = "take"  # the result is final: take a card or pass
CHOOSE_DIE = "die"  # choose one active die for the card in use
CHOOSE_TARGET = "target"  # the Philosopher's second die
CHOOSE_PIPS = "pips"  # the Maid's or the Philosopher's pips
CHOOSE_VALUE = "value"  # the Astronomer's, Magician's, Queen's or Alchemist's value
PICK = "pick"  # pick dice one by one (Merchant, Noblewoman, Nobleman, Alchemist), then done
ROLLING = "roll"  # chance: roll state.to_roll dice into the active dice
OVER = "over"
PHASES = (PLAY, TAKE_PHASE, CHOOSE_DIE, CHOOSE_TARGET, CHOOSE_PIPS, CHOOSE_VALUE, PICK)
PHASE_INDEX = {phase: i for i, phase in enumerate(PHASES)}
# what Court.observe_batch reads of each state, in one call per state: the lists supply,
# active, aside, picked and best, then 10 single numbers
_BATCH_LISTS = attrgetter("supply", "active", "aside", "picked", "best")
_BATCH_NUMBERS = attrgetter(
    "pos", "turn", "fresh", "ready", "card", "die", "target", "pool", "pool_dice", "final"
)


_SUPPLY_KINDS = [FOOL, *range(FARMER, NUM_KINDS)]  # the supply field: every kind but the Charlatan
_ABILITY_SLOT = np.zeros(NUM_KINDS, np.int64)  # kind -> its index in ABILITY (the card field)
_ABILITY_SLOT[list(ABILITY)] = np.arange(len(ABILITY))


def first_step(card: Card) -> str:
    """The phase a use of ``card`` starts with (one that brings in a die at once has none)."""
    if card.picks_dice:
        return PICK
    if card.effect == BRING_IN_DIE:
        return CHOOSE_VALUE
    return CHOOSE_DIE


FIRST_STEP = {kind: first_step(CARDS[kind]) for kind in ABILITY if not CARDS[kind].brings_in_at_once}
STEP_AFTER_DIE = {MOVE_PIPS: CHOOSE_TARGET, ADD_PIPS: CHOOSE_PIPS, SET_VALUE: CHOOSE_VALUE}
"""The step after the die is chosen, by effect (a re-roll of one die has none)."""

MAX_ENUMERATED = 8
"""Rolls of up to this many dice have their outcomes enumerated exactly."""


def max_dice(num_seats: int) -> int:
    """The most dice a turn can have: 3 + the extra dice of every card (Farmer 1,
    General 2, the seven dice brought in by Laborer ... Bishop and the Queen) + a
    Charlatan per row-0 card (the only kind a seat may hold several of)."""
    more_charlatans = (num_seats - 1) * CARDS[CHARLATAN].extra_rolled
    return BASE_DICE + sum(card.extra_dice for card in CARDS) + more_charlatans


def initial_supply(num_seats: int) -> list[int]:
    """Copies of each kind in the supply at the start; Charlatans are never in it."""
    supply = [0] * NUM_KINDS
    for kind in range(NUM_KINDS):
        row = ROW[kind]
        if row:
            supply[kind] = ROW_COPIES[row][num_seats - 2]
    supply[FOOL] = num_seats  # Decision: as many row-0 cards as players
    return supply


# --------------------------------------------------------------------------- dice


def meets_cost(kind: int, counts: list[int] | tuple[int, ...]) -> bool:
    """Whether a result (counts of 1s..6s) meets the cost of a card kind (see :class:`Cost`).

    The Fool and the Charlatan cost anything (their conditions are on the cards
    held, see :meth:`Court.legal_actions`); the Queen is never bought.
    """
    return CARDS[kind].cost.met_by(counts)


@functools.cache
def kinds_met(counts: tuple[int, ...]) -> tuple[int, ...]:
    """The kinds from the Farmer to the King whose cost a result meets, ascending."""
    return tuple(card.kind for card in CARDS[FARMER:QUEEN] if card.cost.met_by(counts))


def strength(counts: list[int] | tuple[int, ...]) -> list[int]:
    """A final-round result's strength ``[size, face]``: the largest group of equal
    dice, and its face (the higher one when two groups are largest)."""
    size = max(counts)
    face = 6 - counts[::-1].index(size)
    return [size, face]


def can_change(card: Card, active: tuple[int, ...]) -> bool:
    """Whether the ability of ``card`` can be applied to these active dice (the
    Astronomer's need of a set-aside die of another value not included)."""
    if card.effect == ADD_PIPS:  # a die it may raise
        return any(active[face] for face in card.faces)
    if card.effect == MOVE_PIPS:
        return bool(philosopher_sources(active))
    if card.effect == SHARE_PIPS:
        return sum(active) >= card.fewest_dice
    return True  # re-rolls, new values and new dice apply to any dice


@functools.cache
def play_options(active: tuple[int, ...]) -> tuple[tuple[int, ...], int]:
    """For active dice (counts): the ``aside`` actions, and the bits of the ability
    cards that can change them (the Astronomer, which also needs a set-aside die,
    left out)."""
    asides = (
        *(ASIDE + face for face in range(6) if active[face]),
        *(ASIDE_ALL + face for face in range(6) if active[face] > 1),
    )
    usable = 0
    for kind in ABILITY:
        card = CARDS[kind]
        if not card.copies_aside and can_change(card, active):
            usable |= BIT[kind]
    return asides, usable


def philosopher_sources(active: list[int] | tuple[int, ...]) -> list[int]:
    """Faces of active dice the Philosopher can take pips from: a 2 or more, with
    another active die of 5 or less to receive them."""
    philosopher = CARDS[PHILOSOPHER]
    targets = philosopher.targets
    receivers = sum(active[face] for face in targets)
    return [face for face in philosopher.faces if active[face] and receivers - (face in targets) > 0]


def astronomer_dice(active: list[int], aside: list[int]) -> list[int]:
    """Faces of active dice the Astronomer can change: a set-aside die shows another value."""
    shown = [face for face in range(6) if aside[face]]
    if len(shown) != 1:  # none: nothing to copy; several: every active die differs from one
        return [face for face in range(6) if active[face]] if shown else []
    return [face for face in range(6) if active[face] and face != shown[0]]


@functools.cache
def rolled_dice(held: tuple[int, ...]) -> int:
    """Dice a seat with these cards (counts per kind) rolls at the start of its turn."""
    return BASE_DICE + sum(held[kind] * extra for kind, extra in EXTRA_ROLLED)


@functools.cache
def held_bits(held: tuple[int, ...]) -> int:
    """The bits of the ability cards in a seat's cards (counts per kind)."""
    return sum(BIT[kind] for kind in ABILITY if held[kind])


@functools.cache
def used_slots(bits: int) -> tuple[int, ...]:
    """The indices in :data:`ABILITY` of the set bits."""
    return tuple(i for i in range(len(ABILITY)) if bits >> i & 1)


@functools.cache
def used_bytes(bits: int) -> bytes:
    """The ``used`` field of the set bits: one byte per card of :data:`ABILITY`, 1 where set."""
    return bytes(bits >> i & 1 for i in range(len(ABILITY)))


@functools.cache
def use_actions(bits: int) -> tuple[int, ...]:
    """The ``use`` actions of the ability cards whose bits are set, ascending."""
    return tuple(USE + i for i in range(len(ABILITY)) if bits >> i & 1)


def card_table() -> str:
    """The card table of the module docstring, made from :data:`CARDS`."""
    lines = [
        "| kind | command | cost: the result includes | ability (once per turn) |",
        "|---|---|---|---|",
    ]
    for card in CARDS:
        lines.append(f"| {card.kind} | ``{card.command}`` | {card.cost.text} | {card.ability} |")
    return "\n".join(lines)


DICE_FACES = DiceFaces(("1", "2", "3", "4", "5", "6"), "value", "6 5 2", highest_first=True)
parse_dice = DICE_FACES.parse
dice_text = DICE_FACES.text


# --------------------------------------------------------------------------- state


@dataclass
class CourtState:
    """Everything about a To Court the King game; all of it is public."""

    supply: list[int] = field(default_factory=list)  # copies left per kind
    held: list[list[int]] = field(default_factory=list)  # per seat, per kind
    order: list[int] = field(default_factory=list)  # seats of this round, in turn order
    pos: int = 0  # index in ``order`` of the seat to play
    turn: int = 0  # the seat to play (order[pos])
    round: int = 1  # rounds begun, the final round included
    phase: str = START
    to_roll: int = 0  # dice a pending roll (phase "roll") throws
    active: list[int] = field(default_factory=lambda: [0] * 6)  # active dice per face
    aside: list[int] = field(default_factory=lambda: [0] * 6)  # set-aside dice per face
    fresh: bool = False  # a die was set aside since the last roll
    ready: int = 0  # bits (see BIT) of the mover's ability cards not used yet this turn
    card: int = -1  # the ability card being used
    die: int = -1  # the face (index) of the die chosen for it
    target: int = -1  # the face of the Philosopher's target die
    picked: list[int] = field(default_factory=lambda: [0] * 6)  # dice picked for the card
    pool: int = 0  # Alchemist: pips still to share out
    pool_dice: int = 0  # Alchemist: dice still to get a value
    final: bool = False  # the final round is being played
    claimer: int = -1  # the seat that claimed the King (holds the Queen)
    holder: int = -1  # the seat holding the King card
    best: list[int] = field(default_factory=lambda: [0, 0])  # best [size, face] in the end
    results: list[list[int]] = field(default_factory=list)  # per seat: claim/final [size, face]
    last: str = ""  # what happened last, for people


# --------------------------------------------------------------------------- the game


class Court(Game[CourtState]):
    """To Court the King for 2-5 seats; no options."""

    info = GameInfo(
        name="court",
        title="To Court the King",
        version=0,
        min_seats=2,
        max_seats=5,
        default_seats=3,
        options=(),
        hidden_information=False,
        chance=True,
    )
    state_type = CourtState

    def _configure(self) -> None:
        self.action_names = (
            *(f"aside {v}" for v in range(1, 7)),
            *(f"aside all {v}" for v in range(1, 7)),
            "roll",
            *(f"use {KINDS[k]}" for k in ABILITY),
            *(f"die {v}" for v in range(1, 7)),
            *(f"value {v}" for v in range(1, 7)),
            *(f"pips {k}" for k in range(1, 6)),
            "done",
            *(f"take {KINDS[k]}" for k in TAKEABLE),
            "pass",
        )
        assert len(self.action_names) == NUM_ACTIONS
        self.max_dice = max_dice(self.num_seats)
        self.observation_spec = ObservationSpec(observation_fields(self.num_seats))
        self._supply0 = initial_supply(self.num_seats)
        off = self.observation_spec.offsets
        self._o_to_move, self._o_place, self._o_active = off["to_move"], off["place"], off["active"]
        self._o_fresh, self._o_used, self._o_phase = off["fresh"], off["used"], off["phase"]
        self._o_card, self._o_chosen, self._o_target = off["card"], off["chosen"], off["target"]
        self._o_picked, self._o_final = off["picked"], off["final"]
        self._bits_memo: tuple[list[int], int] = ([], 0)
        self._table_memo: tuple[list[list[int]], list[int], list[int], int, dict[int, bytes]] = (
            [],
            [],
            [],
            -1,
            {},
        )

    def _add_aliases(self) -> None:
        self._alias("r", ROLL)
        self._alias("p", PASS)
        self._alias("ok", DONE)
        for spelled, kind in (("serving maid", MAID), ("pawn broker", PAWNBROKER), ("jester", FOOL)):
            if kind in ABILITY:
                self._alias(f"use {spelled}", USE_ACTION[kind])
            self._alias(f"take {spelled}", TAKE + kind)

    # ------------------------------------------------------------ state machine

    def initial_state(self) -> CourtState:
        n = self.num_seats
        return CourtState(
            supply=list(self._supply0),
            held=[[0] * NUM_KINDS for _ in range(n)],
            order=list(range(n)),
            results=[[0, 0] for _ in range(n)],
        )

    def chance_context(self, state: CourtState) -> int:
        """The seat to play: its rolls are its turn's chance."""
        return state.turn

    def to_move(self, state: CourtState) -> int:
        phase = state.phase
        if phase in (ROLLING, START):
            return CHANCE
        if phase == OVER:
            return TERMINAL
        return state.turn

    def dice_to_roll(self, held: list[int]) -> int:
        """Dice a seat rolls at the start of its turn."""
        return rolled_dice(tuple(held))

    def used_cards(self, state: CourtState) -> list[int]:
        """The ability cards the mover has used this turn."""
        if state.phase in (START, OVER):
            return []
        used = held_bits(tuple(state.held[state.turn])) & ~state.ready
        return [ABILITY[i] for i in used_slots(used)]

    def legal_actions(self, state: CourtState) -> list[int]:
        phase = state.phase
        active = state.active
        if phase == PLAY:
            asides, usable = play_options(tuple(active))
            out = [*asides]
            if state.fresh:
                out.append(ROLL)
            ready = state.ready
            if ready:
                bits = ready & usable
                if ready & COPIES_ASIDE_BITS and astronomer_dice(active, state.aside):
                    bits |= ready & COPIES_ASIDE_BITS
                if bits:
                    out += use_actions(bits)
            return out
        if phase == TAKE_PHASE:
            held, supply = state.held[state.turn], state.supply
            out = []
            if supply[FOOL] and not held[FOOL]:
                out.append(TAKE + FOOL)
            if held[FOOL]:
                out.append(TAKE + CHARLATAN)
            for kind in kinds_met(tuple(state.aside)):
                if supply[kind] and not held[kind]:
                    out.append(TAKE + kind)
            out.append(PASS)
            return out
        card = CARDS[state.card]
        if phase == CHOOSE_DIE:
            if card.effect == MOVE_PIPS:
                return [DIE + face for face in philosopher_sources(active)]
            if card.copies_aside:
                return [DIE + face for face in astronomer_dice(active, state.aside)]
            return [DIE + face for face in card.faces if active[face]]
        if phase == CHOOSE_TARGET:
            chosen = state.die
            return [DIE + face for face in card.targets if active[face] - (face == chosen) > 0]
        if phase == CHOOSE_PIPS:
            if card.effect == ADD_PIPS:
                most = min(card.pips[-1], LAST_FACE - state.die)
            else:  # moved pips: the chosen die keeps 1 at least, the target shows 6 at most
                most = min(card.pips[-1], state.die, LAST_FACE - state.target)
            return [PIPS + pips - 1 for pips in range(card.pips[0], most + 1)]
        if phase == CHOOSE_VALUE:
            if card.copies_aside:
                aside, chosen = state.aside, state.die
                return [VALUE + face for face in range(6) if aside[face] and face != chosen]
            if card.effect == SET_VALUE:
                return [VALUE + face for face in range(6) if face != state.die]
            if card.effect == SHARE_PIPS:  # the dice after this one can still share out the rest
                rest, pool = state.pool_dice - 1, state.pool
                return [VALUE + face for face in range(6) if rest <= pool - face - 1 <= 6 * rest]
            return [VALUE + face for face in card.brings_in]
        if phase == PICK:
            out = [DIE + face for face in card.faces if active[face]]
            if sum(state.picked) >= card.fewest_dice:
                out.append(DONE)
            return out
        return []

    def _apply(self, state: CourtState, action: int) -> None:
        if action < ROLL:  # aside one die, or all dice showing a value
            active = state.active
            if action < ASIDE_ALL:
                active[action] -= 1
                state.aside[action] += 1
            else:
                face = action - ASIDE_ALL
                state.aside[face] += active[face]
                active[face] = 0
            state.fresh = True
            if not any(active):
                self._result_final(state)
        elif action == ROLL:
            state.to_roll = sum(state.active)
            state.active = [0] * 6
            state.fresh = False
            state.phase = ROLLING
        elif action < DIE:
            self._use(state, ABILITY[action - USE])
        elif action < VALUE:
            self._die(state, action - DIE)
        elif action < PIPS:
            self._value(state, action - VALUE)
        elif action < DONE:
            self._pips(state, action - PIPS + 1)
        elif action == DONE:
            self._done(state)
        elif action < PASS:
            self._take(state, action - TAKE)
        else:
            state.last = f"seat {state.turn} passed with {dice_text(state.aside)}"
            self._end_turn(state)

    # ------------------------------------------------------------ card uses

    def _use(self, state: CourtState, kind: int) -> None:
        state.ready &= ~BIT[kind]
        face = BRING_IN.get(kind)
        if face is not None:  # a die of the card's one value comes in at once
            state.active[face] += 1
            return
        state.card = kind
        state.phase = FIRST_STEP[kind]

    def _card_done(self, state: CourtState) -> None:
        state.card = -1
        state.die = -1
        state.target = -1
        state.phase = PLAY

    def _die(self, state: CourtState, face: int) -> None:
        phase, card, active = state.phase, CARDS[state.card], state.active
        if phase == PICK:
            active[face] -= 1
            state.picked[face] += 1
            if card.effect == SHARE_PIPS:
                state.pool += face + 1
                state.pool_dice += 1
                if state.pool_dice == card.most_dice:  # no more dice to pick: share out the pips
                    state.phase = CHOOSE_VALUE
        elif phase == CHOOSE_TARGET:
            state.target = face
            state.phase = CHOOSE_PIPS
        elif card.effect == REROLL:  # one die, re-rolled at once
            active[face] -= 1
            self._card_done(state)
            state.to_roll = 1
            state.phase = ROLLING
        else:
            state.die = face
            state.phase = STEP_AFTER_DIE[card.effect]

    def _value(self, state: CourtState, face: int) -> None:
        active, card = state.active, CARDS[state.card]
        if card.effect == BRING_IN_DIE:
            active[face] += 1
        elif card.effect == SHARE_PIPS:
            active[face] += 1
            state.pool -= face + 1
            state.pool_dice -= 1
            if state.pool_dice > 1:
                return
            active[state.pool - 1] += 1  # the last die gets the rest of the sum
            state.pool = 0
            state.pool_dice = 0
            state.picked = [0] * 6
        else:  # a new value for the chosen die
            active[state.die] -= 1
            active[face] += 1
        self._card_done(state)

    def _pips(self, state: CourtState, pips: int) -> None:
        active, chosen = state.active, state.die
        active[chosen] -= 1
        if CARDS[state.card].effect == ADD_PIPS:
            active[chosen + pips] += 1
        else:  # moved from the chosen die to the target
            active[chosen - pips] += 1
            active[state.target] -= 1
            active[state.target + pips] += 1
        self._card_done(state)

    def _done(self, state: CourtState) -> None:
        card, picked, active = CARDS[state.card], state.picked, state.active
        if card.effect == SHARE_PIPS:
            state.phase = CHOOSE_VALUE
            return
        if card.effect == REROLL:
            state.to_roll = sum(picked)
            state.picked = [0] * 6
            self._card_done(state)
            state.phase = ROLLING
            return
        raised = card.pips[0]  # every picked die gets the card's pips
        for face in range(6):
            if picked[face]:
                active[face + raised] += picked[face]
        state.picked = [0] * 6
        self._card_done(state)

    # ------------------------------------------------------------ results and turns

    def _result_final(self, state: CourtState) -> None:
        if not state.final:
            state.phase = TAKE_PHASE
            return
        seat, result = state.turn, strength(state.aside)
        state.results[seat] = result
        text = f"seat {state.turn} rolled {dice_text(state.aside)}"
        if result > state.best or (seat == state.claimer and result == state.best):
            state.best = list(result)
            self._give_king(state, seat)
            text += ", takes the King card"
        state.last = text
        self._end_turn(state)

    def _give_king(self, state: CourtState, seat: int) -> None:
        if state.holder != seat:
            state.held[state.holder][KING] -= 1
            state.held[seat][KING] += 1
            state.holder = seat

    def _take(self, state: CourtState, kind: int) -> None:
        seat = state.turn
        held = state.held[seat]
        text = f"seat {seat} took the {TITLES[kind]} with {dice_text(state.aside)}"
        if kind == CHARLATAN:  # turn his Fool over: no card from the supply
            held[FOOL] -= 1
            held[CHARLATAN] += 1
        else:
            state.supply[kind] -= 1
            held[kind] += 1
        if kind == KING:
            state.supply[QUEEN] -= 1
            held[QUEEN] += 1
            state.claimer = state.holder = seat
            state.best = strength(state.aside)
            state.results[seat] = list(state.best)
            text += " and the Queen"
        state.last = text
        self._end_turn(state)

    def _end_turn(self, state: CourtState) -> None:
        state.active = [0] * 6
        state.aside = [0] * 6
        state.ready = 0
        state.fresh = False
        state.pos += 1
        n = self.num_seats
        if state.pos == len(state.order):  # the round is over
            if state.final:
                state.phase = OVER
                return
            start = state.order[-1]  # the last player starts the next round
            order = [(start + k) % n for k in range(n)]
            if state.claimer >= 0:  # final round: the claimer skips his place, plays last
                order.remove(state.claimer)
                order.append(state.claimer)
                state.final = True
            state.order = order
            state.pos = 0
            state.round += 1
        state.turn = state.order[state.pos]
        state.phase = START

    # ------------------------------------------------------------ chance

    def sample_chance(self, state: CourtState, rng: np.random.Generator) -> list[int]:
        return roll_counts(rng, self.roll_size(state))

    def chance_outcomes(self, state: CourtState) -> list[tuple[Any, float]]:
        k = self.roll_size(state)
        if k > MAX_ENUMERATED:
            raise NotImplementedError(
                f"{self.info.title} enumerates rolls of up to {MAX_ENUMERATED} dice, not {k}"
            )
        return [(list(c), p) for c, p in roll_distribution(k)]

    def check_outcome(self, state: CourtState, outcome: Any) -> list[int]:
        return DICE_FACES.check_roll(outcome, self.roll_size(state))

    def roll_size(self, state: CourtState) -> int:
        """How many dice the pending roll throws."""
        if state.phase == START:
            return self.dice_to_roll(state.held[state.turn])
        return state.to_roll

    def _apply_chance(self, state: CourtState, outcome: list[int]) -> None:
        if state.phase == START:
            state.ready = held_bits(tuple(state.held[state.turn]))
        active = state.active
        for face in range(6):
            active[face] += outcome[face]
        state.to_roll = 0
        state.phase = PLAY

    def describe_outcome(self, state: CourtState, outcome: Any) -> str:
        return f"seat {state.turn} rolled {dice_text(outcome)}"

    # ------------------------------------------------------------ states from outside

    def validate(self, state: CourtState) -> None:
        """Refuse a state no game reaches (:class:`~tablezoo.games.core.StateError` naming it),
        as the native core's ``Court::validate`` does, check for check."""
        n, most, supply0 = self.num_seats, self.max_dice, self._supply0
        words = (
            PLAY,
            TAKE_PHASE,
            CHOOSE_DIE,
            CHOOSE_TARGET,
            CHOOSE_PIPS,
            CHOOSE_VALUE,
            PICK,
            START,
            ROLLING,
            OVER,
        )
        phase = state.phase
        allowed = ", ".join(map(repr, words))
        require(isinstance(phase, str) and phase in words, f"phase should be one of {allowed}, not {phase!r}")
        for name in ("fresh", "final"):
            value = getattr(state, name)
            require(isinstance(value, bool), f"{name} should be true or false, not {value!r}")
        require_text(state.last, "last", 96)

        def numbers(value: Any, name: str, size: int) -> list[int]:
            items = require_list(value, name, size)
            for i, item in enumerate(items):
                require_range(item, -(10**9), 10**9, f"{name}[{i}]")
            return items

        # The cards: each seat holds at most one of a kind (Charlatans: up to one per row-0
        # card), and per kind the supply and the hands add up to the game's copies.
        supply = numbers(state.supply, "supply", NUM_KINDS)
        held = [
            numbers(h, f"held[{seat}]", NUM_KINDS)
            for seat, h in enumerate(require_list(state.held, "held", n))
        ]
        for kind in range(NUM_KINDS):
            require_range(supply[kind], 0, supply0[kind], f"supply[{kind}]")
            copies = supply[kind]
            for seat in range(n):
                require_range(held[seat][kind], 0, n if kind == CHARLATAN else 1, f"held[{seat}][{kind}]")
                copies += held[seat][kind] + (held[seat][CHARLATAN] if kind == FOOL else 0)
            if kind != CHARLATAN:
                require(
                    copies == supply0[kind],
                    f"the {TITLES[kind]} cards of supply and held add up to {copies}, not {supply0[kind]}",
                )
        # The round: its order is the seats once each, pos its place, turn the seat there.
        order = numbers(state.order, "order", n)
        seen: set[int] = set()
        for i in range(n):
            require_range(order[i], 0, n - 1, f"order[{i}]")
            require(order[i] not in seen, f"order has seat {order[i]} twice")
            seen.add(order[i])
        over = phase == OVER
        pos = require_range(state.pos, 0, n if over else n - 1, "pos")
        turn = require_range(state.turn, 0, n - 1, "turn")
        require(over or turn == order[pos], "turn is not the seat at order[pos]")
        round_ = require_range(state.round, -(10**9), 10**9, "round")
        require(round_ >= 1, f"round is {round_}, not 1 or more")
        # The dice of the turn: no count below 0, and no more dice than a turn can have.
        active = numbers(state.active, "active", 6)
        aside = numbers(state.aside, "aside", 6)
        picked = numbers(state.picked, "picked", 6)
        for face in range(6):
            require_range(active[face], 0, most, f"active[{face}]")
            require_range(aside[face], 0, most, f"aside[{face}]")
            require_range(picked[face], 0, most, f"picked[{face}]")
        rolling = phase == ROLLING
        require_range(state.to_roll, 1 if rolling else 0, most if rolling else 0, "to_roll")
        ready = require_range(state.ready, 0, (1 << len(ABILITY)) - 1, "ready")
        own = held_bits(tuple(held[turn]))
        require(ready & ~own == 0, "ready has the bit of a card the seat to play does not hold")
        if phase == START:
            require(not any(active) and not any(aside), "a turn starts with dice on the table")
        if phase == PLAY:
            require(any(active), "phase play has no active die")
        if phase == TAKE_PHASE:
            require(
                not state.final and not any(active) and any(aside),
                "phase take needs a result: no active die, a die set aside, not the final round",
            )
        # The card in use and its steps.
        card_kind = require_range(state.card, -1, NUM_KINDS - 1, "card")
        require_range(state.die, -1, LAST_FACE, "die")
        require_range(state.target, -1, LAST_FACE, "target")
        card_step = phase in (CHOOSE_DIE, CHOOSE_TARGET, CHOOSE_PIPS, CHOOSE_VALUE, PICK)
        pool = require_range(state.pool, -(10**9), 10**9, "pool")
        pool_dice = require_range(state.pool_dice, -(10**9), 10**9, "pool_dice")
        if card_step:
            self._validate_card_step(state, phase)
        else:
            require(
                card_kind == -1 and state.die == -1 and state.target == -1,
                "card, die and target are set outside a card's use",
            )
            require(
                not any(picked) and pool == 0 and pool_dice == 0,
                "picked, pool and pool_dice are set outside a card's use",
            )
        # A card still ready to bring in a die adds one, and so does the Queen's die while its
        # value is chosen: counted too, the bound on the dice holds to the turn's end.
        to_bring_in = 1 if card_step and CARDS[card_kind].effect == BRING_IN_DIE else 0
        to_bring_in += sum(1 for kind in ABILITY if ready & BIT[kind] and CARDS[kind].effect == BRING_IN_DIE)
        sharing = phase == CHOOSE_VALUE and CARDS[card_kind].effect == SHARE_PIPS
        pending = pool_dice if sharing else sum(picked)
        dice = sum(active) + sum(aside) + pending + state.to_roll
        require(
            dice + to_bring_in <= most,
            f"the turn has {dice} dice and {to_bring_in} to bring in, more than {most}",
        )
        # The end of the game: the claimer holds the Queen, the holder the King card; both
        # exist once the King is taken, and the final round comes after the claim.
        claimer = require_range(state.claimer, -1, n - 1, "claimer")
        holder = require_range(state.holder, -1, n - 1, "holder")
        claimed = supply[KING] == 0
        require(
            (claimer >= 0) == claimed and (holder >= 0) == claimed,
            "claimer and holder are seats exactly when the King is out of the supply",
        )
        if claimed:
            require(held[holder][KING] == 1, "holder does not hold the King card")
            require(held[claimer][QUEEN] == 1, "claimer does not hold the Queen")
        require(not state.final or claimed, "final is set but nobody claimed the King")
        require(not over or claimed, "the game is over but nobody claimed the King: there is no winner")
        best = numbers(state.best, "best", 2)
        results = [
            numbers(r, f"results[{seat}]", 2)
            for seat, r in enumerate(require_list(state.results, "results", n))
        ]
        for name, result in (("best", best), *((f"results[{seat}]", r) for seat, r in enumerate(results))):
            require_range(result[0], 0, most, f"{name}[0]")
            require_range(result[1], 0, 6, f"{name}[1]")
        # A seat to move has a move (pass always; a card step offers what leads somewhere).
        if self.to_move(state) >= 0:
            require(
                bool(self.legal_actions(state)),
                f"seat {turn} is to move in phase {phase} but has no move",
            )

    def _validate_card_step(self, state: CourtState, phase: str) -> None:
        """The card fields in a card's step: the card is one used in steps, the phase one of its
        steps, and the die, the target, the picked dice and the Alchemist's pool what the steps
        before left (the rules index the dice by them)."""
        kind = state.card
        require(
            kind >= 0 and kind in ABILITY and not CARDS[kind].brings_in_at_once,
            f"card {kind} has no steps to take",
        )
        card = CARDS[kind]
        effect = card.effect
        steps = {
            PICK: card.picks_dice,
            CHOOSE_DIE: first_step(card) == CHOOSE_DIE,
            CHOOSE_TARGET: effect == MOVE_PIPS,
            CHOOSE_PIPS: not card.picks_dice and effect in (ADD_PIPS, MOVE_PIPS),
            CHOOSE_VALUE: effect in (SET_VALUE, SHARE_PIPS, BRING_IN_DIE),
        }
        require(steps.get(phase, False), f"phase {phase} is no step of the {card.title}'s use")
        active, picked, die, target = state.active, state.picked, state.die, state.target
        has_die = phase in (CHOOSE_TARGET, CHOOSE_PIPS) or (phase == CHOOSE_VALUE and effect == SET_VALUE)
        if has_die:
            require(
                die >= 0 and die in card.faces and active[die] >= 1,
                f"die is not the face of an active die the {card.title} may choose",
            )
        else:
            require(die == -1, "die is set before the die step")
        if phase == CHOOSE_PIPS and effect == MOVE_PIPS:
            require(
                target >= 0 and target in card.targets and active[target] - (1 if target == die else 0) >= 1,
                "target is not the face of another active die the Philosopher may choose",
            )
        else:
            require(target == -1, "target is set before the target step")
        for face in range(6):
            require(
                not picked[face] or (card.picks_dice and face in card.faces),
                f"picked has a die the {card.title} does not pick",
            )
        if phase == PICK:  # enough dice to finish the pick (the Alchemist's two)
            can_pick = sum(picked) + sum(active[face] for face in card.faces)
            require(can_pick >= card.fewest_dice, f"the {card.title} has fewer dice to pick than it needs")
        most_dice = card.most_dice if card.most_dice is not None else 10**9
        if effect == SHARE_PIPS:
            if phase == PICK:
                require(
                    state.pool_dice == sum(picked)
                    and state.pool == pip_total(picked)
                    and state.pool_dice < most_dice,
                    "pool and pool_dice are not the picked dice's pips and count",
                )
            else:  # values to give: the last die gets the rest, 1..6
                require_range(state.pool_dice, card.fewest_dice, most_dice, "pool_dice")
                require_range(state.pool, state.pool_dice, 6 * state.pool_dice, "pool")
        else:
            require(
                state.pool == 0 and state.pool_dice == 0,
                "pool and pool_dice are set outside the Alchemist's use",
            )

    # ------------------------------------------------------------ results

    def scores(self, state: CourtState) -> list[float]:
        return [
            float(sum(EXTRA_DICE[k] * c for k, c in enumerate(held) if c) + KING_POINTS * held[KING])
            for held in state.held
        ]

    def winners(self, state: CourtState) -> list[int]:
        return [state.holder] if state.holder >= 0 else []

    # ------------------------------------------------------------ what seats see

    def observe(self, state: CourtState, seat: int) -> np.ndarray:
        # Every entry is a whole number 0..18: the vector is built in a byte buffer,
        # starting from the observer's table block.
        obs = bytearray(self._table_block(state, seat))
        phase = state.phase
        at = self._o_active  # active and aside are consecutive
        obs[at : at + 12] = state.active + state.aside
        if state.best[0]:
            at = self._o_final  # final, best_size and best_face are consecutive
            obs[at] = state.final
            obs[at + 1 : at + 3] = state.best
        index = PHASE_INDEX.get(phase)
        if index is not None:  # a seat is to decide
            obs[self._o_to_move + (state.turn - seat) % self.num_seats] = 1
            obs[self._o_fresh] = state.fresh
            held = state.held[state.turn]
            bits = self._bits_memo  # the mover's ability cards change only when a turn ends
            if held != bits[0]:
                bits = self._bits_memo = (held.copy(), held_bits(tuple(held)))
            used = bits[1] & ~state.ready
            if used:
                at = self._o_used
                obs[at : at + len(ABILITY)] = used_bytes(used)
            obs[self._o_phase + index] = 1
            card = state.card
            if card >= 0:
                obs[self._o_card + ABILITY.index(card)] = 1
                if state.die >= 0:
                    obs[self._o_chosen + state.die] = 1
                if state.target >= 0:
                    obs[self._o_target + state.target] = 1
                at = self._o_picked  # picked, pool and pool_dice are consecutive
                obs[at : at + 6] = state.picked
                obs[at + 6] = state.pool
                obs[at + 7] = state.pool_dice
        return np.frombuffer(obs, BYTE).astype(FLOAT32)

    def _table_block(self, state: CourtState, seat: int) -> bytes:
        """``seat``'s observation with only the fields from ``place`` to ``supply`` filled
        in, as bytes: they change only when a turn ends, so they are kept (per observer)
        until then. A hit costs four comparisons instead of building 23 n + 19 numbers."""
        held, supply, order, pos = state.held, state.supply, state.order, state.pos
        memo_held, memo_supply, memo_order, memo_pos, blocks = self._table_memo
        if pos != memo_pos or order != memo_order or held != memo_held or supply != memo_supply:
            blocks = {}
            self._table_memo = ([h.copy() for h in held], supply.copy(), order.copy(), pos, blocks)
        block = blocks.get(seat)
        if block is None:
            n = self.num_seats
            places = [0] * n
            played = [0] * n
            for i, s in enumerate(order):
                k = (s - seat) % n
                places[k] = i + 1
                played[k] = int(i < pos)
            cards = [x for s in relative_seats(seat, n) for x in held[s]]
            buf = self.observation_spec.buffer()
            at = self._o_place  # place, played, held and supply are consecutive
            values = [*places, *played, *cards, supply[FOOL], *supply[FARMER:]]
            buf[at : at + len(values)] = values
            block = blocks[seat] = bytes(buf)
        return block

    def observe_batch(self, states: Sequence[CourtState], seats: Sequence[int]) -> np.ndarray:
        """Many observations at once, built with numpy across the batch (row ``i`` is ``observe``'s).

        The states are read column by column with ``map`` and ``chain``, so that no
        Python line runs once per state.
        """
        seat = self._check_batch(states, seats)
        n, count = self.num_seats, len(states)
        out = np.zeros((count, self.observation_spec.size), np.float32)
        if not count:
            return out
        off = self.observation_spec.offsets
        rows = np.arange(count)
        lists = flat_numbers(chain.from_iterable(map(_BATCH_LISTS, states)))
        lists = lists.reshape(count, NUM_KINDS + 3 * 6 + 2)
        supply, dice, best = np.split(
            lists, [NUM_KINDS, NUM_KINDS + 3 * 6], axis=1
        )  # dice: active, aside, picked
        numbers = flat_numbers(map(_BATCH_NUMBERS, states))  # -1 (none) among them: the plain way
        pos, turn, fresh, ready, card, die, target, pool, pool_dice, final = numbers.reshape(count, 10).T
        held = flat_numbers(chain.from_iterable(map(attrgetter("held"), states))).reshape(count, n, NUM_KINDS)
        others = (seat[:, None] + np.arange(n)) % n
        # place and played: seat order[j] of state i is entry (order[j] - seat) % n of its observation
        orders = list(map(attrgetter("order"), states))
        sizes = list(map(len, orders))
        state_of = np.repeat(rows, sizes)
        in_order = flat_numbers(orders)
        place = np.arange(len(state_of)) - np.repeat(np.cumsum(sizes) - sizes, sizes)  # j
        entry = (in_order - seat[state_of]) % n
        out[state_of, off["place"] + entry] = place + 1
        out[state_of, off["played"] + entry] = place < pos[state_of]
        at = off["held"]
        out[:, at : at + NUM_KINDS * n] = np.take_along_axis(held, others[:, :, None], axis=1).reshape(
            count, -1
        )
        at = off["supply"]  # the Charlatan left out
        out[:, at : at + NUM_KINDS - 1] = supply[:, _SUPPLY_KINDS]
        at = off["active"]  # active and aside are consecutive
        out[:, at : at + 12] = dice[:, :12]
        ended = best[:, 0] > 0
        at = off["final"]  # final, best_size and best_face are consecutive
        out[ended, at] = final[ended]
        out[ended, at + 1 : at + 3] = best[ended]
        phases = map(PHASE_INDEX.get, map(attrgetter("phase"), states), repeat(-1))  # -1: no decision
        index = np.fromiter(phases, np.int64, count)
        deciding = np.flatnonzero(index >= 0)
        out[deciding, self._o_to_move + (turn - seat)[deciding] % n] = 1
        out[deciding, self._o_fresh] = fresh[deciding]
        out[deciding, self._o_phase + index[deciding]] = 1
        # used: the mover's ability cards whose bit in ``ready`` is clear
        mover_has = held[deciding, turn[deciding]][:, list(ABILITY)] > 0
        still_ready = (ready[deciding, None] >> np.arange(len(ABILITY))) & 1
        at = self._o_used
        out[deciding, at : at + len(ABILITY)] = mover_has & (still_ready == 0)
        using = deciding[card[deciding] >= 0]
        out[using, self._o_card + _ABILITY_SLOT[card[using]]] = 1
        chose = using[die[using] >= 0]
        out[chose, self._o_chosen + die[chose]] = 1
        aimed = using[target[using] >= 0]
        out[aimed, self._o_target + target[aimed]] = 1
        at = self._o_picked  # picked, pool and pool_dice are consecutive
        out[using, at : at + 6] = dice[using, 12:]
        out[using, at + 6] = pool[using]
        out[using, at + 7] = pool_dice[using]
        return out

    def _card_list(self, held: list[int]) -> list[str]:
        return [KINDS[k] for k in range(NUM_KINDS) for _ in range(held[k])]

    def view(self, state: CourtState, seat: int | None) -> dict[str, Any]:
        return {
            **self.view_base(state, seat),
            "turn": state.turn if state.phase != OVER else None,
            "phase": state.phase,
            "round": state.round,
            "final_round": state.final,
            "order": list(state.order),
            "played": list(state.order[: state.pos]),
            "active": dice_text(state.active).split(),
            "aside": dice_text(state.aside).split(),
            "roll_allowed": state.fresh,
            "card": KINDS[state.card] if state.card >= 0 else None,
            "chosen": state.die + 1 if state.die >= 0 else None,
            "target": state.target + 1 if state.target >= 0 else None,
            "picked": dice_text(state.picked).split(),
            "pool": state.pool,
            "used": [KINDS[k] for k in self.used_cards(state)],
            "held": [self._card_list(h) for h in state.held],
            "supply": {KINDS[k]: state.supply[k] for k in range(NUM_KINDS) if k != CHARLATAN},
            "claimer": state.claimer if state.claimer >= 0 else None,
            "king_holder": state.holder if state.holder >= 0 else None,
            "best": list(state.best) if state.best[0] else None,
            "results": [list(r) if r[0] else None for r in state.results],
            "last": state.last,
        }

    def render(self, state: CourtState, seat: int | None = None) -> str:
        over = state.phase == OVER
        lines = []
        stage = "final round" if state.final else f"round {state.round}"
        if over:
            lines.append("To Court the King: game over")
        else:
            lines.append(f"To Court the King: {stage}, seat {state.turn} to play")
        for row in range(5, -1, -1):
            cells = [
                f"{TITLES[k] if k else 'Fool/Charlatan'} x{state.supply[k]}"
                for k in range(NUM_KINDS)
                if ROW[k] == row and k != CHARLATAN
            ]
            lines.append(f"row {('0', 'I', 'II', 'III', 'IV', 'V')[row]:>3}: " + ", ".join(cells))
        used = self.used_cards(state)
        for place, s in enumerate(state.order):
            marker = ">" if s == state.turn and not over else " "
            mine = " (you)" if s == seat else ""
            cards = []
            for k in range(NUM_KINDS):
                c = state.held[s][k]
                if c:
                    name = TITLES[k] + (f" x{c}" if c > 1 else "")
                    if s == state.turn and k in used:
                        name += "*"
                    cards.append(name)
            result = state.results[s]
            shown = f" [{result[0]} x {result[1]}s]" if result[0] else ""
            lines.append(f"{marker} {place + 1}. seat {s}{mine}{shown}: {', '.join(cards) or '-'}")
        if not over and state.phase not in (ROLLING, START):
            lines.append(f"active [{dice_text(state.active)}]  set aside [{dice_text(state.aside)}]")
            if state.card >= 0:
                extra = f" picked [{dice_text(state.picked)}]" if any(state.picked) else ""
                lines.append(f"using the {TITLES[state.card]}{extra}")
            legal = ", ".join(self.action_names[a] for a in self.legal_actions(state))
            lines.append(f"moves: {legal}")
        elif not over:
            lines.append(f"set aside [{dice_text(state.aside)}]; rolling {self.roll_size(state)} dice")
        if state.last:
            lines.append(f"last: {state.last}")
        if over:
            lines.append("winner: " + ", ".join(f"seat {s}" for s in self.winners(state)))
        return "\n".join(lines)


def observation_fields(num_seats: int) -> tuple[Field, ...]:
    """The observation table of To Court the King for ``num_seats`` seats."""
    n, d = num_seats, max_dice(num_seats)
    k = len(ABILITY)
    return (
        Field("to_move", n, 0, 1, "one-hot: whose turn it is, observer first"),
        Field("place", n, 0, n, "each seat's place in this round's order (1 = first)"),
        Field("played", n, 0, 1, "the seat has finished its turn this round"),
        Field("held", NUM_KINDS * n, 0, n, "cards each seat holds, per kind (Charlatans counted)"),
        Field("supply", NUM_KINDS - 1, 0, max(initial_supply(n)), "copies left per kind but the Charlatan"),
        Field("active", 6, 0, d, "active dice showing 1..6 (picked dice not included)"),
        Field("aside", 6, 0, d, "set-aside dice showing 1..6"),
        Field("fresh", 1, 0, 1, "a die was set aside since the last roll (roll allowed)"),
        Field("used", k, 0, 1, "the mover has used this ability card this turn"),
        Field("phase", len(PHASES), 0, 1, "one-hot: play / take / die / target / pips / value / pick"),
        Field("card", k, 0, 1, "one-hot: the ability card being used"),
        Field("chosen", 6, 0, 1, "one-hot: the value of the die chosen for the card"),
        Field("target", 6, 0, 1, "one-hot: the value of the Philosopher's target die"),
        Field("picked", 6, 0, d, "dice picked for the card so far, by value"),
        Field("pool", 1, 0, 18, "Alchemist: pips still to share out"),
        Field("pool_dice", 1, 0, 3, "Alchemist: dice still to get a value"),
        Field("final", 1, 0, 1, "the final round is being played"),
        Field("best_size", 1, 0, d, "size of the best end-game result so far (the claim first; 0: none)"),
        Field("best_face", 1, 0, 6, "face of that group"),
    )
