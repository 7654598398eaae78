"""Bots for 6 nimmt!: a rule-of-thumb player, plain determinised Monte Carlo, and a search.

All read only what their seat may know. The heuristic reads its view; the
Monte Carlo bots plan on ``seat.sample_state(rng)`` copies, in which every hidden
card (the other hands, their chosen cards, the undealt cards) has been drawn anew.

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

:class:`SechsNimmtMonteCarloBot` (``"montecarlo"``)
    The plain determinised Monte Carlo player, the baseline a search must beat.
    At a card choice it draws ``samples`` (default 24) determinisations
    ``seat.sample_state(rng)`` (the other hands, the undealt cards and the cards
    the earlier seats chose in this trick, drawn anew from what this seat has not
    seen), plays every card of its hand on each of them, and plays the rest of the
    round out at random (every seat's cards and row choices uniform). An outcome
    scores the heads this seat takes to the end of the round minus the mean the
    others take; the card of lowest mean is played. Row choices and the ``logic``
    draft are the heuristic's.

:class:`SechsNimmtSearchBot` (``"search"``)
    Determinised Monte Carlo search, one decision deep, one round of outcomes: the
    plain bot above with five changes.

    *Candidates*: every card of the hand, and at a row choice every row (the plain
    bot takes the fewest heads).

    *Successive halving*: every candidate is first played on ``samples``
    (default 16) determinisations; the ``keep`` (3) best by mean are then played
    on ``extra`` (32) more each, and the best mean over all its samples wins. The
    contenders get three times the samples of the plain bot for fewer rollouts in
    all (at most ``10 * 16 + 3 * 32 = 256``, against 240).

    *Common random numbers*: every candidate meets the same determinisations and
    the same random stream in its rollout, so two candidates' means differ by the
    decision far more than by luck.

    *Rollouts*: to the end of the round, as in the plain bot, but each move of
    every seat (cards and rows) is the heuristic's with probability ``greedy``
    (default 0.5), else uniform: more like real play than uniform moves, and
    less predictable than the heuristic alone (a search whose rollouts all follow
    one deterministic rule plans against that rule's mistakes).

    *Score*: the heads this seat takes to the end of the round minus
    ``relative`` (1) times the others' mean, as the plain bot scores. With
    ``model`` the cards the earlier seats chose in this trick are the heuristic's
    choices from their sampled hands rather than uniform (off by default: the
    real seats need not play like the heuristic).

    *Values* (``action_values``, what expert iteration's soft targets read): minus
    each card's (or row's) mean score, in heads; a candidate the first pass cut is
    valued no better than the worst one it kept.

    The ``logic`` draft is left to the heuristic (up to 44 options with a whole
    round behind each).

    *Budget* (CPU time per decision, no option): 2 seats, about 33 ms on average
    (90% under 70 ms, the first trick of a round up to about 120 ms); 4 seats,
    about 65 ms (90% under 135 ms, up to about 190 ms). The plain bot takes 9
    and 13 ms; ``search:samples=12,extra=24`` is a quicker setting.

    *Strength* (one search bot against ``montecarlo`` at every other seat, seats
    rotated, ``tablezoo evaluate sechs_nimmt --players N --bots search
    montecarlo --seed S``): 4 seats, 120 games (``--seed 11``): win rate 0.333
    (95% CI 0.255-0.422; fair share 0.25), mean final heads 46.6 against 55.5;
    2 seats, 150 games (``--seed 11``): 0.723 (0.647-0.789; fair share 0.5),
    53.2 heads against 67.5. Against ``heuristic`` at every other seat (``--bots
    search heuristic --seed 5``) it is the stronger player at small tables and
    the weaker at big ones: 4 seats, 100 games: 0.390 (0.300-0.488; fair share
    0.25), 49.0 heads against 55.4; 6 seats, 60 games: 0.108 (0.052-0.212; fair
    share 0.167); 8 seats, 60 games: 0.067 (0.026-0.159; fair share 0.125). (A
    likely reason: with many seats a rollout's random and half-random moves make
    the round's heads noisy, where the heuristic's risk estimate is exact for its
    model.) At big tables a search that models the others as the heuristic does
    better: with ``greedy=1,model=1`` (every rollout move, and the hidden cards the
    earlier seats chose, the heuristic's: a best reply to heuristic players) it
    wins 0.350 (0.242-0.476) of 60 games at 6 seats and 0.283 (0.185-0.408) of 60 at
    8 seats, and ``samples=8,extra=16,greedy=1,model=1`` (a third quicker) 0.242
    (0.151-0.363) at 8 seats; ``greedy=0.9`` alone gives 0.200 (0.118-0.318) at 6
    seats. It is a best reply to the heuristic rather than a stronger player in
    general: at 4 seats it wins 0.575 (0.449-0.692) of 60 games against the
    heuristic but 0.212 (0.114-0.361) of 40 against ``search`` (fair share 0.25).
    So the shipped agent is taught by ``search`` at 2 to 4 seats and by the
    quicker modelling search at 5 to 10, where plain ``search`` loses to the heuristic.
"""

