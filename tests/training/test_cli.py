"""The tablezoo command line: evaluate, play and bots, every subcommand's help, and every command the
README, the Makefile and the subcommands' modules show."""

from __future__ import annotations

import argparse
import importlib
import itertools
import json
import re
import shlex
from pathlib import Path

import pytest

from tablezoo import commands as cli
from tablezoo.commands.play import cmd_play
from tablezoo.commands.train import parse_hp


def test_evaluate_prints_a_table_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "result.json"
    cli.main(["evaluate", "diamant", "--players", "3", "--bots", "heuristic", "random",
              "--games", "9", "--json", str(out)])  # fmt: skip
    text = capsys.readouterr().out
    assert "95% CI" in text and "fair share of wins: 0.333" in text
    assert "{" not in text  # the JSON went into the file
    result = json.loads(out.read_text())
    assert result["lineup"] == ["heuristic", "random", "random"]
    assert {s["name"] for s in result["standings"]} == {"heuristic", "random"}


def test_evaluate_prints_json_alone_only_when_asked(capsys: pytest.CaptureFixture[str]) -> None:
    lineup = ["evaluate", "diamant", "--players", "3", "--bots", "heuristic", "random", "--games", "9"]
    cli.main(lineup)
    captured = capsys.readouterr()
    assert "95% CI" in captured.out and "{" not in captured.out
    # where standard error is not a terminal, progress comes as log lines, not a bar
    assert "\r" not in captured.err and "evaluate: 9/9 games (100%), done" in captured.err
    cli.main([*lineup, "--json"])
    result = json.loads(capsys.readouterr().out)  # standard output is the JSON alone
    assert result["games"] == 9 and result["lineup"] == ["heuristic", "random", "random"]


def test_unknown_bots_and_bad_lineups_are_refused() -> None:
    with pytest.raises(SystemExit, match="no bot 'nobody' for Diamant; bots: random, heuristic"):
        cli.main(["evaluate", "diamant", "--bots", "nobody"])
    with pytest.raises(SystemExit, match="5 bots for 4 seats"):
        cli.main(["evaluate", "diamant", "--players", "4", "--bots", *["random"] * 5])
    with pytest.raises(SystemExit, match="--jobs is the number of processes, at least 1, not 0"):
        cli.main(["evaluate", "diamant", "--bots", "random", "--jobs", "0"])
    with pytest.raises(SystemExit, match="Diamant is for 3 to 8 players, not 2"):
        cli.main(["play", "diamant", "--players", "2"])
    with pytest.raises(SystemExit, match=r"with 1 bots your seat is 0\.\.1, not 5"):
        cli.main(["play", "heckmeck", "--seat", "5"])


def test_play_a_whole_game_typing_commands() -> None:
    # A player who types every command in turn: illegal ones are answered, legal ones played.
    words = ["nonsense", "help", "keep worm", "take", "steal", "roll", *(f"keep {f}" for f in range(1, 6))]
    typed = itertools.cycle(words)
    lines: list[str] = []
    args = cli.build_parser().parse_args(["play", "heckmeck", "--bot", "heuristic", "--seed", "4"])
    cmd_play(args, read=lambda prompt: next(typed), write=lines.append)
    text = "\n".join(lines)
    assert "'nonsense' is not a move of Heckmeck" in text
    assert "your moves:" in text and "heuristic bot:" in text
    assert "player 1 joins the table." in text  # no --name: the table names the player
    assert lines[-1] in ("You win!", "You lose.", "You share the win.")


@pytest.mark.parametrize("key", [EOFError, KeyboardInterrupt])
def test_ctrl_d_and_ctrl_c_abandon_the_game_quietly(key: type[BaseException]) -> None:
    lines: list[str] = []

    def read(prompt: str) -> str:
        raise key

    args = cli.build_parser().parse_args(["play", "heckmeck", "--bot", "random", "--seed", "4"])
    cmd_play(args, read=read, write=lines.append)  # returns: no traceback, no exit status
    assert lines[-1] == "game abandoned"


def test_bots_lists_what_a_game_offers(capsys: pytest.CaptureFixture[str]) -> None:
    cli.main(["bots", "heckmeck"])
    assert capsys.readouterr().out.strip().startswith("random, heuristic, solver")


