"""Heckmeck am Bratwurmeck (Pickomino): the rules as a tablezoo engine game.

Rules (this docstring is the spec; every rule below is tested)
--------------------------------------------------------------
16 tiles 21..36 lie face-up on the grill (worms: 21-24 one, 25-28 two,
29-32 three, 33-36 four). On his turn a player rolls the dice he has left
(8 at first; faces 1-5 and W, which counts 5), keeps **all** dice of one face
he has not kept yet, and then either rolls the rest again or stops with a
claim. Claims need at least one kept worm: the highest face-up grill tile not
above his sum (forced), or the top tile of an opponent's stack that equals his
sum exactly (a steal). A roll with no new face, or a turn that cannot end in a
claim, is a bust: the top tile of his stack goes back to the grill and the
highest grill tile is turned face-down, unless the returned tile is itself the
highest. The game ends when no face-up tile is left on the grill. Most worms
wins; ties go to the player with the highest tile; still tied (nobody has a
tile) share the win.

Whose move: a roll is a chance node whose outcome is the count of each face
``[ones, twos, threes, fours, fives, worms]``; its exact distribution is
:meth:`Heckmeck.chance_outcomes`. The player decides everything else.

Actions
-------
| id | command | meaning |
|---|---|---|
| 0-4 | ``keep 1`` .. ``keep 5`` | keep all dice showing that number |
| 5 | ``keep worm`` | keep all dice showing a worm |
| 6 | ``roll`` | roll the dice left (only when a new face is still possible) |
| 7 | ``take`` | stop and take the highest grill tile not above the sum |
| 8 | ``steal`` | stop and steal the opponent's top tile equal to the sum |

STOP is legal only with a claim (the site's rule). With no dice left, or all
six faces kept, the turn must end with a claim, or it is a bust.

Observation (seat-relative: the observer first, then the others clockwise)
------------------------------------------------------------------------------
Built from :func:`observation_fields`; for ``n`` seats the size is
``35 + 19 n``. Example, 2 seats:

| field | size | range | meaning |
|---|---|---|---|
| grill | 16 | 0..1 | tile 21+i is face-up on the grill |
| top | 16 n | 0..1 | one-hot top tile of each seat's stack (none: all zero) |
| worms | n | 0..40 | worms in each seat's stack |
| tiles | n | 0..16 | tiles in each seat's stack |
| to_move | n | 0..1 | one-hot: whose turn it is |
| roll | 6 | 0..8 | dice of the current roll showing 1..5, W (not yet kept) |
| kept | 6 | 0..8 | kept dice per face 1..5, W |
| sum | 1 | 0..40 | sum of the kept dice |
| dice_left | 1 | 0..8 | dice not kept yet |
| phase | 3 | 0..1 | one-hot: keeping a face / may roll or stop / must claim |
| take_tile | 1 | 0..36 | the tile ``take`` would take (0: none) |
| can_steal | 1 | 0..1 | ``steal`` is available |

Rewards
-------
Zero-sum at the end by default (see :mod:`tablezoo.envs.aec`); ``score``
rewards are the worms of each stack as they change (claims, steals, busts).

Options
-------
``quick`` (site option): after a bust with a returned tile, the highest grill
tile is always turned face-down, even when it is the tile just returned.

Version history
---------------
v0: first release.
"""

from __future__ import annotations

import bisect
import functools
from collections.abc import Sequence
from dataclasses import dataclass, field
from operator import attrgetter, iadd
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
    as_numbers,
    flat_numbers,
    require,
    require_list,
    require_range,
    require_text,
)
from tablezoo.games.dice import DiceFaces, roll_counts, roll_distribution

TILES = tuple(range(21, 37))
DICE = 8
FACES = ("1", "2", "3", "4", "5", "W")
WORM = 5  # index of the worm face
FACE_VALUE = (1, 2, 3, 4, 5, 5)

KEEP = tuple(range(6))  # actions 0..5: keep face i
ROLL, TAKE, STEAL = 6, 7, 8

