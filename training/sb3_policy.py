"""Deprecated: moved to :mod:`tablezoo.training.ppo.sb3_policy`. This path goes in the next release."""

from tablezoo.training._moved import moved

__getattr__ = moved(
    "tablezoo.training.sb3_policy", "tablezoo.training.ppo.sb3_policy", "tablezoo.training.torch_net"
)
