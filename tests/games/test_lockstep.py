"""The two cores in lockstep: the native core plays the Python reference's game move for move.

For every game, every seat count and every option combination (as
``tests.conftest.configurations`` lists them), random games are played on both cores
at once. Chance is drawn once and forced into both (enumerated outcomes with their
probabilities compared first, where the node lists them), so the two stay in step; at
every state the legal actions, every seat's observation (plain and padded, bit for
bit), the scores, the views and the JSON states must be equal. The same holds for games
driven by the bots, and for a state passed from one core to the other through JSON.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablezoo.bots.core import Seat
from tablezoo.bots.registry import make_bot
from tablezoo.games import GAMES, game_class, make
from tablezoo.games.core import CHANCE
from tablezoo.games.native import available
from tests.conftest import config_id, configurations

pytestmark = pytest.mark.skipif(not available(), reason="the native core is not built")


@pytest.fixture(scope="module", autouse=True)
def core() -> str:
    """This module runs both cores itself (it overrides the folder's one-core-at-a-time fixture)."""
    return "both"


CONFIGS = [(name, *c) for name in GAMES for c in configurations(name)]
IDS = [f"{name}-{config_id((seats, options))}" for name, seats, options in CONFIGS]
SOME = settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def pair(name: str, seats: int, options: dict[str, bool]) -> tuple[Any, Any]:
    return make(name, seats, core="python", **options), make(name, seats, core="native", **options)


def assert_same(py: Any, nat: Any, a: Any, b: Any, views: bool) -> None:
    """Everything the contract shows of two states is equal."""
    assert py.to_json(a) == nat.to_json(b)
    assert py.to_move(a) == nat.to_move(b)
    assert py.legal_actions(a) == nat.legal_actions(b)
    assert np.array_equal(py.legal_mask(a), nat.legal_mask(b))
    assert py.scores(a) == nat.scores(b)
    seats = range(py.num_seats)
    for seat in seats:
        x, y = py.observe(a, seat), nat.observe(b, seat)
        assert x.dtype == y.dtype == np.float32
        assert x.tobytes() == y.tobytes(), py.observation_spec.unpack(x - y)
        assert py.observe_padded(a, seat).tobytes() == nat.observe_padded(b, seat).tobytes()
    assert (
        py.observe_batch([a] * len(seats), list(seats)).tobytes()
        == nat.observe_batch([b] * len(seats), list(seats)).tobytes()
    )
    if views:
        for seat in [None, *seats]:
            assert py.view(a, seat) == nat.view(b, seat)
        assert py.render(a, 0) == nat.render(b, 0)
    assert py.chance_context(a) == nat.chance_context(b)
    if py.is_terminal(a):
        assert py.winners(a) == nat.winners(b)
        assert py.returns(a) == nat.returns(b)


def play_lockstep(py: Any, nat: Any, seed: int, choose: Any = None, views_every: int = 5) -> int:
    """Play one game on both cores from ``seed``; the number of states compared."""
    rng = np.random.default_rng(seed)
    a, b = py.initial_state(), nat.initial_state()
    compared = 0
    while True:
        assert_same(py, nat, a, b, views=compared % views_every == 0)
        compared += 1
        mover = py.to_move(a)
        if mover == CHANCE:
            try:
                outcomes = py.chance_outcomes(a)
            except NotImplementedError:
                with pytest.raises(NotImplementedError):
                    nat.chance_outcomes(b)
                outcome = py.sample_chance(a, rng)
            else:
                assert nat.chance_outcomes(b) == outcomes  # the same outcomes, the same odds
                outcome = outcomes[rng.choice(len(outcomes), p=[p for _, p in outcomes])][0]
            assert py.describe_outcome(a, outcome) == nat.describe_outcome(b, outcome)
            py.apply_chance(a, outcome)
            nat.apply_chance(b, outcome)
        elif mover < 0:
            assert_same(py, nat, a, b, views=True)
            return compared
        else:
            action = choose(a, b, mover) if choose else int(rng.choice(py.legal_actions(a)))
            py.apply(a, action)
            nat.apply(b, action)


@pytest.mark.parametrize(("name", "seats", "options"), CONFIGS, ids=IDS)
@SOME
@given(seed=st.integers(0, 2**32 - 1))
def test_random_games_in_lockstep(name: str, seats: int, options: dict[str, bool], seed: int) -> None:
    py, nat = pair(name, seats, options)
    assert play_lockstep(py, nat, seed) > 1


GAMES_SEATS = {name: (game_class(name).info.min_seats, game_class(name).info.max_seats) for name in GAMES}


@pytest.mark.parametrize("name", list(GAMES))
def test_bot_games_in_lockstep(name: str) -> None:
    """Games between the Python heuristic bots: they see the same seats on both cores and
    make the same moves (a different mix of positions than random play; a native game seats the
    native heuristic, compared with its twin in tests/bots/test_native_bots.py)."""
    for seats in GAMES_SEATS[name]:
        py, nat = pair(name, seats, {})
        twins = [(make_bot("heuristic", py), make_bot("heuristic", py)) for _ in range(seats)]
        for s, (x, y) in enumerate(twins):
            x.reset(seed=s)
            y.reset(seed=s)

        def choose(a: Any, b: Any, mover: int, twins: Any = twins, py: Any = py, nat: Any = nat) -> int:
            x, y = twins[mover]
            action = int(x.act(Seat.of(py, a, mover)))
            assert int(y.act(Seat.of(nat, b, mover))) == action
            return action

        play_lockstep(py, nat, seed=seats, choose=choose, views_every=50)


@pytest.mark.parametrize("name", list(GAMES))
def test_seeded_games_are_the_same_on_both_cores(name: str) -> None:
    """Chance drawn from one numpy generator on each core gives the same game (``advance``)."""
    py, nat = make(name, core="python"), make(name, core="native")
    for seed in range(3):
        r1, r2 = np.random.default_rng(seed), np.random.default_rng(seed)
        a, b = py.initial_state(), nat.initial_state()
        while (mover := py.advance(a, r1)) >= 0:
            assert nat.advance(b, r2) == mover
            assert py.to_json(a) == nat.to_json(b)
            action = int(r1.choice(py.legal_actions(a)))
            r2.choice(nat.legal_actions(b))
            py.apply(a, action)
            nat.apply(b, action)
        assert nat.advance(b, r2) == mover
        assert py.to_json(a) == nat.to_json(b)


@pytest.mark.parametrize("name", list(GAMES))
def test_states_pass_between_the_cores(name: str) -> None:
    """A JSON state of either core loads on the other; determinize keeps what the seat sees."""
    py, nat = make(name, core="python"), make(name, core="native")
    rng = np.random.default_rng(7)
    a = py.initial_state()
    for _ in range(40):
        if py.advance(a, rng) < 0:
            break
        b = nat.from_json(py.to_json(a))
        assert json.loads(nat.to_json(b)) == json.loads(py.to_json(a))
        assert py.to_json(py.from_json(nat.to_json(b))) == py.to_json(a)
        seat = py.to_move(a)
        d = nat.determinize(b, seat, np.random.default_rng(1))
        assert nat.observe(d, seat).tobytes() == nat.observe(b, seat).tobytes()
        assert nat.view(d, seat) == nat.view(b, seat)
        copy = nat.clone(b)
        action = int(rng.choice(py.legal_actions(a)))
        py.apply(a, action)
        nat.apply(copy, action)
        assert nat.to_json(b) != nat.to_json(copy) or py.to_move(a) != nat.to_move(b)


@pytest.mark.parametrize("name", list(GAMES))
def test_native_random_games_end(name: str) -> None:
    """The core's own loop of random play (the benchmark's) ends every game."""
    from tablezoo.games import _native  # type: ignore[attr-defined]

    for seats in GAMES_SEATS[name]:
        nat = make(name, seats, core="native")
        decisions = nat._native.random_games(20, _native.Rng(seats))
        assert decisions >= 20
