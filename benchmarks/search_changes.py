"""Where the search changes the network's move: is its choice better, and by how much does it think so?

A searcher (``agent:search=256,others=likeliest,leaf=end``, say) plays at one seat against the
network alone (``agent``) at every other, seats rotated, as ``search_scaling.py`` plays it head to
head. At each of its decisions where it plays another move than the network's likeliest, both moves
are valued afresh: ``--playouts`` games played out from the true position (the referee's, not a
determinisation of the seat's), every seat playing the network's likeliest move, the two moves on
the same chance streams. Against ``agent`` that is what each move is worth, up to the playouts'
own noise, whatever the searcher simulated.

A row sets side by side, over the decisions changed:

- ``estimated``: the searcher's own estimate of what its change gains, the mean simulated win share
  (``Root.q``) of its choice less that of the network's move;
- ``gain``: what the change gains by the fresh playouts, with its 95% interval: above 0, the
  search improves on the network where it acts;
- ``overrated`` and ``underrated``: by how much the search's simulated values exceed the fresh ones
  for its choice, and fall short of them for the network's move. Both are selection's: a move
  is changed where its simulations happened to favour the change;
- ``a game``: the fresh gains of each game's changes summed, averaged over the games. Against
  ``agent``, the searching seat plays against a fixed policy, and its expected win share less the
  network's is the sum of what each of its moves gains over the network's own move, valued by
  the network's play after it, along the searcher's games (the performance difference lemma of
  Kakade and Langford, 2002). So ``a game`` measures without bias what a row of win shares head
  to head measures (over the same deals, ``search_scaling.py``'s paired gain), from a few dozen
  games where that row needs a thousand, as the fresh playouts average the dice and the deals
  that decide single games.

``--rollouts`` measures instead a plain rollout search, one without the network's prior: in the
network's own games, at every ``--every``-th decision of the measured seat, each of the network's
``--moves`` likeliest moves is valued by ``--playouts`` playouts and, on other streams, by as many
again; the move best on each half is judged by the other half (so its luck on the half that chose
it does not count), and the two judgements are averaged. That is the gain of playing the best
move by ``--playouts`` playouts where the network would play its own; its ``a game`` (the sampled
gains summed, times ``--every``) is, to first order, what that search would add at every
decision. It says how far apart the moves' worths are, beside the noise of so many playouts::

    python benchmarks/search_changes.py --games heckmeck \\
        --searcher agent:search=256,others=likeliest,leaf=end --games-played 30 --playouts 200 \\
        --out benchmarks/results/search_scaling/search_changes.json
    python benchmarks/search_changes.py --games heckmeck court --rollouts --every 5 --games-played 20 \\
        --playouts 100 --out benchmarks/results/search_scaling/search_changes.json
    python benchmarks/search_changes.py --out benchmarks/results/search_scaling/search_changes.json --markdown
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np

from tablezoo.bots.core import Seat
from tablezoo.bots.net import PolicyValueNet
from tablezoo.bots.registry import make_bot, shipped_agent
from tablezoo.bots.search import AgentBot
from tablezoo.games import GAMES, make
from tablezoo.games.core import TERMINAL, Game

MAX_DECISIONS = 20_000
"""A game (or a playout) still running after this many decisions is stopped and shared by every seat."""


def likeliest(game: Game[Any], net: PolicyValueNet, state: Any, mover: int) -> int:
    """The network's likeliest legal move for ``mover``: what ``agent`` plays."""
    at = Seat.of(game, state, mover)
    return net.act(net.reads(game, at.observation), at.mask)


def credit(game: Game[Any], state: Any, seat: int) -> float:
    """``seat``'s share of the win of a finished (or stopped) game."""
    if game.to_move(state) != TERMINAL:
        return 1.0 / game.num_seats
    winners = game.winners(state)
    return 1.0 / len(winners) if seat in winners else 0.0


def playout(game: Game[Any], net: PolicyValueNet, state: Any, seat: int, move: int, stream: int) -> float:
    """``seat``'s share of the win after ``move`` in ``state``, every seat then playing the network's
    likeliest move, chance drawn from ``stream``."""
    x = game.clone(state)
    game.apply(x, move)
    chance = np.random.default_rng(stream)
    for _ in range(MAX_DECISIONS):
        mover = game.advance(x, chance)
        if mover == TERMINAL:
            break
        game.apply(x, likeliest(game, net, x, mover))
    return credit(game, x, seat)


