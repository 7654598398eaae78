"""The baselines' rows: each algorithm's trainer for a row, and a row trained and scored.

See :mod:`tablezoo.release.baselines` for what a row, its budget, its curve, resuming and
scoring are. Each trainer is the package's (:data:`TRAINERS`); this module adapts a
:class:`Row` to it and reads back what it left (:class:`Trained`). It imports the trainers only
when a row of theirs runs, so that the table and publishing need no torch.
"""

from __future__ import annotations

import csv
import json
import math
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tablezoo.evaluation.play import MAX_DECISIONS
from tablezoo.evaluation.protocol import GAMES_PER_CELL, PANELS, SEATS, run_protocol

GAMES = ("heckmeck", "sechs_nimmt", "diamant", "court")
"""The games, in the table's order."""
TABLE_SEATS = {game: SEATS[game] for game in GAMES}
"""The seat counts of the table: the protocol's (the smallest, 4 and the largest)."""
MIN_SEEDS = 3
"""Training seeds a table entry needs to count as under the protocol."""
BUDGETS = (100_000, 1_000_000, 10_000_000)
"""The budgets the table is meant for, in learner decisions (any other may be run)."""
CURVE_POINTS = 10
"""Checkpoints of a learning curve (one every tenth of the budget)."""
SHORT = 20_000
"""Budgets below this train with short rollouts (:func:`short_rollouts`): the smoke run."""
EXPERT_SIMULATIONS = 24
"""Search simulations per move in the ``expert`` row's self-play."""
BATCHED_FLAGS: dict[tuple[str, int], list[str]] = {
    ("court", 2): ["--max-cycles", "1000", "--cut-reward", "-1"]
}
"""The ``batched_ppo`` row's own settings for a game and seat count, on top of the budget's, as
the example's flags (``examples/selfplay_ppo.py``; :func:`train_batched_ppo` reads them). To
Court the King's training games at 2 seats are cut at 1,000 decisions a seat (about 6 times the
heuristic's longest game) and a cut game is paid as a loss to every seat: without it, pure
self-play learns to drag games out by 10M decisions, never cut and never punished
(``benchmarks/stall.py``, its ``cut`` arm). Not at 4 and 5 seats: there the same cap cuts most
of the early games, which then pay every seat -1 alike, and the policy learns nothing (it lost
to ``random`` at 1M). The result records these flags (``baseline.trainer_flags``)."""
ALGORITHMS = ("maskable_ppo", "rllib_ppo", "tianshou_dqn", "cleanrl_ppo", "batched_ppo", "expert")
"""The rows' algorithms, in the table's order."""
RESUMING = ("cleanrl_ppo", "batched_ppo", "rllib_ppo", "expert")
"""The rows whose stopped training goes on from its last checkpoint."""


