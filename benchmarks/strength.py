"""How strong every bot is: a rated league per game, written as JSON, a plot and a Markdown table.

    python benchmarks/strength.py [--games 200] [--per-pairing] [--seed 0] [--games-filter heckmeck,court]
                                  [--extra agent:search=32] [--quick] [--jobs 2] [--out DIR] [--cards]

For each game (``--games-filter``: some of them), the bots are every bot of
``tablezoo.bots.registry.game_bots(game)`` (``random``, the ``heuristic``, the
``solver`` or ``search`` where the game has one), ``agent`` where one is shipped
for the seat count, and the ``--extra`` names (``agent:search=32``; OpenSpiel's
``ismcts:simulations=100`` with the ``openspiel`` extra). Each is made by
``registry.make_bot`` (through ``tablezoo.evaluation.policies.named_bot``); a name
it refuses (a ConfigError: no agent for that seat count, a setting the bot does
not take, OpenSpiel not installed) is skipped with a printed note, so
the same command runs before and after new bots or agents are shipped.

* **Leagues** at 2 and 4 seats (a game that seats no fewer than 3, Diamant,
  plays its smallest table instead of 2): ``--games`` games each, or with
  ``--per-pairing`` as many as make every two bots meet ``--games`` times
  (:func:`pairing_games`: 10 pairings of five bots at 2 seats, 2,000 games for 200 a
  pairing; at 4 seats a game holds 6 of the 10, so 334). The tables
  are the league's line-ups of distinct bots (every combination when there
  are more bots than seats, so every bot meets every other equally often; all
  the bots and more copies of them, in turn, when there are fewer), taken in
  an order shuffled by the seed, each table's seats rotated one place further
  each time it comes round. Every game has its own seed (split from
  ``--seed``), so a run repeats to the move. A bot's win share is its share
  of the wins over the seats it held (fair share ``1/seats``).
* **Ratings**: OpenSkill's Plackett-Luce model, updated game by game from the
  finishing order (ties share a place): the winners first, then the other
  seats by score where the game's score orders them (in To Court the King
  only the winner is known, so the others tie). A bot at several seats of one
  game is rated from one of them, drawn at random: Plackett-Luce orders are
  consistent when a player is left out, so the others' order is still one
  draw of the same model. Games stopped at the decision limit are not rated.
  ``ordinal`` is OpenSkill's ``mu - 3 sigma``, a rating the bot is very
  likely above. Every rating starts at mu 25, sigma 25/3; tau is 0 (a bot's
  strength does not change during the league, so no drift is added).
* **Head to head**: ``agent`` (and each ``--extra`` name) at one seat, rotated,
  against the ``heuristic`` at every other seat, at every seat count the game
  allows: the win share with its 95% (Wilson) interval and the fair share
  ``1/seats``. A shared win counts ``1/k`` to each of ``k`` winners.

The league itself (its tables, finishing orders, ratings and head-to-heads) is
:mod:`tablezoo.evaluation.league`; games are played by
``tablezoo.evaluation.tournament``'s loop (``play_game``, ``one_against_all``) and
win shares come from its ``Standing``. Writes
``strength.json`` (per game and seat count every bot's mu, sigma, ordinal,
games and win share; the head-to-heads; the command, the versions and the
seconds taken), ``strength.png`` (one panel per game, mu with a bar of
``2 sigma`` each side) and ``strength.md`` (the tables, also printed) to
``--out`` (by default ``benchmarks/results/``). ``--quick`` plays a few games
per league: a smoke run. ``--jobs N`` plays the leagues and head-to-heads in
``N`` processes; each has its own seed, so the figures are the same.
``--cards`` writes each game's tables into its agent's model card as well, in the
card's own format (:func:`tablezoo.release.cards.update_card`).
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import platform
import shlex
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
from openskill.models import PlackettLuce

from tablezoo.bots import registry
from tablezoo.evaluation.league import OPPONENT, TAU, Task, plan
from tablezoo.games import GAMES, make
from tablezoo.release.cards import league_markdown, update_card

QUICK_GAMES = 8
"""Games per league and per head-to-head with ``--quick``."""

DEFAULT_OUT = Path(__file__).resolve().parent / "results"
"""Where ``strength.json``, ``.md`` and ``.png`` go by default."""


def plot(result: dict[str, Any], path: Path) -> None:
    """One panel per game: each bot's mu with a bar of 2 sigma either side, one colour per seat count."""
    import matplotlib

    matplotlib.use("Agg")  # files only: no display is needed
    import matplotlib.pyplot as plt

    games = [g for g in result["games"].values() if g["leagues"]]
    if not games:
        return
    fig, axes = plt.subplots(len(games), 1, figsize=(7.5, 1.2 + 2.0 * len(games)), squeeze=False)
    for ax, game in zip(axes[:, 0], games, strict=True):
        names = list(dict.fromkeys(b["name"] for lg in game["leagues"].values() for b in lg["bots"]))
        offsets = np.linspace(-0.15, 0.15, len(game["leagues"])) if len(game["leagues"]) > 1 else [0.0]
        for offset, (seats, lg) in zip(offsets, game["leagues"].items(), strict=True):
            bots = lg["bots"]
            y = [names.index(b["name"]) + offset for b in bots]
            ax.errorbar(
                [b["mu"] for b in bots],
                y,
                xerr=[2 * b["sigma"] for b in bots],
                fmt="o",
                capsize=3,
                label=f"{seats} seats ({lg['games']} games)",
            )
        ax.set_yticks(range(len(names)), names)
        ax.invert_yaxis()
        ax.set_title(game["title"], fontsize=10)
        ax.grid(axis="x", alpha=0.3)
        ax.legend(fontsize=7, loc="best")
    axes[-1, 0].set_xlabel("OpenSkill Plackett-Luce rating μ (bars: ±2σ)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def describe(task: Task) -> str:
    """One line saying what ``task`` plays."""
    title = make(task.game_name).info.title
    if task.kind == "league":
        return f"{title}, {task.seats} seats: league of {', '.join(task.names)} ({task.games} games)"
    return f"{title}, {task.seats} seats: {task.names[0]} against the {OPPONENT} ({task.games} games)"


def run_task(task: Task) -> dict[str, Any]:
    """``task.run()`` with a line before it (a process pool's worker prints it too)."""
    print(describe(task), flush=True)
    return task.run()


def main(argv: list[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per league and per head-to-head")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--games-filter", default="", help=f"comma-separated games (default all: {', '.join(GAMES)})"
    )
    parser.add_argument(
        "--extra", nargs="*", default=[], help="more bot names, e.g. agent:search=32 (skipped if refused)"
    )
    parser.add_argument(
        "--per-pairing",
        action="store_true",
        help="--games counts a league's games a pairing of bots: every two bots meet that often",
    )
    parser.add_argument("--quick", action="store_true", help=f"{QUICK_GAMES} games each: a smoke run")
    parser.add_argument("--jobs", type=int, default=1, help="processes playing leagues side by side")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="folder for strength.json/.png/.md")
    parser.add_argument(
        "--cards",
        type=Path,
        nargs="?",
        const=registry.AGENTS_DIR,
        default=None,
        help="also write each game's tables into its agent's model card <CARDS>/<game>.md "
        "(without a folder: the shipped agents' cards)",
    )
    args = parser.parse_args(argv)
    chosen = [g.strip() for g in args.games_filter.split(",") if g.strip()] or list(GAMES)
    unknown = [g for g in chosen if g not in GAMES]
    if unknown:
        parser.error(f"--games-filter: no game {', '.join(unknown)}; games are: {', '.join(GAMES)}")
    games = QUICK_GAMES if args.quick else args.games
    if games < 1 or args.jobs < 1:
        parser.error(f"--games and --jobs are at least 1, not {games} and {args.jobs}")

    start = time.perf_counter()
    tasks: list[Task] = []
    notes: list[str] = []
    for name in chosen:
        game_tasks, game_notes = plan(name, args.extra, games, args.seed, args.per_pairing)
        tasks += game_tasks
        notes += game_notes
    for text in notes:
        print(f"note: {text}", flush=True)
    # every task has its own seed, so the results do not depend on how many processes play them
    if args.jobs == 1:
        outcomes = [run_task(t) for t in tasks]
    else:
        with ProcessPoolExecutor(args.jobs) as pool:
            outcomes = list(pool.map(run_task, tasks))
    by_game: dict[str, Any] = {
        name: {"title": make(name).info.title, "leagues": {}, "against_heuristic": []} for name in chosen
    }
    for task, outcome in zip(tasks, outcomes, strict=True):
        if task.kind == "league":
            by_game[task.game_name]["leagues"][str(task.seats)] = outcome
        else:
            by_game[task.game_name]["against_heuristic"].append(outcome)
    model = PlackettLuce(tau=TAU)
    argv_used = sys.argv[1:] if argv is None else argv
    result: dict[str, Any] = {
        "benchmark": "strength",
        "command": shlex.join(["python", "benchmarks/strength.py", *argv_used]),
        "seed": args.seed,
        "games_per_league": None if args.per_pairing else games,
        "games_per_pairing": games if args.per_pairing else None,
        "rating": {
            "library": "openskill",
            "model": "PlackettLuce",
            "mu": model.mu,
            "sigma": model.sigma,
            "beta": model.beta,
            "tau": model.tau,
            "ordinal": "mu - 3 sigma",
        },
        "versions": {
            "tablezoo": importlib.metadata.version("tablezoo"),
            "openskill": importlib.metadata.version("openskill"),
            "numpy": np.__version__,
            "python": platform.python_version(),
        },
        "jobs": args.jobs,
        "notes": notes,
        "games": by_game,
        "seconds": round(time.perf_counter() - start, 1),
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "strength.json").write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n")
    table = league_markdown(result, OPPONENT)
    (args.out / "strength.md").write_text(table)
    plot(result, args.out / "strength.png")
    print(table)
    print(f"({result['seconds']} s; written to {args.out}/strength.json, .md and .png)")
    if args.cards is not None:
        cards = [name for name in chosen if update_card(args.cards / f"{name}.md", name, result)]
        print(f"model cards updated in {args.cards}: {', '.join(cards) or 'none (no card found)'}")
    return result


if __name__ == "__main__":
    main()
