"""The native core: the four games' rules in C++, behind the same contract as the Python engine.

The rules exist twice, on purpose, as CPython keeps ``heapq`` beside ``_heapq``
(PEP 399). The Python modules of :mod:`tablezoo.games` are the readable reference and
the spec; the C++ core (the extension ``tablezoo.games._native``, built from
``native/`` by the package's own build) is the fast path. Both play the same game move
for move: the same legal actions, chance odds, observations (bit for bit), scores and
JSON states, which the lockstep tests check over many games.

Which core runs
---------------
:func:`tablezoo.games.make` (and so every env, bot, table and training run) builds the
native game when the core is built, and the Python one otherwise. One setting forces
the reference everywhere::

    TABLEZOO_CORE=python   # the Python engine, even where the native core is built
    TABLEZOO_CORE=native   # the native core, or an error that says it is not built

``make(name, core="python")`` (and the envs' ``core=`` argument) chooses for one game.

What is native
--------------
:class:`NativeGame` is a :class:`~tablezoo.games.core.Game` whose states are native
objects (their fields read like the Python dataclass's, under the same names) and whose
hot methods are the core's own: ``to_move``, ``legal_actions``, ``legal_mask``,
``apply``, chance (enumerate, force, sample), ``observe``, ``observe_batch``,
``observe_padded``, ``scores``, ``winners``, ``clone`` and the JSON states. What is
for people rather than for speed comes from the Python reference, on the same state:
command words and their parsing, error messages, ``view``, ``render``, the text of a
chance outcome, and ``determinize``. Chance sampled from a numpy ``Generator``
(``sample_chance``, ``advance``) is drawn in the core from the generator's own bits with
numpy's algorithms, so it draws exactly what the reference draws: a seeded game is the
same game on both cores. Some bots have native ports too (:attr:`NativeGame.native_ports`,
Heckmeck's ``solver``), which :func:`tablezoo.bots.registry.make_bot` seats on a native
game; their Python bots stay the reference, move for move.

Every input is checked in the core: an illegal action, a seat out of range, a state of
another configuration, a malformed outcome or a hostile JSON state raises the engine's
exception (:class:`~tablezoo.games.core.IllegalActionError`,
:class:`~tablezoo.games.core.OutcomeError`, :class:`~tablezoo.games.core.StateError`)
and leaves the state as it was.
"""

from __future__ import annotations

import dataclasses
import functools
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from tablezoo.games.core import CHANCE, ConfigError, Game, OutcomeError

try:
    from tablezoo.games import _native  # type: ignore[attr-defined]
except ImportError as error:  # built without a C++ compiler: the Python engine alone
    _native = None
    _IMPORT_ERROR: ImportError | None = error
else:
    _IMPORT_ERROR = None

__all__ = ["CORES", "NativeGame", "available", "native_class", "resolve_core"]

CORES = ("native", "python")
"""The two cores: the C++ one and the Python reference."""

ENV_VAR = "TABLEZOO_CORE"
"""The environment variable that chooses the core (``native`` or ``python``)."""


def available() -> bool:
    """Whether the native core is built (the extension imports)."""
    return _native is not None


def resolve_core(core: str | None = None) -> str:
    """The core to use: ``core`` when given, else :data:`ENV_VAR`, else native when built."""
    if core is None:
        core = os.environ.get(ENV_VAR, "").strip().lower() or ("native" if available() else "python")
        where = f"{ENV_VAR}={core!r}"
    else:
        where = f"core={core!r}"
    if core not in CORES:
        raise ConfigError(f"{where} names no core; the cores are: {', '.join(CORES)}")
    if core == "native" and not available():
        raise ConfigError(
            f"{where}: the native core is not built ({_IMPORT_ERROR}); build it with `make` "
            "(it needs a C++17 compiler, e.g. `apt-get install g++`) or use the Python core"
        )
    return core


