"""Baselines of standard algorithms: one command trains and scores one row, one more sums them up.

    python benchmarks/baselines.py maskable_ppo heckmeck --seats 2 --budget 100000 --seed 0
    python benchmarks/baselines.py cleanrl_ppo diamant --seats 3 --budget 100000 --seed 1 \
        --score-games 200 --opponents random heuristic
    python benchmarks/baselines.py table
    python benchmarks/baselines.py publish

**A row** is one algorithm, one game, one seat count, one budget and one training seed. It
trains into ``<out>/<row>/<game>-<n>p/<budget>/seed<S>/train/`` (``--out``, default
``runs/baselines``), then plays the trained policy by the benchmark protocol
(:func:`tablezoo.evaluation.protocol.run_protocol`, at that seat count) and writes
``result.json`` beside ``train/``: the protocol's result with a ``baseline`` entry (the row,
the decisions trained, the minutes spent, the policy file, the learning curve). The rows:

- ``maskable_ppo``: stable-baselines3's MaskablePPO (``tablezoo.training.ppo.sb3``, the
  package's hyperparameters for the game, no teacher), the learner at a random seat, the
  heuristic at every other; the policy is its ``policy.npz``.
- ``rllib_ppo``: RLlib PPO in pure self-play (every seat the learner,
  ``tablezoo.training.rllib.backend``, sampling in the driver); the policy is its
  ``policy.npz``.
- ``tianshou_dqn``: Tianshou's DQN with the action mask (illegal moves never chosen, nor
  bootstrapped from), the learner against heuristic bots (:func:`train_tianshou_dqn`); the
  policy is ``model.pt``, a ``torch.nn.Sequential`` of Q-values on raw observations.
- ``cleanrl_ppo``: ``benchmarks/cleanrl_masked_ppo.py``, CleanRL-style masked PPO in plain
  PyTorch over the AEC env against heuristic bots; the policy is its ``model.pt``.
- ``batched_ppo``: ``benchmarks/selfplay_ppo.py``, self-play PPO in plain PyTorch on the
  batched native env (every seat of 256 games at once, one thread): the row that makes 10M
  decisions affordable; the policy is its ``actor.pt``, logits on the padded observation. In
  To Court the King at 2 seats its training games are capped and a cut game lost
  (:data:`BATCHED_FLAGS`).
- ``expert``: the package's expert iteration (``tablezoo expert``) at that seat count
  alone: one imitation round of the heuristic, then search self-play rounds.

**The budget** is in learner decisions: the decisions the policy was trained on. For the
PPO and DQN rows that is the environment steps of the learner (its opponents' moves are not
counted; in self-play every seat is the learner, and each counts). For ``expert`` it is the
decisions that became training targets (its log's ``decisions``: each move of the imitated
heuristic, and each move chosen by the search in self-play, every seat of which is the
search); each search decision also costs ``EXPERT_SIMULATIONS`` network evaluations, which
the budget does not count. Expert iteration learns in rounds, so the row runs rounds until
the budget is reached: it ends at most one round over it, each round being about a tenth of
the budget, and ``result.json`` says how many decisions it took. Every trainer may overshoot
to the end of its last update; ``decisions`` is what it took.

**The learning curve** is each row's own log: the win share of the policy against the
heuristic (every other seat) at about ``CURVE_POINTS`` checkpoints, ``--curve-games`` games
each (the trainer's own evaluation, on its own seeds, not the protocol's). Where the trainer
logs its time (``batched_ppo``), ``curve_seconds`` gives the training's own seconds at each
point (playing and learning, the evaluations left out; wall time, which a rerun does not
reproduce), and the plot adds the curves against those minutes.

**Resuming.** A row with a ``result.json`` is finished and is skipped. A stopped
``cleanrl_ppo``, ``batched_ppo``, ``rllib_ppo`` or ``expert`` row continues from its last
checkpoint; a stopped
``maskable_ppo`` or ``tianshou_dqn`` row (neither saves its state mid-run) starts its
training again from scratch, in an emptied ``train/``. A row's command run through gives the
same decisions and curve every time; ``cleanrl_ppo`` resumed gives them too (every generator
is checkpointed), ``batched_ppo`` resumed does not (the games in play are not saved): rerun it
from an empty folder to reproduce it.

A resumed row's ``result.json`` says so (``"resumed": true``); its ``train_minutes`` are
then the training's own logged time over every session (``batched_ppo``), or this session's
wall time alone where the trainer logs none.

**Scoring.** ``--score-games`` and ``--opponents`` default to the protocol's 1,000 games a
cell and its panel for the game; fewer games or another panel make the result say
``"complete": false`` (so does a single seat count, always: the protocol plays three).

**The table.** ``python benchmarks/baselines.py table`` reads every ``result.json`` under
``--out`` and, per algorithm, game, seat count and budget, sums the training seeds up with
:func:`tablezoo.evaluation.aggregate.aggregate` (rliable's interquartile mean of the
normalised cell scores, with a stratified-bootstrap 95% interval), and per algorithm, game and
budget whose seeds have a full-protocol row at each of the protocol's seat counts, the three as
one protocol result a seed (``tablezoo benchmark --join``; seats ``2/4/7`` in the table); it writes
``<results>/baselines.json``, ``<results>/baselines.md`` (a markdown table) and a
learning-curve plot per game, ``<results>/baselines-<game>.png`` (``--results``, default
``benchmarks/results``).

**Publishing.** ``python benchmarks/baselines.py publish`` copies every finished row under
``--out`` that was scored by the whole protocol (the panel, 1,000 games a cell) into
``--results`` (default ``benchmarks/results/protocol``): its result as
``<algorithm>-<game>-<n>p-<budget>-seed<S>.json`` (budget ``1M``, ``10M``), its trained policy
as ``policies/<same name>.pt`` (a file ``tablezoo benchmark`` plays), and for each row of three
seeds or more the aggregate over them and its performance profile (``-all-`` in place of the
seat count: over the three seat counts joined). ``table`` reads those
published rows as well as the ones under ``--out``.

**Smoke run** (CI): ``--budget 512 --curve-games 4 --score-games 4 --opponents random``
trains every row for a few seconds (updates then come every few dozen decisions instead of
every few thousand, :func:`short_rollouts`); ``tests/training/test_baselines.py`` runs it.
"""

