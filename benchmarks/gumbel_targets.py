"""How far the batched loop's training target leans from the network's own policy.

Search self-play (:class:`~tablezoo.training.expert.search_selfplay.SearchSelfPlay`) teaches the
network the improved policy ``softmax(logit + sigma(completed q))`` of each searched decision,
``sigma(q) = (c_visit + most visits) * c_scale * q``. Whatever the target changes, the network
learns, the search's noise included. The table's searching agent (``agent:search=N``) changes the
network's move only where a move is better by ``gap / confidence`` standard errors; the loop's
target has no such gate. With ``--confidences``, the same decisions' ``evidence`` targets are
measured too (:func:`~tablezoo.training.expert.search_selfplay.evidence_policy`, what ``tablezoo
expert --gumbel-target evidence`` teaches: the evidence weighed by its standard error, as the
table's search weighs it). This measures, for the shipped agent at each ``--scales`` value of
``c_scale``, over the searched decisions with more than one legal move of games the loop plays:

- ``kl``: the mean KL divergence of the target from the network's policy (nats);
- ``target_entropy`` and ``prior_entropy``: their mean entropies;
- ``changed``: the share of decisions whose target's likeliest move is not the network's.

::

    python benchmarks/gumbel_targets.py --games sechs_nimmt --seats 2 --scales 0.025 0.1 1 \\
        --confidences 0.25 1 --simulations 32 --considered 8 --leaf end --others likeliest --decisions 1000 \\
        --out benchmarks/results/gumbel_targets.json
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from tablezoo.bots.registry import shipped_agent
from tablezoo.bots.search import LEAVES, OTHERS
from tablezoo.games import GAMES, make
from tablezoo.training.expert.search_selfplay import SearchSelfPlay, evidence_policy


def _softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max())
    return e / e.sum()


def _entropy(p: np.ndarray) -> float:
    p = p[p > 0]
    return float(-np.sum(p * np.log(p)))


def _stats(prior_logits: np.ndarray, policy: np.ndarray, mask: np.ndarray) -> dict[str, float]:
    """The means over the rows with a choice: KL of the target from the policy, both entropies, and
    the share whose target's likeliest move is another than the policy's."""
    kl, target_entropy, prior_entropy, changed = [], [], [], 0
    for logits, target, legal in zip(prior_logits, policy, mask, strict=True):
        legal = np.flatnonzero(legal)
        prior = _softmax(logits[legal].astype(np.float64))
        target = target[legal].astype(np.float64)
        target /= target.sum()
        inside = target > 0
        kl.append(float(np.sum(target[inside] * np.log(target[inside] / prior[inside]))))
        target_entropy.append(_entropy(target))
        prior_entropy.append(_entropy(prior))
        changed += int(np.argmax(target) != np.argmax(prior))
    return {
        "kl": round(float(np.mean(kl)), 4),
        "target_entropy": round(float(np.mean(target_entropy)), 4),
        "prior_entropy": round(float(np.mean(prior_entropy)), 4),
        "changed": round(changed / len(kl), 4),
    }


def targets(
    game_name: str,
    seats: int,
    scale: float,
    *,
    confidences: list[float],
    simulations: int,
    considered: int,
    leaf: str,
    others: str,
    decisions: int,
    seed: int,
) -> list[dict[str, Any]]:
    """The rows of one loop: its ``sigma`` target at ``c_scale`` ``scale``, then the ``evidence``
    target at each of ``confidences``, at the same ``decisions`` searched decisions with a choice."""
    net = shipped_agent(make(game_name, seats))
    loop = SearchSelfPlay(
        game_name,
        seats,
        num_games=16,
        seed=seed,
        simulations=simulations,
        considered=considered,
        c_scale=scale,
        leaf=leaf,
        others=others,
    )
    parts: list[dict[str, np.ndarray]] = []
    found = 0
    while found < decisions:
        taken = loop.play(net, 8)
        choice = taken["mask"].sum(axis=1) >= 2
        parts.append({key: taken[key][choice] for key in ("obs", "mask", "policy", "visits", "q")})
        found += int(choice.sum())
    samples = {key: np.concatenate([part[key] for part in parts])[:decisions] for key in parts[0]}
    prior_logits = net.forward(samples["obs"].astype(np.float32))[0]
    common = {
        "game": game_name,
        "seats": seats,
        "scale": scale,
        "simulations": simulations,
        "considered": considered,
        "leaf": leaf,
        "others": others,
        "seed": seed,
        "decisions": decisions,
    }
    rows = [{**common, "target": "sigma", **_stats(prior_logits, samples["policy"], samples["mask"])}]
    for confidence in confidences:
        policy = evidence_policy(net, samples, confidence)
        rows.append(
            {
                **common,
                "target": "evidence",
                "confidence": confidence,
                **_stats(prior_logits, policy, samples["mask"]),
            }
        )
    return rows


def markdown(rows: list[dict[str, Any]]) -> str:
    lines = [
        "| game | seats | simulations (considered) | leaf, others | c_scale | target | decisions | KL from "
        "the policy | entropy: target, policy | likeliest move changed |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        target = (
            "sigma" if r.get("target", "sigma") == "sigma" else f"evidence, confidence {r['confidence']:g}"
        )
        lines.append(
            f"| {make(r['game']).info.title} | {r['seats']} | {r['simulations']} ({r['considered']}) | "
            f"{r['leaf']}, {r['others']} | {r['scale']:g} | {target} | {r['decisions']:,} | {r['kl']:.3f} | "
            f"{r['target_entropy']:.2f}, {r['prior_entropy']:.2f} | {r['changed']:.1%} |"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", nargs="+", choices=list(GAMES), default=["sechs_nimmt"])
    parser.add_argument("--seats", nargs="+", type=int, default=[2], help="seat counts (Diamant: at least 3)")
    parser.add_argument("--scales", nargs="+", type=float, default=[0.1, 1.0], help="c_scale values")
    parser.add_argument(
        "--confidences",
        nargs="*",
        type=float,
        default=[],
        help="also the evidence target at these confidences, on the same decisions",
    )
    parser.add_argument("--simulations", type=int, default=32)
    parser.add_argument("--considered", type=int, default=8)
    parser.add_argument("--leaf", choices=LEAVES, default="end")
    parser.add_argument("--others", choices=OTHERS, default="likeliest")
    parser.add_argument("--decisions", type=int, default=1000, help="searched decisions with a choice a row")
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--out", type=Path, default=None, help="JSON file of the rows")
    parser.add_argument("--markdown", action="store_true", help="print the rows of --out as a table")
    args = parser.parse_args(argv)
    if args.markdown:
        if args.out is None:
            parser.error("--markdown reads the rows of --out")
        print(markdown(json.loads(args.out.read_text())["rows"]))
        return
    if args.decisions < 1:
        parser.error("--decisions is 1 or more")
    if any(s <= 0 for s in args.scales + args.confidences):
        parser.error("--scales and --confidences are above 0")
    rows = []
    for game_name in args.games:
        least = make(game_name).info.min_seats
        for seats in sorted({max(s, least) for s in args.seats}):
            for scale in args.scales:
                rows.extend(
                    targets(
                        game_name,
                        seats,
                        scale,
                        confidences=args.confidences,
                        simulations=args.simulations,
                        considered=args.considered,
                        leaf=args.leaf,
                        others=args.others,
                        decisions=args.decisions,
                        seed=args.seed,
                    )
                )
                print("\n".join(json.dumps(r) for r in rows[-1 - len(args.confidences) :]), flush=True)
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"command": " ".join(sys.argv), "rows": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
