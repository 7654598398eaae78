"""How fast ``tablezoo benchmark`` scores a torch, an ONNX and a numpy policy, at ``--jobs 1`` and ``2``.

    python benchmarks/scoring_speed.py [--cells random:2000 search:200] [--out FILE.json]

Each policy plays two cells of the protocol in Diamant at 3 seats (its seeds and seat rotation,
:func:`tablezoo.evaluation.protocol.play_cells`), given as a file as on the command line, so that
``--jobs 2`` shares the games between two worker processes: against ``random`` (2,000 games; a game
takes well under a millisecond, so the policy's own forward passes are most of the time) and
against ``search`` (200 games; the opponent's search is most of the time, the work ``--jobs``
shares best). ``--out`` defaults to ``benchmarks/results/scoring_speed.json``. The policies:

- **torch**: the published 10M batched PPO actor (``policies/batched_ppo-diamant-3p-10M-seed0.pt``,
  a two-layer MLP on the padded observation);
- **onnx**: the same actor exported by ``tablezoo export`` (:func:`tablezoo.release.export.export_torch`),
  run by ONNX Runtime;
- **numpy**: the published 1M MaskablePPO policy (``policies/maskable_ppo-diamant-3p-1M-seed0.npz``),
  run by the package's numpy runner (another network, of about the same size).

Every row is measured in the same run, one after the other, on the same machine. Workers compute
on one intra-op thread each (:mod:`tablezoo.evaluation.play`); the ``torch, default threads``
row plays the torch policy in this process with torch's own thread count, as 0.6.0 did, for the
difference the one-thread rule makes. ``games_per_second`` is games over wall time, the workers'
start-up (a fresh interpreter importing torch) included. ``--jobs 2`` gains only where two
cores are free: the JSON records the machine's load average before and after the run, as
another process's load slows every row. Writes the JSON to ``--out``; the docs' benchmarking
page shows its table (``tablezoo.release.benchmark_tables.scoring_speed_table``).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from tablezoo.release.benchmark_tables import scoring_speed_table

HERE = Path(__file__).resolve().parent
PUBLISHED = HERE / "results" / "protocol" / "policies"
TORCH = PUBLISHED / "batched_ppo-diamant-3p-10M-seed0.pt"
NUMPY = PUBLISHED / "maskable_ppo-diamant-3p-1M-seed0.npz"


def time_policy(
    policy: str, opponent: str, games: int, jobs: int, default_threads: bool = False
) -> dict[str, Any]:
    """Wall time of ``games`` games of ``policy`` against ``opponent`` (Diamant, 3 seats)."""
    from tablezoo.evaluation import protocol
    from tablezoo.games import make

    game = make("diamant", 3)
    patch = (
        contextlib.nullcontext()
        if not default_threads
        else _patched(protocol, "one_thread", contextlib.nullcontext)  # as 0.6.0 played
    )
    with patch:
        start = time.perf_counter()
        (cell,) = protocol.play_cells(policy, game, [opponent], games=games, jobs=jobs)
        seconds = time.perf_counter() - start
    return {
        "opponent": opponent,
        "games": cell.games,
        "jobs": jobs,
        "seconds": round(seconds, 2),
        "games_per_second": round(cell.games / seconds, 1),
        "win_share": round(cell.win_share, 4),
    }


@contextlib.contextmanager
def _patched(module: Any, name: str, value: Any) -> Any:
    before = getattr(module, name)
    setattr(module, name, value)
    try:
        yield
    finally:
        setattr(module, name, before)


def run(cells: list[tuple[str, int]]) -> dict[str, Any]:
    """Every row, measured in this run."""
    import torch

    from tablezoo.games import make
    from tablezoo.release.export import export_torch

    folder = Path(tempfile.mkdtemp(prefix="scoring-speed-"))
    onnx = folder / "actor.onnx"
    export_torch(TORCH, make("diamant", 3), onnx, positions=50)
    default = torch.get_num_threads()
    load_before = os.getloadavg()
    rows = []
    for opponent, games in cells:
        for kind, policy in (("torch", TORCH), ("onnx", onnx), ("numpy", NUMPY)):
            for jobs in (1, 2):
                row = {"policy": kind, "file": policy.name, **time_policy(str(policy), opponent, games, jobs)}
                rows.append(row)
                print(json.dumps(row), flush=True)
        before = {
            "policy": "torch, default threads",
            "file": TORCH.name,
            "threads": default,
            **time_policy(str(TORCH), opponent, games, 1, default_threads=True),
        }
        rows.append(before)
        print(json.dumps(before), flush=True)
    from importlib.metadata import version

    return {
        "benchmark": "scoring_speed",
        "game": "diamant",
        "seats": 3,
        "cpus": os.cpu_count(),
        "load_average_before": [round(x, 2) for x in load_before],
        "load_average_after": [round(x, 2) for x in os.getloadavg()],
        "torch_default_threads": default,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "libraries": {d: version(d) for d in ("numpy", "torch", "onnxruntime")},
        "package": version("tablezoo"),
        "command": ["python", "benchmarks/scoring_speed.py", *sys.argv[1:]],
        "rows": rows,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--cells",
        nargs="+",
        default=["random:2000", "search:200"],
        help="OPPONENT:GAMES, the cells each policy plays",
    )
    parser.add_argument("--out", type=Path, default=HERE / "results" / "scoring_speed.json")
    args = parser.parse_args(argv)
    cells = [(text.partition(":")[0], int(text.partition(":")[2])) for text in args.cells]
    result = run(cells)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=1) + "\n")
    print(scoring_speed_table(result), end="")


if __name__ == "__main__":
    main()
