"""Paired comparisons of two policies on the same deals: played (:func:`compare`) or read from two
stored results (:func:`compare_results`).

Game ``g`` of a cell deals and rolls the same for every policy and seats it at ``g mod n``, so two
policies' credits in game ``g`` pair: per game ``credit(A) - credit(B)``, its mean with a 95%
normal interval, per cell and over the cells (each cell weighing the same). Each policy reads
its own input (its declaration, or the reading the caller gives for it: ``readings``). Two stored
results pair when their cells were dealt from the same seed lists (the checksums they record) and
played as many games; anything else is refused, naming what differs.

A comparison records what made it (package, commit, versions, command), its games a cell and
whether it is the full protocol (``complete``), as a result does.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from tablezoo.evaluation.policies import as_bot
from tablezoo.evaluation.progress import ProgressBar
from tablezoo.evaluation.protocol import (
    FORMAT,
    GAMES_PER_CELL,
    PANELS,
    PROTOCOL,
    SEATS,
    SEED_BASE,
    Cell,
    cell_seeds,
    check_counts,
    checksum,
    play_cells,
)
from tablezoo.evaluation.provenance import policy_record, provenance
from tablezoo.evaluation.stats import mean_interval, mean_of_means, standard_error
from tablezoo.games import make
from tablezoo.games.core import ConfigError

Readings = tuple[tuple[str, bool | None], tuple[str, bool | None]]
"""Each policy's observation layout and scaling, where it does not declare them."""


def _paired_row(cell_a: Cell, cell_b: Cell) -> tuple[dict[str, Any], float]:
    """One cell of a comparison and the standard error of its mean difference."""
    diff = np.asarray(cell_a.credits) - np.asarray(cell_b.credits)
    low, high = mean_interval(diff, normal=True)
    row = {
        "opponent": cell_a.opponent,
        "seats": cell_a.seats,
        "games": len(diff),
        "win_share": [round(cell_a.win_share, 4), round(cell_b.win_share, 4)],
        "difference": round(float(np.mean(diff)), 4),
        "difference_95ci": [round(low, 4), round(high, 4)],
        "outcomes": [cell_a.outcomes(), cell_b.outcomes()],
    }
    return row, standard_error(diff)


def _summary(
    rows: list[dict[str, Any]], errors: list[float], head: dict[str, Any], complete: bool
) -> dict[str, Any]:
    mean, (low, high) = mean_of_means([r["difference"] for r in rows], errors)
    games = sorted({int(r["games"]) for r in rows})
    return {
        "protocol": PROTOCOL,
        "format": FORMAT,
        "kind": "comparison",
        **head,
        "games_per_cell": games[0] if len(games) == 1 else games,
        "complete": complete,
        "difference": round(mean, 4),
        "difference_95ci": [round(low, 4), round(high, 4)],
        "cells": rows,
    }


def compare(
    a: Any,
    b: Any,
    game_name: str,
    seats: Sequence[int] | None = None,
    opponents: Sequence[str] | None = None,
    games: int = GAMES_PER_CELL,
    jobs: int = 1,
    core: str | None = None,
    progress: bool = False,
    options: dict[str, bool] | None = None,
    observation: str = "auto",
    scaled: bool | None = None,
    names: tuple[str | None, str | None] = (None, None),
    command: Sequence[str] | None = None,
    readings: Readings | None = None,
    folder: Path | None = None,
) -> dict[str, Any]:
    """``a`` and ``b`` on the same seeds and seats: the paired difference of win credit per game,
    per cell and over the cells (each cell weighs the same), with 95% intervals. ``readings`` gives
    each policy's layout and scaling where it does not declare them (by default ``observation``
    and ``scaled`` for both)."""
    check_counts(games, jobs)
    seat_counts = list(seats or SEATS[game_name])
    panel = list(opponents or PANELS[game_name])
    both = readings or ((observation, scaled), (observation, scaled))
    first = make(game_name, seat_counts[0], core=core, **(options or {}))
    records = [
        policy_record(p, game_name, as_bot(p, first, nm, *reading), nm, folder=folder)
        for p, nm, reading in zip((a, b), names, both, strict=True)
    ]
    made = provenance(command, folder)
    bar = ProgressBar(2 * len(seat_counts) * len(panel) * games, sys.stderr, label=f"compare {game_name}")
    if progress:
        bar(0)
    rows, errors = [], []
    for n in seat_counts:
        game = make(game_name, n, core=core, **(options or {}))
        played = [
            play_cells(p, game, panel, games, jobs, bar if progress else False, *reading, nm)
            for p, nm, reading in zip((a, b), names, both, strict=True)
        ]
        for cell_a, cell_b in zip(*played, strict=True):
            row, error = _paired_row(cell_a, cell_b)
            rows.append(row)
            errors.append(error)
    complete = (
        tuple(seat_counts) == SEATS[game_name]
        and tuple(panel) == PANELS[game_name]
        and games == GAMES_PER_CELL
        and not options
    )
    head = {
        **made,
        "core": first.core,
        "game": game_name,
        "options": dict(options or {}),
        "policies": records,
        "seat_counts": seat_counts,
        "opponents": panel,
        "seeds": {
            "base": SEED_BASE,
            "sha256": {str(n): checksum(cell_seeds(game_name, n, games)) for n in seat_counts},
        },
    }
    return _summary(rows, errors, head, complete)


