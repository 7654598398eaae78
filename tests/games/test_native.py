"""The native core under bad input: every mistake is a Python exception that names it.

Out-of-range and illegal actions, wrong seats, states of another configuration or of the
other core, malformed or hostile JSON states (Hypothesis mutates real ones), arrays of
the wrong shape or dtype and malformed chance outcomes must raise, never crash the
interpreter, and leave the state as it was. ``make sanitize`` runs this file under
AddressSanitizer and UndefinedBehaviorSanitizer.
"""

from __future__ import annotations

import contextlib
import json
import os
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablezoo.games import GAMES, game_class, make
from tablezoo.games.core import (
    CHANCE,
    ConfigError,
    IllegalActionError,
    OutcomeError,
    StateError,
    TablezooError,
)
from tablezoo.games.native import available, resolve_core

needs_native = pytest.mark.skipif(not available(), reason="the native core is not built")


@pytest.fixture(scope="module", autouse=True)
def core() -> str:
    """This module runs both cores itself (it overrides the folder's one-core-at-a-time fixture)."""
    return "both"


FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def states_along_a_game(
    name: str, seats: int | None = None, seed: int = 0, every: int = 3
) -> tuple[Any, list[Any]]:
    game = make(name, seats, core="native")
    rng = np.random.default_rng(seed)
    state, states, k = game.initial_state(), [], 0
    while True:
        if k % every == 0:
            states.append(game.clone(state))
        k += 1
        mover = game.advance(state, rng)
        if mover < 0:
            states.append(state)
            return game, states
        game.apply(state, int(rng.choice(game.legal_actions(state))))


def exercise(game: Any, state: Any) -> None:
    """Every method of the contract on ``state``: any outcome but a crash is fine."""
    mover = game.to_move(state)
    game.legal_actions(state)
    game.legal_mask(state)
    game.scores(state)
    for seat in range(game.num_seats):
        game.observe(state, seat)
        game.observe_padded(state, seat)
    game.to_json(state)
    if mover >= 0:
        for action in game.legal_actions(state):
            game.apply(game.clone(state), action)
    elif mover == CHANCE:
        with contextlib.suppress(NotImplementedError):
            game.chance_outcomes(state)
        copy = game.clone(state)
        game.advance(copy, np.random.default_rng(0))
        game._native.playout(game.clone(state), _rng(1))
    else:
        game.winners(state)
        game.returns(state)


def _rng(seed: int) -> Any:
    from tablezoo.games import _native  # type: ignore[attr-defined]

    return _native.Rng(seed)


@needs_native
@pytest.mark.parametrize("name", list(GAMES))
def test_illegal_actions_and_wrong_seats_are_refused(name: str) -> None:
    game, states = states_along_a_game(name)
    for state in states[:30]:
        before = game.to_json(state)
        legal = game.legal_actions(state)
        for action in [-1, game.num_actions, 10**12, -(10**12), True, 1.5, "1", None]:
            if action in legal and not isinstance(action, bool | float | str):
                continue
            with pytest.raises((IllegalActionError, TypeError)):
                game.apply(state, action)  # type: ignore[arg-type]
        for action in range(game.num_actions):
            if action not in legal:
                with pytest.raises(IllegalActionError, match=r"legal|chance outcome is due|game is over"):
                    game.apply(state, action)
        for seat in [-1, game.num_seats, 10**9]:
            with pytest.raises((ValueError, OverflowError, TypeError)):
                game.observe(state, seat)
            with pytest.raises((ValueError, OverflowError, TypeError)):
                game.observe_padded(state, seat)
        assert game.to_json(state) == before


