"""The action-head policy for sb3-contrib's MaskablePPO (needs the ``train`` extra).

:class:`ActionFieldPolicy` is ``MlpPolicy`` with its last actor layer replaced
by :class:`ActionFieldHead`: the first ``K`` actions, those that a game's
:attr:`~tablezoo.games.core.Game.action_fields` describe, are scored by one
small network shared across them (see :class:`tablezoo.bots.net.ActionHead`,
its numpy twin, for the formula). The critic is the usual MLP.

``tablezoo train`` uses it when the hyperparameters of an env id give
``action_head: H`` (the shared network's hidden size)::

    sechs_nimmt_v0:
      net_arch: [256, 64]   # the hidden layers; the last one is the context
      action_head: 64
"""

from __future__ import annotations

from functools import partial
from typing import Any, cast

import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import MlpExtractor
from torch import nn

from tablezoo.games.core import ConfigError, Game
from tablezoo.training.torch_net import ActionFieldHead


def action_head_kwargs(game: Game[Any], hidden: int) -> dict[str, Any]:
    """The ``policy_kwargs`` that give ``game``'s action fields an :class:`ActionFieldHead`."""
    if not game.action_fields:
        raise ConfigError(f"{game.info.title} has no action fields; drop 'action_head' from its hyperparams")
    spec = game.observation_spec
    return {
        "action_offsets": [spec.offsets[name] for name in game.action_fields],
        "action_size": spec[game.action_fields[0]].size,
        "action_hidden": int(hidden),
    }


class ActionFieldExtractor(MlpExtractor):
    """The usual actor and critic MLPs; the actor's latent also carries the action fields' entries."""

    index: torch.Tensor

    def __init__(
        self, feature_dim: int, net_arch: Any, activation_fn: type[nn.Module], device: Any, index: np.ndarray
    ) -> None:
        super().__init__(feature_dim, net_arch, activation_fn, device)
        self.register_buffer("index", torch.as_tensor(index, dtype=torch.long))
        self.context_dim = self.latent_dim_pi
        self.latent_dim_pi = self.context_dim + len(index)

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return torch.cat([self.policy_net(features), features[:, self.index]], dim=1)


class ActionFieldPolicy(MaskableActorCriticPolicy):
    """MaskablePPO's ``MlpPolicy`` with an :class:`ActionFieldHead` as the last actor layer."""

    def __init__(
        self,
        *args: Any,
        action_offsets: list[int],
        action_size: int,
        action_hidden: int = 64,
        **kwargs: Any,
    ) -> None:
        self.action_offsets = list(action_offsets)
        self.action_size, self.action_hidden = action_size, action_hidden
        super().__init__(*args, **kwargs)

    def _build_mlp_extractor(self) -> None:
        index = (np.asarray(self.action_offsets)[:, None] + np.arange(self.action_size)).ravel()
        self.mlp_extractor = ActionFieldExtractor(
            self.features_dim, self.net_arch, self.activation_fn, self.device, index
        )

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)  # builds a linear action_net and the optimizer; both are replaced
        extractor = cast(ActionFieldExtractor, self.mlp_extractor)
        self.action_net = ActionFieldHead(
            extractor.context_dim,
            self.action_offsets,
            self.action_size,
            self.action_hidden,
            int(cast(spaces.Discrete, self.action_space).n),
            self.activation_fn,
        ).to(self.device)
        if self.ortho_init:  # as MlpPolicy: small final layers, so the first policy is near uniform
            head = self.action_net
            for module, gain in ((head, np.sqrt(2)), (head.out, 0.01), (head.rest, 0.01)):
                module.apply(partial(self.init_weights, gain=gain))
        self.optimizer = self.optimizer_class(  # type: ignore[call-arg]  # every torch optimizer takes lr
            self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs
        )

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data.update(
            action_offsets=self.action_offsets, action_size=self.action_size, action_hidden=self.action_hidden
        )
        return data
