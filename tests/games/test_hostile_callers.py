"""The native core against callers that move while it reads them (issue 59).

Each test is one way a caller's own object can run Python in the middle of a native call
(an ``__index__``, an ``__eq__`` of a dict key, a ``__del__`` run by the garbage collector, a
property of a subclass) or hand the core something whose size or ownership it then changes
(a resized buffer, a huge padding size, a game without its action names). The core must end
each in a Python exception that says what was wrong, or in the correct result, with the state
as it was. Anything that crashed the interpreter runs in a child process, so that a crash
fails the test instead of ending pytest. ``make sanitize`` runs this file under
AddressSanitizer and UndefinedBehaviorSanitizer.
"""

from __future__ import annotations

import copy
import os
import subprocess
import sys
import textwrap
from typing import Any

import numpy as np
import pytest

from tablezoo.games import make
from tablezoo.games.core import ConfigError, IllegalActionError, OutcomeError, StateError
from tablezoo.games.native import available

pytestmark = pytest.mark.skipif(not available(), reason="the native core is not built")


@pytest.fixture(scope="module", autouse=True)
def core() -> str:
    """This module chooses its cores itself (it overrides the folder's one-core fixture)."""
    return "both"


SANITIZED = "asan" in os.environ.get("LD_PRELOAD", "")


def isolated(code: str, timeout: float = 120.0, env: dict[str, str] | None = None, **popen: Any) -> str:
    """Run ``code`` in a child interpreter (a crash fails the test, not pytest); its stdout.
    The child must print ``OK`` last."""
    child_env = {**os.environ, **(env or {})}
    try:
        done = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(code)],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=child_env,
            check=False,
            **popen,
        )
    except subprocess.TimeoutExpired as error:
        raise AssertionError(f"the child hung for {timeout} s:\n{error.stdout!r}\n{error.stderr!r}") from None
    tail = done.stderr[-4000:]
    assert done.returncode == 0, f"the child ended with {done.returncode}:\n{done.stdout}\n{tail}"
    assert done.stdout.strip().endswith("OK"), done.stdout + done.stderr[-4000:]
    return done.stdout


PRELUDE = """
import copy, gc, sys
import numpy as np
from tablezoo.games import make
from tablezoo.games import _native
from tablezoo.games.core import IllegalActionError, OutcomeError, StateError, ConfigError

def batch_of(core, padded=False):
    batch_class = getattr(_native, type(core).__name__ + "Batch")
    return batch_class(core, 2, 0, 1, padded, False, 0, -1, [], False, -1.0)

def decision(name, seats, seed):
    game = make(name, seats, core="native")
    state, rng = game.initial_state(), np.random.default_rng(seed)
    for _ in range(seed % 4):
        game.advance(state, rng)
        game.apply(state, int(rng.choice(game.legal_actions(state))))
    game.advance(state, rng)
    return game, state
"""


# ----------------------------------------------------------------------------- re-entrancy


def test_an_action_whose_index_reads_another_state_is_checked_against_its_own() -> None:
    """``a.__index__`` asks the same game for another state's legal moves: the action is still
    checked against the state it is applied to (an illegal steal was applied, or a segfault)."""
    isolated(
        PRELUDE
        + """
game = make("heckmeck", 3, core="native")
native = game._native
fast = native.fast_methods()
rng = np.random.default_rng(1)
tried = 0
for seed in range(200):
    game, state = decision("heckmeck", 3, seed)
    native, fast = game._native, game._native.fast_methods()
    other_game, other = decision("heckmeck", 3, seed + 1000)
    other = native.state_from_fields(other.to_fields())
    mine, theirs = set(game.legal_actions(state)), set(game.legal_actions(other))
    extra = sorted(theirs - mine)
    if not extra:
        continue
    tried += 1

    class Sly:
        def __index__(self, a=extra[0]):
            for _ in range(3):
                native.legal_actions(other)
                fast["legal_actions"](other)
            return a

    for apply in (native.apply, fast["apply"]):
        before = state.to_fields()
        try:
            apply(state, Sly())
        except IllegalActionError as error:
            assert "not legal" in str(error), error
        else:
            raise AssertionError(f"an illegal action {extra[0]} was applied; legal: {sorted(mine)}")
        assert state.to_fields() == before
assert tried > 5, tried
print("OK")
"""
    )