from __future__ import annotations

import bisect
import functools
import math
import random
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
    # added left to right (from Python 3.12 on, sum() of floats compensates its rounding): the
    # same value on every Python version, and the native core's bot adds them the same way
    below = 0.0
    for j in range(need):
        below += math.comb(m, j) * p**j * q ** (m - j)
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


def model_choices(game: SechsNimmt, state: SechsNimmtState, me: int) -> SechsNimmtState:
    """The sample with the cards the other seats have chosen (drawn uniformly from their
    sampled hands) replaced by the heuristic's choice from those hands: an opponent model.

    A new state (``game.replace``), so that it works on either core's states."""
    if state.phase != CHOOSE or not any(state.chosen[s] for s in range(game.num_seats) if s != me):
        return state
    public, table = _public_prefix(game, state), row_table(state.rows)
    chosen = list(state.chosen)
    for s in range(game.num_seats):
        if s != me and chosen[s]:
            chosen[s] = _rollout_card(game, state, s, public, table)
    return game.replace(state, chosen=chosen)


# --------------------------------------------------------------------------- the search bot


def mixed_rollout(game: SechsNimmt, state: SechsNimmtState, rnd: random.Random, greedy: float) -> None:
    """Play ``state`` to the end of its round: each card and row choice is the heuristic's
    with probability ``greedy``, else uniform among the legal ones (``greedy=0`` plays as
    :func:`random_rollout`)."""
    start, n, row_action = state.round, game.num_seats, game.row_action
    public = table = None
    fresh = False
    while state.round == start:
        phase = state.phase
        if phase == ROW:
            if rnd.random() < greedy:
                game.apply(state, row_action + best_row(state.rows), check=False)
            else:
                game.apply(state, row_action + int(rnd.random() * ROWS), check=False)
            fresh = False
            continue
        if phase != CHOOSE:
            return
        seat = state.turn
        hand = state.hands[seat]
        if rnd.random() < greedy:
            if not fresh:
                public = _public_prefix(game, state)
                table = row_table(state.rows)
                fresh = True
            card = _rollout_card(game, state, seat, public, table)
        else:
            card = hand[int(rnd.random() * len(hand))]
        game.apply(state, card - 1, check=False)
        if seat == n - 1:  # the trick was revealed
            fresh = False


