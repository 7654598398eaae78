"""Bots for 6 nimmt!: a rule-of-thumb player and a determinised Monte Carlo search.

Both read only what their seat may know. The heuristic reads its view; the
search plans on ``seat.sample_state(rng)`` copies, in which every hidden card
(the other hands, their chosen cards, the undealt cards) has been drawn anew.

:class:`SechsNimmtHeuristicBot` (``"heuristic"``)
    *Card choice*: every card of the hand is given an expected cost in heads.
    The card's target row is found with the engine's own placement rule
    (:func:`tablezoo.games.sechs_nimmt.target`, so ``profi`` left ends count).
    A card that would be the sixth card of its row costs the row's heads. A card
    that fits a row with ``k`` cards costs the row's heads (plus those of the
    cards that would pile on) times the chance that at least ``5 - k`` cards of
    the other seats fall between the row's end and the card in this trick: each
    other seat plays one card, and it falls in that gap with the share of the
    cards the seat may hold that lie there (the unseen cards under a hidden
    deal; the seat's known hand under ``logic``). A card lower than every row
    costs the cheapest row's heads plus a little. The cheapest card is played;
    near-ties go to the card with the smallest gap to its row.
    *Row choice*: the row with the fewest heads (ties: the one with more cards).
    *Draft* (``logic``): spread the hand: take the card farthest from every card
    already held (the first pick: the middle of the deck). Measured against a
    random draft with the same card play, this was the best of the simple rules
    tried; taking the lowest or highest cards, or clumping, drafts much worse.

:class:`SechsNimmtSearchBot` (``"search"``)
    Determinised Monte Carlo search: one decision deep, one round of outcomes.

    *What is sampled*: ``samples`` (default 16) determinisations
    ``seat.sample_state(rng)``: the other hands and the undealt cards are
    redrawn from the cards this seat has not seen (under ``logic`` the hands are
    public and only the chosen cards are redrawn). The cards that the seats
    before this one have already chosen in the trick are drawn uniformly from
    their sampled hands by ``determinize``; the bot then replaces each by the
    heuristic's choice from that sampled hand (an opponent model, ``model``;
    it uses nothing but the sample).

    *What is tried*: at a card choice the heuristic's ``candidates`` (default 4)
    cheapest cards; at a row choice all four rows. Each candidate is played on
    every sample (the same samples for every candidate: common random numbers).

    *What is rolled out*: the rest of the current round only (the tricks left
    and their row choices, no new deal), every seat playing the heuristic's
    card and row rules from its own hand and the public cards of the sample.
    The engine itself is driven (``apply``), so every rule and option holds.

    *Score*: the heads this seat takes from the decision to the end of the round
    minus ``relative`` (default 0.5) times the mean heads the other seats take;
    the lowest mean wins, and the heuristic's own choice unless another beats it
    by more than ``margin`` (default 0). The ``logic`` draft is left to the
    heuristic (up to 44 options with a whole round behind each).

    *Budget*: at most ``candidates * samples`` = 64 rollouts of at most ten
    tricks per decision. Measured at 4 seats: about 20 ms per decision on
    average (about 45 ms at the first trick of a round, a few ms near its end);
    it grows with the seat count (about 35 ms at 6 seats, 65 ms at 10). The
    heuristic takes under 0.1 ms.

    *Strength* (one search bot against three heuristic bots, 4 seats, seats
    rotated; the fair share is 0.25): no option, 400 games: win rate 0.375
    (95% CI 0.328-0.422), mean final heads 45.6 against 55.4; ``profi``, 120
    games: 0.558 (0.470-0.647). Under ``logic`` it wins every game, but that only
    shows it reads the deterministic heuristic perfectly (public hands, no chance:
    the tournament repeats the same few games).
"""

from __future__ import annotations

import bisect
import functools
import math
from collections.abc import Callable
from itertools import accumulate
from typing import Any, cast

import numpy as np

from tablezoo.bots.core import Bot, Seat
from tablezoo.games.sechs_nimmt import (
    CHOOSE,
    DRAFT,
    HEADS,
    ROW,
    ROW_MAX,
    ROWS,
    SechsNimmt,
    SechsNimmtState,
    target,
)

