"""`tablezoo train --backend rllib --address ...` on a real two-node Ray cluster started on this machine.

    python benchmarks/rllib_two_nodes.py [--timesteps 4096] [--out benchmarks/results/rllib_two_nodes.json]

Starts a head node and a worker node on the loopback address (``ray.cluster_utils.Cluster``:
two raylets, each with its own object store, one CPU each), runs the command line
``tablezoo train diamant_v0 --players 4 --backend rllib --address HEAD --num-env-runners 2``
as a separate process (a driver that joins the cluster, as on a real one), and reports
from the run's ``cluster.json`` which node each env runner ran on and how many decisions
it stepped. Both nodes must have stepped envs; the cluster is shut down at the end.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--timesteps", type=int, default=4096)
    parser.add_argument("--out", default="benchmarks/results/rllib_two_nodes.json")
    args = parser.parse_args()

    from ray.cluster_utils import Cluster

    started = time.perf_counter()
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    try:
        cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        up = time.perf_counter() - started
        with tempfile.TemporaryDirectory() as out:
            command = [
                *(str(Path(sys.executable).parent / "tablezoo"), "train", "diamant_v0", "--players", "4"),
                *("--backend", "rllib", "--address", cluster.address, "--num-env-runners", "2"),
                *("--timesteps", str(args.timesteps), "--opponents", "heuristic", "random"),
                *(
                    "--self-play",
                    "0.3",
                    "--snapshot-every",
                    "2048",
                    "--eval-every",
                    "0",
                    "--eval-games",
                    "50",
                ),
                *("--hp", "n_envs=2", "--hp", "n_steps=512", "--out", out, "--no-progress-bar"),
            ]
            subprocess.run(command, check=True)
            (run,) = Path(out).iterdir()
            summary = json.loads((run / "cluster.json").read_text())
            curve = (run / "curve.csv").read_text()
    finally:
        cluster.shutdown()
    stepped = {row["node_id"] for row in summary["env_runners"] if row["steps"] > 0}
    report = {
        "benchmark": "rllib_two_nodes",
        "command": " ".join(["tablezoo", *command[1:]]).replace(out, "OUT"),
        "seconds_cluster_start": round(up, 1),
        "nodes_in_cluster": 2,
        "nodes_that_stepped_envs": len(stepped),
        "env_runners": [
            {k: row[k] for k in ("worker_index", "node_id", "steps", "illegal_moves")}
            for row in summary["env_runners"]
        ],
        "steps": summary["steps"],
        "steps_per_second": summary["steps_per_second"],
        "illegal_moves": summary["illegal_moves"],
        "final_evaluation_curve_csv": curve,
    }
    text = json.dumps(report, indent=2)
    Path(args.out).write_text(text + "\n")
    print(text)
    if len(stepped) != 2:
        sys.exit("only one node stepped envs")


if __name__ == "__main__":
    main()
