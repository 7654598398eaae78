"""How a policy reads its seat, and a policy as a bot: :class:`Reading` and :class:`FunctionBot`.

**Which observation.** A policy reads either the plain observation of its seat
count (:attr:`Game.observation_spec`) or the padded one that every seat count
shares (:attr:`Game.padded_spec`, the seat count one-hot), each raw or scaled
into 0..1 (divided by each field's bound, as ``scale_observations=True``
gives). Nothing is guessed: the layout and the scaling come from the policy
where it declares them, from the caller otherwise, and a policy fed neither is
refused with a message that names the ways that work for its kind.

- *Declared by the policy.* An SB3 model's or an RLlib module's observation
  space (the layout by its size, scaling where the space is bounded by 1); an
  ONNX file's metadata (``tablezoo.observation`` and ``tablezoo.scaled``, which
  ``tablezoo export`` writes); a torch module's or a callable's attributes
  :data:`OBSERVATION_ATTR` (``"plain"`` or ``"padded"``) and :data:`SCALED_ATTR`
  (a bool).
- *Told by the caller.* ``observation="plain"`` or ``"padded"`` and
  ``scaled=True/False`` (``--observation``, ``--scaled`` or ``--raw`` on the
  command line), for a policy that declares nothing. A torch module's first
  ``Linear`` or a callable's ``observation_size`` gives the layout by its size.
- A setting the caller gives that contradicts the policy's declaration is
  refused, as is a size that is neither layout's (both sizes named) and a
  policy trained for another number of actions.

The bot's :attr:`FunctionBot.reading` says what it reads and who said so
(:meth:`Reading.as_dict`); benchmark results record it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from tablezoo.bots.core import Seat
from tablezoo.games.core import ConfigError, Game

Layout = Literal["auto", "plain", "padded"]
Decide = Callable[[np.ndarray, np.ndarray], Any]
"""One observation (as the policy reads it) and the 0/1 mask -> the policy's outputs per action,
or an action id."""

OBSERVATION_ATTR = "tablezoo_observation"
"""The attribute of a torch module or a callable that declares the layout it reads: ``"plain"`` or
``"padded"`` (it is pickled with a module saved whole)."""
SCALED_ATTR = "tablezoo_scaled"
"""The attribute of a torch module or a callable that declares whether it reads the observation
scaled into 0..1 (True) or raw (False)."""
FLAGS = (
    "say what it reads: observation='plain'|'padded' and scaled=True|False "
    "(on the command line --observation plain|padded and --scaled or --raw), "
    f"or set its attributes {OBSERVATION_ATTR} and {SCALED_ATTR}"
)
"""The ways to tell a policy's input, named in a refusal (a torch module, a callable)."""
ONNX_FLAGS = (
    "say what it reads: observation='plain'|'padded' and scaled=True|False "
    "(on the command line --observation plain|padded and --scaled or --raw), "
    "or write the graph's metadata tablezoo.observation ('plain' or 'padded') and tablezoo.scaled "
    "('true' or 'false'), as `tablezoo export` does (onnx.helper.set_model_props)"
)
"""The ways to tell an ONNX graph's input, named in a refusal."""


