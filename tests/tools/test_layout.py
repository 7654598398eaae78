"""The package's shape: every game has all its pieces, imports come only from the installed package,
and no test imports a program of ``benchmarks/`` or ``examples/`` (the tests run them as programs).

The checklist "Adding a game or a bot" in the README's Development section is what this tests.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import importlib.metadata
import subprocess
import sys
from pathlib import Path

import pytest

from tablezoo.bots import registry
from tablezoo.bots.core import Bot
from tablezoo.envs import ENV_MODULES
from tablezoo.games import GAMES, game_class, make, settings
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


PROGRAMS = ("benchmarks", "examples")
"""The folders of programs: measured or copied, run as programs, imported by nothing."""
LOADERS = {
    "spec_from_file_location",
    "SourceFileLoader",
    "run_path",
    "run_module",
    "import_module",
    "insert",
    "append",
}
"""Calls that load a file as a module, or put a folder on ``sys.path`` (``sys.path.insert``)."""


def program_imports(source: str) -> list[str]:
    """The lines of a test's ``source`` that import a program of :data:`PROGRAMS` as a module: an
    ``import`` of a program's name (or of the folder), or a loader call (:data:`LOADERS`) whose
    arguments name one of the folders, directly or through a name assigned in the file."""
    tree = ast.parse(source)
    names = {p.stem for folder in PROGRAMS for p in (ROOT / folder).glob("*.py")} | set(PROGRAMS)
    assigned: dict[str, list[ast.AST]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    assigned.setdefault(target.id, []).append(node.value)

    def names_a_folder(node: ast.AST, seen: frozenset[str] = frozenset()) -> bool:
        for sub in ast.walk(node):
            if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
                parts = sub.value.replace("\\", "/").split("/")
                if any(folder in parts for folder in PROGRAMS):
                    return True
            elif isinstance(sub, ast.Name) and sub.id in assigned and sub.id not in seen:
                values = assigned[sub.id]
                if any(names_a_folder(value, seen | {sub.id}) for value in values):
                    return True
        return False

    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules = [node.module]
        else:
            modules = []
        if any(module.split(".")[0] in names for module in modules):
            found.append(f"line {node.lineno}: {ast.unparse(node)}")
        if isinstance(node, ast.Call):
            func = node.func
            name = (
                func.attr
                if isinstance(func, ast.Attribute)
                else func.id
                if isinstance(func, ast.Name)
                else ""
            )
            if name in ("insert", "append") and not (
                isinstance(func, ast.Attribute) and ast.unparse(func.value) == "sys.path"
            ):
                continue  # a list's, not the import path's
            if name in LOADERS and any(names_a_folder(arg) for arg in [*node.args, *node.keywords]):
                found.append(f"line {node.lineno}: {ast.unparse(node)}")
    return sorted(found, key=lambda line: int(line.split(":")[0].removeprefix("line ")))


def test_no_test_imports_a_program_of_benchmarks_or_examples() -> None:
    found = {
        str(path.relative_to(ROOT)): lines
        for path in sorted((ROOT / "tests").rglob("*.py"))
        if (lines := program_imports(path.read_text()))
    }
    assert not found, f"run these as programs (subprocess), or move what they test into the package: {found}"


OUTSIDE_TESTS = ("docs/hooks", "benchmarks", "examples", *PACKAGES)
"""The folders besides ``tests/`` whose Python files may not load a program either (the docs' build
takes a benchmark's table from the package, as the benchmark's own script does)."""


def test_no_file_loads_a_program_of_benchmarks_or_examples() -> None:
    found = {
        str(path.relative_to(ROOT)): lines
        for folder in OUTSIDE_TESTS
        for path in sorted((ROOT / folder).rglob("*.py"))
        if "package" not in path.relative_to(ROOT / folder).parts  # docs/hooks/package: the package's links
        and (lines := program_imports(path.read_text()))
    }
    assert not found, f"import what they need from the package instead: {found}"


def test_the_program_import_check_finds_each_way_in() -> None:
    loaded = """
