"""Trained policies that run on numpy alone, and the bot that plays them.

A MaskablePPO policy (an MLP) is exported to a small ``.npz`` file: the
observation scale, the weights and biases of each layer, and its activation.
Running it needs only numpy, so a shipped agent can sit at a table, or in
another front end, straight after ``pip install tablezoo`` without torch.

The forward pass is the actor of stable-baselines3's ``MlpPolicy``: the
observation divided by its scale (each field's upper bound, so every input is
in 0..1), hidden layers with the activation, then the action logits; illegal
actions are masked out and the most likely legal action is played.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from tablezoo.training.bots import Seat

ACTIVATIONS = {
    "tanh": np.tanh,
    "relu": lambda x: np.maximum(x, 0.0),
}


class NumpyPolicy:
    """An MLP actor: scaled observation -> hidden layers -> masked action logits."""

    def __init__(
        self,
        weights: list[np.ndarray],
        biases: list[np.ndarray],
        scale: np.ndarray,
        activation: str = "tanh",
        meta: dict[str, Any] | None = None,
    ) -> None:
        if activation not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {', '.join(ACTIVATIONS)}, not {activation!r}")
        if len(weights) != len(biases) or not weights:
            raise ValueError("a policy needs one bias per weight matrix, and at least one layer")
        self.weights = [np.asarray(w, np.float32) for w in weights]
        self.biases = [np.asarray(b, np.float32) for b in biases]
        self.scale = np.asarray(scale, np.float32)
        self.activation = activation
        self.meta = dict(meta or {})
        self._act = ACTIVATIONS[activation]

    @property
    def observation_size(self) -> int:
        return self.weights[0].shape[1]

    @property
    def num_actions(self) -> int:
        return self.weights[-1].shape[0]

    def logits(self, observation: np.ndarray) -> np.ndarray:
        x = np.asarray(observation, np.float32) / self.scale
        for w, b in zip(self.weights[:-1], self.biases[:-1], strict=True):
            x = self._act(w @ x + b)
        return self.weights[-1] @ x + self.biases[-1]

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        """The most likely legal action."""
        logits = self.logits(observation)
        return int(np.argmax(np.where(np.asarray(mask, bool), logits, -np.inf)))

    # ------------------------------------------------------------ files

    def save(self, path: str | Path) -> None:
        arrays = {"scale": self.scale}
        for i, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            arrays[f"w{i}"] = w
            arrays[f"b{i}"] = b
        meta = {**self.meta, "activation": self.activation, "layers": len(self.weights)}
        np.savez_compressed(path, meta=np.array(json.dumps(meta)), **arrays)

    @classmethod
    def load(cls, path: str | Path) -> NumpyPolicy:
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            layers = meta.pop("layers")
            activation = meta.pop("activation")
            weights = [data[f"w{i}"] for i in range(layers)]
            biases = [data[f"b{i}"] for i in range(layers)]
            return cls(weights, biases, data["scale"], activation, meta)

    @classmethod
    def from_sb3(cls, model: Any, scale: np.ndarray, meta: dict[str, Any] | None = None) -> NumpyPolicy:
        """Export the actor of a (Maskable)PPO ``MlpPolicy`` trained on scaled observations."""
        policy = model.policy
        layers = [m for m in policy.mlp_extractor.policy_net if hasattr(m, "weight")]
        activation = type(policy.activation_fn()).__name__.lower()
        weights = [m.weight.detach().cpu().numpy() for m in [*layers, policy.action_net]]
        biases = [m.bias.detach().cpu().numpy() for m in [*layers, policy.action_net]]
        return cls(weights, biases, scale, activation, meta)


class PolicyBot:
    """Plays a :class:`NumpyPolicy` from the seat's observation and mask."""

    def __init__(self, policy: NumpyPolicy, name: str = "agent") -> None:
        self.policy = policy
        self.name = name

    def reset(self, seed: int | None = None) -> None:
        pass

    def act(self, seat: Seat) -> int:
        return self.policy.act(seat.observation, seat.mask)