@needs_native
@pytest.mark.parametrize("name", list(GAMES))
def test_states_of_another_configuration_or_core_are_refused(name: str) -> None:
    info = game_class(name).info
    small = make(name, info.min_seats, core="native")
    large = make(name, info.max_seats, core="native")
    state = small.initial_state()
    for call in (large.to_move, large.legal_actions, large.scores, large.clone):
        with pytest.raises(ValueError, match="another configuration"):
            call(state)
    with pytest.raises(ValueError, match="another configuration"):
        large.observe(state, 0)
    python_state = make(name, info.min_seats, core="python").initial_state()
    with pytest.raises(TypeError):
        small.to_move(python_state)
    with pytest.raises(TypeError, match="not a state of the native core"):
        small.to_json(python_state)
    other = next(n for n in GAMES if n != name)
    with pytest.raises(TypeError):
        small.to_move(make(other, core="native").initial_state())


@needs_native
@pytest.mark.parametrize("name", list(GAMES))
def test_arrays_of_the_wrong_shape_or_dtype_are_refused(name: str) -> None:
    game = make(name, core="native")
    state = game.initial_state()
    native = game._native
    size = game.observation_spec.size
    out = np.zeros(size, np.float32)
    native.observe_into(state, 0, out)
    for bad in (
        np.zeros(size, np.float64),
        np.zeros(size + 1, np.float32),
        np.zeros((2, size), np.float32),
        np.zeros(2 * size, np.float32)[::2],
        [0.0] * size,
    ):
        with pytest.raises((TypeError, ValueError)):
            native.observe_into(state, 0, bad)
    frozen = np.zeros(size, np.float32)
    frozen.flags.writeable = False
    with pytest.raises((TypeError, ValueError)):
        native.observe_into(state, 0, frozen)
    with pytest.raises(ValueError, match="one seat per state"):
        game.observe_batch([state, state], [0])
    for seats in ([True, 0], [0.0, 0], [-1, 0], [game.num_seats, 0], ["0", 0]):
        with pytest.raises((ValueError, TypeError)):
            game.observe_batch([state, state], seats)
    with pytest.raises(TypeError):
        game.observe_batch([state, "not a state"], [0, 0])
    with pytest.raises(ValueError):
        native.set_padding(np.zeros(3, np.intp), 10, 0)


@needs_native
@pytest.mark.parametrize("name", list(GAMES))
def test_malformed_outcomes_are_refused(name: str) -> None:
    game = make(name, core="native")
    state = game.initial_state()
    while game.to_move(state) != CHANCE:
        game.apply(state, game.legal_actions(state)[0])
    before = game.to_json(state)
    for outcome in (
        None,
        10**6,
        "",
        [],
        [1, 2],
        {"x": 1},
        [-1] * 6,
        [100] * 6,
        {"hands": [], "rows": []},
        "zzz",
    ):
        with pytest.raises(TablezooError):
            game.apply_chance(state, outcome)
        with pytest.raises((TablezooError, TypeError)):
            game._native.apply_chance(state, outcome)  # the core's own check, below the reference's
    assert game.to_json(state) == before
    decided = game.clone(state)
    game.advance(decided, np.random.default_rng(0))
    if game.to_move(decided) >= 0:
        with pytest.raises(OutcomeError, match="no chance outcome is due"):
            game.apply_chance(decided, None)


def _mutations(value: Any) -> st.SearchStrategy[Any]:
    """Values a hostile JSON state might hold in place of ``value``."""
    numbers = st.integers(-(2**40), 2**40) | st.integers(-3, 60)
    leaves = numbers | st.booleans() | st.none() | st.text(max_size=6) | st.floats(allow_nan=True)
    lists = st.lists(numbers | st.lists(numbers, max_size=12), max_size=14)
    options = [leaves, lists, st.just([]), st.just({})]
    if isinstance(value, list) and value:
        # the same list with one entry changed, one dropped or one added
        options.append(
            st.integers(0, len(value) - 1).flatmap(
                lambda i: (leaves | lists).map(lambda v: [*value[:i], v, *value[i + 1 :]])
            )
        )
        options.append(st.just(value[:-1]))
        options.append(st.just([*value, value[-1]]))
    return st.one_of(options)


