"""MkDocs hooks: what the site's pages show that is made from the repository at build time.

* ``games/boards/<game>.svg``: each game's board, drawn by the package (``boards.py``);
* ``images/strength.png``: the strength league's chart, ``benchmarks/results/strength.png``;
* ``images/protocol/<name>.png``: the baselines' learning curves and performance profiles
  under the full protocol, ``benchmarks/results/protocol/<name>.png``;
* ``images/gumbel/<name>.png``: the search self-play runs' curves,
  ``benchmarks/results/gumbel/<name>.png``;
* a line ``<!-- table: NAME -->`` in a page becomes the Markdown table of the benchmark
  ``NAME``'s last run (``benchmarks/results/NAME.json``), made by the package
  (``tablezoo.release.benchmark_tables``, which ``benchmarks/NAME.py`` prints too), so
  the performance page shows the committed results, never a copy of them.

Nothing here is written into ``docs/``: the files exist only in the built site.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

from tablezoo.release.benchmark_tables import result_table

ROOT = Path(__file__).resolve().parents[2]
"""The repository."""
sys.path.insert(0, str(Path(__file__).parent))

import boards  # noqa: E402 (beside this file, which MkDocs loads by path)

TABLE = re.compile(r"^<!-- table: (?P<name>[a-z_]+) -->$", re.M)


def on_files(files: Files, config: MkDocsConfig, **kwargs: Any) -> Files:
    """Add the drawn boards and the strength chart to the site."""
    for game in boards.GAMES:
        files.append(File.generated(config, f"games/boards/{game}.svg", content=boards.board_svg(game)))
    chart = (ROOT / "benchmarks" / "results" / "strength.png").read_bytes()
    files.append(File.generated(config, "images/strength.png", content=chart))
    for folder in ("protocol", "gumbel"):
        for png in sorted((ROOT / "benchmarks" / "results" / folder).glob("*.png")):
            files.append(File.generated(config, f"images/{folder}/{png.name}", content=png.read_bytes()))
    return files


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files, **kwargs: Any) -> str:
    """Replace each ``<!-- table: NAME -->`` line by the table of ``benchmarks/results/NAME.json``."""
    return TABLE.sub(lambda match: benchmark_table(match.group("name")), markdown)


def benchmark_table(name: str) -> str:
    """The package's Markdown table of ``benchmarks/results/<name>.json``."""
    return result_table(name, ROOT / "benchmarks" / "results")
