"""How far the shipped agents' value heads can be trusted, by kind of position.

The search values positions by the network's win-share head (``agent:search=N``, ``leaf``). This
script plays held-out games of the shipped network against itself (every seat samples its policy,
so the games differ from the greedy ones the agents were checked on), asks the head at every
decision of every seat, and sets each answer beside the win share that seat ended the game with.
Positions are grouped by kind:

* ``turn start``: the seat decides after another seat's decision (a new turn, or a new round);
* ``mid-turn``: the seat decided the decision before too (Heckmeck's keeps and rolls, Court's dice);
* ``after chance``: chance (dice, a card) came between the seat's last decision and this one;
* ``near the end``: the last tenth of the game's decisions (counted again in its own kind).

For each game and kind: the Brier score of the head (mean squared error of the win share), the
Brier score of the best constant (the kind's mean outcome), their ratio (below 1: the head knows
more than the base rate), and a reliability table (ten bins of the predicted win share: the mean
prediction, the mean outcome, the count)::

    python benchmarks/value_calibration.py --games heckmeck court diamant sechs_nimmt --seats 2 \\
        --episodes 300 --out benchmarks/results/value_calibration.json \\
        --plot docs/images/value-calibration.png
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from tablezoo.bots.net import load_model, masked_softmax, win_share
from tablezoo.bots.registry import shipped_agent
from tablezoo.games import GAMES, make
from tablezoo.games.core import CHANCE, TERMINAL

KINDS = ("turn start", "mid-turn", "after chance", "near the end")
BINS = 10


def play(
    game_name: str, seats: int, episodes: int, seed: int, path: Path | None = None
) -> dict[str, list[tuple[float, float]]]:
    """(prediction, outcome) pairs of every kind of position over ``episodes`` self-play games of the
    shipped agent (or the network in ``path``)."""
    game = make(game_name, seats)
    net = shipped_agent(game) if path is None else load_model(path)
    rng = np.random.default_rng(seed)
    pairs: dict[str, list[tuple[float, float]]] = {kind: [] for kind in KINDS}
    for _ in range(episodes):
        x = game.initial_state()
        asked: list[tuple[int, float, str]] = []  # (seat, prediction, kind) in order
        last_seat, chance_since = -1, False
        while True:
            mover = game.to_move(x)
            if mover == TERMINAL:
                break
            if mover == CHANCE:
                game.advance(x, rng)
                chance_since = True
                continue
            logits, value = net.evaluate(net.reads(game, game.observe(x, mover)))
            if last_seat != mover:
                kind = "turn start"
            elif chance_since:
                kind = "after chance"
            else:
                kind = "mid-turn"
            asked.append((mover, value, kind))
            legal = game.legal_actions(x)
            game.apply(x, legal[int(rng.choice(len(legal), p=masked_softmax(logits, legal)))])
            last_seat, chance_since = mover, False
        outcome = [win_share(game, x, s) for s in range(seats)]
        end = int(0.9 * len(asked))
        for i, (seat, value, kind) in enumerate(asked):
            pairs[kind].append((value, outcome[seat]))
            if i >= end:
                pairs["near the end"].append((value, outcome[seat]))
    return pairs


def summary(pairs: list[tuple[float, float]]) -> dict[str, Any]:
    """Brier scores and the reliability table of (prediction, outcome) pairs."""
    if not pairs:
        return {"positions": 0}
    p, y = np.array(pairs).T
    brier = float(np.mean((p - y) ** 2))
    base = float(np.mean((y.mean() - y) ** 2))
    bins = np.minimum((p * BINS).astype(int), BINS - 1)
    table = [
        {
            "bin": [b / BINS, (b + 1) / BINS],
            "predicted": round(float(p[bins == b].mean()), 4),
            "observed": round(float(y[bins == b].mean()), 4),
            "count": int((bins == b).sum()),
        }
        for b in range(BINS)
        if (bins == b).any()
    ]
    return {
        "positions": len(pairs),
        "brier": round(brier, 4),
        "brier_constant": round(base, 4),
        "ratio": round(brier / base, 3) if base > 0 else None,
        "mean_predicted": round(float(p.mean()), 4),
        "mean_observed": round(float(y.mean()), 4),
        "reliability": table,
    }


def plot(rows: list[dict[str, Any]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(rows), figsize=(3.6 * len(rows), 3.4), squeeze=False)
    for ax, row in zip(axes[0], rows, strict=True):
        ax.plot([0, 1], [0, 1], color="grey", lw=0.8, ls=":")
        for kind, found in row["kinds"].items():
            if found["positions"]:
                table = found["reliability"]
                ax.plot([t["predicted"] for t in table], [t["observed"] for t in table], marker="o", ms=3,
                        label=f"{kind} ({found['ratio']})")  # fmt: skip
        ax.set_title(f"{row['game']}, {row['seats']} seats")
        ax.set_xlabel("predicted win share")
        ax.set_ylabel("observed")
        ax.legend(fontsize=6)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", nargs="+", choices=list(GAMES), default=list(GAMES))
    parser.add_argument("--seats", type=int, default=2, help="seat count (Diamant: at least 3)")
    parser.add_argument("--episodes", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--net", type=Path, default=None, help="a network file to measure (one game)")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--plot", type=Path, default=None)
    args = parser.parse_args(argv)
    if args.episodes < 1:
        parser.error("--episodes is 1 or more")
    rows = []
    for game_name in args.games:
        seats = max(args.seats, make(game_name).info.min_seats)
        pairs = play(game_name, seats, args.episodes, args.seed, args.net)
        kinds = {kind: summary(found) for kind, found in pairs.items()}
        row = {"game": game_name, "seats": seats, "episodes": args.episodes, "seed": args.seed,
               "net": str(args.net or "shipped"), "kinds": kinds}  # fmt: skip
        rows.append(row)
        brief = {k: (v["positions"], v.get("brier"), v.get("ratio")) for k, v in row["kinds"].items()}
        print(game_name, seats, json.dumps(brief), flush=True)
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"command": " ".join(sys.argv), "rows": rows}, indent=1) + "\n")
    if args.plot is not None:
        plot(rows, args.plot)


if __name__ == "__main__":
    main()
