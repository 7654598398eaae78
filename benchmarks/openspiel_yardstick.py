"""An outside yardstick: OpenSpiel's own search against ours, at equal simulations a move.

    nice -n 10 python benchmarks/openspiel_yardstick.py --games diamant --seats 3 4 \\
        --simulations 100 1000 --rounds 20 --out benchmarks/results/openspiel_yardstick.json

OpenSpiel's information-set MCTS (``open_spiel.python.algorithms.ismcts``, UCT constant 2, random
rollouts, the move visited most), written by others, takes one seat of a game registered by
:mod:`tablezoo.wrappers.openspiel`; our bot takes every other seat. The seat goes round the table
game by game. Heckmeck and To Court the King hide nothing, and OpenSpiel's ISMCTS asserts imperfect
information: there its MCTS (``open_spiel.python.algorithms.mcts``, the same search on the one
world, chance sampled by the game's odds) takes the seat. Our side: the shipped
agent's search at the same number of simulations (``agent:search=N``), and, where the game has one
(``--with-search``), the game's own ``search`` bot at its default settings.

Each row: OpenSpiel's win share (1 for a sole win, 1/k for a win shared by k seats) with its 95%
Wilson interval, the even share ``1/n``, and the time a move of each side: CPU time of the process
(``cpu_ms_a_move_*``: fair on a shared machine) and wall clock (``ms_a_move_*``). ``--rounds 0``
times a row's OpenSpiel moves only (``--timed-moves`` of them, from positions of a game our bots
play) when whole games do not fit. ``--table FILE`` prints a result file as the docs' table.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from tablezoo.bots.registry import make_bot
from tablezoo.evaluation.stats import wilson
from tablezoo.wrappers.openspiel import TablezooBot

SEATS = {"heckmeck": [2, 4], "sechs_nimmt": [2, 4], "diamant": [3, 4], "court": [2, 4]}


def openspiel_search(game: pyspiel.Game, simulations: int, seed: int) -> tuple[str, Any]:
    rollouts = mcts.RandomRolloutEvaluator(1, np.random.RandomState(seed))
    state = np.random.RandomState(seed + 1)
    if game.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION:
        return "ismcts", ismcts.ISMCTSBot(game, rollouts, 2.0, simulations, random_state=state)
    return "mcts", mcts.MCTSBot(game, 2.0, simulations, rollouts, random_state=state)


def play(
    game: pyspiel.Game,
    seat: int,
    search: Any,
    ours: list[TablezooBot],
    rng: np.random.Generator,
    timed_moves: int = 0,
) -> dict[str, Any]:
    """One game (or, with ``timed_moves``, only that many of OpenSpiel's moves): the returns and times."""
    state = game.new_initial_state()
    for bot in ours:
        bot.restart_at(state)
    spent = {"openspiel": 0.0, "ours": 0.0}
    cpu = {"openspiel": 0.0, "ours": 0.0}
    moves = {"openspiel": 0, "ours": 0}
    while not state.is_terminal():
        if state.is_chance_node():
            actions, odds = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(actions, p=odds)))
            continue
        player = state.current_player()
        side = "openspiel" if player == seat else "ours"
        start, start_cpu = time.perf_counter(), time.process_time()
        action = search.step(state) if side == "openspiel" else ours[player].step(state)
        spent[side] += time.perf_counter() - start
        cpu[side] += time.process_time() - start_cpu
        moves[side] += 1
        state.apply_action(int(action))
        if timed_moves and moves["openspiel"] >= timed_moves:
            break
    returns = state.returns() if state.is_terminal() else None
    return {"returns": returns, "seconds": spent, "cpu": cpu, "moves": moves}


