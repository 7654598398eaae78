"""The programs of ``examples/`` run as a researcher runs them (a subprocess, tiny budgets), log,
resume, and train step for step as the package's trainers do for a seed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tablezoo.games.native import available

torch = pytest.importorskip("torch", reason="the examples need torch (the train extra)")
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def run(example: str, *args: str) -> None:
    """``python examples/<example> ARGS``, as a program."""
    subprocess.run([sys.executable, str(EXAMPLES / example), *args], check=True, capture_output=True)


def metrics(folder: Path) -> list[dict[str, Any]]:
    """A run's ``metrics.jsonl``, its wall-time entries left out."""
    rows = [json.loads(line) for line in (folder / "metrics.jsonl").read_text().splitlines()]
    return [{k: v for k, v in row.items() if k != "seconds" and not k.endswith("_s")} for row in rows]


def weights(path: Path) -> list[Any]:
    return list(torch.load(path, weights_only=False).state_dict().values())


def test_the_cleanrl_example_trains_scores_and_resumes(tmp_path: Path) -> None:
    args = ["--env", "heckmeck_v0", "--players", "2", "--rollout", "128", "--minibatch", "64"]
    args += ["--eval-games", "8", "--out", str(tmp_path)]
    run("cleanrl_masked_ppo.py", *args, "--total-steps", "128")
    run("cleanrl_masked_ppo.py", *args, "--total-steps", "256")  # resumes from its checkpoint
    rows = metrics(tmp_path)
    assert len(rows) == 2 and rows[0]["steps"] < rows[1]["steps"]
    assert all(0.0 <= r["win_share"] <= 1.0 for r in rows)

    from tablezoo.evaluation.protocol import evaluate
    from tablezoo.games import make

    model = torch.load(tmp_path / "model.pt", weights_only=False)
    by_path = evaluate(str(tmp_path / "model.pt"), make("heckmeck", 2), "random", games=4)
    assert by_path.games == 4
    assert by_path.credits == evaluate(model, make("heckmeck", 2), "random", games=4).credits


def test_the_cleanrl_example_is_the_packages_trainer(tmp_path: Path) -> None:
    from tablezoo.training.ppo.cleanrl import CleanRLConfig, train_cleanrl_ppo

    args = ["--env", "heckmeck_v0", "--players", "2", "--rollout", "128", "--minibatch", "64", "--seed", "3"]
    run("cleanrl_masked_ppo.py", *args, "--eval-every", "256", "--eval-games", "4", "--total-steps", "512",
        "--out", str(tmp_path / "example"))  # fmt: skip
    config = CleanRLConfig(
        out=tmp_path / "package",
        env="heckmeck_v0",
        num_players=2,
        rollout=128,
        minibatch=64,
        seed=3,
        eval_every=256,
        eval_games=4,
        total_steps=512,
    )
    train_cleanrl_ppo(config)
    assert metrics(tmp_path / "example") == metrics(tmp_path / "package")
    example, package = weights(tmp_path / "example" / "model.pt"), weights(tmp_path / "package" / "model.pt")
    assert all(torch.equal(x, y) for x, y in zip(example, package, strict=True))


@pytest.mark.skipif(not available(), reason="the native core is not built")
def test_the_selfplay_example_trains_evaluates_and_resumes(tmp_path: Path) -> None:
    args = ["--game", "heckmeck", "--num-envs", "16", "--steps", "256", "--eval-every", "2"]
    args += ["--eval-games", "16", "--out", str(tmp_path)]
    run("selfplay_ppo.py", *args, "--updates", "2")
    run("selfplay_ppo.py", *args, "--updates", "3")  # resumes at update 3
    rows = metrics(tmp_path)
    assert [r["update"] for r in rows] == [1, 2, 3]
    assert 0.0 <= rows[1]["win_share_vs_heuristic"] <= 1.0
    assert all(r["decisions"] >= 256 for r in rows)


@pytest.mark.skipif(not available(), reason="the native core is not built")
def test_the_selfplay_example_is_the_packages_trainer(tmp_path: Path) -> None:
    from tablezoo.training.ppo.batched_selfplay import SelfPlayConfig, train_selfplay_ppo

    args = ["--game", "court", "--players", "2", "--num-envs", "8", "--steps", "128", "--eval-every", "2"]
    args += ["--eval-games", "8", "--threads", "1", "--seed", "4", "--updates", "3"]
    args += ["--max-cycles", "40", "--cut-reward", "-1"]  # the baselines' own flags for a row, too
    run("selfplay_ppo.py", *args, "--out", str(tmp_path / "example"))
    config = SelfPlayConfig(
        out=tmp_path / "package",
        game="court",
        num_players=2,
        num_envs=8,
        steps=128,
        eval_every=2,
        eval_games=8,
        threads=1,
        seed=4,
        updates=3,
        max_cycles=40,
        cut_reward=-1.0,
    )
    train_selfplay_ppo(config)
    rows = metrics(tmp_path / "example")
    assert rows == metrics(tmp_path / "package") and any("win_share_vs_heuristic" in r for r in rows)
    example, package = weights(tmp_path / "example" / "actor.pt"), weights(tmp_path / "package" / "actor.pt")
    assert all(torch.equal(x, y) for x, y in zip(example, package, strict=True))
