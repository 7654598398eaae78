"""Learning curves of Gumbel search self-play runs: strength and calibration by round.

    python benchmarks/gumbel_curves.py                      # every run under benchmarks/results/gumbel
    python benchmarks/gumbel_curves.py --results DIR --out DIR

A run is the log of ``tablezoo expert GAME --selfplay gumbel ...`` copied into ``--results`` as
``<game>-<tag>.jsonl`` with its ``config.json`` as ``<game>-<tag>.config.json`` (a log named
``<game>-shipped.jsonl`` holds the shipped agent's own check on the same seeds, drawn as a
flat line). Each log line is a round; its ``against_<bot>`` entry is the network alone against
that bot at 2 and 4 seats (or the nearest seat counts the game allows), with a 95% interval,
over the run's ``--eval-games`` games.

Per game this writes ``<out>/curves-<game>.png``: one panel per checked seat count (the win
share by round with its interval, the fair share dotted and the game's strength target
dashed where the target is against the bot checked), and one of the win-share head's
calibration on each round's new games before learning from them (Brier score and expected
calibration error). ``<out>/curves.md`` sums every run up as a markdown table: rounds,
decisions searched, hours of play and fitting (the JSON, ``--json``, adds the hours of
checking, where the log records them), the first and last check, the best one, and the round whose
network is the run's to play for the record (:func:`chosen_round`).

The checks are few games each (100 to 200: intervals of about ±0.07 to ±0.1), on seeds of
their own; a network is judged by 1,000-game rows on other seeds (``tablezoo evaluate``).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np

from tablezoo.release.benchmark_tables import gumbel_curves_rows
from tablezoo.release.ship import TARGETS

GAME_NAMES = {
    "heckmeck": "Heckmeck",
    "sechs_nimmt": "6 nimmt!",
    "diamant": "Diamant",
    "court": "To Court the King",
}


def load_runs(results: Path) -> dict[str, list[dict[str, Any]]]:
    """Per game, its runs: ``{"tag", "config", "log", "bot"}``, the shipped check first if any."""
    runs: dict[str, list[dict[str, Any]]] = {}
    for path in sorted(results.glob("*.jsonl")):
        game, _, tag = path.stem.partition("-")
        if game not in TARGETS or not tag:
            continue
        log = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        checks = [key for entry in log for key in entry if key.startswith("against_")]
        if not checks:
            continue
        config_path = path.with_name(f"{path.stem}.config.json")
        config = json.loads(config_path.read_text()) if config_path.exists() else {}
        run = {"tag": tag, "config": config, "log": log, "bot": checks[0].removeprefix("against_")}
        runs.setdefault(game, []).insert(0 if tag == "shipped" else len(runs.get(game, [])), run)
    return runs


def summary(game: str, run: dict[str, Any]) -> dict[str, Any]:
    """One run's row of the table."""
    log = [entry for entry in run["log"] if entry.get("iteration", -1) >= 0]
    key = f"against_{run['bot']}"
    seats = sorted({s for entry in log for s in entry.get(key, {})}, key=lambda s: int(s[:-1]))
    seconds = sum(e.get("play_seconds", 0) + e.get("fit_seconds", 0) for e in log)
    checking = sum(e.get("eval_seconds", 0) for e in log)
    row: dict[str, Any] = {
        "game": game,
        "run": run["tag"],
        "bot": run["bot"],
        "rounds": len(log),
        "games": sum(e.get("games", 0) for e in log),
        "decisions": sum(e.get("decisions", 0) for e in log),
        "hours": round(seconds / 3600, 2),
        "check_hours": round(checking / 3600, 2) if checking else None,
        "eval_games": run["config"].get("eval_games"),
        "scale": run["config"].get("gumbel_scale"),
        "opponent": run["config"].get("gumbel_opponent") or None,  # a bot seated in a share of the games
        "opponent_share": run["config"].get("gumbel_opponent_share")
        if run["config"].get("gumbel_opponent")
        else None,
    }
    for s in seats:
        shares = [e[key][s][0] for e in log if s in e.get(key, {})]
        row[s] = {
            "first": shares[0],
            "last": shares[-1],
            "best": max(shares),
            "mean_last_5": sum(shares[-5:]) / len(shares[-5:]),
        }
    row["chosen_round"] = chosen_round(log, key)
    return row


