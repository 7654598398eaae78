"""How sure the network is: the gap between its two likeliest legal moves' logits.

The Gumbel root (``agent:search=N``, :func:`tablezoo.bots.search.think`) plays a move other than
the network's only when that move's simulated win share is better by ``gap / confidence``
standard errors, ``gap`` the difference of their logits (``confidence`` 0.25 by default). So
the gaps say how much evidence the search needs before it changes the network's move, game by
game: where the network is sure (large gaps), the search keeps its move whatever it finds.

The shipped agent plays itself (its likeliest move at every seat) for ``--games`` games at each
seat count; at every decision with more than one legal move the gap is recorded. A row gives
the gaps' quantiles and the share of decisions under 0.5, 1 and 2 logits::

    python benchmarks/prior_gaps.py --games heckmeck sechs_nimmt diamant court --seats 2 4 \\
        --games-played 20 --out benchmarks/results/search_scaling/prior_gaps.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from tablezoo.bots.registry import shipped_agent
from tablezoo.games import GAMES, make
from tablezoo.games.core import TERMINAL

QUANTILES = (0.1, 0.25, 0.5, 0.75, 0.9)


def gaps(game_name: str, seats: int, games: int, seed: int) -> np.ndarray:
    """The top-two logit gaps at every decision with a choice, ``games`` games of the agent against itself."""
    game = make(game_name, seats)
    net = shipped_agent(game)
    found: list[float] = []
    for g in range(games):
        chance = np.random.default_rng([seed, g])
        state = game.initial_state()
        while (mover := game.advance(state, chance)) != TERMINAL:
            legal = game.legal_actions(state)
            logits = net.logits(net.reads(game, game.observe(state, mover)))[legal]
            if len(legal) > 1:
                top = np.sort(logits)[::-1]
                found.append(float(top[0] - top[1]))
            game.apply(state, legal[int(np.argmax(logits))])
    return np.asarray(found)


def row(game_name: str, seats: int, games: int, seed: int) -> dict[str, Any]:
    found = gaps(game_name, seats, games, seed)
    return {
        "game": game_name,
        "seats": seats,
        "games": games,
        "seed": seed,
        "decisions": len(found),
        "quantiles": {str(q): round(float(np.quantile(found, q)), 3) for q in QUANTILES},
        "share_below": {str(d): round(float(np.mean(found < d)), 4) for d in (0.5, 1.0, 2.0)},
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", nargs="+", choices=list(GAMES), default=list(GAMES))
    parser.add_argument("--seats", nargs="+", type=int, default=[2], help="seat counts (Diamant: at least 3)")
    parser.add_argument("--games-played", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None, help="JSON file of the rows")
    args = parser.parse_args(argv)
    if args.games_played < 1:
        parser.error("--games-played is 1 or more")
    rows = []
    for game_name in args.games:
        least = make(game_name).info.min_seats
        for seats in sorted({max(s, least) for s in args.seats}):
            rows.append(row(game_name, seats, args.games_played, args.seed))
            print(json.dumps(rows[-1]), flush=True)
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"command": " ".join(sys.argv), "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
