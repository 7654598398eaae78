"""The native core's bots: a deterministic bot makes its Python twin's move on every position
(To Court the King's, whose stopping rollouts draw dice, with its rollouts off; with them on,
it is the same player over a thousand games), a bot's native port (Heckmeck's solver) gives
every legal move its Python twin's value, and no port's move depends on what its seat cannot see."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest

from tablezoo.bots.core import Seat
from tablezoo.bots.court import CourtGreedyBot
from tablezoo.bots.heckmeck import HeckmeckMarginBot, HeckmeckSolverBot
from tablezoo.bots.native import NativePortBot
from tablezoo.bots.registry import make_bot
from tablezoo.games import GAMES, game_class, make
from tablezoo.games.core import ConfigError, StateError
from tablezoo.games.court import ROLL
from tablezoo.games.native import available

pytestmark = pytest.mark.skipif(not available(), reason="the native core is not built")

DETERMINISTIC = ("heckmeck", "diamant", "sechs_nimmt")
"""Games whose heuristic bot draws no random numbers (To Court the King's plays rollouts)."""


@pytest.fixture(scope="module", autouse=True)
def core() -> str:
    """This module compares the cores itself (it overrides the folder's both-cores fixture)."""
    return "both"


@pytest.mark.parametrize("name", [n for n in GAMES if n in DETERMINISTIC])
def test_the_native_heuristic_makes_the_python_heuristics_moves(name: str) -> None:
    """At the fewest, the usual and the most seats, with no option and with each option on."""
    from tablezoo.games import _native  # type: ignore[attr-defined]

    info = game_class(name).info
    for seats in sorted({info.min_seats, info.default_seats, info.max_seats}):
        for options in [{}, *({option.name: True} for option in info.options)]:
            game = make(name, seats, core="native", **options)
            if not game._native.has_heuristic:
                pytest.skip(f"{info.title} has no native heuristic bot yet")
            bot = make_bot("heuristic", game)
            rng, stream = np.random.default_rng(seats), _native.Rng(seats)
            positions = 0
            for _ in range(8):
                state = game.initial_state()
                while game.advance(state, rng) >= 0:
                    mover = game.to_move(state)
                    assert game._native.heuristic(state, stream) == bot.act(Seat.of(game, state, mover)), (
                        seats,
                        options,
                        game.to_json(state),
                    )
                    positions += 1
                    game.apply(state, int(rng.choice(game.legal_actions(state))))
            assert positions > 50, (seats, options)


CHEAP = {"search": "search:samples=2", "montecarlo": "montecarlo:samples=2", "agent": "agent:search=4"}
"""Settings that keep a searching bot's moves cheap enough for a test."""


@pytest.mark.parametrize("name", list(GAMES))
def test_every_bot_plays_the_same_moves_on_both_cores(name: str) -> None:
    """The Python bots read a native state through its fields and play it through the
    contract: seeded alike, every bot makes the same moves on either core."""
    from tablezoo.bots.registry import bot_names

    py, nat = make(name, core="python"), make(name, core="native")
    for bot_name in bot_names(py):
        spec = CHEAP.get(bot_name, bot_name)
        # the Python bots on both (a native port is compared with its twin below)
        bots = {core: [make_bot(spec, py) for _ in range(py.num_seats)] for core in ("py", "nat")}
        for k in range(py.num_seats):
            bots["py"][k].reset(seed=k)
            bots["nat"][k].reset(seed=k)
        r1, r2 = np.random.default_rng(3), np.random.default_rng(3)
        a, b = py.initial_state(), nat.initial_state()
        for _ in range(12):
            mover = py.advance(a, r1)
            assert nat.advance(b, r2) == mover
            if mover < 0:
                break
            x = int(bots["py"][mover].act(Seat.of(py, a, mover)))
            y = int(bots["nat"][mover].act(Seat.of(nat, b, mover)))
            assert x == y, f"{bot_name}: {x} on the Python core, {y} on the native core at {py.to_json(a)}"
            py.apply(a, x)
            nat.apply(b, y)


def _court_without_rollouts(seats: int) -> Any:
    """The native To Court the King whose heuristic bot plays as CourtGreedyBot(samples=0):
    the option heuristic_rollouts (no rule, the core's knob for these tests) turns them off."""
    from tablezoo.games import _native  # type: ignore[attr-defined]

    return _native.Court(seats, {"heuristic_rollouts": False})


@pytest.mark.parametrize("seats", [2, 3, 5])
def test_the_native_court_heuristic_without_rollouts_makes_the_python_heuristics_moves(seats: int) -> None:
    """Where no rollout decides (samples=0), the native bot makes CourtGreedyBot's move on every
    position: positions of random games and of games the bot plays (its stops, the King, the
    final round), each bot fresh at each."""
    from tablezoo.games import _native  # type: ignore[attr-defined]

    game = make("court", seats, core="native")
    native = _court_without_rollouts(seats)
    bot = CourtGreedyBot(samples=0)
    rng, stream = np.random.default_rng(seats), _native.Rng(seats)
    positions = finals = stops = 0
    for p_bot in (0.0, 0.5, 0.9):
        state = game.initial_state()
        while game.advance(state, rng) >= 0:
            bot.reset()
            move = bot.act(Seat.of(game, state, game.to_move(state)))
            fresh = native.state_from_fields(state.to_fields())
            assert native.heuristic(fresh, stream) == move, game.to_json(state)
            positions += 1
            finals += state.final
            stops += move < ROLL and bool(bot._plan)  # more asides to come: only a stop plans them
            game.apply(state, move if rng.random() < p_bot else int(rng.choice(game.legal_actions(state))))
    assert positions > 4000 and finals > 50 and stops > 50


@pytest.mark.parametrize("seats", [2, 3, 5])
def test_the_native_court_heuristic_keeps_its_plans_as_the_python_heuristic_does(seats: int) -> None:
    """The bots of a batch keep their plans across the steps of a decision and forget them at a
    new episode: with the same dice, the native bots (samples=0) at seats 1.. play the games
    CourtGreedyBot(samples=0) plays there, the learner at seat 0 playing as one too."""
    from tablezoo.games import _native  # type: ignore[attr-defined]

    game = make("court", seats, core="native")
    seed = 10 + seats
    batch = _native.CourtBatch(
        game=_court_without_rollouts(seats),
        num_envs=1,
        seed=seed,
        num_threads=1,
        padded=False,
        score_reward=False,
        max_cycles=0,
        learner=0,
        bots=[0] + [1] * (seats - 1),  # the native heuristic at every other seat
        forfeit=False,
        illegal_reward=-1.0,
    )
    dice = _native.Rng(_native.game_seed(seed, 0))  # game 0's stream in the batch
    choose = np.random.default_rng(seed)
    learner = CourtGreedyBot(samples=0)
    bots = {seat: CourtGreedyBot(samples=0) for seat in range(1, seats)}

    def bots_play(state: Any) -> Any:
        while (mover := game.to_move(state)) > 0:
            game.apply(state, bots[mover].act(Seat.of(game, state, mover)))
            game.advance(state, dice)
        return state

    def new_episode() -> Any:
        state = game.initial_state()
        for bot in bots.values():
            bot.reset()
        game.advance(state, dice)
        return bots_play(state)

    batch.reset()
    state = new_episode()
    episodes = 1
    for _ in range(1500):
        assert batch.state(0).to_fields() == state.to_fields()
        move = learner.act(Seat.of(game, state, 0))
        if choose.random() < 0.1:
            move = int(choose.choice(game.legal_actions(state)))
        batch.step(np.array([move]))
        game.apply(state, move)
        game.advance(state, dice)
        if game.to_move(bots_play(state)) < 0:
            learner.reset()
            state = new_episode()
            episodes += 1
    assert episodes > 5


SOLVERS = {"solver": HeckmeckSolverBot, "margin": HeckmeckMarginBot}
"""Heckmeck's turn solvers by name: the worms' and the margin's."""


@pytest.mark.parametrize("name", list(SOLVERS))
@pytest.mark.parametrize("quick", [False, True])
@pytest.mark.parametrize("seats", range(2, 8))
def test_the_native_solver_makes_the_python_solvers_moves_and_values(
    seats: int, quick: bool, name: str
) -> None:
    """On the positions of seeded games (the solver's moves mixed with random ones, so that
    every kind of decision comes up), the native solver makes the Python solver's move and
    values each legal move as it does, to 1e-9 (the margin solver too)."""
    game = make("heckmeck", seats, core="native", quick=quick)
    bot = copy.deepcopy(make_bot(name, game))  # as a vector env copies its opponents
    assert isinstance(bot, NativePortBot) and isinstance(bot, SOLVERS[name]) and bot.name == name
    reference = SOLVERS[name]()
    rng = np.random.default_rng(seats + 10 * quick)
    moves: set[int] = set()
    for _ in range(2):
        bot.reset()
        reference.reset()
        state = game.initial_state()
        while game.advance(state, rng) >= 0:
            seat = Seat.of(game, state, game.to_move(state))
            move = bot.act(seat)
            assert move == reference.act(seat), game.to_json(state)
            values = bot.action_values(seat)
            assert len(values) == len(seat.legal)
            np.testing.assert_allclose(values, reference.action_values(seat), rtol=0, atol=1e-9)
            moves.add(move)
            game.apply(state, move if rng.random() < 0.7 else int(rng.choice(seat.legal)))
    assert moves >= {0, 1, 2, 3, 4, 5, 6, 7}, moves  # every face kept, rolls on, takes


@pytest.mark.parametrize("name", list(SOLVERS))
def test_the_native_solver_steals_as_the_python_solver_does(name: str) -> None:
    """A steal (and the choice between a steal and a take) on positions made for it."""
    game = make("heckmeck", 3, core="native")
    bot, reference = make_bot(name, game), SOLVERS[name]()
    fields = game.initial_state().to_fields()
    fields["grill"] = [t for t in fields["grill"] if t not in (25, 26, 30)]
    fields["stacks"] = [[25], [30], [26]]
    for total, kept, phase in ((30, [0, 0, 0, 0, 2, 4], "decide"), (26, [3, 0, 1, 0, 0, 4], "claim")):
        fields.update(turn=0, phase=phase, kept=kept, total=total, left=8 - sum(kept))
        state = game._native.state_from_fields(fields)
        seat = Seat.of(game, state, 0)
        assert bot.act(seat) == reference.act(seat)
        np.testing.assert_allclose(bot.action_values(seat), reference.action_values(seat), rtol=0, atol=1e-9)
    assert bot.act(seat) == 8  # STEAL: 26 from seat 2 (2 worms) rather than 24 from the grill (1)


def test_the_native_solver_refuses_what_is_not_its_decision() -> None:
    """A state of the Python core or of another configuration, no seat to move, a turn whose dice
    do not add up, a port of no bot: each a Python error that says so."""
    game = make("heckmeck", 3, core="native")
    port = game.native_port("solver")
    state = game.initial_state()
    with pytest.raises(ValueError, match="chance outcome is due"):
        port.act(state)
    with pytest.raises(TypeError, match="not a native state"):
        port.act(make("heckmeck", 3, core="python").initial_state())
    with pytest.raises(TypeError, match="not a native state"):
        port.action_values(None)
    game.advance(state, np.random.default_rng(0))
    with pytest.raises(ValueError, match="another configuration"):
        make("heckmeck", 4, core="native").native_port("solver").act(state)
    bad = {**state.to_fields(), "total": 40}
    with pytest.raises(StateError, match="do not add up"):
        port.act(game._native.state_from_fields(bad))
    over = game.initial_state()
    rng = np.random.default_rng(1)
    while game.advance(over, rng) >= 0:
        game.apply(over, int(rng.choice(game.legal_actions(over))))
    with pytest.raises(ValueError, match="the game is over"):
        port.action_values(over)
    ports = "ports: heuristic, solver, margin"
    with pytest.raises(ConfigError, match=f"no port of Heckmeck's bot 'montecarlo'; {ports}"):
        game.native_port("montecarlo")
    with pytest.raises(TypeError, match="native"):
        type(port)(object())


@pytest.mark.parametrize("name", DETERMINISTIC)
def test_make_bot_seats_the_native_heuristic_which_makes_the_python_heuristics_moves(name: str) -> None:
    """On a native game ``make_bot("heuristic")`` is the port (and a twin of the Python bot's
    class); with settings it is the Python bot. Along seeded games, the port makes the Python
    bot's move at every decision."""
    game = make(name, core="native")
    bot = make_bot("heuristic", game)
    reference = type(make_bot("heuristic", make(name, core="python")))()
    assert isinstance(bot, NativePortBot) and isinstance(bot, type(reference)) and bot.name == "heuristic"
    assert not hasattr(bot, "action_values")  # a heuristic gives no values to learn from
    rng = np.random.default_rng(7)
    decisions = 0
    for _ in range(5):
        bot.reset()
        reference.reset()
        state = game.initial_state()
        while game.advance(state, rng) >= 0:
            seat = Seat.of(game, state, game.to_move(state))
            move = bot.act(seat)
            assert move == reference.act(seat), game.to_json(state)
            decisions += 1
            game.apply(state, move if rng.random() < 0.7 else int(rng.choice(seat.legal)))
    assert decisions > 50


def test_the_court_heuristics_port_is_the_same_player_as_its_twin() -> None:
    """To Court the King's heuristic draws the dice of its stopping rollouts from the core's
    generator, so its moves differ from CourtGreedyBot's in the draws: over 1,000 two-seat
    games against its twin (seats rotated, seeded), its win share's 95% interval holds 0.5.
    Settings (``heuristic:samples=8``) seat the Python bot."""
    from tablezoo.evaluation.tournament import tournament

    game = make("court", 2, core="native")
    assert not isinstance(make_bot("heuristic:samples=8", game), NativePortBot)
    lineup = [("port", lambda: make_bot("heuristic", game)), ("python", CourtGreedyBot)]
    port, python = tournament(game, lineup, games=1000, seed=2026)
    assert port.games == python.games == 1000
    low, high = port.interval()
    assert low < 0.5 < high, (port.win_rate, port.interval)


@pytest.mark.parametrize("name", [n for n in GAMES if game_class(n).info.hidden_information])
def test_no_port_reads_what_its_seat_cannot_see(name: str) -> None:
    """A port is handed the whole state. Seeded alike, it makes the same move on the true state
    and on states in which everything its seat cannot see was drawn anew (determinize)."""
    game = make(name, 4, core="native")
    rng = np.random.default_rng(11)
    for port_name in game.native_ports:
        decisions = 0
        state = game.initial_state()
        while game.advance(state, rng) >= 0 and decisions < 60:
            mover = game.to_move(state)
            moves = set()
            for sample in [state, *(game.determinize(state, mover, rng) for _ in range(3))]:
                bot = make_bot(port_name, game)
                bot.reset(seed=5)
                moves.add(bot.act(Seat.of(game, sample, mover)))
            assert len(moves) == 1, (port_name, game.to_json(state))
            decisions += 1
            game.apply(state, int(rng.choice(game.legal_actions(state))))
        assert decisions > 20, port_name
