"""6 nimmt! (Take 5): the rules as a tablezoo engine game.

Rules (this docstring is the spec; every rule below is tested)
--------------------------------------------------------------
Cards 1..104; bull heads per card: 55 has 7, the other multiples of 11 have 5,
multiples of 10 have 3, the other cards ending in 5 have 2, every other card 1
(171 heads in all). Each round the deck is shuffled, every player gets 10
cards and 4 cards start 4 rows. Ten tricks: every player secretly chooses a
card; when all have chosen the cards are revealed and placed one by one in
ascending order. A card goes to the right end of the row whose last card is the
highest one below it; if that row already has 5 cards the player takes those 5
and his card starts the row; if no row's last card is below it, the player
chooses a row, takes all of its cards, and his card starts it. After the tenth
trick each player adds the heads he took to his total; when a total reaches 66
the game ends and the fewest heads win (**Decision**: equal lowest totals share
the win).

Whose move: the deal of a round is one chance node (not under ``logic``); its
outcome is ``{"hands": [[10 cards] per seat], "rows": [4 cards]}`` (rows in
order row 1..4). The simultaneous card choice is asked seat by seat in seat
order (seat 0 first); the chosen cards stay hidden in the state until the last
seat has chosen, then all are revealed and placed. A card that needs a row
choice makes its owner the seat to move (``row k`` only), after he has seen
every revealed card of the trick; placement then goes on. Under ``logic`` the
draft before each round is a phase of ``pick`` decisions and nothing is left to
chance.

A chosen card stays in its owner's hand (``hands``) until the reveal; its owner
sees it as ``choice``. Every view and observation of another seat shows only
that the seat has chosen.

Actions
-------
``D`` is the deck in use: 104, or ``10 n + 4`` under ``tactic`` or ``logic``.

| id | command | meaning |
|---|---|---|
| 0 .. D-1 | ``play 1`` .. ``play D`` | choose that card of your hand for this trick |
| D .. 2D-1 | ``pick 1`` .. ``pick D`` | ``logic`` only: draft that card from the table |
| then 4 ids | ``row 1`` .. ``row 4`` | take that row (your card was too low for every row) |

Without ``logic`` the ``row`` actions are ids ``D .. D+3``; with it,
``2D .. 2D+3``. Aliases: a bare number ``42`` is ``play 42`` (not under
``logic``), ``take 3`` is ``row 3``.

Observation (seat-relative: the observer first, then the others clockwise)
------------------------------------------------------------------------------
Built from :func:`observation_fields`; the size is ``8 D + 4 n + 21`` and,
under ``logic``, ``n D`` more (the other hands and the draft table). Example:
4 seats, no option (D = 104), size 869; 4 seats with ``logic`` (D = 44), 565.

| field | size | range | meaning |
|---|---|---|---|
| hand | D | 0..1 | card i+1 is in the observer's hand (its chosen card included until the reveal) |
| choice | D | 0..1 | card i+1 is the observer's chosen card, not revealed yet |
| seen | D | 0..1 | card i+1 has been face-up this round (row cards, revealed cards, taken cards) |
| row_last | 4 | 0..D | last (right-end) card of row 1..4 (0: no row yet) |
| row_first | 4 | 0..D | first (left-end) card of row 1..4; what ``profi`` places against |
| row_count | 4 | 0..5 | cards in row 1..4 |
| row_heads | 4 | 0..27 | heads in row 1..4 |
| heads_round | n | 0..171 | heads each seat took this round |
| heads_total | n | 0..236 | each seat's heads before this round (at the end: final totals) |
| has_chosen | n | 0..1 | the seat has chosen its card for this trick |
| to_move | n | 0..1 | one-hot: whose decision it is |
| phase | 3 | 0..1 | one-hot: choose a card / choose a row / draft (``logic``) |
| trick | D | 0..1 | in the row choice: card i+1 was revealed in this trick |
| placing | 1 | 0..D | in the row choice: the card being placed |
| cards_left | 1 | 0..10 | cards in the observer's hand (every hand holds as many, outside the draft) |
| hand_fit | D | 0..6 | hand card i+1: cards in the row it would join (5: it takes it; 6: below every row) |
| hand_heads | D | 0..27 | hand card i+1: heads of that row (below every row: the fewest heads of a row) |
| hand_gap | D | 0..D | hand card i+1: its distance from that row's end (0: below every row) |
| hand_open | D | 0..D | hand card i+1: cards between that row's end and it, neither in the hand nor seen |
| others_hands | (n-1) D | 0..1 | ``logic``: the other hands, clockwise (public; chosen cards included) |
| pool | D | 0..1 | ``logic`` only: card i+1 is still on the table to draft |

Fields that do not apply in the current phase are zero. The four ``hand_*``
fields say where each hand card would go if it were placed now (by the same
rule as the engine, ``profi`` left ends included) and how many unseen cards
could get there first; they are what a player reads off the table at a glance,
and they make the card choice much easier to learn. Entry ``i`` of each of them
describes action ``i`` (``play i+1``): they are the game's ``action_fields``.

Rewards
-------
Zero-sum at the end by default (see :mod:`tablezoo.envs.aec`). ``score``:
:meth:`SechsNimmt.scores` is minus the heads each seat has (its total before
the round plus what it took this round), so a seat is paid minus the heads of
every row it takes, at the moment it takes it.

Options
-------
* ``tactic``: only cards 1..10n+4 are used, so every card is in play.
* ``profi``: a card may also go to the left end of a row whose first card is
  higher. Candidates: the right end of each row whose last card is below the
  card (distance ``card - last``) and the left end of each row whose first card
  is above it (distance ``first - card``); the smallest distance wins, the right
  end on equal distance. A sixth card at either end takes the other five. With
  no candidate the owner chooses a row, even for a card that is not the lowest.
* ``logic``: before each round the cards 1..10n+4 lie face-up and the seats
  draft them one at a time, clockwise, until each holds 10. **Decision**: the
  first picker of round k is seat ``(k - 1) mod n``; a plain clockwise pass
  repeated (no snake). The 4 cards left start rows 1..4 in ascending order.
  Hands are public.

Version history
---------------
v0: first release. Before the first shipped agent, the observation gained the
``hand_fit``, ``hand_heads`` and ``hand_gap`` fields (size ``4 D + 4 n + 21``
became ``7 D + 4 n + 21``).
v0, later: ``hand_open`` (size ``8 D + 4 n + 21``), and :attr:`~SechsNimmt.action_fields`
so that a policy can score every card with one shared network; the shipped
agents were retrained on it.
"""

from __future__ import annotations

