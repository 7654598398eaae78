"""Result files: read them (refusing what is no result, with a clear message), recompute every
figure from the stored outcomes (:func:`rescore`), join one seed's seat counts into one protocol
result (:func:`join_seat_counts`), and make the paths a result holds portable
(:func:`make_portable`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from tablezoo.evaluation.protocol import GAMES_PER_CELL, PANELS, SEATS, Cell, Ends, normalised, rounded
from tablezoo.evaluation.provenance import portable, portable_command, provenance
from tablezoo.evaluation.stats import mean_interval
from tablezoo.games.core import ConfigError


def read_results(
    paths: Sequence[str | Path], flag: str, game_name: str | None = None
) -> list[dict[str, Any]]:
    """The results in ``paths``: each once, each a result (of ``game_name``, when given), each read
    with a message that names the file and what is wrong with it, never a traceback."""
    resolved = [Path(p).resolve() for p in paths]
    if len(set(resolved)) < len(resolved):
        twice = sorted({str(p) for p in resolved if resolved.count(p) > 1})
        raise ConfigError(f"{flag} was given the same file twice: {', '.join(twice)}")
    results = []
    for path, full in zip(paths, resolved, strict=True):
        if not full.is_file():
            raise ConfigError(f"{flag} {path}: no such file" + (" (it is a folder)" if full.is_dir() else ""))
        try:
            result = json.loads(full.read_text())
        except (json.JSONDecodeError, UnicodeDecodeError) as error:
            raise ConfigError(f"{flag} {path} is not JSON ({error})") from None
        if not isinstance(result, dict) or "cells" not in result:
            raise ConfigError(f"{flag} {path} is not a result of `tablezoo benchmark GAME POLICY --out FILE`")
        if game_name is not None and result.get("game") != game_name:
            raise ConfigError(f"{flag} {path} is a result of {result.get('game')!r}, not of {game_name!r}")
        results.append(result)
    return results


def stored_references(result: dict[str, Any]) -> tuple[dict[int, Ends], float]:
    """The normalisation's ends a result was scored with."""
    refs = result.get("references")
    if refs is None:
        raise ConfigError("the result has no normalisation references (a result of format 1)")
    ends = {int(n): Ends(**e) for n, e in refs["ends"].items()}
    return ends, float(refs["min_gap"])


FIGURES = (
    "games",
    "win_share",
    "win_share_95ci",
    "mean_score",
    "mean_score_95ci",
    "normalised",
    "truncated_games",
)
"""A cell's figures that a rescore recomputes from its outcomes."""


