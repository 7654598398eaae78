"""The one trained model of tablezoo: a policy (and value) network that runs on numpy alone.

Every trained player is a :class:`PolicyValueNet`: the network of expert
iteration (:mod:`tablezoo.training.expert`, the shipped agents in ``agents/``)
and the policy a PPO run exports (:mod:`tablezoo.training.ppo.sb3`,
:mod:`tablezoo.training.rllib.backend`). :func:`load_model` reads either file;
the bots, the search, the tables and the ONNX export
(:mod:`tablezoo.release.export`) take the model it gives, and ask it what it
is instead of asking for its class.

The forward pass:

* the observation divided by its scale (each field's upper bound: every input in 0..1);
* hidden layers ``act(W x + b)``, ``act`` the model's :attr:`~PolicyValueNet.activation`
  (``relu`` for a network of expert iteration, stable-baselines3's ``tanh`` by default for PPO);
* a policy head: one logit per action (illegal ones are masked by the caller).
  A game with :attr:`~tablezoo.games.core.Game.action_fields` (6 nimmt!'s
  ``hand_*``: where each card would go) may get an :class:`ActionHead` instead
  of the last linear layer: one small network, shared by all cards, scores each
  card from its own field entries and the last hidden layer, so a lesson about
  one card is a lesson about all of them;
* a value head, where there is one: ``sigmoid(v · h + c)``, the seat's expected
  *win share*, the part of the win it takes (1 alone, 1/k in a k-way tie, 0
  otherwise). A fair share at ``n`` seats is ``1/n``. A PPO policy has none: it
  plays, it cannot guide a search.

What a model reads (:attr:`~PolicyValueNet.padded`): the network of expert
iteration reads the game's padded observation
(:meth:`~tablezoo.games.core.Game.observe_padded`: one layout for every seat
count, the seat count itself one-hot), so one file plays 2 to 10 seats of 6
nimmt!; a PPO policy reads the plain observation of the one seat count it was
trained at. Each keeps the arithmetic it has always had: the padded network
folds the scale into its first layer and reads a single observation's nonzero
entries only (:attr:`~PolicyValueNet.folds_scale`), a PPO policy divides the
observation by the scale first, as its trainer did. The two are one function;
their floats differ in the last bits, and keeping each makes every file play
the moves it always played.

A file is a ``.npz`` of the arrays ``scale``, ``w0 .. wK``, ``b0 .. bK`` (hidden
layers, then the policy layer unless there is an action head), ``value_w`` and
``value_b`` (the value head, if any), ``head_*`` (the action head's arrays, if
any) and ``meta``, a JSON text with the game, its options, the sizes and how it
was trained. Two layouts, both read and written as they always were:

* a padded network's (expert iteration): the layer count is the arrays', the
  action head's size the array ``head_size``; ``meta`` as the model has it;
* a plain policy's (PPO): ``meta`` also holds ``layers``, ``activation`` and
  ``head_size``.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tablezoo.games.core import ConfigError, Game

__all__ = [
    "ACTIVATIONS",
    "ActionHead",
    "PolicyValueNet",
    "load_model",
    "masked_softmax",
    "win_share",
]

ACTIVATIONS: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "tanh": np.tanh,
    "relu": lambda x: np.maximum(x, 0.0),
}
"""The hidden layers' activations by name."""

_LAYOUT_KEYS = ("layers", "activation", "head_size")
"""The ``meta`` keys of a plain policy's file layout that are the model's shape, not its meta."""


def win_share(game: Game[Any], state: Any, seat: int) -> float:
    """The part of the win ``seat`` takes in a finished game: 1 alone, 1/k in a k-way tie, 0 otherwise."""
    winners = game.winners(state)
    return 1.0 / len(winners) if seat in winners else 0.0


def _sigmoid(z: Any) -> Any:
    """``1 / (1 + exp(-z))`` without overflow for a large negative ``z`` (a value head sure of a loss)."""
    return 0.5 * (1.0 + np.tanh(0.5 * z))


