"""benchmarks/native_bots.py, run as a program: a quick run times every port against its twin and
plays a randomised port against its twin (figures not checked: this machine is shared)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tablezoo.games.native import available

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(not available(), reason="the native core is not built")


def benchmark(*args: str) -> subprocess.CompletedProcess[str]:
    """``python benchmarks/native_bots.py ARGS``."""
    script = str(ROOT / "benchmarks" / "native_bots.py")
    return subprocess.run([sys.executable, script, *args], capture_output=True, text=True)


def test_a_quick_run_writes_a_row_per_port_and_seat_count(tmp_path: Path) -> None:
    out = tmp_path / "native_bots.json"
    args = ["--games", "diamant", "court", "--bots", "heuristic", "--positions-games", "1"]
    run = benchmark(*args, "--head-to-head", "20", "--out", str(out))
    assert run.returncode == 0, run.stderr
    rows = json.loads(out.read_text())["rows"]
    timed = {(r["game"], r["bot"], r["seats"]) for r in rows if "act" in r}
    assert timed == {("diamant", "heuristic", n) for n in (3, 4, 8)} | {
        ("court", "heuristic", n) for n in (2, 3, 5)
    }
    diamant = next(r for r in rows if r["game"] == "diamant")  # checked move for move: deterministic
    assert not diamant["randomised"] and diamant["positions"] > 10 and "action_values" not in diamant
    assert diamant["act"]["native_ms"] > 0 and diamant["act"]["python_ms"] > 0
    (duel,) = [r["head_to_head"] for r in rows if "head_to_head" in r]
    assert duel["games"] == 20 and duel["seats"] == 2
    low, high = duel["interval"]
    assert low <= duel["port_win_share"] <= high and duel["same_player"] == (low <= 0.5 <= high)


def test_bad_counts_are_refused_by_name() -> None:
    run = benchmark("--games", "court", "--jobs", "0")
    assert run.returncode == 2 and "--jobs is at least 1" in run.stderr
