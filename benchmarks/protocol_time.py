"""How long the benchmark protocol takes: per game, seat count and opponent, on each core.

    python benchmarks/protocol_time.py --out benchmarks/results/protocol_time.json

Each cell of the protocol (:mod:`tablezoo.evaluation.protocol`) is timed on a few of its
own games, with the game's ``heuristic`` as the scored policy (a learned policy's move
costs about as little), for at least ``--seconds`` or ``--min-games`` games; the time of
the protocol's 1,000 games is extrapolated from it. One process: ``--jobs N`` of
``tablezoo benchmark`` divides the times by about ``N`` on ``N`` free cores.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

from tablezoo.evaluation.protocol import GAMES_PER_CELL, PANELS, PROTOCOL, SEATS, play_cell
from tablezoo.games import GAMES, make
from tablezoo.games.native import available


def time_cell(game_name: str, seats: int, opponent: str, core: str, seconds: float, min_games: int) -> dict:
    """Seconds a game of one cell takes, measured on its first games."""
    game = make(game_name, seats, core=core)
    played, spent = 0, 0.0
    while spent < seconds or played < min_games:
        start = time.perf_counter()
        play_cell("heuristic", game, opponent, games=1, first=played)
        spent += time.perf_counter() - start
        played += 1
    per_game = spent / played
    return {
        "game": game_name,
        "seats": seats,
        "opponent": opponent,
        "core": core,
        "games_timed": played,
        "seconds_per_game": round(per_game, 4),
        "cell_hours": round(per_game * GAMES_PER_CELL / 3600, 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", nargs="+", default=list(GAMES), choices=list(GAMES))
    parser.add_argument("--seconds", type=float, default=5.0, help="time each cell at least this long")
    parser.add_argument("--min-games", type=int, default=3, help="and at least this many games")
    parser.add_argument("--out", default=None, help="write the JSON here")
    args = parser.parse_args()
    cores = ["python", "native"] if available() else ["python"]
    rows = []
    for name in args.games:
        for seats in SEATS[name]:
            for opponent in PANELS[name]:
                for core in cores:
                    rows.append(time_cell(name, seats, opponent, core, args.seconds, args.min_games))
                    print(json.dumps(rows[-1]), flush=True)
    totals = {
        f"{name}/{core}": round(
            sum(r["cell_hours"] for r in rows if r["game"] == name and r["core"] == core), 2
        )
        for name in args.games
        for core in cores
    }
    result = {"protocol": PROTOCOL, "machine": platform.machine(), "cells": rows, "protocol_hours": totals}
    print(json.dumps(totals, indent=1))
    if args.out:
        Path(args.out).write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