AVG_HEADS = 171 / 104  # mean heads of a card
TOO_LOW_EXTRA = 0.5  # a card below every row takes a row for sure: a little worse than an even risk
GAP_WEIGHT = 0.002  # tie-break: the smaller gap to the row
TAIL_STEPS = 1000  # the chance of a gap card is rounded to 1/1000 for the memo


# --------------------------------------------------------------------------- the rules of thumb


@functools.lru_cache(maxsize=1 << 16)
def _tail(m: int, need: int, p_key: int) -> float:
    """P(X >= need) for X ~ Binomial(m, p_key / TAIL_STEPS) (memoised: rollouts ask often)."""
    p = p_key / TAIL_STEPS
    if need <= 0 or p >= 1.0:
        return 1.0
    if need > m or p <= 0.0:
        return 0.0
    q = 1.0 - p
    below = sum(math.comb(m, j) * p**j * q ** (m - j) for j in range(need))
    return max(0.0, 1.0 - below)


def row_table(rows: list[list[int]]) -> tuple[list[int], list[int], list[int]]:
    """The heads of each row, the row indices by ascending last card, and those last cards."""
    row_heads = [sum(HEADS[c] for c in row) for row in rows]
    order = sorted(range(ROWS), key=lambda i: rows[i][-1])
    return row_heads, order, [rows[i][-1] for i in order]


def card_costs(
    hand: list[int],
    rows: list[list[int]],
    profi: bool,
    others: int,
    share: Callable[[int, int], float],
    table: tuple[list[int], list[int], list[int]] | None = None,
) -> list[float]:
    """Expected heads of playing each card of ``hand`` on ``rows``.

    ``share(lo, hi)`` is the expected number of the other seats' cards of this
    trick strictly between ``lo`` and ``hi``; ``others`` is how many other cards
    the trick has; ``table`` (:func:`row_table` of ``rows``) saves recomputing it.
    """
    row_heads, order, lasts = table or row_table(rows)
    too_low = min(row_heads) + TOO_LOW_EXTRA
    costs = []
    for card in hand:
        if profi:
            where = target(rows, card, True)
        else:  # the same rule, faster: the row whose last card is the highest below
            j = bisect.bisect_left(lasts, card)
            where = order[j - 1] if j else -1
        if where < 0:
            costs.append(too_low)
            continue
        i = where % ROWS
        row = rows[i]
        need = ROW_MAX - len(row)
        if where < ROWS:
            gap = card - row[-1]
            expected = share(row[-1], card) if need > 0 else 0.0
        else:  # profi: left end; the others' cards placed before this one are lower
            gap = row[0] - card
            expected = 0.0
        if need <= 0:
            costs.append(row_heads[i] + GAP_WEIGHT * gap)
        elif expected <= 0.0 or need > others:
            costs.append(GAP_WEIGHT * gap)
        else:
            risk = _tail(others, need, min(TAIL_STEPS, int(expected / others * TAIL_STEPS + 0.5)))
            costs.append(risk * (row_heads[i] + need * AVG_HEADS) + GAP_WEIGHT * gap)
    return costs


def best_card(hand: list[int], costs: list[float]) -> int:
    """The card of least cost (the lowest of equal ones)."""
    best, best_cost = hand[0], costs[0]
    for card, cost in zip(hand, costs, strict=True):
        if cost < best_cost:
            best, best_cost = card, cost
    return best


def best_row(rows: list[list[int]]) -> int:
    """Index of the row to take: the fewest heads, then the most cards, then the first."""
    best, key = 0, None
    for i, row in enumerate(rows):
        k = (sum(HEADS[c] for c in row), -len(row), i)
        if key is None or k < key:
            best, key = i, k
    return best


def hidden_share(deck: int, public: list[int], hand: list[int], others: int) -> Callable[[int, int], float]:
    """``share`` for a hidden deal: the other seats' cards are uniform among the cards
    the seat has not seen (``public``: prefix counts of the face-up cards) nor holds."""
    unseen = deck - public[deck] - len(hand)
    rate = others / unseen if unseen > 0 else 0.0
    left, right = bisect.bisect_left, bisect.bisect_right

    def share(lo: int, hi: int) -> float:
        if hi - lo <= 1:
            return 0.0
        known = public[hi - 1] - public[lo] + left(hand, hi) - right(hand, lo)
        return rate * ((hi - lo - 1) - known)

    return share


