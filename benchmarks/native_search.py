"""The native search (``agent:search=N`` on the native core) against the Python search.

    python benchmarks/native_search.py --out benchmarks/results/native_search.json
    python benchmarks/native_search.py --games heckmeck --simulations 32 --head-to-head 400

For each game (at ``--seats``: Heckmeck 2, To Court the King 4, Diamant 4 by default) whose
native core runs the search, with the shipped agent as the network:

- **Time per evaluation** of the network on the observations of the positions below: the
  core's forward pass (one observation a call, as the native search asks), numpy's
  one-observation path (``PolicyValueNet.evaluate``, as the Python search asks at ``batch=1``)
  and numpy's batched forward (``PolicyValueNet.forward`` on 32 at once, as
  ``NetworkEvaluator`` answers ``batch=32``), in milliseconds per observation.
- **Time per move** at each ``--simulations`` N: the Python search (``AgentBot(net, search=N)``)
  and the native one (``make_bot("agent:search=N")``) on the same positions (the decisions of
  ``--positions-games`` seeded games the network plays alone, a quarter of the moves random),
  ``--positions`` of them at most, each position timed once per bot, interleaved.
- **The same player** (``--head-to-head G``): G games of the native search against the Python
  search at the game's seats (half each, seats rotated, seeded) at the first N; the native
  search's win share and its 95% interval.

Run it with ``OPENBLAS_NUM_THREADS=1`` (one BLAS thread, as the training's workers run).
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from typing import Any

import numpy as np

from tablezoo.bots.core import Seat
from tablezoo.bots.native import native_net
from tablezoo.bots.registry import make_bot, shipped_agent
from tablezoo.bots.search import AgentBot
from tablezoo.evaluation.tournament import tournament
from tablezoo.games import make

SEATS = {"heckmeck": 2, "court": 4, "diamant": 4}
"""The seat count each game is measured at."""


def positions(game: Any, games: int, seed: int) -> list[Seat]:
    """The decisions of ``games`` seeded games the network plays alone (a quarter of the moves random)."""
    bot = make_bot("agent", game)
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(games):
        state = game.initial_state()
        while game.advance(state, rng) >= 0:
            at = Seat.of(game, game.clone(state), game.to_move(state))
            out.append(at)
            move = bot.act(at) if rng.random() < 0.75 else int(rng.choice(at.legal))
            game.apply(state, move)
    return out


def per_call(f: Any, calls: int) -> float:
    """Milliseconds per call of ``f`` (after one call to warm up)."""
    f()
    start = time.perf_counter()
    for _ in range(calls):
        f()
    return (time.perf_counter() - start) * 1e3 / calls


def evaluation_times(game: Any, at: list[Seat]) -> dict[str, float]:
    """Milliseconds per observation: the core's forward, numpy's single and batched ones."""
    net = shipped_agent(game)
    twin = native_net(net)
    x = np.stack([net.reads(game, s.observation) for s in at[:256]])
    batches = [x[i : i + 32] for i in range(0, len(x) - 31, 32)]
    n = len(x)
    return {
        "native": round(per_call(lambda: [twin.evaluate(row) for row in x], 10) / n, 4),
        "numpy_single": round(per_call(lambda: [net.evaluate(row) for row in x], 10) / n, 4),
        "numpy_batched_32": round(
            per_call(lambda: [net.forward(b) for b in batches], 10) / (32 * len(batches)), 4
        ),
    }


def move_times(game: Any, at: list[Seat], simulations: int, seed: int) -> dict[str, Any]:
    """Milliseconds per move of the Python and the native search on the positions ``at``."""
    python = AgentBot(shipped_agent(game), search=simulations, seed=seed)
    native = make_bot(f"agent:search={simulations}", game)
    native.reset(seed)
    spent = {"python": 0.0, "native": 0.0}
    for seat in at:
        for name, bot in (("python", python), ("native", native)):
            start = time.perf_counter()
            bot.act(seat)
            spent[name] += time.perf_counter() - start
    ms = {name: round(t * 1e3 / len(at), 3) for name, t in spent.items()}
    return {
        "simulations": simulations,
        "positions": len(at),
        **ms,
        "speedup": round(ms["python"] / ms["native"], 1),
    }


def head_to_head(game: Any, simulations: int, games: int, seed: int) -> dict[str, Any]:
    """The native search against the Python one over ``games`` games, half the seats each."""
    net = shipped_agent(game)
    half = game.num_seats // 2
    lineup = [("native", lambda: make_bot(f"agent:search={simulations}", game))] * half
    lineup += [("python", lambda: AgentBot(net, search=simulations))] * (game.num_seats - half)
    native, _ = tournament(game, lineup, games=games, seed=seed)
    low, high = native.interval()
    return {
        "simulations": simulations,
        "games": games,
        "native_win_share": round(native.win_rate, 4),
        "interval": [round(low, 4), round(high, 4)],
        "fair_share": round(half / game.num_seats, 4),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", nargs="+", default=list(SEATS), choices=list(SEATS), help="the games")
    parser.add_argument(
        "--simulations", nargs="+", type=int, default=[32, 128, 512], help="the N of agent:search=N"
    )
    parser.add_argument(
        "--positions-games", type=int, default=2, help="seeded games whose decisions are timed"
    )
    parser.add_argument("--positions", type=int, default=40, help="decisions timed per N, at most")
    parser.add_argument(
        "--head-to-head", type=int, default=0, help="games of the native search against the Python one"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=None, help="write the JSON here")
    args = parser.parse_args()
    rows = []
    for name in args.games:
        game = make(name, SEATS[name], core="native")
        at = positions(game, args.positions_games, args.seed)
        step = max(1, len(at) // args.positions)
        sample = at[::step][: args.positions]
        row: dict[str, Any] = {
            "game": name,
            "seats": game.num_seats,
            "evaluation_ms": evaluation_times(game, at),
        }
        print(json.dumps(row), flush=True)
        row["move_ms"] = []
        for n in args.simulations:
            row["move_ms"].append(move_times(game, sample, n, args.seed))
            print(json.dumps(row["move_ms"][-1]), flush=True)
        if args.head_to_head:
            row["head_to_head"] = head_to_head(game, args.simulations[0], args.head_to_head, args.seed)
            print(json.dumps(row["head_to_head"]), flush=True)
        rows.append(row)
    result = {"machine": platform.machine(), "python": platform.python_version(), "rows": rows}
    if args.out:
        with open(args.out, "w") as f:
            json.dump(result, f, indent=2)
            f.write("\n")


if __name__ == "__main__":
    main()
