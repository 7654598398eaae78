"""Any policy as a bot: what :func:`tablezoo.evaluation.protocol.evaluate` and ``tablezoo benchmark`` score.

    from tablezoo.evaluation.policies import as_bot

    bot = as_bot("runs/ppo/model.zip", game)          # then play it like any bot

What ``policy`` may be, and how it is read:

- a :class:`~tablezoo.bots.core.Bot`: itself;
- a bot name (``"heuristic"``, ``"agent:search=32"``) or a ``.npz`` path:
  :func:`~tablezoo.bots.registry.make_bot` (through :func:`named_bot`, which also seats
  OpenSpiel's ``ismcts`` where the ``openspiel`` extra is installed);
- a callable ``(observation, mask) -> action`` (or an output per action);
- ``module:name`` (``mypolicies:act``): ``name`` imported from ``module`` (the current folder is
  searched too), then read as any of these; a class is made with no arguments;
  ``module:Class@weights.pt`` makes ``Class()`` and loads the state dict saved in ``weights.pt``;
- a ``torch.nn.Module``, or a ``.pt`` file holding one: TorchScript
  (``torch.jit.script(module).save(path)``) or a module saved whole (``torch.save(module,
  path)``, where its class imports); its output, logits or Q-values (the first of a tuple;
  ``logits`` or ``action_dist_inputs`` of a dict);
- a stable-baselines3 model, or its ``.zip``: its policy's logits (PPO, MaskablePPO,
  A2C) or Q-values (DQN, QR-DQN);
- an RLlib checkpoint folder (an algorithm's, a module's, or a run folder with
  ``checkpoint/``): the RL module's ``forward_inference``;
- an ``.onnx`` file, with ONNX Runtime: its ``logits`` output, or its first output; a second
  input, if any, is fed the mask.

Every one of them plays greedily: the legal action with the highest output (the
first one on ties). No policy ever plays an illegal move: the mask is applied
after the policy's own output. What a policy reads (the observation's layout and
scaling) is declared by it or told by the caller, never guessed
(:mod:`tablezoo.evaluation.reading`). The libraries (torch, stable-baselines3, Ray, ONNX Runtime:
the ``eval`` extra) are imported only when a policy of their kind is loaded
(:mod:`tablezoo.evaluation.loaders`).
"""

from __future__ import annotations

import importlib
import os
import re
import sys
from pathlib import Path
from typing import Any, NamedTuple

from tablezoo.bots.core import Bot
from tablezoo.bots.registry import OUTSIDE_BOTS, game_bots, make_bot
from tablezoo.evaluation import loaders
from tablezoo.evaluation.reading import (
    FLAGS,
    OBSERVATION_ATTR,
    SCALED_ATTR,
    Decide,
    FunctionBot,
    Layout,
    Reading,
    declared,
)
from tablezoo.games.core import ConfigError, Game

__all__ = [
    "FLAGS",
    "OBSERVATION_ATTR",
    "SCALED_ATTR",
    "Decide",
    "FunctionBot",
    "ImportSpec",
    "Layout",
    "Reading",
    "as_bot",
    "import_spec",
    "named_bot",
    "policy_name",
]

OUTSIDE_EXTRAS = {"ismcts": "openspiel"}
"""The bots a wrapper adds to the registry when it is imported -> the extra that wrapper needs."""


def named_bot(name: str, game: Game[Any]) -> Bot:
    """:func:`~tablezoo.bots.registry.make_bot` of ``name``, after importing the wrapper that adds it
    to the registry where it is one of :data:`OUTSIDE_EXTRAS` (``ismcts``:
    :mod:`tablezoo.wrappers.openspiel`); a ConfigError names the extra when its library is missing."""
    base = name.partition(":")[0]
    if base in OUTSIDE_EXTRAS and base not in OUTSIDE_BOTS:
        try:
            import tablezoo.wrappers.openspiel  # noqa: F401  (registers ismcts)
        except ImportError as error:
            if error.name not in ("pyspiel", "open_spiel") and not str(error.name).startswith("open_spiel."):
                raise
            raise ConfigError(
                f"bot {base!r} is OpenSpiel's search, which needs the {OUTSIDE_EXTRAS[base]!r} extra: "
                f"pip install 'tablezoo[{OUTSIDE_EXTRAS[base]}]' (cannot import {error.name})"
            ) from None
    return make_bot(name, game)


_DOTTED = r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*"
_SPEC = re.compile(rf"^(?P<module>{_DOTTED}):(?P<name>{_DOTTED})(?:@(?P<weights>.+))?$")


class ImportSpec(NamedTuple):
    """A policy named ``module:name`` (or ``module:Class@weights``) on the command line."""

    module: str
    """The module to import."""
    name: str
    """The name in it: a callable, a torch module, a bot, or a class made with no arguments."""
    weights: str | None
    """The state dict file a class's instance loads (``@weights``), if any."""


