"""A table where people and bots play one game, driven by the site's commands.

Everything a front end does goes through :meth:`Table.handle`, with the text a
person typed (or a button sent) and the client that sent it:

| command | what it does |
|---|---|
| ``/join [name]`` | take a free seat (before the start) |
| ``/leave`` | give up the seat; during a game a ``heuristic`` bot takes it over |
| ``/option NAME`` | switch a game option on or off (before the start) |
| ``/bot NAME`` | seat a bot by name (``heuristic``, ``agent``, ``agent:search=32``; ``/help`` lists them) |
| ``/unbot SEAT`` | remove the bot seated at seat number ``SEAT`` (before the start) |
| ``/start`` | start the game, when the seat count fits the game |
| ``/status`` | the table: game, options, seats, whose turn |
| ``/help`` | the commands, and the moves legal now |
| a move | the game's own command word (``keep worm``, ``play 42``, ``go``, ...) |

The commands are :data:`TABLE_COMMANDS` (name -> handler and help text, which
``/help`` prints). A command that is out of turn, illegal, malformed or unknown
is answered with what is allowed and changes nothing. ``/status`` and ``/help``
only read the table: their :class:`Reply` has ``changed`` False, the version
stays, and front ends answer the asker alone. Bots act through the same path as
people: after every accepted command, the bots whose turn it is play their moves.

Names are unique at a table regardless of case, and a person's name may not
contain the word "bot" (bots are named after what they are). A bot's settings
follow its name (``/bot agent:search=32``) and are checked when it sits down. A
bare ``agent`` thinks for the table's :attr:`Table.agent_think` seconds a move (the
site's: about one second; ``tablezoo serve --agent-think``).
The game's agent plays every seat count, but only the options it learnt
(none): ``/start`` refuses a table whose options it does not play.

Each client sees the table through :meth:`Table.view`: the game's view and
render for its own seat (a client without a seat sees what everyone sees), and
the log lines meant for it. A move made face down (``Game.secret_decision``:
6 nimmt!'s card choice, Diamant's go/camp) is logged to the other seats only as
"has chosen"; once the last of such a round of choices is made (the game
reveals them), every choice of that round is logged to everyone. Log lines name
people and bots by their names, never by seat numbers.

A table is stored as a plain record (:meth:`Table.to_record`): its settings,
seats, the seed and position of its dice, and the history of every move and
chance outcome. :meth:`Table.from_record` rebuilds the game by replaying that
history, exactly; :meth:`Table.replay` gives every position of a game.
"""

from __future__ import annotations

import math
import re
import secrets
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tablezoo.bots.core import Bot, Seat
from tablezoo.bots.registry import agent_seats, game_bot_names, make_bot, thinking_agent
from tablezoo.games import GAMES, draw, game_class, make
from tablezoo.games.core import CHANCE, TERMINAL, ConfigError, Game, IllegalActionError, TablezooError

WAITING, PLAYING, FINISHED = "waiting", "playing", "finished"
TAKEOVER_BOT = "heuristic"
"""The bot that takes over the seat of a person who leaves a game under way."""
MAX_NAME = 24
VIEW_LOG = 200
"""Log lines a view carries when it is not asked for the lines from a given number on."""


@dataclass
class Occupant:
    """Who sits in a seat: a person (bound to one client) or a bot (by name)."""

    name: str
    client: str | None = None
    bot: str | None = None

    @property
    def is_bot(self) -> bool:
        return self.bot is not None

    def label(self, seat: int) -> str:
        """How logs and messages name the occupant: by name (names are unique at a table)."""
        return self.name


@dataclass
class Reply:
    """The answer to one command: whether it was accepted, and what to tell the sender."""

    ok: bool
    text: str
    changed: bool = True
    """Whether an accepted command changed the table (False for ``/status`` and ``/help``)."""


@dataclass
class LogLine:
    """One line of the table's log; ``seat`` None means everyone sees it, else only that seat."""

    number: int
    text: str
    seat: int | None = None


