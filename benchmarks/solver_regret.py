"""How far a Heckmeck network's play within a turn is from the exact turn solver's, in worms.

The exact turn solver (:class:`tablezoo.bots.heckmeck.HeckmeckSolverBot`) beats the shipped network
alone (it wins about 0.56 head to head), and the search's simulations can play the rest of a turn
by it (``agent:search=N,own=solver``). What is left for the search's root to find is the
network's own move where it is worse than the solver's. Here the network plays itself at every seat
(its likeliest legal move, as ``agent`` plays), and at each decision with a choice the solver values
every legal move (the turn's expected worm change, :meth:`HeckmeckSolverBot.action_values`): the
regret of the network's move is the best value less its own. The rows give the mean regret a
decision, per kind of decision (which face to keep; roll on or stop), the share of decisions whose
regret is above 0, 0.1 and 0.3 worms, and the share of all the regret those decisions carry::

    python benchmarks/solver_regret.py --games-played 200 \\
        --out benchmarks/results/search_scaling/solver_regret.json

``--nets A.npz B.npz`` measures other networks of the game on the same seeded games (each plays
its own moves, so the games part as soon as two networks' moves differ).

``--searcher NAME`` (a bot of the native core, such as
``agent:search=256,others=likeliest,own=solver``) is asked too at each of the shipped network's
decisions, on the same position, and the network's move is still the one played. Its row says
where the search's changes land by the solver's yardstick: the share of decisions it changes, the
worms a change gains (the network's regret less the searcher's), the share of its changes the
solver calls better and worse, and the share of the network's errors above 0.1 worms it mends.

The solver looks at one turn: its values ignore what a move does beyond it (a tile left for the
other seat to steal back). A move it calls worse is worse for this turn's worms, which is what it
maximises, and the network's move may still be right for the game.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from tablezoo.bots.core import Seat
from tablezoo.bots.heckmeck import HeckmeckSolverBot
from tablezoo.bots.net import PolicyValueNet
from tablezoo.bots.registry import make_bot, shipped_agent
from tablezoo.games import make
from tablezoo.games.core import TERMINAL
from tablezoo.games.heckmeck import ROLL

THRESHOLDS = (0.0, 0.1, 0.3)
"""The regrets (worms) above which the rows count the decisions and the regret they carry."""


def regrets(
    net: PolicyValueNet, seats: int, games: int, seed: int, searcher: str | None = None
) -> tuple[dict[str, list[float]], list[tuple[float, float]]]:
    """The regret of each of ``net``'s decisions with a choice, by kind (``keep``, ``roll or
    stop``), over ``games`` games of it against itself; and with ``searcher``, the pair (the
    network's regret, the searcher's) at each of those decisions."""
    game = make("heckmeck", seats, core="python")
    native = make("heckmeck", seats, core="native") if searcher else None
    bot = make_bot(searcher, native) if searcher and native else None
    solver = HeckmeckSolverBot()
    out: dict[str, list[float]] = {"keep": [], "roll or stop": []}
    pairs: list[tuple[float, float]] = []
    for g in range(games):
        rng = np.random.default_rng([seed, g])
        if bot is not None:
            bot.reset(int(np.random.default_rng([seed, g, 1]).integers(2**31)))
        state = game.initial_state()
        while (mover := game.advance(state, rng)) != TERMINAL:
            at = Seat.of(game, state, mover)
            move = net.act(net.reads(game, at.observation), at.mask)
            if len(at.legal) > 1:
                values = solver.action_values(at)
                regret = max(values) - values[at.legal.index(move)]
                out["keep" if at.legal[0] < ROLL else "roll or stop"].append(regret)
                if bot is not None and native is not None:
                    twin = native.state_from_dict(game.state_to_dict(state))
                    searched = bot.act(Seat.of(native, twin, mover))
                    pairs.append((regret, max(values) - values[at.legal.index(searched)]))
            game.apply(state, move)
    return out, pairs


def search_summary(pairs: list[tuple[float, float]]) -> dict[str, Any]:
    """Where a searcher's changes of the network's moves land by the solver's values."""
    p = np.asarray(pairs, dtype=float).reshape(-1, 2)
    gain = p[:, 0] - p[:, 1]
    changed = np.abs(gain) > 1e-9  # a change to a move the solver values the same is not counted
    errors = p[:, 0] > 0.1 + 1e-9
    return {
        "decisions": len(p),
        "changed_in_value": round(float(changed.mean()), 4),
        "worms_a_change": round(float(gain[changed].mean()), 4) if changed.any() else None,
        "changes_better": round(float((gain[changed] > 0).mean()), 4) if changed.any() else None,
        "errors_above_0.1": int(errors.sum()),
        "errors_mended": round(float((gain[errors] > 1e-9).mean()), 4) if errors.any() else None,
        "worms_a_decision": round(float(gain.mean()), 5),
    }


def summary(values: list[float], games: int, seats: int) -> dict[str, Any]:
    r = np.asarray(values, dtype=float)
    total = float(r.sum())
    row: dict[str, Any] = {"decisions": len(r), "mean_regret": round(float(r.mean()), 5) if len(r) else None}
    for t in THRESHOLDS:
        above = r > t + 1e-9
        row[f"share_above_{t}"] = round(float(above.mean()), 4) if len(r) else None
        row[f"regret_share_above_{t}"] = round(float(r[above].sum()) / total, 4) if total else None
    row["regret_per_seat_and_game"] = round(total / (games * seats), 4)
    return row


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--nets", nargs="*", default=[], help="networks (.npz); none: the shipped agent")
    parser.add_argument("--seats", type=int, default=2)
    parser.add_argument("--games-played", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--searcher", help="a native bot asked at the shipped network's decisions too")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    game = make("heckmeck", args.seats, core="python")
    nets = {path: PolicyValueNet.load(path) for path in args.nets} or {"agent": shipped_agent(game)}
    rows = []
    for name, net in nets.items():
        start = time.perf_counter()
        searcher = args.searcher if name == "agent" else None
        kinds, pairs = regrets(net, args.seats, args.games_played, args.seed, searcher)
        row = {"network": name, "seats": args.seats, "games": args.games_played, "seed": args.seed}
        row |= summary(kinds["keep"] + kinds["roll or stop"], args.games_played, args.seats)
        row["by_kind"] = {kind: summary(v, args.games_played, args.seats) for kind, v in kinds.items()}
        if searcher:
            row["searcher"] = {"name": searcher} | search_summary(pairs)
        row["wall_seconds"] = round(time.perf_counter() - start, 1)
        print(json.dumps(row), flush=True)
        rows.append(row)
    if args.out:
        body = {"command": " ".join(["benchmarks/solver_regret.py", *sys.argv[1:]]), "rows": rows}
        args.out.write_text(json.dumps(body, indent=1) + "\n")


if __name__ == "__main__":
    main()
