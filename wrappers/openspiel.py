"""The four games as OpenSpiel games: importing this module registers them with ``pyspiel``.

Needs the ``openspiel`` extra (OpenSpiel's PyPI package, ``open_spiel``); import this
module only when you use OpenSpiel::

    import pyspiel
    import tablezoo.wrappers.openspiel  # registers the four games

    game = pyspiel.load_game("tablezoo_sechs_nimmt(players=4,tactic=True)")
    state = game.new_initial_state()

Names: ``tablezoo_heckmeck``, ``tablezoo_sechs_nimmt``, ``tablezoo_diamant``,
``tablezoo_court``. Parameters: ``players`` (the seat count; the game's default when
left out), each of the game's options (``quick``; ``tactic``, ``profi``, ``logic``), and
``core``: ``auto`` (the default: the native core when it is built, or what
``TABLEZOO_CORE`` says), ``native`` or ``python`` (the reference). Heckmeck and To Court
the King also take ``max_moves`` (below).

What each game declares (``game.get_type()``), and why:

* **dynamics sequential**: the engine asks every decision of one seat at a time. The
  simultaneous choices of 6 nimmt! (the card of a trick) and Diamant (go or camp) are
  asked seat by seat in seat order, each kept hidden until the last seat has chosen; so
  they are sequential moves with imperfect information, and a later seat's observation and
  information state hold only *that* an earlier seat has chosen (``p1 chose``), never what.
* **chance explicit**: every chance node lists its outcomes with the engine's exact
  probabilities (``state.chance_outcomes()``). A roll is one outcome per face count
  (Heckmeck's 8 dice: 1,287 outcomes; To Court the King's up to ``13 + n`` dice, rolls of
  more than 8 dice from the same multinomial the engine draws from). Diamant's reveal is one
  outcome per card kind (count / cards left). 6 nimmt!'s deal, one shuffle in the engine (far
  too many outcomes to list), is dealt here card by card: slot ``k`` of the deal (seat 0's
  ten cards, then seat 1's, ..., then rows 1..4) is a chance node whose outcomes are the cards
  not dealt yet, each equally likely. That gives every deal exactly the engine's probability
  (the engine takes the first ``10 n + 4`` cards of a uniform shuffle); nobody sees a card
  until the deal is complete, then each seat picks up its hand and the rows are turned up
  (the engine's state is dealt at once, with the same outcome ``apply_chance`` takes).
  Under ``logic`` nothing is left to chance (the game declares itself deterministic).
* **information**: imperfect for 6 nimmt! and Diamant (hidden hands, secret choices),
  perfect for Heckmeck and To Court the King (all is public; only the dice are to come).
* **utility zero-sum, terminal rewards**: the engine's ``returns``: the winners share +1,
  the others -1 (all 0 when all share the win). Minimum and maximum utility are computed
  from that rule over every number of winners.
* **max game length** (decisions) and chance nodes: computed from the rules. Diamant: 5
  caves of at most 21 cards, each followed by at most ``n`` decisions. 6 nimmt!: a round
  places ``10 n`` cards on 4 rows of at most 5, so at least ``10 n - 16`` cards (each at
  least one head) are taken a round; the game ends once a total reaches 66, so it has at
  most ``65 n / (10 n - 16) + 1`` rounds of at most ``20 n`` decisions (``30 n`` under
  ``logic``, with the draft). Heckmeck and To Court the King have no bound (a seat with an
  empty stack may bust forever; nobody may ever roll seven of a kind), so a game stops at
  ``max_moves`` steps (decisions and chance outcomes; 20,000 and 400,000 by default, over
  ten times the longest of 600 and 800 random games) and counts as a draw: every seat 0.

States clone, serialise (``state.serialize()``; the engine's JSON state inside), give the
legal actions, name actions in the engine's command words (``keep worm``, ``play 42``,
``camp``) and chance outcomes as ``roll 4 4 5 W``, ``reveal snake``, ``deal 17``.

**Observations** come from an observer built from the engine's named observation fields:
``observation_tensor`` is the engine's ``observe`` (``observation_dict`` splits it by field,
``game.observation_tensor_shape()`` is its size) and ``observation_string`` lists each
field's non-zero entries. The **information state** (``information_state_string``) is the
seat's perfect-recall history: the public log of the game (every public move in command
words, the public chance outcomes, ``pN chose`` for a secret choice and the choices when
they are revealed, each row start once a deal is complete) followed by the seat's current
observation. What a seat ever saw privately is in it: its current hand and pending choice
are in its observation, and every card it held before was played face up (in the log).
There is no information-state tensor (a history has no fixed length).

``state.resample_from_infostate(player, sampler)`` redraws what ``player`` cannot see with
the engine's ``determinize`` (seeded from ``sampler()``), so OpenSpiel's information-set
MCTS (``open_spiel.python.algorithms.ismcts``) plans on our games; the observation and
information state of ``player`` stay the same. (OpenSpiel keeps a state's ``history()`` itself:
a resampled state's is the original's. OpenSpiel's C++ ISMCTS cannot call a Python game's
resampling; its Python one does.)

:class:`TablezooBot` seats any tablezoo bot (``make_bot(name, game.engine)``) as an OpenSpiel
bot, for ``evaluate_bots``; it decides on what its seat may know, as at a table.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from tablezoo.bots.core import Seat
from tablezoo.bots.registry import register_bot
from tablezoo.games import GAMES, game_class, make
from tablezoo.games.core import CHANCE, TERMINAL, ConfigError, Game, GameInfo, ObservationSpec
from tablezoo.games.dice import DiceFaces, roll_distribution

__all__ = [
    "DEFAULT_MAX_MOVES",
    "GAME_NAMES",
    "EngineRollouts",
    "OpenSpielISMCTSBot",
    "TablezooBot",
    "TablezooGame",
    "TablezooState",
    "engine_of",
    "openspiel_game",
    "outcome_actions",
    "utility_range",
]

GAME_NAMES: dict[str, str] = {name: f"tablezoo_{name}" for name in GAMES}
"""Each engine game -> its OpenSpiel name."""

DEFAULT_MAX_MOVES = {"heckmeck": 20_000, "court": 400_000}
"""The games with no bound on their length -> the steps after which a game stops as a draw."""

CORE_CHOICES = ("auto", "native", "python")


# --------------------------------------------------------------------------- computed bounds


class _Winners:
    """Just enough of a game for :meth:`Game.returns` to pay a given set of winners."""

    def __init__(self, num_seats: int, winners: Sequence[int]) -> None:
        self.num_seats = num_seats
        self._winners = list(winners)

    def winners(self, state: Any) -> list[int]:
        return self._winners


def utility_range(engine: Game[Any]) -> tuple[float, float, float]:
    """``(min, max, sum)`` of the engine's ``returns`` over every number of winners (1..n)."""
    n = engine.num_seats
    paid = [type(engine).returns(_Winners(n, range(k)), None) for k in range(1, n + 1)]  # type: ignore[arg-type]
    sums = {round(sum(p), 9) for p in paid}
    if len(sums) != 1:
        raise ValueError(f"{engine.info.title}: returns sum to {sorted(sums)}, not one constant")
    return min(min(p) for p in paid), max(max(p) for p in paid), float(sums.pop())


