"""A fuzzer of callers, not of bytes: hostile objects fed to every public native entry point.

Hypothesis draws objects whose protocols misbehave (``__index__``, ``__len__``, ``__iter__``,
``__getitem__``, ``__eq__``, ``__hash__``, ``__float__``, a property, ``__del__`` run by the
garbage collector): each may call back into the native API, change or re-initialise the very
state being read, empty the list being read, drop what is referenced, or raise. One such object
goes into one argument of one entry point (the game's methods and fast methods, the state's,
the batch's, the ports', the network's constructor and forward pass, the network's search and
the Gumbel self-play loop). Every call must end in a Python error or a correct result; a state
the object did not touch must be as it was, and any state must stay a valid state of its game.

The fuzz of each game runs in a child process (a crash fails the test instead of ending
pytest), for ``TABLEZOO_HOSTILE_SECONDS`` (default 4) a game: ``make test`` runs the default,
``make sanitize`` a longer run under AddressSanitizer and UndefinedBehaviorSanitizer. Run one
game by hand, for as long as you like::

    python tests/games/test_hostile_objects.py heckmeck 1800

``TABLEZOO_HOSTILE_TRACE=FILE`` appends each example (entry point, object, plan) to FILE before
it runs, so that a crash leaves the example that caused it.
"""

from __future__ import annotations

import contextlib
import gc
import os
import subprocess
import sys
import time
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tablezoo.games import make
from tablezoo.games.core import TablezooError
from tablezoo.games.native import available

pytestmark = pytest.mark.skipif(not available(), reason="the native core is not built")


@pytest.fixture(scope="module", autouse=True)
def core() -> str:
    """This module chooses its core itself (it overrides the folder's one-core fixture)."""
    return "both"


SEATS = {"heckmeck": 3, "sechs_nimmt": 3, "diamant": 4, "court": 3}
REFUSALS = (
    TablezooError,
    TypeError,
    ValueError,
    RuntimeError,
    OverflowError,
    NotImplementedError,
    MemoryError,
)
HOOKS = ("index", "len", "iter", "getitem", "eq", "hash", "float", "property", "del")
ACTS = ("nothing", "raise", "api", "mutate", "reinit", "clear", "free")


class HostileError(Exception):
    """What a hostile object raises when its plan says so."""


class World:
    """The game under test, its target state (the argument) and others the objects may use."""

    def __init__(self, name: str, seed: int) -> None:
        game: Any = make(name, SEATS[name], core="native")
        self.game = game
        self.native = self.game._native
        self.fast = self.native.fast_methods()
        rng = np.random.default_rng(seed)
        self.target = self.game.initial_state()
        for _ in range(seed % 5):
            self.game.advance(self.target, rng)
            if self.game.to_move(self.target) < 0:
                break
            self.game.apply(self.target, int(rng.choice(self.game.legal_actions(self.target))))
        self.others = [self.game.initial_state(), self.game.clone(self.target)]
        self.game.advance(self.others[1], np.random.default_rng(seed + 1))
        self.mutated = False

    def run(self, act: str, holder: Any) -> None:
        game, native, fast, target = self.game, self.native, self.fast, self.target
        if act == "raise":
            raise HostileError("a hostile object refuses")
        if act == "api":
            for other in self.others:
                native.legal_actions(other)
                fast["legal_actions"](other)
                native.legal_mask(other)
                fast["observe"](other, 0)
                other.to_fields()
                copy = game.clone(other)
                mover = fast["advance"](copy, np.random.default_rng(0))
                if mover >= 0:
                    fast["apply"](copy, native.legal_actions(copy)[0])
        elif act == "mutate":
            self.mutated = True
            mover = native.to_move(target)
            if mover >= 0:
                native.apply(target, native.legal_actions(target)[-1])
            elif mover == -1:
                native.advance(target, np.random.default_rng(7))
        elif act == "reinit":
            for call in (
                lambda: target.__setstate__(self.others[0].__getstate__()),
                lambda: native.__init__(SEATS[game.info.name], dict(game.options)),
            ):
                try:
                    call()
                except TypeError:
                    pass
                else:
                    raise AssertionError("a live object was initialised again")
        elif act == "clear":
            if isinstance(holder, list):
                holder.clear()
            if isinstance(holder, dict):
                holder.clear()
        elif act == "free":
            self.others = [self.game.initial_state()]
            gc.collect()