def rescore(result: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """Every figure of a result recomputed from its per-game outcomes and its own references: the
    result as recomputed, and where the stored figures differ from it (none for a sound file)."""
    if "cells" not in result or "policy" not in result:
        raise ConfigError("--rescore takes a result of `tablezoo benchmark GAME POLICY --out FILE`")
    ends, min_gap = stored_references(result)
    game_name = result["game"]
    again = json.loads(json.dumps(result))
    differences = []
    for k, row in enumerate(result["cells"]):
        cell = Cell.from_outcomes(row, result["policy"]["name"])
        low, high = cell.interval()
        score_low, score_high = mean_interval(np.asarray(cell.scores))
        norm = normalised(game_name, cell.seats, cell.opponent, cell.win_share, ends, min_gap)
        fresh = {
            "games": cell.games,
            "win_share": round(cell.win_share, 4),
            "win_share_95ci": [round(low, 4), round(high, 4)],
            "mean_score": round(cell.mean_score, 3),
            "mean_score_95ci": [round(score_low, 3), round(score_high, 3)],
            "normalised": rounded(norm),
            "truncated_games": cell.truncated,
        }
        for key in FIGURES:
            if row.get(key) != fresh[key]:
                differences.append(
                    f"cell {k} ({cell.opponent}@{cell.seats}) {key}: {row.get(key)} != {fresh[key]}"
                )
        again["cells"][k].update(fresh)
    scored = [c["normalised"] for c in again["cells"] if c["normalised"] is not None]
    again["normalised_score"] = rounded(float(np.mean(scored))) if scored else None
    if result.get("normalised_score") != again["normalised_score"]:
        differences.append(
            f"normalised_score: {result.get('normalised_score')} != {again['normalised_score']}"
        )
    return again, differences


def join_seat_counts(
    results: Sequence[dict[str, Any]], command: Sequence[str] | None = None, folder: Path | None = None
) -> dict[str, Any]:
    """One protocol result from one training seed's results at different seat counts (a policy
    trained for each seat count, each scored at its own): their cells joined, in order of seat
    count, so :func:`aggregate` sums the seeds up over every seat count at once.

    The results must share the protocol version, game, options, panel, games a cell, policy
    input and training seed, and hold no seat count twice; anything else is refused, naming what
    differs. The joined result records every part's policy (``policy.by_seats``) and hashes them
    together (``policy.sha256``); it is ``complete`` when its seat counts, panel and games are the
    protocol's, and :func:`rescore` recomputes it as any result. Its package, git state,
    environment and ``command`` are the join's; each part's are kept in ``joined``."""
    if not results:
        raise ConfigError("join takes one result per seat count, not none")
    for what, get in (
        ("protocol version", lambda r: r.get("protocol")),
        ("game", lambda r: r.get("game")),
        ("set of game options", lambda r: r.get("options", {})),
        ("panel of opponents", lambda r: sorted({c["opponent"] for c in r["cells"]})),
        ("number of games a cell", lambda r: sorted({int(c["games"]) for c in r["cells"]})),
        ("policy input (layout and scaling)", lambda r: r.get("policy", {}).get("input")),
        ("training seed", lambda r: r.get("policy", {}).get("training_seed")),
    ):
        values = [json.dumps(get(r), sort_keys=True, default=str) for r in results]
        if len(set(values)) > 1:
            raise ConfigError(f"join takes results of one {what}, not {sorted(set(values))}")
    counts = [sorted({int(c["seats"]) for c in r["cells"]}) for r in results]
    flat = [n for seats in counts for n in seats]
    if len(set(flat)) < len(flat):
        twice = sorted({n for n in flat if flat.count(n) > 1})
        raise ConfigError(f"join was given seat count(s) {twice} more than once: one result per seat count")
    parts = sorted(zip(counts, results, strict=True), key=lambda pair: pair[0])
    first = parts[0][1]
    game_name = first["game"]
    seat_counts = [n for seats, _ in parts for n in seats]
    cells = [c for _, r in parts for c in r["cells"]]
    by_seats = {str(n): r["policy"] for seats, r in parts for n in seats}
    digest = hashlib.sha256(
        json.dumps({n: p.get("sha256") for n, p in by_seats.items()}, sort_keys=True).encode()
    ).hexdigest()
    names = list(dict.fromkeys(str(r["policy"]["name"]) for _, r in parts))
    scored = [c["normalised"] for c in cells if c["normalised"] is not None]
    opponents = list(first["opponents"]) if "opponents" in first else sorted({c["opponent"] for c in cells})
    games = int(cells[0]["games"])
    ends = {n: e for _, r in parts for n, e in r.get("references", {}).get("ends", {}).items()}
    return {
        **{k: v for k, v in first.items() if k not in ("baseline", "seconds")},
        **provenance(command, folder),
        "complete": tuple(seat_counts) == SEATS[game_name]
        and tuple(opponents) == PANELS[game_name]
        and games == GAMES_PER_CELL
        and not first.get("options"),
        "policy": {
            "name": " + ".join(names),
            "given": [r["policy"]["given"] for _, r in parts],
            "sha256": digest if all(p.get("sha256") for p in by_seats.values()) else None,
            "hashed": "the SHA-256 of each seat count's policy, together (by_seats)",
            "input": first["policy"].get("input"),
            "training_seed": first["policy"].get("training_seed"),
            "by_seats": by_seats,
        },
        "joined": [
            {k: r.get(k) for k in ("package", "git", "environment", "command", "seconds")}
            | {"seat_counts": seats}
            for seats, r in parts
        ],
        "seat_counts": seat_counts,
        "seeds": {
            **first["seeds"],
            "sha256": {k: v for _, r in parts for k, v in r["seeds"]["sha256"].items()},
        },
        "references": {**first.get("references", {}), "ends": ends},
        "normalised_score": rounded(float(np.mean(scored))) if scored else None,
        "cells": cells,
        "seconds": round(sum(float(r.get("seconds", 0.0)) for _, r in parts), 1),
    }


def make_portable(result: dict[str, Any], folder: Path | None = None) -> dict[str, Any]:
    """``result`` (a protocol result, a comparison or an aggregate) with every path it records made
    :func:`~tablezoo.evaluation.provenance.portable` to ``folder`` (the one it is written to): the
    policies given, the commands, and those of the results it was made of. Nothing else changes,
    so :func:`rescore` recomputes the same figures."""
    out = json.loads(json.dumps(result))

    def given(value: Any) -> Any:
        if isinstance(value, list):
            return [given(v) for v in value]
        if not isinstance(value, str) or value.startswith("<"):
            return value
        if folder is not None and not Path(value).is_absolute() and (folder / value).exists():
            return value  # already relative to the result's folder
        return portable(value, folder)

    def policy(record: Any) -> None:
        if isinstance(record, dict):
            if "given" in record:
                record["given"] = given(record["given"])
            for inner in record.get("by_seats", {}).values():
                policy(inner)

    def commands(entry: Any) -> None:
        if isinstance(entry, dict) and isinstance(entry.get("command"), list):
            entry["command"] = portable_command(entry["command"], folder)

    commands(out)
    policy(out.get("policy"))
    for record in out.get("policies", []) if isinstance(out.get("policies"), list) else []:
        policy(record)
    for part in out.get("joined", []):
        commands(part)
    if isinstance(out.get("policies"), list):  # an aggregate's: a path (or a list, joined) a run
        out["policies"] = [p if isinstance(p, dict) else given(p) for p in out["policies"]]
    versus = out.get("versus")
    if isinstance(versus, dict) and isinstance(versus.get("policies"), list):
        versus["policies"] = given(versus["policies"])
    baseline = out.get("baseline")
    if isinstance(baseline, dict) and isinstance(baseline.get("command"), str):
        baseline["command"] = " ".join(portable_command(baseline["command"].split(" "), folder) or [])
    return out
