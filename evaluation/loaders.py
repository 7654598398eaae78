"""Policies that need a library to run: torch modules, stable-baselines3 models, RLlib checkpoints
and ONNX graphs, each as a :class:`~tablezoo.evaluation.reading.FunctionBot`.

Each library is imported when a policy of its kind is loaded, never before, so
:mod:`tablezoo.evaluation` imports with numpy alone. Every policy computes on one intra-op thread
(ONNX Runtime's session options here, torch's around the scoring loops:
:func:`tablezoo.evaluation.play.one_thread`): a policy asked one observation at a time gains nothing
from more, and processes sharing the games (``--jobs``) would otherwise fight over the cores.

A torch module loads from a ``.pt`` file in a form that names no class of the user's: TorchScript
(``torch.jit.script(module).save(path)``), or a state dict given with its class (``module:Class@path``,
:func:`module_from_state_dict`). A module pickled whole (``torch.save(module, path)``) loads only
where its class can be imported; where it cannot, the refusal names those two ways.
"""

from __future__ import annotations

import importlib
import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from tablezoo.bots.core import Bot
from tablezoo.evaluation.reading import ONNX_FLAGS, FunctionBot, Reading, declared
from tablezoo.games.core import ConfigError, Game

EVAL = "pip install torch==2.13.0 'tablezoo[eval]'"
"""How to install what scoring any policy needs (torch's CPU build first)."""
TORCH_WAYS = (
    "TorchScript (torch.jit.script(module).save(path)), or its state dict "
    "(torch.save(module.state_dict(), path)) given with its class as module:Class@path"
)
"""The forms of a torch policy that load anywhere."""


# --------------------------------------------------------------------------- torch


def is_torch(policy: Any) -> bool:
    """Whether ``policy`` is a torch module (False without torch imported: then it cannot be one)."""
    import sys

    torch = sys.modules.get("torch")
    return torch is not None and isinstance(policy, torch.nn.Module)


def is_sb3(policy: Any) -> bool:
    """Whether ``policy`` is a stable-baselines3 model (False without it imported)."""
    import sys

    base = sys.modules.get("stable_baselines3.common.base_class")
    return base is not None and isinstance(policy, base.BaseAlgorithm)


def _first_linear_size(module: Any) -> int | None:
    import torch

    for layer in module.modules():
        scripted_linear = getattr(layer, "original_name", None) == "Linear"
        if isinstance(layer, torch.nn.Linear) or scripted_linear:
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


def _import_torch(what: str) -> Any:
    try:
        import torch
    except ImportError:
        raise ConfigError(f"{what} needs torch: {EVAL}") from None
    return torch


def load_torch(path: Path) -> Any:
    """The torch module in ``path``: TorchScript, or a module pickled whole whose class imports here.
    A state dict, or a module whose class cannot be found, is refused naming the ways that work."""
    torch = _import_torch(str(path))
    if not path.exists():
        raise ConfigError(f"no model file {path}")
    try:  # torch.load hands a TorchScript archive on to torch.jit.load
        module = torch.load(path, weights_only=False, map_location="cpu")
    except (AttributeError, ModuleNotFoundError, ImportError) as error:
        raise ConfigError(
            f"{path} is a torch module pickled whole whose class cannot be imported here ({error}); "
            f"save it in a form that loads anywhere: {TORCH_WAYS}"
        ) from None
    except Exception as error:  # torch's unpickler raises many kinds for a file that is no model
        raise ConfigError(
            f"{path} is not a torch model torch can read ({type(error).__name__}: {error})"
        ) from None
    if isinstance(module, dict):
        raise ConfigError(
            f"{path} holds a state dict, not a module: give it with its class as module:Class@{path}"
        )
    if not isinstance(module, torch.nn.Module):
        kind = type(module).__name__
        raise ConfigError(f"{path} holds a {kind}, not a torch module: save it as {TORCH_WAYS}")
    return module


def module_from_state_dict(cls: type, path: Path) -> Any:
    """``cls()`` with the state dict saved at ``path`` (``torch.save(module.state_dict(), path)``)."""
    torch = _import_torch(str(path))
    if not path.exists():
        raise ConfigError(f"no state dict file {path}")
    try:
        state = torch.load(path, weights_only=True, map_location="cpu")
    except Exception as error:
        raise ConfigError(
            f"{path} is not a state dict torch can read ({type(error).__name__}: {error})"
        ) from None
    if not isinstance(state, dict):
        raise ConfigError(f"{path} holds a {type(state).__name__}, not a state dict")
    try:
        module = cls()
        module.load_state_dict(state)
    except Exception as error:
        raise ConfigError(f"{cls.__name__}() does not take the state dict in {path}: {error}") from None
    return module