def _sechs_nimmt_bounds(engine: Game[Any]) -> tuple[int, int]:
    """``(decisions, chance nodes)`` at most in a game of 6 nimmt! (see the module docstring)."""
    from tablezoo.games import sechs_nimmt as rules

    n = engine.num_seats
    placed = rules.HAND * n
    capacity = rules.ROWS * rules.ROW_MAX - rules.ROWS  # cards the rows take before one is taken
    least_heads = max(1, (placed - capacity) * min(rules.HEADS[1:]))
    rounds = (rules.END_TOTAL - 1) * n // least_heads + 1
    logic = engine.options["logic"]
    per_round = placed + placed + (placed if logic else 0)  # cards, row choices, draft picks
    chance = 0 if logic else rounds * (placed + rules.ROWS)
    return rounds * per_round, chance


def _diamant_bounds(engine: Game[Any]) -> tuple[int, int]:
    from tablezoo.games import diamant as rules

    cards = rules.CAVES * rules.MAX_PATH
    return cards * engine.num_seats, cards


# --------------------------------------------------------------------------- chance, per game


class _Chance:
    """How a game's chance nodes become OpenSpiel chance actions."""

    size: int
    """Distinct chance action ids (``max_chance_outcomes``)."""

    def __init__(self, engine: Game[Any]) -> None:
        self.engine = engine

    def outcomes(self, table: _Table) -> list[tuple[int, float]]:
        raise NotImplementedError

    def apply(self, table: _Table, action: int) -> str | None:
        """Apply a chance action; the public text it adds to the log (None: nothing public)."""
        raise NotImplementedError

    def label(self, action: int) -> str:
        raise NotImplementedError

    def actions(self, outcome: Any) -> list[int]:
        """The chance actions that give the engine's ``outcome`` of one chance node."""
        raise NotImplementedError