from __future__ import annotations

import argparse
import copy
import csv
import json
import math
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import torch
from torch import nn

from tablezoo.evaluation.aggregate import aggregate
from tablezoo.evaluation.play import MAX_DECISIONS
from tablezoo.evaluation.protocol import GAMES_PER_CELL, PANELS, SEATS, run_protocol
from tablezoo.evaluation.results import join_seat_counts
from tablezoo.games.core import ConfigError
from tablezoo.wrappers.single_agent import SingleAgentEnv, make_env

HERE = Path(__file__).resolve().parent
CLEANRL = HERE / "cleanrl_masked_ppo.py"
SELFPLAY = HERE / "selfplay_ppo.py"
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
BATCHED_FLAGS = {("court", 2): ["--max-cycles", "1000", "--cut-reward", "-1"]}
"""The ``batched_ppo`` row's own flags for a game and seat count, on top of the budget's. To
Court the King's training games at 2 seats are cut at 1,000 decisions a seat (about 6 times
the heuristic's longest game) and a cut game is paid as a loss to every seat: without it, pure
self-play learns to drag games out by 10M decisions, never cut and never punished
(``benchmarks/stall.py``, its ``cut`` arm). Not at 4 and 5 seats: there the same cap cuts most
of the early games, which then pay every seat -1 alike, and the policy learns nothing (it lost
to ``random`` at 1M). The result records these flags (``baseline.trainer_flags``)."""


@dataclass(frozen=True)
class Row:
    """One row: an algorithm, a game, a seat count, a budget and a training seed."""

    algorithm: str
    """One of :data:`TRAINERS`."""
    game: str
    """The game's name (``heckmeck``, ``sechs_nimmt``, ``diamant``, ``court``)."""
    seats: int
    """The seat count the policy is trained and scored at."""
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
            self.out / self.algorithm / f"{self.game}-{self.seats}p" / str(self.budget) / f"seed{self.seed}"
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


# --------------------------------------------------------------------------- the rows


