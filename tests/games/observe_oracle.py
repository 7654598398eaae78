"""The observation code of every game as it was before it was made fast: the oracle.

``tests/games/test_observe_equivalence.py`` checks that each game's ``observe`` and
``observe_batch`` give exactly these vectors. The functions are the earlier
``observe`` methods, kept self-contained on purpose: they read only the state's
fields and the spec's offsets, and carry their own copies of the constants they
need, so that a change in a game module cannot change the oracle along with it.
They are slow and plain; do not make them faster.
"""

from __future__ import annotations

import bisect
import operator
from typing import Any

import numpy as np

# --------------------------------------------------------------------------- Heckmeck

_HECKMECK_PHASES = ("keep", "decide", "claim")


def _heckmeck_claims(state: Any) -> tuple[int, int]:
    if not state.kept[5]:
        return 0, -1
    s = state.total
    i = bisect.bisect_right(state.grill, s)
    tile = state.grill[i - 1] if i else 0
    victim = -1
    if 21 <= s <= 36:
        for seat, stack in enumerate(state.stacks):
            if stack and stack[-1] == s and seat != state.turn:
                victim = seat
                break
    return tile, victim


def heckmeck(game: Any, state: Any, seat: int) -> np.ndarray:
    n, o = game.num_seats, game.observation_spec.offsets
    obs = bytearray(game.observation_spec.size)
    for t in state.grill:
        obs[t - 21] = 1
    top, wo, ti = o["top"], o["worms"], o["tiles"]
    for k in range(n):
        stack = state.stacks[(seat + k) % n]
        if stack:
            obs[top + 16 * k + stack[-1] - 21] = 1
            obs[wo + k] = sum([(t - 17) // 4 for t in stack])
            obs[ti + k] = len(stack)
    if state.phase != "over":
        obs[o["to_move"] + (state.turn - seat) % n] = 1
    obs[o["roll"] : o["roll"] + 6] = state.roll
    obs[o["kept"] : o["kept"] + 6] = state.kept
    obs[o["sum"]] = state.total
    obs[o["dice_left"]] = state.left
    if state.phase in _HECKMECK_PHASES:
        obs[o["phase"] + _HECKMECK_PHASES.index(state.phase)] = 1
        tile, victim = _heckmeck_claims(state)
        obs[o["take_tile"]] = tile
        obs[o["can_steal"]] = victim >= 0
    return np.frombuffer(obs, np.uint8).astype(np.float32)


# --------------------------------------------------------------------------- 6 nimmt!

_ROWS = 4
_ROW_MAX = 5


def _bull_heads(card: int) -> int:
    if card == 55:
        return 7
    if card % 11 == 0:
        return 5
    if card % 10 == 0:
        return 3
    if card % 10 == 5:
        return 2
    return 1


def _sechs_target(rows: list[list[int]], card: int, profi: bool) -> int:
    best, best_d = -1, 105
    if not profi:
        for i in range(_ROWS):
            d = card - rows[i][-1]
            if 0 < d < best_d:
                best, best_d = i, d
        return best
    for i in range(_ROWS):
        row = rows[i]
        d = card - row[-1]
        if d > 0 and (d < best_d or (d == best_d and best >= _ROWS)):
            best, best_d = i, d
        d = row[0] - card
        if 0 < d < best_d:
            best, best_d = i + _ROWS, d
    return best


def sechs_nimmt(game: Any, state: Any, seat: int) -> np.ndarray:
    n = game.num_seats
    off = game.observation_spec.offsets
    o_hand, o_choice, o_seen, o_trick = (off[k] - 1 for k in ("hand", "choice", "seen", "trick"))
    o_fit, o_fit_heads, o_gap, o_open = (
        off[k] - 1 for k in ("hand_fit", "hand_heads", "hand_gap", "hand_open")
    )
    logic, profi = game.options["logic"], game.options["profi"]
    order = [(seat + k) % n for k in range(n)]
    buf = bytearray(game.observation_spec.size)
    hand = state.hands[seat]
    for c in hand:
        buf[o_hand + c] = 1
    chosen = state.chosen[seat]
    if chosen:
        buf[o_choice + chosen] = 1
    rows = state.rows
    if rows:
        lasts, firsts, counts, row_heads = [], [], [], []
        for row in rows:
            lasts.append(row[-1])
            firsts.append(row[0])
            counts.append(len(row))
            h = 0
            for c in row:
                h += _bull_heads(c)
                buf[o_seen + c] = 1
            row_heads.append(h)
        at = off["row_last"]
        buf[at : at + 4 * _ROWS] = lasts + firsts + counts + row_heads
    for pile in state.piles:
        for c in pile:
            buf[o_seen + c] = 1
    trick = state.trick
    for s in state.pending:
        buf[o_seen + trick[s]] = 1
    at = off["heads_round"]
    buf[at : at + 2 * n] = [state.round_heads[s] for s in order] + [state.totals[s] for s in order]
    phase = state.phase
    if phase == "choose":
        buf[off["to_move"] + (state.turn - seat) % n] = 1
        buf[off["phase"]] = 1
        for s in range(state.turn):
            buf[off["has_chosen"] + (s - seat) % n] = 1
    elif phase == "row":
        buf[off["to_move"] + (state.turn - seat) % n] = 1
        buf[off["phase"] + 1] = 1
        for c in trick:
            buf[o_trick + c] = 1
        buf[off["placing"]] = trick[state.turn]
    elif phase == "draft":
        buf[off["to_move"] + (state.turn - seat) % n] = 1
        buf[off["phase"] + 2] = 1
    buf[off["cards_left"]] = len(hand)
    if rows:
        if profi:
            for c in hand:
                t = _sechs_target(rows, c, True)
                if t < 0:
                    buf[o_fit + c], buf[o_fit_heads + c] = _ROW_MAX + 1, min(row_heads)
                    continue
                i = t % _ROWS
                buf[o_fit + c], buf[o_fit_heads + c] = counts[i], row_heads[i]
                lo, hi = (lasts[i], c) if t < _ROWS else (c, firsts[i])
                buf[o_gap + c] = hi - lo
                known = buf.count(1, o_seen + lo + 1, o_seen + hi)
                known += buf.count(1, o_hand + lo + 1, o_hand + hi)
                buf[o_open + c] = hi - lo - 1 - known
        else:
            ends = sorted(zip(lasts, counts, row_heads, strict=True), reverse=True)
            fewest = min(row_heads)
            for c in hand:
                for end, count, heads in ends:
                    if end < c:
                        buf[o_fit + c], buf[o_fit_heads + c], buf[o_gap + c] = count, heads, c - end
                        known = buf.count(1, o_seen + end + 1, o_seen + c)
                        known += buf.count(1, o_hand + end + 1, o_hand + c)
                        buf[o_open + c] = c - end - 1 - known
                        break
                else:
                    buf[o_fit + c], buf[o_fit_heads + c] = _ROW_MAX + 1, fewest
    if logic:
        d = game.deck
        base = off["others_hands"] - 1
        for s in order[1:]:
            for c in state.hands[s]:
                buf[base + c] = 1
            base += d
        for c in state.pool:
            buf[off["pool"] - 1 + c] = 1
    return np.frombuffer(buf, np.uint8).astype(np.float32)


# --------------------------------------------------------------------------- Diamant

_DIAMANT_FULL_DECK = (1, 1, 1, 1, 2, 2, 1, 2, 1, 1, 1, 1, 3, 3, 3, 3, 3)
_DIAMANT_CAVE_ONE_HOT = [(), *(tuple(float(i == c) for i in range(5)) for c in range(5))]
_DIAMANT_HAS_CHOSEN = {None: 0.0, "go": 1.0, "camp": 1.0}
_DIAMANT_OWN_CHOICE = {None: (0.0, 0.0), "go": (1.0, 0.0), "camp": (0.0, 1.0)}


def diamant(game: Any, state: Any, seat: int) -> np.ndarray:
    n = game.num_seats
    pick = operator.itemgetter(*[(seat + k) % n for k in range(n)])
    choices, deck = state.choices, state.deck
    values = [
        *_DIAMANT_CAVE_ONE_HOT[state.cave],
        len(state.path),
        *map(operator.sub, _DIAMANT_FULL_DECK[:12], deck),
        *state.seen,
        state.pool,
        *pick(state.inside),
        *map(_DIAMANT_HAS_CHOSEN.__getitem__, pick(choices)),
        *pick(state.hauls),
        *pick(state.banked),
        *_DIAMANT_OWN_CHOICE[choices[seat]],
        *deck,
        *state.removed,
    ]
    return np.array(values, np.float32)


# --------------------------------------------------------------------------- To Court the King

# fool, maid, philosopher, laborer, guard, hunter, merchant, astronomer, pawnbroker,
# noblewoman, magician, knight, bishop, alchemist, nobleman, queen (kinds of the card table)
_COURT_ABILITY = (0, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 19)
_COURT_PHASES = ("play", "take", "die", "target", "pips", "value", "pick")
_COURT_FARMER = 2


def court(game: Any, state: Any, seat: int) -> np.ndarray:
    n, o = game.num_seats, game.observation_spec.offsets
    obs = np.zeros(game.observation_spec.size, np.float32)
    phase = state.phase
    # the table block, from ``place`` to ``supply``
    places, played = [0] * n, [0] * n
    for i, s in enumerate(state.order):
        k = (s - seat) % n
        places[k] = i + 1
        played[k] = int(i < state.pos)
    cards = [x for k in range(n) for x in state.held[(seat + k) % n]]
    supply = state.supply
    obs[o["place"] : o["active"]] = [*places, *played, *cards, supply[0], *supply[_COURT_FARMER:]]
    obs[o["active"] : o["fresh"]] = state.active + state.aside
    if state.best[0]:
        at = o["final"]
        obs[at : at + 3] = [state.final, *state.best]
    if phase in ("over", "roll", "start"):
        return obs
    obs[o["to_move"] + (state.turn - seat) % n] = 1.0
    obs[o["fresh"]] = state.fresh
    held = state.held[state.turn]
    for i, kind in enumerate(_COURT_ABILITY):
        if held[kind] and not state.ready >> i & 1:
            obs[o["used"] + i] = 1.0
    obs[o["phase"] + _COURT_PHASES.index(phase)] = 1.0
    card = state.card
    if card >= 0:
        obs[o["card"] + _COURT_ABILITY.index(card)] = 1.0
        if state.die >= 0:
            obs[o["chosen"] + state.die] = 1.0
        if state.target >= 0:
            obs[o["target"] + state.target] = 1.0
        at = o["picked"]
        obs[at : at + 8] = [*state.picked, state.pool, state.pool_dice]
    return obs


ORACLES = {"heckmeck": heckmeck, "sechs_nimmt": sechs_nimmt, "diamant": diamant, "court": court}
"""The oracle of each game, by the game's name."""