class _Dice(_Chance):
    """A roll: one action per face count of 0..``most`` dice, with the multinomial odds."""

    def __init__(self, engine: Game[Any], most: int, size_of: Callable[[Any], int], faces: DiceFaces) -> None:
        super().__init__(engine)
        self._size_of = size_of
        self._faces = faces
        self._counts: list[tuple[int, ...]] = []
        self._ids: dict[tuple[int, ...], int] = {}
        self._odds: list[list[tuple[int, float]]] = []
        for k in range(most + 1):
            odds = []
            for counts, p in roll_distribution(k):
                self._ids[counts] = len(self._counts)
                odds.append((len(self._counts), p))
                self._counts.append(counts)
            self._odds.append(odds)
        self.size = len(self._counts)

    def outcomes(self, table: _Table) -> list[tuple[int, float]]:
        return list(self._odds[self._size_of(table.state)])

    def apply(self, table: _Table, action: int) -> str:
        self.engine.apply_chance(table.state, list(self._counts[action]))
        return self.label(action)

    def label(self, action: int) -> str:
        return f"roll {self._faces.text(self._counts[action])}"

    def actions(self, outcome: Any) -> list[int]:
        return [self._ids[tuple(outcome)]]


class _Reveal(_Chance):
    """Diamant: the next card, one action per card kind (count / cards left)."""

    def __init__(self, engine: Game[Any]) -> None:
        super().__init__(engine)
        from tablezoo.games.diamant import KIND_INDEX, KINDS

        self._kinds, self._index = KINDS, KIND_INDEX
        self.size = len(KINDS)

    def outcomes(self, table: _Table) -> list[tuple[int, float]]:
        index = self._index
        return [(index[kind], p) for kind, p in self.engine.chance_outcomes(table.state)]

    def apply(self, table: _Table, action: int) -> str:
        self.engine.apply_chance(table.state, self._kinds[action])
        return self.label(action)

    def label(self, action: int) -> str:
        return f"reveal {self._kinds[action]}"

    def actions(self, outcome: Any) -> list[int]:
        return [self._index[str(outcome)]]


class _Deal(_Chance):
    """6 nimmt!: the deal card by card (slot ``k``: seat ``k // 10``'s hand, then the rows)."""

    def __init__(self, engine: Game[Any]) -> None:
        super().__init__(engine)
        from tablezoo.games.sechs_nimmt import HAND, ROWS

        self._hand, self._rows = HAND, ROWS
        self.size = engine.deck  # type: ignore[attr-defined]
        self._slots = HAND * engine.num_seats + ROWS

    def outcomes(self, table: _Table) -> list[tuple[int, float]]:
        dealt = set(table.dealt)
        left = [c - 1 for c in range(1, self.size + 1) if c not in dealt]
        p = 1.0 / len(left)
        return [(a, p) for a in left]

    def apply(self, table: _Table, action: int) -> str | None:
        table.dealt.append(action + 1)
        if len(table.dealt) < self._slots:
            return None
        cards, h = table.dealt, self._hand
        n = self.engine.num_seats
        rows = cards[h * n :]
        self.engine.apply_chance(
            table.state, {"hands": [cards[h * s : h * s + h] for s in range(n)], "rows": rows}
        )
        table.dealt = []
        return "dealt; rows start " + " ".join(map(str, rows))

    def label(self, action: int) -> str:
        return f"deal {action + 1}"

    def actions(self, outcome: Any) -> list[int]:
        return [c - 1 for hand in outcome["hands"] for c in hand] + [c - 1 for c in outcome["rows"]]


@functools.lru_cache(maxsize=64)
def _chance_of(engine: Game[Any]) -> _Chance | None:
    """The chance adapter of an engine game (built once: a dice table has up to 134,596 rolls)."""
    name = engine.info.name
    if name == "heckmeck":
        from tablezoo.games.heckmeck import DICE, DICE_FACES

        return _Dice(engine, DICE, lambda state: state.left, DICE_FACES)
    if name == "court":
        from tablezoo.games.court import DICE_FACES as COURT_FACES

        return _Dice(engine, engine.max_dice, engine.roll_size, COURT_FACES)  # type: ignore[attr-defined]
    if name == "diamant":
        return _Reveal(engine)
    if name == "sechs_nimmt":
        return None if engine.options["logic"] else _Deal(engine)
    raise ValueError(f"no OpenSpiel chance adapter for {name!r}")


def _pending_sechs_nimmt(state: Any) -> bool:
    return any(state.chosen)


