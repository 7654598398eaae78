"""The native core's boundary under careless and hostile use of its public Python surface.

Each test is a slip a user makes (a one-element array as an action, a batch stepped before
``reset``) or a forged input (an object made by ``__new__``, a pickle of another
configuration, a state of a million shared entries, another thread changing an array
mid-step). Each must end in a Python exception that names what was wrong, or in a correct
result: never a crash, and the state as it was. The property-based tests at the end feed
every public entry point values drawn by Hypothesis. ``make sanitize`` runs this file
under AddressSanitizer and UndefinedBehaviorSanitizer.
"""

from __future__ import annotations

import copy
import pickle
import threading
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from tablezoo.games import GAMES, make
from tablezoo.games.core import CHANCE, ConfigError, IllegalActionError, StateError, TablezooError
from tablezoo.games.native import available

pytestmark = pytest.mark.skipif(not available(), reason="the native core is not built")

NAMES = list(GAMES)
SEATS = {"heckmeck": 3, "sechs_nimmt": 3, "diamant": 4, "court": 3}


@pytest.fixture(scope="module", autouse=True)
def core() -> str:
    """This module chooses its cores itself (it overrides the folder's one-core fixture)."""
    return "both"


def _native() -> Any:
    from tablezoo.games import _native  # type: ignore[attr-defined]

    return _native


def a_decision(name: str, core: str = "native", seed: int = 0) -> tuple[Any, Any]:
    """A game and a state with a seat to move, a few moves in."""
    game = make(name, SEATS[name], core=core)
    state, rng = game.initial_state(), np.random.default_rng(seed)
    for _ in range(3):
        game.advance(state, rng)
        game.apply(state, int(rng.choice(game.legal_actions(state))))
    game.advance(state, rng)
    assert game.to_move(state) >= 0
    return game, state


# ----------------------------------------------------------------------------- actions


class _BadIndex:
    def __index__(self) -> int:
        raise RuntimeError("no number here")


NOT_ACTIONS = [
    (lambda a: np.array([a]), r"numpy array of shape \(1,\)"),
    (lambda a: np.array([[a]]), r"numpy array of shape \(1, 1\)"),
    (lambda a: np.array([a, a]), r"numpy array of shape \(2,\)"),
    (lambda a: np.array(float(a)), "dtype float64"),
    (lambda a: float(a), "is a float, not a whole number"),
    (lambda a: str(a), "is a str, not a whole number"),
    (lambda a: None, "is a NoneType, not a whole number"),
    (lambda a: True, "is a bool"),
    (lambda a: np.bool_(True), "is a bool"),
    (lambda a: _BadIndex(), "cannot be read as a whole number"),
    (lambda a: [a], "is a list, not a whole number"),
]


@pytest.mark.parametrize("core", ["native", "python"])
@pytest.mark.parametrize("name", NAMES)
def test_an_action_is_one_whole_number_on_both_cores(name: str, core: str) -> None:
    """A one-element array, a float, a bool, text or an object whose __index__ raises is refused by
    name (both cores alike); an int, a numpy integer or a 0-d integer array is taken."""
    game, state = a_decision(name, core)
    legal = game.legal_actions(state)
    before = game.to_json(state)
    for make_bad, message in NOT_ACTIONS:
        with pytest.raises(IllegalActionError, match=message):
            game.apply(state, make_bad(legal[0]))
        assert game.to_json(state) == before
    for good in (np.int64(legal[0]), np.int8(legal[0]), np.uint16(legal[0]), np.array(legal[0])):
        copy_ = game.clone(state)
        game.apply(copy_, good)
        expected = game.clone(state)
        game.apply(expected, legal[0])
        assert game.to_json(copy_) == game.to_json(expected)