def _act(obj: Any, hook: str) -> None:
    """Do what the plan of ``obj`` says for ``hook``."""
    plan = object.__getattribute__(obj, "_plan")
    what = plan.get(hook, "nothing")
    if what != "nothing":
        object.__getattribute__(obj, "_world").run(what, obj)


class _Scalar:
    """The protocols of a number and a key, each of which acts on its plan first."""

    def __index__(self) -> int:
        _act(self, "index")
        return int(object.__getattribute__(self, "_number"))

    def __float__(self) -> float:
        _act(self, "float")
        return float(object.__getattribute__(self, "_number"))

    def __eq__(self, other: object) -> bool:
        _act(self, "eq")
        return bool(object.__getattribute__(self, "_equal"))

    def __hash__(self) -> int:
        _act(self, "hash")
        return int(object.__getattribute__(self, "_hash"))

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # a __del__ cannot raise: what it did is what counts
            _act(self, "del")

    @property
    def shape(self) -> tuple[int, ...]:
        _act(self, "property")
        return (int(object.__getattribute__(self, "_length")),)

    @property
    def dtype(self) -> tuple[int, ...]:
        _act(self, "property")
        return (int(object.__getattribute__(self, "_length")),)


class _Container(_Scalar):
    """And the protocols of a container."""

    def __len__(self) -> int:
        _act(self, "len")
        return int(object.__getattribute__(self, "_length"))

    def __iter__(self) -> Any:
        _act(self, "iter")
        return iter(list(object.__getattribute__(self, "_items")))

    def __getitem__(self, key: Any) -> Any:
        _act(self, "getitem")
        return list(object.__getattribute__(self, "_items"))[key] if not isinstance(key, str) else 0


def hostile_class(base: type) -> type:
    """A subclass of ``base`` whose protocols follow a plan (a dict of hook to act)."""
    mixin = _Scalar if base is str else _Container
    return type(f"Hostile{base.__name__.title()}", (mixin, base), {})


BASES = {"object": object, "int": int, "list": list, "tuple": tuple, "dict": dict, "str": str}
CLASSES = {name: hostile_class(base) for name, base in BASES.items()}


@st.composite
def hostile_objects(draw: st.DrawFn, world: World) -> Any:
    """One hostile object of the world: its base, its plan and the values it reports."""
    base = draw(st.sampled_from(sorted(CLASSES)))
    number = draw(st.integers(-3, 12) | st.sampled_from([2**31, 2**32 + 3, 2**63, -(2**63) - 1]))
    items = draw(st.lists(st.integers(-2, 10) | st.sampled_from(["keep", "quick", "hands"]), max_size=5))
    if base == "int":
        obj = CLASSES[base](number)
    elif base in ("list", "tuple"):
        obj = CLASSES[base](items)
    elif base == "dict":
        obj = CLASSES[base]({k: True for k in items if isinstance(k, str)})
    elif base == "str":
        obj = CLASSES[base](draw(st.sampled_from(["keep", "quick", "hands", "rows", "x\0y"])))
    else:
        obj = CLASSES[base]()
    plan = draw(st.dictionaries(st.sampled_from(HOOKS), st.sampled_from(ACTS), max_size=3))
    for key, value in {
        "_plan": plan,
        "_world": world,
        "_number": number,
        "_length": draw(st.integers(0, 9)),
        "_items": items,
        "_equal": draw(st.booleans()),
        # the options' names and the agents': a key of that hash is compared with them (its __eq__ runs)
        "_hash": draw(
            st.sampled_from(
                [hash("hands"), hash("rows"), hash("quick"), hash("player_0"), hash("player_1"), 0, 7]
            )
        ),
    }.items():
        object.__setattr__(obj, key, value)
    return obj