import bisect
import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import chain, pairwise
from operator import attrgetter, getitem, iadd
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
    Option,
    OutcomeError,
    as_numbers,
    flat_numbers,
    relative_seats,
    require,
    require_list,
    require_range,
    require_text,
)

FULL_DECK = 104
HAND = 10
ROWS = 4
ROW_MAX = 5  # the sixth card takes the row
END_TOTAL = 66
MAX_ROW_HEADS = 27  # 55, 66, 77, 88, 99 in one row
MAX_ROUND_HEADS = 171
MAX_TOTAL = END_TOTAL - 1 + MAX_ROUND_HEADS

# Phases.
DEAL = "deal"  # the round's deal is due (chance)
DRAFT = "draft"  # logic: a seat picks a card from the table
CHOOSE = "choose"  # a seat chooses its card for the trick
ROW = "row"  # a seat whose card fits no row chooses the row to take
OVER = "over"
PHASES = (CHOOSE, ROW, DRAFT)
_PHASE_BYTE = {CHOOSE: 1, ROW: 2, DRAFT: 3, DEAL: 0, OVER: 0}
"""One more than the index of each phase in the ``phase`` field (0: none, no seat decides):
``observe_batch`` reads them as bytes."""


def heads(card: int) -> int:
    """Bull heads of a card: 55 → 7, other multiples of 11 → 5, multiples of 10 → 3,
    other cards ending in 5 → 2, all others → 1."""
    if card == 55:
        return 7
    if card % 11 == 0:
        return 5
    if card % 10 == 0:
        return 3
    if card % 10 == 5:
        return 2
    return 1


HEADS = (0, *(heads(c) for c in range(1, FULL_DECK + 1)))
"""``HEADS[c]``: bull heads of card ``c`` (index 0 unused)."""
HEADS_ARRAY = np.array(HEADS, np.int64)
""":data:`HEADS` as a numpy array, for the observations of many states at once."""


def deck_size(num_seats: int, tactic: bool, logic: bool) -> int:
    """Cards in use: 104, or 10 n + 4 under ``tactic`` or ``logic``."""
    return HAND * num_seats + ROWS if tactic or logic else FULL_DECK


def target(rows: list[list[int]], card: int, profi: bool) -> int:
    """Where ``card`` goes: row index ``i`` for its right end, ``i + 4`` for its left
    end (``profi``), ``-1`` if no row fits (the owner chooses a row to take)."""
    best, best_d = -1, FULL_DECK + 1
    if not profi:
        for i in range(ROWS):
            d = card - rows[i][-1]
            if 0 < d < best_d:
                best, best_d = i, d
        return best
    for i in range(ROWS):
        row = rows[i]
        d = card - row[-1]
        # the right end wins a tie with a left end (site rule)
        if d > 0 and (d < best_d or (d == best_d and best >= ROWS)):
            best, best_d = i, d
        d = row[0] - card
        if 0 < d < best_d:
            best, best_d = i + ROWS, d
    return best


@dataclass
class SechsNimmtState:
    """Everything about a 6 nimmt! game; ``hands`` (except under ``logic``) and
    ``chosen`` are hidden, as are the undealt cards (not stored)."""

    phase: str = DEAL
    round: int = 1
    turn: int = 0  # the seat to decide in the draft, the card choice or the row choice
    hands: list[list[int]] = field(default_factory=list)  # ascending; chosen card kept until the reveal
    rows: list[list[int]] = field(default_factory=list)  # left .. right, ascending
    chosen: list[int] = field(default_factory=list)  # per seat, this trick's card before the reveal (0: none)
    trick: list[int] = field(default_factory=list)  # per seat, the card revealed in this (or the last) trick
    pending: list[int] = field(default_factory=list)  # seats whose revealed card is still to place, in order
    pool: list[int] = field(default_factory=list)  # logic: cards on the table to draft, ascending
    piles: list[list[int]] = field(default_factory=list)  # cards each seat took this round
    round_heads: list[int] = field(default_factory=list)  # heads each seat took this round
    totals: list[int] = field(default_factory=list)  # heads before this round
    history: list[list[int]] = field(default_factory=list)  # heads of each finished round, per seat
    last: str = ""  # the latest public event, for people


_BATCH_FIELDS = attrgetter("hands", "rows", "piles", "phase", "turn", "chosen", "round_heads", "totals")
"""What :meth:`SechsNimmt.observe_batch` reads of each state, in one call."""