@pytest.mark.parametrize("name", NAMES)
def test_the_fast_path_reads_actions_and_seats_as_the_slow_one(name: str) -> None:
    game, state = a_decision(name)
    fast = game._native.fast_methods()
    with pytest.raises(IllegalActionError, match="numpy array"):
        fast["apply"](state, np.array([game.legal_actions(state)[0]]))
    with pytest.raises(IllegalActionError):
        game._native.apply(state, 2**80, check=True, legal=None)
    for seat in (True, 1.0, "0", -1, 2**70, _BadIndex()):
        with pytest.raises(ValueError, match="seat"):
            fast["observe"](state, seat)
        with pytest.raises(ValueError, match="seat"):
            game._native.observe(state, seat)
        with pytest.raises(ValueError, match="seat"):
            game._native.observe_batch([state], [seat])
    assert np.array_equal(fast["observe"](state, np.int64(1)), game._native.observe(state, 1))


# ----------------------------------------------------------------------------- objects never built


@pytest.mark.parametrize("name", NAMES)
def test_objects_made_by_new_are_refused_everywhere(name: str) -> None:
    """__new__ without __init__ gives an object whose C++ value was never made: every method and
    every argument refuses it with a TypeError."""
    native = _native()
    game, state = a_decision(name)
    core_class, state_class = type(game._native), type(state)
    empty_state = state_class.__new__(state_class)
    empty_game = core_class.__new__(core_class)
    fast = game._native.fast_methods()
    calls = [
        lambda: fast["to_move"](empty_state),
        lambda: fast["observe"](empty_state, 0),
        lambda: game._native.legal_mask(empty_state),
        lambda: game._native.clone(empty_state),
        lambda: game._native.observe_batch([empty_state], [0]),
        lambda: empty_state.to_fields(),
        lambda: pickle.dumps(empty_state),
        lambda: empty_game.initial_state(),
        lambda: empty_game.fast_methods(),
        lambda: core_class.fast_methods(42),
        lambda: game._native.playout(game.clone(state), native.Rng.__new__(native.Rng)),
        lambda: native.Rng.__new__(native.Rng).next(),
        lambda: type(state).__mro__[1](),  # pybind11's own base class
    ]
    for port in game.native_ports:
        port_class = game._native.ports[port]
        calls.append(lambda c=port_class: c.__new__(c).act(state))
        calls.append(lambda c=port_class: c(empty_game))
    for call in calls:
        with pytest.raises(TypeError):
            call()


def test_a_network_made_by_new_is_refused() -> None:
    native = _native()
    game = make("diamant", 4, core="native")
    empty = native.PolicyValueNet.__new__(native.PolicyValueNet)
    with pytest.raises(TypeError):
        empty.evaluate(np.zeros(3, dtype=np.float32))
    with pytest.raises(TypeError):
        game.native_search(empty, 4)
    with pytest.raises(TypeError, match="PolicyValueNet"):
        game.native_search(None, 4)


# ----------------------------------------------------------------------------- configurations


@pytest.mark.parametrize("name", NAMES)
def test_seat_counts_and_options_are_checked_at_the_core(name: str) -> None:
    native = _native()
    core_class = getattr(native, type(make(name, SEATS[name], core="python")).__name__)
    options = dict(make(name, SEATS[name], core="python").options)
    for seats in (-1, 0, 1, 11, 200_000_000, 2**40):
        with pytest.raises(ConfigError):
            core_class(seats, options)
    for bad in (True, 3.0, "3", None):
        with pytest.raises(ConfigError, match="seat count"):
            core_class(bad, options)
    with pytest.raises(ConfigError, match="dict"):
        core_class(SEATS[name], [])
    with pytest.raises(ConfigError, match="True or False"):
        core_class(SEATS[name], {**options, "x": 1})
    with pytest.raises(ConfigError, match="text"):
        core_class(SEATS[name], {**options, 1: True})
    with pytest.raises(ConfigError):
        core_class(SEATS[name], {**options, "no_such_option": True})
    # an option not given is off, as its default in the Python game
    assert core_class(SEATS[name], {}).observation_size == core_class(SEATS[name], options).observation_size


