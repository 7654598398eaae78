"""The bot that plays a trained policy from the seat's observation alone.

A PPO run (``tablezoo train``, stable-baselines3 or RLlib) exports its actor to
a small ``policy.npz``: a :class:`~tablezoo.bots.net.PolicyValueNet` with no
value head that reads the plain observation of one seat count (see
:mod:`tablezoo.bots.net`). Running it needs only numpy, so a trained policy can
sit at a table, or in another front end, straight after ``pip install
tablezoo`` without torch. :class:`PolicyBot` plays it: the most likely legal
action, no search.

:class:`NumpyPolicy` is the former name of such a policy, kept with its
constructor for code written against it; this package builds the
:class:`~tablezoo.bots.net.PolicyValueNet` itself (``value_w=None``, ``padded=False``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tablezoo.bots.core import Seat
from tablezoo.bots.net import ACTIVATIONS, ActionHead, PolicyValueNet

__all__ = ["ACTIVATIONS", "ActionHead", "NumpyPolicy", "PolicyBot"]


class NumpyPolicy(PolicyValueNet):
    """A policy of one seat count under its former name and constructor: a
    :class:`~tablezoo.bots.net.PolicyValueNet` with no value head that reads the plain observation.
    Its ``load`` and ``from_sb3`` give a :class:`~tablezoo.bots.net.PolicyValueNet`."""

    def __init__(
        self,
        weights: list[np.ndarray],
        biases: list[np.ndarray],
        scale: np.ndarray,
        activation: str = "tanh",
        meta: dict[str, Any] | None = None,
        head: ActionHead | None = None,
    ) -> None:
        super().__init__(
            weights, biases, None, None, scale, meta or {}, head, activation=activation, padded=False
        )


class PolicyBot:
    """Plays a model's most likely legal action from the seat's observation (no search)."""

    def __init__(self, policy: PolicyValueNet, name: str = "agent") -> None:
        self.policy = policy
        self.name = name

    def reset(self, seed: int | None = None) -> None:
        pass

    def act(self, seat: Seat) -> int:
        return self.policy.act(self.policy.reads(seat.game, seat.observation), seat.mask)