# Phases of a turn.
ROLLING = "roll"  # a roll is due (chance)
KEEPING = "keep"  # the player keeps one face of the roll
DECIDING = "decide"  # roll again or stop with a claim
CLAIMING = "claim"  # no dice or faces left: the turn ends with a claim
OVER = "over"
PHASES = (KEEPING, DECIDING, CLAIMING)
_PHASE_INDEX = {phase: i for i, phase in enumerate(PHASES)}
_PHASE_BYTE = {ROLLING: 1, KEEPING: 2, DECIDING: 3, CLAIMING: 4, OVER: 0}
"""Two more than the index of each phase in the ``phase`` field (1: a roll is due, 0: over):
``observe_batch`` reads them as bytes."""
_TILE_ARRAY = np.array(TILES)
# what Heckmeck.observe_batch reads of each state, one column at a time
_GRILL, _STACKS, _TURN, _PHASE = (attrgetter(name) for name in ("grill", "stacks", "turn", "phase"))
_ROLL, _KEPT, _TOTAL, _LEFT = (attrgetter(name) for name in ("roll", "kept", "total", "left"))


def worms(tile: int) -> int:
    """Worms on a tile: 21-24 one, 25-28 two, 29-32 three, 33-36 four."""
    return (tile - 17) // 4


@dataclass
class HeckmeckState:
    """Everything about a Heckmeck game; all of it is public."""

    grill: list[int] = field(default_factory=lambda: list(TILES))  # face-up, ascending
    dead: list[int] = field(default_factory=list)  # turned face-down, out of the game
    stacks: list[list[int]] = field(default_factory=list)  # bottom .. top, per seat
    turn: int = 0  # the seat whose turn it is
    phase: str = ROLLING
    roll: list[int] = field(default_factory=lambda: [0] * 6)  # current roll, per face
    kept: list[int] = field(default_factory=lambda: [0] * 6)  # kept dice, per face
    total: int = 0  # sum of the kept dice
    left: int = DICE  # dice not kept yet
    last: str = ""  # how the previous turn ended, for people


DICE_FACES = DiceFaces(FACES, "face", "4 4 5 W")
parse_dice = DICE_FACES.parse
dice_text = DICE_FACES.text


