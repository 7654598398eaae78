"""How much better the search's values could be: the shipped head against a refit and a larger model.

The search (``agent:search=N``, ``others=likeliest``) values the positions its simulations reach by
the network's win-share head, and the head is a logistic regression on the network's last hidden
layer, which was trained for the policy. Whether a better value would lift the search depends on
how much of a value's error is the head's and how much the game's own luck. This script plays the
shipped network against itself at every seat (its likeliest legal move, as ``agent`` plays and as
the search models the others: :func:`tablezoo.training.expert.calibrate.own_games`), fits on one
set of games and measures on games played from another seed:

* ``constant``: the held-out mean win share (a value that knows nothing);
* ``shipped``: the shipped head;
* ``refit``: the head refitted to the fitting games at this seat count alone
  (:func:`~tablezoo.training.expert.calibrate.refit_value_head`, the policy unchanged);
* ``network``: a separate value network on the scaled observation (two hidden layers of
  ``--width`` ReLU units, Adam on the cross-entropy, the epoch kept that does best on the last
  tenth of the fitting games).

Each is the mean squared error of the win share over the held-out samples (every decision: the
mover's observation and one other seat's)::

    python benchmarks/value_capacity.py --games heckmeck sechs_nimmt court diamant --seats 2 \\
        --fit-games 3000 --test-games 500 --out benchmarks/results/value_capacity.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from tablezoo.bots.net import PolicyValueNet
from tablezoo.bots.registry import shipped_agent
from tablezoo.games import GAMES, make
from tablezoo.training.expert.calibrate import own_games, refit_value_head, squared_error

BATCH = 1024


def value_network(
    net: PolicyValueNet, x: np.ndarray, y: np.ndarray, width: int, epochs: int, seed: int
) -> tuple[Any, int]:
    """A two-layer value network fitted to padded observations ``x`` and win shares ``y`` (the last
    tenth of the samples validates): the model at its best epoch, and that epoch (1 is the first)."""
    import torch

    torch.manual_seed(seed)
    scale = torch.from_numpy(np.asarray(net.scale, np.float32))
    inputs = torch.from_numpy(x.astype(np.float32)) / scale
    targets = torch.from_numpy(np.asarray(y, np.float32))
    cut = int(0.9 * len(targets))  # the samples are in game order: the last games validate
    model = torch.nn.Sequential(
        torch.nn.Linear(inputs.shape[1], width),
        torch.nn.ReLU(),
        torch.nn.Linear(width, width),
        torch.nn.ReLU(),
        torch.nn.Linear(width, 1),
    )
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    best, best_epoch, best_state = float("inf"), 0, None
    for epoch in range(1, epochs + 1):
        for batch in torch.randperm(cut).split(BATCH):
            logits = model(inputs[batch]).squeeze(1)
            loss = torch.nn.functional.binary_cross_entropy_with_logits(logits, targets[batch])
            opt.zero_grad()
            loss.backward()
            opt.step()
        with torch.no_grad():
            error = float(((torch.sigmoid(model(inputs[cut:]).squeeze(1)) - targets[cut:]) ** 2).mean())
        if error < best:
            best, best_epoch = error, epoch
            best_state = {k: v.clone() for k, v in model.state_dict().items()}
    model.load_state_dict(best_state)
    return model, best_epoch


def network_error(net: PolicyValueNet, model: Any, x: np.ndarray, y: np.ndarray) -> float:
    """The mean squared error of ``model``'s win shares of padded observations ``x``."""
    import torch

    scale = torch.from_numpy(np.asarray(net.scale, np.float32))
    parts = []
    with torch.no_grad():
        for i in range(0, len(x), 4096):
            rows = torch.from_numpy(x[i : i + 4096].astype(np.float32)) / scale
            parts.append(torch.sigmoid(model(rows).squeeze(1)))
    values = torch.cat(parts).numpy()
    return float(np.mean((values - y) ** 2))


def measure(
    game_name: str, seats: int, fit_games: int, test_games: int, width: int, epochs: int, seed: int
) -> dict[str, Any]:
    """One row: the four errors (see the module docstring) at ``seats`` seats."""
    import torch

    torch.set_num_threads(1)
    start = time.perf_counter()
    net = shipped_agent(make(game_name, seats))
    x, y, _ = own_games(net, game_name, seats, fit_games, seed)
    test_x, test_y, _ = own_games(net, game_name, seats, test_games, seed + 1)
    model, epoch = value_network(net, x, y, width, epochs, seed)
    errors = {
        "constant": float(np.mean((test_y - test_y.mean()) ** 2)),
        "shipped": squared_error(net, test_x, test_y),
        "refit": squared_error(refit_value_head(net, x, y), test_x, test_y),
        "network": network_error(net, model, test_x, test_y),
    }
    return {
        "game": game_name,
        "seats": seats,
        "fit_games": fit_games,
        "test_games": test_games,
        "seed": seed,
        "fit_samples": len(y),
        "test_samples": len(test_y),
        "width": width,
        "best_epoch": epoch,
        "squared_error": {k: round(v, 4) for k, v in errors.items()},
        "wall_seconds": round(time.perf_counter() - start, 1),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", nargs="+", choices=list(GAMES), default=list(GAMES))
    parser.add_argument("--seats", type=int, default=2, help="seat count (Diamant: at least 3)")
    parser.add_argument("--fit-games", type=int, default=3000)
    parser.add_argument("--test-games", type=int, default=500)
    parser.add_argument("--width", type=int, default=256)
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    if min(args.fit_games, args.test_games, args.width, args.epochs) < 1:
        parser.error("--fit-games, --test-games, --width and --epochs are 1 or more")
    rows = []
    for game_name in args.games:
        seats = max(args.seats, make(game_name).info.min_seats)
        row = measure(game_name, seats, args.fit_games, args.test_games, args.width, args.epochs, args.seed)
        rows.append(row)
        print(game_name, seats, json.dumps(row["squared_error"]), f"epoch {row['best_epoch']}", flush=True)
        if args.out is not None:  # written after every row, so a long run's rows are not lost
            args.out.parent.mkdir(parents=True, exist_ok=True)
            args.out.write_text(json.dumps({"command": " ".join(sys.argv), "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