def entry_points(world: World, value: Any) -> dict[str, Any]:
    """Every public native entry point with ``value`` in one of its arguments."""
    game, native, fast, target = world.game, world.native, world.fast, world.target
    from tablezoo.games import _native  # type: ignore[attr-defined]

    name = type(native).__name__
    options = dict(game.options)
    n = SEATS[game.info.name]
    # the parallel env's step (TablezooParallelEnv's forms: agents, decisions, no moves, 0.0s,
    # Falses, masks, the masks' cache size)
    agents = [f"player_{seat}" for seat in range(n)]
    generator = np.random.default_rng(0)
    no_moves = np.zeros(native.num_actions, np.int8)
    forms: tuple[Any, ...] = (
        agents,
        dict.fromkeys(agents, 0),
        no_moves,
        dict.fromkeys(agents, 0.0),
        dict.fromkeys(agents, False),
        {},
        64,
    )
    calls = {
        "apply": lambda: native.apply(target, value),
        "fast apply": lambda: fast["apply"](target, value),
        "observe": lambda: native.observe(target, value),
        "fast observe": lambda: fast["observe"](target, value),
        "fast observe_all": lambda: fast["observe_all"](value),
        "observe_padded": lambda: native.observe_padded(target, value),
        "observe_into": lambda: native.observe_into(
            target, value, np.zeros(native.observation_size, np.float32)
        ),
        "observe_batch states": lambda: native.observe_batch(value, [0]),
        "observe_batch seats": lambda: native.observe_batch([target, target], value),
        "legal_actions": lambda: native.legal_actions(value),
        "fast legal_actions": lambda: fast["legal_actions"](value),
        "fast legal_mask": lambda: fast["legal_mask"](value),
        "to_move": lambda: fast["to_move"](value),
        "apply_chance": lambda: native.apply_chance(target, value),
        "apply_chance dict": lambda: native.apply_chance(target, {value: [], "rows": value}),
        "sample_chance": lambda: native.sample_chance(target, value),
        "advance": lambda: fast["advance"](target, value),
        "state_from_fields": lambda: native.state_from_fields(value),
        "state_from_fields field": lambda: native.state_from_fields({**target.to_fields(), "turn": value}),
        "set_padding": lambda: type(native)(n, options).set_padding(value, native.observation_size + 1, 0),
        "set_padding size": lambda: type(native)(n, options).set_padding(
            np.arange(native.observation_size), value, 0
        ),
        "set_action_names": lambda: type(native)(n, options).set_action_names(value),
        "game": lambda: type(native)(value, options),
        "game options": lambda: type(native)(n, value),
        "game names": lambda: type(native)(n, options, action_names=value),
        "game padding": lambda: type(native)(n, options, padding=value),
        "state setstate": lambda: target.__setstate__(value),
        "state eq": lambda: target == value,
        "ports": lambda: [native.ports[p](native, 0).act(value) for p in native.ports if p != "search"],
        "port seed": lambda: [native.ports[p](native, value) for p in native.ports],
        "batch": lambda: getattr(_native, name + "Batch")(
            native, value, 0, 1, False, False, 0, -1, [], False, -1.0
        ),
        "batch step": lambda: _batch(native, name).step(value),
        "net": lambda: _native.PolicyValueNet(
            value, value, None, None, np.ones(4, np.float32), None, "relu", False
        ),
        "net scale": lambda: _native.PolicyValueNet(
            [np.zeros((2, 4), np.float32)], [np.zeros(2, np.float32)], None, None, value, None, "relu", False
        ),
        "rng below": lambda: _native.Rng(0).below(value),
        "fast parallel_step actions": lambda: fast["parallel_step"](target, generator, value, forms),
        "fast parallel_step action": lambda: fast["parallel_step"](
            target, generator, dict.fromkeys(agents, value), forms
        ),
        "fast parallel_step agent": lambda: fast["parallel_step"](target, generator, {value: 0}, forms),
        "fast parallel_step rng": lambda: fast["parallel_step"](target, value, {}, forms),
        "fast parallel_step forms": lambda: fast["parallel_step"](target, generator, {}, value),
        "fast parallel_step decisions": lambda: fast["parallel_step"](
            target, generator, {}, (agents, value, *forms[2:])
        ),
        # a step the core takes (every due seat's first legal move) with the object among the
        # keys of the dicts it reads and fills: its __eq__ and __hash__ run while the step's
        # results are made, after the state has moved on
        "parallel step masks": lambda: fast["parallel_step"](
            target, generator, due_actions(world), (*forms[:5], {value: no_moves}, 64)
        ),
        "parallel step decisions": lambda: fast["parallel_step"](
            target, generator, due_actions(world), (agents, {**forms[1], value: 0}, *forms[2:])
        ),
    }
    if hasattr(native, "determinize"):
        calls["determinize"] = lambda: native.determinize(target, 0, value)
        calls["determinize seat"] = lambda: native.determinize(target, value, _native.Rng(0))
    # the network's search (the Gumbel root and PUCT, as AgentBot drives it) and the Gumbel
    # self-play loop, on a small network of the game's (4 simulations, 2 games of 3 decisions)
    net = small_net(world)
    search = getattr(_native, name + "AgentSearch")
    selfplay = getattr(_native, name + "GumbelSelfPlay")
    calls |= {
        "net evaluate": lambda: net.evaluate(value),
        "net evaluate only": lambda: net.evaluate(np.zeros(net.observation_size, np.float32), value),
        "search net": lambda: search(native, value, 4),
        "search simulations": lambda: search(native, net, value),
        "search setting": lambda: search(native, net, 4, leaf=value),
        "search act": lambda: search(native, net, 4).act(value),
        "search think": lambda: search(native, net, 4).think(value, 1.0),
        "search think gumbel": lambda: search(native, net, 4).think(target, value),
        "search root noise": lambda: search(native, net, 4).root(target, value),
        "search reset": lambda: search(native, net, 4).reset(value),
        "selfplay games": lambda: selfplay(native, value, 0, simulations=2, considered=2, max_decisions=3),
        "selfplay play": lambda: _selfplay(native, selfplay).play(value, 2),
        "selfplay answer": lambda: _selfplay(native, selfplay).answer(value, value),
        "selfplay state": lambda: _selfplay(native, selfplay).state(value),
        "selfplay searched": lambda: _selfplay(native, selfplay).searched(value),
    }
    return calls