def masked_softmax(logits: np.ndarray, legal: list[int] | np.ndarray) -> np.ndarray:
    """The policy over ``legal`` (in its order) from the full logit vector."""
    x = logits[legal]
    x = np.exp(x - x.max())
    return x / x.sum()


@dataclass
class ActionHead:
    """Logits of the first ``size`` actions from one network shared across them, the rest linear.

    For action ``i < K``: ``out · act(card · [f_1[i], .., f_F[i], (i+1)/K] + context · g + bias) + out_bias``,
    where ``f_j`` are the action fields (scaled) and ``g`` the context (the last
    hidden layer); for the other actions ``rest · g + rest_bias``. One card's
    lesson is then every card's: a policy learns "a sixth card takes the row"
    once, not once per card. The stable-baselines3 side is
    :mod:`tablezoo.training.ppo.sb3_policy`.
    """

    offsets: np.ndarray
    """int ``(F,)``: where each action field starts in the observation."""
    size: int
    """``K``: the actions scored by the shared network."""
    card: np.ndarray
    """``(H, F + 1)``: the shared network's weights of a card's field entries and position."""
    context: np.ndarray
    """``(H, G)``: its weights of the context."""
    bias: np.ndarray
    """``(H,)``: its bias."""
    out: np.ndarray
    """``(H,)``: a card's score from the shared network's hidden units."""
    out_bias: np.ndarray
    """``(1,)``: the score's bias."""
    rest: np.ndarray
    """``(A - K, G)``: the other actions' linear layer."""
    rest_bias: np.ndarray
    """``(A - K,)``: its bias."""

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
        """Every action: the shared ones and the rest."""
        return self.size + len(self.rest_bias)

    def features(self, x: np.ndarray) -> np.ndarray:
        """``(K, F + 1)``: each shared action's field entries and its position."""
        cards = x[self.index].reshape(len(self.offsets), self.size).T
        return np.concatenate([cards, self.position], axis=1)

    def logits(self, x: np.ndarray, context: np.ndarray, act: Any) -> np.ndarray:
        """The logits of one scaled observation ``x`` with the hidden layers' ``context``."""
        hidden = act(self.features(x) @ self.card.T + (self.context @ context + self.bias))
        shared = hidden @ self.out + self.out_bias
        return np.concatenate([shared, self.rest @ context + self.rest_bias])

    def batch_logits(self, x: np.ndarray, context: np.ndarray, act: Any) -> np.ndarray:
        """:meth:`logits` of scaled observations ``(N, size)`` with their contexts ``(N, G)``."""
        fields = x[:, self.index].reshape(len(x), len(self.offsets), self.size)
        cards = np.concatenate(
            [fields.transpose(0, 2, 1), np.broadcast_to(self.position, (len(x), self.size, 1))], 2
        )
        z = cards @ self.card.T + (context @ self.context.T + self.bias)[:, None, :]
        shared = act(z) @ self.out + self.out_bias
        return np.concatenate([shared, context @ self.rest.T + self.rest_bias], axis=1)


