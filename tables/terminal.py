"""The terminal front end: one person at a table with bots, typing the site's commands.

``tablezoo play GAME --bot NAME ...`` seats the bots and the person at a
:class:`~tablezoo.tables.table.Table`, starts the game, and then shows what the
person's seat may see: the log of the table as it grows, and the table itself
(the game's render from that seat) whenever it is the person's turn. What the
person types goes to the table as it is: a move (``keep worm``, ``play 42``,
``go``), ``/help``, ``/status`` or ``/leave``; ``quit``, Ctrl-D or Ctrl-C end the
session (the game is abandoned, without a traceback).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from tablezoo.games.core import ConfigError
from tablezoo.tables.table import FINISHED, Table

YOU = "terminal"
"""The client id of the person at the terminal."""


def play(
    game_name: str,
    bots: Sequence[str],
    seat: int = 0,
    name: str | None = None,
    seed: int | None = None,
    options: Sequence[str] = (),
    read: Callable[[str], str] = input,
    write: Callable[[str], None] = print,
) -> Table:
    """Play one game at a table of ``bots`` from seat ``seat``; return the table.

    Without ``name`` the table names the person ("player 1", ...).
    """
    if not 0 <= seat <= len(bots):
        raise ConfigError(f"with {len(bots)} bots your seat is 0..{len(bots)}, not {seat}")
    table = Table.new(game_name, seed=seed, policy_files=True)
    commands = [f"/option {o}" for o in options] + [f"/bot {b}" for b in bots]
    commands.insert(len(options) + seat, f"/join {name}" if name else "/join")
    for command in [*commands, "/start"]:
        reply = table.handle(YOU, command)
        if not reply.ok:
            raise ConfigError(reply.text)
    me = table.seat_of(YOU)
    write(table.status())
    shown, drawn = 0, -1
    while True:
        view = table.view(YOU, log_from=shown)
        for line in view["log"]:
            write(line)
        shown = view["log_end"]
        if table.phase == FINISHED or table.seat_of(YOU) is None:
            break
        if view["to_move"] != me:  # bots move inside handle(); this is never expected
            raise RuntimeError(f"the table waits for {view['to_move']}, not for you")
        if drawn != view["version"]:  # redraw the table only after something happened
            write("")
            write(view["render"])
            drawn = view["version"]
        try:
            text = read("your move> ").strip()
        except (EOFError, KeyboardInterrupt):  # Ctrl-D, Ctrl-C: leave quietly
            text = "quit"
            write("")
        if text in ("quit", "/quit", "exit"):
            write("game abandoned")
            return table
        if text in ("help", "?", ""):
            text = "/help"
        reply = table.handle(YOU, text)
        if not reply.ok or text.startswith(("/help", "/status")):
            write(reply.text)
    if table.game is not None and table.phase == FINISHED:
        write("")
        write(table.game.render(table.state, me))
        winners = table.game.winners(table.state)
        write("You win!" if me in winners and len(winners) == 1 else
              "You share the win." if me in winners else "You lose.")  # fmt: skip
    return table
