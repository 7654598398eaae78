"""Trained policies that run on numpy alone, and the bot that plays them.

A MaskablePPO policy (an MLP) is exported to a small ``.npz`` file: the
observation scale, the weights and biases of each layer, and its activation.
Running it needs only numpy, so a shipped agent can sit at a table, or in
another front end, straight after ``pip install tablezoo`` without torch.

The forward pass is the actor of stable-baselines3's ``MlpPolicy``: the
observation divided by its scale (each field's upper bound, so every input is
in 0..1), hidden layers with the activation, then the action logits; illegal
actions are masked out and the most likely legal action is played.

A game with :attr:`~tablezoo.games.core.Game.action_fields` (6 nimmt!'s
``hand_*`` fields: where each card would go) may be played by a policy with an
:class:`ActionHead` instead of the last layer. The hidden layers then give a
*context* vector; each of the first ``K`` actions is scored by one small
network shared by all of them, from its own entries of the action fields, its
position ``(i + 1) / K`` and the context; the other actions get a linear layer
of the context. One card's lesson is then every card's: a policy learns "a
sixth card takes the row" once, not once per card. The stable-baselines3 side
is :mod:`tablezoo.training.sb3_policy`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tablezoo.bots.core import Seat

ACTIVATIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "tanh": np.tanh,
    "relu": lambda x: np.maximum(x, 0.0),
}


@dataclass
class ActionHead:
    """Logits of the first ``size`` actions from one network shared across them, the rest linear.

    For action ``i < K``: ``out · act(card · [f_1[i], .., f_F[i], (i+1)/K] + context · g + bias) + out_bias``,
    where ``f_j`` are the action fields (scaled) and ``g`` the context; for the
    other actions ``rest · g + rest_bias``.
    """

    offsets: np.ndarray  # int (F,): where each action field starts in the observation
    size: int  # K: actions scored by the shared network
    card: np.ndarray  # (H, F + 1)
    context: np.ndarray  # (H, G)
    bias: np.ndarray  # (H,)
    out: np.ndarray  # (H,)
    out_bias: np.ndarray  # (1,)
    rest: np.ndarray  # (A - K, G)
    rest_bias: np.ndarray  # (A - K,)

    ARRAYS = ("offsets", "card", "context", "bias", "out", "out_bias", "rest", "rest_bias")

    def __post_init__(self) -> None:
        self.offsets = np.asarray(self.offsets, np.int64)
        for name in self.ARRAYS[1:]:
            setattr(self, name, np.asarray(getattr(self, name), np.float32))
        self.size = int(self.size)
        self.index = (self.offsets[:, None] + np.arange(self.size)).ravel()  # field-major
        self.position = (np.arange(1, self.size + 1, dtype=np.float32) / self.size)[:, None]

    @property
    def num_actions(self) -> int:
        return self.size + len(self.rest_bias)

    def features(self, x: np.ndarray) -> np.ndarray:
        """``(K, F + 1)``: each shared action's field entries and its position."""
        cards = x[self.index].reshape(len(self.offsets), self.size).T
        return np.concatenate([cards, self.position], axis=1)

    def logits(self, x: np.ndarray, context: np.ndarray, act: Any) -> np.ndarray:
        hidden = act(self.features(x) @ self.card.T + (self.context @ context + self.bias))
        shared = hidden @ self.out + self.out_bias
        return np.concatenate([shared, self.rest @ context + self.rest_bias])


class NumpyPolicy:
    """An MLP actor: scaled observation -> hidden layers -> masked action logits.

    Without ``head`` the last of ``weights`` gives the logits; with an
    :class:`ActionHead`, all of ``weights`` are hidden layers and the head gives them.
    """

    def __init__(
        self,
        weights: list[np.ndarray],
        biases: list[np.ndarray],
        scale: np.ndarray,
        activation: str = "tanh",
        meta: dict[str, Any] | None = None,
        head: ActionHead | None = None,
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
        self.head = head
        self._act = ACTIVATIONS[activation]

    @property
    def observation_size(self) -> int:
        return self.weights[0].shape[1]

    @property
    def num_actions(self) -> int:
        return self.head.num_actions if self.head else self.weights[-1].shape[0]

    def logits(self, observation: np.ndarray) -> np.ndarray:
        x = np.asarray(observation, np.float32) / self.scale
        if self.head is not None:
            g = x
            for w, b in zip(self.weights, self.biases, strict=True):
                g = self._act(w @ g + b)
            return self.head.logits(x, g, self._act)
        for w, b in zip(self.weights[:-1], self.biases[:-1], strict=True):
            x = self._act(w @ x + b)
        return self.weights[-1] @ x + self.biases[-1]

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        """The most likely legal action."""
        logits = self.logits(observation)
        return int(np.argmax(np.where(np.asarray(mask, bool), logits, -np.inf)))

    # ------------------------------------------------------------ files

    def save(self, path: str | Path) -> None:
        arrays: dict[str, np.ndarray] = {"scale": self.scale}
        for i, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            arrays[f"w{i}"] = w
            arrays[f"b{i}"] = b
        meta = {**self.meta, "activation": self.activation, "layers": len(self.weights)}
        if self.head is not None:
            meta["head_size"] = self.head.size
            arrays.update({f"head_{name}": getattr(self.head, name) for name in ActionHead.ARRAYS})
        arrays["meta"] = np.array(json.dumps(meta))
        np.savez_compressed(path, **arrays)  # type: ignore[arg-type]  # numpy's stub types **kwds as bool

    @classmethod
    def load(cls, path: str | Path) -> NumpyPolicy:
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            layers = meta.pop("layers")
            activation = meta.pop("activation")
            weights = [data[f"w{i}"] for i in range(layers)]
            biases = [data[f"b{i}"] for i in range(layers)]
            head = None
            if "head_size" in meta:
                arrays = {name: data[f"head_{name}"] for name in ActionHead.ARRAYS}
                head = ActionHead(size=meta.pop("head_size"), **arrays)
            return cls(weights, biases, data["scale"], activation, meta, head)

    @classmethod
    def from_sb3(cls, model: Any, scale: np.ndarray, meta: dict[str, Any] | None = None) -> NumpyPolicy:
        """Export the actor of a (Maskable)PPO ``MlpPolicy`` (or an
        :class:`~tablezoo.training.sb3_policy.ActionFieldPolicy`) trained on scaled observations."""
        policy = model.policy

        def numpy(t: Any) -> np.ndarray:
            return t.detach().cpu().numpy()

        layers = [m for m in policy.mlp_extractor.policy_net if hasattr(m, "weight")]
        activation = type(policy.activation_fn()).__name__.lower()
        head_net = policy.action_net
        if hasattr(head_net, "shared"):  # an ActionFieldHead
            head = ActionHead(
                offsets=np.asarray(head_net.offsets),
                size=head_net.size,
                card=numpy(head_net.shared.weight),
                context=numpy(head_net.context.weight),
                bias=numpy(head_net.shared.bias),
                out=numpy(head_net.out.weight)[0],
                out_bias=numpy(head_net.out.bias),
                rest=numpy(head_net.rest.weight),
                rest_bias=numpy(head_net.rest.bias),
            )
            weights = [numpy(m.weight) for m in layers]
            biases = [numpy(m.bias) for m in layers]
            return cls(weights, biases, scale, activation, meta, head)
        weights = [numpy(m.weight) for m in [*layers, head_net]]
        biases = [numpy(m.bias) for m in [*layers, head_net]]
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
