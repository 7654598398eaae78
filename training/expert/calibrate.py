"""Refit a network's win-share head to the outcomes of its own games, the policy left as it is.

The search (:mod:`tablezoo.bots.search`) ranks its moves by the win shares the
value head gives the positions they lead to, so those have to be right where
the search plays: against players as strong as the network. Expert iteration
(:mod:`tablezoo.training.expert`) fits the head to the outcomes of its recorded
games, where a quarter of the seats play at random and the teacher plays the
rest; in games like those a seat can often tell early who will win. Against
its equals the 6 nimmt! agent's head was then sure where the game is not: at
2 seats most of its values lay below 0.2 or above 0.8 while those seats won
0.33 and 0.63 of the time, a squared error above that of a constant.

:func:`calibrate` refits it. The network plays itself at every seat (its most
likely legal move, as the ``agent`` bot plays alone) at the given seat counts;
every decision gives the mover's observation and one other seat's (the search
values waiting seats too), each with that seat's final win share. The head,
``sigmoid(value_w · h + value_b)`` over the last hidden layer ``h``, is a
logistic regression on ``h``: it is fitted by L-BFGS on the cross-entropy,
from the old head, with a small L2 penalty. Nothing else changes, so the
network alone plays the same moves, bit for bit. The squared error of the
win shares, before and after, is measured on games held out of the fit.

``python -m tablezoo.training.expert.calibrate NET GAME --players 2 4 --games 100 --out NEW``

To refit a shipped agent's head, and measure and record it with the agent, use
``tablezoo ship GAME --refit-value 2 4`` (:mod:`tablezoo.release.ship`), which runs :func:`calibrate`.
"""

from __future__ import annotations

import argparse
import copy
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tablezoo.bots.core import Seat
from tablezoo.bots.net import PolicyValueNet, win_share
from tablezoo.evaluation.cli_args import players_setting
from tablezoo.evaluation.play import play_out
from tablezoo.games import make
from tablezoo.games.core import Game
from tablezoo.games.settings import add_arguments, setting

__all__ = ["Calibration", "calibrate", "own_games", "refit_value_head", "squared_error"]

L2 = 1e-3
"""The L2 penalty on ``value_w`` in the refit (per sample: the cross-entropy is a mean)."""

HELD_OUT = 0.2
"""The share of each seat count's games that measures the head rather than fits it."""