def test_a_del_run_by_the_collector_inside_legal_actions_changes_nothing() -> None:
    """The garbage collector runs a ``__del__`` that asks for another state's legal moves while
    legal_actions builds its list: the list is the state's own (a segfault before)."""
    isolated(
        PRELUDE
        + """
for name, seats in (("heckmeck", 3), ("sechs_nimmt", 3), ("court", 3), ("diamant", 3)):
    for seed in range(6):
        game, state = decision(name, seats, seed)
        _, other = decision(name, seats, seed + 7)
        native, fast = game._native, game._native.fast_methods()
        other = native.state_from_fields(other.to_fields())
        want = game.legal_actions(state)

        class Litter:
            def __del__(self):
                for _ in range(3):
                    native.legal_actions(other)
                    fast["legal_actions"](other)
                    native.legal_mask(other)

        gc.collect()
        old = gc.get_threshold()
        gc.set_threshold(1)
        try:
            for call in (native.legal_actions, fast["legal_actions"], native.legal_mask, fast["legal_mask"]):
                for _ in range(5):
                    x = Litter(); x.me = x; del x
                    got = call(state)
                    got = [int(a) for a in np.flatnonzero(got)] if isinstance(got, np.ndarray) else list(got)
                    assert got == want, (name, call, got, want)
        finally:
            gc.set_threshold(*old)
print("OK")
"""
    )


def test_an_outcome_whose_key_plays_the_state_is_refused() -> None:
    """A deal whose dict key's ``__eq__`` deals and plays the same state in between: the core
    sees that no chance outcome is due any more and refuses it (a second deal was applied)."""
    game: Any = make("sechs_nimmt", 3, core="native")
    native = game._native
    state = game.initial_state()
    rng = np.random.default_rng(0)
    real = native.sample_chance(state, rng)
    second = native.sample_chance(state, np.random.default_rng(1))

    class Key:
        def __hash__(self) -> int:
            return hash("hands")

        def __eq__(self, other: object) -> bool:
            if native.to_move(state) < 0:
                native.apply_chance(state, real)
                native.apply(state, native.legal_actions(state)[0])
            return other == "hands"

    after = None
    with pytest.raises(OutcomeError, match="no chance outcome is due"):
        native.apply_chance(state, {Key(): second["hands"], "rows": second["rows"]})
        after = state.to_fields()
    assert after is None
    # the state is the one the key's own moves left: dealt once, one card chosen
    assert native.to_move(state) >= 0


# ----------------------------------------------------------------------------- protocols


def test_a_list_that_lies_about_its_length_is_shown_from_what_it_holds() -> None:
    isolated(
        PRELUDE
        + """
class LyingList(list):
    def __len__(self):
        return 8

REFUSED = (TypeError, ValueError, IllegalActionError, StateError, OutcomeError, ConfigError)

for name, seats in (("heckmeck", 3), ("sechs_nimmt", 3), ("court", 3), ("diamant", 3)):
    game, state = decision(name, seats, 1)
    native = game._native
    for call in (lambda v: native.apply(state, v), lambda v: native.fast_methods()["apply"](state, v),
                 lambda v: native.observe(state, v), lambda v: native.state_from_fields(v),
                 lambda v: type(native)(v, {}), lambda v: native.apply_chance(game.clone(state), v)):
        for value in (LyingList(), LyingList([1]), LyingList([[1], 2])):
            try:
                call(value)
            except REFUSED as error:
                assert str(error)
            else:
                raise AssertionError("a lying list was taken")
print("OK")
"""
    )


def test_a_bit_generator_whose_capsule_is_another_generators_is_not_trusted() -> None:
    """A PCG64 subclass whose ``capsule`` property hands out a freed generator's capsule: the core
    reads the generator's own bits (through numpy's own descriptor) or refuses it."""
    isolated(
        PRELUDE
        + """
from numpy.random import PCG64, Generator

def freed_capsule():
    gone = PCG64(5)
    capsule = gone.capsule
    del gone
    gc.collect()
    return capsule

class Forged(PCG64):
    @property
    def capsule(self):
        return freed_capsule()

class ForgedGenerator(Generator):
    @property
    def bit_generator(self):
        return PCG64(99)

for name, seats in (("heckmeck", 3), ("sechs_nimmt", 3), ("court", 3), ("diamant", 3)):
    game = make(name, seats, core="native")
    native = game._native
    for _ in range(3):
        junk = [PCG64(i) for i in range(20)]  # reuse the freed memory
        state = game.initial_state()
        want = native.sample_chance(state, Generator(PCG64(3)))
        for rng in (Generator(Forged(3)), ForgedGenerator(PCG64(3))):
            try:
                got = native.sample_chance(state, rng)
            except TypeError as error:
                assert str(error)
            else:
                assert got == want, (got, want)
            s1, s2 = game.initial_state(), game.initial_state()
            try:
                native.advance(s1, rng)
                native.fast_methods()["advance"](s2, Generator(Forged(3)))
            except TypeError as error:
                assert str(error)
print("OK")
"""
    )