def row(
    name: str, players: int, simulations: int, opponent: str, rounds: int, timed_moves: int, seed: int
) -> dict[str, Any]:
    game = pyspiel.load_game(f"tablezoo_{name}(players={players})")
    rng = np.random.default_rng(seed)
    credit, games = 0.0, 0
    seconds = {"openspiel": 0.0, "ours": 0.0}
    cpu = {"openspiel": 0.0, "ours": 0.0}
    moves = {"openspiel": 0, "ours": 0}
    kind = ""
    for g in range(max(rounds, 1)):
        seat = g % players
        kind, search = openspiel_search(game, simulations, seed + g)
        ours = [
            TablezooBot(make_bot(opponent, game.engine), seed=seed + 1000 * g + s) for s in range(players)
        ]
        result = play(game, seat, search, ours, rng, timed_moves if rounds == 0 else 0)
        for side in seconds:
            seconds[side] += result["seconds"][side]
            cpu[side] += result["cpu"][side]
            moves[side] += result["moves"][side]
        if result["returns"] is not None and rounds:
            returns = result["returns"]
            winners = [s for s, r in enumerate(returns) if r > 0] or list(range(players))
            credit += 1.0 / len(winners) if seat in winners else 0.0
            games += 1
    share = credit / games if games else None
    low, high = wilson(share, games) if games else (None, None)
    out = {
        "game": name,
        "players": players,
        "openspiel": kind,
        "simulations": simulations,
        "against": opponent,
        "seed": seed,
        "games": games,
        "win_share": share,
        "wilson_95": [low, high],
        "even": 1.0 / players,
        "ms_a_move_openspiel": 1000 * seconds["openspiel"] / max(moves["openspiel"], 1),
        "ms_a_move_ours": 1000 * seconds["ours"] / max(moves["ours"], 1) if moves["ours"] else None,
        "cpu_ms_a_move_openspiel": 1000 * cpu["openspiel"] / max(moves["openspiel"], 1),
        "cpu_ms_a_move_ours": 1000 * cpu["ours"] / max(moves["ours"], 1) if moves["ours"] else None,
        "moves_timed": moves,
    }
    print(json.dumps(out), flush=True)
    return out


def table(rows: list[dict[str, Any]]) -> str:
    """The rows as the Markdown table of the docs."""
    lines = [
        "| game | seats | OpenSpiel | simulations | against | seed | games | OpenSpiel's win share (95% CI) "
        "| even | ms a move: OpenSpiel / ours |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        if r["games"]:
            low, high = r["wilson_95"]
            share = f"{r['win_share']:.2f} ({low:.2f}-{high:.2f})"
        else:
            share = "not played (moves timed)"
        key = "cpu_ms_a_move" if "cpu_ms_a_move_openspiel" in r else "ms_a_move"  # CPU time where measured
        mark = "" if key == "cpu_ms_a_move" else " (wall)"
        ours = f"{r[key + '_ours']:,.1f}" if r[key + "_ours"] is not None else "-"
        lines.append(
            f"| {r['game']} | {r['players']} | {r['openspiel']} | {r['simulations']:,} | `{r['against']}` "
            f"| {r.get('seed', '')} | {r['games']} | {share} | {r['even']:.2f} "
            f"| {r[key + '_openspiel']:,.0f} / {ours}{mark} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", nargs="+", default=list(SEATS), choices=list(SEATS))
    parser.add_argument(
        "--seats", nargs="+", type=int, help="seat counts (default: 2 and 4; Diamant 3 and 4)"
    )
    parser.add_argument("--simulations", nargs="+", type=int, default=[100, 1000, 10000])
    parser.add_argument("--rounds", type=int, default=1000, help="games a row (0: time moves only)")
    parser.add_argument("--timed-moves", type=int, default=5, help="OpenSpiel moves timed when --rounds is 0")
    parser.add_argument("--with-search", action="store_true", help="also against the game's own search bot")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, help="write the rows as JSON here (appended to what is there)")
    parser.add_argument("--table", type=Path, help="print the rows of this JSON file as a Markdown table")
    args = parser.parse_args()
    if args.table:
        print(table(json.loads(args.table.read_text())["rows"]))
        return

    rows: list[dict[str, Any]] = []
    if args.out and args.out.exists():
        rows = json.loads(args.out.read_text())["rows"]
    for name in args.games:
        for players in args.seats or SEATS[name]:
            for simulations in args.simulations:
                opponents = [f"agent:search={simulations}"]
                if args.with_search and name in ("sechs_nimmt", "diamant"):
                    opponents.append("search")
                for opponent in opponents:
                    rows.append(
                        row(name, players, simulations, opponent, args.rounds, args.timed_moves, args.seed)
                    )
                    if args.out:
                        args.out.write_text(
                            json.dumps(
                                {"machine": platform.processor() or platform.machine(), "rows": rows},
                                indent=1,
                            )
                            + "\n"
                        )


if __name__ == "__main__":
    main()