class SechsNimmtSearchBot:
    """Determinised Monte Carlo search over the hidden hands (see the module docstring).

    On the native core :func:`~tablezoo.bots.registry.make_bot` seats its port
    (``SechsNimmt::Search``, declared in ``native/src/games/sechs_nimmt/sechs_nimmt.h`` and defined
    in ``native/src/games/sechs_nimmt/bots.cc``; default settings, so ``model`` off): the same
    search and the same values, its determinisations and rollouts drawn from
    the core's generator (its win share against this bot over seeded two-seat games holds 0.5
    in its 95% interval: ``tests/bots/test_native_sechs_nimmt_ports.py``). 20 to 38 times
    quicker per move (0.45 ms against 17 at 2 seats, 1.1 against 28 at 4, 2.0 against 41
    at 7: ``benchmarks/native_bots.py``).

    Args:
        samples: determinisations every candidate is played out on in the first pass.
        seed: seed of the bot's own generator (``reset(seed)`` reseeds it).
        keep: the candidates with the best means after the first pass, searched on...
        extra: ...this many more determinisations each (successive halving, one step).
        greedy: in a rollout, the chance that a move is the heuristic's (else uniform).
        relative: weight of the others' mean heads in an action's score.
        model: in a sample, the cards the earlier seats chose are the heuristic's choices
            from their sampled hands (else the uniform draw of ``sample_state``).
    """

    name = "search"

    def __init__(
        self,
        samples: int = 16,
        seed: int | None = None,
        keep: int = 3,
        extra: int = 32,
        greedy: float = 0.5,
        relative: float = 1.0,
        model: bool = False,
    ) -> None:
        if samples < 1 or keep < 1 or extra < 0:
            raise ValueError(
                f"samples and keep are at least 1 and extra at least 0, not {samples}, {keep}, {extra}"
            )
        if not 0.0 <= greedy <= 1.0:
            raise ValueError(f"greedy is a probability, 0 to 1, not {greedy}")
        self.samples = samples
        self.keep = keep
        self.extra = extra
        self.greedy = greedy
        self.relative = relative
        self.model = model
        self.rng = np.random.default_rng(seed)
        self.heuristic = SechsNimmtHeuristicBot()

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, seat: Seat) -> int:
        return self.choose(seat)[0]

    def action_values(self, seat: Seat) -> list[float]:
        """The value of each legal move (``seat.legal``'s order), in heads: minus its mean score.

        A move the first pass cut is valued no better than the worst of the ``keep``
        it kept, so the move valued most is the one ``act`` plays. Where the bot does
        not search (the ``logic`` draft, a forced move), the move it plays is worth 0
        and every other ``-inf``.
        """
        move, scores = self.choose(seat)
        if not scores:
            return [0.0 if a == move else -math.inf for a in seat.legal]
        return [-scores[a] for a in seat.legal]

    def choose(self, seat: Seat) -> tuple[int, dict[int, float]]:
        """The move to play and every searched move's score (lower is better; none unsearched)."""
        legal = seat.legal
        if seat.view()["phase"] == DRAFT or len(legal) == 1:
            return self.heuristic.act(seat), {}
        sums = dict.fromkeys(legal, 0.0)
        counts = dict.fromkeys(legal, 0)
        self.evaluate(seat, legal, self.samples, sums, counts)
        scores = {a: sums[a] / counts[a] for a in legal}
        if len(legal) > self.keep and self.extra:
            best = sorted(legal, key=lambda a: (scores[a], a))[: self.keep]
            self.evaluate(seat, best, self.extra, sums, counts)
            kept = {a: sums[a] / counts[a] for a in best}
            worst = max(kept.values())
            scores = {a: kept[a] if a in kept else max(scores[a], worst) for a in legal}
            legal = best
        return min(legal, key=lambda a: (scores[a], a)), scores

    def evaluate(
        self, seat: Seat, actions: list[int], samples: int, sums: dict[int, float], counts: dict[int, int]
    ) -> None:
        """Add to ``sums`` and ``counts`` the scores of ``actions`` on ``samples`` new
        determinisations: the heads this seat takes to the end of the round, less
        ``relative`` times the others' mean. Every action meets the same samples and the
        same random stream in its rollout (common random numbers)."""
        game = cast(SechsNimmt, seat.game)
        me, n = seat.seat, game.num_seats
        w = self.relative / (n - 1)
        for _ in range(samples):
            sample = seat.sample_state(self.rng)
            if self.model:
                sample = model_choices(game, sample, me)
            stream = int(self.rng.integers(2**63))
            before = [t + h for t, h in zip(sample.totals, sample.round_heads, strict=True)]
            for action in actions:
                state = game.clone(sample)
                game.apply(state, action, check=False)
                mixed_rollout(game, state, random.Random(stream), self.greedy)
                after = [t + h for t, h in zip(state.totals, state.round_heads, strict=True)]
                mine = after[me] - before[me]
                theirs = sum(after) - sum(before) - mine
                sums[action] += mine - w * theirs
                counts[action] += 1


# --------------------------------------------------------------------------- the plain Monte Carlo bot