def changes(
    game_name: str, seats: int, searcher: str, games: int, playouts: int, seed: int
) -> dict[str, Any]:
    """``games`` games of ``searcher`` against the network alone: every decision it changed (its game's
    number with it), each move's simulated and fresh value."""
    game = make(game_name, seats)
    net = shipped_agent(game)
    if not net.has_value_head:
        raise SystemExit(f"{game_name}'s agent has no value head to search with")
    rng = np.random.default_rng(seed)
    found: list[dict[str, float]] = []
    decisions = 0
    for g in range(games):
        me = g % seats
        bot = make_bot(searcher, game)
        if not (isinstance(bot, AgentBot) and bot.root_kind == "gumbel" and bot.simulations):
            raise SystemExit(f"{searcher} is not the network searching: give agent:search=N or agent:think=T")
        bot.reset(int(rng.integers(2**63)))
        chance = np.random.default_rng(int(rng.integers(2**63)))
        state = game.initial_state()
        for _ in range(MAX_DECISIONS):
            mover = game.advance(state, chance)
            if mover == TERMINAL:
                break
            at = Seat.of(game, state, mover)
            base = likeliest(game, net, state, mover)
            move = base
            if mover == me and len(at.legal) > 1:
                decisions += 1
                root = bot.think(at)
                move = root.move
                if move != base:
                    streams = [int(x) for x in rng.integers(2**63, size=playouts)]
                    fresh = [
                        float(np.mean([playout(game, net, state, me, m, x) for x in streams]))
                        for m in (base, move)
                    ]
                    b, c = root.legal.index(base), root.choice
                    found.append(
                        {
                            "game": g,
                            "logit_gap": round(float(root.logits[b] - root.logits[c]), 4),
                            "q_network": round(float(root.q[b]), 4),
                            "q_choice": round(float(root.q[c]), 4),
                            "fresh_network": round(fresh[0], 4),
                            "fresh_choice": round(fresh[1], 4),
                        }
                    )
            game.apply(state, move)
    return {
        "command": " ".join(sys.argv),
        "game": game_name,
        "seats": seats,
        "searcher": searcher,
        "games": games,
        "seed": seed,
        "playouts": playouts,
        "decisions": decisions,
        "changes": found,
    }


def rollouts(
    game_name: str, seats: int, games: int, playouts: int, every: int, moves: int, seed: int
) -> dict[str, Any]:
    """``games`` of the network against itself: at every ``every``-th decision of the measured seat
    with a choice, the gain of the best of its ``moves`` likeliest moves by ``playouts`` playouts,
    judged on as many others (see the module docstring)."""
    game = make(game_name, seats)
    net = shipped_agent(game)
    rng = np.random.default_rng(seed)
    found: list[dict[str, float]] = []
    decisions = 0
    for g in range(games):
        me = g % seats
        chance = np.random.default_rng(int(rng.integers(2**63)))
        state = game.initial_state()
        for _ in range(MAX_DECISIONS):
            mover = game.advance(state, chance)
            if mover == TERMINAL:
                break
            at = Seat.of(game, state, mover)
            logits = net.logits(net.reads(game, at.observation))
            legal = sorted(at.legal, key=lambda a: -logits[a])  # the likeliest first: the network's move
            if mover == me and len(legal) > 1:
                decisions += 1
                if decisions % every == 0:
                    tried = legal[:moves]
                    halves = [[int(x) for x in rng.integers(2**63, size=playouts)] for _ in range(2)]
                    value = np.array(
                        [
                            [np.mean([playout(game, net, state, me, m, x) for x in half]) for m in tried]
                            for half in halves
                        ]
                    )
                    # the best move by each half, judged by the other (index 0 is the network's move)
                    judged = [value[1 - h, int(np.argmax(value[h]))] - value[1 - h, 0] for h in (0, 1)]
                    found.append(
                        {
                            "game": g,
                            "moves": len(tried),
                            "gain": round(float(np.mean(judged)), 4),
                            "switched": sum(int(np.argmax(value[h])) != 0 for h in (0, 1)) / 2,
                        }
                    )
            game.apply(state, legal[0])
    return {
        "command": " ".join(sys.argv),
        "game": game_name,
        "seats": seats,
        "searcher": f"rollouts, {moves} moves",
        "games": games,
        "seed": seed,
        "playouts": playouts,
        "every": every,
        "decisions": decisions,
        "changes": found,
    }


def mean_ci(values: np.ndarray) -> list[float]:
    """The mean of ``values`` and its normal 95% interval."""
    m = float(values.mean())
    half = 1.96 * float(values.std(ddof=1)) / math.sqrt(len(values)) if len(values) > 1 else 0.0
    return [round(m, 4), round(m - half, 4), round(m + half, 4)]


