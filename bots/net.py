"""A policy-and-value network that runs on numpy alone, for every seat count of a game.

The network reads the game's padded observation
(:meth:`~tablezoo.games.core.Game.observe_padded`: one layout for every seat
count, the seat count itself one-hot), so one file plays 2 to 10 seats of
6 nimmt!. Its forward pass:

* the observation divided by its scale (each field's upper bound: every input in 0..1);
* hidden layers ``relu(W x + b)``;
* a policy head: one logit per action (illegal ones are masked by the caller).
  A game with :attr:`~tablezoo.games.core.Game.action_fields` (6 nimmt!'s
  ``hand_*``: where each card would go) gets an
  :class:`~tablezoo.bots.policy.ActionHead` instead of the last linear layer:
  one small network, shared by all cards, scores each card from its own field
  entries and the last hidden layer, so a lesson about one card is a lesson
  about all of them;
* a value head: ``sigmoid(v · h + c)``, the seat's expected *win share*, the
  part of the win it takes (1 alone, 1/k in a k-way tie, 0 otherwise). A fair
  share at ``n`` seats is ``1/n``.

The file is a ``.npz``: the arrays ``scale``, ``w0 .. wK``, ``b0 .. bK`` (hidden
layers, then the policy layer unless there is an action head), ``value_w``,
``value_b``, ``head_*`` (the action head's arrays, if any) and ``meta``, a JSON
text with the game, its options, the sizes and how it was trained.
:mod:`tablezoo.training.expert` trains it; the torch twin there has the same
layers, so the weights copy over one to one.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import numpy as np

from tablezoo.bots.policy import ActionHead
from tablezoo.games.core import ConfigError, Game

__all__ = ["PolicyValueNet", "masked_softmax", "win_share"]


def win_share(game: Game[Any], state: Any, seat: int) -> float:
    """The part of the win ``seat`` takes in a finished game: 1 alone, 1/k in a k-way tie, 0 otherwise."""
    winners = game.winners(state)
    return 1.0 / len(winners) if seat in winners else 0.0


def _sigmoid(z: Any) -> Any:
    """``1 / (1 + exp(-z))`` without overflow for a large negative ``z`` (a value head sure of a loss)."""
    return 0.5 * (1.0 + np.tanh(0.5 * z))


def _relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0.0)


def masked_softmax(logits: np.ndarray, legal: list[int] | np.ndarray) -> np.ndarray:
    """The policy over ``legal`` (in its order) from the full logit vector."""
    x = logits[legal]
    x = np.exp(x - x.max())
    return x / x.sum()


class PolicyValueNet:
    """An MLP with a policy head and a win-share head over a game's padded observation.

    Without ``head`` the last of ``weights`` gives the logits; with an
    :class:`~tablezoo.bots.policy.ActionHead`, all of ``weights`` are hidden
    layers and the head gives them.
    """

    def __init__(
        self,
        weights: list[np.ndarray],
        biases: list[np.ndarray],
        value_w: np.ndarray,
        value_b: np.ndarray,
        scale: np.ndarray,
        meta: dict[str, Any],
        head: ActionHead | None = None,
    ) -> None:
        if len(weights) != len(biases) or len(weights) < (1 if head else 2):
            raise ValueError("a network needs one bias per weight matrix: hidden layers and the policy layer")
        self.weights = [np.ascontiguousarray(w, np.float32) for w in weights]
        self.biases = [np.asarray(b, np.float32) for b in biases]
        self.value_w = np.asarray(value_w, np.float32).reshape(-1)
        self.value_b = float(np.asarray(value_b).reshape(-1)[0])
        self.scale = np.asarray(scale, np.float32)
        self.meta = dict(meta)
        self.head = head
        self._hidden = len(self.weights) if head else len(self.weights) - 1
        # the scale folded into the first layer: one multiply fewer per call; its transpose lets one
        # observation (mostly zeros: one-hots, cards not held) read only the rows of its nonzero entries
        self._w0 = self.weights[0] / self.scale[None, :]
        self._w0t = np.ascontiguousarray(self._w0.T)

    @property
    def observation_size(self) -> int:
        return self.weights[0].shape[1]

    @property
    def num_actions(self) -> int:
        return self.head.num_actions if self.head else self.weights[-1].shape[0]

    @property
    def game_name(self) -> str:
        return str(self.meta.get("game", "?"))

    def check_fits(self, game: Game[Any], what: str = "the network") -> None:
        """Raise a ConfigError unless this network reads ``game``'s padded observations and actions."""
        if self.meta.get("game") != game.info.name:
            raise ConfigError(f"{what} plays {self.meta.get('game')!r}, not {game.info.name!r}")
        size = game.padded_spec.size
        if self.observation_size != size or self.num_actions != game.num_actions:
            raise ConfigError(
                f"{what} was trained for observations of {self.observation_size} and {self.num_actions} "
                f"actions; {game!r} has {size} and {game.num_actions}"
            )

    def forward(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Logits ``(N, actions)`` and win shares ``(N,)`` of padded observations ``(N, size)``."""
        h = np.maximum(x @ self._w0.T + self.biases[0], 0.0)
        for w, b in zip(self.weights[1 : self._hidden], self.biases[1 : self._hidden], strict=True):
            h = np.maximum(h @ w.T + b, 0.0)
        if self.head is None:
            logits = h @ self.weights[-1].T + self.biases[-1]
        else:
            head = self.head
            fields = (x[:, head.index] / self.scale[head.index]).reshape(len(x), len(head.offsets), head.size)
            cards = np.concatenate(
                [fields.transpose(0, 2, 1), np.broadcast_to(head.position, (len(x), head.size, 1))], 2
            )
            z = cards @ head.card.T + (h @ head.context.T + head.bias)[:, None, :]
            shared = np.maximum(z, 0.0) @ head.out + head.out_bias
            logits = np.concatenate([shared, h @ head.rest.T + head.rest_bias], axis=1)
        value = _sigmoid(h @ self.value_w + self.value_b)
        return logits, value

    def evaluate(self, x: np.ndarray) -> tuple[np.ndarray, float]:
        """Logits and win share of one padded observation."""
        nz = np.flatnonzero(x)
        h = np.maximum(x[nz] @ self._w0t[nz] + self.biases[0], 0.0)
        for w, b in zip(self.weights[1 : self._hidden], self.biases[1 : self._hidden], strict=True):
            h = np.maximum(w @ h + b, 0.0)
        if self.head is None:
            logits = self.weights[-1] @ h + self.biases[-1]
        else:
            logits = self.head.logits(x / self.scale, h, _relu)
        return logits, float(_sigmoid(self.value_w @ h + self.value_b))

    # ------------------------------------------------------------ files

    def save(self, path: str | Path) -> None:
        arrays: dict[str, np.ndarray] = {f"w{i}": w for i, w in enumerate(self.weights)}
        arrays.update({f"b{i}": b for i, b in enumerate(self.biases)})
        arrays.update(
            scale=self.scale,
            value_w=self.value_w,
            value_b=np.array([self.value_b], np.float32),
            meta=np.array(json.dumps(self.meta, sort_keys=True)),
        )
        if self.head is not None:
            arrays.update({f"head_{name}": getattr(self.head, name) for name in ActionHead.ARRAYS})
            arrays["head_size"] = np.array([self.head.size])
        np.savez_compressed(path, **arrays)  # type: ignore[arg-type]  # numpy's stub types **kwds narrowly

    @classmethod
    def load(cls, path: str | Path) -> PolicyValueNet:
        with np.load(path, allow_pickle=False) as data:
            if "value_w" not in data:
                raise ConfigError(f"{path} is not a policy-and-value network (no value head)")
            layers = sum(1 for k in data.files if k.startswith("w") and k[1:].isdigit())
            weights = [data[f"w{i}"] for i in range(layers)]
            biases = [data[f"b{i}"] for i in range(layers)]
            meta = json.loads(str(data["meta"]))
            head = None
            if "head_size" in data:
                arrays = {name: data[f"head_{name}"] for name in ActionHead.ARRAYS}
                head = ActionHead(size=int(data["head_size"][0]), **arrays)
            return cls(weights, biases, data["value_w"], data["value_b"], data["scale"], meta, head)

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
            arrays = [*net.weights, *net.biases, net.value_w]
            arrays += [getattr(net.head, a) for a in ActionHead.ARRAYS] if net.head else []
            return [a.shape for a in arrays]

        for net in nets[1:]:
            if net.game_name != first.game_name or shapes(net) != shapes(first):
                layers, first_layers = shapes(net)[: len(net.weights)], shapes(first)[: len(first.weights)]
                raise ConfigError(
                    f"only networks of one game and layout are averaged: {net.game_name!r} with layers "
                    f"{layers}, not {first.game_name!r} with {first_layers}"
                )
            if not np.array_equal(net.scale, first.scale) or (
                net.head and not np.array_equal(net.head.offsets, first.head.offsets)  # type: ignore[union-attr]
            ):
                raise ConfigError("only networks that read the observation alike (one scale) are averaged")

        def avg(arrays: list[np.ndarray]) -> np.ndarray:
            return np.mean(np.stack(arrays).astype(np.float64), axis=0).astype(np.float32)

        head = None
        if first.head is not None:
            heads = [n.head for n in nets]
            arrays = {a: avg([getattr(h, a) for h in heads]) for a in ActionHead.ARRAYS[1:]}
            head = ActionHead(offsets=first.head.offsets, size=first.head.size, **arrays)
        return cls(
            [avg([n.weights[i] for n in nets]) for i in range(len(first.weights))],
            [avg([n.biases[i] for n in nets]) for i in range(len(first.biases))],
            avg([n.value_w for n in nets]),
            np.array([np.mean([n.value_b for n in nets])], np.float32),
            first.scale,
            nets[-1].meta,
            head,
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
        return cls(weights, biases, rng.normal(0, 0.01, sizes[-1]), np.zeros(1), spec.scale(), meta, head)
