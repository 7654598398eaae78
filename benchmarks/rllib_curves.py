"""Learning curves of RLlib runs as one JSON file: each run's command, curve and throughput.

    python benchmarks/rllib_curves.py runs/curves/<run> [runs/curves/<run> ...]
                                      [--out benchmarks/results/rllib_curves.json]

Reads from each run folder of ``tablezoo train --backend rllib`` its ``config.yaml``
(the command), ``curve.csv`` (win rates with 95% intervals against each evaluation
bot, fair share ``1/seats``) and ``cluster.json`` (steps per second, illegal moves).
"""

from __future__ import annotations

import argparse
import csv
import json
from pathlib import Path
from typing import Any

import yaml


def summarise(run: Path) -> dict[str, Any]:
    config = yaml.safe_load((run / "config.yaml").read_text())
    summary = json.loads((run / "cluster.json").read_text())
    curve = [
        {
            "step": int(row["step"]),
            "against": row["against"],
            "win_rate": round(float(row["win_rate"]), 4),
            "win_rate_95ci": [round(float(row["low"]), 4), round(float(row["high"]), 4)],
        }
        for row in csv.DictReader((run / "curve.csv").open())
    ]
    return {
        "run": run.name,
        "env": config["env"],
        "num_players": config["num_players"],
        "command": " ".join(config["command"]),
        "eval_games": config["eval_games"],
        "fair_share": round(1 / config["num_players"], 4),
        "steps": summary["steps"],
        "steps_per_second": summary["steps_per_second"],
        "illegal_moves": summary["illegal_moves"],
        "curve": curve,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path)
    parser.add_argument("--out", default="benchmarks/results/rllib_curves.json")
    args = parser.parse_args()
    text = json.dumps({"benchmark": "rllib_curves", "runs": [summarise(run) for run in args.runs]}, indent=2)
    Path(args.out).write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
