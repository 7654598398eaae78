"""Results of training seeds summed up with ``rliable`` (the ``bench`` or ``eval`` extra): the
interquartile mean (IQM) and the mean of the normalised cell scores with stratified-bootstrap 95%
intervals, the performance profile, and against another policy's runs (``versus``) the
probability of improvement.

Results that do not belong in one aggregate are refused (:func:`check_together`): another protocol
version, game, options, seat counts, panel, games a cell, input or training budget (different
budgets only when asked: ``mixed_budgets``), the same result, weights or training seed twice.

**Two policies** (``--versus``) may differ in what they read and how long they trained (each side
keeps its own, recorded); their runs are paired by training seed, whatever the order of the files
(:func:`pair_runs`), and by position only when asked (``pair="position"``, ``--pair-by-position``)
for runs without a common set of seeds. Each side is ordered by its seeds, so the figures do not
depend on the order the files were given in.

A performance profile's thresholds span the data (:func:`profile_taus`): from below the lowest
score to above the highest, and always 0 and 1. An aggregate records what made it (package,
commit, versions, command), its games a cell and whether every run is the full protocol.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from tablezoo.evaluation.provenance import provenance
from tablezoo.games.core import ConfigError

TAUS_STEP = 0.05
"""The step between a profile's thresholds (coarser where the data span more than 200 steps)."""


def budget_of(result: dict[str, Any]) -> int | None:
    """The decisions a result's policy was trained on, where it records them (``--training-budget``,
    or a baseline row's budget)."""
    policy = result.get("policy", {})
    budget = policy.get("training_budget")
    if budget is None:
        budget = (result.get("baseline") or {}).get("budget")
    return None if budget is None else int(budget)


def _seed(result: dict[str, Any]) -> int | None:
    seed = result.get("policy", {}).get("training_seed")
    return None if seed is None else int(seed)


def _cell_keys(result: dict[str, Any]) -> list[tuple[str, int]]:
    return [(c["opponent"], int(c["seats"])) for c in result["cells"]]


def _same(results: Sequence[dict[str, Any]], what: str, get: Any) -> None:
    """Refuse ``results`` unless ``get(result)`` is one value for all of them."""
    values = [json.dumps(get(r), sort_keys=True, default=str) for r in results]
    if len(set(values)) > 1:
        raise ConfigError(f"aggregate takes results of one {what}, not {sorted(set(values))}")


def check_together(results: Sequence[dict[str, Any]], label: str = "", mixed_budgets: bool = False) -> None:
    """Refuse results that do not belong in one aggregate: fewer than two, of other protocol
    versions, games, options, seat counts, opponents, games per cell, inputs or training budgets
    (unless ``mixed_budgets``), or the same result, policy (weights) or training seed twice."""
    where = f" ({label})" if label else ""
    if len(results) < 2:
        raise ConfigError(
            f"aggregate needs at least 2 runs (one result per training seed){where}, not {len(results)}: "
            "one run gives no interval"
        )
    _same(results, "protocol version", lambda r: r.get("protocol"))
    _same(results, "game", lambda r: r.get("game"))
    _same(results, "set of game options", lambda r: r.get("options", {}))
    _same(results, "set of seat counts", lambda r: sorted({int(c["seats"]) for c in r["cells"]}))
    _same(results, "panel of opponents", lambda r: sorted({c["opponent"] for c in r["cells"]}))
    _same(results, "number of games a cell", lambda r: sorted({int(c["games"]) for c in r["cells"]}))
    _same(results, "policy input (layout and scaling)", lambda r: r.get("policy", {}).get("input"))
    if not mixed_budgets:
        _same(
            results, "training budget (pass mixed_budgets=True, --mixed-budgets, to sum them up)", budget_of
        )
    texts = [json.dumps(r, sort_keys=True) for r in results]
    if len(set(texts)) < len(texts):
        raise ConfigError(f"aggregate was given the same result twice{where}")
    hashes = [r.get("policy", {}).get("sha256") for r in results]
    known = [h for h in hashes if h]
    if len(set(known)) < len(known):
        raise ConfigError(
            f"aggregate was given the same policy (the same weights' SHA-256) twice{where}: "
            "its runs must come from different training seeds"
        )
    seeds = [r.get("policy", {}).get("training_seed") for r in results]
    given = [s for s in seeds if s is not None]
    if len(set(given)) < len(given):
        raise ConfigError(f"aggregate was given training seed(s) twice{where}: {sorted(given)}")


def _scores(results: Sequence[dict[str, Any]], keys: Sequence[tuple[str, int]]) -> np.ndarray:
    return np.array(
        [
            [next(c["normalised"] for c in r["cells"] if (c["opponent"], int(c["seats"])) == k) for k in keys]
            for r in results
        ],
        dtype=np.float64,
    )