def _pending_diamant(state: Any) -> bool:
    return any(choice is not None for choice in state.choices)


_PENDING: dict[str, Callable[[Any], bool]] = {
    "sechs_nimmt": _pending_sechs_nimmt,
    "diamant": _pending_diamant,
}
"""Whether a secret choice is still hidden in a state (the games that have secret choices)."""

_CHOSEN: dict[str, Callable[[Any, int], bool]] = {
    "sechs_nimmt": lambda state, seat: bool(state.chosen[seat]),
    "diamant": lambda state, seat: state.choices[seat] is not None,
}
"""Whether a seat's secret choice is made and still hidden in a state."""


# --------------------------------------------------------------------------- the state's contents


@functools.lru_cache(maxsize=64)
def engine_of(name: str, players: int, options: tuple[tuple[str, bool], ...], core: str) -> Game[Any]:
    """The engine game of an OpenSpiel configuration (one per configuration and process)."""
    return make(name, players, core=None if core == "auto" else core, **dict(options))


class _Log:
    """An append-only list shared by clones: a cons cell per entry, so a copy costs nothing."""

    __slots__ = ("length", "parent", "text")

    def __init__(self, parent: _Log | None, text: str) -> None:
        self.parent = parent
        self.text = text
        self.length: int = 1 if parent is None else parent.length + 1

    def entries(self) -> list[str]:
        out: list[str] = []
        node: _Log | None = self
        while node is not None:
            out.append(node.text)
            node = node.parent
        out.reverse()
        return out


class _Table:
    """Everything a state holds: the engine state, the public log, a deal in progress, the
    secret choices not revealed yet and the steps played. OpenSpiel copies and pickles a Python
    state through its attributes; this one object copies with the engine's ``clone`` and
    pickles as the engine's JSON."""

    __slots__ = ("chance", "config", "dealt", "engine", "log", "secret", "state", "steps")

    def __init__(
        self, config: tuple[Any, ...], engine: Game[Any], chance: _Chance | None, state: Any
    ) -> None:
        self.config = config
        self.engine = engine
        self.chance = chance
        self.state = state
        self.log: _Log | None = None
        self.dealt: list[int] = []
        self.secret: list[tuple[int, int]] = []
        self.steps = 0

    def __deepcopy__(self, memo: dict[int, Any]) -> _Table:
        new = _Table(self.config, self.engine, self.chance, self.engine.clone(self.state))
        new.log, new.dealt, new.secret, new.steps = (
            self.log,
            self.dealt.copy(),
            self.secret.copy(),
            self.steps,
        )
        return new

    def __reduce__(self) -> tuple[Any, ...]:
        log = self.log.entries() if self.log is not None else []
        return (
            _restore,
            (self.config, self.engine.to_json(self.state), log, self.dealt, self.secret, self.steps),
        )

    def write(self, text: str) -> None:
        self.log = _Log(self.log, text)


def _restore(
    config: tuple[Any, ...], text: str, log: list[str], dealt: list[int], secret: list[list[int]], steps: int
) -> _Table:
    name, players, options, core, _ = config
    engine = engine_of(name, players, options, core)
    table = _Table(config, engine, _chance_of(engine), engine.from_json(text))
    for entry in log:
        table.write(entry)
    table.dealt = list(dealt)
    table.secret = [(int(s), int(a)) for s, a in secret]
    table.steps = steps
    return table


# --------------------------------------------------------------------------- OpenSpiel classes


def _game_type(info: GameInfo, *, deterministic: bool = False) -> pyspiel.GameType:
    parameters: dict[str, Any] = {"players": info.default_seats, **info.defaults(), "core": "auto"}
    if info.name in DEFAULT_MAX_MOVES:
        parameters["max_moves"] = DEFAULT_MAX_MOVES[info.name]
    chance = pyspiel.GameType.ChanceMode
    information = pyspiel.GameType.Information
    return pyspiel.GameType(
        short_name=GAME_NAMES[info.name],
        long_name=f"tablezoo {info.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=chance.DETERMINISTIC if deterministic else chance.EXPLICIT_STOCHASTIC,
        information=information.IMPERFECT_INFORMATION
        if info.hidden_information
        else information.PERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=info.max_seats,
        min_num_players=info.min_seats,
        provides_information_state_string=True,
        provides_information_state_tensor=False,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=parameters,
    )