def random_rollout(game: SechsNimmt, state: SechsNimmtState, rnd: random.Random) -> None:
    """Play ``state`` to the end of its round with every card and row chosen uniformly at random."""
    start, row_action = state.round, game.row_action
    while state.round == start:
        phase = state.phase
        if phase == CHOOSE:
            hand = state.hands[state.turn]
            game.apply(state, hand[int(rnd.random() * len(hand))] - 1, check=False)
        elif phase == ROW:
            game.apply(state, row_action + int(rnd.random() * ROWS), check=False)
        else:
            return


class SechsNimmtMonteCarloBot:
    """Plain determinised Monte Carlo: every legal card tried on the same sampled deals.

    At a card choice it draws ``samples`` determinisations ``seat.sample_state(rng)``
    (the other hands, their pending choices and the undealt cards drawn anew from what
    this seat has not seen), plays every card of its hand on each of them, and plays
    the rest of the round out at random (every seat's cards and row choices uniform).
    An outcome scores the heads this seat takes from now to the end of the round
    minus the mean of what the other seats take; the card of lowest mean score is
    played (the lowest card of equal ones). The row choice is the heuristic's (the
    row with the fewest heads) and so is the ``logic`` draft.

    On the native core :func:`~tablezoo.bots.registry.make_bot` seats its port
    (``SechsNimmt::MonteCarlo``, declared in ``native/src/games/sechs_nimmt/sechs_nimmt.h`` and
    defined in ``native/src/games/sechs_nimmt/bots.cc``; default settings): the same player, its
    determinisations (the game's ``determinize``, the core's twin of
    :meth:`~tablezoo.games.sechs_nimmt.SechsNimmt.determinize`) and rollouts drawn from the
    core's generator (its win share against this bot over seeded two-seat games holds 0.5 in
    its 95% interval: ``tests/bots/test_native_sechs_nimmt_ports.py``). About 35 times
    quicker per move (0.12 ms against 4.4 at 2 seats, 0.30 against 10.6 at 7:
    ``benchmarks/native_bots.py``).

    Args:
        samples: determinisations per decision (every card is played on each).
        seed: seed of the bot's own generator (``reset(seed)`` reseeds it).
    """

    name = "montecarlo"

    def __init__(self, samples: int = 24, seed: int | None = None) -> None:
        if samples < 1:
            raise ValueError(f"samples is the number of determinisations, at least 1, not {samples}")
        self.samples = samples
        self.rng = np.random.default_rng(seed)
        self.heuristic = SechsNimmtHeuristicBot()

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, seat: Seat) -> int:
        view = seat.view()
        if view["phase"] != CHOOSE:
            return self.heuristic.act(seat)
        legal = seat.legal
        if len(legal) == 1:
            return legal[0]
        means = self.evaluate(seat, legal)
        return min(legal, key=lambda a: (means[a], a))

    def evaluate(self, seat: Seat, actions: list[int]) -> dict[int, float]:
        """Mean score of each action (heads taken to the end of the round, less the
        others' mean) over ``samples`` determinisations, with random rollouts."""
        game = cast(SechsNimmt, seat.game)
        me, n = seat.seat, game.num_seats
        rnd = random.Random(int(self.rng.integers(2**63)))
        totals = dict.fromkeys(actions, 0.0)
        for _ in range(self.samples):
            sample = seat.sample_state(self.rng)
            before = [t + h for t, h in zip(sample.totals, sample.round_heads, strict=True)]
            for action in actions:
                state = game.clone(sample)
                game.apply(state, action, check=False)
                random_rollout(game, state, rnd)
                after = [t + h for t, h in zip(state.totals, state.round_heads, strict=True)]
                mine = after[me] - before[me]
                theirs = sum(after) - sum(before) - mine
                totals[action] += mine - theirs / (n - 1)
        return {a: t / self.samples for a, t in totals.items()}


BOTS: dict[str, type[Bot]] = {
    "heuristic": SechsNimmtHeuristicBot,
    "montecarlo": SechsNimmtMonteCarloBot,
    "search": SechsNimmtSearchBot,
}
"""This game's bots by name; ``random`` and ``agent`` serve every game (:mod:`tablezoo.bots.registry`)."""