def public_share(hands: list[list[int]]) -> Callable[[int, int], float]:
    """``share`` under ``logic``: each other seat plays one of its known cards."""

    def share(lo: int, hi: int) -> float:
        total = 0.0
        for h in hands:
            if h:
                total += (bisect.bisect_left(h, hi) - bisect.bisect_right(h, lo)) / len(h)
        return total

    return share


def known_prefix(deck: int, cards: Any) -> list[int]:
    """``known[x]``: how many of ``cards`` are at most ``x`` (x = 0..deck)."""
    flags = bytearray(deck + 1)
    for c in cards:
        flags[c] = 1
    return list(accumulate(flags))


def draft_pick(hand: list[int], pool: list[int], deck: int) -> int:
    """The card to draft: the one farthest from the cards already in the hand (a
    spread hand), ties to the card nearest the middle of the deck, then the lower."""
    middle = (deck + 1) / 2

    def key(card: int) -> tuple[float, float, int]:
        near = min((abs(card - h) for h in hand), default=deck)
        return (-near, abs(card - middle), card)

    return min(pool, key=key)


# --------------------------------------------------------------------------- the heuristic bot


class SechsNimmtHeuristicBot:
    """The rule-of-thumb player (see the module docstring); it reads only its view."""

    name = "heuristic"

    def reset(self, seed: int | None = None) -> None:
        pass

    def act(self, seat: Seat) -> int:
        game = cast(SechsNimmt, seat.game)
        view = seat.view()
        phase = view["phase"]
        if phase == ROW:
            return game.row_action + best_row(view["rows"])
        if phase == DRAFT:
            return game.deck - 1 + draft_pick(view["hand"], view["pool"], view["deck"])
        costs = self.costs(seat, view)
        return min(costs, key=costs.__getitem__)

    def costs(self, seat: Seat, view: dict[str, Any] | None = None) -> dict[int, float]:
        """The expected cost in heads of each ``play`` action (the card choice only)."""
        game = cast(SechsNimmt, seat.game)
        view = view or seat.view()
        hand, deck, n, me = view["hand"], view["deck"], view["num_seats"], seat.seat
        if view["hands"] is not None:  # logic: the hands are public
            share = public_share([h for s, h in enumerate(view["hands"]) if s != me])
        else:
            seen = [c for row in view["rows"] for c in row]
            for pile in view["taken"]:
                seen += pile
            seen += view["to_place"]
            share = hidden_share(deck, known_prefix(deck, seen), hand, n - 1)
        costs = card_costs(hand, view["rows"], game.options["profi"], n - 1, share)
        return {card - 1: cost for card, cost in zip(hand, costs, strict=True)}


# --------------------------------------------------------------------------- rollouts


def _rollout_card(
    game: SechsNimmt, state: SechsNimmtState, seat: int, public: list[int] | None, table: Any
) -> int:
    """The heuristic's card for ``seat`` on a sampled state, judged from the seat's own
    hand and the public cards (``public``: prefix counts of the public cards)."""
    hand = state.hands[seat]
    if len(hand) == 1:
        return hand[0]
    n = game.num_seats
    if public is None:  # logic
        share = public_share([h for s, h in enumerate(state.hands) if s != seat])
    else:
        share = hidden_share(game.deck, public, hand, n - 1)
    costs = card_costs(hand, state.rows, game.options["profi"], n - 1, share, table)
    return best_card(hand, costs)


def _public_prefix(game: SechsNimmt, state: SechsNimmtState) -> list[int] | None:
    if game.options["logic"]:
        return None
    cards = [c for row in state.rows for c in row]
    for pile in state.piles:
        cards += pile
    return known_prefix(game.deck, cards)