@dataclass(frozen=True)
class Reading:
    """How a policy reads a seat: the layout and the scaling of its observation, and who said so."""

    padded: bool = False
    scaled: bool = False
    source: str = "caller"
    """Who declared the reading: the policy (its space, metadata or attributes) or the caller."""

    @property
    def observation(self) -> str:
        """The layout's name: ``"plain"`` or ``"padded"``."""
        return "padded" if self.padded else "plain"

    def as_dict(self) -> dict[str, Any]:
        """The reading as a result records it."""
        return {"observation": self.observation, "scaled": self.scaled, "declared_by": self.source}

    @classmethod
    def fit(
        cls,
        game: Game[Any],
        size: int | None,
        what: str,
        observation: str = "auto",
        scaled: bool | None = None,
        unit_bounds: bool | None = None,
        declared: tuple[str | None, bool | None] = (None, None),
        source: str = "the policy",
        ways: str = FLAGS,
    ) -> Reading:
        """The reading of a policy whose input has ``size`` entries (None: undeclared).

        ``unit_bounds``: whether the policy's declared space is bounded by 1 (trained on scaled
        input; None: it has no space). ``declared``: the layout and the scaling the policy states
        itself (its metadata or attributes), ``source`` where those come from. ``observation``
        and ``scaled`` are the caller's; either may only agree with what the policy declares.
        ``ways``: how its kind of policy can declare it, named when it is undeclared.
        """
        plain, padded = game.observation_spec.size, game.padded_spec.size
        if observation not in ("auto", "plain", "padded"):
            raise ConfigError(f"observation is 'auto', 'plain' or 'padded', not {observation!r}")
        own_layout, own_scaled = declared
        if own_layout is not None and own_layout not in ("plain", "padded"):
            raise ConfigError(f"{what} declares the layout {own_layout!r}: it is 'plain' or 'padded'")
        if own_scaled is None and unit_bounds is not None:
            own_scaled = unit_bounds
        by_size = None
        if size is not None:
            if size == plain:
                by_size = "plain"
            elif size == padded:
                by_size = "padded"
            else:
                raise ConfigError(
                    f"{what} reads observations of {size} entries; {game!r} gives {plain} "
                    f"(plain) or {padded} (padded, every seat count)"
                )
        layout = own_layout or by_size
        if own_layout is not None and by_size is not None and own_layout != by_size:
            raise ConfigError(f"{what} declares the {own_layout} layout but reads {size} entries")
        if observation != "auto":
            if layout is not None and layout != observation:
                raise ConfigError(
                    f"{what} reads the {layout} observation ({source if own_layout else 'by its size'}); "
                    f"observation={observation!r} contradicts it"
                )
            layout = observation
        if scaled is not None and own_scaled is not None and scaled != own_scaled:
            raise ConfigError(
                f"{what} reads the observation {'scaled' if own_scaled else 'raw'} ({source}); "
                f"scaled={scaled} contradicts it"
            )
        final_scaled = own_scaled if own_scaled is not None else scaled
        if layout is None or final_scaled is None:
            missing = " and ".join(
                w for w, m in (("layout", layout is None), ("scaling", final_scaled is None)) if m
            )
            raise ConfigError(f"{what} does not declare the {missing} of the observation it reads: {ways}")
        sized_by_space = by_size is not None and unit_bounds is not None  # a space's size is its declaration
        layout_by = source if own_layout or sized_by_space else "its input size" if by_size else "caller"
        scaled_by = source if own_scaled is not None else "caller"
        said = layout_by if layout_by == scaled_by else f"layout: {layout_by}; scaling: {scaled_by}"
        return cls(layout == "padded", bool(final_scaled), said)

    def read(self, seat: Seat) -> np.ndarray:
        """``seat``'s observation, float32, as the policy reads it."""
        game = seat.game
        obs = game.pad(seat.observation) if self.padded else seat.observation
        if self.scaled:
            spec = game.padded_spec if self.padded else game.observation_spec
            obs = obs / spec.scale()
        return np.asarray(obs, np.float32)


def declared(policy: Any) -> tuple[str | None, bool | None]:
    """The layout and the scaling a torch module or a callable states in its attributes."""
    layout = getattr(policy, OBSERVATION_ATTR, None)
    scaled = getattr(policy, SCALED_ATTR, None)
    return (None if layout is None else str(layout)), (None if scaled is None else bool(scaled))


class FunctionBot:
    """A bot that asks ``decide(observation, mask)``: an action id, or an output per action.

    An output per action (logits, Q-values, probabilities) is played greedily among the
    legal actions; an action id must be legal, or the game's own error names the legal ones.
    """

    def __init__(self, decide: Decide, reading: Reading, name: str = "policy") -> None:
        self.decide = decide
        self.reading = reading
        self.name = name

    def reset(self, seed: int | None = None) -> None:
        """Nothing to reset: a greedy policy has no randomness of its own."""

    def act(self, seat: Seat) -> int:
        out = np.asarray(self.decide(self.reading.read(seat), seat.mask.astype(np.float32)))
        if out.size == 1 and seat.game.num_actions != 1:  # an action id
            return int(out.reshape(()))
        values = out.reshape(-1).astype(np.float64)
        if values.size != seat.game.num_actions:
            raise ConfigError(
                f"{self.name} answered {values.size} outputs; "
                f"{seat.game!r} has {seat.game.num_actions} actions"
            )
        return int(np.argmax(np.where(seat.mask > 0, values, -np.inf)))