def test_hp_overrides_read_json_then_yaml() -> None:
    hp = parse_hp(["gamma=0.999", "learning_rate=1e-5", "net_arch=[256, 64]", "action_head=null",
                       "normalize_advantage=true", " ent_coef = 0.01"])  # fmt: skip
    assert hp == {
        "gamma": 0.999,
        "learning_rate": 1e-5,  # YAML alone would read "1e-5" as text
        "net_arch": [256, 64],
        "action_head": None,
        "normalize_advantage": True,
        "ent_coef": 0.01,
    }


@pytest.mark.parametrize("item", ["gamma", "=0.9", "net_arch=[256, 64"])
def test_malformed_hp_overrides_are_refused(item: str) -> None:
    with pytest.raises(SystemExit, match=r"--hp"):
        cli.main(["train", "heckmeck_v0", "--hp", item, "--out", "/nonexistent"])


ROOT = Path(__file__).resolve().parents[2]
DOCUMENTED_IN = ["tablezoo.commands", "tablezoo.commands.train", "tablezoo.training.ppo.sb3",
                 "tablezoo.evaluation.cli", "tablezoo.commands.play", "tablezoo.release.ship",
                 "tablezoo.release.export", "tablezoo.tables.server", "tablezoo.commands.baselines",
                 "tablezoo.release.baselines"]  # fmt: skip
"""The modules whose docstrings show ``tablezoo`` commands (the subcommands' own modules)."""


def documented_commands() -> list[str]:
    """Every ``tablezoo`` command of the shell blocks of the README and the documentation pages,
    the Makefile and the modules' docstrings, as written (lines joined at a trailing backslash;
    comments and pipes cut off)."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    readme = "\n".join(
        block for page in pages for block in re.findall(r"```sh\n(.*?)```", page.read_text(), flags=re.S)
    )
    makefile = (ROOT / "Makefile").read_text().replace("$(BIN)/tablezoo", "tablezoo")
    docstrings = [importlib.import_module(name).__doc__ or "" for name in DOCUMENTED_IN]
    commands = []
    for text in [readme, makefile, *docstrings]:
        for line in text.replace("\\\n", " ").splitlines():
            line = line.split(" # ")[0].split(" | ")[0].strip()
            if line.startswith("tablezoo "):
                commands.append(line)
    return list(dict.fromkeys(commands))


def test_the_documentation_shows_every_subcommand() -> None:
    shown = {shlex.split(command)[1] for command in documented_commands()}
    assert shown == set(subcommands())


@pytest.mark.parametrize("command", documented_commands())
def test_every_documented_command_parses(command: str) -> None:
    words = shlex.split(command)[1:]
    args = cli.build_parser().parse_args(words)
    assert args.command == words[0] and callable(args.func)


def subcommands() -> list[str]:
    """The names of the ``tablezoo`` subcommands."""
    parser = cli.build_parser()
    actions = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return list(actions[0].choices)


@pytest.mark.parametrize("command", [None, *subcommands()])
def test_every_help_is_shown(command: str | None, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_status:
        cli.main([command, "--help"] if command else ["--help"])
    assert exit_status.value.code == 0
    assert capsys.readouterr().out.startswith(f"usage: tablezoo {command or ''}".rstrip())


def test_play_seats_the_thinking_agent_where_no_bot_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    from tablezoo.commands import play as play_command
    from tablezoo.tables import terminal

    seated: list[list[str]] = []
    monkeypatch.setattr(terminal, "play", lambda game, bots, *args, **kw: seated.append(bots))
    args = cli.build_parser().parse_args(["play", "diamant", "--players", "4", "--bot", "heuristic"])
    cmd_play(args)
    # Diamant's bounds what its evidence weighs (a long search there overruled the network on its bias)
    assert seated == [["heuristic", "agent:think=1,bias=0.03", "agent:think=1,bias=0.03"]]
    assert play_command.PLAY_THINK == 1.0
    # 6 nimmt!'s thinking agent plays its games out (its head misleads the search at the next trick)
    cmd_play(cli.build_parser().parse_args(["play", "sechs_nimmt", "--players", "2"]))
    assert seated[-1] == ["agent:think=1,leaf=end"]
    # To Court the King's trusts its values more than the default (its network is very sure of itself)
    cmd_play(cli.build_parser().parse_args(["play", "court", "--players", "2"]))
    assert seated[-1] == ["agent:think=1,confidence=1"]