def test_a_pickled_state_of_another_configuration_is_refused() -> None:
    """A 6 nimmt! state pickled under one option set and rebuilt under names that sort into the
    places of another's is refused or kept apart: never read as the other's."""
    tactic = make("sechs_nimmt", 3, core="native", tactic=True)
    plain = make("sechs_nimmt", 3, core="native")
    state = tactic.initial_state()
    seats, options, fields = state.__getstate__()
    assert options == {"logic": False, "profi": False, "tactic": True}
    forged_options = [
        {"a": True, "logic": False, "profi": False},  # the same places, other names
        {"logic": False, "profi": False, "tactic": False},  # the plain game's options with the tactic deck
        {"logic": False, "profi": False},
    ]
    for forged in forged_options:
        rebuilt = type(state).__new__(type(state))
        try:
            rebuilt.__setstate__((seats, forged, fields))
        except (ConfigError, StateError):
            continue
        # accepted: then it passed the validation of the configuration it names, and is that one's
        assert rebuilt.__getstate__()[1] == forged
        if forged != dict(plain.options):
            with pytest.raises(ValueError, match="another configuration"):
                plain.observe(rebuilt, 0)
        else:
            plain.observe(rebuilt, 0)
    with pytest.raises(ValueError, match="another configuration"):
        plain.observe(state, 0)


@pytest.mark.parametrize("name", NAMES)
def test_states_and_games_pickle_at_every_protocol(name: str) -> None:
    game, state = a_decision(name)
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        again = pickle.loads(pickle.dumps(state, protocol=protocol))
        assert again == state
        core = pickle.loads(pickle.dumps(game._native, protocol=protocol))
        assert core.legal_actions(again) == game.legal_actions(state)
    assert copy.deepcopy(state) == state
    with pytest.raises(TypeError):
        pickle.dumps(_native().Rng(1), protocol=0)


# ----------------------------------------------------------------------------- states read from outside


@pytest.mark.parametrize("name", NAMES)
def test_a_state_of_shared_lists_is_refused_before_it_is_read(name: str) -> None:
    """A few kilobytes of Python that stand for billions of values (one list shared over and
    over) are refused at once, naming the field."""
    game, state = a_decision(name)
    fields = state.to_fields()
    shared = [0] * 100_000
    for key, value in fields.items():
        if isinstance(value, list):
            with pytest.raises(StateError, match=f"{key}.*(more values|entries)"):
                game._native.state_from_fields({**fields, key: [shared] * 100_000})
            with pytest.raises(StateError, match=key):
                game._native.state_from_fields({**fields, key: [shared] * 3})


@pytest.mark.parametrize("name", NAMES)
def test_hostile_text_and_keys_in_a_state_are_refused(name: str) -> None:
    game, state = a_decision(name)
    fields = state.to_fields()

    class Key(str):
        def __eq__(self, other: object) -> bool:
            raise RuntimeError("no comparing")

        __hash__ = str.__hash__

    text_field = next((k for k, v in fields.items() if isinstance(v, str)), None)
    if text_field is not None:
        with pytest.raises(StateError, match=text_field):
            game._native.state_from_fields({**fields, text_field: "\ud800"})
        with pytest.raises(StateError, match=text_field):
            game._native.state_from_fields({**fields, text_field: "x" * 1_000_000})
    with pytest.raises((StateError, RuntimeError)):
        game._native.state_from_fields({**fields, Key("zzz"): 1})
    with pytest.raises(StateError, match="does not know"):
        game._native.state_from_fields({**fields, 7: 1})


# ----------------------------------------------------------------------------- random generators


def test_only_numpy_generators_and_the_core_rng_draw_chance() -> None:
    game = make("heckmeck", 2, core="native")

    class Fake:
        bit_generator = 5

    class FakeBits:
        def __init__(self) -> None:
            self.bit_generator = np.random.PCG64(0).capsule

    state = game.initial_state()
    for rng in (Fake(), FakeBits(), np.random.RandomState(0), 7, None):
        with pytest.raises(TypeError, match="Generator"):
            game.advance(state, rng)
        with pytest.raises(TypeError, match="Generator"):
            game._native.sample_chance(state, rng)
    assert game.to_move(state) == CHANCE


def test_the_generator_cache_follows_the_generator_it_was_given() -> None:
    """A game loop's generator is cached; another generator, even at a reused address, draws
    its own bits, as the reference would."""
    native = make("heckmeck", 2, core="native")
    python = make("heckmeck", 2, core="python")
    for seed in range(20):
        a, b = native.initial_state(), python.initial_state()
        native.advance(a, np.random.default_rng(seed))  # a temporary: freed after the call
        python.advance(b, np.random.default_rng(seed))
        assert native.to_reference(a).__dict__ == b.__dict__


