"""``tablezoo train GAME --backend rllib``: multi-agent self-play PPO on Ray RLlib, one machine or a cluster.

Every learner seat of :class:`~tablezoo.wrappers.rllib.RLlibEnv` maps to one
shared policy, ``learner``: a :class:`MaskedMLPModule` whose illegal actions get
the smallest float as logit, so none is ever sampled. The other seats are the
league, drawn per episode inside the env: the named ``opponents`` bots and,
with probability ``self_play``, frozen snapshots of the learner (one every
``snapshot_every`` steps, exported to the numpy format and pushed to every env
runner, wherever it runs). Each seat besides one learner is also the learner
with probability ``learner_share`` (pure self-play when there are no opponents).

Ray runs locally by default (``ray.init()`` with nothing to set up); ``address``
(``auto``, ``HOST:6379`` or ``ray://HOST:10001``) joins an existing cluster,
whose nodes must have tablezoo installed. ``num_env_runners`` actors sample the
envs (each with one CPU; 0 samples in the driver), ``num_learners`` actors
update the network (0: in the driver).

The run folder is laid out as the stable-baselines3 backend's
(:mod:`tablezoo.training.ppo.sb3`): ``config.yaml`` (settings, the PPO settings they
give, command, versions), ``tensorboard/``, ``curve.csv`` and ``curve.png`` (the same
evaluations against bots, during and after training: both backends report their steps to
one :class:`~tablezoo.training.ppo.progress.Progress`, which also takes the snapshots and
the checkpoints when they are due), ``policy.npz``
(the learner's actor for numpy, what ``--bot``, ``tablezoo export`` and the tables
play); then ``checkpoint/`` (RLlib's, for ``resume``), ``state.json`` (steps and
curve so far), ``snapshots/`` (the league's frozen learners) and ``cluster.json``
(which node each env runner ran on and how many steps it stepped).

Steps are learner decisions (env steps: one learner moves per step). The
hyperparameters are the same YAML entries and ``--hp`` keys as MaskablePPO's
(:data:`SB3_TO_RLLIB` maps them); ``n_envs`` is the envs per env runner and
``n_steps * n_envs`` the decisions per update.

Needs the ``train`` and ``rllib`` extras.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.torch.torch_rl_module import TorchRLModule
from torch import nn

from tablezoo.bots.net import PolicyValueNet, load_model
from tablezoo.envs.names import make_game
from tablezoo.games.core import ConfigError
from tablezoo.training.ppo.config import TrainConfig, new_run, resolve_hyperparams, save_config, versions
from tablezoo.training.ppo.progress import Progress
from tablezoo.training.rllib.config import RLlibTrainConfig
from tablezoo.wrappers.rllib import MASK_KEY, OBS_KEY, RLlibEnv

POLICY_ID = "learner"
SB3_TO_RLLIB = {
    "learning_rate": "lr",
    "gamma": "gamma",
    "gae_lambda": "lambda_",
    "clip_range": "clip_param",
    "ent_coef": "entropy_coeff",
    "vf_coef": "vf_loss_coeff",
    "max_grad_norm": "grad_clip",
    "batch_size": "minibatch_size",
    "n_epochs": "num_epochs",
}
"""MaskablePPO hyperparameter names -> ``PPOConfig.training`` names (the rest: :func:`ppo_settings`)."""
SB3_ONLY = ("teacher", "teacher_data", "init_from")
"""Settings of the stable-baselines3 backend that this one does not take."""


class MaskedMLPModule(TorchRLModule, ValueFunctionAPI):
    """PPO actor and critic (separate tanh MLPs, as stable-baselines3's ``MlpPolicy``) with the action mask.

    Reads ``obs["observations"]`` and ``obs["action_mask"]``; an illegal action's
    logit becomes the smallest float32, so its probability is exactly 0 and no
    sampling, greedy or stochastic, can pick it. ``model_config["hidden"]`` gives the
    hidden layer sizes.
    """

    def setup(self) -> None:
        hidden = list(self.model_config.get("hidden", [128, 128]))
        size = int(self.observation_space[OBS_KEY].shape[0])
        actions = int(self.action_space.n)
        self.pi = _mlp(size, hidden, actions)
        self.vf = _mlp(size, hidden, 1)

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        logits = self.pi(obs[OBS_KEY])
        masked = torch.where(obs[MASK_KEY] > 0, logits, torch.finfo(logits.dtype).min)
        return {Columns.ACTION_DIST_INPUTS: masked}

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        return self.vf(batch[Columns.OBS][OBS_KEY]).squeeze(-1)


def _mlp(size: int, hidden: list[int], out: int) -> nn.Sequential:
    layers: list[nn.Module] = []
    for width in hidden:
        layers += [nn.Linear(size, width), nn.Tanh()]
        size = width
    layers.append(nn.Linear(size, out))
    return nn.Sequential(*layers)


def export_policy(
    module: MaskedMLPModule, scale: np.ndarray, meta: dict[str, Any] | None = None
) -> PolicyValueNet:
    """The module's actor as a policy of one seat count (it scales raw observations by ``scale`` itself)."""
    return export_weights(module.state_dict(), scale, meta)


def export_weights(
    state: dict[str, Any], scale: np.ndarray, meta: dict[str, Any] | None = None
) -> PolicyValueNet:
    """A policy of one seat count (:class:`~tablezoo.bots.net.PolicyValueNet`) from the state dict of a
    :class:`MaskedMLPModule` (its ``pi.<i>`` layers)."""

    def numpy(value: Any) -> np.ndarray:
        return value.detach().cpu().numpy() if isinstance(value, torch.Tensor) else np.asarray(value)

    layers = sorted(
        int(key.split(".")[1]) for key in state if key.startswith("pi.") and key.endswith(".weight")
    )
    if not layers:
        raise ValueError(f"no actor layers (pi.<i>.weight) among {sorted(state)}")
    weights = [numpy(state[f"pi.{i}.weight"]) for i in layers]
    biases = [numpy(state[f"pi.{i}.bias"]) for i in layers]
    return PolicyValueNet(weights, biases, None, None, scale, meta or {}, activation="tanh", padded=False)


def ppo_settings(config: TrainConfig) -> tuple[dict[str, Any], dict[str, Any]]:
    """The resolved hyperparameters (MaskablePPO names, as saved) and the ``PPOConfig.training``
    arguments, ``hidden`` and ``n_envs`` they give; a ConfigError names a key this backend cannot honour."""
    resolved = resolve_hyperparams(config.hyperparams, config.env, config.hp)
    if resolved.get("action_head") and config.hp.get("action_head"):
        raise ConfigError("the rllib backend has no action head: drop --hp action_head (or set it to null)")
    resolved.pop("action_head", None)  # a packaged entry's head: the rllib backend plays a plain MLP
    params = dict(resolved)
    n_envs = int(params.pop("n_envs"))
    training: dict[str, Any] = {
        "train_batch_size_per_learner": int(params.pop("n_steps", 2048)) * n_envs,
        "use_kl_loss": False,  # MaskablePPO has no KL penalty, only the clipped objective
        "vf_clip_param": 1e6,  # nor a clipped value loss (scores can be far above 10)
        "grad_clip": 0.5,  # MaskablePPO's max_grad_norm default
    }
    training["model_hidden"] = list(params.pop("net_arch"))
    for key, value in params.items():
        if key not in SB3_TO_RLLIB:
            raise ConfigError(
                f"the rllib backend does not take hyperparameter {key!r}; it takes "
                f"{', '.join(sorted([*SB3_TO_RLLIB, 'n_steps', 'n_envs', 'net_arch']))}"
            )
        if key == "learning_rate" and not isinstance(value, (int, float)):
            raise ConfigError(f"the rllib backend takes a constant learning_rate, not {value!r}")
        training[SB3_TO_RLLIB[key]] = value
    training["n_envs"] = n_envs
    return resolved, training


def build_algo(config: RLlibTrainConfig, training: dict[str, Any]) -> Any:
    """The PPO algorithm (on the Ray instance already started)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    training = dict(training)
    hidden = training.pop("model_hidden")
    n_envs = training.pop("n_envs")
    batch = training["train_batch_size_per_learner"]
    training["minibatch_size"] = min(int(training.get("minibatch_size", 128)), batch)
    env_config = {
        "env": config.env,
        "num_players": config.num_players,
        "options": list(config.options),
        "reward": config.reward,
        "opponents": list(config.opponents),
        "learner_share": config.learner_share,
        "self_play": config.self_play,
        "max_cycles": config.max_cycles,
        "seed": config.seed,
    }
    spec = RLModuleSpec(module_class=MaskedMLPModule, model_config={"hidden": hidden})
    ppo = (
        PPOConfig()
        .environment(env=RLlibEnv, env_config=env_config)
        .multi_agent(
            policies={POLICY_ID},
            policy_mapping_fn=_to_learner,
            policies_to_train=[POLICY_ID],
        )
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={POLICY_ID: spec}))
        .env_runners(
            num_env_runners=config.num_env_runners,
            num_envs_per_env_runner=n_envs,
            num_cpus_per_env_runner=1,
            rollout_fragment_length="auto",
        )
        .learners(num_learners=config.num_learners)
        .training(**training)
        .debugging(seed=config.seed, log_level="WARN")
        .reporting(metrics_num_episodes_for_smoothing=100)
    )
    return ppo.build_algo()


def _to_learner(agent_id: Any, episode: Any, **kwargs: Any) -> str:
    """Every learner seat plays the one shared policy."""
    return POLICY_ID


def _envs(runner: Any) -> list[RLlibEnv]:
    """The tablezoo envs of one env runner (none on a driver that does not sample)."""
    env = getattr(runner, "env", None)
    return [] if env is None else [e.unwrapped for e in env.envs]


def push_snapshot(algo: Any, policy: PolicyValueNet, limit: int) -> None:
    """Add a frozen learner to the league of every env, on every env runner."""
    algo.env_runner_group.foreach_env_runner(
        lambda runner: [env.add_snapshot(policy, limit) for env in _envs(runner)], local_env_runner=True
    )


def runner_report(algo: Any) -> list[dict[str, Any]]:
    """Per env runner: its node, host and the learner decisions and illegal moves of its envs."""

    def report(runner: Any) -> dict[str, Any]:
        import ray

        envs = _envs(runner)
        return {
            "worker_index": int(getattr(runner, "worker_index", 0)),
            "node_id": ray.get_runtime_context().get_node_id(),
            "host": socket.gethostname(),
            "envs": len(envs),
            "steps": sum(env.steps_taken for env in envs),
            "illegal_moves": sum(env.illegal_moves for env in envs),
        }

    rows = algo.env_runner_group.foreach_env_runner(report, local_env_runner=True)
    return [row for row in rows if row["envs"]]


def _reset_counters(algo: Any) -> None:
    """Forget the moves of RLlib's env pre-check (it samples one action without the mask)."""

    def reset(runner: Any) -> None:
        for env in _envs(runner):
            env.illegal_moves = 0
            env.steps_taken = 0

    algo.env_runner_group.foreach_env_runner(reset, local_env_runner=True)


def train_rllib(config: RLlibTrainConfig, command: list[str] | None = None) -> Path:
    """Run (or resume) one RLlib training; return the run folder."""
    from torch.utils.tensorboard import SummaryWriter

    for name in SB3_ONLY:
        if getattr(config, name):
            raise ConfigError(
                f"--{name.replace('_', '-')} is for the sb3 backend; the rllib backend has none"
            )
    if config.num_env_runners < 0 or config.num_learners < 0:
        raise ConfigError("num_env_runners and num_learners must be 0 or more")
    if not config.opponents and config.learner_share < 1.0 and not config.self_play:
        config.learner_share = 1.0  # no league to seat: every seat is the learner
    resolved, training = ppo_settings(config)
    game = make_game(config.env, config.num_players, config.options)
    scale = game.observation_spec.scale()
    meta = {"env": config.env, "num_players": game.num_seats, "options": config.options, "backend": "rllib"}
    run, state = _open_run(config, game, resolved, training, command)
    _start_ray(config.address)
    torch.set_num_threads(1)  # small networks: threads cost more than they bring on few cores
    algo = build_algo(config, training)
    try:
        _reset_counters(algo)
        if config.resume:
            algo.restore_from_path(str((run / "checkpoint").resolve()))
            for path in state["snapshots"]:
                push_snapshot(algo, load_model(run / path), config.pool_size)
        return _loop(config, algo, game, scale, meta, run, state, SummaryWriter(str(run / "tensorboard")))
    finally:
        algo.stop()


def _open_run(
    config: RLlibTrainConfig,
    game: Any,
    resolved: dict[str, Any],
    training: dict[str, Any],
    command: list[str] | None,
) -> tuple[Path, dict[str, Any]]:
    """The run folder (a new one, or the one to resume) and its state; its settings saved in it."""
    import ray

    if config.resume:
        run = Path(config.resume)
        if not (run / "checkpoint").is_dir() or not (run / "state.json").exists():
            raise ConfigError(f"{run} is not a run folder of the rllib backend with a checkpoint")
        state = json.loads((run / "state.json").read_text())
    else:
        run = new_run(config, game, "-rllib")
        state = {"steps": 0, "curve": [], "snapshots": [], "seconds": 0.0}
    name = "config-resume.yaml" if config.resume else "config.yaml"
    save_config(
        run,
        config,
        game,
        resolved,
        command,
        name,
        backend="rllib",
        rllib_training=training,
        versions={**versions(), "ray": ray.__version__},
    )
    return run, state


def _start_ray(address: str | None) -> None:
    """Ray, unless it runs already: a local one, or the cluster at ``address``."""
    import ray

    if ray.is_initialized():
        return
    if address and address.startswith("ray://"):
        ray.init(address=address)  # Ray Client: the cluster's own settings stand
    else:
        ray.init(address=address, include_dashboard=False, log_to_driver=False, logging_level="ERROR")


def _loop(
    config: RLlibTrainConfig,
    algo: Any,
    game: Any,
    scale: np.ndarray,
    meta: dict[str, Any],
    run: Path,
    state: dict[str, Any],
    writer: Any,
) -> Path:
    """Train until ``config.timesteps``, each iteration reported to the run's :class:`Progress`."""
    steps = start = int(state["steps"])
    # RLlib's lifetime count comes back with a checkpoint (or not): count from where it stands now.
    lifetime = ("env_runners", "num_env_steps_sampled_lifetime")
    counted = int(algo.metrics.peek(lifetime, default=0))

    def policy(at: int) -> PolicyValueNet:
        # from the learners (in the driver or remote actors): they hold the newest weights
        weights = algo.learner_group.get_weights(module_ids=[POLICY_ID])[POLICY_ID]
        return export_weights(weights, scale, {**meta, "timesteps": at})

    progress = _progress(config, algo, game, run, state, writer, policy)
    progress.start()
    bar = None
    if config.progress_bar:
        from tqdm import tqdm

        bar = tqdm(total=config.timesteps, initial=steps, desc="rllib ppo", unit="step")
    timing = LoopTiming(float(state.get("seconds", 0.0)))
    while steps < config.timesteps:
        result = timing.train(algo)
        steps = start + _sampled(result) - counted
        _log_iteration(writer, result, steps, (steps - start) / timing.seconds if timing.seconds else 0.0)
        if bar is not None:
            bar.update(steps - bar.n)
        progress.after(steps)
    if bar is not None:
        bar.close()
    progress.finish(steps)
    state["seconds"] = timing.seconds
    _save(algo, run, state, steps)
    policy(steps).save(run / "policy.npz")
    _write_summary(run, algo, steps, steps - start, timing)
    writer.close()
    return run


def _progress(
    config: RLlibTrainConfig,
    algo: Any,
    game: Any,
    run: Path,
    state: dict[str, Any],
    writer: Any,
    policy: Callable[[int], PolicyValueNet],
) -> Progress:
    """The run's :class:`Progress`, from its state: snapshots saved in ``snapshots/`` and pushed to every
    env runner, checkpoints in ``checkpoint/`` and ``state.json``, figures to TensorBoard."""

    def add_snapshot(snapshot: PolicyValueNet, steps: int) -> None:
        path = f"snapshots/step-{steps:09d}.npz"
        (run / "snapshots").mkdir(exist_ok=True)
        snapshot.save(run / path)
        state["snapshots"].append(path)
        push_snapshot(algo, snapshot, config.pool_size)

    def checkpoint(steps: int) -> None:
        state["checkpoints"] = steps // config.checkpoint_every
        _save(algo, run, state, steps)

    return Progress(
        config,
        game,
        run,
        policy,
        writer.add_scalar,
        add_snapshot=add_snapshot,
        checkpoint=checkpoint,
        checkpoint_every=config.checkpoint_every,
        steps=int(state["steps"]),
        curve=state["curve"],
        snapshots=len(state["snapshots"]),
        checkpoints=state.get("checkpoints", 0),
    )


def _save(algo: Any, run: Path, state: dict[str, Any], steps: int) -> None:
    """RLlib's checkpoint, and ``state.json`` (steps, curve, snapshots, time) beside it."""
    algo.save_to_path(str((run / "checkpoint").resolve()))
    state["steps"] = steps
    (run / "state.json").write_text(json.dumps(state, indent=1) + "\n")


@dataclass
class LoopTiming:
    """Where the training loop's time goes, in seconds."""

    seconds: float = 0.0
    """In RLlib's iterations, this session and the ones it resumes."""
    sampling: float = 0.0
    """Sampling the envs, this session (RLlib's timer)."""
    learning: float = 0.0
    """Updating the network, this session (RLlib's timer)."""
    began: float = field(default_factory=time.time)
    """When this session's loop began (wall clock)."""

    def train(self, algo: Any) -> dict[str, Any]:
        """One RLlib iteration, timed; its result."""
        tick = time.time()
        result: dict[str, Any] = algo.train()
        self.seconds += time.time() - tick
        timers = result.get("timers", {})
        self.sampling += float(timers.get("env_runner_sampling_timer", 0.0))
        self.learning += float(timers.get("learner_update_timer", 0.0))
        return result


def _sampled(result: dict[str, Any]) -> int:
    """The env steps RLlib has sampled in its lifetime, from an iteration's result."""
    runners = result.get("env_runners", {})
    if "num_env_steps_sampled_lifetime" not in runners:
        raise RuntimeError(
            "the env runners returned no samples: an env runner failed (its error is in Ray's "
            "worker logs, /tmp/ray/session_latest/logs/worker-*.err on its node)"
        )
    return int(runners["num_env_steps_sampled_lifetime"])


def _log_iteration(writer: Any, result: dict[str, Any], steps: int, steps_per_second: float) -> None:
    """An iteration's losses, episode figures and speed, to TensorBoard."""
    stats = result.get("learners", {}).get(POLICY_ID, {})
    for key in ("policy_loss", "vf_loss", "entropy", "mean_kl_loss"):
        if key in stats:
            writer.add_scalar(f"train/{key}", float(stats[key]), steps)
    runners = result.get("env_runners", {})
    if "episode_return_mean" in runners:
        writer.add_scalar("rollout/episode_return_mean", float(runners["episode_return_mean"]), steps)
        writer.add_scalar("rollout/episode_len_mean", float(runners["episode_len_mean"]), steps)
    writer.add_scalar("time/steps_per_second", steps_per_second, steps)


def _write_summary(run: Path, algo: Any, steps: int, sampled: int, timing: LoopTiming) -> None:
    """``cluster.json``: the session's steps and times, and which node each env runner ran on."""
    report = runner_report(algo)
    summary = {
        "steps": steps,
        "steps_this_session": sampled,
        "seconds_training_loop": round(timing.seconds, 2),
        "steps_per_second": round(sampled / timing.seconds, 1) if timing.seconds else None,
        "seconds_sampling": round(timing.sampling, 2),
        "sampled_steps_per_second": round(sampled / timing.sampling, 1) if timing.sampling else None,
        "seconds_learning": round(timing.learning, 2),
        "seconds_wall_with_evaluation": round(time.time() - timing.began, 2),
        "illegal_moves": sum(row["illegal_moves"] for row in report),
        "env_runners": report,
        "nodes": sorted({row["node_id"] for row in report}),
    }
    (run / "cluster.json").write_text(json.dumps(summary, indent=2) + "\n")