class TablezooGame(pyspiel.Game):
    """One of the four games under OpenSpiel's ``Game`` contract (see the module docstring).

    ``engine`` is the tablezoo game it plays, ``core`` the core that runs it.
    """

    name: str = ""
    """The engine game's name (set on each game's subclass)."""

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        info = game_class(self.name).info
        params = dict(params or {})
        known = {
            "players",
            "core",
            *info.option_names,
            *(["max_moves"] if self.name in DEFAULT_MAX_MOVES else []),
        }
        unknown = sorted(set(params) - known)
        if unknown:
            raise ValueError(
                f"{GAME_NAMES[self.name]} has no parameter {', '.join(unknown)}; "
                f"its parameters: {', '.join(sorted(known))}"
            )
        players = int(params.get("players", info.default_seats))
        core = str(params.get("core", "auto"))
        if core not in CORE_CHOICES:
            raise ValueError(f"core={core!r} names no core; cores are: {', '.join(CORE_CHOICES)}")
        options = tuple((o, bool(params.get(o, d))) for o, d in info.defaults().items())
        max_moves = int(params.get("max_moves", DEFAULT_MAX_MOVES.get(self.name, 0)))
        if self.name in DEFAULT_MAX_MOVES and max_moves < 1:
            raise ValueError(f"max_moves is the steps after which a game stops, at least 1, not {max_moves}")
        engine = engine_of(self.name, players, options, core)
        chance = _chance_of(engine)
        low, high, total = utility_range(engine)
        if self.name == "sechs_nimmt":
            length, chance_nodes = _sechs_nimmt_bounds(engine)
        elif self.name == "diamant":
            length, chance_nodes = _diamant_bounds(engine)
        else:
            length = chance_nodes = max_moves
        if max_moves:  # a game cut short is a draw: every seat 0, within the range
            low, high = min(low, 0.0), max(high, 0.0)
        game_info = pyspiel.GameInfo(
            num_distinct_actions=engine.num_actions,
            max_chance_outcomes=chance.size if chance is not None else 0,
            num_players=players,
            min_utility=low,
            max_utility=high,
            utility_sum=total,
            max_game_length=length,
        )
        full = {"players": players, "core": core, **dict(options)}
        if self.name in DEFAULT_MAX_MOVES:
            full["max_moves"] = max_moves
        super().__init__(_game_type(info, deterministic=chance is None), game_info, full)
        self.engine = engine
        self.core = engine.core
        self._chance = chance
        self._chance_nodes = chance_nodes
        self._max_moves = max_moves
        self._config = (self.name, players, options, core, max_moves)

    def new_initial_state(self) -> TablezooState:
        return TablezooState(self)

    def state_at(self, engine_state: Any) -> TablezooState:
        """A state at ``engine_state`` (an engine state of this configuration, taken as it is, not
        copied) with an empty public log: the root of a search from a seat's sample of the game, whose
        history is not known. Secret choices already made (6 nimmt!'s cards, Diamant's go/camp) are
        pending in it as in the engine state, in seat order."""
        state = TablezooState(self)
        t = state._t
        t.state = engine_state
        pending = _CHOSEN.get(self.name)
        if pending is not None and t.engine.to_move(engine_state) >= 0:
            t.secret = [
                (s, _pending_choice(t.engine, engine_state, s))
                for s in range(t.engine.num_seats)
                if pending(engine_state, s)
            ]
        return state

    def max_chance_nodes_in_history(self) -> int:
        return self._chance_nodes

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> _Observer:
        if isinstance(iig_obs_type, Mapping):  # OpenSpiel passes the parameters alone when no type is asked
            iig_obs_type, params = None, iig_obs_type
        return _Observer(self.engine, iig_obs_type, params)