def _train_settings(row: Row) -> dict[str, Any]:
    """The settings ``tablezoo train``'s backends share for a row: its env, seats, budget and
    seed, the curve against the heuristic, short rollouts for a tiny budget."""
    return {
        "env": row.env,
        "num_players": row.seats,
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


RESUMING = ("cleanrl_ppo", "batched_ppo", "rllib_ppo", "expert")
"""The rows whose stopped training goes on from its last checkpoint."""


def train_cleanrl_ppo(row: Row) -> Trained:
    """``benchmarks/cleanrl_masked_ppo.py`` against heuristic bots; it resumes by itself."""
    rollout = min(2048, max(64, row.budget // 8))
    command = [sys.executable, str(CLEANRL), "--env", row.env, "--players", str(row.seats)]
    command += ["--total-steps", str(row.budget), "--seed", str(row.seed), "--rollout", str(rollout)]
    command += ["--minibatch", str(min(256, rollout)), "--eval-every", str(row.checkpoint_every)]
    command += ["--eval-games", str(row.curve_games), "--opponent", "heuristic", "--out", str(row.work)]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    lines = [json.loads(line) for line in (row.work / "metrics.jsonl").read_text().splitlines()]
    curve = [(int(r["steps"]), float(r["win_share"])) for r in lines if "win_share" in r]
    return Trained(row.work / "model.pt", int(lines[-1]["steps"]), curve)


def train_tianshou_dqn(row: Row) -> Trained:
    """Masked DQN (Tianshou) against heuristic bots; starts afresh when stopped.

    The learner's view is :class:`~tablezoo.wrappers.single_agent.SingleAgentEnv` (a random
    seat each game, scaled observations) with its mask beside the observation, as Tianshou's
    DQN reads it (``obs.mask``): an illegal move is never chosen, in play or in the target's
    maximum. Epsilon falls linearly from 1 to 0.05 over the first half of the budget; the
    target network is copied every 500 updates; one update of 64 samples per 4 decisions, from
    a replay buffer of 50,000. The curve's checkpoints are the epochs' ends (a tenth of the
    budget each).
    """
    from tianshou.algorithm.modelfree.dqn import DQN, DiscreteQLearningPolicy
    from tianshou.algorithm.optim import AdamOptimizerFactory
    from tianshou.data import Collector, CollectStats, VectorReplayBuffer
    from tianshou.env import DummyVectorEnv
    from tianshou.trainer import OffPolicyTrainerParams

    from tablezoo.evaluation.protocol import evaluate
    from tablezoo.games import make

    shutil.rmtree(row.work, ignore_errors=True)
    row.work.mkdir(parents=True)
    torch.manual_seed(row.seed)
    np.random.seed(row.seed)  # noqa: NPY002 (Tianshou's epsilon-greedy draws from numpy's global generator)
    torch.set_num_threads(1)
    envs = DummyVectorEnv([lambda: _masked_env(row) for _ in range(4)])
    envs.seed(row.seed)
    probe = _masked_env(row)
    game = probe.learner.game
    net = QNet(game.observation_spec.size, game.num_actions)
    policy = DiscreteQLearningPolicy(
        model=net, action_space=probe.action_space, observation_space=probe.observation_space
    )
    algorithm = DQN(policy=policy, optim=AdamOptimizerFactory(lr=5e-4), gamma=1.0, target_update_freq=500)
    buffer = VectorReplayBuffer(50_000, buffer_num=4)
    collector = Collector[CollectStats](algorithm, envs, buffer, exploration_noise=True)
    scale = game.observation_spec.scale()
    curve: list[tuple[int, float]] = []
    scored = make(row.game, row.seats)

    def checkpoint(env_step: int) -> None:
        cell = evaluate(net.plain(scale), scored, "heuristic", games=row.curve_games)
        curve.append((env_step, cell.win_share))

    def before_collecting(epoch: int, env_step: int) -> None:
        policy.set_eps_training(max(0.05, 1.0 - 0.95 * env_step / (row.budget / 2)))
        if epoch > len(curve):  # a new epoch: the last one's end is a checkpoint
            checkpoint(env_step)

    checkpoint(0)
    params = OffPolicyTrainerParams(
        training_collector=collector,
        max_epochs=math.ceil(row.budget / row.checkpoint_every),
        epoch_num_steps=row.checkpoint_every,
        collection_step_num_env_steps=16,
        batch_size=64,
        update_step_num_gradient_steps_per_sample=0.25,
        training_fn=before_collecting,
        show_progress=False,
        verbose=False,
    )
    result = algorithm.run_training(params)
    decisions = int(result.train_step)
    checkpoint(decisions)
    torch.save(net.plain(scale), row.work / "model.pt")
    return Trained(row.work / "model.pt", decisions, curve)


def _masked_env(row: Row) -> MaskedObservation:
    env = make_env(row.env, row.seats, opponents="heuristic", learner="random", scale_observations=True)
    return MaskedObservation(env)


class MaskedObservation(gymnasium.ObservationWrapper):  # type: ignore[type-arg]
    """A :class:`~tablezoo.wrappers.single_agent.SingleAgentEnv`'s observation as
    ``{"obs": observation, "mask": legal moves}``, the masked form Tianshou's DQN reads."""

    def __init__(self, env: SingleAgentEnv) -> None:
        super().__init__(env)
        self.learner = env
        mask = gymnasium.spaces.MultiBinary(env.game.num_actions)
        self.observation_space = gymnasium.spaces.Dict({"obs": env.observation_space, "mask": mask})

    def observation(self, observation: np.ndarray) -> dict[str, np.ndarray]:
        """The observation with the learner's legal moves (all False once the game is over)."""
        return {"obs": observation, "mask": self.learner.action_masks().astype(bool)}


class QNet(nn.Module):
    """The DQN row's Q-values of scaled observations: a tanh MLP (128, 128), called as Tianshou
    calls a model (``model(obs, state, info) -> (values, state)``)."""

    def __init__(self, size: int, actions: int, hidden: int = 128) -> None:
        super().__init__()
        self.q = nn.Sequential(
            nn.Linear(size, hidden),
            nn.Tanh(),
            nn.Linear(hidden, hidden),
            nn.Tanh(),
            nn.Linear(hidden, actions),
        )

    def forward(self, obs: Any, state: Any = None, info: Any = None) -> tuple[torch.Tensor, Any]:
        """Q-values of a batch of scaled observations, and the (unused) state."""
        return self.q(torch.as_tensor(obs, dtype=torch.float32)), state

    def plain(self, scale: np.ndarray) -> nn.Sequential:
        """The Q-network on raw observations (the scaling folded into its first layer): torch's
        own modules only, what :func:`~tablezoo.evaluation.policies.as_bot` plays."""
        plain = copy.deepcopy(self.q)
        first = plain[0]
        assert isinstance(first, nn.Linear)
        with torch.no_grad():
            first.weight /= torch.as_tensor(scale, dtype=torch.float32)
        plain.tablezoo_observation, plain.tablezoo_scaled = "plain", False  # what it reads, declared
        return plain


def train_batched_ppo(row: Row) -> Trained:
    """``benchmarks/selfplay_ppo.py`` (self-play on the batched env); it resumes by itself.

    256 games at once (2 for a tiny budget), updates of at least 8,192 decisions of whole
    games (half a tiny budget), as many as make the budget; a checkpoint of the curve every
    :attr:`Row.checkpoint_every` decisions or so."""
    steps = 8192 if row.budget >= SHORT else max(16, row.budget // 2)
    updates = math.ceil(row.budget / steps)
    command = [sys.executable, str(SELFPLAY), "--game", row.game, "--players", str(row.seats)]
    command += ["--updates", str(updates), "--steps", str(steps), "--seed", str(row.seed)]
    every = max(1, math.ceil(row.checkpoint_every / steps))
    command += ["--eval-every", str(every), "--eval-games", str(row.curve_games)]
    envs = 256 if row.budget >= SHORT else 2
    command += ["--num-envs", str(envs), "--threads", "1", "--minibatch", str(min(1024, steps))]
    flags = BATCHED_FLAGS.get((row.game, row.seats), [])
    command += [*flags, "--out", str(row.work)]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
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
    command = [sys.executable, "-m", "tablezoo", "expert", row.game, "--players", str(row.seats)]
    command += ["--out", str(row.work), "--seed", str(row.seed), "--teacher", "heuristic"]
    command += ["--teacher-games", str(teacher_games), "--games", str(games), "--workers", "1"]
    command += ["--simulations", str(EXPERT_SIMULATIONS), "--iterations", str(iterations)]
    command += ["--eval-games", str(row.curve_games)]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)


def train_expert(row: Row) -> Trained:
    """Expert iteration, one round at a time until the budget is reached (see the module's
    docstring); it resumes after its last finished round.

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
        at = entry.get("against_heuristic", {}).get(f"{row.seats}p")
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
"""Each row's trainer, by the row's name."""


# --------------------------------------------------------------------------- one row


def load_policy(path: Path) -> Any:
    """What :func:`run_protocol` is given: a torch module for a ``.pt`` file, else the path."""
    if path.suffix == ".pt":
        import torch

        return torch.load(path, weights_only=False)
    return str(path)


def run_row(
    row: Row, score_games: int = GAMES_PER_CELL, opponents: list[str] | None = None, jobs: int = 1
) -> Path:
    """Train ``row`` (unless finished) and score it; its ``result.json``."""
    target = row.folder / "result.json"
    if target.exists():
        print(f"{row.folder}: finished, skipped")
        return target
    if row.seats not in TABLE_SEATS.get(row.game, ()):
        print(
            f"note: {row.game} at {row.seats} seats is not in the table's seat counts {TABLE_SEATS[row.game]}"
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
    command = ["python", "benchmarks/baselines.py", *sys.argv[1:]]
    result = run_protocol(
        str(trained.policy),
        row.game,
        [row.seats],
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
        **{k: v for k, v in asdict(row).items() if k != "out"},
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


# --------------------------------------------------------------------------- the table


def budget_label(budget: int) -> str:
    """1000000 -> ``1M``, 100000 -> ``100k``: how published files name a budget."""
    for size, unit in ((1_000_000, "M"), (1_000, "k")):
        if budget >= size and budget % size == 0:
            return f"{budget // size}{unit}"
    return str(budget)


def published_name(baseline: dict[str, Any]) -> str:
    """``batched_ppo-heckmeck-2p-1M-seed0``: a published row's file name, without its suffix."""
    b = baseline
    return f"{b['algorithm']}-{b['game']}-{b['seats']}p-{budget_label(b['budget'])}-seed{b['seed']}"


def finished_rows(out: Path, results: Path | None = None) -> list[dict[str, Any]]:
    """Every finished row's result: those under ``out``, and those published in ``results``
    (``<name>-seed<S>.json``) that ``out`` does not hold (a row is one algorithm, game, seat count,
    budget and seed)."""
    rows: dict[tuple[Any, ...], dict[str, Any]] = {}
    paths = sorted(results.glob("*-seed*.json")) if results is not None else []
    for path in [*paths, *sorted(out.glob("*/*/*/seed*/result.json"))]:  # out's last: it wins
        result = json.loads(path.read_text())
        b = result.get("baseline")
        if b is not None:
            rows[(b["algorithm"], b["game"], b["seats"], b["budget"], b["seed"])] = result
    return list(rows.values())


def published_rows(results: Path) -> list[dict[str, Any]]:
    """The rows published in ``results`` (``<name>-seed<S>.json``)."""
    rows = [json.loads(path.read_text()) for path in sorted(results.glob("*-seed*.json"))]
    return [row for row in rows if row.get("baseline") is not None]


def full_protocol(result: dict[str, Any]) -> bool:
    """Whether a row was scored against the protocol's whole panel at its games a cell."""
    cells = result["cells"]
    game = result["baseline"]["game"]
    return all(c["games"] == GAMES_PER_CELL for c in cells) and sorted(
        c["opponent"] for c in cells
    ) == sorted(PANELS[game])


def joined_runs(rows: list[dict[str, Any]]) -> dict[tuple[str, str, int], list[list[dict[str, Any]]]]:
    """Per algorithm, game and budget, each training seed's full-protocol rows at every one of
    the table's seat counts (in order of seat count), seeds that lack one left out: the parts
    of one protocol result a seed (:func:`~tablezoo.evaluation.results.join_seat_counts`)."""
    by_seed: dict[tuple[str, str, int, int], dict[int, dict[str, Any]]] = {}
    for result in rows:
        if full_protocol(result):
            b = result["baseline"]
            by_seed.setdefault((b["algorithm"], b["game"], b["budget"], b["seed"]), {})[b["seats"]] = result
    joined: dict[tuple[str, str, int], list[list[dict[str, Any]]]] = {}
    for (algorithm, game, budget, _seed), parts in sorted(by_seed.items()):
        if tuple(sorted(parts)) == TABLE_SEATS[game]:
            joined.setdefault((algorithm, game, budget), []).append([parts[n] for n in sorted(parts)])
    return joined


def joined_label(game: str) -> str:
    """``2/4/7``: the table's seat counts of ``game``, as a joined row's seats."""
    return "/".join(map(str, TABLE_SEATS[game]))


def publish(out: Path, results: Path) -> list[str]:
    """Copy every finished full-protocol row under ``out`` into ``results``: its result
    (``<name>.json``, :func:`published_name`) and its trained policy
    (``policies/<name>.pt`` or ``.npz``, a file ``tablezoo benchmark`` plays); then, for each
    row with at least ``MIN_SEEDS`` seeds, the aggregate over them (``aggregate-<row>.json``) and
    its performance profile (``profile-<row>.png``). Returns the names published.

    A published result stands alone: its policy is given as ``policies/<name>.<suffix>``, relative
    to ``results`` (the file its SHA-256 is of), and no path of the machine that made it is kept
    (:func:`~tablezoo.evaluation.results.make_portable`)."""
    from tablezoo.evaluation.aggregate import plot_profile
    from tablezoo.evaluation.results import make_portable

    names = []
    (results / "policies").mkdir(parents=True, exist_ok=True)
    for path in sorted(out.glob("*/*/*/seed*/result.json")):
        result = json.loads(path.read_text())
        if not full_protocol(result):
            continue
        name = published_name(result["baseline"])
        policy = path.parent / result["baseline"]["policy_file"]
        if policy.is_file():
            shutil.copyfile(policy, results / "policies" / f"{name}{policy.suffix}")
            result["policy"]["given"] = f"policies/{name}{policy.suffix}"
        published = make_portable(result, results)
        (results / f"{name}.json").write_text(json.dumps(published, indent=1) + "\n")
        names.append(name)
    groups: dict[str, list[dict[str, Any]]] = {}
    published = published_rows(results)  # the aggregates name the published policy files
    for result in published:
        if full_protocol(result):
            groups.setdefault(published_name(result["baseline"]).rsplit("-seed", 1)[0], []).append(result)
    for (algorithm, game, budget), seeds in joined_runs(published).items():
        groups[f"{algorithm}-{game}-all-{budget_label(budget)}"] = [join_seat_counts(p) for p in seeds]
    for row, runs in sorted(groups.items()):
        if len(runs) >= MIN_SEEDS:
            summary = make_portable(aggregate(runs), results)
            (results / f"aggregate-{row}.json").write_text(json.dumps(summary, indent=1) + "\n")
            plot_profile(summary, results / f"profile-{row}.png")
    return names


def table(out: Path, results: Path) -> list[dict[str, Any]]:
    """Sum up every finished row under ``out`` and published in ``results`` (rliable IQM over
    seeds); write the JSON, the markdown table and a learning-curve plot per game into
    ``results``; the table's entries."""
    groups: dict[tuple[str, str, int, int], list[dict[str, Any]]] = {}
    for result in finished_rows(out, results):
        b = result["baseline"]
        groups.setdefault((b["algorithm"], b["game"], b["seats"], b["budget"]), []).append(result)
    entries = []
    for (algorithm, game, seats, budget), runs in groups.items():
        runs.sort(key=lambda r: r["baseline"]["seed"])
        entry: dict[str, Any] = {
            "algorithm": algorithm,
            "game": game,
            "seats": seats,
            "budget": budget,
            "seeds": [r["baseline"]["seed"] for r in runs],
            "decisions": [r["baseline"]["decisions"] for r in runs],
            "train_minutes": [r["baseline"]["train_minutes"] for r in runs],
            "games_per_cell": sorted({c["games"] for r in runs for c in r["cells"]}),
            "panel": sorted({c["opponent"] for r in runs for c in r["cells"]}),
            "win_share": {},
        }
        entry["protocol"] = (
            entry["games_per_cell"] == [GAMES_PER_CELL]
            and entry["panel"] == sorted(PANELS[game])
            and len(runs) >= MIN_SEEDS
        )
        for cell in runs[0]["cells"]:
            shares = [c["win_share"] for r in runs for c in r["cells"] if c["opponent"] == cell["opponent"]]
            entry["win_share"][cell["opponent"]] = round(float(np.mean(shares)), 4)
        try:
            summary = aggregate(runs)
            entry |= {k: summary[k] for k in ("cells", "iqm", "iqm_95ci", "mean", "mean_95ci")}
        except ConfigError as err:  # one seed, no normalised cell, or results of unlike cells
            entry["iqm"], entry["note"] = None, str(err)
            if len(runs) == 1:
                entry["normalised_score"] = runs[0].get("normalised_score")  # that seed's mean
        entry["curves"] = [r["baseline"]["curve"] for r in runs]
        if all("curve_seconds" in r["baseline"] for r in runs):
            entry["curve_seconds"] = [r["baseline"]["curve_seconds"] for r in runs]
        entries.append(entry)
    for (algorithm, game, budget), seeds in joined_runs(finished_rows(out, results)).items():
        entry = {
            "algorithm": algorithm,
            "game": game,
            "seats": joined_label(game),
            "budget": budget,
            "seeds": [parts[0]["baseline"]["seed"] for parts in seeds],
            "decisions": [sum(r["baseline"]["decisions"] for r in parts) for parts in seeds],
            "train_minutes": [sum(r["baseline"]["train_minutes"] for r in parts) for parts in seeds],
            "games_per_cell": [GAMES_PER_CELL],
            "panel": sorted(PANELS[game]),
            "win_share": {},
            "protocol": len(seeds) >= MIN_SEEDS,
            "curves": [],
        }
        try:
            summary = aggregate([join_seat_counts(parts) for parts in seeds])
            entry |= {k: summary[k] for k in ("cells", "iqm", "iqm_95ci", "mean", "mean_95ci")}
        except ConfigError as err:  # one seed
            entry["iqm"], entry["note"] = None, str(err)
        entries.append(entry)
    order = {name: i for i, name in enumerate(TRAINERS)}
    entries.sort(
        key=lambda e: (
            GAMES.index(e["game"]),
            isinstance(e["seats"], str),  # a game's joined rows after its seat counts
            e["seats"] if isinstance(e["seats"], int) else 0,
            order[e["algorithm"]],
            e["budget"],
        )
    )
    results.mkdir(parents=True, exist_ok=True)
    (results / "baselines.json").write_text(json.dumps(entries, indent=1) + "\n")
    (results / "baselines.md").write_text(markdown(entries))
    (results / "summary.md").write_text(summary_markdown(entries))
    for game in dict.fromkeys(e["game"] for e in entries):
        curves = [e for e in entries if e["game"] == game and isinstance(e["seats"], int)]
        plot(game, curves, results / f"baselines-{game}.png")
    return entries


def markdown(entries: list[dict[str, Any]]) -> str:
    """The table in markdown: one line per algorithm, game, seat count and budget."""
    lines = [
        "| game | seats | algorithm | budget | decisions | seeds | games a cell | vs random | vs heuristic "
        "| vs strongest | normalised IQM [95% CI] | protocol | training minutes |",
        "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- | ---: |",
    ]
    for e in entries:
        share = e["win_share"]
        strongest = PANELS[e["game"]][-1] if len(PANELS[e["game"]]) > 2 else ""
        iqm = (
            "n/a"
            if e.get("iqm") is None
            else f"{e['iqm']:.2f} [{e['iqm_95ci'][0]:.2f}, {e['iqm_95ci'][1]:.2f}]"
        )
        cells = [
            e["game"],
            str(e["seats"]),
            e["algorithm"],
            f"{e['budget']:,}",
            f"{round(float(np.mean(e['decisions']))):,}",
            str(len(e["seeds"])),
            "/".join(f"{g:,}" for g in e.get("games_per_cell", [])),
            f"{share['random']:.3f}" if "random" in share else "",
            f"{share['heuristic']:.3f}" if "heuristic" in share else "",
            f"{share[strongest]:.3f}" if strongest in share else "",
            iqm,
            "yes" if e.get("protocol") else "no",
            f"{np.mean(e['train_minutes']):.1f}",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


SUMMARY_COLUMNS = [("batched_ppo", 1_000_000), ("batched_ppo", 10_000_000), ("maskable_ppo", 1_000_000)]
SUMMARY_COLUMNS += [("cleanrl_ppo", 1_000_000)]
"""The README's table: the protocol's rows, by algorithm and budget."""


def summary_markdown(entries: list[dict[str, Any]]) -> str:
    """The protocol's rows as one line per game and seat count, one column per algorithm and
    budget of :data:`SUMMARY_COLUMNS`: the normalised IQM over the seeds with its 95% interval,
    or for one seed its mean normalised score (``n/a`` where no cell is normalised), and the
    seeds (fewer than ``MIN_SEEDS``: not yet a protocol row); rows scored otherwise left out,
    columns not run yet marked ``-``. A game's last line (seats ``2/4/7``) is the protocol's
    score over its three seat counts at once, each seed's three policies joined into one result
    (:func:`joined_runs`)."""
    done = {
        (e["game"], e["seats"], e["algorithm"], e["budget"]): e
        for e in entries
        if e["games_per_cell"] == [GAMES_PER_CELL] and e["panel"] == sorted(PANELS[e["game"]])
    }
    head = " | ".join(f"{a} {budget_label(b)}" for a, b in SUMMARY_COLUMNS)
    lines = [f"| game | seats | {head} |", "| --- | ---: |" + " --- |" * len(SUMMARY_COLUMNS)]
    for game in GAMES:
        for seats in (*SEATS[game], joined_label(game)):
            cells = []
            for algorithm, budget in SUMMARY_COLUMNS:
                e = done.get((game, seats, algorithm, budget))
                seeds = len(e["seeds"]) if e is not None else 0
                if e is None:
                    cells.append("-")
                elif e.get("iqm") is not None:
                    low, high = e["iqm_95ci"]
                    cells.append(f"{e['iqm']:.2f} [{low:.2f}, {high:.2f}] ({seeds} seeds)")
                elif e.get("normalised_score") is not None:
                    cells.append(f"{e['normalised_score']:.2f} (1 seed: its mean, no interval)")
                else:
                    cells.append(f"n/a ({seeds} seed{'s' if seeds > 1 else ''})")
            lines.append(f"| {game} | {seats} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def plot(game: str, entries: list[dict[str, Any]], path: Path) -> None:
    """One game's learning curves: win share against the heuristic by decisions, one panel per
    seat count, one line per algorithm and budget (the mean over seeds at each checkpoint; the
    decisions on a log scale where the budgets are ten times apart)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    seat_counts = sorted({e["seats"] for e in entries})
    timed = any("curve_seconds" in e for e in entries)
    rows = 2 if timed else 1
    fig, axes = plt.subplots(rows, len(seat_counts), figsize=(6 * len(seat_counts), 4 * rows), squeeze=False)
    if timed:
        for ax, seats in zip(axes[1], seat_counts, strict=True):
            _plot_by_time(
                ax, game, seats, [e for e in entries if e["seats"] == seats and "curve_seconds" in e]
            )
    for ax, seats in zip(axes[0], seat_counts, strict=True):
        for e in (e for e in entries if e["seats"] == seats):
            points = min(len(c) for c in e["curves"])
            if not points:
                continue
            steps = [e["curves"][0][i][0] for i in range(points)]
            shares = [float(np.mean([c[i][1] for c in e["curves"]])) for i in range(points)]
            seeds = len(e["seeds"])
            label = f"{e['algorithm']} ({e['budget']:,}, {seeds} seed{'s' if seeds > 1 else ''})"
            ax.plot(steps, shares, marker="o", markersize=3, label=label)
        budgets = [e["budget"] for e in entries if e["seats"] == seats]
        if max(budgets) >= 10 * min(budgets):
            ax.set_xscale("log")  # budgets ten times apart: each curve gets its share of the width
        _finish(ax, seats, f"{game}, {seats} seats", "learner decisions")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _plot_by_time(ax: Any, game: str, seats: int, entries: list[dict[str, Any]]) -> None:
    """The same curves against the training's own minutes (the mean over seeds at each point)."""
    for e in entries:
        points = min(len(c) for c in e["curves"])
        if not points:
            continue
        minutes = [float(np.mean([t[i] for t in e["curve_seconds"]])) / 60 for i in range(points)]
        shares = [float(np.mean([c[i][1] for c in e["curves"]])) for i in range(points)]
        ax.plot(minutes, shares, marker="o", markersize=3, label=f"{e['algorithm']} ({e['budget']:,})")
    _finish(
        ax, seats, f"{game}, {seats} seats, by training time", "training minutes (play and learn; one core)"
    )


def _finish(ax: Any, seats: int, title: str, xlabel: str) -> None:
    """A panel's fair-share line, title, axes, grid and legend."""
    ax.axhline(1 / seats, color="grey", linestyle="--", linewidth=1, label="fair share")
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("win share vs heuristic")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)


# --------------------------------------------------------------------------- the command


def main(argv: list[str] | None = None) -> None:
    """``python benchmarks/baselines.py ROW GAME --seats N --budget B --seed S`` or ``... table``."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for name in TRAINERS:
        p = sub.add_parser(name, help=f"train and score one {name} row")
        p.add_argument("game", choices=GAMES)
        p.add_argument("--seats", type=int, required=True, help="seat count")
        p.add_argument(
            "--budget", type=int, required=True, help=f"learner decisions (the table's: {BUDGETS})"
        )
        p.add_argument("--seed", type=int, default=0, help="training seed")
        p.add_argument("--out", type=Path, default=Path("runs/baselines"), help="folder of every row")
        p.add_argument("--curve-games", type=int, default=100, help="games at each checkpoint of the curve")
        p.add_argument("--score-games", type=int, default=GAMES_PER_CELL, help="games a protocol cell")
        p.add_argument("--opponents", nargs="+", default=None, help="the panel (default: the protocol's)")
        p.add_argument("--jobs", type=int, default=1, help="processes to score in (a policy file only)")
    t = sub.add_parser("table", help="aggregate every finished row: JSON, markdown, plots")
    t.add_argument("--out", type=Path, default=Path("runs/baselines"), help="folder of every row")
    t.add_argument("--results", type=Path, default=HERE / "results", help="where the table goes")
    u = sub.add_parser("publish", help="copy the finished full-protocol rows, their policies and aggregates")
    u.add_argument("--out", type=Path, default=Path("runs/baselines"), help="folder of every row")
    u.add_argument("--results", type=Path, default=HERE / "results" / "protocol", help="where they go")
    args = parser.parse_args(argv)
    if args.command == "publish":
        for name in publish(args.out, args.results):
            print(name)
        return
    if args.command == "table":
        entries = table(args.out, args.results)
        print(markdown(entries), end="")
        return
    row = Row(args.command, args.game, args.seats, args.budget, args.seed, args.out, args.curve_games)
    run_row(row, args.score_games, args.opponents, args.jobs)


if __name__ == "__main__":
    main()