def profile_taus(*scores: np.ndarray) -> tuple[float, ...]:
    """A performance profile's thresholds over the range of ``scores``: from a step below the lowest
    (and at most 0) to a step above the highest (and at least 1), by :data:`TAUS_STEP` (coarser
    where that would take more than 200 steps)."""
    values = np.concatenate([np.ravel(s) for s in scores]) if scores else np.zeros(0)
    low = min(0.0, float(values.min()) if values.size else 0.0) - TAUS_STEP
    high = max(1.0, float(values.max()) if values.size else 1.0) + TAUS_STEP
    step = TAUS_STEP * max(1, math.ceil((high - low) / TAUS_STEP / 200))
    low, high = math.floor(low / step) * step, math.ceil(high / step) * step
    count = round((high - low) / step) + 1
    return tuple(round(low + k * step, 4) for k in range(count))


def pair_runs(
    results: Sequence[dict[str, Any]], versus: Sequence[dict[str, Any]], pair: str = "seed"
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The two policies' runs, paired: by training seed (each side ordered by its seeds, which must be
    recorded and the same on both sides), or with ``pair="position"`` in the order given (as many
    runs on each side)."""
    if pair == "position":
        if len(results) != len(versus):
            raise ConfigError(
                f"pairing by position needs as many runs on each side, not {len(results)} and {len(versus)}"
            )
        return list(results), list(versus)
    if pair != "seed":
        raise ConfigError(f"runs are paired by 'seed' or 'position', not {pair!r}")
    seeds_a, seeds_b = [_seed(r) for r in results], [_seed(r) for r in versus]
    if None in seeds_a or None in seeds_b:
        raise ConfigError(
            "pairing runs by training seed needs every result to record its seed (--training-seed); "
            "pair them in the order given with --pair-by-position"
        )
    if sorted(seeds_a) != sorted(seeds_b):  # type: ignore[type-var]
        raise ConfigError(
            f"the two policies' runs have different training seeds ({sorted(seeds_a)} and "  # type: ignore[type-var]
            f"{sorted(seeds_b)}): pair them in the order given with --pair-by-position"  # type: ignore[type-var]
        )
    by_seed = {s: r for s, r in zip(seeds_b, versus, strict=True)}
    ordered = sorted(zip(seeds_a, results, strict=True), key=lambda sr: sr[0])  # type: ignore[arg-type,return-value]
    return [r for _, r in ordered], [by_seed[s] for s, _ in ordered]


def _in_seed_order(results: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """``results`` ordered by training seed where every one records it (else as given)."""
    seeds = [_seed(r) for r in results]
    if None in seeds:
        return list(results)
    return [r for _, r in sorted(zip(seeds, results, strict=True), key=lambda sr: sr[0])]  # type: ignore[arg-type,return-value]


def _side(results: Sequence[dict[str, Any]], scores: np.ndarray) -> dict[str, Any]:
    """What an aggregate records of one side's runs."""
    inputs = [r.get("policy", {}).get("input") for r in results]
    return {
        "runs": len(results),
        "training_seeds": [_seed(r) for r in results],
        "training_budgets": sorted({b for b in map(budget_of, results) if b is not None}),
        "input": inputs[0] if all(i == inputs[0] for i in inputs) else inputs,
        "policies": [r["policy"]["given"] for r in results],
        "policy_sha256": [r.get("policy", {}).get("sha256") for r in results],
        "normalised_scores": scores.round(4).tolist(),
    }