@dataclass
class Table:
    """One table of one game. Build with :meth:`Table.new`; drive with :meth:`handle`."""

    table_id: str
    game_name: str
    options: dict[str, bool]
    seed: int
    seats: list[Occupant] = field(default_factory=list)
    phase: str = WAITING
    history: list[dict[str, Any]] = field(default_factory=list)
    """Every move (``{"seat", "action"}``) and chance outcome (``{"chance"}``) of the game."""
    log: list[LogLine] = field(default_factory=list)
    version: int = 0
    """Goes up with every accepted command: front ends redraw when it changes."""
    policy_files: bool = False
    """Whether ``/bot path/to/policy.npz`` may seat a policy file (the terminal; never a server)."""
    agent_think: float = 0.0
    """The seconds a move that an ``agent`` seated by its bare name (``/bot agent``) thinks: it sits
    as :func:`~tablezoo.bots.registry.thinking_agent` (``agent:think=SECONDS``; 0: the network
    alone). ``tablezoo serve`` seats it thinking :data:`~tablezoo.tables.server.AGENT_THINK` seconds."""

    def __post_init__(self) -> None:
        self.game: Game[Any] | None = None
        self.state: Any = None
        self.bots: dict[int, Bot] = {}
        self.rng = np.random.default_rng(self.seed)
        self.listeners: list[Callable[[Table], None]] = []
        self.last_command: tuple[str, str] | None = None
        """The last accepted command that changed the table, ``(client, text)``: what a store logs."""
        self.scripted: list[Any] = []
        """Chance outcomes to use, in order, before the table rolls its own (scripted tests, demos)."""
        self._bot_names: list[str] | None = None
        self.secret_round: list[tuple[int, int]] = []
        """The face-down moves (seat, action) of the round of secret choices under way."""

    # ------------------------------------------------------------ construction

    @classmethod
    def new(
        cls,
        game_name: str,
        table_id: str | None = None,
        seed: int | None = None,
        options: dict[str, bool] | None = None,
        policy_files: bool = False,
        agent_think: float = 0.0,
    ) -> Table:
        """An empty table for ``game_name`` with the game's default options."""
        info = game_class(game_name).info
        merged = info.defaults()
        for name, value in (options or {}).items():
            if name not in merged:
                raise ConfigError(f"{info.title} has no option {name!r}; its options are: {_names(merged)}")
            merged[name] = bool(value)
        if seed is None:
            seed = secrets.randbits(63)
        if not (agent_think >= 0 and math.isfinite(agent_think)):
            raise ConfigError(f"agent_think is 0 seconds or more, not {agent_think!r}")
        table = cls(
            table_id or secrets.token_hex(4),
            game_name,
            merged,
            int(seed),
            policy_files=policy_files,
            agent_think=float(agent_think),
        )
        table._say(
            f"A table of {info.title} for {info.min_seats}-{info.max_seats} players. /join to sit down."
        )
        return table

    @property
    def info(self) -> Any:
        return game_class(self.game_name).info

    # ------------------------------------------------------------ commands

    def handle(self, client: str, text: str) -> Reply:
        """Carry out one command from ``client``; never raises on bad input."""
        if not isinstance(text, str) or not text.strip():
            return Reply(False, "empty command; /help lists the commands")
        text = " ".join(text.split())
        if len(text) > 200:
            return Reply(False, "command too long (at most 200 characters); /help lists the commands")
        word, _, rest = text.partition(" ")
        command = TABLE_COMMANDS.get(word.lower())
        try:
            if command is not None:
                reply = command.handler(self, client, rest.strip())
            else:
                reply = self._cmd_move(client, text)
        except TablezooError as err:
            return Reply(False, str(err))
        if reply.ok and reply.changed:
            self._run_bots()
            self.version += 1
            self.last_command = (client, text)
            for listener in list(self.listeners):
                listener(self)
        return reply

    def _cmd_join(self, client: str, name: str) -> Reply:
        if self.phase != WAITING:
            raise ConfigError("the game has started: no seat is free; you can watch")
        if self.seat_of(client) is not None:
            raise ConfigError(f"you already sit at seat {self.seat_of(client)}; /leave first")
        if len(self.seats) >= self.info.max_seats:
            raise ConfigError(f"the table is full: {self.info.title} takes at most {self.info.max_seats}")
        name = _clean_name(name)
        if not name:
            k = len(self.seats) + 1
            while self._name_taken(f"player {k}"):
                k += 1
            name = f"player {k}"
        if BOT_WORD.search(name):
            raise ConfigError(f"the word 'bot' is kept for bots' names; choose another name than {name!r}")
        if self._name_taken(name):
            raise ConfigError(f"the name {name!r} is taken at this table (names ignore case); choose another")
        self.seats.append(Occupant(name, client=client))
        self._say(f"{name} joins the table.")
        return Reply(True, f"you sit at seat {len(self.seats) - 1} as {name}")

    def _name_taken(self, name: str) -> bool:
        folded = name.casefold()
        return any(o.name.casefold() == folded for o in self.seats)

    def _cmd_leave(self, client: str, rest: str) -> Reply:
        seat = self._own_seat(client)
        occupant = self.seats[seat]
        if self.phase == WAITING:
            del self.seats[seat]
            self._say(f"{occupant.name} leaves the table.")
            return Reply(True, "you left the table")
        if self.phase == FINISHED:
            occupant.client = None
            self._say(f"{occupant.name} leaves the table.")
            return Reply(True, "you left the table")
        occupant.client, occupant.bot = None, TAKEOVER_BOT
        assert self.game is not None
        self.bots[seat] = make_bot(TAKEOVER_BOT, self.game)
        self._say(f"{occupant.name} leaves; a {TAKEOVER_BOT} bot plays {occupant.name}'s seat on.")
        return Reply(True, "you left the table; a bot plays your seat on")

    def _check_host(self, client: str, what: str) -> None:
        """Once a person sits at the table, only the people seated may set it up."""
        if self.seat_of(client) is None and any(not o.is_bot for o in self.seats):
            raise ConfigError(f"only the players seated at this table may {what}; /join first")

    def _cmd_option(self, client: str, name: str) -> Reply:
        self._check_host(client, "set options")
        if self.phase != WAITING:
            raise ConfigError("options are set before /start; the game is under way")
        key = name.strip().lower()
        if key not in self.options:
            raise ConfigError(
                f"{self.info.title} has no option {name.strip()!r}; its options are: {_names(self.options)}"
            )
        self.options[key] = not self.options[key]
        state = "on" if self.options[key] else "off"
        self._say(f"option {key} is {state}.")
        return Reply(True, f"option {key} is {state}")

    def _cmd_bot(self, client: str, name: str) -> Reply:
        self._check_host(client, "seat bots")
        if self.phase != WAITING:
            raise ConfigError("bots take seats before /start; the game is under way")
        name = name.strip()
        base, colon, settings = name.partition(":")
        if self.policy_files and base.endswith(".npz"):
            if not Path(base).is_file():
                raise ConfigError(f"no policy file {base}")
        elif base.lower() in (allowed := self.bot_names()):
            name = base.lower() + colon + settings.replace(" ", "")
        else:
            raise ConfigError(f"no bot {base!r} for {self.info.title}; bots: {', '.join(allowed)}")
        if settings:  # a wrong setting is refused now, with what the bot takes, not at /start
            make_bot(name, make(self.game_name, None, **self.options))
        if len(self.seats) >= self.info.max_seats:
            raise ConfigError(f"the table is full: {self.info.title} takes at most {self.info.max_seats}")
        if base.lower() == "agent":
            # the agent is chosen at /start for the seat count then; refuse it now if no count the
            # table can still reach (this seat and more, up to the game's maximum) has one
            reachable = range(max(len(self.seats) + 1, self.info.min_seats), self.info.max_seats + 1)
            if not set(agent_seats(self.game_name)) & set(reachable):
                raise ConfigError(self._agent_counts(len(self.seats) + 1))
        shown = Path(name).stem if name.endswith(".npz") else name
        label = f"{shown} bot"
        k = 1
        while self._name_taken(label):
            k += 1
            label = f"{shown} bot {k}"
        if name == "agent" and self.agent_think > 0:  # the site's agent thinks (its label stays)
            name = thinking_agent(self.game_name, self.agent_think)
        self.seats.append(Occupant(label, bot=name))
        self._say(f"{label} joins the table.")
        return Reply(True, f"{label} sits at seat {len(self.seats) - 1}")

    def _agent_counts(self, n: int) -> str:
        counts = agent_seats(self.game_name)
        return (
            f"the agent of {self.info.title} plays only at tables of "
            f"{' or '.join(map(str, counts)) or 'no'} seats; this table would have {n} "
            "(/unbot SEAT removes a bot; other bots: "
            + ", ".join(b for b in self.bot_names() if b != "agent")
            + ")"
        )

    def _cmd_unbot(self, client: str, rest: str) -> Reply:
        self._check_host(client, "remove bots")
        if self.phase != WAITING:
            raise ConfigError("bots leave before /start; the game is under way")
        bots = [s for s, o in enumerate(self.seats) if o.is_bot]
        usage = (
            f"/unbot SEAT with the seat number of a bot ({', '.join(map(str, bots)) or 'no bot is seated'})"
        )
        if not rest.isdigit() or int(rest) not in bots:
            raise ConfigError(f"no bot at seat {rest!r}: {usage}" if rest else usage)
        occupant = self.seats.pop(int(rest))
        self._say(f"{occupant.name} leaves the table.")
        return Reply(True, f"{occupant.name} left seat {rest}")

    def _cmd_start(self, client: str, rest: str) -> Reply:
        if self.phase != WAITING:
            raise ConfigError("the game has already started")
        self._check_host(client, "start the game")
        info, n = self.info, len(self.seats)
        if not info.min_seats <= n <= info.max_seats:
            raise ConfigError(
                f"{info.title} is for {info.min_seats} to {info.max_seats} players; "
                f"{n} {'is' if n == 1 else 'are'} seated (/join or /bot NAME to add seats)"
            )
        if any((o.bot or "").partition(":")[0] == "agent" for o in self.seats) and n not in agent_seats(
            self.game_name
        ):
            raise ConfigError(self._agent_counts(n))
        game = make(self.game_name, n, **self.options)
        bots = {s: make_bot(o.bot, game) for s, o in enumerate(self.seats) if o.bot}
        self.game, self.state, self.bots, self.phase = game, game.initial_state(), bots, PLAYING
        on = [k for k, v in self.options.items() if v]
        self._say(f"The game starts with {n} players" + (f", options: {', '.join(on)}." if on else "."))
        self._advance()
        return Reply(True, "the game starts")

    def _cmd_status(self, client: str, rest: str) -> Reply:
        return Reply(True, self.status(), changed=False)

    def _cmd_help(self, client: str, rest: str) -> Reply:
        lines = [f"{c.usage}: {c.help}" for c in TABLE_COMMANDS.values()]
        lines.append(f"options: {_names(self.options)}; bots: {', '.join(self.bot_names())}")
        seat = self.seat_of(client)
        if self.phase == PLAYING and seat is not None and self.to_move() == seat:
            lines.append("your moves: " + ", ".join(self.legal_commands()))
        elif self.phase == PLAYING:
            lines.append(f"waiting for {self._who(self.to_move())}")
        return Reply(True, "\n".join(lines), changed=False)

    def _cmd_move(self, client: str, text: str) -> Reply:
        if self.phase == WAITING:
            if text.startswith("/"):
                raise ConfigError(
                    f"unknown command {text.split(' ')[0]!r}; commands: {', '.join(TABLE_COMMANDS)}"
                )
            raise ConfigError(f"the game has not started: {text!r} is not a table command; /help lists them")
        if self.phase == FINISHED:
            raise ConfigError("the game is over: no move is legal")
        seat = self._own_seat(client)
        mover = self.to_move()
        if mover != seat:
            raise ConfigError(f"it is not your turn: waiting for {self._who(mover)}")
        assert self.game is not None
        try:
            action = self.game.parse_move(self.state, text)
        except IllegalActionError:
            # the engine's message names action ids, which read like counts to a person
            raise ConfigError(
                f"{text!r} is not legal now; your moves: {', '.join(self.legal_commands())}"
            ) from None
        self._move(seat, action)
        return Reply(True, f"you: {self.game.command(action)}")

    # ------------------------------------------------------------ playing

    def _move(self, seat: int, action: int) -> None:
        """The one path by which people and bots move."""
        game = self.game
        assert game is not None
        secret = game.secret_decision(self.state)
        game.apply(self.state, action)
        self.history.append({"seat": seat, "action": int(action)})
        who = self.seats[seat].label(seat)
        if secret:
            self._say(f"{who} has chosen.")
            self._say(f"you chose: {game.command(action)}", seat)
        else:
            self._say(f"{who}: {game.command(action)}")
        revealed = self._track_secret(seat, action, secret)
        if revealed:
            self._say(
                "Revealed: "
                + ", ".join(f"{self.seats[s].label(s)} {game.command(a)}" for s, a in revealed)
                + "."
            )
        self._advance()

    def _track_secret(self, seat: int, action: int, secret: bool) -> list[tuple[int, int]]:
        """Follow a round of face-down choices; return it when its last choice was just made.

        A round ends when the game stops asking for secret choices, or asks one
        of a seat that has already chosen in it (a new round began).
        """
        if not secret:
            return []
        assert self.game is not None
        self.secret_round.append((seat, action))
        mover = self.game.to_move(self.state)
        if self.game.secret_decision(self.state) and mover not in {s for s, _ in self.secret_round}:
            return []
        done, self.secret_round = self.secret_round, []
        return done

    def _advance(self) -> None:
        game = self.game
        assert game is not None
        while (mover := game.to_move(self.state)) == CHANCE:
            if self.scripted:
                outcome = game.check_outcome(self.state, self.scripted.pop(0))
            else:
                outcome = game.sample_chance(self.state, self.rng)
            text = self._named(game.describe_outcome(self.state, outcome))
            game.apply_chance(self.state, outcome, check=False)
            self.history.append({"chance": _jsonable(outcome)})
            self._say(text)
        if mover == TERMINAL:
            self.phase = FINISHED
            winners = game.winners(self.state)
            names = " and ".join(self.seats[s].name for s in winners)
            scores = ", ".join(f"{o.name} {game.scores(self.state)[s]:g}" for s, o in enumerate(self.seats))
            self._say(
                f"Game over: {names} {'wins' if len(winners) == 1 else 'share the win'}. Scores: {scores}."
            )

    def _named(self, text: str) -> str:
        """``text`` with "seat N" put as the seat's name (the games' own texts number seats)."""

        def name(match: re.Match[str]) -> str:
            seat = int(match.group(1))
            return self.seats[seat].name if seat < len(self.seats) else match.group(0)

        return SEAT_WORD.sub(name, text)

    def _run_bots(self) -> None:
        while self.phase == PLAYING and self.game is not None:
            mover = self.game.to_move(self.state)
            bot = self.bots.get(mover)
            if bot is None:
                return
            # reseeded at every decision from the table's seed and the position, so that a
            # table rebuilt from its record (a server restart) plays on exactly as it would have
            bot.reset(self._seed_for(mover))
            self._move(mover, int(bot.act(Seat.of(self.game, self.state, mover))))

    def _seed_for(self, seat: int) -> int:
        return int(np.random.SeedSequence([self.seed, seat, len(self.history)]).generate_state(1)[0])

    # ------------------------------------------------------------ reading the table

    def seat_of(self, client: str | None) -> int | None:
        """The seat bound to ``client``, if any."""
        if client is None:
            return None
        for s, o in enumerate(self.seats):
            if o.client == client:
                return s
        return None

    def to_move(self) -> int | None:
        """The seat to move, or None when no game is under way."""
        if self.phase != PLAYING or self.game is None:
            return None
        mover = self.game.to_move(self.state)
        return mover if mover >= 0 else None

    def legal_commands(self) -> list[str]:
        assert self.game is not None
        return [self.game.command(a) for a in self.game.legal_actions(self.state)]

    def bot_names(self) -> list[str]:
        """The bots this table can seat (``agent`` where one is shipped for some seat count)."""
        if self._bot_names is None:  # read once: a view asks for them on every broadcast
            self._bot_names = game_bot_names(self.game_name)
        return list(self._bot_names)

    def status(self) -> str:
        info = self.info
        lines = [
            f"table {self.table_id}: {info.title} ({self.phase}), options: {_names(self.options, on=True)}"
        ]
        for s, o in enumerate(self.seats):
            lines.append(f"  seat {s}: {o.label(s)}" + (" (to move)" if self.to_move() == s else ""))
        if not self.seats:
            lines.append("  no one is seated yet")
        return "\n".join(lines)

    def view(self, client: str | None, log_from: int | None = None) -> dict[str, Any]:
        """What ``client`` may see: the table, its own seat's game view, render and drawing, its log lines.

        ``host`` says whether the client may set the table up now (options, bots,
        start); ``board`` is the game drawn as SVG (:mod:`tablezoo.games.draw`)
        with the names of the seats, its legal pieces clickable.

        ``log`` holds the lines numbered ``log_from`` and up that this client may
        see (by default its last :data:`VIEW_LOG` lines), ``log_numbers`` their
        numbers (for a front end that merges the lines of successive views);
        ``log_end`` is the number to ask from next time.
        """
        seat = self.seat_of(client)
        game = self.game
        mover = self.to_move()
        lines = self.visible_log(seat, log_from)
        state = game.view(self.state, seat) if game is not None else None
        return {
            "table": self.table_id,
            "game": self.game_name,
            "title": self.info.title,
            "min_seats": self.info.min_seats,
            "max_seats": self.info.max_seats,
            "phase": self.phase,
            "version": self.version,
            "options": dict(self.options),
            "bots": self.bot_names(),
            "seats": [
                {"seat": s, "name": o.name, "bot": o.bot, "you": s == seat} for s, o in enumerate(self.seats)
            ],
            "you": seat,
            "host": self.phase == WAITING and (seat is not None or not any(not o.is_bot for o in self.seats)),
            "to_move": mover,
            "legal": self.legal_commands() if mover is not None and mover == seat else [],
            "render": game.render(self.state, seat) if game is not None else "",
            "state": state,
            "board": draw.svg(self.game_name, state, names=[o.name for o in self.seats]) if state else "",
            "log": [line.text for line in lines],
            "log_numbers": [line.number for line in lines],
            "log_end": self.log[-1].number + 1 if self.log else 0,
        }

    def visible_log(self, seat: int | None, start: int | None = None) -> list[LogLine]:
        """The log lines ``seat`` may see (``None``: a spectator), from number ``start`` on."""
        lines = [ln for ln in self.log if (start is None or ln.number >= start) and ln.seat in (None, seat)]
        return lines[-VIEW_LOG:] if start is None else lines

    def _say(self, text: str, seat: int | None = None) -> None:
        number = self.log[-1].number + 1 if self.log else 0
        self.log.append(LogLine(number, text, seat))

    def _own_seat(self, client: str) -> int:
        seat = self.seat_of(client)
        if seat is None:
            raise ConfigError("you have no seat at this table; /join first")
        return seat

    def _who(self, seat: int | None) -> str:
        return "no one" if seat is None else self.seats[seat].label(seat)

    # ------------------------------------------------------------ records and replays

    def to_record(self) -> dict[str, Any]:
        """Everything needed to rebuild the table (JSON-native)."""
        return {
            "table_id": self.table_id,
            "game": self.game_name,
            "options": dict(self.options),
            "seed": self.seed,
            "seats": [asdict(o) for o in self.seats],
            "phase": self.phase,
            "history": list(self.history),
            "log": [asdict(line) for line in self.log],
            "version": self.version,
            "rng": self.rng.bit_generator.state,
            "policy_files": self.policy_files,
            "agent_think": self.agent_think,
        }

    @classmethod
    def from_record(cls, record: dict[str, Any], base: Table | None = None) -> Table:
        """The table of :meth:`to_record`, its game rebuilt by replaying its history.

        ``base``, an older copy of the same table (a worker's cache of it, say), saves the
        replay of what the two have in common: when its game is under way with the same
        seats and its history begins the record's, only the newer entries are played on
        its game, and its bots are kept. ``base`` is consumed: use only the table returned.
        """
        table = cls(
            table_id=record["table_id"],
            game_name=record["game"],
            options=dict(record["options"]),
            seed=int(record["seed"]),
            seats=[Occupant(**o) for o in record["seats"]],
            log=[LogLine(**line) for line in record["log"]],
            version=int(record["version"]),
            policy_files=bool(record.get("policy_files", False)),
            agent_think=float(record.get("agent_think", 0.0)),
        )
        if record["phase"] != WAITING:
            history = record["history"]
            done = 0
            if base is not None and _continues(base, table, history):
                game, table.state, table.secret_round = base.game, base.state, base.secret_round
                done = len(base.history)
                kept = {s: b for s, b in base.bots.items() if base.seats[s].bot == table.seats[s].bot}
            else:
                game = make(table.game_name, len(table.seats), **table.options)
                table.state, kept = game.initial_state(), {}
            assert game is not None
            table.game = game
            for entry in history[done:]:
                secret = "seat" in entry and game.secret_decision(table.state)
                _apply_entry(game, table.state, entry)
                if "seat" in entry:  # the round of secret choices under way, as play left it
                    table._track_secret(entry["seat"], entry["action"], secret)
            table.history = list(history)
            table.phase = FINISHED if game.is_terminal(table.state) else PLAYING
            table.bots = {
                s: kept[s] if s in kept else make_bot(o.bot, game) for s, o in enumerate(table.seats) if o.bot
            }
        table.rng.bit_generator.state = record["rng"]
        return table

    def advance(self, change: dict[str, Any]) -> bool:
        """Bring the table forward in place by one change a store logged (its new history entries
        and log lines, and the fields it set: :func:`tablezoo.tables.store.delta`), playing only
        the new entries on its game. The same table as :meth:`from_record` of the record brought
        forward, at the cost of the change rather than of the whole game.

        Returns False, changing nothing, when the change cannot be played on this table (its
        game not started here but started in the change, or its seats or options changed under a
        game): rebuild it from the record then.
        """
        started = change["phase"] != WAITING
        if started and self.game is None:
            return False
        if self.game is not None and (
            len(change["seats"]) != len(self.seats) or change["options"] != self.options
        ):
            return False
        game = self.game
        if game is not None:
            for entry in change["history"]:
                secret = "seat" in entry and game.secret_decision(self.state)
                _apply_entry(game, self.state, entry)
                if "seat" in entry:
                    self._track_secret(entry["seat"], entry["action"], secret)
            self.history.extend(change["history"])
            self.phase = FINISHED if game.is_terminal(self.state) else PLAYING
        self.log.extend(LogLine(**line) for line in change["log"])
        old = self.seats
        self.seats = [Occupant(**o) for o in change["seats"]]
        self.options = dict(change["options"])
        self.version = int(change["version"])
        self.policy_files = bool(change.get("policy_files", False))
        if game is not None:
            self.bots = {
                s: self.bots[s] if s in self.bots and old[s].bot == o.bot else make_bot(o.bot, game)
                for s, o in enumerate(self.seats)
                if o.bot
            }
        self.rng.bit_generator.state = change["rng"]
        return True

    def replay(self, seat: int | None = None) -> list[dict[str, Any]]:
        """The game move by move: ``{"step", "text", "render"}`` for each position, seen from ``seat``.

        ``text`` says what led to the position (a move, or a chance outcome as the
        game describes it in public); a face-down move of another seat reads
        "has chosen". Pass ``seat=None`` for what a spectator sees, or a seat for
        that player's own replay. The raw history (deals, face-down cards) is never
        in a frame.
        """
        if self.game is None:
            return []
        game = self.game
        state = game.initial_state()
        frames = [{"step": 0, "text": "start", "render": game.render(state, seat)}]
        for step, entry in enumerate(self.history, start=1):
            if "chance" in entry:
                text = self._named(game.describe_outcome(state, entry["chance"]))
            else:
                who = self.seats[entry["seat"]].label(entry["seat"])
                hidden = game.secret_decision(state) and seat != entry["seat"]
                text = f"{who} has chosen" if hidden else f"{who}: {game.command(entry['action'])}"
            _apply_entry(game, state, entry)
            frames.append({"step": step, "text": text, "render": game.render(state, seat)})
        return frames

    def replay_board(self, step: int, seat: int | None = None) -> str:
        """The board after ``step`` entries of the history, drawn as ``seat`` saw it (SVG).

        Nothing in it is clickable (a replay plays no moves). Raises
        :class:`ConfigError` for a step outside ``0..len(history)``.
        """
        if self.game is None:
            raise ConfigError("the game has not started: there is nothing to replay")
        if not 0 <= step <= len(self.history):
            raise ConfigError(f"step must be from 0 to {len(self.history)}, not {step}")
        game = self.game
        state = game.initial_state()
        for entry in self.history[:step]:
            _apply_entry(game, state, entry)
        view = {**game.view(state, seat), "legal": []}
        return draw.svg(game, view, names=[o.name for o in self.seats])


