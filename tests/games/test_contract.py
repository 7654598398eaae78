"""The engine contract, checked for every registered game and configuration.

Random legal games (seeds drawn by Hypothesis) must end; at every state the
mask equals the legal moves, an illegal move is refused without a change, the
JSON round trip and copies are exact, observations fit their spec, and nothing
a seat may not see reaches its observation or view.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablezoo.games import GAMES, game_class, load_state, make
from tablezoo.games.core import CHANCE, TERMINAL, ConfigError, IllegalActionError
from tests.conftest import config_id, configurations, random_playout

CONFIGS = [(name, *c) for name in GAMES for c in configurations(name)]
IDS = [f"{name}-{config_id((seats, options))}" for name, seats, options in CONFIGS]
SEEDS = st.integers(0, 2**32 - 1)
FEW = settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _checked_states(game: Any, seed: int, every: int = 7) -> list[Any]:
    """Copies of some states along a random game (every ``every``-th, plus the end)."""
    seen: list[Any] = []
    counter = iter(range(10**9))
    final, _ = random_playout(
        game, seed, visit=lambda s: seen.append(game.clone(s)) if next(counter) % every == 0 else None
    )
    return [*seen, final]


@pytest.mark.parametrize(("name", "seats", "options"), CONFIGS, ids=IDS)
@FEW
@given(seed=SEEDS)
def test_random_games_keep_the_contract(name: str, seats: int, options: dict[str, bool], seed: int) -> None:
    game = make(name, seats, **options)
    spec = game.observation_spec
    low, high = spec.low(), spec.high()
    rng = np.random.default_rng(seed)
    for state in _checked_states(game, seed):
        mover = game.to_move(state)
        legal = game.legal_actions(state)
        # the mask is the legal moves; legal moves exist exactly when a seat is to move
        mask = game.legal_mask(state)
        assert mask.dtype == np.int8 and mask.shape == (game.num_actions,)
        assert np.flatnonzero(mask).tolist() == legal
        assert (len(legal) > 0) == (mover >= 0)
        # an illegal action is refused and changes nothing
        before = game.to_json(state)
        illegal = [a for a in range(game.num_actions) if a not in legal]
        for action in [*illegal[:: max(1, len(illegal) // 5)], -1, game.num_actions]:
            with pytest.raises(IllegalActionError):
                game.apply(state, action)
            assert game.to_json(state) == before
        # the JSON round trip and copies are exact
        text = game.to_json(state)
        assert game.from_json(text) == state
        game2, state2 = load_state(text)
        assert game2.config == game.config and state2 == state
        copy = game.clone(state)
        assert copy == state
        if legal:
            game.apply(copy, legal[0])
            assert game.to_json(state) == before, "a move on a copy changed the original"
        # observations fit the spec; views are JSON
        for seat in range(seats):
            obs = game.observe(state, seat)
            assert obs.dtype == np.float32 and obs.shape == (spec.size,)
            assert np.all(obs >= low) and np.all(obs <= high), spec.unpack(obs)
            json.dumps(game.view(state, seat))
            # nothing hidden leaks: redraw what the seat cannot see; it sees the same
            other = game.determinize(state, seat, rng)
            assert np.array_equal(game.observe(other, seat), obs)
            assert game.view(other, seat) == game.view(state, seat)
            if mover == seat:
                assert game.legal_actions(other) == legal
        json.dumps(game.view(state, None))
        assert isinstance(game.render(state), str)
        if mover == TERMINAL:
            winners = game.winners(state)
            assert winners and all(0 <= w < seats for w in winners)
            assert abs(sum(game.returns(state))) < 1e-9


@pytest.mark.parametrize("name", list(GAMES))
@FEW
@given(seed=SEEDS)
def test_same_seed_same_game(name: str, seed: int) -> None:
    game = make(name)
    a, steps_a = random_playout(game, seed)
    b, steps_b = random_playout(game, seed)
    assert steps_a == steps_b and game.to_json(a) == game.to_json(b)


@pytest.mark.parametrize("name", list(GAMES))
def test_exact_chance_distributions_sum_to_one(name: str) -> None:
    game = make(name)
    rng = np.random.default_rng(3)
    state = game.initial_state()
    checked = 0
    while game.to_move(state) != TERMINAL and checked < 50:
        if game.to_move(state) == CHANCE:
            try:
                outcomes = game.chance_outcomes(state)
            except NotImplementedError:
                outcomes = None
            if outcomes is not None:
                assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-9
                assert all(p > 0 for _, p in outcomes)
                checked += 1
            game.step_chance(state, rng)
        else:
            legal = game.legal_actions(state)
            game.apply(state, legal[int(rng.integers(len(legal)))])


@pytest.mark.parametrize("name", list(GAMES))
def test_commands_parse_both_ways(name: str) -> None:
    info = game_class(name).info
    for seats in (info.min_seats, info.max_seats):
        game = make(name, seats)
        assert len(set(game.action_names)) == game.num_actions
        for action, word in enumerate(game.action_names):
            assert game.parse_command(word) == action
            assert game.parse_command(f"  {word.upper()}  ") == action
            assert game.command(action) == word


@pytest.mark.parametrize("name", list(GAMES))
def test_bad_configurations_name_what_is_allowed(name: str) -> None:
    info = game_class(name).info
    for seats in (info.min_seats - 1, info.max_seats + 1):
        with pytest.raises(ConfigError, match=f"{info.min_seats} to {info.max_seats}"):
            make(name, seats)
    with pytest.raises(ConfigError, match="whole number"):
        make(name, "three")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="no option 'nonsense'"):
        make(name, info.default_seats, nonsense=True)
    for option in info.option_names:
        with pytest.raises(ConfigError, match="on or off"):
            make(name, info.default_seats, **{option: "yes"})  # type: ignore[arg-type]


@pytest.mark.parametrize("name", list(GAMES))
def test_docstring_documents_every_observation_field(name: str) -> None:
    import sys

    module = sys.modules[game_class(name).__module__]
    game = make(name)
    for field in game.observation_spec.fields:
        assert f"| {field.name} |" in (module.__doc__ or ""), field.name
    for word in game.action_names:
        assert word.split(" ")[0] in (module.__doc__ or ""), word


@pytest.mark.parametrize(("name", "seats", "options"), CONFIGS, ids=IDS)
def test_action_fields_describe_the_first_actions(name: str, seats: int, options: dict[str, bool]) -> None:
    # Entry i of every action field describes action i: one size, no more than the actions.
    game = make(name, seats, **options)
    sizes = {game.observation_spec[field].size for field in game.action_fields}
    assert len(sizes) <= 1 and all(k <= game.num_actions for k in sizes)


def test_action_fields_of_different_sizes_are_refused() -> None:
    from tablezoo.games.sechs_nimmt import SechsNimmt

    class Mismatched(SechsNimmt):
        def _configure(self) -> None:
            super()._configure()
            self.action_fields = ("hand_fit", "row_last")  # 104 and 4 entries

    with pytest.raises(ValueError, match="action fields must share one size"):
        Mismatched(3)
