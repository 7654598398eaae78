"""The package's shape: every game has all its pieces, imports come only from the installed package.

The checklist "Adding a game or a bot" in the README's Development section is what this tests.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import subprocess
import sys
from pathlib import Path

import pytest

from tablezoo.bots import registry
from tablezoo.bots.core import Bot
from tablezoo.envs import ENV_MODULES
from tablezoo.games import GAMES, game_class, make
from tablezoo.games.core import ConfigError

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "tests" / "scenarios"
PACKAGES = ("games", "bots", "envs", "wrappers", "tables", "evaluation", "training", "release", "cli")
"""The repository's folders that are installed as ``tablezoo.<folder>``."""


@pytest.mark.parametrize("name", list(GAMES))
def test_every_game_has_its_pieces(name: str) -> None:
    cls = game_class(name)
    assert cls.__module__ == f"tablezoo.games.{name}" and cls.__module__ in sys.modules
    assert cls.__doc__ or sys.modules[cls.__module__].__doc__, "the game module's docstring is its spec"
    env_module = f"{name}_v{cls.info.version}"
    assert env_module in ENV_MODULES, f"add {env_module} to tablezoo.envs.ENV_MODULES"
    assert importlib.import_module(f"tablezoo.envs.{env_module}").raw_env.game_class is cls
    bots = registry.game_bots(name)
    assert "random" in bots and "heuristic" in bots, f"bots/{name}.py declares BOTS with a heuristic"
    bot_module = importlib.import_module(f"tablezoo.bots.{name}")
    assert registry.GAME_BOTS[name] is bot_module.BOTS
    assert sorted(p.name for p in (SCENARIOS / name).glob("*.json")), f"tests/scenarios/{name}/ is empty"
    seats = list(game_class(name).info.seat_range)
    assert registry.agent_seats(name) == seats, "an agent at every seat count"
    assert (registry.AGENTS_DIR / f"{name}.md").exists(), "every shipped agent has its card"


@pytest.mark.parametrize("name", list(GAMES))
def test_every_declared_bot_plays_its_game(name: str) -> None:
    game = make(name)
    for bot_name, cls in registry.game_bots(name).items():
        bot = registry.make_bot(bot_name, game)
        assert isinstance(bot, cls) and isinstance(bot, Bot)
        assert cls.name == bot_name, f"{cls.__name__}.name is the name it is registered under"


def test_an_unknown_game_or_bot_is_a_clear_error() -> None:
    with pytest.raises(ConfigError, match="no game 'chess'; games are: heckmeck, sechs_nimmt"):
        registry.game_bots("chess")
    with pytest.raises(ConfigError, match="no bot 'solver' for Diamant; bots: random, heuristic"):
        registry.make_bot("solver", make("diamant", 4))


def test_every_shipped_agent_belongs_to_a_game() -> None:
    files = sorted(p.name for p in registry.AGENTS_DIR.iterdir() if p.suffix == ".npz")
    assert files == [f"{name}.npz" for name in registry.shipped_agents()] and registry.shipped_agents()


def test_tests_import_the_installed_package_only() -> None:
    """No module is loaded from the repository's own folders under another name (``games.core``)."""
    on_path = str(ROOT) in (str(Path(p).resolve()) for p in sys.path if p)
    assert not on_path, "run `.venv/bin/pytest`: `python -m pytest` puts the repository root on sys.path"
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if path and any(Path(path).resolve().is_relative_to(ROOT / folder) for folder in PACKAGES):
            assert name == "tablezoo" or name.startswith("tablezoo."), f"{name} was loaded from {path}"
    for folder in PACKAGES:
        spec = importlib.util.find_spec(folder)
        origin = Path(spec.origin) if spec and spec.origin else None
        assert origin is None or not origin.is_relative_to(ROOT), f"'import {folder}' loads the repository's"


def test_version_agrees_with_the_distribution() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "tablezoo", "--version"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.split() == ["tablezoo", importlib.metadata.version("tablezoo")]
