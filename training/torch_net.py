"""The torch twin of :class:`~tablezoo.bots.net.PolicyValueNet`, for training (needs the ``train`` extra).

The numpy network plays (in self-play workers, at the tables); this twin has
the same layers, so its weights copy over one to one, both ways:
``TorchTwin(net)`` starts from a numpy network and :meth:`TorchTwin.to_numpy`
gives the trained one back. :mod:`tablezoo.training.expert.run` fits it to a
teacher's or a search's moves, :mod:`tablezoo.training.expert.league` by policy
gradient. :class:`ActionFieldHead` is the torch layer of a game's action fields, shared by
the twin and MaskablePPO's :class:`~tablezoo.training.ppo.sb3_policy.ActionFieldPolicy`.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import torch
from torch import nn

from tablezoo.bots.net import ActionHead, PolicyValueNet
from tablezoo.games.core import ConfigError


class ActionFieldHead(nn.Module):
    """Logits from ``[context, action fields (field-major)]``: K shared scores, the rest linear."""

    position: torch.Tensor

    def __init__(
        self,
        context_dim: int,
        offsets: list[int],
        size: int,
        hidden: int,
        num_actions: int,
        activation_fn: type[nn.Module],
    ) -> None:
        super().__init__()
        self.context_dim, self.offsets, self.size = context_dim, list(offsets), size
        self.shared = nn.Linear(len(offsets) + 1, hidden)  # an action's field entries and its position
        self.context = nn.Linear(context_dim, hidden, bias=False)
        self.out = nn.Linear(hidden, 1)
        self.rest = nn.Linear(context_dim, num_actions - size)
        self.activation = activation_fn()
        position = torch.arange(1, size + 1, dtype=torch.float32) / size
        self.register_buffer("position", position.view(1, size, 1))

    def forward(self, latent: torch.Tensor) -> torch.Tensor:
        context, fields = latent[:, : self.context_dim], latent[:, self.context_dim :]
        batch = latent.shape[0]
        cards = fields.view(batch, len(self.offsets), self.size).transpose(1, 2)
        inputs = torch.cat([cards, self.position.expand(batch, -1, -1)], dim=2)
        hidden = self.activation(self.shared(inputs) + self.context(context).unsqueeze(1))
        return torch.cat([self.out(hidden).squeeze(2), self.rest(context)], dim=1)


_HEAD_TENSORS = (
    ("shared", "weight"),
    ("context", "weight"),
    ("shared", "bias"),
    ("out", "weight"),
    ("out", "bias"),
    ("rest", "weight"),
    ("rest", "bias"),
)
"""The torch tensors of an ``ActionFieldHead``, in the order of :func:`_head_arrays`."""


def _head_arrays(head: ActionHead) -> list[np.ndarray]:
    """An :class:`ActionHead`'s arrays in the shapes of ``_HEAD_TENSORS``."""
    return [head.card, head.context, head.bias, head.out[None, :], head.out_bias, head.rest, head.rest_bias]


def _numpy(t: Any) -> np.ndarray:
    return t.detach().numpy().copy()


class TorchTwin(nn.Module):
    """A :class:`PolicyValueNet`'s layers in torch, starting from its weights."""

    index: torch.Tensor | None
    scale: torch.Tensor

    def __init__(self, net: PolicyValueNet) -> None:
        super().__init__()
        if net.value_w is None or net.value_b is None or not net.padded or net.activation != "relu":
            raise ConfigError(
                f"the torch twin trains a relu network with a value head that reads the padded "
                f"observation, not this {net.kind}"
            )
        value_w, value_b = net.value_w, net.value_b
        self.meta, self.num_actions = dict(net.meta), net.num_actions
        hidden = net.weights[: net._hidden]
        sizes = [net.observation_size, *(w.shape[0] for w in hidden)]
        self.trunk = nn.Sequential(
            *[m for a, b in itertools.pairwise(sizes) for m in (nn.Linear(a, b), nn.ReLU())]
        )
        self.value_head = nn.Linear(sizes[-1], 1)
        self.register_buffer("scale", torch.from_numpy(net.scale))
        self.head_layout = net.head
        if net.head is None:
            self.policy_head: nn.Module = nn.Linear(sizes[-1], net.num_actions)
            self.index = None
        else:
            head = net.head
            self.policy_head = ActionFieldHead(
                sizes[-1], list(head.offsets), head.size, len(head.bias), net.num_actions, nn.ReLU
            )
            self.register_buffer("index", torch.from_numpy(head.index))
        with torch.no_grad():
            for layer, w, b in zip(self.trunk_linears, hidden, net.biases, strict=False):
                layer.weight.copy_(torch.from_numpy(w))
                layer.bias.copy_(torch.from_numpy(b))
            arrays = [net.weights[-1], net.biases[-1]] if net.head is None else _head_arrays(net.head)
            for name, array in zip(self._head_names, arrays, strict=True):
                self.policy_head.get_parameter(name).copy_(torch.from_numpy(array))
            self.value_head.weight.copy_(torch.from_numpy(value_w[None, :]))
            self.value_head.bias.fill_(value_b)

    @property
    def trunk_linears(self) -> list[nn.Linear]:
        return [m for m in self.trunk if isinstance(m, nn.Linear)]

    @property
    def _head_names(self) -> list[str]:
        tensors = [("", "weight"), ("", "bias")] if self.index is None else _HEAD_TENSORS
        return [f"{module}.{name}".lstrip(".") for module, name in tensors]

    def forward(self, obs: torch.Tensor, illegal: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Log-probabilities over the legal moves and the win-share logits of raw padded observations.

        ``illegal`` marks the moves the rules rule out: they get no probability,
        so none of the network's capacity goes to ruling them out."""
        x = obs.float() / self.scale
        h = self.trunk(x)
        latent = h if self.index is None else torch.cat([h, x[:, self.index]], dim=1)
        logits = self.policy_head(latent).masked_fill(illegal, -1e9)
        return torch.log_softmax(logits, dim=1), self.value_head(h).squeeze(1)

    def policy_value(self, obs: torch.Tensor, illegal: torch.Tensor, rows: torch.Tensor) -> tuple[Any, Any]:
        """As :meth:`forward`, with the policy only for the ``rows`` (a boolean mask) that have one."""
        x = obs.float() / self.scale
        h = self.trunk(x)
        value = self.value_head(h).squeeze(1)
        if not rows.any():
            return None, value
        latent = h[rows] if self.index is None else torch.cat([h[rows], x[rows][:, self.index]], dim=1)
        logits = self.policy_head(latent).masked_fill(illegal[rows], -1e9)
        return torch.log_softmax(logits, dim=1), value

    def to_numpy(self) -> PolicyValueNet:
        """The numpy network with this twin's weights (and the meta it started with)."""
        weights = [_numpy(m.weight) for m in self.trunk_linears]
        biases = [_numpy(m.bias) for m in self.trunk_linears]
        head = None
        arrays = [_numpy(self.policy_head.get_parameter(name)) for name in self._head_names]
        if self.head_layout is None:
            weights.append(arrays[0])
            biases.append(arrays[1])
        else:
            card, context, bias, out, out_bias, rest, rest_bias = arrays
            layout = self.head_layout
            head = ActionHead(
                layout.offsets, layout.size, card, context, bias, out.reshape(-1), out_bias, rest, rest_bias
            )
        return PolicyValueNet(
            weights,
            biases,
            _numpy(self.value_head.weight).reshape(-1),
            _numpy(self.value_head.bias),
            _numpy(self.scale),
            self.meta,
            head,
        )