@dataclass(frozen=True)
class TableCommand:
    """One command of the table: how it is written, what it does, and the method that does it."""

    usage: str
    help: str
    handler: Callable[[Table, str, str], Reply]


TABLE_COMMANDS: dict[str, TableCommand] = {
    "/join": TableCommand("/join [name]", "sit down (before the start)", Table._cmd_join),
    "/leave": TableCommand("/leave", "stand up; during a game a bot plays your seat on", Table._cmd_leave),
    "/option": TableCommand("/option NAME", "switch a game option on or off", Table._cmd_option),
    "/bot": TableCommand("/bot NAME", "seat a bot", Table._cmd_bot),
    "/unbot": TableCommand("/unbot SEAT", "remove the bot at that seat number", Table._cmd_unbot),
    "/start": TableCommand("/start", "start the game", Table._cmd_start),
    "/status": TableCommand("/status", "the table: game, options, seats, whose turn", Table._cmd_status),
    "/help": TableCommand("/help", "this list, and your moves", Table._cmd_help),
}
"""The table's commands by name: :meth:`Table.handle` dispatches through it, ``/help`` prints it."""
BOT_WORD = re.compile(r"\bbots?\b", re.IGNORECASE)
SEAT_WORD = re.compile(r"\bseat (\d+)\b")


