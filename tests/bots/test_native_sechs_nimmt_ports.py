"""6 nimmt!'s native ports of ``montecarlo`` and ``search`` (``SechsNimmt::MonteCarlo`` and
``SechsNimmt::Search``, declared in native/src/games/sechs_nimmt/sechs_nimmt.h and defined in
native/src/games/sechs_nimmt/bots.cc) are the same players as their Python twins.

They draw from the core's generator, not numpy's and Python's, so their moves cannot be their
twins' move for move. What draws nothing is compared exactly: the determinisation drawn from a
numpy generator's bits is ``SechsNimmt.determinize``'s, draw for draw, and a rollout whose every
move is the heuristic's is ``mixed_rollout``'s. What draws is compared statistically: the
random and half-greedy rollouts' heads, the search's values, and whole games of each port
against its twin.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from tablezoo.bots.core import Bot, Seat
from tablezoo.bots.native import NativePortBot
from tablezoo.bots.registry import make_bot
from tablezoo.bots.sechs_nimmt import (
    SechsNimmtHeuristicBot,
    SechsNimmtMonteCarloBot,
    SechsNimmtSearchBot,
    mixed_rollout,
    random_rollout,
)
from tablezoo.games import game_class, make
from tablezoo.games.native import available
from tablezoo.games.sechs_nimmt import CHOOSE, DRAFT, ROW

pytestmark = pytest.mark.skipif(not available(), reason="the native core is not built")

OPTIONS = [{}, *({option.name: True} for option in game_class("sechs_nimmt").info.options)]
"""No option, and each of the game's options on its own."""


@pytest.fixture(scope="module", autouse=True)
def core() -> str:
    """This module compares the cores itself (it overrides the folder's both-cores fixture)."""
    return "both"


def native_module() -> Any:
    from tablezoo.games import _native  # type: ignore[attr-defined]

    return _native


def _testing() -> Any:
    """The pieces of the core only the tests call (its rollouts)."""
    from tablezoo.games import _native_testing  # type: ignore[attr-defined]

    return _native_testing


def decisions(game: Any, seed: int, games: int = 1) -> Iterator[Any]:
    """The decisions of ``games`` seeded games of random moves on the native ``game`` (each a
    state the caller may keep: the game goes on on a copy)."""
    rng = np.random.default_rng(seed)
    for _ in range(games):
        state = game.initial_state()
        while game.advance(state, rng) >= 0:
            yield game.clone(state)
            game.apply(state, int(rng.choice(game.legal_actions(state))))


class OnThePythonCore:
    """A Python bot seated at a native game that plays on the Python core's copy of each state
    (through a Seat of it, so it reads what it would read anyway): as quick as on the Python
    core, where on native states every field it reads is converted."""

    def __init__(self, game: Any, bot: Bot) -> None:
        self.game, self.bot, self.name = game, bot, bot.name

    def reset(self, seed: int | None = None) -> None:
        self.bot.reset(seed)

    def act(self, seat: Seat) -> int:
        state = self.game.to_reference(seat.native_state())
        return self.bot.act(Seat.of(self.game.reference, state, seat.seat))


# --------------------------------------------------------------------------- the determinisation


@pytest.mark.parametrize("seats", [2, 4, 10])
@pytest.mark.parametrize("options", OPTIONS)
def test_the_native_determinisation_draws_what_the_python_game_draws(
    seats: int, options: dict[str, bool]
) -> None:
    """From a numpy generator, the core's determinize is SechsNimmt.determinize, draw for draw,
    for every seat at every decision of seeded games (draft, card and row choices)."""
    game = make("sechs_nimmt", seats, core="native", **options)
    native = game._native
    rng = np.random.default_rng(seats)
    phases = set()
    for state in decisions(game, seed=seats):
        phases.add(state.phase)
        reference = game.to_reference(state)
        for seat in range(seats):
            seed = int(rng.integers(2**32))
            mine = native.determinize(state, seat, np.random.default_rng(seed))
            theirs = game.reference.determinize(reference, seat, np.random.default_rng(seed))
            assert mine.to_fields() == theirs.__dict__, (seat, game.to_json(state))
    assert phases == ({DRAFT, CHOOSE, ROW} if options.get("logic") else {CHOOSE, ROW})