class NativeGame(Game[Any]):
    """A game whose rules run in the native core; see the module docstring.

    Built like its Python twin (``NativeHeckmeck(num_seats, **options)``), with the same
    metadata, action names, observation spec and errors. :attr:`reference` is the Python
    game of the same configuration.
    """

    read_only_mask: Any
    """``read_only_mask(state)``: :meth:`legal_mask` as a read-only array, made so in the core (the
    AEC env shares its masks between decisions)."""

    reference_class: ClassVar[type[Game[Any]]]
    core_class: ClassVar[Any]
    core: ClassVar[str] = "native"
    _secret: Callable[[Any], bool] | None = None
    """The reference's secret_decision, or None where no move is ever secret."""

    def __init__(self, num_seats: int | None = None, **options: bool) -> None:
        self.reference: Game[Any] = self.reference_class(num_seats, **options)
        super().__init__(num_seats, **options)

    def __reduce__(self) -> tuple[Any, ...]:
        # rebuilt from its configuration (the bound C++ functions are not picklable themselves)
        return (_rebuild, (self.reference_class, self.num_seats, dict(self.options)))

    def _configure(self) -> None:
        ref = self.reference
        self.action_names = ref.action_names
        self.observation_spec = ref.observation_spec
        self.action_fields = ref.action_fields
        self.padded_spec = ref.padded_spec
        self._secret = None if type(ref).secret_decision is Game.secret_decision else ref.secret_decision
        self._padded_index = ref._padded_index
        # the action names and the padding are the core game's from its construction: a copy or a
        # pickle of it (and every batch or search built from one) carries them
        native = self._native = self.core_class(
            self.num_seats,
            dict(self.options),
            action_names=list(self.action_names),
            padding=(self._padded_index, self.padded_spec.size, self.num_seats - 1),
        )
        # The hot methods are the core's own: no Python frame between the caller and C++; the
        # ones a game loop calls at every decision are plain fastcall functions (bind/fast.h).
        fast = native.fast_methods()
        self.to_move = fast["to_move"]  # type: ignore[method-assign]
        self.legal_actions = fast["legal_actions"]  # type: ignore[method-assign]
        self.legal_mask = native.legal_mask  # type: ignore[method-assign]
        self.observe = fast["observe"]  # type: ignore[method-assign]
        self.read_only_mask = fast["legal_mask"]
        self.observe_padded = native.observe_padded  # type: ignore[method-assign]
        self.initial_state = native.initial_state  # type: ignore[method-assign]
        self.clone = native.clone  # type: ignore[method-assign]
        self.scores = native.scores  # type: ignore[method-assign]
        self.is_terminal = native.is_terminal  # type: ignore[method-assign]
        self._apply_chance = native.apply_chance  # type: ignore[method-assign]
        self.apply = fast["apply"]  # type: ignore[method-assign]
        self._apply = fast["apply"]  # type: ignore[method-assign]  # the core checks every action
        self.sample_chance = native.sample_chance  # type: ignore[method-assign]
        self.advance = fast["advance"]  # type: ignore[method-assign]
        # the parallel env's step in one call, for its common case (TablezooParallelEnv.step)
        self.parallel_step = fast["parallel_step"]

    def _add_aliases(self) -> None:
        self._command_aliases.update(self.reference._command_aliases)

    @property
    def native_ports(self) -> tuple[str, ...]:
        """The bots the core has native ports of, by name (their Python bots stay the reference)."""
        return tuple(self._native.ports)

    def native_port(self, name: str, seed: int = 0) -> Any:
        """A new native port of the bot ``name`` for this game, its randomness seeded with
        ``seed``: its ``act(state)`` (and, for a bot that values moves, ``action_values(state)``)
        take a native state of the game, ``reset(seed=None)`` starts a new game."""
        if name not in self._native.ports:
            ports = ", ".join(self.native_ports) or "none"
            title = self.info.title
            raise ConfigError(f"the native core has no port of {title}'s bot {name!r}; ports: {ports}")
        return self._native.ports[name](self._native, seed)

    @property
    def has_native_search(self) -> bool:
        """Whether the core runs :class:`~tablezoo.bots.search.AgentBot`'s search for this game (it
        needs the game's determinisation in the core)."""
        return self._native.agent_search is not None

    def native_search(
        self, net: Any, simulations: int, c_puct: float = 1.5, horizon: int = 0, seed: int = 0, **think: Any
    ) -> Any:
        """A new native search of ``simulations`` simulations for this game, guided by ``net`` (the
        core's network: :func:`tablezoo.bots.native.native_net`), its randomness seeded with
        ``seed``: its ``act(state)`` takes a native state of the game, ``reset(seed=None)`` starts a
        new game. ``horizon`` 0 is AgentBot's default (two rounds of the others). ``think``: the
        Gumbel root's settings (``root``, ``considered``, ``confidence``, ``leaf``, ``seconds``; see
        :class:`~tablezoo.bots.search.AgentBot`)."""
        if self._native.agent_search is None:
            raise ConfigError(
                f"the native core has no search for {self.info.title}: it does not determinise it yet"
            )
        return self._native.agent_search(self._native, net, simulations, c_puct, horizon, seed, **think)

    def __getattr__(self, name: str) -> Any:
        # A game's own helpers (Heckmeck's claims, Court's roll_size, ...) read states
        # through their fields, which a native state has too: they come from the reference.
        reference = self.__dict__.get("reference")
        if reference is None or name.startswith("__"):
            raise AttributeError(name)
        return getattr(reference, name)

    # ------------------------------------------------------------ the contract, natively
    # (each is replaced per instance by the core's bound method; these say what they are)

    def initial_state(self) -> Any:
        return self._native.initial_state()

    def to_move(self, state: Any) -> int:
        return int(self._native.to_move(state))

    def legal_actions(self, state: Any) -> list[int]:
        return list(self._native.legal_actions(state))

    def observe(self, state: Any, seat: int) -> np.ndarray:
        return np.asarray(self._native.observe(state, seat))

    def scores(self, state: Any) -> list[float]:
        return list(self._native.scores(state))

    def _apply(self, state: Any, action: int) -> None:
        self.apply(state, action)

    def apply(
        self, state: Any, action: int, *, check: bool = True, legal: Sequence[int] | None = None
    ) -> None:
        """Apply ``action`` for the seat to move. The core checks every action (``check`` and
        ``legal`` are taken for the contract's sake): an illegal one raises
        :class:`IllegalActionError` naming the legal moves and changes nothing."""
        self._native.apply(state, action)

    def winners(self, state: Any) -> list[int]:
        return list(self._native.winners(state))

    # ------------------------------------------------------------ chance

    def chance_outcomes(self, state: Any) -> list[tuple[Any, float]]:
        return list(self._native.chance_outcomes(state))

    def check_outcome(self, state: Any, outcome: Any) -> Any:
        return self.reference.check_outcome(state, outcome)

    def _apply_chance(self, state: Any, outcome: Any) -> None:
        self._native.apply_chance(state, outcome)

    def apply_chance(self, state: Any, outcome: Any, *, check: bool = True) -> None:
        """Force the outcome of the current chance node; the reference parses and checks it
        (the same messages), and the core checks it again before it applies it."""
        self._check_state(state)
        if self.to_move(state) != CHANCE:
            raise OutcomeError("no chance outcome is due: a seat is to move or the game is over")
        self._native.apply_chance(state, self.reference.check_outcome(state, outcome))

    def sample_chance(self, state: Any, rng: np.random.Generator) -> Any:
        # the reference's draw from the same generator: a seeded game is the same on both cores
        return self.reference.sample_chance(state, rng)

    def advance(self, state: Any, rng: np.random.Generator) -> int:
        to_move, apply_chance, sample = (
            self._native.to_move,
            self._native.apply_chance,
            self.reference.sample_chance,
        )
        mover = to_move(state)
        while mover == CHANCE:
            apply_chance(state, sample(state, rng))
            mover = to_move(state)
        return int(mover)

    # ------------------------------------------------------------ observations

    def observe_batch(self, states: Sequence[Any], seats: Sequence[int]) -> np.ndarray:
        return np.asarray(self._native.observe_batch(states, seats))

    def encode_state(self, state: Any) -> np.ndarray:
        observe = self._native.observe
        return np.concatenate([observe(state, seat) for seat in range(self.num_seats)])

    # ------------------------------------------------------------ for people: the reference's

    def view(self, state: Any, seat: int | None) -> dict[str, Any]:
        return self.reference.view(self.to_reference(state), seat)

    def render(self, state: Any, seat: int | None = None) -> str:
        return self.reference.render(self.to_reference(state), seat)

    def describe_outcome(self, state: Any, outcome: Any) -> str:
        return self.reference.describe_outcome(self.to_reference(state), outcome)

    def secret_decision(self, state: Any) -> bool:
        # The reference's rule reads the state's fields, which a native state has too: asked on
        # the native state itself, without a copy into the Python engine's (tens of
        # microseconds; the parallel env asks at every step). A game whose moves are never
        # secret answers without a call.
        if not isinstance(state, self.state_type):
            self._check_state(state)  # raises, naming the state's type
        return self._secret(state) if self._secret is not None else False

    def chance_context(self, state: Any) -> int:
        # the core's own, as its search reads it (the lockstep tests hold it to the reference's)
        self._check_state(state)
        return int(self._native.chance_context(state))

    def determinize(self, state: Any, seat: int, rng: np.random.Generator) -> Any:
        return self.from_reference(self.reference.determinize(self.to_reference(state), seat, rng))

    # ------------------------------------------------------------ states between the cores

    def to_reference(self, state: Any) -> Any:
        """The Python engine's state equal to the native ``state``."""
        self._check_state(state)
        return self.reference.state_type(**state.to_fields())

    def from_reference(self, state: Any) -> Any:
        """The native state equal to the Python engine's ``state`` (checked)."""
        return self._native.state_from_fields(state.__dict__)

    def replace(self, state: Any, **changes: Any) -> Any:
        self._check_state(state)
        names = {f.name for f in dataclasses.fields(self.reference.state_type)}
        unknown = sorted(set(changes) - names)
        if unknown:
            raise ConfigError(f"{self.info.title} states have no field {', '.join(map(repr, unknown))}")
        return self._native.state_from_fields({**state.to_fields(), **changes})

    def state_to_dict(self, state: Any) -> dict[str, Any]:
        self._check_state(state)
        return {
            "game": self.info.name,
            "version": self.info.version,
            "config": self.config,
            "state": state.to_fields(),
        }

    def state_from_dict(self, data: Mapping[str, Any]) -> Any:
        """Rebuild a state from :meth:`state_to_dict` (either core's); a malformed or
        impossible one raises :class:`~tablezoo.games.core.StateError` naming the field."""
        if not isinstance(data, Mapping):
            raise ConfigError(f"a state is a dict with game, config and state, not {type(data).__name__}")
        if data.get("game") != self.info.name:
            raise ConfigError(f"this is a {data.get('game')!r} state, not {self.info.name!r}")
        if data.get("config") != self.config:
            raise ConfigError(f"state configuration {data.get('config')} differs from {self.config}")
        values = data.get("state")
        fields = sorted(f.name for f in dataclasses.fields(self.reference.state_type))
        if not isinstance(values, Mapping) or sorted(values) != fields:
            found = sorted(values) if isinstance(values, Mapping) else values
            raise ConfigError(f"state fields {found} differ from {fields}")
        return self._native.state_from_fields(dict(values))

    def _check_state(self, state: Any) -> None:
        if not isinstance(state, self.state_type):
            raise TypeError(
                f"{type(state).__name__} is not a state of the native core's {self.info.title}; "
                "convert a Python engine state with game.from_reference(state) or through JSON"
            )


def _rebuild(reference: type[Game[Any]], num_seats: int, options: dict[str, bool]) -> NativeGame:
    return native_class(reference)(num_seats, **options)


@functools.cache
def native_class(reference: type[Game[Any]]) -> type[NativeGame]:
    """The native twin of the Python game class ``reference`` (``NativeHeckmeck`` ...)."""
    if _native is None:
        resolve_core("native")  # raises, naming why
    core_class = getattr(_native, reference.__name__)
    return type(
        f"Native{reference.__name__}",
        (NativeGame,),
        {
            "__doc__": f"{reference.info.title} on the native core (see :mod:`tablezoo.games.native`).",
            "__module__": __name__,
            "info": reference.info,
            "reference_class": reference,
            "core_class": core_class,
            "state_type": getattr(_native, f"{reference.__name__}State"),
        },
    )
