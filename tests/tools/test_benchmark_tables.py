"""The benchmarks' tables, made by the package from the committed result files: every table a page
of the documentation asks for exists, and each renders its result as a Markdown table."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tablezoo.games.core import ConfigError
from tablezoo.release.benchmark_tables import TABLES, gumbel_curves_rows, result_table

ROOT = Path(__file__).resolve().parents[2]
RESULTS = ROOT / "benchmarks" / "results"


def asked_for() -> set[str]:
    """The tables the documentation's pages name (``<!-- table: NAME -->``)."""
    pages = [ROOT / "README.md", *(ROOT / "docs").rglob("*.md")]
    return {
        name for page in pages for name in re.findall(r"(?m)^<!-- table: ([a-z_]+) -->$", page.read_text())
    }


def test_every_table_a_page_asks_for_is_made_by_the_package() -> None:
    assert asked_for() and asked_for() <= set(TABLES)


@pytest.mark.parametrize("name", list(TABLES))
def test_each_table_renders_its_committed_result(name: str) -> None:
    lines = result_table(name, RESULTS).strip().splitlines()
    header, rule, *rows = lines
    assert header.startswith("| ") and set(rule) <= set("|-: ") and rows
    assert rule.count("|") == header.count("|") == rows[0].count("|")


def test_a_row_names_the_game_by_its_title() -> None:
    row = {
        "game": "sechs_nimmt",
        "run": "gumbel",
        "bot": "heuristic",
        "rounds": 9,
        "decisions": 12345,
        "hours": 1.5,
        "4p": {"first": 0.2, "last": 0.3, "best": 0.35, "mean_last_5": 0.31},
        "chosen_round": 7,
    }
    (line,) = gumbel_curves_rows([row]).strip().splitlines()[2:]
    assert (
        line
        == "| 6 nimmt! | gumbel | heuristic | 9 | 12,345 | 1.50 | 4 | 0.200 | 0.300 | 0.350 | 0.310 | 7 |"
    )


def test_an_unknown_table_is_named() -> None:
    with pytest.raises(ConfigError, match="no table of a benchmark 'nope'; the tables are: throughput"):
        result_table("nope", RESULTS)
