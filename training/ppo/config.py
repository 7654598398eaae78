"""The settings of ``tablezoo train`` and its run folder, shared by both PPO backends.

:class:`TrainConfig` is every setting of a run (the SB3 backend's, :mod:`tablezoo.training.ppo.sb3`;
the RLlib backend extends it, :class:`~tablezoo.training.rllib.backend.RLlibTrainConfig`);
``hyperparams.yml`` beside this module holds MaskablePPO's hyperparameters keyed by env id
(:func:`resolve_hyperparams`); :func:`new_run` and :func:`save_config` make a run's folder and
write its provenance (every setting, the command and the package versions). Importing this
module imports neither torch nor stable-baselines3.
"""

from __future__ import annotations

import importlib
import json
import platform
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from tablezoo.envs.names import env_module
from tablezoo.evaluation.cli_args import GAME_HELP, players_setting
from tablezoo.games.core import ConfigError, Game, TablezooError
from tablezoo.games.settings import setting

HYPERPARAMS = Path(__file__).resolve().parent / "hyperparams.yml"


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


@dataclass
class TrainConfig:
    """Everything a training run needs; saved with the run. Each field is a ``tablezoo train`` flag
    (:mod:`tablezoo.games.settings`; ``help`` is the flag's text)."""

    env: str = setting("heckmeck_v0", positional=True, convert=env_module, metavar="GAME", help=GAME_HELP)
    """Environment module, ``tablezoo.envs.<env>``."""
    num_players: int | None = players_setting()
    """Seats (default: the game's default)."""
    options: list[str] = setting(factory=list, flag="option", action="append", help="switch on a game option")
    """Game options switched on."""
    timesteps: int = setting(200_000, help="learner decisions to train for")
    """Learner decisions to train for."""
    opponents: list[str] = setting(factory=lambda: ["random"], help="bot names drawn for opponent seats")
    """Bot names drawn for each opponent seat, each episode."""
    self_play: float = setting(0.0, help="share of opponents from the pool")
    """Probability that an opponent seat is a frozen earlier learner instead (0: none)."""
    snapshot_every: int = setting(25_000, help="steps between pool snapshots")
    """Steps between snapshots added to the self-play pool."""
    eval_every: int = setting(25_000, help="steps between evaluations")
    """Steps between evaluations for the learning curve (0: only at the end)."""
    eval_games: int = setting(100, help="games per evaluation")
    """Games per evaluation and opponent."""
    eval_against: list[str] = setting(
        factory=lambda: ["random", "heuristic"], help="bots to evaluate against"
    )
    """Bots to evaluate against (every other seat plays that bot)."""
    reward: str = setting("zero_sum", choices=("zero_sum", "score"), help="reward mode")
    """``zero_sum`` (win/lose at the end) or ``score`` (game points as they come)."""
    seed: int = setting(0, help="seed of everything random")
    """Seed of the environments, the opponents, the network and the evaluations."""
    teacher: str | None = setting(None, help="bot to imitate before PPO (behaviour cloning)")
    """Bot whose moves the policy imitates before PPO starts (behaviour cloning; none: start fresh)."""
    teacher_decisions: int = setting(50_000, help="teacher decisions to record")
    """Teacher decisions to record at the learner's seat, in whole games."""
    teacher_epochs: int = setting(10, help="passes over the teacher's decisions")
    """Passes over the teacher's decisions."""
    teacher_data: str | None = setting(None, help="teacher.npz of an earlier run to imitate")
    """A ``teacher.npz`` of an earlier run to imitate instead of recording anew."""
    init_from: str | None = setting(None, help="model.zip of an earlier run to start from")
    """``model.zip`` of an earlier run to start from (same game, seats and network sizes)."""
    hyperparams: str = setting(str(HYPERPARAMS), help="YAML of hyperparameters keyed by env id")
    """YAML file of MaskablePPO hyperparameters keyed by env id."""
    hp: dict[str, Any] = setting(
        factory=dict,
        action="append",
        metavar="KEY=VALUE",
        read=parse_hp,
        help="override one hyperparameter of the YAML entry (repeatable), e.g. --hp gamma=0.999",
    )
    """Hyperparameters that override the YAML entry (``--hp gamma=0.999``; ``None`` drops a key)."""
    out: str = setting("runs", help="parent folder of the run folder")
    """Parent folder of the run folder."""
    progress_bar: bool = setting(True, flag="no_progress_bar", action="store_false", help="")
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


def versions() -> dict[str, str]:
    """The versions of Python and of the packages a run depends on (its provenance)."""
    versions = {"python": platform.python_version()}
    for name in ("numpy", "gymnasium", "pettingzoo", "torch", "stable_baselines3", "sb3_contrib"):
        try:
            versions[name] = str(importlib.import_module(name).__version__)
        except ImportError:
            versions[name] = "missing"
    return versions