def due_actions(world: World) -> dict[str, int]:
    """Each agent due in the target's next parallel step with its first legal move (the round
    as the parallel env finds it: in a secret choice, every seat that chooses in it)."""
    game = world.game
    probe = game.clone(world.target)
    actions: dict[str, int] = {}
    while (mover := game.to_move(probe)) >= 0 and f"player_{mover}" not in actions:
        action = game.legal_actions(probe)[0]
        actions[f"player_{mover}"] = action
        secret = game.secret_decision(probe)
        game.apply(probe, action)
        if not secret:
            break
    return actions


_NETS: dict[str, Any] = {}


def small_net(world: World) -> Any:
    """A small network of the world's game with a value head (made once a game), as the core's."""
    from tablezoo.bots.native import native_net
    from tablezoo.bots.net import PolicyValueNet

    name = world.game.info.name
    if name not in _NETS:
        _NETS[name] = native_net(PolicyValueNet.initial(world.game, (8,), seed=1))
    return _NETS[name]


def _selfplay(native: Any, selfplay: type) -> Any:
    loop = selfplay(native, 2, 0, simulations=2, considered=2, max_decisions=3)
    loop.reset()
    return loop


def _batch(native: Any, name: str) -> Any:
    from tablezoo.games import _native  # type: ignore[attr-defined]

    batch = getattr(_native, name + "Batch")(native, 2, 0, 1, False, False, 0, -1, [], False, -1.0)
    batch.reset()
    return batch


