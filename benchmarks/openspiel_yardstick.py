"""An outside yardstick: OpenSpiel's own search against ours, at equal simulations a move.

    python benchmarks/openspiel_yardstick.py --games diamant --seats 3 --simulations 100 --rounds 40 \\
        --out benchmarks/results/openspiel_yardstick.json

OpenSpiel's search, written by others, takes one seat of a game as the bot
``ismcts:simulations=N`` (:class:`tablezoo.wrappers.openspiel.OpenSpielISMCTSBot`: OpenSpiel's
information-set MCTS, UCT constant 2, one random rollout a new node, the move visited most; its
MCTS on Heckmeck and To Court the King, which hide nothing); our bots take every other seat:
``--against`` (default ``agent:search={simulations}``, the shipped agent's search at the same
number of simulations; ``{simulations}`` is replaced by the row's). The seat goes round the table
game by game, and each game is played as the strength league plays it
(:func:`tablezoo.evaluation.tournament.play_game`: the bots and the dice seeded from the game's
own seed).

A row is a game, a seat count, a simulation count, an opponent and a ``--seed``. Its games are
numbered, each with its own seed split from ``--seed``, and every game's result is written to
``--out`` as it ends, so a row is resumable: run the same command again and each row goes on from
the games it has until it holds ``--rounds``. A write merges what another run wrote to the file
meanwhile (under a lock): no run loses another's games. Each row: OpenSpiel's win share (1 for a sole win,
1/k for a win shared by k seats, ``1/n`` for a game stopped at the decision limit) with its 95%
Wilson interval, the even share ``1/n``, and the time a move of each side, CPU time of the process
(fair on a shared machine) and wall clock. ``--rounds 0`` times ``--timed-moves`` of OpenSpiel's
moves of one game instead (a row marked ``timed``) where whole games do not fit.
``--table FILE`` prints a result file as the docs' table.
"""

from __future__ import annotations

import argparse
import fcntl
import hashlib
import json
import os
import platform
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from tablezoo.bots.core import Bot, Seat
from tablezoo.evaluation.play import one_thread
from tablezoo.evaluation.policies import named_bot
from tablezoo.evaluation.stats import wilson
from tablezoo.evaluation.tournament import play_game
from tablezoo.games import make
from tablezoo.games.core import Game

SEATS = {"heckmeck": [2, 4], "sechs_nimmt": [2, 4], "diamant": [3, 4], "court": [2, 4]}
SIDES = ("openspiel", "ours")


class EnoughMovesError(Exception):
    """Raised when the moves of a timed row are played."""


class Timed:
    """A bot whose moves are timed into ``clock[side]`` (CPU and wall seconds, moves)."""

    def __init__(self, bot: Bot, side: str, clock: dict[str, dict[str, float]], stop_after: int = 0) -> None:
        self.bot, self.side, self.clock, self.stop_after = bot, side, clock, stop_after
        self.name = bot.name

    def reset(self, seed: int | None = None) -> None:
        self.bot.reset(seed)

    def act(self, seat: Seat) -> int:
        wall, cpu = time.perf_counter(), time.process_time()
        action = self.bot.act(seat)
        spent = self.clock[self.side]
        spent["cpu"] += time.process_time() - cpu
        spent["wall"] += time.perf_counter() - wall
        spent["moves"] += 1
        if self.stop_after and spent["moves"] >= self.stop_after:
            raise EnoughMovesError
        return action


def game_seed(seed: int, number: int) -> int:
    """Game ``number``'s own seed in the rows of ``seed`` (the same however many games are played)."""
    return int(np.random.SeedSequence([seed, number]).generate_state(1)[0])


def play_one(
    game: Game[Any], spec: str, against: str, number: int, seed: int, timed_moves: int = 0
) -> dict[str, Any]:
    """Game ``number`` of a row, OpenSpiel's search at seat ``number % n``: its credit and times."""
    n = game.num_seats
    seat = number % n
    clock = {side: {"cpu": 0.0, "wall": 0.0, "moves": 0} for side in SIDES}
    openspiel = named_bot(spec, game)
    bots: list[Bot] = [
        Timed(openspiel, "openspiel", clock, timed_moves)
        if s == seat
        else Timed(named_bot(against, game), "ours", clock)
        for s in range(n)
    ]
    credit: float | None = None
    try:
        with one_thread():
            winners, _ = play_game(game, bots, game_seed(seed, number))
        credit = 1.0 / n if winners is None else (1.0 / len(winners) if seat in winners else 0.0)
    except EnoughMovesError:
        winners = None
    return {
        "number": number,
        "seat": seat,
        "credit": credit,
        "stopped": credit is not None and winners is None,
        "search": getattr(openspiel, "search", ""),
        "clock": clock,
    }


def summary(row: dict[str, Any]) -> dict[str, Any]:
    """A row's figures from its games."""
    played = [g for g in row["played"] if g["credit"] is not None]
    share = float(np.mean([g["credit"] for g in played])) if played else None
    low, high = wilson(share, len(played)) if share is not None else (None, None)
    total = {
        side: {k: sum(g["clock"][side][k] for g in row["played"]) for k in ("cpu", "wall", "moves")}
        for side in SIDES
    }
    out: dict[str, Any] = {
        "games": len(played),
        "stopped_at_limit": sum(g["stopped"] for g in played),
        "win_share": share,
        "wilson_95": [low, high],
        "even": 1.0 / row["players"],
        "openspiel": next((g["search"] for g in row["played"] if g["search"]), ""),
        "moves_timed": {side: int(total[side]["moves"]) for side in SIDES},
    }
    for side in SIDES:
        moves = total[side]["moves"]
        out[f"cpu_ms_a_move_{side}"] = 1000 * total[side]["cpu"] / moves if moves else None
        out[f"ms_a_move_{side}"] = 1000 * total[side]["wall"] / moves if moves else None
    return out