@dataclass(frozen=True)
class Row:
    """One row: an algorithm, a game, a seat count, a budget and a training seed."""

    algorithm: str
    """One of :data:`ALGORITHMS`."""
    game: str
    """The game's name (``heckmeck``, ``sechs_nimmt``, ``diamant``, ``court``)."""
    num_players: int
    """The seat count the policy is trained and scored at (``seats`` in the row's result)."""
    budget: int
    """Learner decisions to train for."""
    seed: int
    """The training seed."""
    out: Path
    """The folder of every row (``runs/baselines``)."""
    curve_games: int = 100
    """Games against the heuristic at each checkpoint of the learning curve."""

    @property
    def env(self) -> str:
        """The env module, ``tablezoo.envs.<env>``."""
        return f"{self.game}_v0"

    @property
    def folder(self) -> Path:
        """``<out>/<algorithm>/<game>-<n>p/<budget>/seed<S>``."""
        return (
            self.out
            / self.algorithm
            / f"{self.game}-{self.num_players}p"
            / str(self.budget)
            / f"seed{self.seed}"
        )

    @property
    def work(self) -> Path:
        """The trainer's own folder, ``<folder>/train``."""
        return self.folder / "train"

    @property
    def checkpoint_every(self) -> int:
        """Decisions between two points of the learning curve (:data:`CURVE_POINTS` of them; two
        below :data:`SHORT`)."""
        return max(1, self.budget // (CURVE_POINTS if self.budget >= SHORT else 2))

    def command(self) -> list[str]:
        """The ``tablezoo baselines run`` command of this row."""
        command = [
            "tablezoo",
            "baselines",
            "run",
            self.algorithm,
            self.game,
            "--players",
            str(self.num_players),
        ]
        command += ["--budget", str(self.budget), "--seed", str(self.seed), "--out", str(self.out)]
        return command + (["--curve-games", str(self.curve_games)] if self.curve_games != 100 else [])


@dataclass
class Trained:
    """What a trainer leaves: the policy's file, the decisions it took, its learning curve."""

    policy: Path
    """A file or folder that :func:`~tablezoo.evaluation.policies.as_bot` reads, or a torch module
    saved whole (``.pt``: :func:`load_policy` reads it)."""
    decisions: int
    """Learner decisions trained on (at least the budget, to the end of the last update)."""
    curve: list[tuple[int, float]]
    """(decisions, win share against the heuristic), in order."""
    seconds: list[float] | None = None
    """The training's own seconds (playing and learning; the curve's evaluations left out) at
    each point of the curve, where the trainer logs them (``batched_ppo``)."""
    spent: float | None = None
    """The training's own seconds in all, over every session it took, where the trainer logs
    them (``batched_ppo``)."""
    flags: list[str] | None = None
    """The row's own trainer flags for its game and seat count (:data:`BATCHED_FLAGS`), where it
    has some."""


def short_rollouts(row: Row) -> dict[str, Any]:
    """MaskablePPO (and RLlib) hyperparameters for a budget below :data:`SHORT`: updates every
    ``budget / 8`` decisions or so instead of the entry's thousands (none for a real budget)."""
    if row.budget >= SHORT:
        return {}
    return {"n_envs": 2, "n_steps": max(8, row.budget // 16), "batch_size": 32, "n_epochs": 2}


def _curve_csv(run: Path) -> list[tuple[int, float]]:
    """The curve against the heuristic from a training run's ``curve.csv``."""
    with open(run / "curve.csv") as f:
        return [
            (int(r["step"]), float(r["win_rate"])) for r in csv.DictReader(f) if r["against"] == "heuristic"
        ]


def _train_settings(row: Row) -> dict[str, Any]:
    """The settings ``tablezoo train``'s backends share for a row: its env, seats, budget and
    seed, the curve against the heuristic, short rollouts for a tiny budget."""
    return {
        "env": row.env,
        "num_players": row.num_players,
        "timesteps": row.budget,
        "eval_every": row.checkpoint_every,
        "eval_games": row.curve_games,
        "eval_against": ["heuristic"],
        "seed": row.seed,
        "hp": short_rollouts(row),
        "out": str(row.work),
        "progress_bar": False,
    }


def train_maskable_ppo(row: Row) -> Trained:
    """MaskablePPO against heuristic bots (``tablezoo train``'s trainer); starts afresh when stopped."""
    from tablezoo.bots.net import PolicyValueNet
    from tablezoo.training.ppo.config import TrainConfig
    from tablezoo.training.ppo.sb3 import train

    shutil.rmtree(row.work, ignore_errors=True)
    run = train(TrainConfig(**_train_settings(row), opponents=["heuristic"]), command=sys.argv)
    decisions = int(PolicyValueNet.load(run / "policy.npz").meta["timesteps"])
    return Trained(run / "policy.npz", decisions, _curve_csv(run))


def train_rllib_ppo(row: Row) -> Trained:
    """RLlib PPO in pure self-play; continues from the run's last checkpoint when stopped."""
    from tablezoo.training.rllib.backend import RLlibTrainConfig, train_rllib

    runs = sorted(
        p for p in row.work.glob("*-rllib") if (p / "checkpoint").is_dir() and (p / "state.json").exists()
    )
    if not runs:
        shutil.rmtree(row.work, ignore_errors=True)
    config = RLlibTrainConfig(
        **_train_settings(row),
        opponents=[],
        learner_share=1.0,
        num_env_runners=0,
        checkpoint_every=max(row.checkpoint_every, row.budget // 4),
        resume=str(runs[-1]) if runs else None,
        max_cycles=MAX_DECISIONS,
    )
    run = train_rllib(config, command=sys.argv)
    decisions = int(json.loads((run / "state.json").read_text())["steps"])
    return Trained(run / "policy.npz", decisions, _curve_csv(run))


def train_tianshou_dqn(row: Row) -> Trained:
    """Masked DQN (Tianshou, :mod:`tablezoo.training.dqn.masked`) against heuristic bots; starts
    afresh when stopped."""
    from tablezoo.training.dqn.masked import DQNConfig, train_masked_dqn

    config = DQNConfig(
        row.work, row.env, row.num_players, row.budget, row.checkpoint_every, row.curve_games, row.seed
    )
    run = train_masked_dqn(config)
    return Trained(run.policy, run.decisions, run.curve)


def train_cleanrl_ppo(row: Row) -> Trained:
    """CleanRL-style masked PPO (:mod:`tablezoo.training.ppo.cleanrl`, as
    ``examples/cleanrl_masked_ppo.py``) against heuristic bots; it resumes by itself."""
    from tablezoo.training.ppo.cleanrl import CleanRLConfig, train_cleanrl_ppo

    rollout = min(2048, max(64, row.budget // 8))
    config = CleanRLConfig(
        out=row.work,
        env=row.env,
        num_players=row.num_players,
        total_steps=row.budget,
        seed=row.seed,
        rollout=rollout,
        minibatch=min(256, rollout),
        eval_every=row.checkpoint_every,
        eval_games=row.curve_games,
        opponent="heuristic",
    )
    train_cleanrl_ppo(config)
    lines = [json.loads(line) for line in (row.work / "metrics.jsonl").read_text().splitlines()]
    curve = [(int(r["steps"]), float(r["win_share"])) for r in lines if "win_share" in r]
    return Trained(row.work / "model.pt", int(lines[-1]["steps"]), curve)


def batched_settings(flags: list[str]) -> dict[str, Any]:
    """:data:`BATCHED_FLAGS`' flags as the trainer's settings (``--max-cycles 1000`` ->
    ``max_cycles=1000``); a flag it does not know is an error naming the ones it does."""
    known: dict[str, Callable[[str], Any]] = {"--max-cycles": int, "--cut-reward": float}
    settings = {}
    for flag, value in zip(flags[::2], flags[1::2], strict=True):
        if flag not in known:
            raise ValueError(f"batched_ppo's flag {flag!r} is not one of {', '.join(known)}")
        settings[flag[2:].replace("-", "_")] = known[flag](value)
    return settings


def train_batched_ppo(row: Row) -> Trained:
    """Self-play PPO on the batched env (:mod:`tablezoo.training.ppo.batched_selfplay`, as
    ``examples/selfplay_ppo.py``); it resumes by itself.

    256 games at once (2 for a tiny budget), updates of at least 8,192 decisions of whole
    games (half a tiny budget), as many as make the budget; a checkpoint of the curve every
    :attr:`Row.checkpoint_every` decisions or so."""
    from tablezoo.training.ppo.batched_selfplay import SelfPlayConfig, train_selfplay_ppo

    steps = 8192 if row.budget >= SHORT else max(16, row.budget // 2)
    flags = BATCHED_FLAGS.get((row.game, row.num_players), [])
    config = SelfPlayConfig(
        out=row.work,
        game=row.game,
        num_players=row.num_players,
        updates=math.ceil(row.budget / steps),
        steps=steps,
        seed=row.seed,
        eval_every=max(1, math.ceil(row.checkpoint_every / steps)),
        eval_games=row.curve_games,
        num_envs=256 if row.budget >= SHORT else 2,
        threads=1,
        minibatch=min(1024, steps),
        **batched_settings(flags),
    )
    train_selfplay_ppo(config)
    lines = [json.loads(line) for line in (row.work / "metrics.jsonl").read_text().splitlines()]
    decisions, curve, spent, seconds = 0, [], 0.0, []
    for line in lines:
        decisions += int(line["decisions"])
        spent += float(line["play_s"]) + float(line["learn_s"])
        if "win_share_vs_heuristic" in line:
            curve.append((decisions, float(line["win_share_vs_heuristic"])))
            seconds.append(spent)
    return Trained(row.work / "actor.pt", decisions, curve, seconds, spent, flags)


def expert_cli(row: Row, iterations: int, teacher_games: int, games: int) -> None:
    """The ``tablezoo expert`` command the ``expert`` row runs (up to round ``iterations``; it
    resumes after its last finished round)."""
    command = [sys.executable, "-m", "tablezoo", "expert", row.game, "--players", str(row.num_players)]
    command += ["--out", str(row.work), "--seed", str(row.seed), "--teacher", "heuristic"]
    command += ["--teacher-games", str(teacher_games), "--games", str(games), "--workers", "1"]
    command += ["--simulations", str(EXPERT_SIMULATIONS), "--iterations", str(iterations)]
    command += ["--eval-games", str(row.curve_games)]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)


def train_expert(row: Row) -> Trained:
    """Expert iteration, one round at a time until the budget is reached (see
    :mod:`tablezoo.release.baselines`); it resumes after its last finished round.

    The imitation round plays ``budget / 1000`` games of the heuristic (at least 2); each later
    round as many search self-play games as make a tenth of the budget, at the decisions per
    game of the rounds so far (``games.json`` keeps each round's games).
    """
    log = row.work / f"expert-{row.game}" / "log.jsonl"
    played = row.work / "games.json"
    teacher_games = max(2, row.budget // 1000)
    while True:
        entries = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
        games: list[int] = json.loads(played.read_text()) if played.exists() else []
        decisions = sum(int(e["decisions"]) for e in entries)
        if decisions >= row.budget:
            break
        if entries and int(entries[-1]["decisions"]) == 0:
            raise RuntimeError(f"{log}: a round gave no decisions to learn from")
        counted = min(len(games), len(entries))
        first = 1 if counted > 1 else 0  # the self-play rounds' own rate, once there is one
        done = sum(int(e["decisions"]) for e in entries[first:counted])
        per_game = done / max(1, sum(games[first:counted]))
        now = max(1, math.ceil(row.checkpoint_every / per_game)) if entries and per_game else teacher_games
        expert_cli(row, len(entries), teacher_games, now)
        played.write_text(json.dumps([*games[: len(entries)], now]))
    curve, so_far = [], 0
    for entry in entries:
        so_far += int(entry["decisions"])
        at = entry.get("against_heuristic", {}).get(f"{row.num_players}p")
        if at:
            curve.append((so_far, float(at[0])))
    return Trained(log.parent / "net.npz", decisions, curve)


TRAINERS: dict[str, Callable[[Row], Trained]] = {
    "maskable_ppo": train_maskable_ppo,
    "rllib_ppo": train_rllib_ppo,
    "tianshou_dqn": train_tianshou_dqn,
    "cleanrl_ppo": train_cleanrl_ppo,
    "batched_ppo": train_batched_ppo,
    "expert": train_expert,
}
"""Each row's trainer, by the row's name (in the order of :data:`ALGORITHMS`)."""


def load_policy(path: Path) -> Any:
    """What :func:`run_protocol` is given: a torch module for a ``.pt`` file, else the path."""
    if path.suffix == ".pt":
        import torch

        return torch.load(path, weights_only=False)
    return str(path)


def run_row(
    row: Row,
    score_games: int = GAMES_PER_CELL,
    opponents: list[str] | None = None,
    jobs: int = 1,
    command: list[str] | None = None,
) -> Path:
    """Train ``row`` (unless finished) and score it; its ``result.json``. ``command`` is what the
    result records as the command that made it (default: :meth:`Row.command`)."""
    target = row.folder / "result.json"
    if target.exists():
        print(f"{row.folder}: finished, skipped")
        return target
    if row.num_players not in TABLE_SEATS.get(row.game, ()):
        print(
            f"note: {row.game} at {row.num_players} seats is not in the table's seat counts "
            f"{TABLE_SEATS[row.game]}"
        )
    # a stopped run of these goes on from its checkpoint (the others start again from scratch)
    resumed = row.algorithm in RESUMING and row.work.is_dir() and any(row.work.iterdir())
    started = time.time()
    trained = TRAINERS[row.algorithm](row)
    trained_at = time.time()
    train_minutes = (trained_at - started) / 60
    if resumed and trained.spent is not None:  # this session's wall time is not the training's
        train_minutes = trained.spent / 60
    panel = list(opponents or PANELS[row.game])
    command = command or row.command()
    result = run_protocol(
        str(trained.policy),
        row.game,
        [row.num_players],
        panel,
        score_games,
        jobs,
        progress=True,
        training_seed=row.seed,
        folder=row.folder,
        training_budget=row.budget,
        command=command,
    )
    result["baseline"] = {
        "algorithm": row.algorithm,
        "game": row.game,
        "seats": row.num_players,
        "budget": row.budget,
        "seed": row.seed,
        "curve_games": row.curve_games,
        "decisions": trained.decisions,
        "policy_file": str(trained.policy.relative_to(row.folder)),
        "train_minutes": round(train_minutes, 2),
        "resumed": resumed,
        "score_minutes": round((time.time() - trained_at) / 60, 2),
        "curve": [[step, round(share, 4)] for step, share in trained.curve],
        "command": " ".join(command),
    }
    if trained.flags:
        result["baseline"]["trainer_flags"] = trained.flags
    if trained.seconds is not None:  # wall time: not part of what a rerun reproduces
        result["baseline"]["curve_seconds"] = [round(t, 1) for t in trained.seconds]
    partial = target.with_suffix(".partial")
    partial.write_text(json.dumps(result, indent=1) + "\n")
    partial.replace(target)  # a result.json is always whole
    shares = ", ".join(f"vs {c['opponent']} {c['win_share']:.3f}" for c in result["cells"])
    print(f"{row.folder}: {trained.decisions} decisions, win share {shares}")
    return target
