"""Paired comparisons a reviewer accepts: each policy's input on its own, two stored results paired
game by game (and refused when their deals differ), and every comparison and aggregate saying what
made it, its games a cell and whether it is the full protocol."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tablezoo.commands import main
from tablezoo.evaluation.aggregate import aggregate, pair_runs
from tablezoo.evaluation.compare import compare, compare_results
from tablezoo.evaluation.protocol import run_protocol
from tablezoo.games import make
from tablezoo.games.core import ConfigError

torch = pytest.importorskip("torch")

PROVENANCE = ("package", "git", "environment", "command", "games_per_cell", "complete")


def net(game_name: str = "diamant", seats: int = 3, seed: int = 0) -> Any:
    """A net over the plain observation that declares nothing about its input."""
    game = make(game_name, seats)
    torch.manual_seed(seed)
    return torch.nn.Sequential(torch.nn.Linear(game.observation_spec.size, game.num_actions))


def scripted(tmp_path: Path, name: str, seed: int) -> str:
    path = tmp_path / f"{name}.pt"
    torch.jit.script(net(seed=seed)).save(str(path))
    return str(path)


def test_compare_takes_each_policys_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Today's main took one --observation/--scaled for both policies: a raw and a scaled one could
    not be compared."""
    a, b = scripted(tmp_path, "raw", 0), scripted(tmp_path, "scaled", 1)
    args = ["benchmark", "diamant", "--compare", a, b, "--players", "3", "--opponents", "random"]
    main([*args, "--games", "6", "--input-a", "plain,raw", "--input-b", "plain,scaled", "--json"])
    out = json.loads(capsys.readouterr().out)
    first, second = (p["input"] for p in out["policies"])
    assert (first["scaled"], second["scaled"]) == (False, True)
    assert all(key in out for key in PROVENANCE) and out["games_per_cell"] == 6 and out["complete"] is False
    main([*args, "--games", "6", "--input-a", "plain,raw", "--input-b", "plain,scaled"])
    text = capsys.readouterr().out
    assert "6 games a cell" in text and "not the full protocol" in text
    with pytest.raises(SystemExit, match="--input-b is LAYOUT"):
        main([*args, "--games", "6", "--input-a", "plain,raw", "--input-b", "sideways"])


def test_two_stored_results_pair_game_by_game(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Today's main could only play both policies again; the stored outcomes are the same deals."""
    files = []
    for name in ("random", "heuristic"):
        path = tmp_path / f"{name}.json"
        main(
            [
                "benchmark",
                "diamant",
                name,
                "--players",
                "3",
                "--opponents",
                "random",
                "--games",
                "8",
                "--out",
                str(path),
            ]
        )
        capsys.readouterr()
        files.append(str(path))
    main(["benchmark", "diamant", "--compare", *files, "--json"])
    stored = json.loads(capsys.readouterr().out)
    played = compare("random", "heuristic", "diamant", seats=[3], opponents=["random"], games=8)
    assert stored["cells"][0]["outcomes"] == played["cells"][0]["outcomes"]
    assert stored["difference"] == played["difference"] and stored["kind"] == "comparison"
    assert all(key in stored for key in PROVENANCE) and stored["complete"] is False
    other = run_protocol("heuristic", "diamant", [3], ["random"], games=10)
    with pytest.raises(ConfigError, match=r"different deals|different seed lists"):
        compare_results(json.loads(Path(files[0]).read_text()), other)
    with pytest.raises(SystemExit, match="not one of each"):
        main(["benchmark", "diamant", "--compare", files[0], "heuristic"])


def _result(seed: int | None, score: float, budget: int | None = None) -> dict[str, Any]:
    """A stored result with one scored cell (its normalised score ``score``)."""
    policy: dict[str, Any] = {"name": f"p{seed}", "given": f"p{seed}", "sha256": f"{seed}-{score}"}
    policy |= {"input": None, "training_seed": seed}
    if budget is not None:
        policy["training_budget"] = budget
    cell = {"opponent": "random", "seats": 3, "games": 10, "normalised": score}
    return {
        "protocol": "tablezoo-benchmark/1",
        "game": "diamant",
        "options": {},
        "complete": True,
        "policy": policy,
        "cells": [cell],
    }


def test_versus_pairs_by_seed_and_by_position_only_when_asked() -> None:
    pytest.importorskip("rliable")
    mine = [_result(s, 0.5 + s / 10) for s in (2, 0, 1)]
    theirs = [_result(s, 0.2 + s / 10) for s in (1, 2, 0)]
    a, b = pair_runs(mine, theirs)
    assert [r["policy"]["training_seed"] for r in a] == [r["policy"]["training_seed"] for r in b] == [0, 1, 2]
    others = [_result(s, 0.3) for s in (5, 6, 7)]
    with pytest.raises(ConfigError, match="--pair-by-position"):
        aggregate(mine, reps=50, versus=others)
    summary = aggregate(mine, reps=50, versus=others, pair="position")
    assert summary["versus"]["paired_by"] == "position"
    assert [p["training_seeds"] for p in summary["versus"]["pairs"]] == [[2, 5], [0, 6], [1, 7]]
    for key in PROVENANCE:
        assert key in summary


def test_aggregate_refuses_mixed_budgets_unless_asked() -> None:
    pytest.importorskip("rliable")
    runs = [_result(0, 0.5, 1_000_000), _result(1, 0.6, 10_000_000)]
    with pytest.raises(ConfigError, match="training budget"):
        aggregate(runs, reps=50)
    assert aggregate(runs, reps=50, mixed_budgets=True)["training_budgets"] == [1_000_000, 10_000_000]