def chosen_round(log: list[dict[str, Any]], key: str, window: int = 5) -> int:
    """The round whose network to play for the record: the best smoothed check.

    Each round's checks, as multiples of the fair share and averaged over the seat counts,
    are averaged again over the ``window`` rounds centred on it; the highest wins (the later on
    a tie). Only rounds with a whole window count (all of them, with what they have, in a run
    shorter than the window). One round's check is a hundred or two games, too few to choose
    by alone, and the rows that report the chosen network are played on other seeds."""
    scores = [sum(v[0] / v[3] for v in e[key].values()) / len(e[key]) for e in log]
    half = window // 2
    whole = range(half, len(scores) - half)
    candidates = whole if len(whole) else range(len(scores))
    smoothed = {i: float(np.mean(scores[max(0, i - half) : i + half + 1])) for i in candidates}
    best = max(smoothed.values())
    return int(log[max(i for i, v in smoothed.items() if v == best)]["iteration"])


def plot(game: str, runs: list[dict[str, Any]], out: Path) -> Path:
    """The game's curves: win share by round per seat count, then the head's calibration."""
    import matplotlib

    matplotlib.use("Agg")  # files only: no display is needed
    import matplotlib.pyplot as plt

    seats = sorted(
        {s for run in runs for e in run["log"] for s in e.get(f"against_{run['bot']}", {})},
        key=lambda s: int(s[:-1]),
    )
    fig, axes = plt.subplots(1, len(seats) + 1, figsize=(4.2 * (len(seats) + 1), 3.6), squeeze=False)
    targets = {(n, bot): t for n, bot, t in TARGETS[game]}
    for ax, s in zip(axes[0][:-1], seats, strict=True):
        n = int(s[:-1])
        for run in runs:
            key = f"against_{run['bot']}"
            points = [(e["iteration"], *e[key][s][:3]) for e in run["log"] if s in e.get(key, {})]
            if not points:
                continue
            if run["tag"] == "shipped":
                ax.axhline(points[0][1], color="grey", lw=1, label=f"shipped agent ({points[0][1]:.2f})")
                continue
            x, y, low, high = zip(*points, strict=True)
            ax.errorbar(
                x,
                y,
                yerr=[
                    [max(0.0, v - lo) for v, lo in zip(y, low, strict=True)],
                    [max(0.0, hi - v) for v, hi in zip(y, high, strict=True)],
                ],
                marker="o",
                ms=3,
                capsize=2,
                lw=1,
                label=run["tag"],
            )
        bot = runs[-1]["bot"]
        ax.axhline(1 / n, color="black", ls=":", lw=1, label="fair share")
        if (n, bot) in targets:
            ax.axhline(
                targets[n, bot], color="tab:red", ls="--", lw=1, label=f"target ({targets[n, bot]:.2f})"
            )
        ax.set_title(f"{GAME_NAMES[game]}, {n} seats, against {bot}")
        ax.set_xlabel("round")
        ax.set_ylabel("win share of the network alone")
        ax.legend(fontsize=7)
    ax = axes[0][-1]
    for run in runs:
        log = [e for e in run["log"] if "value_ece" in e]
        if log:
            x = [e["iteration"] for e in log]
            ax.plot(x, [e["value_ece"] for e in log], marker="o", ms=3, lw=1, label=f"{run['tag']}: ECE")
            ax.plot(
                x,
                [e["value_brier"] for e in log],
                marker="s",
                ms=3,
                lw=1,
                ls="--",
                label=f"{run['tag']}: Brier",
            )
    ax.set_title("win-share head on each round's new games")
    ax.set_xlabel("round")
    ax.legend(fontsize=7)
    fig.tight_layout()
    path = out / f"curves-{game}.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--results", type=Path, default=Path("benchmarks/results/gumbel"), help="where the run logs are"
    )
    parser.add_argument(
        "--out", type=Path, default=None, help="where the plots and table go (default: --results)"
    )
    parser.add_argument(
        "--json",
        type=Path,
        default=Path("benchmarks/results/gumbel_curves.json"),
        help="the rows as JSON (the docs' table is made of this file)",
    )
    args = parser.parse_args(argv)
    out = args.out or args.results
    out.mkdir(parents=True, exist_ok=True)
    runs = load_runs(args.results)
    if not runs:
        parser.error(f"no run logs (<game>-<tag>.jsonl with against_<bot> checks) in {args.results}")
    rows = []
    for game in [g for g in TARGETS if g in runs]:
        print(plot(game, runs[game], out))
        rows += [summary(game, run) for run in runs[game] if run["tag"] != "shipped"]
    (out / "curves.md").write_text(gumbel_curves_rows(rows))
    args.json.write_text(json.dumps({"rows": rows}, indent=1) + "\n")
    print(out / "curves.md")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