def _cells_by_key(result: dict[str, Any]) -> dict[tuple[str, int], dict[str, Any]]:
    return {(c["opponent"], int(c["seats"])): c for c in result["cells"]}


def compare_results(
    a: dict[str, Any],
    b: dict[str, Any],
    command: Sequence[str] | None = None,
    folder: Path | None = None,
) -> dict[str, Any]:
    """Two stored protocol results paired game by game on the deals they share: every cell both hold
    (the same opponent and seat count), refused unless both were played by one protocol version,
    game and options, on the same seed lists (their checksums) and as many games."""
    for what, get in (
        ("protocol version", lambda r: r.get("protocol")),
        ("game", lambda r: r.get("game")),
        ("set of game options", lambda r: r.get("options", {})),
        ("seed base", lambda r: r.get("seeds", {}).get("base")),
    ):
        if get(a) != get(b):
            raise ConfigError(f"the two results differ in their {what}: {get(a)!r} and {get(b)!r}")
    cells_a, cells_b = _cells_by_key(a), _cells_by_key(b)
    shared = [k for k in cells_a if k in cells_b]
    if not shared:
        raise ConfigError("the two results share no cell (the same opponent at the same seat count)")
    sums_a, sums_b = a.get("seeds", {}).get("sha256", {}), b.get("seeds", {}).get("sha256", {})
    rows, errors = [], []
    for key in shared:
        ca, cb = cells_a[key], cells_b[key]
        seats = str(key[1])
        if int(ca["games"]) != int(cb["games"]):
            raise ConfigError(
                f"the cells vs {key[0]} at {key[1]} seats played {ca['games']} and {cb['games']} games: "
                "different deals"
            )
        if sums_a.get(seats) is None or sums_a.get(seats) != sums_b.get(seats):
            raise ConfigError(
                f"the two results were dealt from different seed lists at {key[1]} seats "
                f"({sums_a.get(seats)} and {sums_b.get(seats)}): their games do not pair"
            )
        row, error = _paired_row(
            Cell.from_outcomes(ca, a["policy"]["name"]), Cell.from_outcomes(cb, b["policy"]["name"])
        )
        rows.append(row)
        errors.append(error)
    seat_counts = sorted({k[1] for k in shared})
    panel = list(dict.fromkeys(k[0] for k in shared))
    complete = (
        bool(a.get("complete")) and bool(b.get("complete")) and len(shared) == len(cells_a) == len(cells_b)
    )
    head = {
        **provenance(command, folder),
        "core": [a.get("core"), b.get("core")],
        "game": a["game"],
        "options": a.get("options", {}),
        "policies": [a["policy"], b["policy"]],
        "from_results": [
            {k: r.get(k) for k in ("package", "git", "command", "complete", "games_per_cell")} for r in (a, b)
        ],
        "seat_counts": seat_counts,
        "opponents": panel,
        "seeds": {
            "base": a.get("seeds", {}).get("base"),
            "sha256": {str(n): sums_a[str(n)] for n in seat_counts},
        },
    }
    return _summary(rows, errors, head, complete)
