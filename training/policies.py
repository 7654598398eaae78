"""Any policy as a bot: what :func:`tablezoo.training.benchmark.evaluate` and ``tablezoo benchmark`` score.

    from tablezoo.training.policies import as_bot

    bot = as_bot("runs/ppo/model.zip", game)          # then play it like any bot

What ``policy`` may be, and how it is read:

- a :class:`~tablezoo.bots.core.Bot`: itself;
- a bot name (``"heuristic"``, ``"agent:search=32"``) or a ``.npz`` path:
  :func:`~tablezoo.bots.registry.make_bot`;
- a callable ``(observation, mask) -> action`` (or an output per action);
- a ``torch.nn.Module``, or a ``.pt`` file it was saved to whole (``torch.save(module,
  path)``): its output, logits or Q-values (the first of a tuple; ``logits`` or
  ``action_dist_inputs`` of a dict);
- a stable-baselines3 model, or its ``.zip``: its policy's logits (PPO, MaskablePPO,
  A2C) or Q-values (DQN, QR-DQN);
- an RLlib checkpoint folder (an algorithm's, a module's, or a run folder with
  ``checkpoint/``): the RL module's ``forward_inference``;
- an ``.onnx`` file, with ONNX Runtime (the ``export`` extra): its ``logits`` output, or its
  first output; a second input, if any, is fed the mask.

Every one of them plays greedily: the legal action with the highest output (the
first one on ties). No policy ever plays an illegal move: the mask is applied
after the policy's own output.

**Which observation.** A policy reads either the plain observation of its seat
count (:attr:`Game.observation_spec`) or the padded one that every seat count
shares (:attr:`Game.padded_spec`, the seat count one-hot), each raw or scaled
into 0..1 (divided by each field's bound, as ``scale_observations=True``
gives). Nothing is guessed: the layout and the scaling come from the policy
where it declares them, from the caller otherwise, and a policy fed neither is
refused with a message that names both ways.

- *Declared by the policy.* An SB3 model's or an RLlib module's observation
  space (the layout by its size, scaling where the space is bounded by 1); an
  ONNX file's metadata (``tablezoo.observation`` and ``tablezoo.scaled``, which
  ``tablezoo export`` writes: its graphs read the raw observation); a torch
  module's or a callable's attributes :data:`OBSERVATION_ATTR` (``"plain"`` or
  ``"padded"``) and :data:`SCALED_ATTR` (a bool).
- *Told by the caller.* ``observation="plain"`` or ``"padded"`` and
  ``scaled=True/False`` (``--observation``, ``--scaled`` or ``--raw`` on the
  command line), for a policy that declares nothing. A torch module's first
  ``Linear`` or a callable's ``observation_size`` gives the layout by its size.
- A setting the caller gives that contradicts the policy's declaration is
  refused, as is a size that is neither layout's (both sizes named) and a
  policy trained for another number of actions.

The bot's :attr:`FunctionBot.reading` says what it reads and who said so
(:meth:`Reading.as_dict`); benchmark results record it.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from tablezoo.bots.core import Bot, Seat
from tablezoo.bots.registry import make_bot
from tablezoo.games.core import ConfigError, Game

Layout = Literal["auto", "plain", "padded"]
Decide = Callable[[np.ndarray, np.ndarray], Any]
"""One observation (as the policy reads it) and the 0/1 mask -> the policy's outputs per action,
or an action id."""

_EXPORT = "pip install 'tablezoo[export]'"
_TRAIN = "pip install torch==2.13.0 'tablezoo[train]'"


OBSERVATION_ATTR = "tablezoo_observation"
"""The attribute of a torch module or a callable that declares the layout it reads: ``"plain"`` or
``"padded"`` (it is pickled with a module saved whole)."""
SCALED_ATTR = "tablezoo_scaled"
"""The attribute of a torch module or a callable that declares whether it reads the observation
scaled into 0..1 (True) or raw (False)."""
FLAGS = (
    "say what it reads: observation='plain'|'padded' and scaled=True|False "
    "(on the command line --observation plain|padded and --scaled or --raw), "
    f"or set its attributes {OBSERVATION_ATTR} and {SCALED_ATTR}"
)
"""The ways to tell a policy's input, named in every refusal."""


