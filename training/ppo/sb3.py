"""Train a MaskablePPO agent for one seat of a tablezoo game, against bots or earlier selves.

The learner plays a seat drawn at random each episode through
:class:`~tablezoo.wrappers.single_agent.SingleAgentEnv` (scaled observations,
``action_masks()`` for MaskablePPO); each other seat is, per episode, one of the
named opponent bots or, with probability ``self_play``, a frozen earlier
checkpoint of the learner from the pool (a snapshot is added every
``snapshot_every`` steps).

With ``teacher``, PPO does not start from scratch: the named bot first plays
the learner's seat for ``teacher_decisions`` decisions, and the policy and its
value head are fitted to its moves and their returns (behaviour cloning, see
:mod:`tablezoo.training.ppo.imitate`; ``imitation.json`` reports how closely the
clone agrees with its teacher). ``init_from`` continues an earlier run instead.

A run writes into its folder: ``config.yaml`` (every setting, the seed, the
command and the package versions), TensorBoard logs, ``curve.csv`` and
``curve.png`` (the win rate against each evaluation opponent as training goes
on, with 95% intervals), ``model.zip`` (the stable-baselines3 model) and
``policy.npz`` (the actor for numpy alone: what ``--bot path/to/policy.npz``
and the shipped agents use).

``tablezoo train`` (:mod:`tablezoo.commands`) runs one from the command line, here or, with
``--backend rllib``, on Ray RLlib (:mod:`tablezoo.training.rllib.backend`):

    tablezoo train heckmeck --players 2 --timesteps 200000 --opponents heuristic random
    tablezoo train diamant --players 4 --backend rllib --num-env-runners 2 --opponents heuristic

Training needs the ``train`` extra (torch, stable-baselines3, sb3-contrib); the
module imports them only where it trains. Its settings are :mod:`tablezoo.training.ppo.config`.
"""

from __future__ import annotations

import importlib
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from tablezoo.bots.core import Bot, Seat
from tablezoo.bots.net import PolicyValueNet
from tablezoo.bots.policy import PolicyBot
from tablezoo.bots.registry import make_bot
from tablezoo.envs.names import make_game
from tablezoo.games.core import Game
from tablezoo.training.ppo.config import TrainConfig, new_run, resolve_hyperparams, save_config
from tablezoo.training.ppo.progress import Progress
from tablezoo.wrappers.single_agent import SingleAgentEnv


class EpisodeOpponent:
    """An opponent seat that is, each episode, one of several bots or a pool snapshot."""

    def __init__(self, bots: list[Bot], pool: list[PolicyBot], self_play: float) -> None:
        self.bots, self.pool, self.self_play = bots, pool, self_play
        self.rng = np.random.default_rng()
        self.current: Bot = bots[0]
        self.name = "opponent"

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        if self.pool and self.rng.random() < self.self_play:
            self.current = self.pool[int(self.rng.integers(len(self.pool)))]
        else:
            self.current = self.bots[int(self.rng.integers(len(self.bots)))]
        self.current.reset(int(self.rng.integers(2**31)))

    def act(self, seat: Seat) -> int:
        return self.current.act(seat)


def train(config: TrainConfig, command: list[str] | None = None) -> Path:
    """Run one training; return the run folder."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv, VecMonitor

    resolved = resolve_hyperparams(config.hyperparams, config.env, config.hp)
    params = dict(resolved)
    n_envs = int(params.pop("n_envs"))
    game = make_game(config.env, config.num_players, config.options)
    policy, policy_kwargs = _policy_class(game, params.pop("net_arch"), params.pop("action_head", None))
    run = new_run(config, game)
    scale = game.observation_spec.scale()
    meta = {"env": config.env, "num_players": game.num_seats, "options": config.options}
    pool: list[PolicyBot] = []
    make_env = _env_factory(config, game, pool)
    venv = VecMonitor(DummyVecEnv([make_env] * n_envs))  # episode stats in the logs
    torch.set_num_threads(1)  # small networks: threads cost more than they bring on 2 cores
    model = MaskablePPO(
        policy,
        venv,
        seed=config.seed,
        verbose=0,
        tensorboard_log=str(run / "tensorboard"),
        policy_kwargs=policy_kwargs,
        **params,
    )
    save_config(run, config, game, resolved, command)

    if config.init_from:
        model.set_parameters(config.init_from, exact_match=True)
    if config.teacher or config.teacher_data:
        _imitate(config, model, make_env(), float(params.get("gamma", 0.99)), run)

    def learner(steps: int) -> PolicyValueNet:
        return PolicyValueNet.from_sb3(model, scale, meta)

    progress = _progress(config, game, run, model, learner, pool)
    progress.start()
    model.learn(
        total_timesteps=config.timesteps, callback=_callback(progress), progress_bar=config.progress_bar
    )
    # the last evaluation stands if it was made during the last rollout
    progress.finish(model.num_timesteps, within=n_envs * int(params.get("n_steps", 2048)))
    model.save(run / "model.zip")
    PolicyValueNet.from_sb3(model, scale, {**meta, "timesteps": model.num_timesteps}).save(run / "policy.npz")
    return run


def _policy_class(game: Game[Any], net_arch: Any, action_head: int | None) -> tuple[Any, dict[str, Any]]:
    """MaskablePPO's policy and its keyword arguments: an MLP of ``net_arch``, with an action head if set."""
    policy_kwargs: dict[str, Any] = {"net_arch": net_arch}
    if not action_head:
        return "MlpPolicy", policy_kwargs
    from tablezoo.training.ppo.sb3_policy import ActionFieldPolicy, action_head_kwargs

    policy_kwargs.update(action_head_kwargs(game, action_head))
    return ActionFieldPolicy, policy_kwargs