def test_a_class_of_two_native_games_is_read_as_the_game_asked() -> None:
    isolated(
        PRELUDE
        + """
Diamant, Heckmeck = _native.Diamant, _native.Heckmeck

class Both(Diamant, Heckmeck):
    def __init__(self):
        Diamant.__init__(self, 6, {})
        Heckmeck.__init__(self, 3, {"quick": False})

both = Both()  # the first configuration of each game: the same configuration number
heck = Heckmeck(3, {"quick": False})
for seed in range(20):
    _, state = decision("heckmeck", 3, seed)
    state = heck.state_from_fields(state.to_fields())
    try:
        fast = Heckmeck.fast_methods(both)
        got = (fast["legal_actions"](state), fast["observe"](state, 0).tolist(), fast["to_move"](state))
    except (TypeError, ValueError) as error:
        assert str(error)
    else:
        assert got == (heck.legal_actions(state), heck.observe(state, 0).tolist(), heck.to_move(state))
    assert Heckmeck.legal_actions(both, state) == heck.legal_actions(state)
print("OK")
"""
    )


# ----------------------------------------------------------------------------- buffers


def test_a_batch_buffer_cannot_be_resized_under_the_core() -> None:
    isolated(
        PRELUDE
        + """
from tablezoo.envs.batched import SelfPlayBatch
for name in ("heckmeck", "sechs_nimmt", "court", "diamant"):
    batch = SelfPlayBatch(name, 8, 3, seed=0)
    obs, infos = batch.reset()
    for array in (obs, infos["action_mask"], infos["to_move"]):
        try:
            array.resize((1,), refcheck=False)
        except ValueError as error:
            assert str(error)
        else:
            raise AssertionError("a buffer the core writes was resized")
        try:
            array.flags.writeable = True
        except ValueError as error:
            assert str(error)
    for _ in range(20):
        mask = batch._core.mask
        actions = np.array([int(np.flatnonzero(m)[0]) for m in mask])
        obs, rewards, terminated, truncated, infos = batch.step(actions)
        assert obs.shape[0] == 8 and np.isfinite(obs).all()
print("OK")
"""
    )


# ----------------------------------------------------------------------------- sizes and names


def test_a_batch_of_a_game_without_action_names_names_moves_by_number() -> None:
    isolated(
        PRELUDE
        + """
for name, seats in (("heckmeck", 3), ("sechs_nimmt", 3), ("court", 3), ("diamant", 3)):
    game = make(name, seats, core="native")
    bare = type(game._native)(seats, dict(game.options))
    copied = copy.copy(game._native)
    for core in (bare, copied):
        batch = batch_of(core)
        batch.reset()
        bad = np.array([game.num_actions + 5, game.num_actions + 5])
        illegal = np.array([[a for a in range(game.num_actions) if not batch.mask[0][a]] or [0]][0][:1] * 2)
        for actions in (bad, illegal):
            try:
                batch.step(actions)
            except IllegalActionError as error:
                assert "legal moves" in str(error), error
print("OK")
"""
    )


def test_a_copy_of_a_native_game_keeps_its_action_names_and_padding() -> None:
    game: Any = make("heckmeck", 3, core="native")
    for clone in (copy.copy(game._native), copy.deepcopy(game._native)):
        batch = type(clone).__module__  # the module's classes
        assert batch
        from tablezoo.games import _native  # type: ignore[attr-defined]

        b = _native.HeckmeckBatch(clone, 1, 0, 1, True, False, 0, -1, [], False, -1.0)
        b.reset()
        assert b.obs.shape == (1, game.padded_spec.size)
        bad = next(a for a in range(game.num_actions) if not b.mask[0][a])
        first = int(b.mask[0].argmax())
        named = f"legal moves: {game.action_names[first]} \\({first}\\)"
        with pytest.raises(IllegalActionError, match=named):
            b.step(np.array([bad]))


def test_a_padding_size_beyond_32_bits_is_refused() -> None:
    isolated(
        PRELUDE
        + """
for name, seats in (("heckmeck", 3), ("sechs_nimmt", 3), ("court", 3), ("diamant", 3)):
    game = make(name, seats, core="native")
    core = type(game._native)(seats, dict(game.options))
    n = core.observation_size
    try:
        core.set_padding(np.arange(n), 2**32 + 10, 3)
    except (ValueError, OverflowError) as error:
        assert str(error)
    else:
        batch = batch_of(core, padded=True)
        batch.reset()
        raise AssertionError("a padding size beyond 32 bits was taken")
print("OK")
"""
    )