def torch_bot(module: Any, game: Game[Any], name: str, observation: str, scaled: bool | None) -> Bot:
    """A torch module as a bot: its output (the first of a tuple; ``logits`` or
    ``action_dist_inputs`` of a dict), played greedily among the legal moves."""
    import torch

    reading = Reading.fit(
        game,
        _first_linear_size(module),
        name,
        observation,
        scaled,
        declared=declared(module),
        source="its attributes",
    )
    module.eval()

    def decide(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            out = _torch_output(module(torch.as_tensor(obs[None])))
        return np.asarray(out.detach().cpu().numpy(), np.float64).reshape(-1)

    return FunctionBot(decide, reading, name)


# --------------------------------------------------------------------------- stable-baselines3


SB3_ALGORITHMS = {
    "sb3_contrib.common.maskable.policies": ("sb3_contrib", "MaskablePPO"),
    "stable_baselines3.dqn.policies": ("stable_baselines3", "DQN"),
    "sb3_contrib.qrdqn.policies": ("sb3_contrib", "QRDQN"),
    "stable_baselines3.common.policies": ("stable_baselines3", "PPO"),
}
"""The module of a saved model's policy class -> the algorithm that loads it (A2C's loads as PPO:
the same actor-critic policy)."""


def load_sb3(path: Path) -> Any:
    """A stable-baselines3 model from its ``.zip``, the algorithm read from the file's policy class."""
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
                raise ConfigError(f"{path} needs {package}: {EVAL}") from None
            return cls.load(path, device="cpu")
    raise ConfigError(
        f"{path}: no loader for a policy of {module or 'unknown module'}; loads: {', '.join(SB3_ALGORITHMS)}"
    )


def sb3_bot(model: Any, game: Game[Any], name: str, observation: str, scaled: bool | None) -> Bot:
    """A stable-baselines3 model as a bot: its policy's logits (PPO, MaskablePPO, A2C) or Q-values
    (DQN, QR-DQN); its observation space declares what it reads."""
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


def rllib_module_dir(path: Path) -> Path:
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


def rllib_bot(path: Path, game: Game[Any], name: str, observation: str, scaled: bool | None) -> Bot:
    """An RLlib checkpoint's RL module as a bot (its ``forward_inference``)."""
    try:
        import torch
        from ray.rllib.core.rl_module.rl_module import RLModule
    except ImportError:
        raise ConfigError(
            "an RLlib checkpoint needs ray[rllib]: pip install 'tablezoo[rllib]' "
            "(pip install torch==2.13.0 'tablezoo[train]' first)"
        ) from None
    from tablezoo.wrappers.rllib import MASK_KEY, OBS_KEY

    module = RLModule.from_checkpoint(str(rllib_module_dir(path).resolve()))
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


def onnx_bot(path: Path, game: Game[Any], name: str, observation: str, scaled: bool | None) -> Bot:
    """An ONNX graph as a bot, run by ONNX Runtime on one thread: its ``logits`` output, or its
    first; a second input, if any, is fed the mask. Its metadata declares what it reads."""
    try:
        import onnxruntime as ort
    except ImportError:
        raise ConfigError(f"an ONNX file needs onnxruntime: {EVAL}") from None
    if not path.exists():
        raise ConfigError(f"no ONNX file {path}")
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    inputs = session.get_inputs()
    obs_input = next((i for i in inputs if i.name == "observation"), inputs[0])
    mask_input = next((i for i in inputs if i is not obs_input), None)
    size = obs_input.shape[-1] if isinstance(obs_input.shape[-1], int) else None
    # the package's exports declare their input; a foreign graph declares nothing, and is fed what
    # the caller says
    meta = session.get_modelmeta().custom_metadata_map
    layout = meta.get("tablezoo.observation")
    if layout is None and "tablezoo.padded" in meta:
        layout = "padded" if json.loads(meta["tablezoo.padded"]) else "plain"
    own_scaled = json.loads(meta["tablezoo.scaled"]) if "tablezoo.scaled" in meta else None
    if own_scaled is None and "tablezoo.game" in meta:  # an export of an earlier version: raw input too
        own_scaled = False
    reading = Reading.fit(
        game,
        size,
        name,
        observation,
        scaled,
        declared=(layout, own_scaled),
        source="its metadata",
        ways=ONNX_FLAGS,
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