class SechsNimmt(Game[SechsNimmtState]):
    """6 nimmt! for 2-10 seats; options ``tactic``, ``profi`` and ``logic``."""

    info = GameInfo(
        name="sechs_nimmt",
        title="6 nimmt!",
        version=0,
        min_seats=2,
        max_seats=10,
        default_seats=4,
        options=(
            Option("tactic", False, "use only cards 1..10n+4, so every card is in play"),
            Option(
                "profi",
                False,
                "a card may also go to the left end of a row whose first card is higher (nearest end wins)",
            ),
            Option(
                "logic",
                False,
                "draft the hands from cards 1..10n+4 laid face-up before each round; hands are public",
            ),
        ),
        hidden_information=True,
        chance=True,
    )
    state_type = SechsNimmtState

    def _configure(self) -> None:
        n = self.num_seats
        self._tactic = self.options["tactic"]
        self._profi = self.options["profi"]
        self._logic = self.options["logic"]
        d = self.deck = deck_size(n, self._tactic, self._logic)
        names = [f"play {c}" for c in range(1, d + 1)]
        if self._logic:
            names += [f"pick {c}" for c in range(1, d + 1)]
        self.row_action = len(names)
        names += [f"row {k}" for k in range(1, ROWS + 1)]
        self.action_names = tuple(names)
        self._row_actions = list(range(self.row_action, self.row_action + ROWS))
        self.observation_spec = ObservationSpec(observation_fields(n, d, self._logic))
        self.action_fields = ("hand_fit", "hand_heads", "hand_gap", "hand_open")  # of ``play`` 1..D
        off = self.observation_spec.offsets
        # offsets of the one-hot card fields are shifted by one: card c is at base + c
        self._o_hand, self._o_choice, self._o_seen, self._o_trick = (
            off[k] - 1 for k in ("hand", "choice", "seen", "trick")
        )
        self._o_rows, self._o_heads = off["row_last"], off["heads_round"]
        self._o_to_move, self._o_phase = off["to_move"], off["phase"]
        self._o_has_chosen, self._o_placing = off["has_chosen"], off["placing"]
        self._o_cards_left = off["cards_left"]
        self._o_fit, self._o_fit_heads, self._o_gap, self._o_open = (
            off[k] - 1 for k in ("hand_fit", "hand_heads", "hand_gap", "hand_open")
        )
        self._o_others_hands = off.get("others_hands", 0) - 1
        self._o_pool = off.get("pool", 0) - 1
        self._order = [relative_seats(s, n) for s in range(n)]
        # has_chosen seen from each seat while seat ``turn`` chooses: the seats before it
        self._has_chosen = [
            [bytes(int((s + k) % n < turn) for k in range(n)) for turn in range(n + 1)] for s in range(n)
        ]
        self._table_memo: _Table | None = None

    def _add_aliases(self) -> None:
        if not self._logic:
            for c in range(1, self.deck + 1):
                self._alias(str(c), c - 1)
        for k in range(ROWS):
            self._alias(f"take {k + 1}", self.row_action + k)

    # ------------------------------------------------------------ state machine

    def initial_state(self) -> SechsNimmtState:
        n = self.num_seats
        state = SechsNimmtState(
            hands=[[] for _ in range(n)],
            chosen=[0] * n,
            trick=[0] * n,
            piles=[[] for _ in range(n)],
            round_heads=[0] * n,
            totals=[0] * n,
        )
        if self._logic:
            self._start_draft(state)
        return state

    def chance_context(self, state: SechsNimmtState) -> int:
        """The round: its deal."""
        return state.round

    def to_move(self, state: SechsNimmtState) -> int:
        phase = state.phase
        if phase == DEAL:
            return CHANCE
        if phase == OVER:
            return TERMINAL
        return state.turn

    def secret_decision(self, state: SechsNimmtState) -> bool:
        """The card of a trick is chosen face down; the row choice and the draft are public."""
        return state.phase == CHOOSE

    def legal_actions(self, state: SechsNimmtState) -> list[int]:
        phase = state.phase
        if phase == CHOOSE:
            return [c - 1 for c in state.hands[state.turn]]
        if phase == ROW:
            return self._row_actions.copy()
        if phase == DRAFT:
            off = self.deck - 1
            return [c + off for c in state.pool]
        return []

    def _apply(self, state: SechsNimmtState, action: int) -> None:
        d = self.deck
        if action < d:  # play: choose a card for the trick
            seat = state.turn
            state.chosen[seat] = action + 1
            if seat + 1 < self.num_seats:
                state.turn = seat + 1
            else:
                self._reveal(state)
        elif action < self.row_action:  # pick (logic draft)
            card = action - d + 1
            state.pool.remove(card)
            bisect.insort(state.hands[state.turn], card)
            if len(state.pool) == ROWS:
                state.rows = [[c] for c in state.pool]
                state.pool = []
                state.last = "draft done: the 4 cards left start the rows"
                state.phase = CHOOSE
                state.turn = 0
            else:
                state.turn = (state.turn + 1) % self.num_seats
        else:  # row k: take it; the card starts it
            seat = state.turn
            self._take(state, seat, action - self.row_action, state.trick[seat])
            del state.pending[0]
            self._place(state)

    def _reveal(self, state: SechsNimmtState) -> None:
        chosen, hands = state.chosen, state.hands
        for seat in range(self.num_seats):
            hands[seat].remove(chosen[seat])
        state.trick = chosen
        state.chosen = [0] * self.num_seats
        state.pending = sorted(range(self.num_seats), key=chosen.__getitem__)
        self._place(state)

    def _place(self, state: SechsNimmtState) -> None:
        """Place the revealed cards still pending, lowest first, until one needs a row
        choice (its owner is then to move) or the trick is over."""
        rows, trick, pending, profi = state.rows, state.trick, state.pending, self._profi
        while pending:
            seat = pending[0]
            card = trick[seat]
            where = target(rows, card, profi)
            if where < 0:
                state.phase = ROW
                state.turn = seat
                return
            i = where % ROWS
            row = rows[i]
            if len(row) == ROW_MAX:
                self._take(state, seat, i, card)
            elif where >= ROWS:
                row.insert(0, card)
            else:
                row.append(card)
            del pending[0]
        if state.hands[0]:
            state.phase = CHOOSE
            state.turn = 0
        else:
            self._end_round(state)

    def _take(self, state: SechsNimmtState, seat: int, i: int, card: int) -> None:
        row = state.rows[i]
        taken = 0
        for c in row:
            taken += HEADS[c]
        state.piles[seat] += row
        state.round_heads[seat] += taken
        state.rows[i] = [card]
        state.last = f"seat {seat} took row {i + 1} ({taken} heads) with {card}"

    def _end_round(self, state: SechsNimmtState) -> None:
        n = self.num_seats
        state.history.append(state.round_heads)
        state.totals = [t + h for t, h in zip(state.totals, state.round_heads, strict=True)]
        state.round_heads = [0] * n
        state.piles = [[] for _ in range(n)]
        state.last += f"; round {state.round} over"
        if max(state.totals) >= END_TOTAL:
            state.phase = OVER
            state.last += ", the game ends"
            return
        state.round += 1
        state.rows = []
        state.trick = [0] * n
        state.pending = []
        if self._logic:
            self._start_draft(state)
        else:
            state.phase = DEAL

    def _start_draft(self, state: SechsNimmtState) -> None:
        state.phase = DRAFT
        state.pool = list(range(1, self.deck + 1))
        state.turn = (state.round - 1) % self.num_seats  # Decision: start = seat 0
        state.rows = []

    def draft_order(self, round_number: int) -> list[int]:
        """The seats in the order they pick in the ``logic`` draft of a round."""
        n = self.num_seats
        first = (round_number - 1) % n
        return [(first + k) % n for k in range(HAND * n)]

    # ------------------------------------------------------------ chance

    def sample_chance(self, state: SechsNimmtState, rng: np.random.Generator) -> dict[str, Any]:
        n = self.num_seats
        cards = (rng.permutation(self.deck)[: HAND * n + ROWS] + 1).tolist()
        return {
            "hands": [sorted(cards[HAND * s : HAND * s + HAND]) for s in range(n)],
            "rows": cards[HAND * n :],
        }

    def check_outcome(self, state: SechsNimmtState, outcome: Any) -> dict[str, Any]:
        n, d = self.num_seats, self.deck
        shape = f'{{"hands": [{n} lists of {HAND} cards], "rows": [{ROWS} cards]}} with cards 1..{d}'
        if not isinstance(outcome, dict) or set(outcome) != {"hands", "rows"}:
            raise OutcomeError(f"a deal is {shape}, not {outcome!r}")
        hands, rows = outcome["hands"], outcome["rows"]
        if not isinstance(hands, (list, tuple)) or len(hands) != n:
            raise OutcomeError(f"the deal needs {n} hands (one per seat) in {shape}, not {hands!r}")
        if not isinstance(rows, (list, tuple)) or len(rows) != ROWS:
            raise OutcomeError(f"the deal needs {ROWS} row cards in {shape}, not {rows!r}")
        seen: set[int] = set()
        for seat, hand in enumerate(hands):
            if not isinstance(hand, (list, tuple)) or len(hand) != HAND:
                raise OutcomeError(f"hand {seat} must be a list of {HAND} cards, not {hand!r}")
        for card in [c for hand in hands for c in hand] + list(rows):
            if (
                isinstance(card, (bool, np.bool_))
                or not isinstance(card, (int, np.integer))
                or not 1 <= card <= d
            ):
                raise OutcomeError(f"card {card!r} is not in the deck in use: cards are 1..{d}")
            if card in seen:
                raise OutcomeError(f"card {card} is dealt twice; every card of 1..{d} is dealt at most once")
            seen.add(int(card))
        # plain ints, hands ascending, rows in the order given (row 1..4)
        return {"hands": [sorted(int(c) for c in h) for h in hands], "rows": [int(c) for c in rows]}

    def _apply_chance(self, state: SechsNimmtState, outcome: dict[str, Any]) -> None:
        state.hands = [list(h) for h in outcome["hands"]]
        state.rows = [[c] for c in outcome["rows"]]
        state.phase = CHOOSE
        state.turn = 0
        state.last = f"round {state.round} dealt"

    def describe_outcome(self, state: SechsNimmtState, outcome: Any) -> str:
        # Only the rows are public.
        return f"round {state.round} dealt; rows start with " + ", ".join(map(str, outcome["rows"]))

    # ------------------------------------------------------------ hidden information

    def determinize(self, state: SechsNimmtState, seat: int, rng: np.random.Generator) -> SechsNimmtState:
        """Redraw the other hands (their chosen cards included) and the undealt cards
        from the cards ``seat`` has not seen; under ``logic`` only the others' chosen
        cards (hands are public)."""
        new = self.clone(state)
        n = self.num_seats
        others = [s for s in range(n) if s != seat]
        if not self._logic and state.phase in (CHOOSE, ROW):
            known = set(new.hands[seat])
            for row in new.rows:
                known.update(row)
            for pile in new.piles:
                known.update(pile)
            for s in new.pending:
                known.add(new.trick[s])
            unknown = [c for c in range(1, self.deck + 1) if c not in known]
            order = rng.permutation(len(unknown)).tolist()
            at = 0
            for s in others:
                k = len(new.hands[s])
                new.hands[s] = sorted(unknown[i] for i in order[at : at + k])
                at += k
        for s in others:
            if new.chosen[s]:
                hand = new.hands[s]
                new.chosen[s] = hand[int(rng.integers(len(hand)))]
        return new

    # ------------------------------------------------------------ states from outside

    def validate(self, state: SechsNimmtState) -> None:
        """Refuse a state no game reaches (:class:`~tablezoo.games.core.StateError` naming it),
        as the native core's ``SechsNimmt::validate`` does, check for check."""
        n, d, p = self.num_seats, self.deck, state.phase
        words = (DEAL, DRAFT, CHOOSE, ROW, OVER)
        require(
            isinstance(p, str) and p in words,
            f"phase should be one of {', '.join(map(repr, words))}, not {p!r}",
        )
        require(p != DRAFT or self._logic, "phase 'draft' is a phase of the logic option only")
        require(
            p != DEAL or not self._logic,
            "phase 'deal' is no phase under logic: its rounds start with a draft",
        )
        round_ = require_range(state.round, 1, 100000, "round")
        turn = require_range(state.turn, 0, n - 1, "turn")
        require_text(state.last, "last", 128)
        require(len(state.last.encode()) <= 94, "last is longer than 94 characters, more than a game writes")

        def numbers(value: Any, name: str, size: int | None = None) -> list[int]:
            items = require_list(value, name, size)
            for item in items:
                require_range(item, -(10**9), 10**9, name)
            return items

        def lists(value: Any, name: str, size: int | None = None) -> list[list[int]]:
            return [numbers(item, name) for item in require_list(value, name, size)]

        hands = lists(state.hands, "hands", n)
        chosen = numbers(state.chosen, "chosen", n)
        trick = numbers(state.trick, "trick", n)
        piles = lists(state.piles, "piles", n)
        round_heads = numbers(state.round_heads, "round_heads", n)
        totals = numbers(state.totals, "totals", n)
        rows = lists(state.rows, "rows")
        pending = numbers(state.pending, "pending")
        pool = numbers(state.pool, "pool")
        history = lists(state.history, "history")
        require(not rows or len(rows) == ROWS, f"rows has {len(rows)} entries, not 0 or 4")
        for row in rows:
            require(1 <= len(row) <= ROW_MAX, f"a row has {len(row)} cards, not 1..{ROW_MAX}")
        require(len(pending) <= n, "pending has more entries than seats")
        waiting: set[int] = set()
        for seat in pending:
            require_range(seat, 0, n - 1, "a pending seat")
            require(seat not in waiting, f"pending names seat {seat} twice")
            waiting.add(seat)
        # Every card of 1..D at most once in the hands, the rows, the piles, the pool and the
        # revealed cards still to place; hands, rows and pool ascending.
        seen: set[int] = set()

        def count(card: int, where: str) -> None:
            require_range(card, 1, d, where)
            require(card not in seen, f"card {card} is in the state twice")
            seen.add(card)

        def ascending(cards: list[int], where: str) -> None:
            require(all(a < b for a, b in pairwise(cards)), f"{where} is not ascending")

        for hand in hands:
            for c in hand:
                count(c, "a card of hands")
            ascending(hand, "a hand")
        for row in rows:
            for c in row:
                count(c, "a card of rows")
            ascending(row, "a row")
        for pile in piles:
            for c in pile:
                count(c, "a card of piles")
        for c in pool:
            count(c, "a card of pool")
        ascending(pool, "pool")
        for seat in range(n):
            require_range(trick[seat], 0, d, "a card of trick")
            require_range(chosen[seat], 0, d, "a card of chosen")
        for seat in pending:
            count(trick[seat], "a revealed card to place (trick)")
        for seat in range(n):
            taken = sum(HEADS[c] for c in piles[seat])
            require(
                round_heads[seat] == taken,
                f"round_heads: seat {seat} took {taken} heads this round, not {round_heads[seat]}",
            )
            require_range(totals[seat], 0, MAX_TOTAL if p == OVER else END_TOTAL - 1, "totals")
        for heads_of_round in history:
            require(
                len(heads_of_round) == n, f"an entry of history has {len(heads_of_round)} entries, not {n}"
            )
            for h in heads_of_round:
                require_range(h, 0, MAX_ROUND_HEADS, "history")
        # What each phase relies on.
        require(p == DRAFT or not pool, "pool holds cards outside the draft")
        require(p == ROW or not pending, "pending names seats outside the row choice")
        for seat in range(n):
            c = chosen[seat]
            if p == CHOOSE and seat < turn:  # chose already: a card of its own hand
                require(
                    c != 0 and c in hands[seat],
                    f"chosen: seat {seat} has chosen no card of its hand before seat {turn}",
                )
            else:
                require(c == 0, f"chosen: seat {seat} has a card chosen out of turn")
        if p in (CHOOSE, ROW):
            require(len(rows) == ROWS, "rows: a trick needs the 4 rows")
            left = len(hands[0])
            require(all(len(hand) == left for hand in hands), "hands differ in size in a trick")
            if p == CHOOSE:
                require(1 <= left <= HAND, "hands: a seat to choose a card holds 1..10 cards")
            else:
                require(left <= HAND - 1, "hands: after the reveal a seat holds 0..9 cards")
        if p == ROW:
            require(
                bool(pending) and pending[0] == turn,
                "pending: in the row choice the seat to move (turn) places the next card",
            )
            require(all(c != 0 for c in trick), "trick: in the row choice every seat has revealed a card")
        if p == DEAL:
            require(not any(hands), "hands: a deal is due, yet a seat holds cards")
            require(not rows, "rows: a deal is due, yet there are rows")
            require(not any(piles), "piles: a deal is due, yet a seat has taken cards")
        if p == DRAFT:
            require(not rows, "rows: there are no rows in the draft")
            require(not any(piles), "piles: no card is taken in the draft")
            require(
                sum(map(len, hands)) + len(pool) == d,
                f"hands and pool: the draft's cards are not every card 1..{d}",
            )
            require(len(pool) > ROWS, "pool: the draft ends when 4 cards are left")
            first = (round_ - 1) % n
            picks = d - len(pool)
            for k in range(n):
                require(
                    len(hands[(first + k) % n]) == (picks - k + n - 1) // n,
                    f"hands: seat {(first + k) % n} holds a number of cards no draft gives",
                )
            require(turn == (first + picks) % n, "turn: not the seat to pick next in this round's draft")

    # ------------------------------------------------------------ results

    def scores(self, state: SechsNimmtState) -> list[float]:
        return [-(t + h) for t, h in zip(state.totals, state.round_heads, strict=True)]

    def winners(self, state: SechsNimmtState) -> list[int]:
        # Decision: equal lowest totals share the win.
        heads_now = [t + h for t, h in zip(state.totals, state.round_heads, strict=True)]
        best = min(heads_now)
        return [s for s, h in enumerate(heads_now) if h == best]

    def trick_number(self, state: SechsNimmtState) -> int:
        """The trick being played (1..10), 0 outside the tricks (deal, draft, over)."""
        if state.phase == CHOOSE:
            return HAND + 1 - len(state.hands[-1])
        if state.phase == ROW:
            return HAND - len(state.hands[0])
        return 0

    # ------------------------------------------------------------ what seats see

    def seen_cards(self, state: SechsNimmtState) -> list[int]:
        """Cards face-up this round: in the rows, taken, or revealed and still to place."""
        seen = [c for row in state.rows for c in row]
        for pile in state.piles:
            seen += pile
        trick = state.trick
        seen += [trick[s] for s in state.pending]
        return seen

    def _table(self, state: SechsNimmtState) -> _Table:
        """The public table of ``state`` digested for :meth:`observe`, kept until it changes.

        In a trick every seat chooses against the same rows and seen cards, so this
        is built once per trick (or placement), not once per observation.
        """
        memo = self._table_memo
        if (
            memo is not None
            and state.rows == memo.rows
            and state.piles == memo.piles
            and state.pending == memo.pending
            and state.trick == memo.trick
            and state.round_heads == memo.round_heads
            and state.totals == memo.totals
        ):
            return memo
        memo = self._table_memo = _Table(self, state)
        return memo

    def observe(self, state: SechsNimmtState, seat: int) -> np.ndarray:
        # Every entry is a whole number 0..236: the vector is built in a byte buffer,
        # starting from the table's template (rows, seen cards), which all seats share.
        n = self.num_seats
        table = self._table(state)
        buf = bytearray(table.template)
        hand = state.hands[seat]
        chosen = state.chosen[seat]
        if chosen:
            buf[self._o_choice + chosen] = 1
        at = self._o_heads  # heads_round, heads_total are consecutive
        buf[at : at + 2 * n] = table.heads2[seat : seat + n] + table.totals2[seat : seat + n]
        phase, turn = state.phase, state.turn
        if phase == CHOOSE:
            buf[self._o_to_move + (turn - seat) % n] = 1
            buf[self._o_phase] = 1
            # seats choose in seat order: those before the one to move have chosen
            at = self._o_has_chosen
            buf[at : at + n] = self._has_chosen[seat][turn]
        elif phase == ROW:
            buf[self._o_to_move + (turn - seat) % n] = 1
            buf[self._o_phase + 1] = 1
            base = self._o_trick
            trick = state.trick
            for c in trick:
                buf[base + c] = 1
            buf[self._o_placing] = trick[turn]
        elif phase == DRAFT:
            buf[self._o_to_move + (turn - seat) % n] = 1
            buf[self._o_phase + 2] = 1
        buf[self._o_cards_left] = len(hand)
        hand_at = self._o_hand
        if not table.rows:  # no rows yet: no hand_* fields
            for c in hand:
                buf[hand_at + c] = 1
        elif self._profi:
            self._fill_hand_profi(buf, table, hand)
        else:
            # A card joins the row with the highest end below it, the ``k``-th lowest end when
            # ``k`` rows end below it. The hand cards between that end and the card are the
            # hand cards before it in the same bracket (the hand ascends).
            fit, heads_at, gap, open_ = self._o_fit, self._o_fit_heads, self._o_gap, self._o_open
            seen_at, template = self._o_seen, table.template
            ends, brackets = table.ends, table.brackets
            bracket, first = -1, 0
            for i, c in enumerate(hand):
                buf[hand_at + c] = 1
                k = bisect.bisect_left(ends, c)  # rows ending below c
                if k:
                    if k != bracket:
                        bracket, first = k, i
                    end, count, heads = brackets[k]
                    buf[fit + c] = count
                    buf[heads_at + c] = heads
                    buf[gap + c] = c - end
                    # cards between the row's end and c, neither seen nor in the hand
                    seen = template.count(1, seen_at + end + 1, seen_at + c)
                    buf[open_ + c] = c - end - 1 - seen - (i - first)
                else:
                    buf[fit + c] = ROW_MAX + 1
                    buf[heads_at + c] = table.fewest
        if self._logic:
            hands, d = state.hands, self.deck
            base = self._o_others_hands
            for s in self._order[seat][1:]:
                for c in hands[s]:
                    buf[base + c] = 1
                base += d
            base = self._o_pool
            for c in state.pool:
                buf[base + c] = 1
        return np.frombuffer(buf, BYTE).astype(FLOAT32)

    def _fill_hand_profi(self, buf: bytearray, table: _Table, hand: list[int]) -> None:
        """The hand one-hot and the ``hand_*`` fields under ``profi`` (left ends too)."""
        hand_at = self._o_hand
        for c in hand:
            buf[hand_at + c] = 1
        fit, heads_at, gap, open_ = self._o_fit, self._o_fit_heads, self._o_gap, self._o_open
        rows, counts, row_heads, template = table.rows, table.counts, table.row_heads, table.template
        seen_at = self._o_seen
        for c in hand:
            t = target(rows, c, True)
            if t < 0:
                buf[fit + c], buf[heads_at + c] = ROW_MAX + 1, table.fewest
                continue
            i = t % ROWS
            buf[fit + c], buf[heads_at + c] = counts[i], row_heads[i]
            lo, hi = (rows[i][-1], c) if t < ROWS else (c, rows[i][0])
            buf[gap + c] = hi - lo
            # the cards between that this seat has not seen (hand and seen are disjoint)
            known = template.count(1, seen_at + lo + 1, seen_at + hi)
            known += buf.count(1, hand_at + lo + 1, hand_at + hi)
            buf[open_ + c] = hi - lo - 1 - known

    def observe_batch(self, states: Sequence[SechsNimmtState], seats: Sequence[int]) -> np.ndarray:
        """Many observations at once, built with numpy across the batch (row ``i`` is ``observe``'s).

        The states are read column by column (every state's hands, then every state's
        rows, ...) with ``map`` and ``chain``, so that no Python line runs once per state;
        numpy then scatters the one-hot card fields in one go and works out the
        ``hand_*`` fields of every hand card together against its rows.
        """
        seat = self._check_batch(states, seats)
        n, size = self.num_seats, self.observation_spec.size
        count = len(states)
        out = np.zeros((count, size), np.float32)
        if not count:
            return out
        hands, rows, piles, phase, turn, chosen, round_heads, totals = zip(
            *map(_BATCH_FIELDS, states), strict=True
        )
        flat = out.reshape(-1)
        starts = np.arange(count) * size
        turn_at = as_numbers(list(turn))
        phase_index = as_numbers(list(map(_PHASE_BYTE.__getitem__, phase))) - 1
        # the one-hot card fields: card c of observation i is at i * size + the field's offset + c - 1
        own = list(map(getitem, hands, seats))
        hand_sizes = as_numbers(list(map(len, own)))
        hand_cards = flat_numbers(own)
        _scatter_ones(flat, starts + self._o_hand, hand_sizes, hand_cards)
        # seen: the cards taken (n piles per state), in the rows (four or none per state),
        # and revealed but not placed yet (the row choice only)
        every_pile = list(chain.from_iterable(piles))
        _scatter_ones(
            flat,
            np.repeat(starts + self._o_seen, n),
            list(map(len, every_pile)),
            flat_numbers(every_pile),
        )
        with_rows = np.flatnonzero(as_numbers(list(map(len, rows))))
        every_row: list[list[int]] = functools.reduce(iadd, rows, [])
        row_sizes = as_numbers(list(map(len, every_row)))
        row_cards = flat_numbers(every_row)
        _scatter_ones(flat, np.repeat(starts[with_rows] + self._o_seen, ROWS), row_sizes, row_cards)
        chooser = np.flatnonzero(phase_index == 1)
        if len(chooser):  # the row choice: the revealed cards, those still to place are seen
            picked = [states[i] for i in chooser.tolist()]
            revealed = np.array([state.trick for state in picked], np.int64)
            waiting = [state.pending for state in picked]
            to_place = revealed[
                np.repeat(np.arange(len(chooser)), list(map(len, waiting))), list(chain(*waiting))
            ]
            _scatter_ones(flat, starts[chooser] + self._o_seen, list(map(len, waiting)), to_place)
            _scatter_ones(flat, starts[chooser] + self._o_trick, [n] * len(chooser), revealed.reshape(-1))
            out[chooser, self._o_placing] = revealed[np.arange(len(chooser)), turn_at[chooser]]
        choice = np.array(list(map(getitem, chosen, seats)), np.int64)
        chose = choice > 0
        flat[starts[chose] + self._o_choice + choice[chose]] = 1
        # the seats' fields, the observer first: seat (seat + k) % n is entry k
        others = (seat[:, None] + np.arange(n)) % n
        by_seat = flat_numbers(chain(round_heads, totals)).reshape(2, count, n)
        at = self._o_heads  # heads_round and heads_total are consecutive
        out[:, at : at + n] = np.take_along_axis(by_seat[0], others, axis=1)
        out[:, at + n : at + 2 * n] = np.take_along_axis(by_seat[1], others, axis=1)
        at = self._o_has_chosen  # seats choose in seat order: those before the one to move have chosen
        out[:, at : at + n] = (others < turn_at[:, None]) & (phase_index == 0)[:, None]
        deciding = phase_index >= 0
        flat[starts[deciding] + self._o_to_move + (turn_at - seat)[deciding] % n] = 1
        flat[starts[deciding] + self._o_phase + phase_index[deciding]] = 1
        out[:, self._o_cards_left] = hand_sizes
        if self._logic:
            self._logic_fields_batch(out, others, hands, [state.pool for state in states])
        if len(with_rows):
            self._hand_fields_batch(out, with_rows, row_cards, row_sizes, hand_cards, hand_sizes)
        return out

    def _logic_fields_batch(
        self, out: np.ndarray, others: np.ndarray, hands: tuple[list[list[int]], ...], pools: list[list[int]]
    ) -> None:
        """``others_hands`` and ``pool`` of a batch under ``logic``."""
        n, d = self.num_seats, self.deck
        count = len(out)
        every = np.zeros((count, n, d + 1), np.float32)  # every seat's hand, by seat (column 0 unused)
        every_sizes = list(map(len, chain.from_iterable(hands)))
        _scatter_ones(
            every.reshape(-1),
            np.arange(count * n) * (d + 1),
            every_sizes,
            chain.from_iterable(chain.from_iterable(hands)),
        )
        clockwise = np.take_along_axis(every, others[:, 1:, None], axis=1)[:, :, 1:]
        at = self._o_others_hands + 1
        out[:, at : at + (n - 1) * d] = clockwise.reshape(count, -1)
        _scatter_ones(
            out.reshape(-1),
            np.arange(count) * out.shape[1] + self._o_pool,
            list(map(len, pools)),
            chain.from_iterable(pools),
        )

    def _hand_fields_batch(
        self,
        out: np.ndarray,
        with_rows: np.ndarray,
        row_cards: np.ndarray,
        row_sizes: np.ndarray,
        hand_cards: np.ndarray,
        hand_sizes: np.ndarray,
    ) -> None:
        """The row fields and the ``hand_*`` fields of the observations ``with_rows`` of a batch.

        ``out`` already holds the hand and seen cards, which give how many cards below
        each card the observer knows.
        """
        d, size = self.deck, self.observation_spec.size
        cards, sizes = row_cards, row_sizes
        ends = np.cumsum(sizes)
        tables = len(with_rows)
        lasts = cards[ends - 1].reshape(tables, ROWS)
        firsts = cards[ends - sizes].reshape(tables, ROWS)
        row_heads = np.add.reduceat(HEADS_ARRAY[cards], ends - sizes).reshape(tables, ROWS)
        counts = sizes.reshape(tables, ROWS)
        at = self._o_rows  # row_last, row_first, row_count and row_heads are consecutive
        out[with_rows, at : at + 4 * ROWS] = np.concatenate([lasts, firsts, counts, row_heads], axis=1)
        # the hand cards of the observations with rows, and the row table of each
        table_of = np.full(len(out), -1)
        table_of[with_rows] = np.arange(tables)
        owner = np.repeat(np.arange(len(out)), hand_sizes)
        table = table_of[owner]
        keep = table >= 0
        card, owner, table = hand_cards[keep], owner[keep], table[keep]
        # where each card goes: the nearest row end below it (and, under profi, the nearest
        # left end above it); on equal distance the right end wins, so it sorts first
        card_col = card[:, None]
        below = card_col - lasts[table]
        keys = np.where(below > 0, 2 * below, 2 * FULL_DECK + 2)
        if self._profi:
            above = firsts[table] - card_col
            keys = np.concatenate([keys, np.where(above > 0, 2 * above + 1, 2 * FULL_DECK + 2)], axis=1)
        where = keys.argmin(axis=1)
        fits = keys[np.arange(len(card)), where] <= 2 * FULL_DECK
        row = where % ROWS
        left = where >= ROWS
        lo = np.where(left, card, lasts[table, row])
        hi = np.where(left, firsts[table, row], card)
        # known[i, x]: cards 1..x that observation i has in hand or has seen (the two are disjoint)
        hand_at, seen_at = self._o_hand + 1, self._o_seen + 1
        known = np.zeros((len(out), d + 1), np.float32)
        np.cumsum(out[:, hand_at : hand_at + d] + out[:, seen_at : seen_at + d], axis=1, out=known[:, 1:])
        between = known[owner, hi - 1] - known[owner, lo]
        fields = np.stack(
            [
                np.where(fits, counts[table, row], ROW_MAX + 1),
                np.where(fits, row_heads[table, row], row_heads.min(axis=1)[table]),
                np.where(fits, hi - lo, 0),
                np.where(fits, hi - lo - 1 - between, 0),
            ],
            axis=1,
        )
        offsets = np.array([self._o_fit, self._o_fit_heads, self._o_gap, self._o_open])
        out.reshape(-1)[(owner * size + card)[:, None] + offsets] = fields

    def view(self, state: SechsNimmtState, seat: int | None) -> dict[str, Any]:
        n = self.num_seats
        phase = state.phase
        has_chosen = [phase == CHOOSE and s < state.turn for s in range(n)]
        placing = None
        if phase == ROW:
            placing = {"seat": state.turn, "card": state.trick[state.turn]}
        public_hands = self._logic
        return {
            **self.view_base(state, seat),
            "phase": phase,
            "round": state.round,
            "trick_number": self.trick_number(state),
            "turn": state.turn if phase in PHASES else None,
            "deck": self.deck,
            "rows": [list(r) for r in state.rows],
            "row_heads": [sum(HEADS[c] for c in r) for r in state.rows],
            "heads_round": list(state.round_heads),
            "heads_total": list(state.totals),
            "history": [list(h) for h in state.history],
            "taken": [list(p) for p in state.piles],
            "hand": list(state.hands[seat]) if seat is not None else None,
            "choice": (state.chosen[seat] or None) if seat is not None else None,
            "has_chosen": has_chosen,
            "hands": [list(h) for h in state.hands] if public_hands else None,
            "pool": list(state.pool) if self._logic else None,
            "trick": [c or None for c in state.trick],
            "to_place": [state.trick[s] for s in state.pending],
            "placing": placing,
            "last": state.last,
        }

    def render(self, state: SechsNimmtState, seat: int | None = None) -> str:
        n = self.num_seats
        on = [k for k in ("tactic", "profi", "logic") if self.options[k]]
        header = "6 nimmt!" + (f" ({', '.join(on)})" if on else "")
        phase = state.phase
        if phase == OVER:
            status = "game over"
        elif phase == DEAL:
            status = "dealing"
        elif phase == DRAFT:
            status = f"draft: seat {state.turn} to pick"
        elif phase == CHOOSE:
            status = f"trick {self.trick_number(state)}: seat {state.turn} to choose a card"
        else:
            status = (
                f"trick {self.trick_number(state)}: seat {state.turn} must take a row "
                f"for {state.trick[state.turn]}"
            )
        lines = [f"{header}  round {state.round}  {status}"]
        for i in range(ROWS):
            row = state.rows[i] if state.rows else []
            slots = [f"{c:>4}" for c in row] + ["   ."] * (ROW_MAX - len(row))
            h = sum(HEADS[c] for c in row)
            lines.append(f"row {i + 1} |{''.join(slots)} | {h:>2} heads")
        if phase == DRAFT:
            lines.append("table: " + " ".join(map(str, state.pool)))
        # "this round / total before this round"; the best total so far is starred, as
        # the site shows the leader in yellow.
        best = min(state.totals)
        lines.append("heads (this round / total):")
        for s in range(n):
            marker = ">" if phase in PHASES and s == state.turn else " "
            star = "*" if state.totals[s] == best and state.round > 1 else " "
            mine = " (you)" if s == seat else ""
            note = ""
            if phase == CHOOSE and s < state.turn:
                note = "  chose"
            if self._logic and state.hands[s] and s != seat:
                note += "  hand " + " ".join(map(str, state.hands[s]))
            label = f"seat {s}{mine}"
            lines.append(f"{marker}{star}{label:<12} {state.round_heads[s]:>3} / {state.totals[s]:>3}{note}")
        if seat is not None and state.hands[seat]:
            hand = state.hands[seat]
            text = " ".join(f"[{c}]" if c == state.chosen[seat] else str(c) for c in hand)
            lines.append(f"your hand: {text}")
        if phase == ROW or (phase == CHOOSE and any(state.trick)):
            label = "revealed" if phase == ROW else "last trick"
            order = sorted(range(n), key=state.trick.__getitem__)
            lines.append(f"{label}: " + ", ".join(f"seat {s} {state.trick[s]}" for s in order))
        if seat is not None and phase in PHASES and state.turn == seat:
            if phase == ROW:
                lines.append("moves: row 1, row 2, row 3, row 4")
            else:
                lines.append(f"moves: {'pick' if phase == DRAFT else 'play'} CARD")
        if state.last:
            lines.append(f"last: {state.last}")
        if phase == OVER:
            lines.append("winner(s): " + ", ".join(f"seat {s}" for s in self.winners(state)))
        return "\n".join(lines)