@dataclass(frozen=True)
class Reading:
    """How a policy reads a seat: the layout and the scaling of its observation, and who said so."""

    padded: bool = False
    scaled: bool = False
    source: str = "caller"
    """Who declared the reading: the policy (its space, metadata or attributes) or the caller."""

    @property
    def observation(self) -> str:
        """The layout's name: ``"plain"`` or ``"padded"``."""
        return "padded" if self.padded else "plain"

    def as_dict(self) -> dict[str, Any]:
        """The reading as a result records it."""
        return {"observation": self.observation, "scaled": self.scaled, "declared_by": self.source}

    @classmethod
    def fit(
        cls,
        game: Game[Any],
        size: int | None,
        what: str,
        observation: str = "auto",
        scaled: bool | None = None,
        unit_bounds: bool | None = None,
        declared: tuple[str | None, bool | None] = (None, None),
        source: str = "the policy",
    ) -> Reading:
        """The reading of a policy whose input has ``size`` entries (None: undeclared).

        ``unit_bounds``: whether the policy's declared space is bounded by 1 (trained on scaled
        input; None: it has no space). ``declared``: the layout and the scaling the policy states
        itself (its metadata or attributes), ``source`` where those come from. ``observation``
        and ``scaled`` are the caller's; either may only agree with what the policy declares.
        """
        plain, padded = game.observation_spec.size, game.padded_spec.size
        if observation not in ("auto", "plain", "padded"):
            raise ConfigError(f"observation is 'auto', 'plain' or 'padded', not {observation!r}")
        own_layout, own_scaled = declared
        if own_layout is not None and own_layout not in ("plain", "padded"):
            raise ConfigError(f"{what} declares the layout {own_layout!r}: it is 'plain' or 'padded'")
        if own_scaled is None and unit_bounds is not None:
            own_scaled = unit_bounds
        by_size = None
        if size is not None:
            if size == plain:
                by_size = "plain"
            elif size == padded:
                by_size = "padded"
            else:
                raise ConfigError(
                    f"{what} reads observations of {size} entries; {game!r} gives {plain} "
                    f"(plain) or {padded} (padded, every seat count)"
                )
        layout = own_layout or by_size
        if own_layout is not None and by_size is not None and own_layout != by_size:
            raise ConfigError(f"{what} declares the {own_layout} layout but reads {size} entries")
        if observation != "auto":
            if layout is not None and layout != observation:
                raise ConfigError(
                    f"{what} reads the {layout} observation ({source if own_layout else 'by its size'}); "
                    f"observation={observation!r} contradicts it"
                )
            layout = observation
        if scaled is not None and own_scaled is not None and scaled != own_scaled:
            raise ConfigError(
                f"{what} reads the observation {'scaled' if own_scaled else 'raw'} ({source}); "
                f"scaled={scaled} contradicts it"
            )
        final_scaled = own_scaled if own_scaled is not None else scaled
        if layout is None or final_scaled is None:
            missing = " and ".join(
                w for w, m in (("layout", layout is None), ("scaling", final_scaled is None)) if m
            )
            raise ConfigError(f"{what} does not declare the {missing} of the observation it reads: {FLAGS}")
        sized_by_space = by_size is not None and unit_bounds is not None  # a space's size is its declaration
        layout_by = source if own_layout or sized_by_space else "its input size" if by_size else "caller"
        scaled_by = source if own_scaled is not None else "caller"
        said = layout_by if layout_by == scaled_by else f"layout: {layout_by}; scaling: {scaled_by}"
        return cls(layout == "padded", bool(final_scaled), said)

    def read(self, seat: Seat) -> np.ndarray:
        """``seat``'s observation, float32, as the policy reads it."""
        game = seat.game
        obs = game.pad(seat.observation) if self.padded else seat.observation
        if self.scaled:
            spec = game.padded_spec if self.padded else game.observation_spec
            obs = obs / spec.scale()
        return np.asarray(obs, np.float32)


def _declared(policy: Any) -> tuple[str | None, bool | None]:
    """The layout and the scaling a torch module or a callable states in its attributes."""
    layout = getattr(policy, OBSERVATION_ATTR, None)
    scaled = getattr(policy, SCALED_ATTR, None)
    return (None if layout is None else str(layout)), (None if scaled is None else bool(scaled))


