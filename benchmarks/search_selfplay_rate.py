"""Searched decisions per second: the batched Gumbel search self-play against expert iteration's.

    python benchmarks/search_selfplay_rate.py --out benchmarks/results/search_selfplay_rate.json
    python benchmarks/search_selfplay_rate.py --games diamant --seconds 5

The reference is what expert iteration (:mod:`tablezoo.training.expert`) plays in its search
rounds: the shipped agent's native search (``agent:search=S``, ``S`` the config's simulations)
at every seat, one game after the other, the move chosen in the core and the game driven from
Python. Against it, in the same run and the same process, the batched loop of
:mod:`tablezoo.training.expert.search_selfplay` plays ``--num-games`` games at once with the same
network:

- ``gumbel 16/16``: 16 simulations, 16 moves considered at the root (or all of them, if fewer);
- ``gumbel 8/4``: 8 simulations over 4 moves (the design's budget: fewer simulations, spent on
  the moves the prior and the Gumbel draws make likely);
- ``gumbel 8/4, numpy`` and ``gumbel 8/4, torch``: the same, the network asked from Python once
  per wave (the numpy batch forward pass; the learner's torch twin of the network, one thread);
- ``gumbel 8/4, 2 threads``: the core's network, the games over both cores.

A searched decision is one with more than one legal move (the loop plays the others without
asking the network; the reference's search returns at once there). Each row runs for about
``--seconds``; the one-thread rows are one core's rate, as is the reference. The JSON has per
game and seat count every row's decisions, seconds, rate, network rows per decision and ratio
to the reference.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from typing import Any

import numpy as np

from tablezoo.bots.registry import shipped_agent
from tablezoo.evaluation.play import play_out
from tablezoo.games import GAMES, make
from tablezoo.release.benchmark_tables import search_selfplay_rate_table
from tablezoo.training.expert.config import ExpertConfig
from tablezoo.training.expert.search_selfplay import SearchSelfPlay, numpy_evaluator, torch_evaluator
from tablezoo.training.expert.selfplay import seat_bots


def reference_rate(game_name: str, seats: int, simulations: int, seconds: float, seed: int) -> dict[str, Any]:
    """Expert iteration's search self-play: whole games until ``seconds`` have passed."""
    game = make(game_name, seats, core="native")
    rng = np.random.default_rng(seed)
    bots = seat_bots(game, [f"agent:search={simulations}"] * seats, rng)
    searched = games = 0

    def act(seat: Any) -> int:
        nonlocal searched
        searched += len(seat.legal) > 1
        bot = bots[seat.seat]
        assert bot is not None
        return bot.act(seat)

    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        play_out(game, game.initial_state(), rng, act)
        games += 1
    elapsed = time.perf_counter() - start
    return {
        "decisions": searched,
        "games": games,
        "seconds": round(elapsed, 2),
        "rate": round(searched / elapsed, 1),
    }


def gumbel_rate(
    game_name: str,
    seats: int,
    seconds: float,
    seed: int,
    *,
    simulations: int,
    considered: int,
    num_games: int,
    threads: int = 1,
    via: str = "core",
) -> dict[str, Any]:
    """The batched loop for about ``seconds``: one decision a game to gauge, then the rest."""
    net = shipped_agent(make(game_name, seats, core="native"))
    loop = SearchSelfPlay(
        game_name,
        seats,
        num_games=num_games,
        seed=seed,
        simulations=simulations,
        considered=considered,
        num_threads=threads,
        padded=net.padded,
    )
    player: Any = net
    if via == "numpy":
        player = numpy_evaluator(net)
    elif via == "torch":
        import torch

        from tablezoo.training.torch_net import TorchTwin

        torch.set_num_threads(threads)
        player = torch_evaluator(TorchTwin(net).eval())
    start = time.perf_counter()
    loop.play(player, 1)
    gauge = time.perf_counter() - start
    loop.play(player, max(1, int((seconds - gauge) / max(gauge, 1e-3))))
    elapsed = time.perf_counter() - start
    counts = loop.counts()
    return {
        "decisions": counts["decisions"],
        "seconds": round(elapsed, 2),
        "rate": round(counts["decisions"] / elapsed, 1),
        "rows_per_decision": round(counts["evaluations"] / counts["decisions"], 1),
        "simulations_per_decision": round(counts["simulations"] / counts["decisions"], 1),
    }


def rows_for(game: str, seats: int, seconds: float, seed: int, num_games: int) -> list[dict[str, Any]]:
    simulations = ExpertConfig(game=game).simulations
    reference = reference_rate(game, seats, simulations, seconds, seed)
    rows = [
        {"game": game, "seats": seats, "row": f"expert iteration, agent:search={simulations}", **reference}
    ]
    variants = [
        ("gumbel 16/16", {"simulations": 16, "considered": 16}),
        ("gumbel 8/4", {"simulations": 8, "considered": 4}),
        ("gumbel 8/4, numpy", {"simulations": 8, "considered": 4, "via": "numpy"}),
        ("gumbel 8/4, torch", {"simulations": 8, "considered": 4, "via": "torch"}),
        ("gumbel 8/4, 2 threads", {"simulations": 8, "considered": 4, "threads": 2}),
    ]
    for label, settings in variants:
        measured = gumbel_rate(game, seats, seconds, seed, num_games=num_games, **settings)
        measured["speedup"] = round(measured["rate"] / reference["rate"], 2)
        rows.append({"game": game, "seats": seats, "row": label, **measured})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", nargs="+", default=list(GAMES), choices=list(GAMES))
    parser.add_argument("--seats", type=int, default=4, help="the table size (every game allows 4)")
    parser.add_argument("--seconds", type=float, default=10.0, help="about how long each row runs")
    parser.add_argument("--num-games", type=int, default=256, help="games of the batched loop")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=None, help="write the JSON here")
    args = parser.parse_args()
    rows: list[dict[str, Any]] = []
    for game in args.games:
        rows += rows_for(game, args.seats, args.seconds, args.seed, args.num_games)
        print(search_selfplay_rate_table({"rows": rows[-6:]}).split("\n", 2)[2], flush=True)
    result = {"machine": platform.machine(), "python": platform.python_version(), "rows": rows}
    print(search_selfplay_rate_table(result))
    if args.out:
        with open(args.out, "w") as f:
            json.dump(result, f, indent=2)
            f.write("\n")


if __name__ == "__main__":
    main()