@needs_native
@pytest.mark.parametrize("name", list(GAMES))
@FUZZ
@given(data=st.data())
def test_hostile_states_raise_or_play_safely(name: str, data: st.DataObject) -> None:
    """A real state with fields replaced by hostile values: refused with StateError or
    ConfigError naming what is wrong, or (where the values are possible) played safely."""
    game, states = states_along_a_game(name, seed=data.draw(st.integers(0, 3)), every=5)
    base = json.loads(game.to_json(data.draw(st.sampled_from(states))))
    fields = sorted(base["state"])
    for _ in range(data.draw(st.integers(1, 3))):
        key = data.draw(st.sampled_from(fields))
        base["state"][key] = data.draw(_mutations(base["state"][key]))
    try:
        state = game.state_from_dict(base)
    except (StateError, ConfigError) as error:
        assert str(error)
        return
    with contextlib.suppress(TablezooError):
        exercise(game, state)


@needs_native
@pytest.mark.parametrize("name", list(GAMES))
def test_malformed_json_states_name_the_problem(name: str) -> None:
    game, states = states_along_a_game(name)
    good = json.loads(game.to_json(states[-1]))
    with pytest.raises(ConfigError, match="fields"):
        game.state_from_dict({**good, "state": {**good["state"], "extra": 1}})
    first = sorted(good["state"])[0]
    with pytest.raises(ConfigError, match="fields"):
        game.state_from_dict({**good, "state": {k: v for k, v in good["state"].items() if k != first}})
    with pytest.raises(ConfigError, match="configuration"):
        game.state_from_dict({**good, "config": {**good["config"], "num_seats": 99}})
    with pytest.raises(ConfigError):
        game.state_from_dict([])  # type: ignore[arg-type]
    for key, value in good["state"].items():
        if isinstance(value, int) and not isinstance(value, bool):
            with pytest.raises(StateError, match=key):
                game.state_from_dict({**good, "state": {**good["state"], key: "text"}})
        if isinstance(value, list):
            with pytest.raises(StateError, match=key):
                game.state_from_dict({**good, "state": {**good["state"], key: 5}})


@needs_native
def test_the_switch_chooses_the_core(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TABLEZOO_CORE", "python")
    assert type(make("heckmeck")).__name__ == "Heckmeck"
    monkeypatch.setenv("TABLEZOO_CORE", "native")
    assert type(make("heckmeck")).__name__ == "NativeHeckmeck"
    assert type(make("heckmeck", core="python")).__name__ == "Heckmeck"
    monkeypatch.setenv("TABLEZOO_CORE", "fast")
    with pytest.raises(ConfigError, match="cores are: native, python"):
        make("heckmeck")
    monkeypatch.delenv("TABLEZOO_CORE")
    assert resolve_core() == "native"
    with pytest.raises(ConfigError, match="cores are"):
        make("heckmeck", core="c++")


def test_the_native_core_is_built_where_required() -> None:
    """`make` builds the core and sets TABLEZOO_REQUIRE_NATIVE: there it must be importable."""
    if os.environ.get("TABLEZOO_REQUIRE_NATIVE") == "1":
        assert available()


@needs_native
@pytest.mark.parametrize("name", list(GAMES))
def test_games_and_states_pickle(name: str) -> None:
    """Multiprocessing vector envs and process pools pickle envs, games and states."""
    import pickle

    game, states = states_along_a_game(name)
    copy = pickle.loads(pickle.dumps(game))
    assert type(copy) is type(game) and copy.config == game.config
    for state in states[:10]:
        again = pickle.loads(pickle.dumps(state))
        assert copy.to_json(again) == game.to_json(state)
        assert copy.legal_actions(again) == game.legal_actions(state)


@needs_native
def test_the_core_runs_from_several_threads_at_once() -> None:
    """The core's loops release the GIL: calls from several threads on one game must not share
    anything they write (a shared scratch list once crashed the interpreter here)."""
    import threading

    from tablezoo.games import _native  # type: ignore[attr-defined]

    game = make("diamant", 4, core="native")
    errors: list[BaseException] = []

    def play(seed: int) -> None:
        try:
            assert game._native.random_games(300, _native.Rng(seed)) > 0
        except BaseException as error:  # pragma: no cover - reported below
            errors.append(error)

    threads = [threading.Thread(target=play, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