def own_games(
    net: PolicyValueNet, game_name: str, seats: int, games: int, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``games`` games of ``net`` against itself at ``seats`` seats: the padded observations (uint8),
    the final win share of the seat each one is of, and the number of the game each is from.

    At every decision the mover's observation is kept and one other seat's, drawn at random."""
    game = make(game_name, seats)
    net.check_fits(game)
    rng = np.random.default_rng(seed)
    observations: list[np.ndarray] = []
    shares: list[float] = []
    numbers: list[int] = []
    for number in range(games):
        kept, won = _own_game(net, game, rng)
        if kept:  # a game's observations padded at once, and kept as bytes (every entry is 0..255)
            observations.append(game.pad(np.array([obs for obs, _ in kept])).astype(np.uint8))
        shares += [won[s] for _, s in kept]
        numbers += [number] * len(kept)
    padded = np.concatenate(observations) if observations else np.zeros((0, game.padded_spec.size), np.uint8)
    return padded, np.array(shares, np.float32), np.array(numbers)


def _own_game(
    net: PolicyValueNet, game: Game[Any], rng: np.random.Generator
) -> tuple[list[tuple[np.ndarray, int]], list[float]]:
    """One game of ``net`` against itself: the (observation, seat) pairs kept (see :func:`own_games`)
    and every seat's win share; none kept of a game that does not end (it has no outcome)."""
    state = game.initial_state()
    n = game.num_seats
    kept: list[tuple[np.ndarray, int]] = []

    def act(at: Seat) -> int:
        other = (at.seat + 1 + int(rng.integers(n - 1))) % n
        kept.append((at.observation, at.seat))
        kept.append((game.observe(state, other), other))
        logits = net.logits(net.reads(game, at.observation))
        legal = at.legal
        return legal[int(np.argmax(logits[legal]))]

    if not play_out(game, state, rng, act, check=False):
        return [], []
    return kept, [win_share(game, state, s) for s in range(n)]


ROWS = 4096
"""Observations the network reads at once (a float copy of all the samples of a refit would be large)."""


def _chunks(observations: np.ndarray) -> Iterator[np.ndarray]:
    """Padded ``observations``, :data:`ROWS` at a time, as the network reads them (floats)."""
    for i in range(0, len(observations), ROWS):
        yield observations[i : i + ROWS].astype(np.float32)


def _hidden(net: PolicyValueNet, observations: np.ndarray) -> np.ndarray:
    """The last hidden layer (what the value head reads) of padded ``observations``."""
    return np.concatenate([net.hidden(x) for x in _chunks(observations)])


def squared_error(net: PolicyValueNet, observations: np.ndarray, shares: np.ndarray) -> float:
    """The mean squared error of ``net``'s win shares of padded ``observations`` against ``shares``."""
    values = np.concatenate([net.forward(x)[1] for x in _chunks(observations)])
    return float(np.mean((values - shares) ** 2))


def refit_value_head(
    net: PolicyValueNet, observations: np.ndarray, shares: np.ndarray, l2: float = L2
) -> PolicyValueNet:
    """A copy of ``net`` whose value head is fitted to ``shares`` of padded ``observations`` (see the
    module docstring); every other weight is ``net``'s own."""
    import torch

    if net.value_w is None or net.value_b is None:
        raise ValueError(f"a {net.kind} has no value head to refit")
    h = torch.from_numpy(np.ascontiguousarray(_hidden(net, observations), np.float32))
    y = torch.from_numpy(np.asarray(shares, np.float32))
    w = torch.tensor(net.value_w, dtype=torch.float32, requires_grad=True)
    b = torch.tensor([net.value_b], dtype=torch.float32, requires_grad=True)
    opt = torch.optim.LBFGS([w, b], max_iter=500, line_search_fn="strong_wolfe")

    def loss() -> Any:
        opt.zero_grad()
        value = torch.nn.functional.binary_cross_entropy_with_logits(h @ w + b, y) + l2 * (w * w).sum()
        value.backward()
        return value

    opt.step(loss)
    refit = copy.copy(net)
    refit.value_w = w.detach().numpy().astype(np.float32)
    refit.value_b = float(b.detach()[0])
    return refit


@dataclass
class Calibration:
    """What a refit of the value head changed, measured on held-out games."""

    samples: int
    """Samples (a seat's observation and its win share) the head was fitted to."""
    held_out: int
    """Samples of the held-out games that measure it."""
    error_before: float
    """The old head's mean squared error on the held-out samples."""
    error_after: float
    """The refitted head's."""
    error_constant: float
    """A constant's (the held-out mean win share): what a head that knows nothing scores."""


def calibrate(
    net: PolicyValueNet, game_name: str, seats: Sequence[int], games: int, seed: int = 0
) -> tuple[PolicyValueNet, Calibration]:
    """``net`` with its value head refitted to ``games`` of its own games at each of ``seats`` (the last
    :data:`HELD_OUT` of them held out to measure it), and the measurement."""
    fit: list[tuple[np.ndarray, np.ndarray]] = []
    held: list[tuple[np.ndarray, np.ndarray]] = []
    for k, n in enumerate(seats):
        observations, shares, numbers = own_games(net, game_name, n, games, seed + k)
        inside = numbers < games - max(1, round(HELD_OUT * games))
        fit.append((observations[inside], shares[inside]))
        held.append((observations[~inside], shares[~inside]))
    x, y = (np.concatenate(part) for part in zip(*fit, strict=True))
    test_x, test_y = (np.concatenate(part) for part in zip(*held, strict=True))
    refit = refit_value_head(net, x, y)
    return refit, Calibration(
        samples=len(y),
        held_out=len(test_y),
        error_before=squared_error(net, test_x, test_y),
        error_after=squared_error(refit, test_x, test_y),
        error_constant=float(np.mean((test_y - test_y.mean()) ** 2)),
    )


@dataclass
class CalibrateSettings:
    """The arguments of ``python -m tablezoo.training.expert.calibrate``."""

    net: Path = setting(positional=True)
    """the network file (.npz) whose value head to refit"""
    game: str = setting(positional=True)
    """its game"""
    players: list[int] | None = players_setting("the seat counts to play", required=True)
    games: int = setting(100)
    """games at each seat count"""
    seed: int = setting(0, help="")
    out: Path | None = setting(None, required=True)
    """where to write the refitted network"""


def main(argv: list[str] | None = None) -> None:
    """``python -m tablezoo.training.expert.calibrate NET GAME --players N.. --games G --out NEW``:
    refit and save."""
    parser = argparse.ArgumentParser(prog="python -m tablezoo.training.expert.calibrate", description=__doc__)
    add_arguments(parser, CalibrateSettings, defaults=True, show_defaults=False)
    args = parser.parse_args(argv)
    refit, report = calibrate(PolicyValueNet.load(args.net), args.game, args.players, args.games, args.seed)
    refit.save(args.out)
    print(
        f"{report.samples} samples fitted; on {report.held_out} held out, squared error "
        f"{report.error_before:.4f} -> {report.error_after:.4f} (a constant: {report.error_constant:.4f})"
    )


if __name__ == "__main__":
    main()