@pytest.mark.parametrize("options", OPTIONS)
def test_a_native_determinisation_keeps_what_the_seat_sees_and_redraws_the_rest(
    options: dict[str, bool],
) -> None:
    """Drawn from the core's generator: the seat's observation is unchanged, the state is a
    state of the game, and over many draws every card the seat has not seen lands in another
    hand (a hidden deal) and every card of a seat's hand is its chosen card once or more."""
    seats = 4
    game = make("sechs_nimmt", seats, core="native", **options)
    native, stream = game._native, native_module().Rng(1)
    logic = options.get("logic", False)
    checked = 0
    for state in decisions(game, seed=2):
        me = game.to_move(state)
        if state.phase != CHOOSE or me == 0 or len(state.hands[me]) not in (10, 6, 2):
            continue  # a card choice after earlier seats have chose theirs, thrice a round
        seen = set(game.seen_cards(state)) | set(state.hands[me])
        unseen = set(range(1, game.deck + 1)) - seen
        landed: list[set[int]] = [set() for _ in range(seats)]
        chosen: list[set[int]] = [set() for _ in range(seats)]
        for _ in range(400):
            sample = native.determinize(state, me, stream)
            np.testing.assert_array_equal(game.observe(sample, me), game.observe(state, me))
            native.state_from_fields(sample.to_fields())  # validated as a state of the game
            for other in range(seats):
                landed[other] |= set(sample.hands[other])
                chosen[other].add(sample.chosen[other])
                assert sample.chosen[other] in [0, *sample.hands[other]]
        for other in range(seats):
            if other == me:
                assert landed[me] == set(state.hands[me]) and chosen[me] == {0}
                continue
            # under logic the hands are public; else every unseen card lands in every other hand
            assert landed[other] == (set(state.hands[other]) if logic else unseen), other
            if other > me:  # not chosen yet
                assert chosen[other] == {0}, other
            elif logic:  # a card of the known hand, each of them in some draw
                assert chosen[other] == landed[other], other
            else:  # a card of the drawn hand: many different ones
                assert chosen[other] <= landed[other] and len(chosen[other]) >= min(20, len(unseen)), other
        checked += 1
    assert checked >= 3


# --------------------------------------------------------------------------- the rollouts


@pytest.mark.parametrize("seats", [2, 5])
@pytest.mark.parametrize("options", OPTIONS)
def test_a_greedy_rollout_is_the_python_rollout_move_for_move(seats: int, options: dict[str, bool]) -> None:
    """With greedy=1 every move of mixed_rollout is the heuristic's (a card from the seat's own
    hand and the public cards, the row of fewest heads): the core plays every decision's round
    out to the same state as the Python rollout."""
    game = make("sechs_nimmt", seats, core="native", **options)
    stream = native_module().Rng(0)
    played = 0
    for state in decisions(game, seed=seats):
        reference = game.to_reference(state)
        _testing().sechs_nimmt_rollout(game._native, state, stream, 1.0)
        mixed_rollout(game.reference, reference, random.Random(0), 1.0)
        assert state.to_fields() == reference.__dict__
        played += 1
    assert played > 50


def mean_and_error(values: list[float]) -> tuple[float, float]:
    """The mean of ``values`` and its standard error."""
    return float(np.mean(values)), float(np.std(values, ddof=1) / math.sqrt(len(values)))


