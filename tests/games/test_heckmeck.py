"""Heckmeck rules beyond the rulebook scenarios (tests/scenarios/heckmeck)."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablezoo.games import make
from tablezoo.games.core import CHANCE, CommandError, IllegalActionError, OutcomeError
from tablezoo.games.dice import roll_distribution
from tablezoo.games.heckmeck import TILES, HeckmeckState, worms
from tests.conftest import random_playout


def test_worms_per_tile() -> None:
    assert [worms(t) for t in TILES] == [1] * 4 + [2] * 4 + [3] * 4 + [4] * 4
    assert sum(worms(t) for t in TILES) == 40


@pytest.mark.parametrize("dice", range(1, 9))
def test_exact_roll_distribution(dice: int) -> None:
    outcomes = roll_distribution(dice)
    assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-12
    assert all(sum(c) == dice for c, _ in outcomes)
    assert len(outcomes) == len({c for c, _ in outcomes})
    # all dice worms: 6**-dice
    assert dict(outcomes)[(0, 0, 0, 0, 0, dice)] == pytest.approx(6.0**-dice)


def test_sampled_rolls_agree_with_the_exact_distribution() -> None:
    game = make("heckmeck", 2)
    state = game.replace(game.initial_state(), left=3, kept=[1, 1, 1, 1, 1, 0], total=15)
    rng = np.random.default_rng(11)
    n = 60_000
    seen = Counter(tuple(game.sample_chance(state, rng)) for _ in range(n))
    exact = dict(roll_distribution(3))
    assert set(seen) <= set(exact)
    total_variation = 0.5 * sum(abs(seen[c] / n - p) for c, p in exact.items())
    assert total_variation < 0.02


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), seats=st.integers(2, 7), quick=st.booleans())
def test_the_16_tiles_are_always_accounted_for(seed: int, seats: int, quick: bool) -> None:
    game = make("heckmeck", seats, quick=quick)

    def check(state: HeckmeckState) -> None:
        places = state.grill + state.dead + [t for stack in state.stacks for t in stack]
        assert sorted(places) == list(TILES)
        assert state.grill == sorted(state.grill)
        assert state.left == 8 - sum(state.kept)
        assert state.total == sum(n * v for n, v in zip(state.kept, (1, 2, 3, 4, 5, 5), strict=True))

    final, _ = random_playout(game, seed, visit=check)
    check(final)
    assert final.grill == []
    assert sum(game.scores(final)) <= 40


def test_stop_only_with_a_claim_and_no_roll_without_dice() -> None:
    game = make("heckmeck", 2)
    state = game.initial_state()
    game.apply_chance(state, "5 5 5 5 5 5 5 5")
    game.apply(state, game.parse_move(state, "keep 5"))
    # 40 points but no worm: no claim, and no dice left: bust already happened
    assert state.turn == 1 and game.to_move(state) == CHANCE


def test_forced_rolls_are_checked() -> None:
    game = make("heckmeck", 2)
    state = game.initial_state()
    before = game.to_json(state)
    with pytest.raises(OutcomeError, match="must have 8 dice, not 3"):
        game.apply_chance(state, "1 2 3")
    with pytest.raises(OutcomeError, match="not a die face"):
        game.apply_chance(state, "1 2 3 4 5 6 W W")
    with pytest.raises(OutcomeError, match="six counts"):
        game.apply_chance(state, [1, 2, 3])
    with pytest.raises(OutcomeError, match="six counts"):
        game.apply_chance(state, [8, 0, 0, 0, 0, -0.5])
    assert game.to_json(state) == before
    game.apply_chance(state, [2, 0, 0, 0, 0, 6])
    assert state.roll == [2, 0, 0, 0, 0, 6]
    with pytest.raises(OutcomeError, match="no chance outcome is due"):
        game.apply_chance(state, [8, 0, 0, 0, 0, 0])


def test_commands_and_aliases() -> None:
    game = make("heckmeck", 2)
    assert game.action_names == (
        "keep 1", "keep 2", "keep 3", "keep 4", "keep 5", "keep worm", "roll", "take", "steal",
    )  # fmt: skip
    for text, word in [("keep w", "keep worm"), ("W", "keep worm"), ("3", "keep 3"), ("Roll", "roll")]:
        assert game.command(game.parse_command(text)) == word
    with pytest.raises(CommandError, match="moves start with: keep, roll, steal, take"):
        game.parse_command("keep 6")
    state = game.initial_state()
    game.apply_chance(state, "1 1 2 2 3 3 4 4")
    with pytest.raises(IllegalActionError, match=r"legal moves: keep 1 \(0\), keep 2 \(1\)"):
        game.parse_move(state, "keep worm")


def test_observation_is_from_the_observers_side() -> None:
    game = make("heckmeck", 3)
    state = game.replace(
        game.initial_state(),
        stacks=[[21], [30], [36]],
        grill=[t for t in TILES if t not in (21, 30, 36)],
        turn=2,
        phase="keep",
        roll=[1, 1, 1, 1, 2, 2],
    )
    spec = game.observation_spec
    for seat in range(3):
        fields = spec.unpack(game.observe(state, seat))
        tops = fields["top"].reshape(3, 16).argmax(axis=1) + 21
        assert tops.tolist() == [state.stacks[(seat + k) % 3][-1] for k in range(3)]
        assert fields["to_move"].tolist() == [1.0 if (seat + k) % 3 == 2 else 0.0 for k in range(3)]
        assert fields["worms"].tolist() == [[1, 3, 4][(seat + k) % 3] for k in range(3)]


def test_render_shows_the_grill_the_stacks_and_the_dice() -> None:
    game = make("heckmeck", 2)
    state = game.initial_state()
    game.apply_chance(state, "W W 1 1 2 3 5 5")
    text = game.render(state, seat=0)
    assert "   21   22" in text and "seat 0 (you)" in text and "W W" in text and "keep worm" in text