class PolicyValueNet:
    """An MLP with a policy head and, where it has one, a win-share head (see the module docstring).

    Without ``head`` the last of ``weights`` gives the logits; with an
    :class:`ActionHead`, all of ``weights`` are hidden layers and the head gives
    them. ``value_w`` and ``value_b`` are None for a model without a value
    head. ``padded``: the model reads the padded observation (every seat count)
    rather than one seat count's plain one.
    """

    def __init__(
        self,
        weights: list[np.ndarray],
        biases: list[np.ndarray],
        value_w: np.ndarray | None,
        value_b: np.ndarray | float | None,
        scale: np.ndarray,
        meta: dict[str, Any],
        head: ActionHead | None = None,
        *,
        activation: str = "relu",
        padded: bool = True,
    ) -> None:
        if activation not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {', '.join(ACTIVATIONS)}, not {activation!r}")
        # the value head reads the last hidden layer: without an action head, one layer more than the policy's
        least = (1 if head else 2) if value_w is not None else 1
        if len(weights) != len(biases) or len(weights) < least:
            what = "hidden layers and the policy layer" if least == 2 else "at least one layer"
            raise ValueError(f"a network needs one bias per weight matrix: {what}")
        if (value_w is None) != (value_b is None):
            raise ValueError("a value head needs both value_w and value_b")
        self.weights = [np.ascontiguousarray(w, np.float32) for w in weights]
        self.biases = [np.asarray(b, np.float32) for b in biases]
        self.value_w = None if value_w is None else np.asarray(value_w, np.float32).reshape(-1)
        self.value_b = None if value_b is None else float(np.asarray(value_b).reshape(-1)[0])
        self.scale = np.asarray(scale, np.float32)
        self.meta = dict(meta)
        self.head = head
        self.activation = activation
        self.padded = padded
        self._act = ACTIVATIONS[activation]
        self._hidden = len(self.weights) if head else len(self.weights) - 1
        if self.folds_scale:
            # the scale folded into the first layer: one multiply fewer per call; its transpose lets one
            # observation (mostly zeros: one-hots, cards not held) read only the rows of its nonzero entries
            self._w0 = self.weights[0] / self.scale[None, :]
            self._w0t = np.ascontiguousarray(self._w0.T)

    # ------------------------------------------------------------ what it is

    @property
    def observation_size(self) -> int:
        """The size of the observation it reads (padded or plain, see :attr:`padded`)."""
        return self.weights[0].shape[1]

    @property
    def num_actions(self) -> int:
        """The logits it gives: one per action of its game."""
        return self.head.num_actions if self.head else self.weights[-1].shape[0]

    @property
    def game_name(self) -> str:
        """The game in its ``meta`` (``?`` where it does not say)."""
        return str(self.meta.get("game", "?"))

    @property
    def has_value_head(self) -> bool:
        """Whether it values positions (and so can guide a search)."""
        return self.value_w is not None

    @property
    def folds_scale(self) -> bool:
        """Whether the scale is folded into the first layer (a padded network) rather than the
        observation divided by it first (a PPO policy); see the module docstring."""
        return self.padded

    @property
    def kind(self) -> str:
        """What it is, in words: ``policy-and-value network`` or ``policy``."""
        return "policy-and-value network" if self.has_value_head else "policy"

    def describe(self, action_fields: Sequence[str] = ()) -> dict[str, Any]:
        """Its structure for a reader: kind, activation, layer sizes (the action head with the names of
        ``action_fields``) and, where there is one, the value head."""
        layers: list[Any] = [self.observation_size, *(w.shape[0] for w in self.weights)]
        if self.head is not None:  # the last layer is the shared action head
            layers.append(
                {
                    "action_head": {
                        "fields": list(action_fields),
                        "actions": self.head.size,
                        "hidden": len(self.head.bias),
                        "others": len(self.head.rest_bias),
                    }
                }
            )
        kind = (
            f"{self.kind} (tablezoo.bots.net.PolicyValueNet): the agent without search"
            if self.has_value_head
            else f"{self.kind} (tablezoo.bots.net.PolicyValueNet without a value head)"
        )
        structure: dict[str, Any] = {"kind": kind, "activation": self.activation, "layers": layers}
        if self.has_value_head:
            structure["value_head"] = "sigmoid(value_w . h + value_b) over the last hidden layer h"
        return structure

    def reads(self, game: Game[Any], observations: np.ndarray) -> np.ndarray:
        """What it reads of ``game``'s plain observations (one, or ``(N, size)``): padded, or as they are."""
        return game.pad(observations) if self.padded else np.asarray(observations, np.float32)

    def check_fits(self, game: Game[Any], what: str = "the network", options: bool = False) -> None:
        """Raise a ConfigError unless this model reads ``game``'s observations and actions.

        A padded network names its game in ``meta`` (a PPO policy's is checked where it says).
        With ``options``, the game's options must also be the ones the model was trained with, where
        its ``meta`` records them (an option that keeps the sizes, as Heckmeck's quick, is otherwise
        played as it comes)."""
        if (self.padded or "game" in self.meta) and self.meta.get("game") != game.info.name:
            raise ConfigError(f"{what} plays {self.meta.get('game')!r}, not {game.info.name!r}")
        size = game.padded_spec.size if self.padded else game.observation_spec.size
        if self.observation_size != size or self.num_actions != game.num_actions:
            raise ConfigError(
                f"{what} was trained for observations of {self.observation_size} and {self.num_actions} "
                f"actions; {game!r} has {size} and {game.num_actions}"
            )
        trained = self.meta.get("options")
        if options and trained is not None:
            on = list(trained) if isinstance(trained, list) else [k for k, v in trained.items() if v]
            if set(on) != {k for k, v in game.options.items() if v}:
                raise ConfigError(
                    f"{what} plays with the options {', '.join(on) or 'none'} only, not {game!r}"
                )

    # ------------------------------------------------------------ the forward pass

    def _first_layer(self, x: np.ndarray) -> np.ndarray:
        """The first layer's pre-activation of observations ``(N, size)``."""
        if self.folds_scale:
            return x @ self._w0.T + self.biases[0]
        return (x / self.scale) @ self.weights[0].T + self.biases[0]

    def _batch(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Logits ``(N, actions)`` and last hidden layers of observations ``(N, size)``."""
        if self._hidden == 0:  # a policy of one linear layer
            return self._first_layer(x), x / self.scale
        h = self._act(self._first_layer(x))
        for w, b in zip(self.weights[1 : self._hidden], self.biases[1 : self._hidden], strict=True):
            h = self._act(h @ w.T + b)
        if self.head is None:
            return h @ self.weights[-1].T + self.biases[-1], h
        return self.head.batch_logits(x / self.scale, h, self._act), h

    def _single(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Logits and last hidden layer of one observation."""
        if self.folds_scale:
            nz = np.flatnonzero(x)
            z = x[nz] @ self._w0t[nz] + self.biases[0]
            if self._hidden == 0:  # a policy of one linear layer
                return z, x / self.scale
            h = self._act(z)
            layers = zip(self.weights[1 : self._hidden], self.biases[1 : self._hidden], strict=True)
        else:
            x = np.asarray(x, np.float32) / self.scale
            h = x
            layers = zip(self.weights[: self._hidden], self.biases[: self._hidden], strict=True)
        for w, b in layers:
            h = self._act(w @ h + b)
        if self.head is None:
            return self.weights[-1] @ h + self.biases[-1], h
        return self.head.logits(x / self.scale if self.folds_scale else x, h, self._act), h

    def _value_head(self) -> tuple[np.ndarray, float]:
        if self.value_w is None or self.value_b is None:
            raise ConfigError(f"this {self.kind} has no value head: it gives logits only")
        return self.value_w, self.value_b

    def forward(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Logits ``(N, actions)`` and win shares ``(N,)`` of observations ``(N, size)``."""
        value_w, value_b = self._value_head()
        logits, h = self._batch(x)
        return logits, _sigmoid(h @ value_w + value_b)

    def evaluate(self, x: np.ndarray) -> tuple[np.ndarray, float]:
        """Logits and win share of one observation."""
        value_w, value_b = self._value_head()
        logits, h = self._single(x)
        return logits, float(_sigmoid(value_w @ h + value_b))

    def hidden(self, x: np.ndarray) -> np.ndarray:
        """The last hidden layers ``(N, width)`` of observations ``(N, size)``: what the value head reads."""
        return self._batch(x)[1]

    def logits(self, observation: np.ndarray) -> np.ndarray:
        """The logits of one observation (of the layout it reads)."""
        return self._single(observation)[0]

    def act(self, observation: np.ndarray, mask: np.ndarray) -> int:
        """The most likely legal action of one observation (of the layout it reads)."""
        logits = self.logits(observation)
        return int(np.argmax(np.where(np.asarray(mask, bool), logits, -np.inf)))

    # ------------------------------------------------------------ files

    def save(self, path: str | Path) -> None:
        """Write the model to ``path`` in its layout (see the module docstring)."""
        arrays: dict[str, np.ndarray] = {"scale": self.scale}
        for i, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            arrays[f"w{i}"] = w
            arrays[f"b{i}"] = b
        if self.value_w is not None:
            arrays.update(value_w=self.value_w, value_b=np.array([self.value_b], np.float32))
        if self.head is not None:
            arrays.update({f"head_{name}": getattr(self.head, name) for name in ActionHead.ARRAYS})
        if self.padded:
            if self.head is not None:
                arrays["head_size"] = np.array([self.head.size])
            meta = self.meta if self.activation == "relu" else {**self.meta, "activation": self.activation}
            arrays["meta"] = np.array(json.dumps(meta, sort_keys=True))
        else:
            shape = {"activation": self.activation, "layers": len(self.weights)}
            if self.head is not None:
                shape["head_size"] = self.head.size
            arrays["meta"] = np.array(json.dumps({**self.meta, **shape}))
        np.savez_compressed(path, **arrays)  # type: ignore[arg-type]  # numpy's stub types **kwds narrowly

    @classmethod
    def load(cls, path: str | Path) -> PolicyValueNet:
        """The model in the ``.npz`` file ``path``, of either layout (:func:`load_model` says why a file
        is not one)."""
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            padded = "layers" not in meta  # a plain policy's layout records its layers in meta
            if padded:
                layers = sum(1 for k in data.files if k.startswith("w") and k[1:].isdigit())
                activation = meta.pop("activation", "relu")
                head_size = int(data["head_size"][0]) if "head_size" in data else None
            else:
                layers, activation, head_size = (meta.pop(k, None) for k in _LAYOUT_KEYS)
            weights = [data[f"w{i}"] for i in range(layers)]
            biases = [data[f"b{i}"] for i in range(layers)]
            head = None
            if head_size is not None:
                arrays = {name: data[f"head_{name}"] for name in ActionHead.ARRAYS}
                head = ActionHead(size=head_size, **arrays)
            value_w, value_b = (data["value_w"], data["value_b"]) if "value_w" in data else (None, None)
            return PolicyValueNet(
                weights,
                biases,
                value_w,
                value_b,
                data["scale"],
                meta,
                head,
                activation=activation,
                padded=padded,
            )

    @classmethod
    def mean(cls, nets: list[PolicyValueNet]) -> PolicyValueNet:
        """The network whose every weight is the mean of ``nets``' (weight averaging), ``meta`` the last's.

        Meant for networks of one run (the rounds of a league, close in weights): their mean
        smooths the noise of the rounds' updates. Networks of other games, layouts or
        observation scales are refused."""
        if not nets:
            raise ValueError("the mean of no networks")
        first = nets[0]

        def shapes(net: PolicyValueNet) -> list[tuple[int, ...]]:
            arrays = [*net.weights, *net.biases]
            arrays += [] if net.value_w is None else [net.value_w]
            arrays += [getattr(net.head, a) for a in ActionHead.ARRAYS] if net.head else []
            return [a.shape for a in arrays]

        for net in nets[1:]:
            if net.game_name != first.game_name or shapes(net) != shapes(first):
                layers, first_layers = shapes(net)[: len(net.weights)], shapes(first)[: len(first.weights)]
                raise ConfigError(
                    f"only networks of one game and layout are averaged: {net.game_name!r} with layers "
                    f"{layers}, not {first.game_name!r} with {first_layers}"
                )
            if (
                not np.array_equal(net.scale, first.scale)
                or (net.activation, net.padded, net.has_value_head)
                != (first.activation, first.padded, first.has_value_head)
                or (net.head and not np.array_equal(net.head.offsets, first.head.offsets))  # type: ignore[union-attr]
            ):
                raise ConfigError("only networks that read the observation alike (one scale) are averaged")

        def avg(arrays: list[np.ndarray]) -> np.ndarray:
            return np.mean(np.stack(arrays).astype(np.float64), axis=0).astype(np.float32)

        head = None
        if first.head is not None:
            heads = [n.head for n in nets]
            arrays = {a: avg([getattr(h, a) for h in heads]) for a in ActionHead.ARRAYS[1:]}
            head = ActionHead(offsets=first.head.offsets, size=first.head.size, **arrays)
        value_w, value_b = None, None
        if first.has_value_head:
            value_w = avg([n.value_w for n in nets])  # type: ignore[misc]  # every one has a value head
            value_b = np.array([np.mean([n.value_b for n in nets])], np.float32)
        return PolicyValueNet(
            [avg([n.weights[i] for n in nets]) for i in range(len(first.weights))],
            [avg([n.biases[i] for n in nets]) for i in range(len(first.biases))],
            value_w,
            value_b,
            first.scale,
            nets[-1].meta,
            head,
            activation=first.activation,
            padded=first.padded,
        )

    @classmethod
    def initial(
        cls, game: Game[Any], hidden: tuple[int, ...], seed: int = 0, action_head: int = 64
    ) -> PolicyValueNet:
        """A freshly initialised network for ``game`` (He-initialised hidden layers, small heads).

        A game with action fields gets an action head with ``action_head`` hidden
        units (0: a plain linear layer instead)."""
        rng = np.random.default_rng(seed)
        spec = game.padded_spec
        sizes = [spec.size, *hidden]
        weights = [rng.normal(0, np.sqrt(2 / a), (b, a)) for a, b in itertools.pairwise(sizes)]
        meta: dict[str, Any] = {"game": game.info.name, "options": dict(game.options), "hidden": list(hidden)}
        head = None
        if game.action_fields and action_head:
            size, fields, g = spec[game.action_fields[0]].size, len(game.action_fields), sizes[-1]
            head = ActionHead(
                offsets=np.array([spec.offsets[name] for name in game.action_fields]),
                size=size,
                card=rng.normal(0, np.sqrt(2 / (fields + 1)), (action_head, fields + 1)),
                context=rng.normal(0, np.sqrt(1 / g), (action_head, g)),
                bias=np.zeros(action_head),
                out=rng.normal(0, 0.01, action_head),
                out_bias=np.zeros(1),
                rest=rng.normal(0, 0.01, (game.num_actions - size, g)),
                rest_bias=np.zeros(game.num_actions - size),
            )
            meta["action_head"] = action_head
        else:
            weights.append(rng.normal(0, 0.01, (game.num_actions, sizes[-1])))
        biases = [np.zeros(w.shape[0]) for w in weights]
        return PolicyValueNet(
            weights, biases, rng.normal(0, 0.01, sizes[-1]), np.zeros(1), spec.scale(), meta, head
        )

    @classmethod
    def from_sb3(cls, model: Any, scale: np.ndarray, meta: dict[str, Any] | None = None) -> PolicyValueNet:
        """The actor of a (Maskable)PPO ``MlpPolicy`` (or an
        :class:`~tablezoo.training.ppo.sb3_policy.ActionFieldPolicy`) trained on scaled observations, as a
        policy of one seat count."""
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
        else:
            head = None
            layers.append(head_net)
        weights = [numpy(m.weight) for m in layers]
        biases = [numpy(m.bias) for m in layers]
        return PolicyValueNet(
            weights, biases, None, None, scale, meta or {}, head, activation=activation, padded=False
        )


def load_model(path: str | Path) -> PolicyValueNet:
    """The model in the ``.npz`` file ``path`` (a network of ``tablezoo expert``, a shipped agent, or a
    policy of ``tablezoo train``); a ConfigError says why a file is none."""
    path = Path(path)
    if not path.exists():
        raise ConfigError(f"no policy file {path}")
    try:
        return PolicyValueNet.load(path)
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise ConfigError(
            f"{path} is not a policy .npz of tablezoo train or tablezoo expert: {err}"
        ) from None