def import_spec(text: str, game_name: str | None = None) -> ImportSpec | None:
    """``text`` as ``module:name[@weights]``, or None when it is a bot's name with settings
    (``agent:search=32``), a file or anything else."""
    match = _SPEC.match(text)
    if match is None or match["module"] == "agent" or match["module"].endswith(".npz"):
        return None
    if game_name is not None and match["module"] in (*game_bots(game_name), *OUTSIDE_EXTRAS):
        return None
    return ImportSpec(match["module"], match["name"], match["weights"])


def _import(spec: ImportSpec) -> Any:
    """The object ``spec`` names (the current folder searched after the installed modules)."""
    try:
        module = importlib.import_module(spec.module)
    except ModuleNotFoundError as error:
        if error.name != spec.module.split(".")[0] or os.getcwd() in sys.path:
            raise ConfigError(
                f"cannot import {spec.module!r} for the policy {spec.module}:{spec.name}: {error}"
            ) from None
        sys.path.append(os.getcwd())
        try:
            module = importlib.import_module(spec.module)
        except ModuleNotFoundError:
            raise ConfigError(
                f"no module {spec.module!r} (in the installed packages or the current folder) "
                f"for the policy {spec.module}:{spec.name}"
            ) from None
    found: Any = module
    for part in spec.name.split("."):
        try:
            found = getattr(found, part)
        except AttributeError:
            raise ConfigError(f"module {spec.module!r} has no {spec.name!r}") from None
    if isinstance(found, type):
        if spec.weights is not None:
            return loaders.module_from_state_dict(found, Path(spec.weights))
        try:
            return found()
        except TypeError as error:
            raise ConfigError(
                f"{spec.module}:{spec.name} is a class that cannot be made with no arguments: {error}"
            ) from None
    if spec.weights is not None:
        raise ConfigError(f"{spec.module}:{spec.name}@{spec.weights}: only a class loads a state dict")
    return found


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
    if loaders.is_sb3(policy):
        return loaders.sb3_bot(policy, game, label, observation, scaled)
    if loaders.is_torch(policy):
        return loaders.torch_bot(policy, game, label, observation, scaled)
    if callable(policy):
        size = getattr(policy, "observation_size", None)
        reading = Reading.fit(
            game, size, label, observation, scaled, declared=declared(policy), source="its attributes"
        )
        return FunctionBot(policy, reading, label)
    kinds = (
        "a Bot, a bot name or file, a callable (observation, mask) -> action, a torch module, an SB3 model"
    )
    raise ConfigError(f"cannot play {type(policy).__name__!r}: a policy is {kinds}")


def policy_name(policy: Any) -> str:
    """A short name for a policy in tables and results: a file's stem, a bot's name, an imported
    policy's ``module:name`` (with its weights file's name), a type's name."""
    if isinstance(policy, (str, Path)):
        text = str(policy)
        spec = import_spec(text)
        if spec is not None:
            weights = f"@{Path(spec.weights).name}" if spec.weights else ""
            return f"{spec.module}:{spec.name}{weights}"
        return Path(text.partition(":")[0]).name if ("/" in text or "." in text) else text
    return str(getattr(policy, "name", None) or type(policy).__name__)


def _from_path(
    spec: str | Path, game: Game[Any], name: str | None, observation: str, scaled: bool | None
) -> Bot:
    text = str(spec)
    path = Path(text.partition(":")[0])
    label = name or policy_name(spec)
    imported = (
        None if path.suffix in (".npz", ".onnx", ".zip", ".pt", ".pth") else import_spec(text, game.info.name)
    )
    if imported is not None:
        bot = as_bot(_import(imported), game, label, observation, scaled)
        bot.name = label
        return bot
    if path.suffix == ".onnx":
        return loaders.onnx_bot(path, game, label, observation, scaled)
    if path.suffix == ".zip":
        return loaders.sb3_bot(loaders.load_sb3(path), game, label, observation, scaled)
    if path.suffix in (".pt", ".pth"):
        return loaders.torch_bot(loaders.load_torch(path), game, label, observation, scaled)
    if path.is_dir():
        return loaders.rllib_bot(path, game, label, observation, scaled)
    if path.suffix and not path.exists():
        raise ConfigError(f"no policy file {path}")
    try:
        bot = named_bot(text, game)
    except ConfigError as error:
        if not str(error).startswith("no bot"):
            raise
        files = "a .npz, an SB3 .zip, a torch .pt, an .onnx file, an RLlib checkpoint folder or module:name"
        raise ConfigError(f"{error}; or a policy: {files}") from None
    if name:
        bot.name = name
    return bot