class Heckmeck(Game[HeckmeckState]):
    """Heckmeck am Bratwurmeck for 2-7 seats; option ``quick``."""

    info = GameInfo(
        name="heckmeck",
        title="Heckmeck",
        version=0,
        min_seats=2,
        max_seats=7,
        default_seats=2,
        options=(
            Option(
                "quick",
                False,
                "after a bust, always turn the highest grill tile face-down, "
                "even the tile just returned (shorter games)",
            ),
        ),
        hidden_information=False,
        chance=True,
    )
    state_type = HeckmeckState

    def _configure(self) -> None:
        self.action_names = (
            *(f"keep {f}" for f in FACES[:5]),
            "keep worm",
            "roll",
            "take",
            "steal",
        )
        self.observation_spec = ObservationSpec(observation_fields(self.num_seats))
        self._quick = self.options["quick"]
        off = self.observation_spec.offsets
        self._o = {name: off[name] for name in off}
        self._table_memo: _TableMemo | None = None
        self._o_to_move, self._o_roll, self._o_phase = off["to_move"], off["roll"], off["phase"]

    def _add_aliases(self) -> None:
        self._alias("keep w", WORM)
        self._alias("w", WORM)
        self._alias("worm", WORM)
        for f in range(5):
            self._alias(FACES[f], f)
        self._alias("r", ROLL)
        self._alias("claim", TAKE)

    # ------------------------------------------------------------ state machine

    def initial_state(self) -> HeckmeckState:
        return HeckmeckState(stacks=[[] for _ in range(self.num_seats)])

    def chance_context(self, state: HeckmeckState) -> int:
        """The seat whose turn it is: its rolls are its turn's chance."""
        return state.turn

    def to_move(self, state: HeckmeckState) -> int:
        phase = state.phase
        if phase == ROLLING:
            return CHANCE
        if phase == OVER:
            return TERMINAL
        return state.turn

    def claims(self, state: HeckmeckState) -> tuple[int, int]:
        """``(grill tile, seat to steal from)`` the kept dice allow now; 0 / -1 for none."""
        if not state.kept[WORM]:
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

    def legal_actions(self, state: HeckmeckState) -> list[int]:
        phase = state.phase
        if phase == KEEPING:
            roll, kept = state.roll, state.kept
            return [f for f in KEEP if roll[f] and not kept[f]]
        if phase in (DECIDING, CLAIMING):
            tile, victim = self.claims(state)
            actions = [ROLL] if phase == DECIDING else []
            if tile:
                actions.append(TAKE)
            if victim >= 0:
                actions.append(STEAL)
            return actions
        return []

    def _apply(self, state: HeckmeckState, action: int) -> None:
        if action < ROLL:  # keep a face
            n = state.roll[action]
            state.kept[action] = n
            state.total += n * FACE_VALUE[action]
            state.left -= n
            state.roll = [0] * 6
            if state.left and 0 in state.kept:
                state.phase = DECIDING
                return
            tile, victim = self.claims(state)
            if tile or victim >= 0:
                state.phase = CLAIMING
            else:
                self._bust(state, "no claim with all dice or faces kept")
        elif action == ROLL:
            state.phase = ROLLING
        else:
            tile, victim = self.claims(state)
            me = state.stacks[state.turn]
            if action == TAKE:
                state.grill.remove(tile)
                me.append(tile)
                self._end_turn(state, f"seat {state.turn} took {tile} with {state.total}")
            else:
                tile = state.stacks[victim].pop()
                me.append(tile)
                self._end_turn(state, f"seat {state.turn} stole {tile} from seat {victim}")

    def _bust(self, state: HeckmeckState, why: str) -> None:
        stack = state.stacks[state.turn]
        note = f"seat {state.turn} busted ({why})"
        if stack:
            tile = stack.pop()
            bisect.insort(state.grill, tile)
            note += f", returned {tile}"
            highest = state.grill[-1]
            if self._quick or highest != tile:
                state.dead.append(state.grill.pop())
                note += f", turned {highest} face-down"
        self._end_turn(state, note)

    def _end_turn(self, state: HeckmeckState, note: str) -> None:
        state.last = note
        state.roll = [0] * 6
        state.kept = [0] * 6
        state.total = 0
        state.left = DICE
        if state.grill:
            state.turn = (state.turn + 1) % self.num_seats
            state.phase = ROLLING
        else:
            state.phase = OVER

    # ------------------------------------------------------------ chance

    def sample_chance(self, state: HeckmeckState, rng: np.random.Generator) -> list[int]:
        return roll_counts(rng, state.left)

    def chance_outcomes(self, state: HeckmeckState) -> list[tuple[Any, float]]:
        return [(list(c), p) for c, p in roll_distribution(state.left)]

    def check_outcome(self, state: HeckmeckState, outcome: Any) -> list[int]:
        return DICE_FACES.check_roll(outcome, state.left)

    def _apply_chance(self, state: HeckmeckState, outcome: list[int]) -> None:
        state.roll = list(outcome)
        kept = state.kept
        for f in KEEP:
            if outcome[f] and not kept[f]:
                state.phase = KEEPING
                return
        self._bust(state, f"rolled {dice_text(outcome)}, no new face")

    def describe_outcome(self, state: HeckmeckState, outcome: Any) -> str:
        return f"seat {state.turn} rolled {dice_text(outcome)}"

    # ------------------------------------------------------------ states from outside

    def validate(self, state: HeckmeckState) -> None:
        """Refuse a state no game reaches (:class:`~tablezoo.games.core.StateError` naming it),
        as the native core's ``Heckmeck::validate`` does, check for check."""
        n = self.num_seats
        # Every tile 21..36 exactly once: in the grill, face-down or in a stack; the grill ascending.
        seen: set[int] = set()

        def count(tile: Any, name: str) -> None:
            require_range(tile, 21, 36, name)
            require(tile not in seen, f"tile {tile} is in the state twice")
            seen.add(tile)

        grill = require_list(state.grill, "grill")
        for t in grill:
            count(t, "a grill tile")
        require(grill == sorted(grill), "the grill is not ascending")
        for t in require_list(state.dead, "dead"):
            count(t, "a face-down tile")
        stacks = require_list(state.stacks, "stacks")
        require(len(stacks) == n, f"stacks has {len(stacks)} entries, not {n}")
        for i, stack in enumerate(stacks):
            for t in require_list(stack, f"stacks[{i}]"):
                count(t, "a stack tile")
        for t in TILES:
            require(t in seen, f"tile {t} is nowhere: not in the grill, face-down or in a stack")
        require_range(state.turn, 0, n - 1, "turn")
        phase = state.phase
        require(
            phase in _PHASE_BYTE,
            f"phase should be one of {', '.join(map(repr, _PHASE_BYTE))}, not {phase!r}",
        )
        require_text(state.last, "last", 120)
        # The dice: 8 in all, kept or left; the roll is the dice left, rolled; the sum is the kept dice's.
        roll = require_list(state.roll, "roll", 6)
        kept = require_list(state.kept, "kept", 6)
        for f in KEEP:
            require_range(roll[f], 0, DICE, "a roll count")
            require_range(kept[f], 0, DICE, "a kept count")
        left = require_range(state.left, 0, DICE, "left")
        require(sum(kept) + left == DICE, "kept dice and dice left do not add up to 8")
        total = require_range(state.total, 0, 5 * DICE, "total")
        dice_sum = sum(k * v for k, v in zip(kept, FACE_VALUE, strict=True))
        require(total == dice_sum, f"total: the kept dice do not add up to {total} but to {dice_sum}")
        rolled = sum(roll)
        if phase == KEEPING:
            require(rolled == left, f"roll has {rolled} dice, but {left} are left to roll")
        else:
            require(rolled == 0, "roll holds dice outside the phase 'keep'")
        face_free = 0 in kept
        # What each phase relies on: a roll is due only with dice left and a face free to keep, a
        # seat to move has a legal move, and a turn starts afresh.
        if phase in (ROLLING, DECIDING):
            require(left > 0 and face_free, f"phase {phase!r} needs dice left and a face not kept yet")
        if phase == KEEPING:
            new_face = any(roll[f] and not kept[f] for f in KEEP)
            require(new_face, "phase 'keep': no face of the roll is free to keep")
        if phase == CLAIMING:
            tile, victim = self.claims(state)
            require(bool(tile) or victim >= 0, "phase 'claim': the kept dice claim no tile")
        if phase == OVER:
            require(left == DICE, "the game is over with dice kept")
        require(phase != OVER or not grill, "the game is over with tiles on the grill")
        require(phase == OVER or bool(grill), "the grill is empty but the game is not over")

    # ------------------------------------------------------------ results

    def scores(self, state: HeckmeckState) -> list[float]:
        return [sum(worms(t) for t in stack) for stack in state.stacks]

    def winners(self, state: HeckmeckState) -> list[int]:
        # Most worms, then the highest tile; a seat without tiles ranks (0, 0).
        ranks = [(sum(worms(t) for t in s), max(s, default=0)) for s in state.stacks]
        best = max(ranks)
        return [seat for seat, r in enumerate(ranks) if r == best]

    # ------------------------------------------------------------ what seats see

    def _table(self, state: HeckmeckState) -> _TableMemo:
        """The digest of ``state``'s grill and stacks, kept until a turn ends (they change
        only then): the observers' table blocks and the claims met so far."""
        memo = self._table_memo
        if memo is None or state.grill != memo.grill or state.stacks != memo.stacks:
            memo = self._table_memo = _TableMemo(state)
        return memo

    def _block(self, memo: _TableMemo, state: HeckmeckState, seat: int, key: int) -> bytes:
        """``seat``'s observation of the grill, the stacks and whose turn it is (the rest
        zero), as bytes, kept in ``memo`` under ``key`` (the observer and the turn)."""
        n, o = self.num_seats, self._o
        buf = self.observation_spec.buffer()
        for t in state.grill:
            buf[t - 21] = 1
        top, wo, ti = o["top"], o["worms"], o["tiles"]
        for k in range(n):
            stack = state.stacks[(seat + k) % n]
            if stack:
                buf[top + 16 * k + stack[-1] - 21] = 1
                buf[wo + k] = sum([(t - 17) // 4 for t in stack])
                buf[ti + k] = len(stack)
        if state.phase != OVER:
            buf[self._o_to_move + (state.turn - seat) % n] = 1
        block = memo.blocks[key] = bytes(buf)
        return block

    def _claim_bytes(self, memo: _TableMemo, state: HeckmeckState, key: int) -> bytes:
        """The ``take_tile`` and ``can_steal`` fields of :meth:`claims`, kept in ``memo``
        under ``key`` (the sum and the turn)."""
        tile, victim = self.claims(state)
        claim = memo.claims[key] = bytes((tile, victim >= 0))
        return claim

    def observe(self, state: HeckmeckState, seat: int) -> np.ndarray:
        memo = self._table(state)
        phase, turn = state.phase, state.turn
        key = 8 * seat + (turn if phase != OVER else 7)  # seats 0..6: 7 marks the end
        block = memo.blocks.get(key)
        obs = bytearray(block if block is not None else self._block(memo, state, seat, key))
        at = self._o_roll  # roll, kept, sum and dice_left are consecutive
        obs[at : at + 14] = [*state.roll, *state.kept, state.total, state.left]
        index = _PHASE_INDEX.get(phase)
        if index is not None:
            at = self._o_phase  # phase, take_tile and can_steal are consecutive
            obs[at + index] = 1
            if state.kept[WORM]:  # a claim needs a kept worm
                key = 8 * state.total + turn
                claim = memo.claims.get(key)
                obs[at + 3 : at + 5] = claim if claim is not None else self._claim_bytes(memo, state, key)
        return np.frombuffer(obs, BYTE).astype(FLOAT32)

    def observe_batch(self, states: Sequence[HeckmeckState], seats: Sequence[int]) -> np.ndarray:
        """Many observations at once, built with numpy across the batch (row ``i`` is ``observe``'s).

        The states are read column by column (:func:`~tablezoo.games.core.flat_numbers`:
        every state's list of one kind joined, then read as bytes), so that no Python
        line runs once per state; the claims are worked out for all states together.
        """
        seat = self._check_batch(states, seats)
        n, count, size = self.num_seats, len(states), self.observation_spec.size
        out = np.zeros((count, size), np.float32)
        if not count:
            return out
        o = self._o
        rows = np.arange(count)
        # the grill field: tile t of state i is out[i, grill + t - 21]
        grills = list(map(_GRILL, states))
        tiles = flat_numbers(grills)
        out[np.repeat(rows, as_numbers(list(map(len, grills)))), o["grill"] + tiles - TILES[0]] = 1
        # every stack's top tile, worms and tile count (seat by seat), then as the observer sees them
        every: list[list[int]] = functools.reduce(iadd, map(_STACKS, states), [])
        sizes = as_numbers(list(map(len, every)))
        ends = np.cumsum(sizes)
        taken = flat_numbers(every)
        worms_so_far = np.concatenate([[0], np.cumsum((taken - 17) // 4)])
        facts = np.zeros((3, count * n), np.int64)  # top tile (0: none), worms, tiles
        held = sizes > 0
        facts[0, held] = taken[ends[held] - 1]
        facts[1] = worms_so_far[ends] - worms_so_far[ends - sizes]
        facts[2] = sizes
        by_seat = facts.reshape(3, count, n)
        others = (seat[:, None] + np.arange(n)) % n
        top, worms, tiles_held = np.take_along_axis(by_seat, others[None], axis=2)
        has = np.nonzero(top)
        out[has[0], o["top"] + 16 * has[1] + top[has] - TILES[0]] = 1
        out[:, o["worms"] : o["worms"] + 2 * n] = np.concatenate([worms, tiles_held], axis=1)  # worms, tiles
        index = as_numbers(list(map(_PHASE_BYTE.__getitem__, map(_PHASE, states)))) - 2
        turn_at = as_numbers(list(map(_TURN, states)))
        playing = np.flatnonzero(index > -2)
        out[playing, self._o_to_move + (turn_at - seat)[playing] % n] = 1
        # roll, kept, sum and dice_left are consecutive
        at = self._o_roll
        out[:, at : at + 6] = flat_numbers(map(_ROLL, states)).reshape(count, 6)
        kept = flat_numbers(map(_KEPT, states)).reshape(count, 6)
        out[:, at + 6 : at + 12] = kept
        total = as_numbers(list(map(_TOTAL, states)))
        out[:, at + 12] = total
        out[:, at + 13] = as_numbers(list(map(_LEFT, states)))
        at = self._o_phase  # phase, take_tile and can_steal are consecutive
        deciding = np.flatnonzero(index >= 0)
        out[deciding, at + index[deciding]] = 1
        # the claims (Heckmeck.claims) need a kept worm: the highest face-up tile up to the
        # sum, and a steal when another seat's top tile is the sum
        claiming = deciding[kept[deciding, WORM] > 0]
        total = total[claiming, None]
        face_up = out[claiming, o["grill"] : o["grill"] + 16] > 0
        out[claiming, at + 3] = np.where(face_up & (total >= _TILE_ARRAY), _TILE_ARRAY, 0).max(axis=1)
        victim = (by_seat[0, claiming] == total) & (np.arange(n) != turn_at[claiming, None])
        out[claiming, at + 4] = victim.any(axis=1)
        return out

    def view(self, state: HeckmeckState, seat: int | None) -> dict[str, Any]:
        tile, victim = self.claims(state) if state.phase in PHASES else (0, -1)
        return {
            **self.view_base(state, seat),
            "turn": state.turn,
            "phase": state.phase,
            "grill": list(state.grill),
            "face_down": sorted(state.dead),
            "stacks": [list(s) for s in state.stacks],
            "roll": dice_text(state.roll).split(),
            "kept": dice_text(state.kept).split(),
            "sum": state.total,
            "dice_left": state.left,
            "take_tile": tile or None,
            "steal_from": victim if victim >= 0 else None,
            "last": state.last,
        }

    def render(self, state: HeckmeckState, seat: int | None = None) -> str:
        lines = []
        header = "Heckmeck" + (" (quick)" if self._quick else "")
        if state.phase == OVER:
            lines.append(f"{header}: game over")
        else:
            lines.append(f"{header}: seat {state.turn} to play")
        # Face-up tiles show their number and worms, face-down ones ##, taken ones --.
        grill_top, grill_worms = [], []
        for t in TILES:
            up = t in state.grill
            grill_top.append(f"{t if up else '##' if t in state.dead else '--':>5}")
            grill_worms.append(f"{'~' * worms(t) if up else '':>5}")
        lines.append("grill" + "".join(grill_top))
        lines.append("     " + "".join(grill_worms))
        for s, stack in enumerate(state.stacks):
            marker = ">" if s == state.turn and state.phase != OVER else " "
            mine = " (you)" if s == seat else ""
            top = f"top {stack[-1]:>2}" if stack else "top  -"
            w = sum(worms(t) for t in stack)
            lines.append(f"{marker} seat {s}{mine}: {top}  tiles {len(stack):>2}  worms {w:>2}")
        if state.phase in PHASES:
            lines.append(
                f"roll [{dice_text(state.roll)}]  kept [{dice_text(state.kept)}]  "
                f"sum {state.total}  dice left {state.left}"
            )
            legal = ", ".join(self.action_names[a] for a in self.legal_actions(state))
            lines.append(f"moves: {legal}")
        if state.last:
            lines.append(f"last: {state.last}")
        if state.phase == OVER:
            lines.append("winner(s): " + ", ".join(f"seat {s}" for s in self.winners(state)))
        return "\n".join(line.rstrip() for line in lines)


class _TableMemo:
    """What :meth:`Heckmeck.observe` keeps of one grill and stacks: copies of them (to tell
    whether a state still has them), each observer's table block per turn, and the claims
    (``take_tile``, ``can_steal``) per sum and turn."""

    __slots__ = ("blocks", "claims", "grill", "stacks")

    def __init__(self, state: HeckmeckState) -> None:
        self.grill = state.grill.copy()
        self.stacks = [stack.copy() for stack in state.stacks]
        self.blocks: dict[int, bytes] = {}
        self.claims: dict[int, bytes] = {}


def observation_fields(num_seats: int) -> tuple[Field, ...]:
    """The observation table of Heckmeck for ``num_seats`` seats."""
    n = num_seats
    return (
        Field("grill", 16, 0, 1, "tile 21+i is face-up on the grill"),
        Field("top", 16 * n, 0, 1, "one-hot top tile of each seat's stack, observer first"),
        Field("worms", n, 0, 40, "worms in each seat's stack"),
        Field("tiles", n, 0, 16, "tiles in each seat's stack"),
        Field("to_move", n, 0, 1, "one-hot: whose turn it is"),
        Field("roll", 6, 0, DICE, "dice of the current roll showing 1..5, W"),
        Field("kept", 6, 0, DICE, "kept dice per face 1..5, W"),
        Field("sum", 1, 0, 40, "sum of the kept dice"),
        Field("dice_left", 1, 0, DICE, "dice not kept yet"),
        Field("phase", 3, 0, 1, "one-hot: keeping a face / may roll or stop / must claim"),
        Field("take_tile", 1, 0, 36, "the tile 'take' would take (0: none)"),
        Field("can_steal", 1, 0, 1, "'steal' is available"),
    )
