"""A socket that never reads holds up nobody: the one-process site on a loopback port.

(The same on the site of several workers: ``cluster/test_cluster.py``.)
"""

from __future__ import annotations

import asyncio
import statistics
from pathlib import Path

import pytest

from .never_reading import moves_beside, new_table, one_process_site

pytest.importorskip("websockets")
pytest.importorskip("uvicorn")

MOVES = 1000
"""Commands beside the watcher: far more than fill its buffers (a stalled send came at about 400)."""


def check_moves(took: list[float]) -> None:
    """Every command answered, each well under a second, typically under 100 ms."""
    assert len(took) == MOVES, (
        f"command {len(took)} took {took[-1]:.1f} s: the never-reading socket held it up"
    )
    assert max(took) < 1.0 and statistics.median(took) < 0.1, (max(took), statistics.median(took))


def test_a_socket_that_never_reads_holds_up_no_one(tmp_path: Path) -> None:
    with one_process_site(tmp_path / "site.db") as port:
        table = new_table(port, "heckmeck")
        check_moves(asyncio.run(moves_beside(port, table, moves=MOVES)))
