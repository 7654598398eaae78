"""The native port of Diamant's search bot (``search``) is the Python ``DiamantSearchBot``:
its simulator's pieces (the table it reads, the threshold and one-card rules, a rollout over
given cards, the score) agree with the Python ones exactly, and its futures, drawn from the
core's generator rather than numpy's, value the moves as the Python bot's do and play as
well against it."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest

from tablezoo.bots.core import Seat
from tablezoo.bots.diamant import DiamantSearchBot, Rollout, Table, one_card_camps, threshold_camps
from tablezoo.bots.native import NativePortBot
from tablezoo.bots.registry import make_bot
from tablezoo.games import game_class, make
from tablezoo.games.native import available

pytestmark = pytest.mark.skipif(not available(), reason="the native core is not built")


@pytest.fixture(scope="module", autouse=True)
def core() -> str:
    """This module compares the cores itself (it overrides the folder's both-cores fixture)."""
    return "both"


def _search() -> Any:
    from tablezoo.games import _native_testing  # type: ignore[attr-defined]

    return _native_testing.diamant_search


def _decisions(seats: int, games: int, seed: int) -> list[Any]:
    """The decisions of seeded games of random moves (native states), every one of them."""
    game = make("diamant", seats, core="native")
    rng = np.random.default_rng(seed)
    states = []
    for _ in range(games):
        state = game.initial_state()
        while game.advance(state, rng) >= 0:
            states.append(game.clone(state))
            game.apply(state, int(rng.choice(game.legal_actions(state))))
    return states


class _Scripted:
    """A random.Random that gives the doubles of a list, one per call, and counts them."""

    def __init__(self, draws: list[float]) -> None:
        self.draws = draws
        self.used = 0

    def random(self) -> float:
        self.used += 1
        return self.draws[self.used - 1]


def test_diamant_has_no_options_for_the_port_to_handle() -> None:
    """The Python bot reads no option (the game has none): a new one must come to the port too."""
    assert game_class("diamant").info.options == ()


@pytest.mark.parametrize("seats", [3, 5, 8])
def test_the_ports_table_is_the_one_every_seat_sees(seats: int) -> None:
    """The table the port reads from a state is ``Table.of_view`` of the mover's view and of
    every other seat's (nothing private is in it)."""
    game = make("diamant", seats, core="native")
    search = _search()
    states = _decisions(seats, 6, seats)
    assert len(states) > 100
    for state in states:
        table = search.table(state)
        for seat in range(seats):
            assert table == dataclasses.asdict(Table.of_view(game.view(state, seat))), game.to_json(state)


@pytest.mark.parametrize("seats", [3, 4, 6, 8])
def test_the_threshold_and_one_card_rules_are_the_python_rules(seats: int) -> None:
    """On the tables of seeded games, for every seat: the threshold rule for several thresholds
    and the one-card rule for every count of seats staying and leaving."""
    game = make("diamant", seats, core="native")
    search = _search()
    camps = {"threshold": 0, "one card": 0}
    checks = 0
    for state in _decisions(seats, 4, 20 + seats):
        table = Table.of_view(game.view(state, 0))
        for seat in range(seats):
            for haul in (0, 4, 10, 25):
                for hazards in (0, 1, 2, 3):
                    expected = threshold_camps(table, seat, haul, hazards)
                    assert search.threshold_camps(state, seat, haul, hazards) == expected
                    camps["threshold"] += expected
            for staying in range(seats + 1):
                for leaving in range(seats + 1 - staying):
                    expected = one_card_camps(table, seat, staying, leaving)
                    assert search.one_card_camps(state, seat, staying, leaving) == expected, (
                        game.to_json(state),
                        seat,
                        staying,
                        leaving,
                    )
                    camps["one card"] += expected
                    checks += 1
    assert checks > 1000 and all(camps.values()), camps  # both rules camp and go


@pytest.mark.parametrize("seats", [3, 4, 6, 8])
def test_a_rollout_over_the_same_cards_ends_as_the_python_rollout(seats: int) -> None:
    """Given the same doubles (one a card), the native rollout turns the cards the Python
    rollout turns: the same table at the end (banked gems, hazards removed) and the same
    number of cards, from positions of seeded games, for either choice of the mover and for
    other models of the others."""
    game = make("diamant", seats, core="native")
    search = _search()
    rng = np.random.default_rng(seats)
    rollouts = 0
    for state in _decisions(seats, 3, 40 + seats):
        me = game.to_move(state)
        for mine in (False, True):
            haul, hazards = 10, 2
            if rng.random() < 0.5:  # another model of the others
                haul, hazards = int(rng.integers(3, 20)), int(rng.integers(1, 4))
            draws = rng.random(200).tolist()
            end, used = search.rollout(state, me, mine, draws, haul, hazards)
            table = Table.of_view(game.view(state, me))
            scripted = _Scripted(draws)
            Rollout(me, haul, hazards).play(table, mine, scripted)  # type: ignore[arg-type]
            assert end == dataclasses.asdict(table), (game.to_json(state), mine)
            assert used == scripted.used
            rollouts += 1
    assert rollouts > 100


def test_the_score_is_the_python_score() -> None:
    """Win credit (shared in a tie) plus the weighted lead, on random and tied final tables."""
    search = _search()
    bot = DiamantSearchBot()
    rng = np.random.default_rng(0)
    for _ in range(2000):
        seats = int(rng.integers(3, 9))
        banked = rng.integers(0, 12 if rng.random() < 0.5 else 120, size=seats).tolist()
        me = int(rng.integers(seats))
        assert search.score(banked, me) == bot.score(banked, me), (banked, me)


def test_the_simulator_refuses_what_it_cannot_play() -> None:
    """A seat out of range, counts of seats that are not, draws that run out or leave [0, 1),
    gems no game banks: each a ValueError that says so."""
    search = _search()
    state = _decisions(4, 1, 0)[0]
    with pytest.raises(ValueError, match="out of range"):
        search.threshold_camps(state, 4, 10, 2)
    with pytest.raises(ValueError, match="counts of seats"):
        search.one_card_camps(state, 0, 1, -1)
    with pytest.raises(ValueError, match="ran out after 0 cards"):
        search.rollout(state, 0, False, [])
    with pytest.raises(ValueError, match=r"\[0, 1\)"):
        search.rollout(state, 0, False, [1.0])
    with pytest.raises(ValueError, match="banked gems"):
        search.score([0, -3, 5], 0)
    with pytest.raises(ValueError, match="me is not a seat"):
        search.score([0, 3, 5], 3)


def test_make_bot_seats_the_port_which_reseeds_as_told() -> None:
    """On a native game ``make_bot("search")`` is the port (a twin of DiamantSearchBot's class
    that values moves); with settings it is the Python bot. Seeded alike, two ports make the
    same moves and values; ``reset(seed)`` replays them."""
    game = make("diamant", 4, core="native")
    bot = make_bot("search", game)
    assert isinstance(bot, NativePortBot) and isinstance(bot, DiamantSearchBot) and bot.name == "search"
    assert not isinstance(make_bot("search:samples=8", game), NativePortBot)
    other = make_bot("search", game)
    seats = [Seat.of(game, state, game.to_move(state)) for state in _decisions(4, 1, 3)]
    for b in (bot, other):
        b.reset(seed=9)
    first = [(bot.act(seat), bot.action_values(seat)) for seat in seats]
    assert first == [(other.act(seat), other.action_values(seat)) for seat in seats]
    bot.reset(seed=9)
    assert first == [(bot.act(seat), bot.action_values(seat)) for seat in seats]
    assert {move for move, _ in first} == {0, 1}


def test_the_ports_values_are_the_python_bots_values() -> None:
    """At positions of seeded games (every seat count), the mean of each move's value over many
    seeds is the Python bot's mean, within four standard errors (the difference's, estimated
    from both); where the futures cannot differ (the rest of the game is certain), exactly."""
    seeds = 12
    positions = 0
    for seats in (3, 4, 6, 8):
        game = make("diamant", seats, core="native")
        states = _decisions(seats, 1, 60 + seats)
        for state in states[:: max(1, len(states) // 5)]:
            seat = Seat.of(game, state, game.to_move(state))
            port = make_bot("search", game)
            python = DiamantSearchBot()
            ours, theirs = [], []
            for k in range(seeds):
                port.reset(seed=k)
                python.reset(seed=k)
                ours.append(port.action_values(seat))
                theirs.append(python.action_values(seat))
            a, b = np.array(ours), np.array(theirs)
            error = np.sqrt(a.var(axis=0, ddof=1) / seeds + b.var(axis=0, ddof=1) / seeds)
            gap = np.abs(a.mean(axis=0) - b.mean(axis=0))
            assert np.all(gap <= 4 * error + 1e-12), (game.to_json(state), a.mean(0), b.mean(0), error)
            positions += 1
    assert positions >= 20


def _share_of_wins(games: int, seed: int) -> tuple[float, tuple[float, float]]:
    """Two ports and two Python bots at four seats (seats rotated): the ports' share of the wins
    (each game is won by one side or shared), and its 95% interval."""
    from tablezoo.evaluation.tournament import Standing, tournament

    game = make("diamant", 4, core="native")
    port = ("port", lambda: make_bot("search", game))
    python = ("python", DiamantSearchBot)
    ports, pythons = tournament(game, [port, port, python, python], games=games, seed=seed)
    assert ports.games == pythons.games == 2 * games
    credits = np.array(ports.credits).reshape(games, 2).sum(axis=1)  # each game's two seats
    share = Standing("port", credits=credits.tolist())
    return share.win_rate, share.interval()


def test_the_port_is_the_same_player_as_its_twin() -> None:
    """Over seeded 4-seat games of two ports and two Python bots, the ports' share of the wins
    has a 95% interval that holds 0.5. Thirty games (about 20 s) only catch a gross difference
    (the interval is about 0.5 +- 0.17); 1,000 games, by hand, are in DiamantSearchBot's docstring."""
    rate, (low, high) = _share_of_wins(30, 0)
    assert low < 0.5 < high, (rate, low, high)