class FunctionBot:
    """A bot that asks ``decide(observation, mask)``: an action id, or an output per action.

    An output per action (logits, Q-values, probabilities) is played greedily among the
    legal actions; an action id must be legal, or the game's own error names the legal ones.
    """

    def __init__(self, decide: Decide, reading: Reading, name: str = "policy") -> None:
        self.decide = decide
        self.reading = reading
        self.name = name

    def reset(self, seed: int | None = None) -> None:
        """Nothing to reset: a greedy policy has no randomness of its own."""

    def act(self, seat: Seat) -> int:
        out = np.asarray(self.decide(self.reading.read(seat), seat.mask.astype(np.float32)))
        if out.size == 1 and seat.game.num_actions != 1:  # an action id
            return int(out.reshape(()))
        values = out.reshape(-1).astype(np.float64)
        if values.size != seat.game.num_actions:
            raise ConfigError(
                f"{self.name} answered {values.size} outputs; "
                f"{seat.game!r} has {seat.game.num_actions} actions"
            )
        return int(np.argmax(np.where(seat.mask > 0, values, -np.inf)))


def as_bot(
    policy: Any,
    game: Game[Any],
    name: str | None = None,
    observation: str = "auto",
    scaled: bool | None = None,
) -> Bot:
    """``policy`` (any kind in the module's table) as a bot of ``game``, named ``name``."""
    if isinstance(policy, (str, Path)):
        return _from_path(policy, game, name, observation, scaled)
    if isinstance(policy, Bot):
        return policy
    label = name or type(policy).__name__
    if _is_sb3(policy):
        return _sb3_bot(policy, game, label, observation, scaled)
    if _is_torch(policy):
        return _torch_bot(policy, game, label, observation, scaled)
    if callable(policy):
        size = getattr(policy, "observation_size", None)
        reading = Reading.fit(
            game, size, label, observation, scaled, declared=_declared(policy), source="its attributes"
        )
        return FunctionBot(policy, reading, label)
    kinds = (
        "a Bot, a bot name or file, a callable (observation, mask) -> action, a torch module, an SB3 model"
    )
    raise ConfigError(f"cannot play {type(policy).__name__!r}: a policy is {kinds}")


def policy_name(policy: Any) -> str:
    """A short name for a policy in tables and results: a file's stem, a bot's name, a type's name."""
    if isinstance(policy, (str, Path)):
        text = str(policy)
        return Path(text.partition(":")[0]).name if ("/" in text or "." in text) else text
    return str(getattr(policy, "name", None) or type(policy).__name__)


def _from_path(
    spec: str | Path, game: Game[Any], name: str | None, observation: str, scaled: bool | None
) -> Bot:
    text = str(spec)
    path = Path(text.partition(":")[0])
    label = name or policy_name(spec)
    if path.suffix == ".onnx":
        return _onnx_bot(path, game, label, observation, scaled)
    if path.suffix == ".zip":
        return _sb3_bot(_load_sb3(path), game, label, observation, scaled)
    if path.suffix in (".pt", ".pth"):
        return _torch_bot(_load_torch(path), game, label, observation, scaled)
    if path.is_dir():
        return _rllib_bot(path, game, label, observation, scaled)
    if path.suffix and not path.exists():
        raise ConfigError(f"no policy file {path}")
    try:
        bot = make_bot(text, game)
    except ConfigError as error:
        if not str(error).startswith("no bot"):
            raise
        files = "a .npz, an SB3 .zip, an .onnx file or an RLlib checkpoint folder"
        raise ConfigError(f"{error}; or a policy file: {files}") from None
    if name:
        bot.name = name
    return bot


# --------------------------------------------------------------------------- torch and SB3


def _is_torch(policy: Any) -> bool:
    try:
        import torch
    except ImportError:
        return False
    return isinstance(policy, torch.nn.Module)


def _is_sb3(policy: Any) -> bool:
    try:
        from stable_baselines3.common.base_class import BaseAlgorithm
    except ImportError:
        return False
    return isinstance(policy, BaseAlgorithm)


def _first_linear_size(module: Any) -> int | None:
    import torch

    for layer in module.modules():
        if isinstance(layer, torch.nn.Linear):
            return int(layer.in_features)
    return None