def _apply_entry(game: Game[Any], state: Any, entry: dict[str, Any]) -> None:
    """Apply one history entry (a chance outcome or a seat's move), checked as a fresh one would be."""
    if "chance" in entry:
        game.apply_chance(state, entry["chance"])
        return
    if game.to_move(state) != entry["seat"]:
        raise ConfigError(f"the history is broken: seat {entry['seat']} moves out of turn")
    game.apply(state, entry["action"])


def _continues(base: Table, table: Table, history: list[dict[str, Any]]) -> bool:
    """Whether ``history`` (of ``table``) goes on from where ``base``'s game stands."""
    return (
        base.game is not None
        and base.table_id == table.table_id
        and base.game_name == table.game_name
        and base.options == table.options
        and len(base.seats) == len(table.seats)
        and len(base.history) <= len(history)
        and history[: len(base.history)] == base.history
    )


def _names(options: dict[str, bool], on: bool = False) -> str:
    names = [k for k, v in options.items() if v or not on]
    return ", ".join(names) or "none"


def _clean_name(name: str) -> str:
    """A display name: printable, at most :data:`MAX_NAME` characters (HTML is escaped by front ends)."""
    return "".join(ch for ch in name if ch.isprintable()).strip()[:MAX_NAME]


def _jsonable(value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    return value


__all__ = [
    "FINISHED",
    "GAMES",
    "PLAYING",
    "TABLE_COMMANDS",
    "WAITING",
    "LogLine",
    "Occupant",
    "Reply",
    "Table",
    "TableCommand",
]