# ----------------------------------------------------------------------------- the batch


@pytest.mark.parametrize("name", NAMES)
def test_a_batch_refuses_use_before_reset(name: str) -> None:
    from tablezoo.envs.batched import BatchedVectorEnv, SelfPlayBatch

    for illegal in ("raise", "forfeit"):
        batch = SelfPlayBatch(name, 4, SEATS[name], seed=0, illegal=illegal)
        with pytest.raises(RuntimeError, match=r"reset\(\)"):
            batch.step(np.zeros(4, dtype=np.int64))
        with pytest.raises(RuntimeError, match=r"reset\(\)"):
            batch.state(0)
        batch.reset()
        batch.state(0)
    env = BatchedVectorEnv(name, 2, SEATS[name], seed=0, opponents="random")
    with pytest.raises(RuntimeError, match=r"reset\(\)"):
        env.step(np.zeros(2, dtype=np.int64))


def test_a_batch_steps_the_actions_it_was_given_while_another_thread_changes_them() -> None:
    """The actions are copied before the core steps without the GIL: a thread that writes
    illegal ids into the array meanwhile makes a step refuse (before anything is applied) or
    changes nothing; no game is ever forfeited under illegal="raise"."""
    from tablezoo.envs.batched import SelfPlayBatch

    n = 256
    batch = SelfPlayBatch("sechs_nimmt", n, 4, seed=1, num_threads=2)
    _, infos = batch.reset()
    actions = np.zeros(n, dtype=np.int64)
    stop = threading.Event()

    def scribble() -> None:
        while not stop.is_set():
            actions[:] = -5
            actions[:] = 10_000

    rng = np.random.default_rng(0)
    thread = threading.Thread(target=scribble)
    thread.start()
    try:
        for _ in range(60):
            legal = [int(rng.choice(np.flatnonzero(m))) for m in infos["action_mask"]]
            actions[:] = legal
            try:
                _, _, _, _, infos = batch.step(actions)
            except IllegalActionError as error:
                assert "nothing was applied" in str(error)
                continue
            assert not infos["illegal_move"].any()
    finally:
        stop.set()
        thread.join()


# ----------------------------------------------------------------------------- ports without the GIL


