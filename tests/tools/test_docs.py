"""The documentation's generated parts are current: the README's board is what the drawing code
draws now (``docs/hooks/boards.py`` rewrites it), and the README's links into the docs lead to
pages. ``make docs`` builds the whole site in strict mode."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _boards() -> object:
    spec = importlib.util.spec_from_file_location("docs_boards", ROOT / "docs" / "hooks" / "boards.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_readme_board_is_current() -> None:
    boards = _boards()
    committed = boards.README_BOARD.read_text()  # type: ignore[attr-defined]
    assert committed == boards.board_svg("court"), (  # type: ignore[attr-defined]
        "docs/images/board-court.svg is stale: run .venv/bin/python docs/hooks/boards.py"
    )
    assert "docs/images/board-court.svg" in (ROOT / "README.md").read_text()


def test_every_game_has_a_board() -> None:
    boards = _boards()
    for game in boards.GAMES:  # type: ignore[attr-defined]
        svg = boards.board_svg(game)  # type: ignore[attr-defined]
        assert svg.startswith("<svg") and "Ann" in svg


def test_the_readme_links_lead_to_files() -> None:
    import re

    links = re.findall(r"\]\((docs/[^)#]+)", (ROOT / "README.md").read_text())
    assert len(links) >= 10
    assert [link for link in links if not (ROOT / link).is_file()] == []


def test_the_observation_sizes_in_the_docs_are_the_codes() -> None:
    """docs/environments.md's sizes of Heckmeck's plain and padded observations (the example's
    printed shapes and the formula) are what the code gives."""
    import re

    from tablezoo.games import make

    text = (ROOT / "docs" / "environments.md").read_text()
    shown = re.search(r"# (\d+) \((\d+),\) \((\d+),\) then (\d+) \((\d+),\) \((\d+),\)", text)
    assert shown, "docs/environments.md no longer prints the shapes of the padded example"
    a, plain_a, padded_a, b, plain_b, padded_b = map(int, shown.groups())
    for seats, plain, padded in ((a, plain_a, padded_a), (b, plain_b, padded_b)):
        game = make("heckmeck", seats)
        assert (plain, padded) == (game.observation_spec.size, game.padded_spec.size), (
            f"docs/environments.md prints {plain}, {padded} at {seats} seats; the code gives "
            f"{game.observation_spec.size}, {game.padded_spec.size}"
        )
    base, per_seat = map(int, re.search(r"`(\d+) \+ (\d+) n` long", text).groups())  # type: ignore[union-attr]
    for seats in range(2, 8):
        assert base + per_seat * seats == make("heckmeck", seats).observation_spec.size


def test_the_api_reference_reads_the_source_however_the_package_is_installed() -> None:
    """mkdocstrings reads the package from docs/hooks/package/tablezoo/<name>, links to the source
    folders (a plain editable install maps names to folders in a way griffe cannot follow)."""
    import yaml

    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text().replace("!!python", "#"))
    handler = next(p for p in config["plugins"] if isinstance(p, dict) and "mkdocstrings" in p)
    paths = handler["mkdocstrings"]["handlers"]["python"]["paths"]
    assert paths == ["docs/hooks/package"]
    for name in ("games", "bots", "envs", "wrappers", "tables", "training"):
        link = ROOT / "docs" / "hooks" / "package" / "tablezoo" / name
        assert link.is_symlink() and link.resolve() == (ROOT / name).resolve()


def test_the_changelog_has_the_packages_version() -> None:
    """A version is bumped with a changelog entry: CHANGELOG.md's first section is pyproject's version,
    or an ``Unreleased`` section (what the next version will say) and then that version."""
    import re
    import tomllib

    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    sections = re.findall(r"^## (\S+)", (ROOT / "CHANGELOG.md").read_text(), re.M)
    released = sections[1:] if sections[:1] == ["Unreleased"] else sections
    assert released and released[0] == version, f"CHANGELOG.md's latest released section is not {version}"