def check_one(name: str, data: st.DataObject) -> str:
    world = World(name, data.draw(st.integers(0, 30), label="seed"))
    value = data.draw(hostile_objects(world), label="value")
    calls = entry_points(world, value)
    label = data.draw(st.sampled_from(sorted(calls)), label="entry point")
    native, target = world.native, world.target
    before = target.to_fields()
    litter = data.draw(st.booleans(), label="litter")  # a __del__ run by the collector mid-call
    if TRACE is not None:  # each example named before it runs: a crash leaves its last one here
        plan = object.__getattribute__(value, "_plan")
        TRACE.write(f"{label}\t{type(value).__name__}\t{plan}\tlitter={litter}\n")
        TRACE.flush()
    old = gc.get_threshold()
    if litter:
        gc.set_threshold(1)
        junk = CLASSES["object"]()
        for key, item in {
            "_plan": {"del": data.draw(st.sampled_from(ACTS))},
            "_world": world,
            "_number": 0,
        }.items():
            object.__setattr__(junk, key, item)
        junk.me = junk  # a cycle: freed by the collector, whenever it runs
        del junk
    try:
        try:
            result = calls[label]()
        finally:
            gc.disable()  # no litter's __del__ runs (and changes the target) while the outcome is read
        mutated = world.mutated
        after = target.to_fields()
    except (*REFUSALS, HostileError) as error:
        gc.disable()
        assert isinstance(error, HostileError) or str(error), label
        if not world.mutated:
            assert target.to_fields() == before, label
    else:
        if not mutated and label in ("observe", "fast observe"):
            seat = int(object.__getattribute__(value, "_number"))
            assert np.array_equal(result, native.observe(target, seat)), label
        if not mutated and label in ("legal_actions", "fast legal_actions"):
            assert result == native.legal_actions(target), label
        if not mutated and label.startswith("fast parallel_step"):
            assert result is None and after == before, label  # nothing applied: the Python path's
        if not mutated and label.startswith("parallel step") and isinstance(result, tuple):
            # the step was taken: what it hands out is the state it left
            for seat, entry in enumerate(result[0].values()):
                assert np.array_equal(entry["observation"], native.observe(target, seat)), label
        if not mutated and label.startswith(
            ("game", "set_", "net", "rng", "port", "batch", "observe", "state eq", "search", "selfplay")
        ):
            assert after == before, label
    finally:
        gc.set_threshold(*old)
        gc.enable()
    gc.collect()  # the litter's __del__ runs now, if it has not
    # whatever happened, the target is a valid state of its game, and plays on
    gc.disable()
    try:
        again = native.state_from_fields(target.to_fields())
        assert again == target
        from tablezoo.games import _native  # type: ignore[attr-defined]

        native.playout(again, _native.Rng(0))
    finally:
        gc.enable()
    return label


MIN_EXAMPLES = 200
"""Examples a fuzz runs at least, however long they take: on a busy machine a time budget alone
ran too few to reach every entry point."""


def fuzz(name: str, seconds: float, batch: int = 40) -> tuple[int, set[str]]:
    """Run the hostile-object fuzz of game ``name`` for about ``seconds`` (and at least
    :data:`MIN_EXAMPLES` examples): the examples run and the entry points reached."""
    reached: set[str] = set()
    runs = 0

    @settings(
        max_examples=batch,
        deadline=None,
        database=None,
        derandomize=False,  # a fuzz: new examples each batch, also under CI=true (Hypothesis's ci profile)
        suppress_health_check=list(HealthCheck),
    )
    @given(data=st.data())
    def one(data: st.DataObject) -> None:
        nonlocal runs
        runs += 1
        reached.add(check_one(name, data))

    start = time.monotonic()
    while time.monotonic() - start < seconds or runs < MIN_EXAMPLES:
        one()
    return runs, reached


SECONDS = float(os.environ.get("TABLEZOO_HOSTILE_SECONDS", "4"))
TRACE = open(os.environ["TABLEZOO_HOSTILE_TRACE"], "a") if os.environ.get("TABLEZOO_HOSTILE_TRACE") else None  # noqa: SIM115


@pytest.mark.parametrize("name", sorted(SEATS))
def test_hostile_objects_end_in_an_error_or_a_correct_result(name: str) -> None:
    """The fuzz of one game in a child process (a crash fails here); every entry point reached."""
    done = subprocess.run(
        [sys.executable, __file__, name, str(SECONDS)],
        capture_output=True,
        text=True,
        timeout=SECONDS * 4 + 120,
        check=False,
    )
    assert done.returncode == 0, (
        f"the fuzz ended with {done.returncode}:\n{done.stdout}\n{done.stderr[-6000:]}"
    )
    runs, reached = done.stdout.split()[-2:]
    assert int(runs) > 0
    assert int(reached) >= 20, done.stdout


if __name__ == "__main__":
    game_name, budget = sys.argv[1], float(sys.argv[2])
    started = time.monotonic()
    total, points = fuzz(game_name, budget)
    print(
        f"{game_name}: {total} examples in {time.monotonic() - started:.0f} s over {len(points)} entry points"
    )
    print(total, len(points))