def rollout(game: SechsNimmt, state: SechsNimmtState) -> None:
    """Play ``state`` to the end of its round with the heuristic rules for every seat."""
    start = state.round
    public = table = None
    fresh = False
    while state.round == start and state.phase in (CHOOSE, ROW):
        seat = state.turn
        if state.phase == ROW:
            game.apply(state, game.row_action + best_row(state.rows), check=False)
            fresh = False
            continue
        if not fresh:
            public = _public_prefix(game, state)
            table = row_table(state.rows)
            fresh = True
        card = _rollout_card(game, state, seat, public, table)
        game.apply(state, card - 1, check=False)
        if seat == game.num_seats - 1:  # the trick was revealed
            fresh = False


def model_choices(game: SechsNimmt, state: SechsNimmtState, me: int) -> None:
    """Replace the cards the other seats have chosen in a sample (drawn uniformly from
    their sampled hands) by the heuristic's choice from those hands: an opponent model."""
    if state.phase != CHOOSE or not any(state.chosen[s] for s in range(game.num_seats) if s != me):
        return
    public, table = _public_prefix(game, state), row_table(state.rows)
    for s in range(game.num_seats):
        if s != me and state.chosen[s]:
            state.chosen[s] = _rollout_card(game, state, s, public, table)


# --------------------------------------------------------------------------- the search bot


class SechsNimmtSearchBot:
    """Determinised Monte Carlo search over the hidden hands (see the module docstring).

    Args:
        samples: determinisations each searched action is played out on.
        seed: seed of the bot's own generator (``reset(seed)`` reseeds it).
        candidates: the card choice searches only the heuristic's cheapest cards, this many.
        margin: heads per round an action must save over the heuristic's choice to be played.
        relative: weight of the others' mean heads in an action's score.
        model: in a sample, the cards the earlier seats chose are the heuristic's choices
            from their sampled hands (else the uniform draw of ``sample_state``).
    """

    name = "search"

    def __init__(
        self,
        samples: int = 16,
        seed: int | None = None,
        candidates: int = 4,
        margin: float = 0.0,
        relative: float = 0.5,
        model: bool = True,
    ) -> None:
        self.samples = samples
        self.candidates = candidates
        self.margin = margin
        self.relative = relative
        self.model = model
        self.rng = np.random.default_rng(seed)
        self.heuristic = SechsNimmtHeuristicBot()

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, seat: Seat) -> int:
        legal = seat.legal
        game = cast(SechsNimmt, seat.game)
        view = seat.view()
        phase = view["phase"]
        if phase == DRAFT or len(legal) == 1:
            return self.heuristic.act(seat)
        if phase == ROW:
            actions = legal
            default = game.row_action + best_row(view["rows"])
        else:
            costs = self.heuristic.costs(seat, view)
            actions = sorted(legal, key=lambda a: (costs[a], a))[: self.candidates]
            default = actions[0]
            if len(actions) == 1:
                return default
        means = self.evaluate(seat, actions)
        best = min(actions, key=lambda a: (means[a], a))
        return best if means[best] < means[default] - self.margin else default

    def evaluate(self, seat: Seat, actions: list[int]) -> dict[int, float]:
        """Mean score (heads taken to the end of the round, less ``relative`` times the
        others' mean) of each action over ``samples`` determinisations."""
        game = cast(SechsNimmt, seat.game)
        me, n = seat.seat, game.num_seats
        w = self.relative / (n - 1)
        totals = dict.fromkeys(actions, 0.0)
        for _ in range(self.samples):
            sample = seat.sample_state(self.rng)
            if self.model:
                model_choices(game, sample, me)
            before = [t + h for t, h in zip(sample.totals, sample.round_heads, strict=True)]
            for action in actions:
                state = game.clone(sample)
                game.apply(state, action, check=False)
                rollout(game, state)
                after = [t + h for t, h in zip(state.totals, state.round_heads, strict=True)]
                mine = after[me] - before[me]
                theirs = sum(after) - sum(before) - mine
                totals[action] += mine - w * theirs
        return {a: t / self.samples for a, t in totals.items()}


BOTS: dict[str, type[Bot]] = {"heuristic": SechsNimmtHeuristicBot, "search": SechsNimmtSearchBot}
"""This game's bots by name; ``random`` and ``agent`` serve every game (:mod:`tablezoo.bots.registry`)."""
