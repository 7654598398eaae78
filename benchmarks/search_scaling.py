"""Search scaling: how the searching agent's strength grows with its simulations.

For each game and seat count, and each simulation budget, two rows of games:

* ``bot``: the searching agent at one seat, the game's strongest bot at every other
  (Heckmeck ``solver``, 6 nimmt! ``search``, Diamant ``search``, To Court the King ``heuristic``);
* ``agent``: the searching agent at one seat, the shipped network alone (``agent``) at every other.

Each game seats the searcher at the next seat in turn and has a seed of its own (the same deals
and dice at every budget). A row records the searcher's win share with its 95% Wilson interval,
its mean score, the milliseconds a searched move took (mean over its decisions), the share
of its decisions with more than one legal move where the search played another move than the
network alone would have (``changed``), and every game's credit (``credits``: the same seed
plays the same deals and dice at every budget, so a row's gain over the row of one simulation,
the network alone, is measured game by game: ``--markdown`` shows it with its paired interval)::

    python benchmarks/search_scaling.py --games heckmeck court --seats 2 \\
        --simulations 1 8 32 128 512 --games-per-point 1000 --out benchmarks/results/search_scaling.json

The searcher is ``agent:search=N`` with ``--settings`` appended (``agent:search=N,root=puct`` is the
PUCT root of earlier versions); ``--think SECONDS ...`` adds rows of the game's thinking agent
(``agent:think=SECONDS`` with the settings ``tablezoo play`` and the site give it in that game,
``tablezoo.bots.registry.thinking_agent``), whose budget is a time a move (a column ``T=1s``).
``--agent FILE.npz`` searches with another network of the game (its ``changed`` share is still
counted against the shipped network's moves). Rows already in ``--out`` (the same game, seats,
opponent, searcher and games) are kept, not played again, and so are the chunks of 50 games of an
unfinished row (``OUT.chunks.json``): a stopped run goes on where it stopped.

``--plot FILE`` draws the curves of a results file (``--target`` adds a win share to reach), and
``--markdown`` prints its rows as a table; ``--also FILE ...`` joins other results files' rows to
both, ``--games``, ``--opponents`` and ``--min-games N`` choose which rows they show (the
games, the opponents, rows of at least ``N`` games), and at each budget a curve shows its row of
most games, whatever the files' order. A cell: the win share, its interval, the milliseconds a move
and the games, and the paired gain over the network alone, or with ``--against SEARCHER`` over
that searcher's row of the same games: two settings compared on the same deals and dice. A line's
last column, ``curve``, says where it falls below the point before by more than its interval, else
``rises`` or ``level`` as its last point is above its first or not::

    python benchmarks/search_scaling.py --simulations \\
        --out benchmarks/results/search_scaling/head_to_head.json \\
        --also benchmarks/results/search_scaling/heckmeck_margin.json --opponents agent --min-games 100 \\
        --target 0.56 --plot docs/images/head-to-head.png
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import multiprocessing
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from tablezoo.bots.core import Seat
from tablezoo.bots.registry import make_bot, shipped_agent, thinking_agent
from tablezoo.evaluation.stats import wilson
from tablezoo.games import GAMES, make
from tablezoo.games.core import TERMINAL

STRONGEST = {"heckmeck": "solver", "sechs_nimmt": "search", "diamant": "search", "court": "heuristic"}
"""The package's strongest bot of each game: the searcher's yardstick."""

MAX_DECISIONS = 20_000
"""A game still running after this many decisions is stopped and shared by every seat."""


def play_games(task: tuple[str, int, str, str, int, int, int]) -> dict[str, Any]:
    """Games ``first`` .. ``first + count - 1`` of one row: the searcher's credits, scores, times and
    changed decisions."""
    game_name, seats, searcher, opponent, seed, first, count = task
    game = make(game_name, seats)
    net = shipped_agent(game)
    seeds = np.random.SeedSequence(seed).generate_state(first + count)
    credits, scores, truncated = [], [], 0
    seconds, searched, changed, decided = 0.0, 0, 0, 0
    for g in range(first, first + count):
        me = g % seats
        bots = [make_bot(searcher if s == me else opponent, game) for s in range(seats)]
        game_seeds = np.random.SeedSequence(int(seeds[g])).generate_state(seats + 1)
        for bot, bot_seed in zip(bots, game_seeds[1:], strict=True):
            bot.reset(int(bot_seed))
        chance = np.random.default_rng(int(game_seeds[0]))
        state = game.initial_state()
        for _ in range(MAX_DECISIONS):
            mover = game.advance(state, chance)
            if mover == TERMINAL:
                break
            at = Seat.of(game, state, mover)
            if mover == me and len(at.legal) > 1:
                start = time.perf_counter()
                move = bots[mover].act(at)
                seconds += time.perf_counter() - start
                searched += 1
                decided += 1
                changed += move != net.act(net.reads(game, at.observation), at.mask)
            else:
                move = bots[mover].act(at)
            game.apply(state, move)
        if game.to_move(state) != TERMINAL:
            credits.append(1.0 / seats)
            truncated += 1
        else:
            winners = game.winners(state)
            credits.append(1.0 / len(winners) if me in winners else 0.0)
        scores.append(float(game.scores(state)[me]))
    return {
        "credits": credits,
        "scores": scores,
        "seconds": seconds,
        "searched": searched,
        "changed": changed,
        "decided": decided,
        "truncated": truncated,
    }


CHUNK = 50
"""Games played (and kept in ``--out``'s side file of chunks) at a time: a stopped row goes on
from its last chunk."""


def run_row(
    game_name: str,
    seats: int,
    searcher: str,
    opponent: str,
    games: int,
    seed: int,
    jobs: int,
    chunks: Path | None = None,
) -> dict[str, Any]:
    """One row: ``games`` games of ``searcher`` against ``opponent`` at every other seat. With
    ``chunks`` (a JSON file), every chunk of :data:`CHUNK` games played is kept there as it ends,
    and one kept from a stopped run is not played again."""
    tasks = [
        (game_name, seats, searcher, opponent, seed, first, min(CHUNK, games - first))
        for first in range(0, games, CHUNK)
    ]
    kept: dict[str, dict[str, Any]] = json.loads(chunks.read_text()) if chunks and chunks.exists() else {}
    start = time.perf_counter()
    found = {t: kept[json.dumps(t)] for t in tasks if json.dumps(t) in kept}
    todo = [t for t in tasks if t not in found]

    def keep(task: tuple[str, int, str, str, int, int, int], part: dict[str, Any]) -> None:
        found[task] = part
        if chunks is not None:
            kept[json.dumps(task)] = part
            chunks.parent.mkdir(parents=True, exist_ok=True)
            chunks.write_text(json.dumps(kept) + "\n")

    if jobs > 1:
        with multiprocessing.get_context("forkserver").Pool(jobs) as pool:
            for task, part in zip(todo, pool.imap(play_games, todo), strict=True):
                keep(task, part)
    else:
        for task in todo:
            keep(task, play_games(task))
    parts = [found[t] for t in tasks]
    credits = [c for p in parts for c in p["credits"]]
    share = float(np.mean(credits))
    low, high = wilson(share, len(credits))
    searched = sum(p["searched"] for p in parts)
    return {
        "game": game_name,
        "seats": seats,
        "searcher": searcher,
        "opponent": opponent,
        "games": len(credits),
        "seed": seed,
        "win_share": round(share, 4),
        "win_share_95ci": [round(low, 4), round(high, 4)],
        "mean_score": round(float(np.mean([s for p in parts for s in p["scores"]])), 3),
        "ms_per_move": round(1000 * sum(p["seconds"] for p in parts) / max(searched, 1), 3),
        "changed": round(sum(p["changed"] for p in parts) / max(sum(p["decided"] for p in parts), 1), 4),
        "truncated_games": sum(p["truncated"] for p in parts),
        "wall_seconds": round(time.perf_counter() - start, 1),
        "credits": [round(c, 4) for c in credits],
    }


def searcher_name(simulations: int, settings: str, agent: str = "agent") -> str:
    return f"{agent}:search={simulations}" + (f",{settings}" if settings else "")


def thinker_name(game_name: str, seconds: float, settings: str, agent: str = "agent") -> str:
    """The thinking agent of ``game_name`` (``agent:think=SECONDS`` with the game's thinking settings,
    as ``tablezoo play`` and the site seat it), searching with ``agent``, ``settings`` appended."""
    name = thinking_agent(game_name, seconds).replace("agent:", f"{agent}:", 1)
    return name + (f",{settings}" if settings else "")


Budget = tuple[str, float]
"""A row's budget: ``("N", simulations)`` for ``search=N``, ``("T", seconds)`` for ``think=T``."""


def budget_of(row: dict[str, Any]) -> Budget:
    """The budget of a row's searcher (``...:search=N,...`` or ``...:think=T,...``)."""
    for setting in row["searcher"].partition(":")[2].split(","):
        name, _, value = setting.partition("=")
        if name == "search":
            return ("N", int(value))
        if name == "think":
            return ("T", float(value))
    raise ValueError(f"{row['searcher']!r} has no budget: search=N or think=SECONDS")


def label(budget: Budget) -> str:
    """``N=32`` or ``T=1s``: a budget as the table heads its column."""
    kind, amount = budget
    return f"N={amount:g}" if kind == "N" else f"T={amount:g}s"


def generic(searcher: str, budget: Budget) -> str:
    """``searcher`` with its budget left open: ``agent:search=N,...`` or ``agent:think=T,...``."""
    kind, amount = budget
    setting = f"search={amount:g}" if kind == "N" else f"think={amount:g}"
    return searcher.replace(setting, "search=N" if kind == "N" else "think=T", 1)


def key(row: dict[str, Any]) -> tuple[Any, ...]:
    """What makes a row: its game, seats, opponent, searcher, games and seed (another seed's games
    are other games)."""
    return row["game"], row["seats"], row["opponent"], row["searcher"], row["games"], row["seed"]


def same_games(a: dict[str, Any], b: dict[str, Any]) -> bool:
    """Whether two rows play the same games: the same game, seats, opponent and seed (a row of ``n``
    games plays the first ``n`` of them)."""
    return all(a[k] == b[k] for k in ("game", "seats", "opponent", "seed"))


def network_alone(row: dict[str, Any], rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The row of ``row``'s network alone in the same games: one simulation of the same network,
    not advised by a bot (advised, one simulation plays the advised prior). Of several, the one of
    most games (a row of more games holds a shorter one's games), whatever their order in the file.
    None where there is none."""
    agent = row["searcher"].split(":")[0]
    bases = [
        base
        for base in rows
        if same_games(base, row)
        and budget_of(base) == ("N", 1)
        and "advice=" not in base["searcher"]
        and base["searcher"].split(":")[0] == agent
    ]
    return max(bases, key=lambda b: b["games"]) if bases else None


def paired_gain(
    row: dict[str, Any], rows: list[dict[str, Any]], against: str | None = None
) -> tuple[float, float, float] | None:
    """The searcher's gain in win share over the network alone in the same games: the mean of the
    per-game differences between ``row`` and the row of one simulation (the network alone) with the
    same game, seats, opponent, network and seed, over the games both played (a row of ``n`` games
    plays the first ``n`` games of the seed), and its 95% interval (normal, paired). The games are
    the same deals and dice, so only games where the search changed a move differ: a much narrower
    interval than two rows' own. ``against``: the gain over that searcher's row instead (another
    setting at the same budget, say). Of several rows of the baseline (a row of 100 games and one
    of 400), the longest is taken; a row of one simulation advised by a bot (``advice=``) plays the
    advised prior, not the network alone. None where either row has no per-game credits."""
    scored = [base for base in rows if "credits" in base]
    if against is None:
        base = network_alone(row, scored)
    else:
        bases = [b for b in scored if same_games(b, row) and b["searcher"] == against and b is not row]
        base = max(bases, key=lambda b: b["games"]) if bases else None
    if base is None or "credits" not in row:
        return None
    n = min(len(base["credits"]), len(row["credits"]))
    d = np.asarray(row["credits"][:n]) - np.asarray(base["credits"][:n])
    half = 1.96 * float(d.std(ddof=1)) / math.sqrt(len(d)) if len(d) > 1 else 0.0
    return float(d.mean()), float(d.mean()) - half, float(d.mean()) + half


def falls_at(line: dict[Budget, dict[str, Any]]) -> list[Budget]:
    """The budgets of one curve (its rows by budget) whose win share is below the one before by
    more than its own 95% interval reaches: where the curve falls. None: each point is at or above
    the one before within its interval (the table then says whether its last point is above its
    first, ``rises``, or not, ``level``)."""
    budgets = sorted(line)
    return [
        n
        for before, n in itertools.pairwise(budgets)
        if line[n]["win_share_95ci"][1] < line[before]["win_share"]
    ]


Line = tuple[str, int, str, str, int]
"""A curve: its game, seats, opponent, searcher with its budget left open (:func:`generic`) and seed."""


def curves(rows: list[dict[str, Any]]) -> dict[Line, dict[Budget, dict[str, Any]]]:
    """``rows`` as curves: each curve's rows by budget, at each budget the row of most games (a row
    of more games holds a shorter one's games), whatever their order in the file."""
    lines: dict[Line, dict[Budget, dict[str, Any]]] = {}
    for r in rows:
        line = lines.setdefault(
            (r["game"], r["seats"], r["opponent"], generic(r["searcher"], budget_of(r)), r["seed"]), {}
        )
        kept = line.get(budget_of(r))
        if kept is None or r["games"] > kept["games"]:
            line[budget_of(r)] = r
    return lines


def markdown(rows: list[dict[str, Any]], against: str | None = None) -> str:
    """A table of ``rows``: one line per game, seats, opponent, searcher settings and seed, a column
    per budget; a cell's gain is over the network alone, or over the row of the searcher ``against``."""
    budgets = sorted({budget_of(r) for r in rows})
    lines = curves(rows)
    head = "| game | seats | against | searcher | seed | " + " | ".join(map(label, budgets)) + " | curve |"
    out = [head, "|" + " --- |" * (6 + len(budgets))]
    for (game_name, seats, opponent, settings, seed), found in sorted(lines.items()):
        cells = []
        for n in budgets:
            if n not in found:
                cells.append("-")
            else:
                r = found[n]
                low, high = r["win_share_95ci"]
                cell = f"{r['win_share']:.3f} [{low:.3f}, {high:.3f}] {r['ms_per_move']:.1f} ms, {r['games']}"
                alone = n == ("N", 1) and "advice=" not in r["searcher"]  # the baseline itself
                gain = paired_gain(r, rows, against) if against or not alone else None
                if gain is not None:
                    over = f" over `{against}`" if against else ""
                    cell += f"; gain{over} {gain[0]:+.3f} [{gain[1]:+.3f}, {gain[2]:+.3f}]"
                cells.append(cell)
        falls = falls_at(found)
        ends = [found[n]["win_share"] for n in (min(found), max(found))]
        curve = "rises" if ends[1] > ends[0] else "level"
        if falls:
            curve = "falls at " + ", ".join(map(label, falls))
        line = f"| {game_name} | {seats} | {opponent} | `{settings}` | {seed} | " + " | ".join(cells)
        out.append(line + f" | {curve if len(found) > 1 else '-'} |")
    return "\n".join(out)


def legend(line: Line) -> str:
    """A curve's label in its panel: its network where it is not the shipped one, its settings
    besides the budget, and its seed."""
    searcher, seed = line[3:]
    agent, _, rest = searcher.partition(":")
    network = agent.removesuffix(".npz") if agent != "agent" else ""
    settings = ",".join(s for s in rest.split(",") if s != "search=N")
    return " ".join(part for part in (network, settings or "defaults") if part) + f" (seed {seed})"


Panel = tuple[str, int, str]
"""A panel of the plot: its game, seats and opponent."""


def drawn(rows: list[dict[str, Any]]) -> dict[Panel, list[tuple[Line, dict[Budget, dict[str, Any]]]]]:
    """The curves :func:`plot` draws, by panel (game, seats, opponent). A curve without a row of one
    simulation starts at its network alone in the same games (one simulation is the network's own
    move, whatever the settings, unless a bot advises it), and a curve needs rows of two budgets of
    its own: a setting tried at one budget is in the table only, as are a thinking agent's rows
    (budgeted in seconds)."""
    rows = [r for r in rows if budget_of(r)[0] == "N"]
    panels: dict[Panel, list[tuple[Line, dict[Budget, dict[str, Any]]]]] = {}
    for line, found in sorted(curves(rows).items()):
        if len(found) < 2:
            continue
        alone = network_alone(next(iter(found.values())), rows)
        if ("N", 1) not in found and "advice=" not in line[3] and alone is not None:
            found = {("N", 1): alone} | found
        panels.setdefault(line[:3], []).append((line, found))
    return panels


def plot(rows: list[dict[str, Any]], path: Path, target: float | None = None) -> None:
    """The curves of ``rows`` (:func:`drawn`): win share against simulations, a panel per game, seat
    count and opponent, each curve printed with the games of its points. ``target``: a win share
    drawn across every panel."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    panels = drawn(rows)
    if not panels:
        raise ValueError("no curve to draw: a curve needs rows of two simulation budgets")
    fig, axes = plt.subplots(1, len(panels), figsize=(4.6 * len(panels), 4.6), squeeze=False)
    for ax, ((game_name, seats, opponent), lines) in zip(axes[0], sorted(panels.items()), strict=True):
        budgets: set[float] = set()
        for line, found in lines:
            points = [found[n] for n in sorted(found)]
            x = [budget_of(r)[1] for r in points]
            y = [r["win_share"] for r in points]
            err = [[r["win_share"] - r["win_share_95ci"][0] for r in points],
                   [r["win_share_95ci"][1] - r["win_share"] for r in points]]  # fmt: skip
            ax.errorbar(x, y, yerr=err, marker="o", capsize=3, label=legend(line))
            budgets.update(x)
            games = ", ".join(f"{b:g}: {r['games']}" for b, r in zip(x, points, strict=True))
            panel = f"{game_name}, {seats} seats, against {opponent}"
            print(f"{panel}: {legend(line)}, games at each budget {games}")
        ax.axhline(1 / seats, color="grey", lw=0.8, ls=":")
        if target is not None:
            ax.axhline(target, color="red", lw=0.8, ls="--", label=f"target {target:g}")
        ax.set_xscale("log", base=2)
        ax.set_xticks(sorted(budgets), [f"{n:g}" for n in sorted(budgets)])
        ax.set_title(f"{game_name}, {seats} seats, against {opponent}")
        ax.set_xlabel("simulations a move")
        ax.set_ylabel("searcher's win share")
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.16))
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", nargs="+", choices=list(GAMES), default=list(GAMES))
    parser.add_argument("--seats", nargs="+", type=int, default=[2], help="seat counts (Diamant: at least 3)")
    parser.add_argument(
        "--simulations", nargs="*", type=int, default=[1, 8, 32, 128, 512], help="budgets (none: play no row)"
    )
    parser.add_argument(
        "--think",
        nargs="*",
        type=float,
        default=[],
        help="time budgets, seconds a move: the game's thinking agent (agent:think=SECONDS)",
    )
    parser.add_argument("--opponents", nargs="+", choices=["bot", "agent"], default=["bot", "agent"])
    parser.add_argument(
        "--settings", default="", help="the searcher's settings after search=N (or the thinking agent's)"
    )
    parser.add_argument(
        "--agent", default="agent", help="the searching network: the shipped agent, or a network file (.npz)"
    )
    parser.add_argument("--games-per-point", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--out", type=Path, default=None, help="JSON file: rows kept and added to")
    parser.add_argument(
        "--also",
        nargs="+",
        type=Path,
        default=[],
        help="results files whose rows join --out's in the table and plot",
    )
    parser.add_argument(
        "--min-games",
        type=int,
        default=1,
        help="the table and the plot show rows of at least this many games",
    )
    parser.add_argument("--plot", type=Path, default=None, help="draw the curves of --out into this PNG")
    parser.add_argument("--target", type=float, default=None, help="with --plot: a win share drawn across")
    parser.add_argument("--markdown", action="store_true", help="print the rows of --out as a table")
    parser.add_argument(
        "--against",
        default=None,
        help="with --markdown: each row's paired gain over this searcher's row (default: the network alone)",
    )
    args = parser.parse_args(argv)
    if args.games_per_point < 1 or args.jobs < 1:
        parser.error("--games-per-point and --jobs are 1 or more")
    if not all(0 < t < math.inf for t in args.think):
        parser.error(f"--think takes seconds above 0, not {' '.join(map(str, args.think))}")
    also = []
    for path in args.also:
        try:
            found = json.loads(path.read_text())["rows"]
            fields = {"game", "seats", "opponent", "searcher", "games", "seed", "win_share"}
            if not all(fields <= r.keys() for r in found):
                raise ValueError(path)
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            parser.error(f"--also {path}: not a results file of this script (rows of games of a searcher)")
        also += found
    rows: list[dict[str, Any]] = []
    if args.out is not None and args.out.exists():
        rows = json.loads(args.out.read_text())["rows"]
    done = {key(r) for r in rows}
    for game_name in args.games:
        info = make(game_name).info
        for seats in args.seats:
            seats = max(seats, info.min_seats)
            for opponent in args.opponents:
                other = STRONGEST[game_name] if opponent == "bot" else "agent"
                searchers = [searcher_name(n, args.settings, args.agent) for n in args.simulations]
                searchers += [thinker_name(game_name, t, args.settings, args.agent) for t in args.think]
                for searcher in searchers:
                    row_key = (game_name, seats, other, searcher, args.games_per_point, args.seed)
                    if row_key in done:
                        continue
                    chunks = None if args.out is None else args.out.with_suffix(".chunks.json")
                    row = run_row(
                        game_name, seats, searcher, other, args.games_per_point, args.seed, args.jobs, chunks
                    )
                    print(json.dumps(row), flush=True)
                    rows.append(row)
                    done.add(row_key)
                    if args.out is not None:
                        args.out.parent.mkdir(parents=True, exist_ok=True)
                        body = {"command": " ".join(sys.argv), "rows": rows}
                        args.out.write_text(json.dumps(body, indent=1) + "\n")
    shown = [
        r
        for r in rows + also
        if r["games"] >= args.min_games
        and r["game"] in args.games
        and ("agent" if r["opponent"] == "agent" else "bot") in args.opponents
    ]
    if args.plot is not None:
        try:
            plot(shown, args.plot, args.target)
        except ValueError as error:
            parser.error(str(error))
    if args.markdown:
        print(markdown(shown, args.against))


if __name__ == "__main__":
    main()