SCRIPT = ROOT / "benchmarks" / "baselines.py"
spec = importlib.util.spec_from_file_location("baselines", SCRIPT)
"""
    assert program_imports(loaded) == ["line 3: importlib.util.spec_from_file_location('baselines', SCRIPT)"]
    assert program_imports('sys.path.insert(0, str(ROOT / "examples"))\nimport selfplay_ppo\n') == [
        "line 1: sys.path.insert(0, str(ROOT / 'examples'))",
        "line 2: import selfplay_ppo",
    ]
    assert program_imports("runpy.run_path('benchmarks/throughput.py')")
    assert program_imports("from benchmarks.throughput import main")
    ran = 'subprocess.run([sys.executable, str(ROOT / "benchmarks" / "throughput.py")])\n'
    ran += 'RESULTS = ROOT / "benchmarks" / "results"\npaths.append(RESULTS / "strength.json")\n'
    assert program_imports(ran) == []  # a program run as a program


def parsers(
    parser: argparse.ArgumentParser, name: str = "tablezoo"
) -> list[tuple[str, argparse.ArgumentParser]]:
    """Every parser of the command line: ``tablezoo`` itself, each subcommand and theirs."""
    found = {name: parser}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub, subparser in action.choices.items():
                found |= parsers(subparser, f"{name} {sub}")
    return found


def hand_made(parser: argparse.ArgumentParser) -> list[str]:
    """The arguments of ``parser`` that no settings field made (``--help`` and subcommands aside)."""
    return [
        "/".join(action.option_strings) or action.dest
        for action in parser._actions
        if not isinstance(action, (argparse._HelpAction, argparse._SubParsersAction))
        and not hasattr(action, settings.FROM)
    ]


def test_every_flag_of_every_subcommand_is_a_settings_field() -> None:
    """Flags are declared one way: each argument of a subcommand comes from a field of a settings
    dataclass (``tablezoo.games.settings.add_arguments``), so that its name, type, default and help
    are said once. The root parser's ``--version`` is the one argument of ``tablezoo`` itself."""
    from tablezoo.commands import build_parser

    made = {name: hand_made(parser) for name, parser in parsers(build_parser()).items()}
    assert made.pop("tablezoo") == ["--version"]
    assert len(made) >= 14, sorted(made)
    assert {name: args for name, args in made.items() if args} == {}


def test_the_settings_check_finds_a_flag_made_by_hand() -> None:
    from tablezoo.commands import build_parser

    evaluate = parsers(build_parser())["tablezoo evaluate"]
    assert hand_made(evaluate) == []
    evaluate.add_argument("--by-hand", type=int, default=1, help="not a field")
    assert hand_made(evaluate) == ["--by-hand"]


def add_argument_calls(source: str) -> int:
    """How many calls of ``add_argument`` a module's source makes."""
    return sum(
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "add_argument"
        for node in ast.walk(ast.parse(source))
    )


def test_no_module_of_the_package_adds_an_argument_by_hand() -> None:
    """Only ``games/settings.py`` calls ``add_argument`` (and the ``tablezoo`` parser its
    ``--version``): a subcommand or ``python -m`` program of the package declares its flags as
    settings fields. ``benchmarks/`` are scripts, outside the rule."""
    calls = {
        str(path.relative_to(ROOT)): add_argument_calls(path.read_text())
        for folder in PACKAGES
        for path in sorted((ROOT / folder).rglob("*.py"))
    }
    calls = {path: n for path, n in calls.items() if n}
    assert calls == {"games/settings.py": calls.get("games/settings.py"), "cli/commands/__init__.py": 1}
    assert add_argument_calls("p.add_argument('--x')\nparser.add_argument('y', type=int)") == 2


def imports_of_the_tests(source: str) -> list[str]:
    """The lines of ``source`` that import the test suite (``tests``, ``tests.tables...``)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        modules = (
            [alias.name for alias in node.names]
            if isinstance(node, ast.Import)
            else [node.module or ""]
            if isinstance(node, ast.ImportFrom) and node.level == 0
            else []
        )
        if any(module.split(".")[0] == "tests" for module in modules):
            found.append(f"line {node.lineno}: {ast.unparse(node)}")
    return found


def test_nothing_outside_the_tests_imports_them() -> None:
    """The benchmarks, the examples, the docs' hooks and the package import nothing of ``tests/``:
    what a benchmark shares with the tests (the throwaway servers of the site's load test,
    ``tablezoo.tables.local_servers``) lives in the package, which both import."""
    found = {
        str(path.relative_to(ROOT)): lines
        for folder in OUTSIDE_TESTS
        for path in sorted((ROOT / folder).rglob("*.py"))
        if "package" not in path.relative_to(ROOT / folder).parts
        and (lines := imports_of_the_tests(path.read_text()))
    }
    assert not found, f"move what they share with the tests into the package: {found}"
    assert imports_of_the_tests("def f():\n    from tests.tables.cluster.servers import missing\n") == [
        "line 2: from tests.tables.cluster.servers import missing"
    ]
