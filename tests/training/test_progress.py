"""One mechanism for both backends: when snapshots, evaluations and checkpoints are due, and the curve."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tablezoo.bots.policy import NumpyPolicy
from tablezoo.games import make
from tablezoo.training.ppo.config import TrainConfig
from tablezoo.training.ppo.progress import Every, Progress


def fired(every: Every, reports: list[int]) -> list[int]:
    """The reports at which the task was due (and then done)."""
    done = []
    for steps in reports:
        if every.due(steps):
            every.mark(steps)
            done.append(steps)
    return done


@pytest.mark.parametrize("catch_up", [False, True])
def test_every_matches_the_sb3_callbacks_old_rule_step_by_step(catch_up: bool) -> None:
    """Reports every ``n`` steps: due exactly where ``steps % every < n`` (the rule it replaces)."""
    for every in range(1, 14):
        for n in range(1, 6):
            reports = list(range(n, 200, n))
            assert fired(Every(every, catch_up=catch_up), reports) == [t for t in reports if t % every < n]


def test_every_catches_up_one_period_a_report_or_jumps() -> None:
    reports = [100, 350, 400, 450, 500]
    assert fired(Every(100), reports) == [100, 350, 400, 500]  # 350 passes 200 and 300: once
    assert fired(Every(100, catch_up=True), reports) == [100, 350, 400, 450, 500]  # 300 made up at 450
    assert fired(Every(100, done=3), reports) == [400, 500]  # a resumed run: 300 was done
    assert fired(Every(0), reports) == []


def tiny_policy(seed: int = 0) -> NumpyPolicy:
    game = make("diamant", 3)
    rng = np.random.default_rng(seed)
    spec = game.observation_spec
    weights = [rng.normal(size=(game.num_actions, spec.size))]
    return NumpyPolicy(weights, [np.zeros(game.num_actions)], spec.scale())


class Recorder:
    """The callbacks of a backend, writing down what they were asked to do."""

    def __init__(self) -> None:
        self.events: list[tuple[str, int]] = []
        self.logged: list[tuple[str, float, int]] = []

    def policy(self, steps: int) -> NumpyPolicy:
        self.events.append(("policy", steps))
        return tiny_policy()

    def log(self, tag: str, value: float, steps: int) -> None:
        self.logged.append((tag, value, steps))

    def add_snapshot(self, policy: NumpyPolicy, steps: int) -> None:
        self.events.append(("snapshot", steps))

    def checkpoint(self, steps: int) -> None:
        self.events.append(("checkpoint", steps))


def progress(tmp_path: Path, recorder: Recorder, **kwargs: Any) -> Progress:
    config = TrainConfig(
        env="diamant_v0",
        num_players=3,
        self_play=0.5,
        snapshot_every=100,
        eval_every=200,
        eval_games=3,
        eval_against=["random", "heuristic"],
        seed=4,
    )
    return Progress(
        config,
        make("diamant", 3),
        tmp_path,
        recorder.policy,
        recorder.log,
        add_snapshot=recorder.add_snapshot,
        checkpoint=recorder.checkpoint,
        checkpoint_every=300,
        **kwargs,
    )


def test_a_run_snapshots_evaluates_and_checkpoints_when_due_in_that_order(tmp_path: Path) -> None:
    recorder = Recorder()
    run = progress(tmp_path, recorder)
    run.start()
    for steps in (128, 256, 384, 512, 640):
        run.after(steps)
    run.finish(700)
    assert recorder.events == [
        ("policy", 0),  # where the curve starts
        ("policy", 128),
        ("snapshot", 128),
        ("policy", 256),
        ("snapshot", 256),
        ("policy", 256),  # evaluation: 200 passed
        ("policy", 384),
        ("snapshot", 384),
        ("checkpoint", 384),  # 300 passed
        ("policy", 512),
        ("snapshot", 512),
        ("policy", 512),  # 400 passed
        ("policy", 640),
        ("snapshot", 640),  # the 500 one, made up
        ("policy", 640),  # 600 passed
        ("checkpoint", 640),
        ("policy", 700),  # the final learner
    ]
    assert [(row["step"], row["against"]) for row in run.curve[:2]] == [(0, "random"), (0, "heuristic")]
    assert [row["step"] for row in run.curve[::2]] == [0, 256, 512, 640, 700]
    assert [(tag, steps) for tag, _, steps in recorder.logged[:2]] == [
        ("eval/win_rate_vs_random", 0),
        ("eval/win_rate_vs_heuristic", 0),
    ]
    with open(tmp_path / "curve.csv") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == len(run.curve) == 10 and (tmp_path / "curve.png").exists()
    assert all(0 <= float(r["low"]) <= float(r["win_rate"]) <= float(r["high"]) <= 1 for r in rows)


def test_evaluations_are_seeded_and_the_last_row_stands_when_recent(tmp_path: Path) -> None:
    first, second = Recorder(), Recorder()
    one, two = progress(tmp_path, first), progress(tmp_path, second)
    one.start()
    two.start()
    assert one.curve == two.curve  # the same policy, the same seeds: the same games
    one.finish(50, within=64)  # 50 steps after the last row: it stands
    assert [row["step"] for row in one.curve] == [0, 0]
    two.finish(64, within=64)
    assert [row["step"] for row in two.curve] == [0, 0, 64, 64]


def test_a_resumed_run_does_nothing_twice(tmp_path: Path) -> None:
    recorder = Recorder()
    curve = [{"step": 400, "against": "random", "win_rate": 0.5, "low": 0.1, "high": 0.9}]
    run = progress(tmp_path, recorder, steps=400, curve=curve, snapshots=4, checkpoints=1)
    run.start()  # the curve has its start
    run.after(500)
    assert recorder.events == [("policy", 500), ("snapshot", 500)]
    assert run.curve is curve and len(curve) == 1
    run.after(600)  # 600: a snapshot, an evaluation and a checkpoint
    assert [e for e, _ in recorder.events[2:]] == ["policy", "snapshot", "policy", "checkpoint"]
    assert len(curve) == 3
