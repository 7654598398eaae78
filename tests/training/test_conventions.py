"""One convention on the command line: ``--players`` on every subcommand (``--seats`` warns), a game
named ``heckmeck`` or ``heckmeck_v0`` alike; and the old import paths of 0.6 still work, warning."""

from __future__ import annotations

import importlib
import subprocess
import sys
import warnings

import pytest

from tablezoo.commands import build_parser
from tablezoo.envs import env_module, game_name, make_game
from tablezoo.games.core import ConfigError

COUNTING = ["train", "evaluate", "benchmark", "expert", "ship", "export", "play"]


@pytest.mark.parametrize("command", COUNTING)
def test_every_subcommand_says_players(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser().parse_args([command, "--help"])
    text = capsys.readouterr().out
    assert "--players" in text and "--seats" not in text


@pytest.mark.parametrize(
    ("words", "dest", "value"),
    [
        (["expert", "heckmeck", "--seats", "2", "4"], "num_players", [2, 4]),
        (["benchmark", "diamant", "policy.npz", "--seats", "3"], "players", [3]),
        (["evaluate", "diamant", "--bots", "random", "--seats", "3"], "players", 3),
        (["ship", "runs/expert-court", "--seats", "2"], "num_players", [2]),
        (["baselines", "run", "batched_ppo", "heckmeck", "--seats", "2", "--budget", "512"], "players", 2),
    ],
)
def test_seats_still_works_and_warns(
    words: list[str], dest: str, value: object, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.warns(DeprecationWarning, match="--seats is deprecated"):
        args = build_parser().parse_args(words)
    assert getattr(args, dest) == value
    assert "say --players" in capsys.readouterr().err


def test_a_baselines_row_says_its_seat_count(capsys: pytest.CaptureFixture[str]) -> None:
    from tablezoo.commands import main

    with pytest.raises(SystemExit, match="baselines run needs the row's seat count: --players N"):
        main(["baselines", "run", "batched_ppo", "heckmeck", "--budget", "512", "--out", "unused"])
    with pytest.raises(SystemExit):
        build_parser().parse_args(["baselines", "run", "--help"])
    assert "--players" in capsys.readouterr().out


@pytest.mark.parametrize(
    "command", [["evaluate", "{}", "--bots", "random"], ["expert", "{}"], ["play", "{}"]]
)
def test_a_game_is_named_either_way(command: list[str]) -> None:
    parse = build_parser().parse_args
    plain = parse([word.format("heckmeck") for word in command])
    versioned = parse([word.format("heckmeck_v0") for word in command])
    assert plain.game == versioned.game == "heckmeck"


def test_train_takes_the_game_or_its_env_module() -> None:
    parse = build_parser().parse_args
    assert parse(["train", "heckmeck"]).env == parse(["train", "heckmeck_v0"]).env == "heckmeck_v0"
    assert env_module("court") == "court_v0" and game_name("court_v0") == "court"
    assert make_game("diamant", 5).num_seats == make_game("diamant_v0", 5).num_seats == 5
    with pytest.raises(ConfigError, match="no environment 'chess'"):
        env_module("chess")


OLD_PATHS = {
    "tablezoo.training.train": "TrainConfig",
    "tablezoo.training.ship": "ShipConfig",
    "tablezoo.training.export": "export_policy",
    "tablezoo.training.reproduce": "reproduce",
    "tablezoo.training.cli": "main",
    "tablezoo.training.league": "improve",
    "tablezoo.training.selfplay": "minibatch_fit",
    "tablezoo.training.search_selfplay": "SearchSelfPlay",
    "tablezoo.training.calibrate": "calibrate",
    "tablezoo.training.rllib_backend": "RLlibTrainConfig",
    "tablezoo.training.progress": "Progress",
    "tablezoo.training.play": "cmd_play",
}


@pytest.mark.parametrize(("old", "name"), list(OLD_PATHS.items()))
def test_old_import_paths_warn_and_work(old: str, name: str) -> None:
    if name == "RLlibTrainConfig":
        pytest.importorskip("ray.rllib")
    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match="moved to"):
        module = importlib.import_module(old)
    assert callable(getattr(module, name))


def test_the_old_expert_module_names_are_found_in_the_package() -> None:
    with pytest.warns(DeprecationWarning, match="moved to tablezoo.training.expert.config.ExpertConfig"):
        from tablezoo.training.expert import ExpertConfig
    from tablezoo.training.expert import config

    assert ExpertConfig is config.ExpertConfig


def test_old_module_paths_still_run_as_programs() -> None:
    for module in ("tablezoo.training.calibrate", "tablezoo.training.ship", "tablezoo.training.cli"):
        with warnings.catch_warnings():
            out = subprocess.run(
                [sys.executable, "-m", module, "--help"], capture_output=True, text=True, check=True
            )
        assert out.stdout.startswith("usage:")