def run_row(
    rows: list[dict[str, Any]], key: dict[str, Any], rounds: int, timed_moves: int, save: Any
) -> dict[str, Any]:
    """Play the row ``key`` on (found in ``rows`` or added) until it holds ``rounds`` games, saving each."""
    row = next((r for r in rows if all(r.get(k) == v for k, v in key.items())), None)
    if row is None:
        row = {**key, "played": []}
        rows.append(row)
    game = make(key["game"], key["players"])
    target = rounds if rounds else 1
    while len(row["played"]) < target:
        number = len(row["played"])
        row["played"].append(play_one(game, key["bot"], key["against"], number, key["seed"], timed_moves))
        row.update(summary(row), load=list(os.getloadavg()))
        save()
    print(json.dumps({k: v for k, v in row.items() if k != "played"}), flush=True)
    return row


def merge(document: dict[str, Any], other: dict[str, Any]) -> None:
    """Fold the rows of ``other`` (the file as another run left it) into ``document``: a row only it
    has is added, and a row both have keeps every game either played (a game's result is the same
    whichever run played it: its number gives its seeds and its seat)."""
    rows = document["rows"]
    for theirs in other["rows"]:
        mine = next((r for r in rows if r == theirs or ("played" in r and same_row(r, theirs))), None)
        if mine is None:
            rows.append(theirs)
        elif mine is not theirs and "played" in theirs:
            games = {g["number"]: g for g in theirs["played"]} | {g["number"]: g for g in mine["played"]}
            mine["played"] = [games[k] for k in sorted(games)]
            mine.update(summary(mine))


def same_row(row: dict[str, Any], other: dict[str, Any]) -> bool:
    keys = ("game", "players", "bot", "simulations", "against", "seed", "timed")
    return "played" in other and all(row.get(k) == other.get(k) for k in keys)


def write(path: Path, document: dict[str, Any]) -> None:
    """Write ``document`` to ``path`` with what another run wrote there since merged in, under a lock."""
    name = hashlib.sha1(str(path.resolve()).encode()).hexdigest()[:16]
    with (Path(tempfile.gettempdir()) / f"openspiel_yardstick-{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if path.exists():
            merge(document, json.loads(path.read_text()))
        part = path.with_suffix(".part")
        part.write_text(json.dumps(document, indent=1) + "\n")
        part.replace(path)


def table(rows: list[dict[str, Any]]) -> str:
    """The rows as the Markdown table of the docs."""
    lines = [
        "| game | seats | OpenSpiel | rollouts | simulations | against | seed | games "
        "| OpenSpiel's win share (95% CI) | even | CPU ms a move: OpenSpiel / ours |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        if r["games"]:
            low, high = r["wilson_95"]
            share = f"{r['win_share']:.2f} ({low:.2f}-{high:.2f})"
        else:
            share = "not played (moves timed)"
        key = "cpu_ms_a_move" if r.get("cpu_ms_a_move_openspiel") is not None else "ms_a_move"
        mark = "" if key == "cpu_ms_a_move" else " (wall)"
        ours = f"{r[key + '_ours']:,.1f}" if r[key + "_ours"] is not None else "-"
        rollouts = "engine" if "played" in r else "OpenSpiel's"
        lines.append(
            f"| {r['game']} | {r['players']} | {r['openspiel']} | {rollouts} | {r['simulations']:,} "
            f"| `{r['against']}` | {r.get('seed', '')} | {r['games']} | {share} | {r['even']:.2f} "
            f"| {r[key + '_openspiel']:,.0f} / {ours}{mark} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", nargs="+", default=list(SEATS), choices=list(SEATS))
    parser.add_argument(
        "--seats", nargs="+", type=int, help="seat counts (default: 2 and 4; Diamant 3 and 4)"
    )
    parser.add_argument("--simulations", nargs="+", type=int, default=[100, 1000, 10000])
    parser.add_argument(
        "--against",
        nargs="+",
        default=["agent:search={simulations}"],
        help="our bots, at every other seat ({simulations}: the row's simulations)",
    )
    parser.add_argument(
        "--rounds", type=int, default=1000, help="games a row should hold (0: time moves only)"
    )
    parser.add_argument("--timed-moves", type=int, default=5, help="OpenSpiel moves timed when --rounds is 0")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, help="the rows' JSON: rows there go on, new rows are added")
    parser.add_argument("--table", type=Path, help="print the rows of this JSON file as a Markdown table")
    args = parser.parse_args(argv)
    if args.table:
        print(table(json.loads(args.table.read_text())["rows"]))
        return
    if args.rounds < 0 or args.timed_moves < 1:
        parser.error(
            f"--rounds is at least 0 and --timed-moves at least 1, not {args.rounds} and {args.timed_moves}"
        )

    document: dict[str, Any] = {"machine": platform.processor() or platform.machine(), "rows": []}
    if args.out and args.out.exists():
        document = json.loads(args.out.read_text())
    rows: list[dict[str, Any]] = document["rows"]

    def save() -> None:
        if args.out:
            write(args.out, document)

    for name in args.games:
        for players in args.seats or SEATS[name]:
            for simulations in args.simulations:
                for against in args.against:
                    key = {
                        "game": name,
                        "players": players,
                        "bot": f"ismcts:simulations={simulations}",
                        "simulations": simulations,
                        "against": against.format(simulations=simulations),
                        "seed": args.seed,
                        "timed": args.rounds == 0,
                    }
                    run_row(rows, key, args.rounds, args.timed_moves if args.rounds == 0 else 0, save)


if __name__ == "__main__":
    main()