class TablezooState(pyspiel.State):
    """A state of a :class:`TablezooGame`: the engine's state with the public log beside it."""

    def __init__(self, game: TablezooGame) -> None:
        super().__init__(game)
        engine = game.engine
        self._t = _Table(game._config, engine, game._chance, engine.initial_state())

    # ------------------------------------------------------------ the contract

    def current_player(self) -> int:
        t = self._t
        if t.config[4] and t.steps >= t.config[4]:
            return pyspiel.PlayerId.TERMINAL
        mover = t.engine.to_move(t.state)
        if mover == TERMINAL:
            return pyspiel.PlayerId.TERMINAL
        if mover == CHANCE:
            return pyspiel.PlayerId.CHANCE
        return int(mover)

    def is_terminal(self) -> bool:
        return self.current_player() == pyspiel.PlayerId.TERMINAL

    def _legal_actions(self, player: int) -> list[int]:
        t = self._t
        return list(t.engine.legal_actions(t.state))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        t = self._t
        if t.chance is None or self.current_player() != pyspiel.PlayerId.CHANCE:
            raise ValueError("chance_outcomes: no chance node is due (a seat is to move or the game is over)")
        return t.chance.outcomes(t)

    def _apply_action(self, action: int) -> None:
        t = self._t
        engine, state = t.engine, t.state
        mover = engine.to_move(state)
        if mover == CHANCE:
            assert t.chance is not None
            text = t.chance.apply(t, int(action))
            if text is not None:
                t.write(text)
        elif engine.secret_decision(state):
            engine.apply(state, int(action))
            t.secret.append((mover, int(action)))
            t.write(f"p{mover} chose")
            if not _PENDING[engine.info.name](state):
                t.write("reveal " + ", ".join(f"p{s} {engine.action_names[a]}" for s, a in t.secret))
                t.secret = []
        else:
            engine.apply(state, int(action))
            t.write(f"p{mover} {engine.action_names[action]}")
        t.steps += 1

    def _action_to_string(self, player: int, action: int) -> str:
        t = self._t
        if player == pyspiel.PlayerId.CHANCE:
            assert t.chance is not None
            return t.chance.label(int(action))
        return t.engine.command(int(action))

    def returns(self) -> list[float]:
        t = self._t
        n = t.engine.num_seats
        if t.engine.to_move(t.state) != TERMINAL:  # playing, or cut short at max_moves: a draw
            return [0.0] * n
        return [float(r) for r in t.engine.returns(t.state)]

    def resample_from_infostate(
        self, player_id: int, probability_sampler: Callable[[], float]
    ) -> TablezooState:
        """A copy with what ``player_id`` cannot see redrawn (the engine's ``determinize``, and a
        deal in progress, none of whose cards anyone has seen yet), seeded from ``probability_sampler``."""
        t = self._t
        rng = np.random.default_rng(int(probability_sampler() * 2**53))
        new = self.clone()
        nt = new._t
        nt.state = t.engine.determinize(t.state, int(player_id), rng)
        if t.dealt:
            assert t.chance is not None
            nt.dealt = (rng.permutation(t.chance.size)[: len(t.dealt)] + 1).tolist()
        if t.secret:  # the pending choices as the redrawn state has them
            nt.secret = [(s, _pending_choice(t.engine, nt.state, s)) for s, _ in t.secret]
        return new

    def __str__(self) -> str:
        t = self._t
        text = t.engine.to_json(t.state)
        return f"{text}\ndealing: {t.dealt}" if t.dealt else text

    # ------------------------------------------------------------ tablezoo helpers

    @property
    def engine(self) -> Game[Any]:
        """The engine game this state belongs to."""
        return self._t.engine

    @property
    def engine_state(self) -> Any:
        """The engine's state (the state itself: copy it with ``engine.clone`` to keep it)."""
        return self._t.state

    def public_log(self) -> list[str]:
        """The public log: every public move, chance outcome and revealed choice, in order."""
        return self._t.log.entries() if self._t.log is not None else []


def _pending_choice(engine: Game[Any], state: Any, seat: int) -> int:
    """The action of ``seat``'s hidden choice in ``state`` (6 nimmt!'s card, Diamant's go/camp)."""
    if engine.info.name == "sechs_nimmt":
        return int(state.chosen[seat]) - 1
    return engine.parse_command(state.choices[seat])


def outcome_actions(state: TablezooState, outcome: Any) -> list[int]:
    """The chance actions that give the engine's chance ``outcome`` at ``state`` (a roll's counts, a
    card kind, a whole deal): what to apply to follow a game the engine sampled."""
    chance = state._t.chance
    if chance is None:
        raise ValueError(f"{state.engine.info.title} has no chance node in this configuration")
    return chance.actions(outcome)


# --------------------------------------------------------------------------- the observer


def _observation_text(spec: ObservationSpec, vector: np.ndarray) -> str:
    parts = []
    for f in spec.fields:
        values = vector[spec.slice(f.name)]
        hot = np.flatnonzero(values)
        if len(hot):
            parts.append(f"{f.name}=" + ",".join(f"{i}:{values[i]:g}" for i in hot))
    return " ".join(parts)