class _Table:
    """The public table of a 6 nimmt! state, digested once for the observations of all seats.

    It keeps copies of what it was built from (the rows, taken cards, revealed cards
    and heads), so :meth:`SechsNimmt._table` can tell whether a state still has it.
    """

    __slots__ = (
        "brackets",
        "counts",
        "ends",
        "fewest",
        "heads2",
        "pending",
        "piles",
        "round_heads",
        "row_heads",
        "rows",
        "template",
        "totals",
        "totals2",
        "trick",
    )

    def __init__(self, game: SechsNimmt, state: SechsNimmtState) -> None:
        self.rows = rows = [row.copy() for row in state.rows]
        self.piles = [pile.copy() for pile in state.piles]
        self.pending = state.pending.copy()
        self.trick = state.trick.copy()
        self.round_heads = state.round_heads.copy()
        self.totals = state.totals.copy()
        # doubled, so that a seat's view (itself first, then clockwise) is one slice
        self.heads2 = self.round_heads * 2
        self.totals2 = self.totals * 2
        buf = bytearray(game.observation_spec.size)  # the fields every seat sees alike
        seen_at = game._o_seen
        counts, row_heads = [], []
        for row in rows:
            counts.append(len(row))
            h = 0
            for c in row:
                h += HEADS[c]
                buf[seen_at + c] = 1
            row_heads.append(h)
        lasts = [row[-1] for row in rows]
        if rows:
            at = game._o_rows  # row_last, row_first, row_count, row_heads are consecutive
            buf[at : at + 4 * ROWS] = lasts + [row[0] for row in rows] + counts + row_heads
        for pile in self.piles:
            for c in pile:
                buf[seen_at + c] = 1
        for s in self.pending:
            buf[seen_at + self.trick[s]] = 1
        self.template = bytes(buf)
        self.counts, self.row_heads = counts, row_heads
        self.fewest = min(row_heads, default=0)
        # brackets[k] = (end, count, heads) of the row with the k-th lowest last card: a
        # card above k of the ends (ascending in ``ends``) joins it (k = 0: below every row)
        brackets = sorted(zip(lasts, counts, row_heads, strict=True))
        self.ends = [end for end, _, _ in brackets]
        brackets.insert(0, (0, 0, 0))
        self.brackets = brackets


