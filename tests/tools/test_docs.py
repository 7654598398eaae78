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
