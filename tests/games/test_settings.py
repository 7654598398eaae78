"""The settings mechanism every command's flags are made by (``tablezoo.games.settings``): what a
field declares becomes the argument argparse would have been given by hand."""

from __future__ import annotations

import argparse
import importlib
import sys
from dataclasses import dataclass
from typing import Any

import pytest

from tablezoo.games import GAMES, game_named
from tablezoo.games.core import ConfigError
from tablezoo.games.settings import FROM, add_arguments, given, setting


def _pairs(items: list[str]) -> dict[str, int]:
    pairs = (item.partition("=") for item in items)
    return {key: int(value) for key, _, value in pairs}


def _game(name: str) -> str:
    if game_named(name) not in GAMES:
        raise ConfigError(f"no game {name!r}")
    return game_named(name)


@dataclass
class Everything:
    """One field of each kind."""

    game: str = setting(positional=True, convert=_game, metavar="GAME", help="the game")
    policy: str | None = setting(None, positional=True, nargs="?")
    """an optional positional"""
    num_players: list[int] | None = setting(None, flag="players", deprecated=("--seats",))
    """seat counts"""
    bar: bool = setting(True, flag="no_bar", action="store_false", help="")
    fast: bool = setting(False, action="store_true")
    """go fast"""
    option: list[str] = setting(factory=list, action="append")
    """an option, repeatable"""
    hp: dict[str, int] = setting(factory=dict, action="append", metavar="KEY=VALUE", read=_pairs)
    """KEY=VALUE, repeatable"""
    budget: int | None = setting(None, required=True, group="the run")
    """decisions"""
    pair: list[str] | None = setting(None, nargs=2, metavar=("A", "B"), group="the run")
    """two things"""
    scaled: bool | None = setting(None, switches=(("--scaled", True, "scaled"), ("--raw", False, "raw")))
    level: str = setting("info", choices=("info", "debug"))
    """how much to say"""


def parser(**options: Any) -> argparse.ArgumentParser:
    made = argparse.ArgumentParser(prog="everything")
    add_arguments(made, Everything, **options)
    return made


def test_each_kind_of_field_parses_as_declared() -> None:
    words = ["heckmeck_v0", "p.npz", "--players", "2", "4", "--no-bar", "--fast", "--option", "a"]
    words += ["--option", "b", "--hp", "x=1", "--hp", "y=2", "--budget", "5", "--pair", "u", "v", "--raw"]
    args = parser().parse_args(words)
    assert given(args, Everything) == {
        "game": "heckmeck",
        "policy": "p.npz",
        "num_players": [2, 4],
        "bar": False,
        "fast": True,
        "option": ["a", "b"],
        "hp": {"x": 1, "y": 2},
        "budget": 5,
        "pair": ["u", "v"],
        "scaled": False,
    }


def test_defaults_are_none_or_the_fields() -> None:
    unset = parser().parse_args(["court", "--budget", "1"])
    assert given(unset, Everything) == {"game": "court", "budget": 1}
    full = vars(parser(defaults=True).parse_args(["court", "--budget", "1"]))
    assert full == {
        "game": "court",
        "policy": None,
        "num_players": None,
        "bar": True,
        "fast": False,
        "option": [],
        "hp": {},
        "budget": 1,
        "pair": None,
        "scaled": None,
        "level": "info",
    }


def test_help_groups_metavars_and_what_stays_hidden() -> None:
    text = parser().format_help()
    assert "the run:\n  --budget BUDGET" in text and "--pair A B" in text
    assert "--hp KEY=VALUE" in text and "GAME" in text and "--seats" not in text
    assert "how much to say (default: info)" in text
    assert "how much to say\n" in parser(show_defaults=False).format_help()
    made = parser()
    assert all(getattr(a, FROM)[0] is Everything for a in made._actions if a.dest != "help")


@pytest.mark.parametrize(
    ("words", "error"),
    [
        (["chess", "--budget", "1"], "argument GAME: no game 'chess'"),
        (["court"], "the following arguments are required: --budget"),
        (
            ["court", "--budget", "1", "--scaled", "--raw"],
            "argument --raw: not allowed with argument --scaled",
        ),
        (["court", "--budget", "1", "--level", "loud"], "argument --level: invalid choice: 'loud'"),
    ],
)
def test_the_parser_refuses_by_name(words: list[str], error: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parser().parse_args(words)
    assert error in capsys.readouterr().err


def test_an_old_spelling_warns_and_works(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.warns(DeprecationWarning, match="--seats is deprecated"):
        args = parser().parse_args(["court", "--budget", "1", "--seats", "3"])
    assert args.num_players == [3] and "say --players" in capsys.readouterr().err


def test_only_adds_the_fields_named_in_their_order() -> None:
    made = argparse.ArgumentParser()
    add_arguments(made, Everything, only=("level", "fast"))
    assert [a.dest for a in made._actions] == ["help", "level", "fast"]
    with pytest.raises(TypeError, match=r"Everything has no settings \['nope'\]"):
        add_arguments(argparse.ArgumentParser(), Everything, only=("nope",))


def test_the_old_path_warns_and_hands_the_names_on() -> None:
    sys.modules.pop("tablezoo.training.settings", None)
    with pytest.warns(DeprecationWarning, match="moved to tablezoo.games.settings"):
        old = importlib.import_module("tablezoo.training.settings")
    assert old.setting is setting