class _Observer:
    """OpenSpiel's observer of a seat, built from the engine's named observation fields.

    The plain observation (no perfect recall, public information and the seat's own) is the
    engine's ``observe``, one tensor piece per field; with perfect recall it is the information
    state, a string only (the public log and the seat's observation).
    """

    def __init__(self, engine: Game[Any], iig_obs_type: Any, params: Any) -> None:
        if params:
            raise ValueError(f"the tablezoo games' observers take no parameters; got {dict(params)}")
        if iig_obs_type is not None and (
            not iig_obs_type.public_info or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER
        ):
            raise ValueError(
                "the tablezoo games observe public information and the seat's own (private_info="
                "SINGLE_PLAYER, public_info=True), with or without perfect recall; "
                f"not {iig_obs_type}"
            )
        self.engine = engine
        self.spec = engine.observation_spec
        self.perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        self.dict: dict[str, np.ndarray] = {}
        if self.perfect_recall:
            self.tensor: np.ndarray | None = None
        else:
            self.tensor = np.zeros(self.spec.size, np.float32)
            self.dict = {f.name: self.tensor[self.spec.slice(f.name)] for f in self.spec.fields}

    def set_from(self, state: TablezooState, player: int) -> None:
        if self.tensor is not None:
            t = state._t
            self.tensor[:] = t.engine.observe(t.state, player)

    def string_from(self, state: TablezooState, player: int) -> str:
        t = state._t
        seen = f"p{player} sees {_observation_text(self.spec, t.engine.observe(t.state, player))}"
        if not self.perfect_recall:
            return seen
        log = t.log.entries() if t.log is not None else []
        if t.dealt:
            log.append(f"dealing ({len(t.dealt)} cards dealt face down)")
        return "\n".join([*log, seen])


# --------------------------------------------------------------------------- our bots as OpenSpiel bots


class TablezooBot(pyspiel.Bot):
    """A tablezoo bot (:mod:`tablezoo.bots`) as an OpenSpiel bot, for ``evaluate_bots`` and the like.

    It plays the seat to move of a :class:`TablezooState` through a
    :class:`~tablezoo.bots.core.Seat` of the state's engine, so it knows what the seat may know
    and no more: a search bot samples the hidden state as it does at a table.
    """

    def __init__(self, bot: Any, seed: int | None = None) -> None:
        pyspiel.Bot.__init__(self)
        self.bot = bot
        self._seed = seed

    def restart_at(self, state: TablezooState) -> None:
        self.bot.reset(self._seed)
        if self._seed is not None:
            self._seed += 1

    def inform_action(self, state: TablezooState, player_id: int, action: int) -> None:
        pass

    def step(self, state: TablezooState) -> int:
        t = state._t
        return int(self.bot.act(Seat(t.engine, t.state, state.current_player())))


# --------------------------------------------------------------------------- OpenSpiel's search at our tables


class EngineRollouts:
    """An OpenSpiel evaluator (``open_spiel.python.algorithms.mcts.Evaluator``'s two methods): the
    mean return of ``rollouts`` games played on from a state by uniformly random moves, chance
    drawn with the engine's odds, and a uniform prior over the legal moves (the chance odds at a
    chance node).

    The same play as OpenSpiel's ``RandomRolloutEvaluator``, stepped by the engine itself instead
    of through OpenSpiel's state: a random game of To Court the King is thousands of steps, and
    OpenSpiel's evaluator draws each roll from its list of up to 134,596 outcomes. A game stopped at
    the configuration's ``max_moves`` counts as a draw, as through the adapter.
    """

    def __init__(self, rollouts: int, rng: np.random.Generator) -> None:
        self.rollouts = rollouts
        self.rng = rng

    def evaluate(self, state: TablezooState) -> np.ndarray:
        t = state._t
        engine, rng, limit = t.engine, self.rng, t.config[4]
        total = np.zeros(engine.num_seats)
        for _ in range(self.rollouts):
            game_state, steps = engine.clone(t.state), t.steps
            while not (limit and steps >= limit):
                mover = engine.to_move(game_state)
                if mover == TERMINAL:
                    total += engine.returns(game_state)
                    break
                if mover == CHANCE:
                    engine.step_chance(game_state, rng)
                else:
                    legal = engine.legal_actions(game_state)
                    engine.apply(game_state, legal[int(rng.integers(len(legal)))], check=False)
                steps += 1
        return total / self.rollouts

    def prior(self, state: TablezooState) -> list[tuple[int, float]]:
        if state.is_chance_node():
            return state.chance_outcomes()
        legal = state.legal_actions()
        return [(a, 1.0 / len(legal)) for a in legal]


@functools.lru_cache(maxsize=64)
def _game_for(name: str, players: int, core: str, options: tuple[tuple[str, bool], ...]) -> TablezooGame:
    return GAME_CLASSES[name]({"players": players, "core": core, **dict(options)})


