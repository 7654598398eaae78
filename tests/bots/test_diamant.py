"""Diamant bots: legal play, repeatability, the obvious decisions, the rollouts' rules, strength."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pytest

from tablezoo.bots.core import Seat
from tablezoo.bots.diamant import DiamantSearchBot, DiamantThresholdBot, Rollout, Table, one_card_camps
from tablezoo.evaluation.tournament import play_game, tournament
from tablezoo.games import make
from tablezoo.games.core import CHANCE, TERMINAL
from tablezoo.games.diamant import CAMP, GO, KIND_INDEX, Diamant, DiamantState


class Spy:
    """Wraps a bot: checks each action against the mask and counts the decisions."""

    def __init__(self, bot: Any) -> None:
        self.bot, self.name, self.decisions = bot, bot.name, 0

    def reset(self, seed: int | None = None) -> None:
        self.bot.reset(seed)

    def act(self, seat: Seat) -> int:
        action = self.bot.act(seat)
        assert seat.mask[action], (self.name, action)
        self.decisions += 1
        return action


def play(game: Diamant, state: DiamantState, *steps: str) -> DiamantState:
    """A card at a chance node, else a command of the seat to move."""
    for step in steps:
        if game.to_move(state) == CHANCE:
            game.apply_chance(state, step)
        else:
            game.apply(state, game.parse_move(state, step))
    return state


@pytest.mark.parametrize("seats", [3, 5, 8])
def test_bots_play_legal_moves_over_whole_games(seats: int) -> None:
    game = make("diamant", seats)
    kinds = [functools.partial(DiamantSearchBot, samples=4), DiamantThresholdBot]
    bots = [Spy(kinds[s % 2]()) for s in range(seats)]
    winners, _ = play_game(game, bots, seed=seats)
    assert winners and bots[0].decisions >= 5  # one per cave at least


def decision_states(seats: int, seed: int) -> list[DiamantState]:
    """Some states of a game between threshold bots where a seat other than the first
    of those in is to choose (so earlier choices are pending)."""
    game = make("diamant", seats)
    rng = np.random.default_rng(seed)
    bot, state, found = DiamantThresholdBot(), game.initial_state(), []
    while (mover := game.advance(state, rng)) != TERMINAL:
        if mover != state.inside.index(True):
            found.append(game.clone(state))
        game.apply(state, bot.act(Seat.of(game, state, mover)))
    return found


def test_search_is_repeatable_with_its_seed_and_blind_to_pending_choices() -> None:
    game = make("diamant", 5)
    states = decision_states(5, seed=1)
    assert states
    for i, state in enumerate(states[:6]):
        mover = game.to_move(state)
        bot = DiamantSearchBot(samples=16, seed=i)
        action = bot.act(Seat.of(game, state, mover))
        bot.reset(i)
        assert bot.act(Seat.of(game, state, mover)) == action
        for k in range(2):  # the others' pending choices redrawn: nothing the seat sees changes
            copy = game.determinize(state, mover, np.random.default_rng(k))
            assert DiamantSearchBot(samples=16, seed=i).act(Seat.of(game, copy, mover)) == action


def test_search_camps_with_a_big_haul_when_a_double_is_likely() -> None:
    game = make("diamant", 3)
    state = play(game, game.initial_state(), "17", "go", "go", "go", "15", "go", "go", "go", "14")
    state = play(game, state, "go", "go", "go", "13", "go", "go", "go", "snake", "go", "go", "go")
    state = play(game, state, "spider", "go", "go", "go", "fire")
    assert state.hauls[0] == 18 and game.to_move(state) == 0  # 6 of the 23 cards left end the cave
    assert DiamantSearchBot(seed=0).act(Seat.of(game, state, 0)) == CAMP


def test_search_values_its_moves_as_it_chooses_between_them() -> None:
    game = make("diamant", 3)
    state = play(game, game.initial_state(), "17", "go", "go", "go", "15", "go", "go", "go", "14")
    state = play(game, state, "go", "go", "go", "13", "go", "go", "go", "snake", "go", "go", "go")
    state = play(game, state, "spider", "go", "go", "go", "fire")
    seat = Seat.of(game, state, 0)
    values = DiamantSearchBot(seed=0).action_values(seat)
    assert len(values) == len(seat.legal) == 2  # in seat.legal's order
    camp, go = values[seat.legal.index(CAMP)], values[seat.legal.index(GO)]
    assert camp > go  # the haul of 18 is worth more banked than risked (as act decides)
    assert all(-1.0 < v < 2.0 for v in values)  # win credit plus a small share of the lead


def test_search_goes_on_when_no_card_can_end_the_cave() -> None:
    game = make("diamant", 4)
    state = play(game, game.initial_state(), "11", "go", "go", "go", "go", "snake")
    assert state.hauls[0] == 2 and state.pool == 3  # only a second snake ends it: 2 of 28 cards
    assert DiamantSearchBot(seed=0).act(Seat.of(game, state, 0)) == GO
    state = play(game, game.initial_state(), "9")
    assert DiamantSearchBot(seed=0).act(Seat.of(game, state, 0)) == GO  # no hazard out at all


def test_one_card_rule_weighs_the_risk_against_the_next_share() -> None:
    game = make("diamant", 3)
    state = play(game, game.initial_state(), "5", "go", "go", "go", "snake")
    table = Table.of_view(game.view(state, 0))
    assert not one_card_camps(table, 0, staying=3, leaving=0)  # 2 snakes of 28: a small risk to 1 gem
    table.hauls[0] = 200  # the same risk to a fortune
    assert one_card_camps(table, 0, staying=3, leaving=0)


class Scripted:
    """Stands for ``random.Random`` in a rollout: each ``random()`` turns a given card."""

    def __init__(self, cards: list[str], table: Table) -> None:
        self.cards, self.table = list(cards), table

    def random(self) -> float:
        kind = KIND_INDEX[self.cards.pop(0)]
        deck = self.table.deck
        return (sum(deck[:kind]) + 0.5) / sum(deck)


@pytest.mark.parametrize(("seats", "seed"), [(3, 0), (4, 1), (6, 2), (8, 3)])
def test_rollouts_follow_the_rules_of_the_engine(seats: int, seed: int) -> None:
    # The engine plays a whole game: seat 0 by the rollout's own rule, the others by the
    # threshold bot. From the first decision, with the same cards, the rollout must end
    # the game with the same banks.
    game = make("diamant", seats)
    rng = np.random.default_rng(seed)
    others = DiamantThresholdBot()
    rollout = Rollout(0, others.haul, others.hazards)
    state, cards = game.initial_state(), []
    start: Table | None = None
    first = False
    while True:
        while game.to_move(state) == CHANCE:
            card = game.sample_chance(state, rng)
            cards.append(card)
            game.apply_chance(state, card)
        mover = game.to_move(state)
        if mover == TERMINAL:
            break
        if mover == 0:
            table = Table.of_view(game.view(state, 0))
            camp = rollout.choices(table, None)[0]
            if start is None:
                start, first = table, camp
            action = CAMP if camp else GO
        else:
            action = others.act(Seat.of(game, state, mover))
        game.apply(state, action)
    assert start is not None and len(cards) > 20
    table = start.copy()
    rollout.play(table, first, Scripted(cards[1:], table))  # type: ignore[arg-type]
    assert table.banked == state.banked and table.cave == 6


def test_search_beats_the_threshold_bot() -> None:
    game = make("diamant", 4)
    lineup = [("search", functools.partial(DiamantSearchBot, samples=32))]
    lineup += [("heuristic", DiamantThresholdBot)] * 3
    standings = {s.name: s for s in tournament(game, lineup, 60, seed=3)}
    assert standings["search"].interval()[0] > 1 / 4
