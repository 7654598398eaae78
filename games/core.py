"""The shared rules engine: one contract that every game module fulfils.

A game is split in two:

* a :class:`Game` object, built from a seat count and the game's options. It
  holds the rules and everything derived from the configuration (action names,
  observation spec, sizes) and never changes after construction;
* a state: a plain dataclass of JSON-native values (ints, bools, strings,
  ``None``, lists and string-keyed dicts of those). States carry no behaviour,
  so copying them and writing them to JSON is generic (:meth:`Game.clone`,
  :meth:`Game.to_json`), exact, and the same for every game.

Whose move it is (:meth:`Game.to_move`) is a seat ``0..n-1``, :data:`CHANCE`
or :data:`TERMINAL`. The engine never holds a random generator: at a chance
node the caller either samples an outcome from its own generator
(:meth:`Game.sample_chance`), enumerates the outcomes with exact probabilities
where that is small (:meth:`Game.chance_outcomes`), or forces a given outcome
(:meth:`Game.apply_chance`, used by scripted scenarios and replays).

Simultaneous choices are asked seat by seat; a seat's choice is kept in the
state but never shown to another seat until all have chosen.

Every action has a command word for people (``keep worm``, ``play 42``); the
words are fixed by the configuration and parse both ways
(:meth:`Game.command`, :meth:`Game.parse_command`).

Observations are fixed-length float32 vectors described by an
:class:`ObservationSpec`: a table of named fields from which the offsets, the
bounds and the documentation are all derived. Their length grows with the seat
count; :meth:`Game.observe_padded` gives the same observation in one layout
shared by every seat count (:attr:`Game.padded_spec`), for a network that plays
them all.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import operator
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

import numpy as np

__all__ = [
    "CHANCE",
    "TERMINAL",
    "CommandError",
    "ConfigError",
    "Field",
    "Game",
    "GameInfo",
    "IllegalActionError",
    "ObservationSpec",
    "Option",
    "OutcomeError",
    "StateError",
    "TablezooError",
    "action_mask",
    "action_number",
    "relative_seats",
]

CHANCE = -1
"""`Game.to_move` value: the next step is a chance outcome (roll, shuffle, reveal)."""
TERMINAL = -2
"""`Game.to_move` value: the game is over."""
BYTE = np.dtype(np.uint8)
FLOAT32 = np.dtype(np.float32)
"""The dtypes of a byte-built observation and of the vector it becomes, as objects: numpy
takes a dtype object a few hundred nanoseconds faster than a type (a fifth of a small ``observe``)."""
_WHOLE = (int, np.integer)
"""What a seat number may be."""


def as_numbers(values: list[int]) -> np.ndarray:
    """Whole numbers read out of states, as one int64 array (for ``observe_batch``).

    Read through ``bytes`` while every number is 0..255, about twice as fast as
    ``np.fromiter`` or ``np.array`` on a list; a number outside that range (or a
    negative one) takes the plain way.
    """
    try:
        return np.frombuffer(bytes(values), BYTE).astype(np.int64)
    except ValueError:  # a number outside 0..255
        return np.array(values, np.int64)


def flat_numbers(lists: Iterable[Sequence[int]]) -> np.ndarray:
    """The numbers of many lists one after another, as one int64 array (see :func:`as_numbers`).

    The lists are joined by in-place addition (a copy of pointers per list, no Python
    step per number), the fastest way to flatten lists of a batch of states.
    """
    return as_numbers(functools.reduce(operator.iadd, lists, []))


# --------------------------------------------------------------------------- errors


class TablezooError(ValueError):
    """Base class of every error a bad input raises; the state is left as it was."""


class ConfigError(TablezooError):
    """A seat count out of range, an unknown option or an option of the wrong type."""


class IllegalActionError(TablezooError):
    """An action that is out of range or not legal in the current state."""


class CommandError(TablezooError):
    """A command word that names no action of the game."""


class OutcomeError(TablezooError):
    """A forced chance outcome that is malformed or impossible in the state."""


class StateError(TablezooError):
    """A state read from outside (JSON, a dict) that is malformed or that no game reaches."""


def action_number(action: Any) -> int:
    """The action id ``action`` stands for: a whole number given as an ``int``, a numpy integer,
    a 0-d integer array or anything else with ``__index__``, but not a bool. Anything else (a
    one-element array, a float, a string) raises :class:`IllegalActionError` naming what it is;
    both cores read actions so."""
    if action.__class__ is int:
        return action
    if isinstance(action, (bool, np.bool_)):
        raise IllegalActionError(f"action {action!r} is a bool, not an action number")
    if isinstance(action, np.ndarray) and (action.ndim != 0 or action.dtype.kind not in "iu"):
        raise IllegalActionError(
            f"action {_shown(action)} is a numpy array of shape {action.shape} and dtype {action.dtype}, "
            "not one action: an action is one whole number (an int, a numpy integer or a 0-d integer "
            "array; a.item() gives it)"
        )
    if hasattr(type(action), "__index__"):
        try:
            return operator.index(action)
        except Exception:
            raise IllegalActionError(
                f"action {_shown(action)} (a {type(action).__name__}) cannot be read as a whole number"
            ) from None
    raise IllegalActionError(f"action {_shown(action)} is a {type(action).__name__}, not a whole number")


def _shown(value: Any) -> str:
    """A short printable form of ``value`` for a message, whatever its ``__repr__`` does."""
    try:
        text = repr(value)
    except Exception:
        text = f"<a {type(value).__name__} that cannot be printed>"
    return text if len(text) <= 80 else text[:77] + "..."


# --------------------------------------------------------------------------- state checks
# For Game.validate: a StateError naming the field when a value has the wrong type or is out
# of its range, as the native core's reader and its validate name them (core.h).


def require(ok: bool, what: str) -> None:
    """Raise :class:`StateError` with ``what`` unless ``ok``."""
    if not ok:
        raise StateError(what)


def require_whole(value: Any, where: str) -> int:
    """``value`` when it is a whole number of 9 digits at most (not a bool), else StateError."""
    if isinstance(value, bool) or not isinstance(value, int) or not -(10**9) <= value <= 10**9:
        raise StateError(f"{where} should be a whole number of 9 digits at most, not {value!r}")
    return value


def require_range(value: Any, low: int, high: int, name: str) -> int:
    """``value`` when it is a whole number ``low..high``, else StateError naming it."""
    require_whole(value, name)
    if not low <= value <= high:
        raise StateError(f"{name} is {value}, outside {low}..{high}")
    return int(value)


def require_list(value: Any, where: str, size: int | None = None) -> list[Any]:
    """``value`` when it is a list (of ``size`` entries, given one), else StateError."""
    if not isinstance(value, list):
        raise StateError(f"{where} should be a list, not {value!r}")
    if size is not None and len(value) != size:
        raise StateError(f"{where} has {len(value)} entries, not {size}")
    return value


def require_text(value: Any, where: str, capacity: int) -> str:
    """``value`` when it is text of at most ``capacity`` characters (UTF-8 bytes), else StateError."""
    if not isinstance(value, str) or len(value.encode()) > capacity:
        raise StateError(f"{where} should be text of at most {capacity} characters, not {value!r}")
    return value


# --------------------------------------------------------------------------- metadata


@dataclass(frozen=True)
class Option:
    """A game option: a variant people switch on with ``/option NAME``."""

    name: str
    default: bool
    help: str


@dataclass(frozen=True)
class GameInfo:
    """Declared metadata of a game, independent of any configuration."""

    name: str
    title: str
    version: int
    min_seats: int
    max_seats: int
    default_seats: int
    options: tuple[Option, ...] = ()
    hidden_information: bool = False
    chance: bool = True

    @property
    def seat_range(self) -> range:
        """The seat counts the game allows, ``min_seats`` to ``max_seats``."""
        return range(self.min_seats, self.max_seats + 1)

    @property
    def option_names(self) -> tuple[str, ...]:
        return tuple(o.name for o in self.options)

    def defaults(self) -> dict[str, bool]:
        return {o.name: o.default for o in self.options}


# --------------------------------------------------------------------------- observation


@dataclass(frozen=True)
class Field:
    """One named piece of an observation vector.

    ``size`` consecutive entries, each within ``[low, high]``. ``doc`` says what
    one entry means; it is the text of the observation table.
    """

    name: str
    size: int
    low: float
    high: float
    doc: str


@dataclass(frozen=True)
class ObservationSpec:
    """The layout of an observation vector: fields in order, offsets derived."""

    fields: tuple[Field, ...]
    offsets: Mapping[str, int] = field(init=False, repr=False)
    size: int = field(init=False)
    small_integers: bool = field(init=False, repr=False)
    """Every value is a whole number 0..255, so :meth:`buffer` can build the observation."""

    def __post_init__(self) -> None:
        offsets: dict[str, int] = {}
        at = 0
        for f in self.fields:
            if f.name in offsets:
                raise ValueError(f"observation field {f.name!r} appears twice")
            if f.size < 1 or f.low > f.high:
                raise ValueError(f"observation field {f.name!r} has a bad size or bounds")
            offsets[f.name] = at
            at += f.size
        object.__setattr__(self, "offsets", offsets)
        object.__setattr__(self, "size", at)
        object.__setattr__(self, "small_integers", all(f.low >= 0 and f.high <= 255 for f in self.fields))

    def slice(self, name: str) -> slice:
        start = self.offsets[name]
        return slice(start, start + self[name].size)

    def __getitem__(self, name: str) -> Field:
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(name)

    def low(self) -> np.ndarray:
        return np.concatenate([np.full(f.size, f.low, np.float32) for f in self.fields])

    def high(self) -> np.ndarray:
        return np.concatenate([np.full(f.size, f.high, np.float32) for f in self.fields])

    def scale(self) -> np.ndarray:
        """What to divide an observation by so that every entry is in 0..1 (each field's bound)."""
        high = self.high()
        return np.where(high > 0, high, 1.0).astype(np.float32)

    def buffer(self) -> bytearray:
        """A zeroed buffer to build an observation in, when every value is a whole number 0..255.

        Python writes into a ``bytearray`` several times faster than into a numpy
        array; :meth:`to_array` turns the buffer into the float32 observation.
        """
        if not self.small_integers:
            raise ValueError("an observation with values outside 0..255 cannot be built in a byte buffer")
        return bytearray(self.size)

    @staticmethod
    def to_array(buffer: bytearray) -> np.ndarray:
        return np.frombuffer(buffer, BYTE).astype(FLOAT32)

    def unpack(self, vector: np.ndarray) -> dict[str, np.ndarray]:
        """Split an observation vector into its named fields (for people and tests)."""
        return {f.name: vector[self.slice(f.name)] for f in self.fields}

    def describe(self) -> str:
        """The observation table in Markdown, as the game modules' docstrings show it."""
        rows = ["| index | field | size | range | meaning |", "|---|---|---|---|---|"]
        for f in self.fields:
            start = self.offsets[f.name]
            span = str(start) if f.size == 1 else f"{start}-{start + f.size - 1}"
            rows.append(f"| {span} | {f.name} | {f.size} | {f.low:g}..{f.high:g} | {f.doc} |")
        return "\n".join(rows)


@functools.lru_cache(maxsize=64)
def _padded_spec(cls: type[Game[Any]], options: tuple[tuple[str, bool], ...]) -> ObservationSpec:
    return cls(cls.info.default_seats, **dict(options))._build_padded_spec()


def action_mask(actions: Iterable[int], num_actions: int) -> np.ndarray:
    """An int8 mask with a 1 at each of ``actions`` (built as bytes: the fast way for short lists)."""
    mask = bytearray(num_actions)
    for a in actions:
        mask[a] = 1
    return np.frombuffer(mask, np.int8)


def relative_seats(seat: int, num_seats: int) -> list[int]:
    """Seats in the order an observation lists them: ``seat`` first, then clockwise."""
    return [(seat + k) % num_seats for k in range(num_seats)]


# --------------------------------------------------------------------------- copying


def _copy_value(value: Any) -> Any:
    # States hold only JSON-native values, so a copy needs only lists and dicts
    # rebuilt; this is several times faster than copy.deepcopy.
    if isinstance(value, list):
        if value and isinstance(value[0], (list, dict)):
            return [_copy_value(v) for v in value]
        return value.copy()
    if isinstance(value, dict):
        return {k: _copy_value(v) for k, v in value.items()}
    return value


S = TypeVar("S")


# --------------------------------------------------------------------------- the contract


class Game(ABC, Generic[S]):
    """Rules of one game under one configuration (seat count and options).

    Subclasses set :attr:`info` and :attr:`state_type`, fill
    :attr:`action_names` and :attr:`observation_spec` in :meth:`_configure`, and
    implement the abstract methods. The public methods that take input from
    outside (:meth:`apply`, :meth:`apply_chance`, :meth:`parse_command`) check
    it and raise a :class:`TablezooError` subclass without touching the state.
    """

    info: ClassVar[GameInfo]
    state_type: ClassVar[type]
    core: ClassVar[str] = "python"
    """Which engine runs the rules: ``"python"`` (this reference) or ``"native"`` (the C++ core)."""

    action_names: tuple[str, ...]
    """The command word of each action id."""
    observation_spec: ObservationSpec
    action_fields: tuple[str, ...] = ()
    """Observation fields whose entry ``i`` describes action ``i`` (all of one size
    ``K``, for actions ``0 .. K-1``): a policy may score those actions with one
    network shared across them (:mod:`tablezoo.bots.net`). Empty: none."""

    def __init__(self, num_seats: int | None = None, **options: bool) -> None:
        info = self.info
        if num_seats is None:
            num_seats = info.default_seats
        if isinstance(num_seats, bool) or not isinstance(num_seats, (int, np.integer)):
            raise ConfigError(
                f"{info.title}: the seat count must be a whole number from "
                f"{info.min_seats} to {info.max_seats}, not {num_seats!r}"
            )
        if not info.min_seats <= num_seats <= info.max_seats:
            raise ConfigError(
                f"{info.title} is for {info.min_seats} to {info.max_seats} players, not {num_seats}"
            )
        for name in options:
            if "\0" in name:  # the native core refuses it in the same words (a C string ends there)
                raise ConfigError(
                    f"option name {name!r} holds a NUL character: an option is named by plain text"
                )
        unknown = sorted(set(options) - set(info.option_names))
        if unknown:
            allowed = ", ".join(info.option_names) or "none"
            raise ConfigError(
                f"{info.title} has no option {', '.join(map(repr, unknown))}; its options are: {allowed}"
            )
        merged = info.defaults()
        for name, value in options.items():
            if not isinstance(value, (bool, np.bool_)):
                raise ConfigError(f"option {name!r} is on or off (True/False), not {value!r}")
            merged[name] = bool(value)
        self.num_seats = int(num_seats)
        self.options: Mapping[str, bool] = merged
        self._configure()
        self.num_actions = len(self.action_names)
        self._command_index = {name: a for a, name in enumerate(self.action_names)}
        self._command_aliases: dict[str, int] = {}
        self._add_aliases()
        sizes = {self.observation_spec[name].size for name in self.action_fields}
        if len(sizes) > 1 or any(k > self.num_actions for k in sizes):
            raise ValueError(f"{info.name}: action fields must share one size, at most the action count")

    # ------------------------------------------------------------ to implement

    @abstractmethod
    def _configure(self) -> None:
        """Set :attr:`action_names` and :attr:`observation_spec` from the configuration."""

    def _add_aliases(self) -> None:
        """Register extra spellings of commands with :meth:`_alias` (optional)."""

    @abstractmethod
    def initial_state(self) -> S:
        """The state before the first chance node or decision."""

    @abstractmethod
    def to_move(self, state: S) -> int:
        """The seat to decide, :data:`CHANCE` or :data:`TERMINAL`."""

    @abstractmethod
    def legal_actions(self, state: S) -> list[int]:
        """The legal action ids in ascending order (empty unless a seat is to move)."""

    @abstractmethod
    def _apply(self, state: S, action: int) -> None:
        """Apply a legal action in place."""

    @abstractmethod
    def sample_chance(self, state: S, rng: np.random.Generator) -> Any:
        """Draw an outcome of the current chance node from ``rng``."""

    def chance_outcomes(self, state: S) -> list[tuple[Any, float]]:
        """Every outcome of the current chance node with its exact probability.

        Games offer this where the outcomes are few (dice); a shuffle raises
        ``NotImplementedError``.
        """
        raise NotImplementedError(f"{self.info.title} does not enumerate this chance node")

    @abstractmethod
    def check_outcome(self, state: S, outcome: Any) -> Any:
        """Validate a forced outcome, raise :class:`OutcomeError`, return it normalised."""

    @abstractmethod
    def _apply_chance(self, state: S, outcome: Any) -> None:
        """Apply a valid chance outcome in place."""

    @abstractmethod
    def observe(self, state: S, seat: int) -> np.ndarray:
        """The seat's observation, float32 of ``observation_spec.size``."""

    def observe_batch(self, states: Sequence[S], seats: Sequence[int]) -> np.ndarray:
        """The observations of ``seats[i]`` in ``states[i]``, as one float32 array ``(N, size)``.

        Row ``i`` equals ``observe(states[i], seats[i])``. This default builds the rows
        one by one into one array; a game overrides it where building them together is
        cheaper (search evaluates many nodes at once, vector envs many tables).
        """
        self._check_batch(states, seats)
        out = np.empty((len(states), self.observation_spec.size), np.float32)
        observe = self.observe
        for i, (state, seat) in enumerate(zip(states, seats, strict=True)):
            out[i] = observe(state, seat)
        return out

    def _check_batch(self, states: Sequence[S], seats: Sequence[int]) -> np.ndarray:
        """The seats of a batch as an int64 array; a batch whose states and seats do not pair
        up, or a seat that is not a whole number in range, is refused.

        The check runs over the whole batch at once (no Python line per seat): it is a
        fixed cost of :meth:`observe_batch`, not a cost per state.
        """
        if len(states) != len(seats):
            raise ValueError(
                f"observe_batch needs one seat per state: got {len(states)} states and {len(seats)} seats"
            )
        last = self.num_seats - 1
        kinds = set(map(type, seats))
        array = np.asarray(seats)
        if bool in kinds or np.bool_ in kinds or (len(array) and array.dtype.kind not in "iu"):
            odd = next(s for s in seats if isinstance(s, bool | np.bool_) or not isinstance(s, _WHOLE))
            raise ValueError(f"seat {odd!r} is not a seat number 0..{last}")
        if len(array) and not (array.min() >= 0 and array.max() <= last):
            outside = next(s for s in seats if not 0 <= s <= last)
            raise ValueError(f"seat {outside!r} is out of range 0..{last}")
        return array.astype(np.int64, copy=False)

    @abstractmethod
    def view(self, state: S, seat: int | None) -> dict[str, Any]:
        """A JSON-able dict of what ``seat`` may see (``None``: a spectator).

        Start it with :meth:`view_base` so that every game's view has the same
        common keys; add the game's own keys after.
        """

    @abstractmethod
    def scores(self, state: S) -> list[float]:
        """Game points of each seat so far; ``reward="score"`` pays their changes."""

    @abstractmethod
    def winners(self, state: S) -> list[int]:
        """The seats that share the win (call only at :data:`TERMINAL`)."""

    @abstractmethod
    def render(self, state: S, seat: int | None = None) -> str:
        """The table as text, like the site's screen, from ``seat``'s side."""

    @functools.cached_property
    def state_spec(self) -> ObservationSpec:
        """The layout of :meth:`encode_state`: every seat's observation fields, seat by seat.

        Field ``seat2/hand`` is the ``hand`` field of seat 2's observation.
        """
        fields = [
            Field(f"seat{seat}/{f.name}", f.size, f.low, f.high, f"seat {seat}'s {f.doc}")
            for seat in range(self.num_seats)
            for f in self.observation_spec.fields
        ]
        return ObservationSpec(tuple(fields))

    def encode_state(self, state: S) -> np.ndarray:
        """The whole state as one float32 vector (:attr:`state_spec`), for centralised critics.

        Every seat's observation, seat by seat: everything any seat knows, hidden
        hands and secret choices included; what no seat knows yet (the order of
        a shuffled deck) is chance still to come and is left out. Never show it
        to a seat: it holds the others' secrets.
        """
        return np.concatenate([self.observe(state, seat) for seat in range(self.num_seats)])

    # ------------------------------------------------------------ one layout for every seat count

    @functools.cached_property
    def padded_spec(self) -> ObservationSpec:
        """The layout of :meth:`observe_padded`: the same at every seat count of these options.

        A field ``seats`` (one-hot: the seat count, entry ``n - 1``) comes first,
        then every observation field at its size for the game's largest seat
        count. A per-seat field lists the seats observer first, seat by seat, so
        a smaller table's entries are the field's first ones and the seats that
        are not there read 0. One network can then play every seat count.
        """
        return _padded_spec(type(self), tuple(sorted(self.options.items())))

    @functools.cached_property
    def _padded_index(self) -> np.ndarray:
        """Where each entry of :meth:`observe` goes in :meth:`observe_padded`."""
        padded = self.padded_spec
        return np.concatenate(
            [padded.offsets[f.name] + np.arange(f.size) for f in self.observation_spec.fields]
        ).astype(np.intp)

    def _build_padded_spec(self) -> ObservationSpec:
        """:attr:`padded_spec`, built from a game of every seat count (once per class and options)."""
        games = [type(self)(n, **self.options) for n in self.info.seat_range]
        widest = games[-1].observation_spec
        fields = [Field("seats", self.info.max_seats, 0, 1, "one-hot: entry n-1 for n seats")]
        for f in widest.fields:
            same = [g.observation_spec[f.name] for g in games if f.name in g.observation_spec.offsets]
            if len(same) != len(games) or any(s.size > f.size for s in same):
                raise ConfigError(
                    f"{self.info.title}: field {f.name!r} has no layout shared by every seat count"
                )
            high = max(s.high for s in same)
            fields.append(Field(f.name, f.size, min(s.low for s in same), high, f.doc))
        if len(widest.fields) != len(self.observation_spec.fields):
            raise ConfigError(f"{self.info.title}: the fields differ between seat counts")
        return ObservationSpec(tuple(fields))

    def pad(self, observations: np.ndarray) -> np.ndarray:
        """Observations of :attr:`observation_spec` (one, or ``(N, size)``) in :attr:`padded_spec`."""
        observations = np.asarray(observations, np.float32)
        out = np.zeros((*observations.shape[:-1], self.padded_spec.size), np.float32)
        out[..., self._padded_index] = observations
        out[..., self.num_seats - 1] = 1.0
        return out

    def observe_padded(self, state: S, seat: int) -> np.ndarray:
        """``seat``'s observation in :attr:`padded_spec`, the layout every seat count shares."""
        return self.pad(self.observe(state, seat))

    def determinize(self, state: S, seat: int, rng: np.random.Generator) -> S:
        """A copy of ``state`` with everything ``seat`` cannot see drawn anew.

        The copy is consistent with all that ``seat`` knows, so ``seat``'s
        observation and view of it are the same as of ``state``. Search bots
        plan on such copies; tests use them to show that nothing hidden leaks.
        Games with no hidden state (besides future chance) return a plain copy.
        """
        return self.clone(state)

    def secret_decision(self, state: S) -> bool:
        """Whether the move now due stays hidden from the other seats until the game reveals it.

        True for a simultaneous choice that the engine asks seat by seat (a card
        chosen face down, a secret go/camp). Tables and logs then tell the other
        seats only that the seat has chosen.
        """
        return False

    def chance_context(self, state: S) -> int:
        """The part of the game the chance now due belongs to: the seat whose turn rolls the dice
        (Heckmeck, To Court the King), the cave whose path is drawn (Diamant), the round dealt
        (6 nimmt!); 0 where the game has no such parts.

        A search that compares moves on the same worlds draws each part's chance from its own
        stream (``agent:search=N,chance=turn``), so that the moves compared roll the same dice in
        the same turn, whatever happened before it: it is read before every chance outcome, from
        public fields only."""
        return 0

    def describe_outcome(self, state: S, outcome: Any) -> str:
        """A short public text for a chance outcome, for logs and front ends."""
        return str(outcome)

    def validate(self, state: S) -> None:
        """Raise :class:`StateError` naming what is wrong when ``state`` is not one this game
        reaches in a way its rules rely on (a state read from outside: JSON, a dict, a replace).

        After it passes, no rule reads outside a list and the seat to move has a legal move.
        The native core's ``validate`` checks the same, with the same messages.
        """

    # ------------------------------------------------------------ generic

    @property
    def name(self) -> str:
        return self.info.name

    @property
    def config(self) -> dict[str, Any]:
        return {"num_seats": self.num_seats, **self.options}

    def __repr__(self) -> str:
        opts = "".join(f", {k}=True" for k, v in self.options.items() if v)
        return f"{type(self).__name__}(num_seats={self.num_seats}{opts})"

    def is_terminal(self, state: S) -> bool:
        return self.to_move(state) == TERMINAL

    def legal_mask(self, state: S) -> np.ndarray:
        """The legal actions as an int8 mask of length :attr:`num_actions`."""
        return action_mask(self.legal_actions(state), self.num_actions)

    def apply(self, state: S, action: int, *, check: bool = True, legal: Sequence[int] | None = None) -> None:
        """Apply ``action`` for the seat to move.

        With ``check`` (the default) an action that is not legal raises
        :class:`IllegalActionError` naming the legal moves and changes nothing.
        ``legal``, the state's legal actions when the caller holds them already,
        spares computing them again for the check.
        """
        if check:
            if legal is None:
                legal = self.legal_actions(state)
            try:
                number = action if action.__class__ is int else action_number(action)
            except IllegalActionError as error:  # not a number at all: said so, with the legal moves
                mover = self.to_move(state)
                if mover < 0:
                    raise
                moves = ", ".join(f"{self.action_names[a]} ({a})" for a in legal)
                raise IllegalActionError(f"{error}; legal moves: {moves}") from None
            if number not in legal:
                raise IllegalActionError(self._illegal_message(state, number, legal))
            action = number
        self._apply(state, int(action))

    def apply_chance(self, state: S, outcome: Any, *, check: bool = True) -> None:
        """Force the outcome of the current chance node (scripted dice, deals, replays)."""
        if check:
            if self.to_move(state) != CHANCE:
                raise OutcomeError("no chance outcome is due: a seat is to move or the game is over")
            outcome = self.check_outcome(state, outcome)
        self._apply_chance(state, outcome)

    def step_chance(self, state: S, rng: np.random.Generator) -> Any:
        """Sample the current chance node from ``rng``, apply it and return it."""
        outcome = self.sample_chance(state, rng)
        self._apply_chance(state, outcome)
        return outcome

    def advance(self, state: S, rng: np.random.Generator) -> int:
        """Resolve chance nodes from ``rng`` until a seat is to move or the game ends."""
        mover = self.to_move(state)
        while mover == CHANCE:
            self._apply_chance(state, self.sample_chance(state, rng))
            mover = self.to_move(state)
        return mover

    def returns(self, state: S) -> list[float]:
        """Zero-sum terminal payoffs: the winners share +1, the others share -1."""
        winners = set(self.winners(state))
        n, k = self.num_seats, len(winners)
        if k == n:
            return [0.0] * n
        return [1.0 / k if s in winners else -1.0 / (n - k) for s in range(n)]

    def view_base(self, state: S, seat: int | None) -> dict[str, Any]:
        """The keys every view has: game, seat, num_seats, options, to_move (a seat or
        ``None``), legal (the seat's legal commands when it is to move, else empty),
        scores, and winners (``None`` until the game is over)."""
        mover = self.to_move(state)
        over = mover == TERMINAL
        return {
            "game": self.info.name,
            "seat": seat,
            "num_seats": self.num_seats,
            "options": dict(self.options),
            "to_move": mover if mover >= 0 else None,
            "legal": [self.action_names[a] for a in self.legal_actions(state)]
            if seat is not None and mover == seat
            else [],
            "scores": self.scores(state),
            "winners": self.winners(state) if over else None,
        }

    # ------------------------------------------------------------ commands

    def command(self, action: int) -> str:
        """The command word of an action id."""
        if not 0 <= action < self.num_actions:
            raise IllegalActionError(
                f"action {action} is out of range: {self.info.title} has actions 0..{self.num_actions - 1}"
            )
        return self.action_names[action]

    def _alias(self, text: str, action: int) -> None:
        self._command_aliases[self._normalise(text)] = action

    @staticmethod
    def _normalise(text: str) -> str:
        return " ".join(text.lower().replace("/", " ").split())

    def parse_command(self, text: str) -> int:
        """The action id of a command word (any case and spacing; aliases allowed)."""
        if not isinstance(text, str):
            raise CommandError(f"a command is text, not {type(text).__name__}")
        key = self._normalise(text)
        action = self._command_index.get(key)
        if action is None:
            action = self._command_aliases.get(key)
        if action is None:
            raise CommandError(f"{text.strip()!r} is not a move of {self.info.title}; {self._command_help()}")
        return action

    def parse_move(self, state: S, text: str) -> int:
        """Parse a command and check it is legal now; raise naming the legal moves."""
        action = self.parse_command(text)
        legal = self.legal_actions(state)
        if action not in legal:
            raise IllegalActionError(self._illegal_message(state, action, legal))
        return action

    def _command_help(self) -> str:
        words = sorted({name.split(" ")[0] for name in self.action_names})
        return "moves start with: " + ", ".join(words)

    def _illegal_message(self, state: S, action: Any, legal: Sequence[int]) -> str:
        mover = self.to_move(state)
        if mover == TERMINAL:
            return "the game is over: no move is legal"
        if mover == CHANCE:
            return "a chance outcome is due, not a move"
        try:
            what = repr(self.command(int(action)))
        except (IllegalActionError, TypeError, ValueError):
            what = f"action {action!r}"
        moves = ", ".join(f"{self.action_names[a]} ({a})" for a in legal)
        return f"{what} is not legal for seat {mover} now; legal moves: {moves}"

    # ------------------------------------------------------------ copies and JSON

    def clone(self, state: S) -> S:
        """A deep copy of a state, fast (states hold only JSON-native values)."""
        new = object.__new__(type(state))
        new.__dict__.update({k: _copy_value(v) for k, v in state.__dict__.items()})
        return new

    def replace(self, state: S, **changes: Any) -> S:
        """A copy of ``state`` with the named fields set anew (scenario set-ups, tests).

        A name that is not a field of the state raises :class:`ConfigError`, a state the
        game does not reach :class:`StateError` (:meth:`validate`).
        """
        names = {f.name for f in dataclasses.fields(self.state_type)}
        unknown = sorted(set(changes) - names)
        if unknown:
            raise ConfigError(f"{self.info.title} states have no field {', '.join(map(repr, unknown))}")
        new = dataclasses.replace(self.clone(state), **{k: _copy_value(v) for k, v in changes.items()})  # type: ignore[type-var]
        self.validate(new)
        return new

    def state_to_dict(self, state: S) -> dict[str, Any]:
        return {
            "game": self.info.name,
            "version": self.info.version,
            "config": self.config,
            "state": {k: _copy_value(v) for k, v in state.__dict__.items()},
        }

    def to_json(self, state: S) -> str:
        """The state and its configuration as JSON; :func:`load_state` reads it back."""
        return json.dumps(self.state_to_dict(state), separators=(",", ":"))

    def state_from_dict(self, data: Mapping[str, Any]) -> S:
        """Rebuild a state of this game and configuration from :meth:`state_to_dict`."""
        if data.get("game") != self.info.name:
            raise ConfigError(f"this is a {data.get('game')!r} state, not {self.info.name!r}")
        if data.get("config") != self.config:
            raise ConfigError(f"state configuration {data.get('config')} differs from {self.config}")
        fields = {f.name for f in dataclasses.fields(self.state_type)}
        values = data["state"]
        if set(values) != fields:
            raise ConfigError(f"state fields {sorted(values)} differ from {sorted(fields)}")
        state = self.state_type(**{k: _copy_value(v) for k, v in values.items()})
        self.validate(state)
        return state

    def from_json(self, text: str) -> S:
        return self.state_from_dict(json.loads(text))
