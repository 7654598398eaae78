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
:mod:`tablezoo.training.imitate`; ``imitation.json`` reports how closely the
clone agrees with its teacher). ``init_from`` continues an earlier run instead.

A run writes into its folder: ``config.yaml`` (every setting, the seed, the
command and the package versions), TensorBoard logs, ``curve.csv`` and
``curve.png`` (the win rate against each evaluation opponent as training goes
on, with 95% intervals), ``model.zip`` (the stable-baselines3 model) and
``policy.npz`` (the actor for numpy alone: what ``--bot path/to/policy.npz``
and the shipped agents use).

``tablezoo train`` (:func:`add_train_parser`, :func:`cmd_train`) runs one from the
command line, here or, with ``--backend rllib``, on Ray RLlib
(:mod:`tablezoo.training.rllib_backend`):

    tablezoo train heckmeck_v0 --players 2 --timesteps 200000 --opponents heuristic random
    tablezoo train diamant_v0 --players 4 --backend rllib --num-env-runners 2 --opponents heuristic

Training needs the ``train`` extra (torch, stable-baselines3, sb3-contrib); the
module imports them only where it trains, so the command line is built on the
core install.
"""

from __future__ import annotations

import argparse
import csv
import importlib
import json
import os
import platform
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np

from tablezoo.bots.core import Bot, Seat
from tablezoo.bots.net import PolicyValueNet
from tablezoo.bots.policy import PolicyBot
from tablezoo.bots.registry import make_bot
from tablezoo.games.core import ConfigError, Game, TablezooError
from tablezoo.training.progress import Progress
from tablezoo.wrappers.single_agent import SingleAgentEnv

HYPERPARAMS = Path(__file__).resolve().parent / "hyperparams.yml"


@dataclass
class TrainConfig:
    """Everything a training run needs; saved with the run."""

    env: str = "heckmeck_v0"
    """Environment module, ``tablezoo.envs.<env>``."""
    num_players: int | None = None
    """Seats (default: the game's default)."""
    options: list[str] = field(default_factory=list)
    """Game options switched on."""
    timesteps: int = 200_000
    """Learner decisions to train for."""
    opponents: list[str] = field(default_factory=lambda: ["random"])
    """Bot names drawn for each opponent seat, each episode."""
    self_play: float = 0.0
    """Probability that an opponent seat is a frozen earlier learner instead (0: none)."""
    snapshot_every: int = 25_000
    """Steps between snapshots added to the self-play pool."""
    eval_every: int = 25_000
    """Steps between evaluations for the learning curve (0: only at the end)."""
    eval_games: int = 100
    """Games per evaluation and opponent."""
    eval_against: list[str] = field(default_factory=lambda: ["random", "heuristic"])
    """Bots to evaluate against (every other seat plays that bot)."""
    reward: str = "zero_sum"
    """``zero_sum`` (win/lose at the end) or ``score`` (game points as they come)."""
    seed: int = 0
    """Seed of the environments, the opponents, the network and the evaluations."""
    teacher: str | None = None
    """Bot whose moves the policy imitates before PPO starts (behaviour cloning; none: start fresh)."""
    teacher_decisions: int = 50_000
    """Teacher decisions to record at the learner's seat, in whole games."""
    teacher_epochs: int = 10
    """Passes over the teacher's decisions."""
    teacher_data: str | None = None
    """A ``teacher.npz`` of an earlier run to imitate instead of recording anew."""
    init_from: str | None = None
    """``model.zip`` of an earlier run to start from (same game, seats and network sizes)."""
    hyperparams: str = str(HYPERPARAMS)
    """YAML file of MaskablePPO hyperparameters keyed by env id."""
    hp: dict[str, Any] = field(default_factory=dict)
    """Hyperparameters that override the YAML entry (``--hp gamma=0.999``; ``None`` drops a key)."""
    out: str = "runs"
    """Parent folder of the run folder."""
    progress_bar: bool = True
    """Show a progress bar (tqdm + rich)."""

    @property
    def game_name(self) -> str:
        return self.env.rsplit("_v", 1)[0]


def load_hyperparams(path: str | Path, env: str) -> dict[str, Any]:
    """The ``default`` entry of the YAML file updated with the environment's own entry."""
    import yaml

    with open(path) as f:
        table = yaml.safe_load(f) or {}
    if "default" not in table and env not in table:
        raise ConfigError(f"{path} has no 'default' and no {env!r} entry")
    return {**(table.get("default") or {}), **(table.get(env) or {})}


EXTRA_HYPERPARAMS = {"n_envs": 4, "net_arch": [128, 128], "action_head": None}
"""Keys of ours beside MaskablePPO's own, with their values when no entry gives them."""


def resolve_hyperparams(path: str | Path, env: str, hp: dict[str, Any] | None = None) -> dict[str, Any]:
    """Every hyperparameter of a run: the YAML entry, then the ``hp`` overrides (``None`` drops a key,
    back to its default), with ``n_envs`` and ``net_arch`` filled in (``action_head`` only when set).

    Raises :class:`ConfigError` naming a key that neither MaskablePPO nor we take.
    """
    params = {k: v for k, v in {**load_hyperparams(path, env), **(hp or {})}.items() if v is not None}
    params = {**{k: v for k, v in EXTRA_HYPERPARAMS.items() if v is not None}, **params}
    allowed = set(EXTRA_HYPERPARAMS) | _ppo_keys()
    unknown = sorted(set(params) - allowed)
    if unknown:
        raise ConfigError(
            f"unknown hyperparameter {', '.join(map(repr, unknown))}; allowed: {', '.join(sorted(allowed))}"
        )
    return params


def _ppo_keys() -> set[str]:
    """The keyword arguments of MaskablePPO a hyperparameter entry may set."""
    import inspect

    from sb3_contrib import MaskablePPO

    fixed = {
        "self",
        "policy",
        "env",
        "seed",
        "verbose",
        "tensorboard_log",
        "policy_kwargs",
        "device",
        "_init_setup_model",
    }
    return set(inspect.signature(MaskablePPO.__init__).parameters) - fixed


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


def make_game(config: TrainConfig) -> Game[Any]:
    module = importlib.import_module(f"tablezoo.envs.{config.env}")
    return module.raw_env(num_players=config.num_players, **dict.fromkeys(config.options, True)).game


def train(config: TrainConfig, command: list[str] | None = None) -> Path:
    """Run one training; return the run folder."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv, VecMonitor

    resolved = resolve_hyperparams(config.hyperparams, config.env, config.hp)
    params = dict(resolved)
    n_envs = int(params.pop("n_envs"))
    game = make_game(config)
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


def new_run(config: TrainConfig, game: Game[Any], suffix: str = "") -> Path:
    """A new run folder in ``config.out``, named after the env, the seats, the time and the seed
    (``-2``, ``-3``, ... after it where a run of the same second has the name already)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    name = f"{config.env}-{game.num_seats}p-{stamp}-s{config.seed}{suffix}"
    Path(config.out).mkdir(parents=True, exist_ok=True)
    run, k = Path(config.out) / name, 1
    while True:
        try:
            run.mkdir()
            return run
        except FileExistsError:
            k += 1
            run = Path(config.out) / f"{name}-{k}"


def save_config(
    run: Path,
    config: TrainConfig,
    game: Game[Any],
    resolved: dict[str, Any],
    command: list[str] | None,
    name: str = "config.yaml",
    **extra: Any,
) -> None:
    """``name`` in the run folder: every setting, the seats, the resolved hyperparameters, the
    command and the package versions (the run's provenance), and a backend's ``extra`` entries."""
    saved = {
        **asdict(config),
        "num_players": game.num_seats,
        "resolved_hyperparams": resolved,
        "command": command or sys.argv,
        "versions": versions(),
        **extra,
    }
    import yaml

    (run / name).write_text(yaml.safe_dump(saved, sort_keys=False))


def _policy_class(game: Game[Any], net_arch: Any, action_head: int | None) -> tuple[Any, dict[str, Any]]:
    """MaskablePPO's policy and its keyword arguments: an MLP of ``net_arch``, with an action head if set."""
    policy_kwargs: dict[str, Any] = {"net_arch": net_arch}
    if not action_head:
        return "MlpPolicy", policy_kwargs
    from tablezoo.training.sb3_policy import ActionFieldPolicy, action_head_kwargs

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
    """Behaviour cloning of the teacher (see :mod:`tablezoo.training.imitate`); writes ``imitation.json``."""
    from tablezoo.training.imitate import Demonstrations, agreement, clone, collect

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


def versions() -> dict[str, str]:
    """The versions of Python and of the packages a run depends on (its provenance)."""
    versions = {"python": platform.python_version()}
    for name in ("numpy", "gymnasium", "pettingzoo", "torch", "stable_baselines3", "sb3_contrib"):
        try:
            versions[name] = str(importlib.import_module(name).__version__)
        except ImportError:
            versions[name] = "missing"
    return versions


RLLIB_ONLY = ("learner_share", "pool_size", "address", "num_env_runners", "num_learners", "checkpoint_every")
"""Settings of ``train --backend rllib`` only (``resume`` and ``max_cycles`` too, see :func:`cmd_train`)."""


def cmd_train(args: argparse.Namespace) -> None:
    """Train as the command line says, then print the last evaluation and where the run is."""
    command = ["tablezoo", *sys.argv[1:]]
    if args.backend == "rllib":
        run = _train_rllib(args, command)
    else:
        given = [k for k in (*RLLIB_ONLY, "resume", "max_cycles") if getattr(args, k) is not None]
        if given:
            flags = ", ".join("--" + k.replace("_", "-") for k in given)
            raise TablezooError(f"{flags}: only for --backend rllib")
        known = {f.name for f in fields(TrainConfig)}
        settings = {k: v for k, v in vars(args).items() if k in known and v is not None}
        settings["hp"] = parse_hp(args.hp)
        config = TrainConfig(**settings)
        run = train(config, command=command)
    rows = list(csv.DictReader((run / "curve.csv").open()))
    last = rows[-1]["step"]
    print(f"after {last} learner decisions, the agent at one seat (rotated) against the others:")
    print(f"{'opponents':<12}{'win rate':>10}{'95% CI':>18}")
    for row in (r for r in rows if r["step"] == last):
        ci = f"[{float(row['low']):.3f}, {float(row['high']):.3f}]"
        print(f"{row['against']:<12}{float(row['win_rate']):>10.3f}{ci:>18}")
    model = "checkpoint/ (RLlib), cluster.json" if args.backend == "rllib" else "model.zip"
    print(f"run saved in {run}: policy.npz, {model}, config.yaml, curve.csv, curve.png (learning curve)")


def _train_rllib(args: argparse.Namespace, command: list[str]) -> Any:
    """``train --backend rllib``: a new run, or ``--resume RUN`` (its saved settings, then the flags)."""
    try:
        from tablezoo.training.rllib_backend import RLlibTrainConfig, train_rllib
    except ImportError as err:
        raise TablezooError(
            f"--backend rllib needs the rllib extra (pip install 'tablezoo[train,rllib]'): {err}"
        ) from None
    import yaml

    known = {f.name for f in fields(RLlibTrainConfig)}
    settings = {k: v for k, v in vars(args).items() if k in known and v is not None and v != []}
    if args.hp:
        settings["hp"] = parse_hp(args.hp)
    if args.resume:
        path = os.path.join(args.resume, "config.yaml")
        if not os.path.exists(path):
            raise TablezooError(f"--resume {args.resume}: no config.yaml there (not a run folder)")
        with open(path) as f:
            saved = {k: v for k, v in yaml.safe_load(f).items() if k in known}
        if saved.get("env") != args.env:
            raise TablezooError(f"--resume {args.resume} is a run of {saved.get('env')}, not of {args.env}")
        settings = {**saved, **settings}
    return train_rllib(RLlibTrainConfig(**settings), command=command)


def parse_hp(items: Sequence[str]) -> dict[str, Any]:
    """``--hp KEY=VALUE`` overrides as a dict; each value is read as JSON, else as YAML
    (``0.999``, ``1e-5``, ``[256, 64]``, ``null``, ``true``, ``linear``)."""
    import yaml

    hp = {}
    for item in items:
        key, eq, text = item.partition("=")
        key = key.strip()
        if not eq or not key:
            raise TablezooError(f"--hp takes KEY=VALUE (e.g. --hp gamma=0.999), not {item!r}")
        try:
            hp[key] = json.loads(text)
        except ValueError:
            try:
                hp[key] = yaml.safe_load(text)
            except yaml.YAMLError as err:
                raise TablezooError(f"--hp {key}: {text!r} is not a value ({err})") from None
    return hp


def add_train_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``tablezoo train`` to the sub-commands of the command line."""
    t = subparsers.add_parser(
        "train", help="train a PPO agent (needs the train extra; --backend rllib the rllib extra)"
    )
    t.add_argument("env", help="environment module, e.g. heckmeck_v0")
    t.add_argument("--players", dest="num_players", type=int, default=None, help="seat count")
    t.add_argument("--option", dest="options", action="append", default=[], help="switch on a game option")
    t.add_argument("--timesteps", type=int, default=None, help="learner decisions to train for")
    t.add_argument("--opponents", nargs="+", default=None, help="bot names drawn for opponent seats")
    t.add_argument("--self-play", type=float, default=None, help="share of opponents from the pool")
    t.add_argument("--snapshot-every", type=int, default=None, help="steps between pool snapshots")
    t.add_argument("--eval-every", type=int, default=None, help="steps between evaluations")
    t.add_argument("--eval-games", type=int, default=None, help="games per evaluation")
    t.add_argument("--eval-against", nargs="+", default=None, help="bots to evaluate against")
    t.add_argument("--reward", choices=["zero_sum", "score"], default=None, help="reward mode")
    t.add_argument("--seed", type=int, default=None, help="seed of everything random")
    t.add_argument("--teacher", default=None, help="bot to imitate before PPO (behaviour cloning)")
    t.add_argument("--teacher-decisions", type=int, default=None, help="teacher decisions to record")
    t.add_argument("--teacher-epochs", type=int, default=None, help="passes over the teacher's decisions")
    t.add_argument("--teacher-data", default=None, help="teacher.npz of an earlier run to imitate")
    t.add_argument("--init-from", default=None, help="model.zip of an earlier run to start from")
    t.add_argument("--hyperparams", default=None, help="YAML of hyperparameters keyed by env id")
    t.add_argument(
        "--hp",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override one hyperparameter of the YAML entry (repeatable), e.g. --hp gamma=0.999",
    )
    t.add_argument("--out", default=None, help="parent folder of the run folder")
    t.add_argument("--no-progress-bar", dest="progress_bar", action="store_false", default=None)
    _rllib_args(t)
    t.set_defaults(func=cmd_train)
    return t


def _rllib_args(parser: argparse.ArgumentParser) -> None:
    """The group of ``train``'s flags that choose the backend and set up RLlib's."""
    r = parser.add_argument_group("RLlib backend (--backend rllib, needs the rllib extra)")
    r.add_argument(
        "--backend",
        choices=["sb3", "rllib"],
        default="sb3",
        help="sb3: MaskablePPO in one process; rllib: multi-agent self-play PPO on Ray (laptop or cluster)",
    )
    r.add_argument("--address", default=None, help="Ray cluster to join: auto, HOST:PORT or ray://HOST:10001")
    r.add_argument("--num-env-runners", type=int, default=None, help="actors sampling the envs (default 1)")
    r.add_argument("--num-learners", type=int, default=None, help="actors updating the network (default 0)")
    r.add_argument("--learner-share", type=float, default=None, help="chance another seat is the learner too")
    r.add_argument("--pool-size", type=int, default=None, help="newest snapshots kept in the league")
    r.add_argument("--checkpoint-every", type=int, default=None, help="steps between RLlib checkpoints")
    r.add_argument("--resume", default=None, help="run folder to continue up to --timesteps in all")
    r.add_argument("--max-cycles", type=int, default=None, help="decisions after which an episode is cut")