def _scatter_ones(flat: np.ndarray, bases: np.ndarray, sizes: Any, cards: Iterable[int]) -> None:
    """Set ``flat[bases[k] + c]`` to 1 for each card ``c`` of segment ``k``.

    ``cards`` holds the segments' cards one after the other, ``sizes[k]`` of segment ``k``.
    """
    at = np.repeat(bases, sizes)
    if len(at):
        flat[at + (cards if isinstance(cards, np.ndarray) else np.fromiter(cards, np.int64, len(at)))] = 1


def observation_fields(num_seats: int, deck: int, logic: bool) -> tuple[Field, ...]:
    """The observation table of 6 nimmt! for ``num_seats`` seats and ``deck`` cards."""
    n, d = num_seats, deck
    fields = [
        Field("hand", d, 0, 1, "card i+1 is in the observer's hand (chosen card included until the reveal)"),
        Field("choice", d, 0, 1, "card i+1 is the observer's chosen card, not revealed yet"),
        Field("seen", d, 0, 1, "card i+1 has been face-up this round (rows, revealed, taken)"),
        Field("row_last", ROWS, 0, d, "last (right-end) card of row 1..4 (0: no row)"),
        Field("row_first", ROWS, 0, d, "first (left-end) card of row 1..4"),
        Field("row_count", ROWS, 0, ROW_MAX, "cards in row 1..4"),
        Field("row_heads", ROWS, 0, MAX_ROW_HEADS, "heads in row 1..4"),
        Field("heads_round", n, 0, MAX_ROUND_HEADS, "heads each seat took this round, observer first"),
        Field("heads_total", n, 0, MAX_TOTAL, "each seat's heads before this round"),
        Field("has_chosen", n, 0, 1, "the seat has chosen its card for this trick"),
        Field("to_move", n, 0, 1, "one-hot: whose decision it is"),
        Field("phase", 3, 0, 1, "one-hot: choose a card / choose a row / draft"),
        Field("trick", d, 0, 1, "row choice: card i+1 was revealed in this trick"),
        Field("placing", 1, 0, d, "row choice: the card being placed"),
        Field("cards_left", 1, 0, HAND, "cards in the observer's hand"),
        Field(
            "hand_fit",
            d,
            0,
            ROW_MAX + 1,
            "hand card i+1: cards in the row it would join (6: below every row)",
        ),
        Field(
            "hand_heads",
            d,
            0,
            MAX_ROW_HEADS,
            "hand card i+1: heads of that row (below every row: fewest heads)",
        ),
        Field("hand_gap", d, 0, d, "hand card i+1: its distance from that row's end (0: below every row)"),
        Field(
            "hand_open",
            d,
            0,
            d,
            "hand card i+1: cards between that row's end and it that the observer has not seen",
        ),
    ]
    if logic:
        fields += [
            Field(
                "others_hands", (n - 1) * d, 0, 1, "the other seats' hands, clockwise (public under logic)"
            ),
            Field("pool", d, 0, 1, "draft: card i+1 is still on the table"),
        ]
    return tuple(fields)