def _env_factory(config: TrainConfig, game: Game[Any], pool: list[PolicyBot]) -> Callable[[], SingleAgentEnv]:
    """What builds one training env: the learner at a random seat, each other seat an :class:`EpisodeOpponent`
    (the ``opponents`` bots, or with probability ``self_play`` a snapshot from ``pool``)."""
    module = importlib.import_module(f"tablezoo.envs.{config.env}")

    def build() -> SingleAgentEnv:
        raw = module.raw_env(
            num_players=game.num_seats, reward=config.reward, **dict.fromkeys(config.options, True)
        )
        opponents = [
            EpisodeOpponent([make_bot(name, game) for name in config.opponents], pool, config.self_play)
            for _ in range(game.num_seats - 1)
        ]
        return SingleAgentEnv(raw, learner="random", opponents=opponents, scale_observations=True)

    return build


def _progress(
    config: TrainConfig,
    game: Game[Any],
    run: Path,
    model: Any,
    learner: Callable[[int], PolicyValueNet],
    pool: list[PolicyBot],
) -> Progress:
    """The run's :class:`Progress`: snapshots join ``pool``, figures go to the model's logger."""

    def log(tag: str, value: float, steps: int) -> None:
        if steps:  # the logger exists once learning has started
            model.logger.record(tag, value)

    def add_snapshot(policy: PolicyValueNet, steps: int) -> None:
        pool.append(PolicyBot(policy, "snapshot"))

    return Progress(config, game, run, learner, log, add_snapshot=add_snapshot)


def _callback(progress: Progress) -> Any:
    """A stable-baselines3 callback that reports the learner's decisions to ``progress`` after each step."""
    from stable_baselines3.common.callbacks import BaseCallback

    class ReportSteps(BaseCallback):
        def _on_step(self) -> bool:
            progress.after(self.num_timesteps)
            return True

    return ReportSteps()


def _imitate(config: TrainConfig, model: Any, env: SingleAgentEnv, gamma: float, run: Path) -> None:
    """Behaviour cloning of the teacher (see :mod:`tablezoo.training.ppo.imitate`); writes
    ``imitation.json``."""
    from tablezoo.training.ppo.imitate import Demonstrations, agreement, clone, collect

    started = time.time()
    if config.teacher_data:
        demos = Demonstrations.load(config.teacher_data)
    else:
        teacher = make_bot(str(config.teacher), env.game)
        bar = None
        if config.progress_bar:
            from tqdm import tqdm

            bar = tqdm(total=config.teacher_decisions, desc=f"recording {config.teacher}", unit="decision")

        def progress(done: int) -> None:
            if bar is not None:
                bar.update(min(done, config.teacher_decisions) - bar.n)

        demos = collect(env, teacher, config.teacher_decisions, gamma, config.seed + 7, progress)
        if bar is not None:
            bar.close()
        demos.save(run / "teacher.npz")
    recorded = time.time()
    losses = clone(model, demos, config.teacher_epochs, seed=config.seed)
    report = {
        "teacher": config.teacher,
        "teacher_data": config.teacher_data,
        "decisions": len(demos),
        "episodes": demos.episodes,
        "epoch_losses": [round(x, 4) for x in losses],
        "agreement_with_teacher": round(agreement(model, demos), 4),
        "seconds_recording": round(recorded - started, 1),
        "seconds_fitting": round(time.time() - recorded, 1),
    }
    (run / "imitation.json").write_text(json.dumps(report, indent=2) + "\n")
