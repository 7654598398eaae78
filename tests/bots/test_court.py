"""The To Court the King baseline bot: legal, short games; its card uses and
choices in set positions; and its strength against random play."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tablezoo.bots.core import RandomBot, Seat
from tablezoo.bots.court import CourtGreedyBot, expected_matches
from tablezoo.evaluation.tournament import tournament
from tablezoo.games import make
from tablezoo.games.core import CHANCE, TERMINAL, Game
from tablezoo.games.court import (
    ALCHEMIST,
    ASTRONOMER,
    CHARLATAN,
    FARMER,
    FOOL,
    GENERAL,
    GUARD,
    HUNTER,
    KING,
    KNIGHT,
    LABORER,
    MAGICIAN,
    NOBLEWOMAN,
    PHILOSOPHER,
    PLAY,
    QUEEN,
    TAKE_PHASE,
    held_bits,
    parse_dice,
)


class StrictBot(CourtGreedyBot):
    """The bot, failing when a decision does not come from its plan."""

    @staticmethod
    def _fallback(state: Any, legal: list[int]) -> int:
        raise AssertionError(f"no planned move in phase {state.phase}")


def play(game: Game[Any], bots: list[Any], seed: int) -> tuple[Any, int]:
    """A whole game (``game.apply`` checks every move): the final state and the decisions."""
    rng = np.random.default_rng(seed)
    for i, bot in enumerate(bots):
        bot.reset(seed * 10 + i)
    state = game.initial_state()
    decisions = 0
    while (mover := game.advance(state, rng)) != TERMINAL:
        game.apply(state, bots[mover].act(Seat.of(game, state, mover)))
        decisions += 1
        assert decisions < 3000, "the game runs too long"
    return state, decisions


def holding(cards: list[int], seats: int = 2) -> tuple[Game[Any], Any]:
    """Seat 0, holding ``cards``, to start its turn."""
    game = make("court", seats)
    state = game.initial_state()
    held, supply = [list(h) for h in state.held], list(state.supply)
    for kind in cards:
        held[0][kind] += 1
        supply[kind] -= 1
    return game, game.replace(state, held=held, supply=supply)


def in_play(cards: list[int], aside: str, active: str) -> tuple[Game[Any], Any]:
    """Seat 0 holding ``cards`` (none used yet), after a roll: these dice set aside and active."""
    game, state = holding(cards)
    state = game.replace(
        state,
        phase=PLAY,
        aside=parse_dice(aside) if aside else [0] * 6,
        active=parse_dice(active),
        ready=held_bits(tuple(state.held[0])),
    )
    return game, state


def turn(game: Game[Any], state: Any, bot: CourtGreedyBot, *rolls: str) -> list[str]:
    """The bot plays seat 0's turn with these rolls (forced), up to and including its
    choice of card; returns its commands."""
    rolls_left = list(rolls)
    commands: list[str] = []
    while not commands or commands[-1].split()[0] not in ("take", "pass"):
        if game.to_move(state) == CHANCE:
            game.apply_chance(state, rolls_left.pop(0))
            continue
        action = bot.act(Seat.of(game, state, 0))
        commands.append(game.command(action))
        game.apply(state, action)
    assert not rolls_left
    return commands


# --------------------------------------------------------------------------- whole games


@pytest.mark.parametrize("seats", [2, 3, 4, 5])
def test_legal_short_games(seats: int) -> None:
    game = make("court", seats)
    lengths = []
    for seed in range(4):
        state, decisions = play(game, [StrictBot() for _ in range(seats)], seed)
        assert len(game.winners(state)) == 1
        lengths.append(decisions)
    for seed in range(2):
        mixed = [StrictBot() if (s + seed) % 2 == 0 else RandomBot() for s in range(seats)]
        lengths.append(play(game, mixed, 10 + seed)[1])
    # random play runs ~4,500-5,400 decisions (median); the bot's games stay short
    assert max(lengths) < 1000


@pytest.mark.parametrize("seats", [2, 5])
def test_takes_over_any_turn_of_a_random_game(seats: int) -> None:
    """From positions of random games (many cards held, odd dice set aside) the bot
    finishes the turn with planned, legal moves."""
    game = make("court", seats)
    rng = np.random.default_rng(seats)
    state = game.initial_state()
    plays = turns = 0
    while (mover := game.advance(state, rng)) != TERMINAL and turns < 60:
        if state.phase == PLAY:
            plays += 1
        if state.phase == PLAY and plays % 15 == 0:
            turns += 1
            copy, bot = game.clone(state), StrictBot(seed=plays)
            while game.advance(copy, rng) == mover and copy.turn == mover:
                was_take = copy.phase == TAKE_PHASE
                game.apply(copy, bot.act(Seat.of(game, copy, mover)))
                if was_take:
                    break
        legal = game.legal_actions(state)
        game.apply(state, legal[int(rng.integers(len(legal)))])
    assert turns == 60


def test_repeatable_with_a_seed() -> None:
    game = make("court", 3)
    first = play(game, [CourtGreedyBot() for _ in range(3)], 5)[0]
    second = play(game, [CourtGreedyBot() for _ in range(3)], 5)[0]
    assert game.to_json(first) == game.to_json(second)


@pytest.mark.parametrize(("seats", "games"), [(2, 12), (4, 12)])
def test_beats_random_play(seats: int, games: int) -> None:
    game = make("court", seats)
    lineup = [("heuristic", CourtGreedyBot)] + [("random", RandomBot)] * (seats - 1)
    standings = {s.name: s for s in tournament(game, lineup, games, seed=1)}
    assert standings["heuristic"].interval()[0] > 1 / seats


# --------------------------------------------------------------------------- set positions


def test_expected_matches() -> None:
    assert expected_matches(0) == 0
    assert expected_matches(1) == pytest.approx(1 / 6)
    assert expected_matches(2) > 2 * expected_matches(1)


def test_magician_saves_a_wasted_die() -> None:
    game, state = holding([MAGICIAN])
    commands = turn(game, state, StrictBot(), "6 6 3", "2")
    assert commands == ["aside all 6", "roll", "use magician", "die 2", "value 6", "aside 6", "take guard"]


def test_astronomer_copies_the_group() -> None:
    game, state = in_play([ASTRONOMER], "6 6", "3")
    commands = turn(game, state, StrictBot())
    assert commands == ["use astronomer", "die 3", "value 6", "aside 6", "take guard"]


def test_noblewoman_raises_two_dice_at_once() -> None:
    game, state = holding([NOBLEWOMAN, GENERAL])
    commands = turn(game, state, StrictBot(), "6 6 6 5 5")
    assert commands[:5] == ["use noblewoman", "die 5", "die 5", "done", "aside all 6"]
    assert commands[-1] == "take knight"


def test_philosopher_moves_pips_into_the_group() -> None:
    game, state = in_play([PHILOSOPHER], "", "3 3 5 1")
    commands = turn(game, state, StrictBot())
    assert commands[:5] == ["use philosopher", "die 5", "die 1", "pips 2", "aside all 3"]
    assert commands[-1] == "take hunter"


def test_alchemist_shares_out_three_dice() -> None:
    game, state = in_play([ALCHEMIST], "4 4", "2 5 5")
    commands = turn(game, state, StrictBot())
    assert commands == [
        *("use alchemist", "die 2", "die 5", "die 5", "value 4", "value 4"),
        *("aside all 4", "take knight"),
    ]


def test_bring_in_dice_before_the_last_aside() -> None:
    game, state = holding([KNIGHT])
    commands = turn(game, state, StrictBot(), "5 5 5")
    assert commands[:2] == ["use knight", "aside all 5"]
    assert commands[-1] == "take hunter"


def test_stops_for_a_straight() -> None:
    game, state = holding([GENERAL])
    commands = turn(game, state, StrictBot(seed=0), "1 2 3 4 5")
    assert commands == [*(f"aside {v}" for v in range(1, 6)), "take magician"]


def test_card_choice() -> None:
    game, state = in_play([], "6 6 6 6 6 6 6", "6")
    state = game.replace(state, active=[0] * 6, phase=TAKE_PHASE)
    bot = StrictBot()
    assert game.command(bot.act(Seat.of(game, state, 0))) == "take king"
    # four extra dice (Farmer, Laborer, Guard, Hunter: the 2-seat game's one General is
    # still to take): the bot is behind, so it takes the General
    held, supply = [list(h) for h in state.held], list(state.supply)
    for kind in (FARMER, LABORER, GUARD, HUNTER):
        held[1][kind] = 1
        supply[kind] -= 1
    state = game.replace(state, held=held, supply=supply)
    assert game.command(bot.act(Seat.of(game, state, 0))) == "take general"
    state = game.replace(state, aside=parse_dice("6 6 6 6 6 6 6 6"))  # eight of a kind is strong enough
    assert game.command(bot.act(Seat.of(game, state, 0))) == "take king"
    state = game.replace(state, aside=parse_dice("1 2 4"))  # nothing qualifies but the Fool ...
    assert game.command(bot.act(Seat.of(game, state, 0))) == "take fool"
    # ... and without it, nothing (seat 1 holds the two row-0 cards, a Fool and a Charlatan)
    held[1][FOOL] = held[1][CHARLATAN] = 1
    supply[FOOL] = 0
    state = game.replace(state, held=held, supply=supply)
    assert game.command(bot.act(Seat.of(game, state, 0))) == "pass"
    held[0][FOOL], held[1][FOOL] = 1, 0  # seat 0 holds the Fool
    state = game.replace(state, held=held)
    assert game.command(bot.act(Seat.of(game, state, 0))) == "take charlatan"


def test_final_round_plays_for_the_largest_group() -> None:
    game, state = in_play([ASTRONOMER], "", "1 2 3 4 5")
    # the final round, seat 1 having claimed the King (with seven 6s, holding the King card
    # and the Queen): no stopping for a straight, aside the highest die and roll
    held, supply = [list(h) for h in state.held], list(state.supply)
    held[1][KING] = held[1][QUEEN] = 1
    supply[KING] = supply[QUEEN] = 0
    claim = {"claimer": 1, "holder": 1, "best": [7, 6], "results": [[0, 0], [7, 6]]}
    state = game.replace(state, held=held, supply=supply, round=2, final=True, **claim)
    bot = StrictBot()
    assert game.command(bot.act(Seat.of(game, state, 0))) == "aside 5"