def _torch_output(out: Any) -> Any:
    if isinstance(out, dict):
        for key in ("logits", "action_dist_inputs"):
            if key in out:
                return out[key]
        raise ConfigError(
            f"a torch module's dict output needs 'logits' or 'action_dist_inputs', not {list(out)}"
        )
    return out[0] if isinstance(out, (tuple, list)) else out


def _load_torch(path: Path) -> Any:
    """A whole torch module saved with ``torch.save(module, path)`` (not a state dict: a state dict
    needs its module's class to be read into)."""
    try:
        import torch
    except ImportError:
        raise ConfigError(f"{path} needs torch: {_TRAIN}") from None
    if not path.exists():
        raise ConfigError(f"no model file {path}")
    module = torch.load(path, weights_only=False, map_location="cpu")
    if not isinstance(module, torch.nn.Module):
        kind = type(module).__name__
        raise ConfigError(f"{path} holds a {kind}, not a torch module: save the module itself")
    return module


def _torch_bot(module: Any, game: Game[Any], name: str, observation: str, scaled: bool | None) -> Bot:
    import torch

    reading = Reading.fit(
        game,
        _first_linear_size(module),
        name,
        observation,
        scaled,
        declared=_declared(module),
        source="its attributes",
    )
    module.eval()

    def decide(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            out = _torch_output(module(torch.as_tensor(obs[None])))
        return np.asarray(out.detach().cpu().numpy(), np.float64).reshape(-1)

    return FunctionBot(decide, reading, name)


SB3_ALGORITHMS = {
    "sb3_contrib.common.maskable.policies": ("sb3_contrib", "MaskablePPO"),
    "stable_baselines3.dqn.policies": ("stable_baselines3", "DQN"),
    "sb3_contrib.qrdqn.policies": ("sb3_contrib", "QRDQN"),
    "stable_baselines3.common.policies": ("stable_baselines3", "PPO"),
}
"""The module of a saved model's policy class -> the algorithm that loads it (A2C's loads as PPO:
the same actor-critic policy)."""


def _load_sb3(path: Path) -> Any:
    """A stable-baselines3 model from its ``.zip``, the algorithm read from the file's policy class."""
    import importlib

    if not path.exists():
        raise ConfigError(f"no model file {path}")
    try:
        with zipfile.ZipFile(path) as archive:
            data = json.loads(archive.read("data"))
    except (zipfile.BadZipFile, KeyError, json.JSONDecodeError) as error:
        raise ConfigError(f"{path} is not a stable-baselines3 model ({error})") from None
    module = str(data.get("policy_class", {}).get("__module__", ""))
    for prefix, (package, algorithm) in SB3_ALGORITHMS.items():
        if module.startswith(prefix):
            try:
                cls = getattr(importlib.import_module(package), algorithm)
            except ImportError:
                raise ConfigError(f"{path} needs {package}: {_TRAIN}") from None
            return cls.load(path, device="cpu")
    raise ConfigError(
        f"{path}: no loader for a policy of {module or 'unknown module'}; loads: {', '.join(SB3_ALGORITHMS)}"
    )


def _sb3_bot(model: Any, game: Game[Any], name: str, observation: str, scaled: bool | None) -> Bot:
    import torch

    space = model.observation_space
    if space.shape is None or len(space.shape) != 1:
        raise ConfigError(
            f"{name} reads observations shaped {space.shape}; a tablezoo observation is a vector"
        )
    if int(model.action_space.n) != game.num_actions:
        raise ConfigError(
            f"{name} was trained for {model.action_space.n} actions; {game!r} has {game.num_actions}"
        )
    unit = bool(np.all(np.asarray(space.high) <= 1.0))
    reading = Reading.fit(
        game, int(space.shape[0]), name, observation, scaled, unit_bounds=unit, source="its observation space"
    )
    policy = model.policy
    policy.set_training_mode(False)

    def decide(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        tensor, _ = policy.obs_to_tensor(obs)
        with torch.no_grad():
            if hasattr(policy, "q_net"):
                out = policy.q_net(tensor)
            else:
                out = policy.get_distribution(tensor).distribution.logits
        return np.asarray(out.cpu().numpy(), np.float64).reshape(-1)

    return FunctionBot(decide, reading, name)


# --------------------------------------------------------------------------- RLlib


def _rllib_module_dir(path: Path) -> Path:
    """The RL module folder in ``path``: a run folder, an algorithm checkpoint, or the module's own."""
    if (path / "checkpoint").is_dir():
        path = path / "checkpoint"
    modules = path / "learner_group" / "learner" / "rl_module"
    if modules.is_dir():
        found = sorted(p for p in modules.iterdir() if p.is_dir())
        if len(found) != 1:
            names = ", ".join(p.name for p in found) or "none"
            raise ConfigError(f"{path} holds RL modules {names}: give the folder of the one to play")
        return found[0]
    if (path / "module_state").exists() or (path / "class_and_ctor_args.pkl").exists():
        return path
    raise ConfigError(f"{path} is not an RLlib checkpoint (no learner_group/learner/rl_module inside)")


def _rllib_bot(path: Path, game: Game[Any], name: str, observation: str, scaled: bool | None) -> Bot:
    try:
        import torch
        from ray.rllib.core.rl_module.rl_module import RLModule
    except ImportError:
        raise ConfigError(
            f"an RLlib checkpoint needs ray[rllib]: pip install 'tablezoo[rllib]' ({_TRAIN} first)"
        ) from None
    from tablezoo.wrappers.rllib import MASK_KEY, OBS_KEY

    module = RLModule.from_checkpoint(str(_rllib_module_dir(path).resolve()))
    space = module.observation_space
    keyed = hasattr(space, "spaces") and OBS_KEY in space.spaces
    box = space.spaces[OBS_KEY] if keyed else space
    unit = bool(np.all(np.asarray(box.high) <= 1.0))
    reading = Reading.fit(
        game, int(box.shape[0]), name, observation, scaled, unit_bounds=unit, source="its observation space"
    )

    def decide(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        tensor = torch.as_tensor(obs[None])
        batch = {OBS_KEY: tensor, MASK_KEY: torch.as_tensor(mask[None])} if keyed else tensor
        with torch.no_grad():
            out = module.forward_inference({"obs": batch})
        return np.asarray(out["action_dist_inputs"].cpu().numpy(), np.float64).reshape(-1)

    return FunctionBot(decide, reading, name)


# --------------------------------------------------------------------------- ONNX


def _onnx_bot(path: Path, game: Game[Any], name: str, observation: str, scaled: bool | None) -> Bot:
    try:
        import onnxruntime as ort
    except ImportError:
        raise ConfigError(f"an ONNX file needs onnxruntime: {_EXPORT}") from None
    if not path.exists():
        raise ConfigError(f"no ONNX file {path}")
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    inputs = session.get_inputs()
    obs_input = next((i for i in inputs if i.name == "observation"), inputs[0])
    mask_input = next((i for i in inputs if i is not obs_input), None)
    size = obs_input.shape[-1] if isinstance(obs_input.shape[-1], int) else None
    # the package's exports declare their input (raw: they scale inside the graph); a foreign graph
    # declares nothing, and is fed what the caller says
    meta = session.get_modelmeta().custom_metadata_map
    layout = meta.get("tablezoo.observation")
    if layout is None and "tablezoo.padded" in meta:
        layout = "padded" if json.loads(meta["tablezoo.padded"]) else "plain"
    own_scaled = json.loads(meta["tablezoo.scaled"]) if "tablezoo.scaled" in meta else None
    if own_scaled is None and "tablezoo.game" in meta:  # an export of an earlier version: raw input too
        own_scaled = False
    reading = Reading.fit(
        game, size, name, observation, scaled, declared=(layout, own_scaled), source="its metadata"
    )
    outputs = [o.name for o in session.get_outputs()]
    out_name = "logits" if "logits" in outputs else outputs[0]
    mask_bool = mask_input is not None and mask_input.type == "tensor(bool)"

    def decide(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        feed = {obs_input.name: obs[None]}
        if mask_input is not None:
            feed[mask_input.name] = mask[None].astype(bool) if mask_bool else mask[None]
        (out,) = session.run([out_name], feed)
        return np.asarray(out, np.float64).reshape(-1)

    return FunctionBot(decide, reading, name)