@pytest.mark.parametrize(("seats", "options"), [(2, {}), (4, {"profi": True}), (3, {"logic": True})])
def test_the_random_and_mixed_rollouts_take_the_heads_the_python_rollouts_take(
    seats: int, options: dict[str, bool]
) -> None:
    """From positions early, halfway and late in a round, the heads seat 0 and the others have at
    the end of the round agree within 4.5 standard errors between the core's rollouts and the
    Python ones (random_rollout, mixed_rollout with greedy=0.5), 1,500 of each."""
    game = make("sechs_nimmt", seats, core="native", **options)
    stream = native_module().Rng(seats)
    starts = [s for s in decisions(game, seed=7) if s.phase == CHOOSE and s.turn == 0]
    for state in (starts[0], starts[3], starts[6]):  # the first, fourth and seventh trick of round 1
        for greedy in (None, 0.5):
            rnd = random.Random(greedy)
            heads: dict[str, list[list[int]]] = {"native": [], "python": []}
            for _ in range(1500):
                mine, theirs = game.clone(state), game.to_reference(state)
                _testing().sechs_nimmt_rollout(game._native, mine, stream, greedy)
                if greedy is None:
                    random_rollout(game.reference, theirs, rnd)
                else:
                    mixed_rollout(game.reference, theirs, rnd, greedy)
                for core, end in (("native", mine), ("python", theirs)):
                    taken = [t + h for t, h in zip(end.totals, end.round_heads, strict=True)]
                    heads[core].append([taken[0], sum(taken[1:])])
            for k in range(2):
                a, a_err = mean_and_error([h[k] for h in heads["native"]])
                b, b_err = mean_and_error([h[k] for h in heads["python"]])
                assert abs(a - b) <= 4.5 * math.hypot(a_err, b_err), (greedy, k, a, b, game.to_json(state))


# --------------------------------------------------------------------------- the bots


def test_make_bot_seats_the_ports_on_native_games_with_their_default_settings() -> None:
    """``montecarlo`` and ``search`` are ports (twins of the Python bots' classes; the search
    values its moves); with settings, or on the Python core, they are the Python bots."""
    game = make("sechs_nimmt", core="native")
    for name, cls in (("montecarlo", SechsNimmtMonteCarloBot), ("search", SechsNimmtSearchBot)):
        bot = make_bot(name, game)
        assert isinstance(bot, NativePortBot) and isinstance(bot, cls) and bot.name == name
        assert hasattr(bot, "action_values") == (name == "search")
        assert type(make_bot(f"{name}:samples=4", game)) is cls
        assert type(make_bot(name, make("sechs_nimmt", core="python"))) is cls


@pytest.mark.parametrize(
    ("seats", "options"), [(2, {"logic": True}), (3, {"tactic": True, "profi": True}), (10, {})]
)
def test_the_ports_search_card_and_row_choices_and_leave_the_rest_to_the_heuristic(
    seats: int, options: dict[str, bool]
) -> None:
    """On the decisions of seeded games: a legal move always; where the Python bots do not
    search (montecarlo: the row choice and the logic draft; search: the draft and a forced
    move) the heuristic's move, and the search values it 0 and every other move -inf; where it
    searches, its move is the one it values most (the lowest of equal ones), seeded alike."""
    game = make("sechs_nimmt", seats, core="native", **options)
    heuristic = SechsNimmtHeuristicBot()
    montecarlo, search = make_bot("montecarlo", game), make_bot("search", game)
    kinds = set()
    for k, state in enumerate(decisions(game, seed=3)):
        if k % 3 and state.phase != ROW:
            continue  # a third of the card choices and drafts, every row choice
        seat = Seat.of(game, state, game.to_move(state))
        legal, move = seat.legal, heuristic.act(seat)
        forced = state.phase == CHOOSE and len(legal) == 1
        kind = "forced" if forced else state.phase
        kinds.add(kind)
        mc = montecarlo.act(seat)
        assert mc in legal and (mc == move or kind == CHOOSE)
        search.reset(seed=k)
        chosen = search.act(seat)
        search.reset(seed=k)
        values = search.action_values(seat)  # type: ignore[attr-defined]
        assert chosen in legal and len(values) == len(legal)
        if kind in (DRAFT, "forced"):
            assert chosen == move and values == [0.0 if a == move else -math.inf for a in legal]
        else:
            assert chosen == legal[int(np.argmax(values))] and all(math.isfinite(v) for v in values)
    assert kinds >= {CHOOSE, ROW, "forced"} | ({DRAFT} if options.get("logic") else set())


