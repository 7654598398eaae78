"""The Heckmeck single-turn solver: exact values on small cases, legal play, strength."""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

from tablezoo.bots.core import RandomBot, Seat
from tablezoo.bots.heckmeck import HeckmeckMarginBot, HeckmeckSolverBot, TurnSolver
from tablezoo.games import make
from tablezoo.games.core import TERMINAL
from tablezoo.games.heckmeck import STEAL, TAKE, HeckmeckState

GRILL = list(range(21, 37))


def test_claims_follow_the_rules() -> None:
    solver = TurnSolver(grill=[22, 25, 30], own_stack=[28], opponent_tops=[26])
    assert solver.bust_value == -2
    assert solver.claim[21] is None  # nothing on the grill at or below 21
    assert solver.claim[24] == 1  # the 22
    assert solver.claim[26] == 2  # steal the 26 (2 worms) or take the 25 (2)
    assert solver.claim[40] == 3  # the 30
    worm_kept = 1 << 5
    assert solver.claim_value(0, 30) is None  # no worm kept: no claim
    assert solver.claim_value(worm_kept, 30) == 3


def test_the_margin_counts_a_steal_for_what_the_victim_loses_too() -> None:
    """The margin solver's steal of ``w`` worms is worth ``w · n / (n - 1)`` (the mover's worms less
    the mean of the others'): at 2 seats it steals a 26 (2 worms, 4 to the margin) where the solver,
    counting the mover's worms alone, takes the 30 (3 worms) off the grill."""
    margin = TurnSolver(grill=[22, 25, 30], own_stack=[28], opponent_tops=[26], steal=2.0)
    assert margin.claim[26] == 4 and margin.claim[25] == 2 and margin.claim[40] == 3
    assert margin.bust_value == -2
    game = make("heckmeck", 2, core="python")
    state = game.initial_state()
    state.grill = [t for t in state.grill if t not in (26, 28)]
    state.stacks = [[28], [26]]
    state.turn, state.phase, state.kept, state.total, state.left = 0, "claim", [3, 0, 1, 0, 0, 4], 26, 0
    seat = Seat.of(game, state, 0)
    values = dict(zip(seat.legal, HeckmeckMarginBot().action_values(seat), strict=True))
    assert values[STEAL] == 4 and values[TAKE] == 2  # the 26 stolen, or the 25 taken
    assert HeckmeckMarginBot().act(seat) == STEAL
    four = make("heckmeck", 4, core="python").initial_state()
    assert HeckmeckMarginBot().steal(four) == pytest.approx(4 / 3)


def test_one_die_left_is_exact() -> None:
    # kept W, 5, 4, 3, 2 (sum 30 with 7 dice), one die left: only a 1 saves the turn
    solver = TurnSolver(grill=[31], own_stack=[21], opponent_tops=[])
    kept = 0b111110
    assert solver.before_roll(kept, 1, 30) == pytest.approx(1 / 6 * 3 + 5 / 6 * -1)
    # stopping is impossible at 30 (nothing at or below it), so the value after the keep is rolling's
    assert solver.after_keep(kept, 1, 30) == solver.before_roll(kept, 1, 30)


def test_all_worms_on_eight_dice() -> None:
    solver = TurnSolver(grill=GRILL, own_stack=[], opponent_tops=[])
    face, value = solver.best_keep(0, 8, 0, [0, 0, 0, 0, 0, 8])
    assert face == 5 and value == 4  # 40 takes the 36


def test_opening_turn_value_is_stable() -> None:
    value = TurnSolver(GRILL, [], []).before_roll(0, 8, 0)
    assert 1.0 < value < 2.5


def _play(bots: list, seed: int) -> list[int]:
    game = make("heckmeck", len(bots))
    rng = np.random.default_rng(seed)
    state: HeckmeckState = game.initial_state()
    while (mover := game.advance(state, rng)) != TERMINAL:
        game.apply(state, bots[mover].act(Seat.of(game, state, mover)))  # apply checks legality
    return game.winners(state)


def test_solver_beats_random_players() -> None:
    wins = sum(0 in _play([HeckmeckSolverBot(), RandomBot(s), RandomBot(s + 100)], s) for s in range(4))
    assert wins >= 3


def test_the_solvers_move_is_the_one_it_values_most() -> None:
    game = make("heckmeck", 3)
    rng = np.random.default_rng(4)
    bot = HeckmeckSolverBot()
    state: HeckmeckState = game.initial_state()
    checked = 0
    while (mover := game.advance(state, rng)) != TERMINAL and checked < 300:
        seat = Seat.of(game, state, mover)
        values = bot.action_values(seat)
        move = bot.act(seat)
        assert len(values) == len(seat.legal)
        assert values[seat.legal.index(move)] == pytest.approx(max(values))
        game.apply(state, move)
        checked += 1


def test_a_solver_and_its_cached_values_go_when_it_is_dropped() -> None:
    """Each board's solver keeps its own cache: a long-running table does not keep every board it saw."""
    solver = TurnSolver(list(range(21, 37)), [], [])
    value = solver.before_roll(0, 8, 0)
    ref = weakref.ref(solver)
    del solver
    gc.collect()
    assert ref() is None
    assert TurnSolver(list(range(21, 37)), [], []).before_roll(0, 8, 0) == value