@pytest.mark.parametrize("name", NAMES)
def test_ports_think_in_several_threads_while_the_state_changes(name: str) -> None:
    """Two threads ask one port at once while a third plays on the state they read: each call
    answers a legal move of the state as it was when asked, and nothing crashes."""
    game, state = a_decision(name)
    errors: list[BaseException] = []
    for port_name in game.native_ports:
        port = game.native_port(port_name, seed=1)
        snapshot = game.clone(state)
        legal = set(game.legal_actions(snapshot))

        def ask(port: Any = port, snapshot: Any = snapshot, legal: set[int] = legal) -> None:
            try:
                for _ in range(2):
                    assert port.act(snapshot) in legal
            except BaseException as error:  # reported below
                errors.append(error)

        def play(snapshot: Any = snapshot) -> None:
            for _ in range(50):
                copy_ = game.clone(snapshot)
                game.advance(copy_, np.random.default_rng(0))

        threads = [threading.Thread(target=ask), threading.Thread(target=ask), threading.Thread(target=play)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert not errors


# ----------------------------------------------------------------------------- property-based

HOSTILE = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
REFUSALS = (TablezooError, TypeError, ValueError, RuntimeError, NotImplementedError, OverflowError)

anything = st.one_of(
    st.integers(-(2**70), 2**70),
    st.integers(-3, 300),
    st.booleans(),
    st.none(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
    st.binary(max_size=8),
    st.lists(st.integers(-3, 300), max_size=4),
    st.dictionaries(st.text(max_size=4), st.booleans(), max_size=3),
    hnp.arrays(
        st.sampled_from([np.int64, np.int32, np.uint8, np.float32, np.bool_, np.complex64]),
        hnp.array_shapes(min_dims=0, max_dims=3, max_side=3),
    ),
    st.builds(_BadIndex),
)


@pytest.mark.parametrize("name", NAMES)
@HOSTILE
@given(data=st.data())
def test_every_entry_point_refuses_or_answers_any_value(name: str, data: st.DataObject) -> None:
    """Any value in any argument of the public native surface: a Python exception, or a correct
    result; the state is as it was after a refusal."""
    game, state = a_decision(name, seed=data.draw(st.integers(0, 5)))
    native = game._native
    fast = native.fast_methods()
    value = data.draw(anything, label="value")
    before = game.to_json(state)
    legal = game.legal_actions(state)
    calls = {
        "apply": lambda: native.apply(game.clone(state), value),
        "fast apply": lambda: fast["apply"](game.clone(state), value),
        "observe": lambda: native.observe(state, value),
        "fast observe": lambda: fast["observe"](state, value),
        "observe_padded": lambda: native.observe_padded(state, value),
        "observe_batch": lambda: native.observe_batch([state, value], [0, 0]),
        "observe_batch seats": lambda: native.observe_batch([state], value),
        "legal_actions": lambda: fast["legal_actions"](value),
        "to_move": lambda: fast["to_move"](value),
        "advance": lambda: fast["advance"](game.clone(state), value),
        "sample_chance": lambda: native.sample_chance(state, value),
        "apply_chance": lambda: native.apply_chance(game.clone(state), value),
        "state_from_fields": lambda: native.state_from_fields(value),
        "core": lambda: type(native)(value, dict(game.options)),
        "core options": lambda: type(native)(game.num_seats, value),
        "port": lambda: [game.native_port(p, 0).act(value) for p in game.native_ports],
        "batch step": lambda: _stepped_batch(name).step(value),
    }
    label = data.draw(st.sampled_from(sorted(calls)), label="entry point")
    try:
        result = calls[label]()
    except REFUSALS as error:
        assert str(error)
    else:
        if label in ("apply", "fast apply"):
            assert int(value) in legal and not isinstance(value, (bool, np.bool_))
        if label in ("observe", "fast observe"):
            assert result.shape == (native.observation_size,)
    assert game.to_json(state) == before


def _stepped_batch(name: str) -> Any:
    from tablezoo.envs.batched import SelfPlayBatch

    batch = SelfPlayBatch(name, 3, SEATS[name], seed=0)
    batch.reset()
    return batch


@pytest.mark.parametrize("name", NAMES)
@HOSTILE
@given(data=st.data())
def test_forged_fields_are_refused_or_play_to_the_end(name: str, data: st.DataObject) -> None:
    """A real state's fields, some replaced by hostile values: refused with StateError, or a
    state that every rule, observation, port and random playout then handles safely."""
    game, state = a_decision(name, seed=data.draw(st.integers(0, 5)))
    fields = state.to_fields()
    keys = sorted(fields)
    for _ in range(data.draw(st.integers(1, 3))):
        key = data.draw(st.sampled_from(keys))
        old = fields[key]
        if isinstance(old, list) and old and data.draw(st.booleans()):
            i = data.draw(st.integers(0, len(old) - 1))
            entry = data.draw(anything.filter(lambda v: not isinstance(v, np.ndarray)))
            fields[key] = [*old[:i], entry, *old[i + 1 :]]
        else:
            small = st.integers(-3, 120)
            fields[key] = data.draw(small | st.lists(small, max_size=12) | anything)
    try:
        forged = game._native.state_from_fields(fields)
    except (StateError, TypeError) as error:
        assert str(error)
        return
    rng = _native().Rng(data.draw(st.integers(0, 2**32)))
    for port in game.native_ports:
        if game.to_move(forged) >= 0 and port != "search":
            with _refused_or_fine():
                game.native_port(port, 0).act(forged)
    for seat in range(game.num_seats):
        game.observe(forged, seat)
    with _refused_or_fine():
        game._native.playout(game.clone(forged), rng)


class _refused_or_fine:  # noqa: N801 - a context manager used like a function
    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: Any, error: Any, trace: Any) -> bool:
        return kind is not None and issubclass(kind, REFUSALS)
