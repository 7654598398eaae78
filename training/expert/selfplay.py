"""Self-play, once for every method that learns or measures from played games.

Expert iteration (:mod:`tablezoo.training.expert`), its league rounds
(:mod:`tablezoo.training.expert.league`) and the tournaments of
:mod:`tablezoo.evaluation.tournament` all do the same few things, here:

* **play a game** (:func:`~tablezoo.evaluation.play.play_out`, from
  :mod:`tablezoo.evaluation.play`, with the decision limit
  :data:`~tablezoo.evaluation.play.MAX_DECISIONS`);
* **seat bots** (:func:`seat_bots`): make the named bots and give each its
  seed from the game's generator, seat by seat;
* **share games among processes**
  (:func:`~tablezoo.evaluation.play.play_in_order`, from the same module): a
  ``spawn`` pool that hands the results back in the order of the work items;
* **read networks once per process** (:func:`cached_net`): a worker plays
  many games with one network file; :func:`forget_nets` drops the copies
  when the file is rewritten;
* **keep samples** (:class:`Buffer`, :class:`Decisions`): a dataclass of
  arrays, one row per sample, that is joined, cut to its latest rows, saved
  and loaded the same way whatever its columns;
* **fit a network with torch** (:func:`minibatch_fit`): Adam over shuffled
  minibatches, ``epochs`` passes, with the loss of the method that calls it.

The self-play side runs on numpy alone; torch is imported by the fit only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self, TypeVar

import numpy as np

from tablezoo.bots.core import Bot
from tablezoo.bots.net import PolicyValueNet
from tablezoo.bots.registry import make_bot
from tablezoo.games.core import Game

if TYPE_CHECKING:
    import torch

    from tablezoo.training.torch_net import TorchTwin

T = TypeVar("T")
R = TypeVar("R")


# --------------------------------------------------------------------------- one game


def seat_bots(game: Game[Any], names: Sequence[str | None], rng: np.random.Generator) -> list[Bot | None]:
    """The bot ``names[s]`` at each seat ``s`` (None: a seat the caller plays), each reset with a
    seed drawn from ``rng``, seat by seat."""
    bots = [None if name is None else make_bot(name, game) for name in names]
    for bot in bots:
        if bot is not None:
            bot.reset(int(rng.integers(2**31)))
    return bots


def seat_counts(seats: Sequence[int], games: int) -> list[int]:
    """The seat count of each of ``games`` games: ``seats`` in turn."""
    return [seats[i % len(seats)] for i in range(games)]


# --------------------------------------------------------------------------- many games


_NETS: dict[str, PolicyValueNet] = {}


def cached_net(path: str) -> PolicyValueNet:
    """The network saved at ``path``, read once per process (until :func:`forget_nets`)."""
    net = _NETS.get(path)
    if net is None:
        net = _NETS[path] = PolicyValueNet.load(path)
    return net


def forget_nets() -> None:
    """Drop every network read so far: the files are rewritten each round."""
    _NETS.clear()


# --------------------------------------------------------------------------- samples


def column(width: str, dtype: Any) -> Any:
    """A field of a :class:`Buffer`: ``width`` of a row (``"size"``: the padded observation's,
    ``"actions"``: the game's number of moves, ``""``: one value) and its numpy type."""
    return field(metadata={"width": width, "dtype": dtype})


@dataclass
class Buffer:
    """Rows of samples, one array per field (each a :func:`column`), one row per sample."""

    @classmethod
    def empty(cls, size: int, actions: int) -> Self:
        """No rows, for a game of padded observation ``size`` and ``actions`` moves."""
        width = {"size": (size,), "actions": (actions,), "": ()}
        return cls(
            **{f.name: np.zeros((0, *width[f.metadata["width"]]), f.metadata["dtype"]) for f in fields(cls)}
        )

    @classmethod
    def join(cls, parts: Sequence[Self]) -> Self:
        """The rows of ``parts``, one after the other."""
        return cls(**{f.name: np.concatenate([getattr(p, f.name) for p in parts]) for f in fields(cls)})

    def __len__(self) -> int:
        return len(getattr(self, fields(self)[0].name))

    def tail(self, n: int) -> Self:
        """The latest ``n`` rows."""
        return type(self)(**{f.name: getattr(self, f.name)[-n:] for f in fields(self)})

    def save(self, path: Path) -> None:
        """Write every field to the ``.npz`` file ``path``."""
        np.savez(path, **{f.name: getattr(self, f.name) for f in fields(self)})

    @classmethod
    def load(cls, path: Path) -> Self:
        """The buffer saved at ``path``; a field an older file lacks comes from :meth:`missing`."""
        with np.load(path) as b:
            read = {f.name: b[f.name] for f in fields(cls) if f.name in b}
        return cls(
            **{f.name: read[f.name] if f.name in read else cls.missing(f.name, read) for f in fields(cls)}
        )

    @classmethod
    def missing(cls, name: str, read: dict[str, np.ndarray]) -> np.ndarray:
        """The field ``name`` of a file written before it was kept, from the fields ``read``."""
        raise KeyError(f"a saved {cls.__name__} without {name!r}: written by another version")


@dataclass
class Decisions(Buffer):
    """A buffer of decisions: each row's padded observation and legal moves, then the subclass's fields."""

    obs: np.ndarray = column("size", np.uint8)
    """(N, size): padded observations (every observation value is a whole number 0..255)."""
    legal: np.ndarray = column("actions", bool)
    """(N, actions): the moves the policy chooses among (none in a row that teaches the value only)."""


# --------------------------------------------------------------------------- fitting


Loss = Callable[["TorchTwin", "torch.Tensor"], tuple["torch.Tensor", dict[str, float]]]
"""A fit's loss of a minibatch: the twin and the minibatch's row indices give the loss to step
on and the figures to report (summed over the batches)."""


@dataclass
class Fitted:
    """What :func:`minibatch_fit` gives back."""

    net: PolicyValueNet
    """The fitted network, on numpy."""
    means: dict[str, float]
    """Each reported figure's mean over every minibatch, to 4 places."""
    last_epoch: dict[str, float]
    """Each reported figure's sum over the last epoch's minibatches."""
    epochs: int
    """The epochs run (fewer than asked where ``stop`` ended the fit)."""
    step_size: float
    """Adam's step size at the end."""


def _cosine(optimiser: torch.optim.Optimizer, steps: int, last: float) -> Any:
    """A step size that falls along a half cosine over ``steps`` steps to ``last``."""
    import torch

    return torch.optim.lr_scheduler.CosineAnnealingLR(optimiser, T_max=max(1, steps), eta_min=last)


def minibatch_fit(
    net: PolicyValueNet,
    rows: int,
    loss: Loss,
    *,
    figures: Sequence[str],
    epochs: int,
    batch_size: int,
    learning_rate: float,
    seed: int,
    weight_decay: float = 0.0,
    last_step_size: float | None = None,
    clip_norm: float | None = None,
    stop: Callable[[dict[str, float]], bool] | None = None,
) -> Fitted:
    """Fit ``net`` on ``rows`` samples with torch: ``epochs`` passes of Adam over shuffled minibatches.

    ``last_step_size``: the step size falls along a half cosine over the fit to this share of
    ``learning_rate`` (None: it stays). ``clip_norm``: the gradient's norm is clipped to it.
    ``stop``: after each epoch, given its figures' sums, whether to end the fit there. ``figures``
    names what ``loss`` reports, in the order the means give them (0 where no batch ran)."""
    import torch

    from tablezoo.training.torch_net import TorchTwin

    torch.manual_seed(seed)
    torch.set_num_threads(1)  # small layers: more threads only wait on each other on a shared machine
    twin = TorchTwin(net)
    optimiser = torch.optim.Adam(twin.parameters(), lr=learning_rate, weight_decay=weight_decay)
    steps = epochs * -(-rows // batch_size)
    schedule = None if last_step_size is None else _cosine(optimiser, steps, learning_rate * last_step_size)
    generator = torch.Generator().manual_seed(seed)
    totals = dict.fromkeys(figures, 0.0)
    batches = done = 0
    epoch = dict(totals)
    for _ in range(epochs):
        order = torch.randperm(rows, generator=generator)
        epoch = dict.fromkeys(totals, 0.0)
        for start in range(0, rows, batch_size):
            value, measured = loss(twin, order[start : start + batch_size])
            optimiser.zero_grad()
            value.backward()
            if clip_norm is not None:
                torch.nn.utils.clip_grad_norm_(twin.parameters(), clip_norm)
            optimiser.step()
            if schedule is not None:
                schedule.step()
            for key, x in measured.items():
                totals[key] += x
                epoch[key] += x
            batches += 1
        done += 1
        if stop is not None and stop(epoch):
            break
    means = {k: round(v / max(1, batches), 4) for k, v in totals.items()}
    return Fitted(twin.to_numpy(), means, epoch, done, optimiser.param_groups[0]["lr"])
