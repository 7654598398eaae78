"""The demo and the benchmark run end to end (tiny runs: their figures are not checked here)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from tablezoo.envs import demo

ROOT = Path(__file__).resolve().parents[2]


def test_demo_plays_a_whole_seeded_game(capsys: pytest.CaptureFixture[str]) -> None:
    demo.main(["heckmeck_v0", "--players", "3", "--seed", "7"])
    first = capsys.readouterr().out
    demo.main(["heckmeck_v0", "--players", "3", "--seed", "7"])
    assert capsys.readouterr().out == first
    assert "game over" in first and "winner(s): seat" in first and "player_2: " in first


def test_benchmark_writes_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = importlib.util.spec_from_file_location("throughput", ROOT / "benchmarks" / "throughput.py")
    assert spec and spec.loader
    throughput = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(throughput)
    out = tmp_path / "bench.json"
    result = throughput.main(
        ["--seconds", "0.05", "--repeats", "1", "--games", "heckmeck_v0", "--out", str(out)]
    )
    assert json.loads(out.read_text()) == result
    figures = result["games"]["heckmeck_v0"]
    assert figures["engine_decisions_per_s"] > 0 and figures["env_steps_per_s"] > 0
    assert result["reference"]["env_steps_per_s"] > 0
    assert set(figures["met"]) == {"observe", "env", "raw_env", "observe_batch", "engine"}
    assert figures["observe_batch"]["marginal_us_per_state"] is not None
    assert figures["observe_batch"]["one_state_us"] > 0
    # the env() ceilings: with the adapter free, and with observe at its target too
    assert figures["env_ceiling_vs_reference_env"] > 0 and figures["env_ceiling_at_observe_target"] > 0
    table = throughput.markdown_table(result)
    assert table.count("\n| Heckmeck ") == 2  # the default seat count, and the most seats