def summary(row: dict[str, Any]) -> dict[str, Any]:
    """A row's share of decisions changed (sampled, for rollouts), and the means with their 95%
    intervals: over its changes (or samples), and of the gains summed a game over its games."""
    found = row["changes"]
    every = row.get("every", 1)
    out: dict[str, Any] = {"changed": len(found) / max(row["decisions"], 1)}
    if "every" in row:  # rollouts: a share of the sampled decisions where the best move was another
        out["changed"] = sum(c["switched"] for c in found) / max(len(found), 1)
    if not found:
        return out
    col = {key: np.array([c[key] for c in found]) for key in found[0]}
    if "every" in row:
        gains = col["gain"]
    else:
        gains = col["fresh_choice"] - col["fresh_network"]
        out["estimated"] = mean_ci(col["q_choice"] - col["q_network"])
        out["overrated"] = mean_ci(col["q_choice"] - col["fresh_choice"])
        out["underrated"] = mean_ci(col["fresh_network"] - col["q_network"])
    out["gain"] = mean_ci(gains)
    a_game = np.zeros(row["games"])
    np.add.at(a_game, col["game"].astype(int), gains * every)
    out["a_game"] = mean_ci(a_game)
    return out


def markdown(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| game | seats | searcher | games | seed | decisions | changed | estimated gain |"
        " gain a change [95%] | overrated choice | underrated network move | gain a game [95%] |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]

    def cell(triple: list[float] | None) -> str:
        return "-" if triple is None else f"{triple[0]:+.3f} [{triple[1]:+.3f}, {triple[2]:+.3f}]"

    for row in rows:
        s = summary(row)
        counted = f"{len(row['changes'])} sampled" if "every" in row else str(len(row["changes"]))
        lines.append(
            f"| {make(row['game']).info.title} | {row['seats']} | `{row['searcher']}` | {row['games']:,} |"
            f" {row['seed']} | {row['decisions']:,} | {s['changed']:.1%} ({counted}) |"
            f" {'-' if 'estimated' not in s else format(s['estimated'][0], '+.3f')} | {cell(s.get('gain'))} |"
            f" {cell(s.get('overrated'))} | {cell(s.get('underrated'))} | {cell(s.get('a_game'))} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", nargs="+", choices=list(GAMES), default=["heckmeck"])
    parser.add_argument("--seats", nargs="+", type=int, default=[2], help="seat counts (Diamant: at least 3)")
    parser.add_argument("--searcher", default="agent:search=256,others=likeliest,leaf=end")
    parser.add_argument(
        "--rollouts", action="store_true", help="a plain rollout search instead of --searcher"
    )
    parser.add_argument(
        "--every", type=int, default=5, help="with --rollouts: every so many decisions sampled"
    )
    parser.add_argument(
        "--moves", type=int, default=8, help="with --rollouts: the network's likeliest moves valued"
    )
    parser.add_argument("--games-played", type=int, default=20)
    parser.add_argument(
        "--playouts", type=int, default=200, help="fresh playouts of each move (of each half)"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None, help="JSON file: rows kept and added to")
    parser.add_argument("--markdown", action="store_true", help="print the rows of --out as a table")
    args = parser.parse_args(argv)
    kept: list[dict[str, Any]] = (
        json.loads(args.out.read_text())["rows"] if args.out and args.out.exists() else []
    )
    if args.markdown:
        if args.out is None:
            parser.error("--markdown prints the rows of --out: give --out")
        print(markdown(kept))
        return
    if min(args.games_played, args.playouts, args.every) < 1 or args.moves < 2:
        parser.error("--games-played, --playouts and --every are 1 or more, --moves 2 or more")
    for game_name in args.games:
        least = make(game_name).info.min_seats
        for seats in sorted({max(s, least) for s in args.seats}):
            if args.rollouts:
                row = rollouts(
                    game_name, seats, args.games_played, args.playouts, args.every, args.moves, args.seed
                )
            else:
                row = changes(game_name, seats, args.searcher, args.games_played, args.playouts, args.seed)
            print(
                json.dumps({k: v for k, v in row.items() if k not in ("command", "changes")} | summary(row)),
                flush=True,
            )
            same = ("game", "seats", "searcher", "seed", "playouts", "games")
            kept = [r for r in kept if any(r.get(k) != row[k] for k in same)] + [row]
            if args.out is not None:
                args.out.parent.mkdir(parents=True, exist_ok=True)
                args.out.write_text(json.dumps({"rows": kept}) + "\n")


if __name__ == "__main__":
    main()