@pytest.mark.parametrize(("seats", "options"), [(2, {}), (4, {"logic": True})])
def test_the_search_values_moves_as_its_twin_does(seats: int, options: dict[str, bool]) -> None:
    """At card and row choices of a seeded game, each move's value (minus its mean score; a
    move the first pass cut no better than the worst kept) averaged over 12 seeds of the port
    and 12 of the Python bot agrees within 4 standard errors and a quarter of a head."""
    game = make("sechs_nimmt", seats, core="native", **options)
    port, python = make_bot("search", game), SechsNimmtSearchBot()
    states = [
        s for s in decisions(game, seed=5) if s.phase in (CHOOSE, ROW) and len(game.legal_actions(s)) > 3
    ]
    for state in states[1:40:13] + [s for s in states if s.phase == ROW][:1]:
        mover = game.to_move(state)
        seat = Seat.of(game, state, mover)
        reference = Seat.of(game.reference, game.to_reference(state), mover)
        ours, theirs = [], []
        for seed in range(12):
            port.reset(seed=seed)
            python.reset(seed=seed)
            ours.append(port.action_values(seat))  # type: ignore[attr-defined]
            theirs.append(python.action_values(reference))
        for k in range(len(seat.legal)):
            a, a_err = mean_and_error([v[k] for v in ours])
            b, b_err = mean_and_error([v[k] for v in theirs])
            assert abs(a - b) < 4 * math.hypot(a_err, b_err) + 0.25, (k, a, b, game.to_json(state))


@pytest.mark.parametrize(
    ("name", "cls", "games"),
    [("montecarlo", SechsNimmtMonteCarloBot, 40), ("search", SechsNimmtSearchBot, 14)],
)
def test_each_port_is_the_same_player_as_its_twin(name: str, cls: type[Bot], games: int) -> None:
    """Two seats, the port against its Python twin, seats rotated, seeded games: the port's win
    share's 95% interval holds 0.5. (Over 1,000 games each, by hand: the bot's docstring.)"""
    from tablezoo.evaluation.tournament import tournament

    game = make("sechs_nimmt", 2, core="native")
    lineup = [("port", lambda: make_bot(name, game)), ("python", lambda: OnThePythonCore(game, cls()))]
    port, python = tournament(game, lineup, games=games, seed=2026)
    assert port.games == python.games == games
    low, high = port.interval()
    assert low < 0.5 < high, (port.win_rate, port.interval())


@pytest.mark.parametrize("options", OPTIONS)
def test_no_port_reads_what_its_seat_cannot_see_under_any_option(options: dict[str, bool]) -> None:
    """As test_native_bots.py checks the ports with no option: seeded alike, each port makes the
    same move on the true state and on states in which everything its seat cannot see was drawn
    anew (the Python game's determinize), here under each option at 3 seats."""
    game = make("sechs_nimmt", 3, core="native", **options)
    rng = np.random.default_rng(13)
    for name in ("montecarlo", "search"):
        bot = make_bot(name, game)
        for k, state in enumerate(decisions(game, seed=13)):
            if k >= 40:
                break
            mover = game.to_move(state)
            moves = set()
            for sample in [state, *(game.determinize(state, mover, rng) for _ in range(2))]:
                bot.reset(seed=5)
                moves.add(bot.act(Seat.of(game, sample, mover)))
            assert len(moves) == 1, (name, game.to_json(state))


def test_the_pieces_refuse_what_is_not_theirs() -> None:
    """A seat out of range, a greedy that is no probability, a state of the Python core or of
    another configuration: each a Python error that says so."""
    game = make("sechs_nimmt", 3, core="native")
    native, stream = game._native, native_module().Rng(0)
    state = next(decisions(game, seed=0))
    with pytest.raises(ValueError, match="seat 3 is out of range"):
        native.determinize(state, 3, stream)
    with pytest.raises(ValueError, match="greedy is a probability"):
        _testing().sechs_nimmt_rollout(native, state, stream, 1.5)
    with pytest.raises(ValueError, match="greedy is a probability"):
        _testing().sechs_nimmt_rollout(native, state, stream, math.nan)
    with pytest.raises(TypeError):
        native.determinize(game.to_reference(state), 0, stream)
    with pytest.raises(TypeError, match="Generator"):
        native.determinize(state, 0, object())
    other = make("sechs_nimmt", 4, core="native")
    with pytest.raises(ValueError, match="another configuration"):
        _testing().sechs_nimmt_rollout(other._native, state, stream)
    with pytest.raises(ValueError, match="another configuration"):
        other.native_port("search").act(state)