# ----------------------------------------------------------------------------- resources


@pytest.mark.skipif(SANITIZED, reason="AddressSanitizer reserves the address space that the limit counts")
def test_a_pool_that_cannot_start_its_threads_raises_instead_of_hanging() -> None:
    """Address space for about 40 thread stacks and a batch of 256 threads: a Python error, not a
    hang (the pool's constructor threw with workers started and the GIL held)."""
    out = isolated(
        PRELUDE
        + """
import resource, threading
from tablezoo.envs.batched import SelfPlayBatch
from tablezoo.games import _native
game = make("heckmeck", 3, core="native")
with open("/proc/self/status") as status:
    vm = next(int(line.split()[1]) for line in status if line.startswith("VmSize")) * 1024
resource.setrlimit(resource.RLIMIT_AS, (vm + 40 * 8 * 2**20, resource.RLIM_INFINITY))
errors = 0
for attempt in range(3):
    try:
        batch = _native.HeckmeckBatch(game._native, 4, 0, 256, False, False, 0, -1, [], False, -1.0)
    except (RuntimeError, MemoryError) as error:
        assert "thread" in str(error), error
        errors += 1
    else:
        batch.reset()
print(errors, threading.active_count())
print("OK")
""",
        timeout=60,
    )
    assert int(out.split()[0]) == 3, out


def test_a_network_too_large_for_memory_raises_memory_error() -> None:
    isolated(
        PRELUDE
        + """
huge = np.broadcast_to(np.float32(0), (2**40, 4))
try:
    bias = np.broadcast_to(np.float32(0), (2**40,))
    _native.PolicyValueNet([huge], [bias], None, None, np.ones(4, np.float32), None, "relu", False)
except MemoryError:
    pass
else:
    raise AssertionError("no MemoryError")
print("OK")
""",
        env={"ASAN_OPTIONS": os.environ.get("ASAN_OPTIONS", "") + ":allocator_may_return_null=1"},
    )


# ----------------------------------------------------------------------------- one contract


@pytest.mark.parametrize("core_name", ["native", "python"])
def test_a_phase_word_with_a_nul_is_refused_by_both_cores(core_name: str) -> None:
    game = make("heckmeck", 3, core=core_name)
    state = game.initial_state()
    rng = np.random.default_rng(0)
    game.advance(state, rng)
    data = game.state_to_dict(state)
    assert data["state"]["phase"] == "keep"
    data["state"]["phase"] = "keep\0anything"
    with pytest.raises(StateError, match="phase"):
        game.state_from_dict(data)


@pytest.mark.parametrize("core_name", ["native", "python"])
def test_an_option_name_with_a_nul_is_refused_by_both_cores(core_name: str) -> None:
    with pytest.raises(ConfigError, match=r"quick\\x00junk"):
        make("heckmeck", 3, core=core_name, **{"quick\0junk": True})


def test_the_cores_refuse_a_nul_in_the_same_words() -> None:
    from tablezoo.games import _native  # type: ignore[attr-defined]

    with pytest.raises(ConfigError) as native_error:
        _native.Heckmeck(3, {"quick\0junk": True})
    with pytest.raises(ConfigError) as python_error:
        make("heckmeck", 3, core="python", **{"quick\0junk": True})
    assert str(native_error.value) == str(python_error.value)


def test_a_native_option_name_with_a_nul_is_refused_by_the_core_itself() -> None:
    from tablezoo.games import _native  # type: ignore[attr-defined]

    with pytest.raises(ConfigError, match="NUL"):
        _native.Heckmeck(3, {"quick\0junk": True})
    game: Any = make("heckmeck", 3, core="native")
    fields = game.initial_state().to_fields()
    fields["phase"] = "keep\0anything"
    with pytest.raises(StateError, match="phase"):
        game._native.state_from_fields(fields)


def test_a_live_state_or_game_cannot_be_initialised_again() -> None:
    game: Any = make("heckmeck", 3, core="native")
    native = game._native
    state = game.initial_state()
    game.advance(state, np.random.default_rng(0))
    before = state.to_fields()
    other = make("heckmeck", 4, core="native").initial_state()
    with pytest.raises(TypeError, match="already"):
        state.__setstate__(other.__getstate__())
    assert state.to_fields() == before
    with pytest.raises(TypeError, match="already"):
        native.__init__(4, {"quick": True})
    with pytest.raises(TypeError, match="already"):
        native.__setstate__((4, {"quick": True}))
    assert native.num_seats == 3
    assert native.legal_actions(state) == game.legal_actions(state)