def openspiel_game(engine: Game[Any]) -> TablezooGame:
    """The OpenSpiel game of an engine game's configuration (its seats, core and options), made once."""
    options = tuple(sorted((str(k), bool(v)) for k, v in engine.options.items()))
    return _game_for(engine.info.name, engine.num_seats, engine.core, options)


class OpenSpielISMCTSBot:
    """OpenSpiel's own information-set MCTS at a tablezoo seat: the bot ``ismcts``.

    ``make_bot("ismcts:simulations=100", game)`` once this module is imported (it registers the
    name, :func:`tablezoo.bots.registry.register_bot`); ``tablezoo evaluate`` and the strength
    league import it when the name is asked for. Settings: ``simulations`` a move (default 100),
    ``uct_c`` (UCT's exploration constant, default 2, as in OpenSpiel's examples) and ``rollouts``
    (random games averaged at each new node, default 1; :class:`EngineRollouts`). The move is the
    one visited most (ties drawn by the bot's seed).

    Each decision, the bot draws a state consistent with what its seat knows
    (``seat.sample_state``: the engine's ``determinize``) and starts
    ``open_spiel.python.algorithms.ismcts.ISMCTSBot`` from it (:meth:`TablezooGame.state_at`); the
    search redraws the hidden part at every simulation (``resample_from_infostate``), so the bot
    never reads what its seat cannot see. Every random number (the draws, the rollouts, OpenSpiel's
    tree choices) comes from the bot's seed: reseeded alike, it makes the same move whatever the
    hidden cards are. OpenSpiel's ISMCTS refuses games of perfect information (it asserts imperfect
    information), so on Heckmeck and To Court the King, which hide nothing, the bot runs OpenSpiel's
    MCTS (``open_spiel.python.algorithms.mcts.MCTSBot``, chance sampled by the game's odds) with
    the same settings: with one world to sample, information sets are states and the two searches
    are one. :attr:`search` names the one it runs.
    """

    name = "ismcts"

    def __init__(
        self, simulations: int = 100, uct_c: float = 2.0, rollouts: int = 1, seed: int | None = None
    ) -> None:
        if simulations < 1:
            raise ConfigError(f"bot 'ismcts': simulations is at least 1, not {simulations}")
        if not 0 <= uct_c < float("inf"):
            raise ConfigError(f"bot 'ismcts': uct_c is a number of at least 0, not {uct_c}")
        if rollouts < 1:
            raise ConfigError(f"bot 'ismcts': rollouts is at least 1, not {rollouts}")
        self.simulations = simulations
        self.uct_c = uct_c
        self.rollouts = rollouts
        self.search = ""
        """``"ismcts"`` or ``"mcts"``: the OpenSpiel search of the last game played."""
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, seat: Seat) -> int:
        legal = seat.legal
        if len(legal) == 1:
            return int(legal[0])
        game = openspiel_game(seat.game)
        root = game.state_at(seat.sample_state(self.rng))
        rng = self.rng
        tree = np.random.RandomState(int(rng.integers(2**32)))
        rollouts = EngineRollouts(self.rollouts, rng)
        bot: Any
        if seat.game.info.hidden_information:
            self.search = "ismcts"
            bot = ismcts.ISMCTSBot(game, rollouts, self.uct_c, self.simulations, random_state=tree)
            bot.set_resampler(lambda state, player: state.resample_from_infostate(player, rng.random))
        else:
            self.search = "mcts"
            bot = mcts.MCTSBot(game, self.uct_c, self.simulations, rollouts, random_state=tree)
        action = int(bot.step(root))
        if action not in legal:  # OpenSpiel's search plans on the sample; the sample's moves are the seat's
            raise RuntimeError(
                f"OpenSpiel's {self.search} chose {action}, not a legal move of seat {seat.seat}"
            )
        return action


# --------------------------------------------------------------------------- registration


def _register() -> dict[str, type[TablezooGame]]:
    registered = set(pyspiel.registered_names())
    classes: dict[str, type[TablezooGame]] = {}
    for name in GAMES:
        cls = type(f"Tablezoo{GAMES[name]}Game", (TablezooGame,), {"name": name, "__module__": __name__})
        classes[name] = cls
        if GAME_NAMES[name] not in registered:
            pyspiel.register_game(_game_type(game_class(name).info), cls)
    return classes


GAME_CLASSES = _register()
"""Each engine game -> its :class:`TablezooGame` subclass (registered with ``pyspiel``)."""

register_bot(OpenSpielISMCTSBot.name, OpenSpielISMCTSBot)
