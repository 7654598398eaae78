"""Games per hour of expert iteration's self-play, on the Python core and on the native core.

    python benchmarks/selfplay_rate.py --out benchmarks/results/selfplay_rate.json
    python benchmarks/selfplay_rate.py --games heckmeck --jobs 1     # one game, one process

Expert iteration (:mod:`tablezoo.training.expert`) spends its time in two kinds of games:
its imitation rounds play the game's teacher (:data:`~tablezoo.training.expert.config.TEACHERS`) at
every seat, and its search rounds play the network guiding ``simulations`` (the config's
default) at every seat. This plays each kind at 4 seats, the shipped agent as the network,
on each core in turn (``TABLEZOO_CORE``: the Python core with the Python bots, the native
core with the native ports of the bots it has), in ``--jobs`` processes side by side (the
training's workers), and reports games per hour of the whole machine and the ratio of the
cores. The games are the same seeded tournaments on both cores; bots whose port draws its
own random numbers play other games of the same kind there.

The JSON has a row per game and kind: the bot, the games played and the seconds and games
per hour on each core, with the native core's speed-up.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from tablezoo.evaluation.tournament import PART_GAMES, play_part, split_tournament
from tablezoo.games import GAMES
from tablezoo.training.expert.config import TEACHERS, ExpertConfig

SEATS = 4
"""The table size played (every game allows it)."""


def games_per_hour(game: str, bot: str, games: int, jobs: int, core: str, seed: int) -> tuple[float, float]:
    """Seconds to play ``games`` games of ``bot`` at every seat on ``core`` in ``jobs``
    processes (one part of the tournament each, at most :data:`PART_GAMES` games), and the
    games per hour that makes."""
    parts = split_tournament(
        game, SEATS, [bot] * SEATS, games, seed, parts=max(jobs, -(-games // PART_GAMES))
    )
    os.environ["TABLEZOO_CORE"] = core  # the processes make their games on this core
    start = time.perf_counter()
    with ProcessPoolExecutor(jobs) as pool:
        list(pool.map(play_part, parts))
    seconds = time.perf_counter() - start
    return seconds, games * 3600 / seconds


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", nargs="+", default=list(GAMES), choices=list(GAMES), help="the games")
    parser.add_argument("--teacher-games", type=int, default=40, help="imitation games per game and core")
    parser.add_argument(
        "--search-games", type=int, default=8, help="search self-play games per game and core"
    )
    parser.add_argument("--jobs", type=int, default=2, help="processes side by side (the training's workers)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=None, help="write the JSON here")
    args = parser.parse_args()
    simulations = ExpertConfig(game="heckmeck").simulations
    rows: list[dict[str, Any]] = []
    for game in args.games:
        kinds = [("imitation", TEACHERS[game], args.teacher_games)]
        kinds.append(("search self-play", f"agent:search={simulations}", args.search_games))
        for kind, bot, games in kinds:
            row: dict[str, Any] = {"game": game, "kind": kind, "bot": bot, "seats": SEATS, "games": games}
            for core in ("python", "native"):
                seconds, rate = games_per_hour(game, bot, games, args.jobs, core, args.seed)
                row[core] = {"seconds": round(seconds, 2), "games_per_hour": round(rate)}
            row["speedup"] = round(row["native"]["games_per_hour"] / row["python"]["games_per_hour"], 2)
            rows.append(row)
            print(json.dumps(row), flush=True)
    result = {
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "jobs": args.jobs,
        "rows": rows,
    }
    if args.out:
        with open(args.out, "w") as f:
            json.dump(result, f, indent=2)
            f.write("\n")


if __name__ == "__main__":
    main()
