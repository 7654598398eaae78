"""Does more search make the shipped agent stronger, within 100 ms a move?

    python benchmarks/search_budget.py --out benchmarks/results/search_budget.json
    python benchmarks/search_budget.py --games heckmeck --simulations 16 64 --tournament 100

For each game, at its fewest target seats (Heckmeck, 6 nimmt! and To Court the King 2,
Diamant 3), against the game's strongest bot (the one its strength targets name:
:data:`tablezoo.release.ship.TARGETS`), and for each ``--simulations`` N:

- **milliseconds a move** of ``agent:search=N`` (the median over ``--positions`` positions of
  random games with more than one legal move: :func:`tablezoo.release.ship.move_times`), at
  the seat count the search is dearest at, the game's most target seats;
- **its win share** over ``--tournament`` games (seats rotated, tournament seed ``--seed``,
  one used for nothing else), with its 95% interval; the network alone (``agent``) is the
  first row, N 0.

An N whose median move takes more than ``--max-ms`` (100: the budget a player at the tables
is given) is measured for time alone and not played. The JSON (``--out``) holds every row and
the machine; the markdown table is printed. Times are wall time on whatever else the machine
runs: compare them within one run.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from typing import Any

from tablezoo.evaluation.tournament import named_tournament
from tablezoo.release.benchmark_tables import search_budget_table
from tablezoo.release.ship import TARGETS, move_times

SIMULATIONS = (16, 64, 256)


def rows_for(game: str, sims: list[int], args: argparse.Namespace) -> list[dict[str, Any]]:
    """The game's rows: the network alone, then agent:search=N for each N."""
    targets = TARGETS[game]
    seats, bot = targets[0][0], targets[0][1]
    dearest = max(n for n, _, _ in targets)
    rows = []
    for n_sims in [0, *sims]:
        player = f"agent:search={n_sims}" if n_sims else "agent"
        ms = move_times(player, game, dearest, args.positions, args.seed)
        row: dict[str, Any] = {"game": game, "player": player, "simulations": n_sims, "against": bot}
        row |= {"seats": seats, "ms_seats": dearest, "median_ms": round(ms, 3)}
        if ms <= args.max_ms:
            started = time.monotonic()
            lineup = [player] + [bot] * (seats - 1)
            standings = named_tournament(game, seats, lineup, args.tournament, args.seed, jobs=args.jobs)
            s = next(s for s in standings if s.name == player)
            low, high = s.interval()
            row |= {"games": args.tournament, "win_share": round(s.win_rate, 4)}
            row |= {
                "interval": [round(low, 4), round(high, 4)],
                "minutes": round((time.monotonic() - started) / 60, 2),
            }
        rows.append(row)
        print(json.dumps(row), flush=True)
    return rows


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=list(TARGETS), choices=list(TARGETS))
    parser.add_argument("--simulations", nargs="+", type=int, default=list(SIMULATIONS))
    parser.add_argument("--tournament", type=int, default=300, help="games per row")
    parser.add_argument("--positions", type=int, default=100, help="positions timed per player")
    parser.add_argument("--max-ms", type=float, default=100.0, help="the budget of a move, in milliseconds")
    parser.add_argument("--seed", type=int, default=99, help="tournament seed")
    parser.add_argument("--jobs", type=int, default=1, help="processes playing the games")
    parser.add_argument("--out", help="write the JSON here")
    args = parser.parse_args(argv)
    if any(n < 1 for n in args.simulations) or args.tournament < 1 or args.positions < 1:
        parser.error("--simulations, --tournament and --positions must be at least 1")
    rows = [row for game in args.games for row in rows_for(game, sorted(args.simulations), args)]
    result = {
        "rows": rows,
        "settings": {k: v for k, v in vars(args).items() if k != "out"},
        "machine": {
            "python": platform.python_version(),
            "processor": platform.processor() or platform.machine(),
        },
    }
    if args.out:
        with open(args.out, "w") as f:
            json.dump(result, f, indent=1)
            f.write("\n")
    print(search_budget_table(result))
    return result


if __name__ == "__main__":
    main()