def aggregate(
    results: Sequence[dict[str, Any]],
    reps: int = 2000,
    seed: int = 0,
    versus: Sequence[dict[str, Any]] | None = None,
    taus: Sequence[float] | None = None,
    pair: str = "seed",
    mixed_budgets: bool = False,
    command: Sequence[str] | None = None,
    folder: Path | None = None,
) -> dict[str, Any]:
    """Results of one policy's training seeds (one protocol result each) summed up with ``rliable``:
    the interquartile mean and the mean of the normalised cell scores, with stratified-bootstrap
    95% intervals (runs resampled within each cell), and the performance profile (the share of
    runs' cell scores above each threshold of ``taus``, by default :func:`profile_taus` of the
    data, with intervals). With ``versus`` (another policy's runs, paired with these by
    :func:`pair_runs`), the probability that a run of this policy scores above one of that policy
    on a cell chosen at random (rliable's probability of improvement) and each pair's mean
    difference. Results that do not belong together are refused (:func:`check_together`)."""
    if not results:
        raise ConfigError("aggregate needs one result per training seed, not none")
    check_together(results, mixed_budgets=mixed_budgets)
    if versus is not None:
        check_together(versus, "versus", mixed_budgets=mixed_budgets)
        for what, get in (
            ("protocol version", lambda r: r.get("protocol")),
            ("game", lambda r: r.get("game")),
            ("set of game options", lambda r: r.get("options", {})),
            ("number of games a cell", lambda r: sorted({int(c["games"]) for c in r["cells"]})),
        ):
            if json.dumps(get(results[0]), sort_keys=True) != json.dumps(get(versus[0]), sort_keys=True):
                raise ConfigError(
                    f"the two policies' runs differ in their {what}: {get(results[0])} and {get(versus[0])}"
                )
        both = [r.get("policy", {}).get("sha256") for r in (*results, *versus)]
        known = [h for h in both if h]
        if len(set(known)) < len(known):
            raise ConfigError("aggregate was given the same policy on both sides")
        results, versus = pair_runs(results, versus, pair)
    else:
        results = _in_seed_order(results)
    keys = [
        k
        for k, c in zip(_cell_keys(results[0]), results[0]["cells"], strict=True)
        if c["normalised"] is not None
    ]
    for result in (*results, *(versus or ())):
        have = set(_cell_keys(result))
        if not set(keys) <= have:
            raise ConfigError(f"result of {result['policy']['given']} lacks cells {sorted(set(keys) - have)}")
    if not keys:
        raise ConfigError("no cell of these results has a normalised score (against random or heuristic)")
    try:
        from rliable import library as rly
        from rliable import metrics
    except ImportError:
        raise ConfigError("aggregating training seeds needs rliable: pip install 'tablezoo[eval]'") from None
    scores = _scores(results, keys)
    other = _scores(versus, keys) if versus is not None else None
    tau = np.asarray(
        profile_taus(scores, *(() if other is None else (other,))) if taus is None else taus, np.float64
    )
    np.random.seed(seed)  # noqa: NPY002 (rliable's bootstrap draws from numpy's global generator)
    point, interval = rly.get_interval_estimates(
        {"policy": scores},
        lambda x: np.array([metrics.aggregate_iqm(x), metrics.aggregate_mean(x)]),
        reps=reps,
    )
    np.random.seed(seed)  # noqa: NPY002
    profiles, profile_cis = rly.create_performance_profile({"policy": scores}, tau, reps=reps)
    games = sorted({int(c["games"]) for r in results for c in r["cells"]})
    summary: dict[str, Any] = {
        "protocol": results[0]["protocol"],
        "kind": "aggregate",
        **provenance(command, folder),
        "game": results[0]["game"],
        "complete": all(bool(r.get("complete")) for r in (*results, *(versus or ()))),
        "seed_lists": results[0].get("seeds", {}).get("sha256"),
        "games_per_cell": games[0] if len(games) == 1 else games,
        **_side(results, scores),
        "cells": [f"{o}@{n}" for o, n in keys],
        "iqm": round(float(point["policy"][0]), 4),
        "iqm_95ci": [round(float(v), 4) for v in interval["policy"][:, 0]],
        "mean": round(float(point["policy"][1]), 4),
        "mean_95ci": [round(float(v), 4) for v in interval["policy"][:, 1]],
        "performance_profile": _profile(tau, profiles["policy"], profile_cis["policy"]),
    }
    if versus is not None and other is not None:
        np.random.seed(seed)  # noqa: NPY002
        p_point, p_interval = rly.get_interval_estimates(
            {"policy,versus": (scores, other)}, metrics.probability_of_improvement, reps=reps
        )
        np.random.seed(seed)  # noqa: NPY002
        other_profile, other_cis = rly.create_performance_profile({"versus": other}, tau, reps=reps)
        summary["versus"] = {
            **_side(versus, other),
            "paired_by": pair,
            "pairs": [
                {
                    "training_seeds": [_seed(r), _seed(v)],
                    "mean_difference": round(float(np.mean(s - o)), 4),
                }
                for r, v, s, o in zip(results, versus, scores, other, strict=True)
            ]
            if len(results) == len(versus)
            else None,
            "performance_profile": _profile(tau, other_profile["versus"], other_cis["versus"]),
            "probability_of_improvement": round(float(p_point["policy,versus"]), 4),
            "probability_of_improvement_95ci": [
                round(float(v), 4) for v in np.ravel(p_interval["policy,versus"])
            ],
        }
    return summary


def _profile(tau: np.ndarray, fraction: Any, cis: Any) -> dict[str, Any]:
    return {
        "tau": [float(t) for t in tau],
        "fraction": [round(float(v), 4) for v in fraction],
        "fraction_95ci": [[round(float(v), 4) for v in pair] for pair in np.asarray(cis).T],
    }


def plot_profile(summary: dict[str, Any], path: Path) -> Path:
    """The performance profile of an aggregate (and of its ``versus`` policy's, on the same
    thresholds) as a PNG: the share of runs' cell scores above each normalised score."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    for label, entry in (("policy", summary), ("versus", summary.get("versus"))):
        if entry is None:
            continue
        profile = entry["performance_profile"]
        name = f"{label}: {len(entry['policies'])} runs"
        low, high = np.asarray(profile["fraction_95ci"]).T
        ax.plot(profile["tau"], profile["fraction"], label=name)
        ax.fill_between(profile["tau"], low, high, alpha=0.2)
    ax.axvline(0, color="grey", linestyle=":", linewidth=1)
    ax.axvline(1, color="grey", linestyle="--", linewidth=1)
    ax.set_xlabel("normalised score τ (random 0, heuristic 1)")
    ax.set_ylabel("fraction of runs' cells with score > τ")
    ax.set_ylim(0, 1.02)
    ax.grid(alpha=0.3)
    ax.legend()
    ax.set_title(f"{summary['game']}: performance profile ({', '.join(summary['cells'])})", fontsize=9)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
