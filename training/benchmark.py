"""The benchmark protocol: one fixed way to score a policy in each game, with sound statistics.

    tablezoo benchmark sechs_nimmt runs/ppo/model.zip --out results/ppo-seed0.json
    tablezoo benchmark diamant --compare runs/a/policy.npz runs/b/policy.npz
    tablezoo benchmark heckmeck --aggregate results/ppo-seed*.json

    from tablezoo.training.benchmark import evaluate
    cell = evaluate(my_policy, make("diamant", 4), opponent="heuristic", games=200)

**Protocol 1** (:data:`PROTOCOL`). A *cell* is one seat count and one opponent:
the policy takes one seat, the opponent bot (default settings) every other seat.

- **Panel:** ``random``, the heuristic, and the game's strongest non-learning bot
  (:data:`PANELS`).
- **Seat counts:** the game's smallest, 4, and its largest (:data:`SEATS`).
- **Size:** 1,000 games a cell; game ``g`` seats the policy at seat ``g mod n``.
- **Seeds:** game ``g`` of a cell plays seed ``g`` of :func:`cell_seeds` (the game, the
  seat count): the same deals and dice for every policy and every opponent.
- **Win share:** a game's credit is 1 for a win, ``1/k`` for a ``k``-way tie, ``1/n`` for a
  game stopped at the decision limit; the mean over games, with a 95% Wilson interval. The
  policy plays one seat a game, so games (not seats) are the independent samples.
- **Mean score:** the policy's final score (worms, heads taken, diamonds, ...), the mean
  over games, with a 95% Student-t interval.
- **Normalised score:** per cell against ``random`` or ``heuristic``, ``(w - r) / (h - r)``,
  where ``r`` is ``random``'s win share in that cell and ``h`` is ``heuristic``'s. One of the
  two is the fair share ``1/n`` by symmetry, the other is measured (:data:`REFERENCES`).
  0 plays like ``random``, 1 like ``heuristic``; the result's score is the mean over those
  cells. A cell where ``heuristic`` does not beat ``random`` by :data:`MIN_GAP` has none
  (Diamant at 4 and 8 seats against heuristics: a table of identical heuristics loses to
  ``random``).
- **Paired comparison:** ``--compare A B`` plays both policies on the same seeds and seats;
  per game ``credit(A) - credit(B)``, its mean with a 95% normal interval, per cell and over
  the cells (each cell weighing the same).
- **Training seeds:** ``--aggregate`` reads one result per training seed and gives the
  interquartile mean and the mean of the normalised cell scores, with stratified-bootstrap
  95% intervals, from ``rliable`` (the ``bench`` extra).

A result (JSON) carries the protocol's name and version, the package's version,
the core, the game and its options, the seed rule with a checksum of every
cell's seed list, the policy's name, what it was given as and a SHA-256 of it,
and every cell. Changing any rule above makes a new protocol version; a result
is comparable only with results of its version.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import sys
import time
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from statistics import NormalDist
from typing import Any, NamedTuple

import numpy as np

from tablezoo.bots.registry import make_bot
from tablezoo.games import GAMES, game_class, make
from tablezoo.games.core import ConfigError, Game
from tablezoo.training.evaluate import MAX_DECISIONS, PART_GAMES, ProgressBar, Standing, play_game
from tablezoo.training.policies import as_bot, policy_name
from tablezoo.training.selfplay import iter_in_order

PROTOCOL = "tablezoo-benchmark/1"
"""The protocol's name and version, in every result."""
GAMES_PER_CELL = 1000
"""Games a cell plays under the protocol."""
SEED_BASE = 20261203
"""The root of every cell's seed list (:func:`cell_seeds`)."""

PANELS: dict[str, tuple[str, ...]] = {
    "heckmeck": ("random", "heuristic", "solver"),
    "sechs_nimmt": ("random", "heuristic", "search"),
    "diamant": ("random", "heuristic", "search"),
    "court": ("random", "heuristic"),  # its heuristic (with rollouts) is its strongest bot
}
"""Each game's opponents: ``random``, the heuristic, and the strongest non-learning bot."""


def _seats(game_name: str) -> tuple[int, ...]:
    info = game_class(game_name).info
    return tuple(sorted({info.min_seats, min(max(4, info.min_seats), info.max_seats), info.max_seats}))


SEATS: dict[str, tuple[int, ...]] = {name: _seats(name) for name in GAMES}
"""Each game's seat counts: the smallest, 4 and the largest."""


class Ends(NamedTuple):
    """The two ends of a seat count's normalised score."""

    random_vs_heuristic: float
    """``random``'s win share at a table of ``heuristic`` bots."""
    heuristic_vs_random: float
    """``heuristic``'s win share at a table of ``random`` bots."""


REFERENCES: dict[str, dict[int, Ends]] = {
    "heckmeck": {
        2: Ends(0.018, 0.986),
        4: Ends(0.009, 0.919),
        7: Ends(0.007, 0.772),
    },
    "sechs_nimmt": {
        2: Ends(0.018, 0.9915),
        4: Ends(0.002, 0.855),
        10: Ends(0.001, 0.4485),
    },
    "diamant": {
        3: Ends(0.238, 0.775),
        4: Ends(0.414, 0.7045),
        8: Ends(0.9174, 0.5194),
    },
    "court": {
        2: Ends(0.0, 1.0),
        4: Ends(0.0, 1.0),
        5: Ends(0.0, 1.0),
    },
}
"""The measured ends of the normalised score, per game and seat count: ``random``'s win share
against heuristics, and ``heuristic``'s against randoms (1,000 games each, under this protocol:
``tablezoo benchmark GAME random --opponents heuristic`` and ``... heuristic --opponents random``,
native core). In Diamant at 4 and 8 seats ``random`` beats a table of heuristics (identical
bots leave and bust together, and share what they find); there the scale has no meaning."""
MIN_GAP = 0.05
"""How far apart the two ends of a cell must be for its normalised score to be defined."""


def cell_seeds(game_name: str, seats: int, games: int = GAMES_PER_CELL) -> np.ndarray:
    """The seeds of a cell's games: the same for every policy and opponent (so comparisons pair)."""
    key = zlib.crc32(game_name.encode())
    return np.random.SeedSequence((SEED_BASE, key, seats)).generate_state(games, np.uint64)


def _checksum(values: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(values).tobytes()).hexdigest()[:16]


# --------------------------------------------------------------------------- statistics


def t_quantile(p: float, dof: int) -> float:
    """Student's t quantile (Cornish-Fisher expansion of the normal one: within 1e-3 from 5 degrees
    of freedom on; the protocol's cells have hundreds)."""
    z = NormalDist().inv_cdf(p)
    v = float(dof)
    return (
        z
        + (z**3 + z) / (4 * v)
        + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * v**2)
        + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * v**3)
    )


def mean_interval(values: np.ndarray, normal: bool = False) -> tuple[float, float]:
    """95% interval of the mean of ``values`` (Student's t; the normal one with ``normal``)."""
    n = len(values)
    if n < 2:
        return (float("-inf"), float("inf"))
    quantile = NormalDist().inv_cdf(0.975) if normal else t_quantile(0.975, n - 1)
    half = quantile * float(np.std(values, ddof=1)) / math.sqrt(n)
    centre = float(np.mean(values))
    return centre - half, centre + half


@dataclass
class Cell(Standing):
    """One seat count and one opponent: the policy's credit and score in every game, in game order
    (a :class:`~tablezoo.training.evaluate.Standing` of the policy, ``name``, in that cell)."""

    opponent: str = ""
    """The bot at every other seat."""
    seats: int = 0
    """The seat count."""
    seconds: float = 0.0
    """The time the cell's games took to play."""

    @property
    def win_share(self) -> float:
        """The mean win credit over the cell's games."""
        return self.win_rate

    def summary(self, game_name: str) -> dict[str, Any]:
        """The cell as a result's row (without the per-game lists)."""
        low, high = self.interval()
        score_low, score_high = mean_interval(np.asarray(self.scores))
        row = {
            "opponent": self.opponent,
            "seats": self.seats,
            "games": self.games,
            "fair_share": round(1 / self.seats, 4),
            "win_share": round(self.win_share, 4),
            "win_share_95ci": [round(low, 4), round(high, 4)],
            "mean_score": round(self.mean_score, 3),
            "mean_score_95ci": [round(score_low, 3), round(score_high, 3)],
            "normalised": _round(normalised(game_name, self.seats, self.opponent, self.win_share)),
            "truncated_games": self.truncated,
            "seconds": round(self.seconds, 1),
        }
        return row


def _round(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


def normalised(game_name: str, seats: int, opponent: str, win_share: float) -> float | None:
    """The cell's win share on the scale random 0, heuristic 1: None against the strongest bot
    (no ends measured) and where ``heuristic`` does not beat ``random`` by :data:`MIN_GAP`."""
    ends = REFERENCES.get(game_name, {}).get(seats)
    if ends is None or opponent not in ("random", "heuristic"):
        return None
    fair = 1 / seats
    low, high = (fair, ends.heuristic_vs_random) if opponent == "random" else (ends.random_vs_heuristic, fair)
    return (win_share - low) / (high - low) if high - low >= MIN_GAP else None


# --------------------------------------------------------------------------- playing a cell


@dataclass(frozen=True)
class Job:
    """A slice of a cell, for a process of its own: the policy and the opponent given by name."""

    policy: str
    """The policy's name or path, read anew in the process (:func:`~tablezoo.training.policies.as_bot`)."""
    game_name: str
    """The game."""
    options: tuple[tuple[str, bool], ...]
    """Its options, sorted."""
    core: str | None
    """The engine that runs it."""
    seats: int
    """The cell's seat count."""
    opponent: str
    """The bot at every other seat."""
    first: int
    """The number of the slice's first game in the cell."""
    games: int
    """The slice's games."""
    reading: tuple[str, bool | None] = ("auto", None)
    """The policy's observation layout and scaling (``as_bot``'s ``observation`` and ``scaled``)."""


def play_cell(
    policy: Any,
    game: Game[Any],
    opponent: str,
    games: int = GAMES_PER_CELL,
    first: int = 0,
    name: str | None = None,
    observation: str = "auto",
    scaled: bool | None = None,
) -> Cell:
    """Games ``first`` to ``first + games - 1`` of the cell (``game``'s seat count, ``opponent``)."""
    n = game.num_seats
    bot = as_bot(policy, game, name, observation, scaled)  # type: ignore[arg-type]
    opponents = [make_bot(opponent, game) for _ in range(n - 1)]
    seeds = cell_seeds(game.info.name, n, first + games)
    cell = Cell(bot.name, opponent=opponent, seats=n)
    start = time.perf_counter()
    for g in range(first, first + games):
        seat = g % n
        bots = [*opponents[:seat], bot, *opponents[seat:]]
        winners, scores = play_game(game, bots, int(seeds[g]), MAX_DECISIONS)
        cell.record(seat, winners, n, float(scores[seat]))
    cell.seconds = time.perf_counter() - start
    return cell


def _run_job(job: Job) -> Cell:
    game = make(job.game_name, job.seats, core=job.core, **dict(job.options))
    observation, scaled = job.reading
    return play_cell(job.policy, game, job.opponent, job.games, job.first, None, observation, scaled)


def _join(cells: Sequence[Cell]) -> Cell:
    joined = Cell(cells[0].name, opponent=cells[0].opponent, seats=cells[0].seats)
    for cell in cells:
        joined.credits += cell.credits
        joined.scores += cell.scores
        joined.truncated += cell.truncated
        joined.seconds += cell.seconds
    return joined


def evaluate(
    policy: Any,
    game: Game[Any],
    opponent: str = "heuristic",
    games: int = GAMES_PER_CELL,
    jobs: int = 1,
    progress: bool = False,
    observation: str = "auto",
    scaled: bool | None = None,
) -> Cell:
    """Score ``policy`` (anything :func:`~tablezoo.training.policies.as_bot` reads) in one cell.

    The policy plays one seat of ``game`` (its seat count and options), ``opponent`` every
    other; seats rotate and seeds follow the protocol. ``jobs`` > 1 shares the games among
    processes (a policy given by name or path only); the result does not depend on it.
    """
    return play_cells(policy, game, [opponent], games, jobs, progress, observation, scaled)[0]


def play_cells(
    policy: Any,
    game: Game[Any],
    opponents: Sequence[str],
    games: int = GAMES_PER_CELL,
    jobs: int = 1,
    progress: bool = False,
    observation: str = "auto",
    scaled: bool | None = None,
) -> list[Cell]:
    """:func:`evaluate` against each of ``opponents`` at ``game``'s seat count.

    The games are played in parts of at most :data:`~tablezoo.training.evaluate.PART_GAMES`
    (shared among ``jobs`` processes where the policy is given by name or path), which a
    progress bar on standard error counts when ``progress`` is set and it is a terminal.
    """
    bot = as_bot(policy, game, None, observation, scaled)  # type: ignore[arg-type]  # a misfit fails now
    by_name = isinstance(policy, (str, Path))
    chunk = max(1, min(PART_GAMES, -(-games // max(1, 4 * jobs))))
    work = [
        Job(
            str(policy),
            game.info.name,
            tuple(sorted(game.options.items())),
            game.core,
            game.num_seats,
            o,
            f,
            min(chunk, games - f),
            (observation, scaled),
        )
        for o in opponents
        for f in range(0, games, chunk)
    ]
    if jobs > 1 and by_name:
        played = iter_in_order(_run_job, work, min(jobs, len(work)))
    else:
        played = (play_cell(bot, game, j.opponent, j.games, j.first) for j in work)
    bar = ProgressBar(games * len(opponents), sys.stderr) if progress and sys.stderr.isatty() else None
    parts, done = [], 0
    for job, part in zip(work, played, strict=True):
        parts.append(part)
        done += job.games
        if bar is not None:
            bar(done)
    return [_join([p for p, j in zip(parts, work, strict=True) if j.opponent == o]) for o in opponents]


# --------------------------------------------------------------------------- results


def policy_hash(policy: Any) -> str | None:
    """SHA-256 of what a policy was given as: a file's bytes, a folder's files, a bot name with
    the package's version, a torch module's weights (None for a callable: hash it yourself)."""
    digest = hashlib.sha256()
    if isinstance(policy, (str, Path)):
        path = Path(str(policy).partition(":")[0])
        if path.is_file():
            digest.update(path.read_bytes())
        elif path.is_dir():
            for item in sorted(p for p in path.rglob("*") if p.is_file()):
                digest.update(str(item.relative_to(path)).encode() + item.read_bytes())
        else:
            digest.update(f"{policy}@{_version()}".encode())
        return digest.hexdigest()
    state_dict = getattr(getattr(policy, "policy", policy), "state_dict", None)
    if callable(state_dict):
        for key, value in state_dict().items():
            digest.update(key.encode() + value.detach().cpu().numpy().tobytes())
        return digest.hexdigest()
    return None


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("tablezoo")
    except PackageNotFoundError:
        return "unknown"


def run_protocol(
    policy: Any,
    game_name: str,
    seats: Sequence[int] | None = None,
    opponents: Sequence[str] | None = None,
    games: int = GAMES_PER_CELL,
    jobs: int = 1,
    core: str | None = None,
    progress: bool = False,
    observation: str = "auto",
    scaled: bool | None = None,
    options: dict[str, bool] | None = None,
) -> dict[str, Any]:
    """The protocol's result for ``policy`` in ``game_name`` (a JSON-ready dict).

    ``seats``, ``opponents`` and ``games`` default to the protocol's; a result with other
    values says so (``"complete": false``) and is not a protocol score.
    """
    if game_name not in GAMES:
        raise ConfigError(f"no game {game_name!r}; games are: {', '.join(GAMES)}")
    seat_counts = list(seats or SEATS[game_name])
    panel = list(opponents or PANELS[game_name])
    cells: list[Cell] = []
    started = time.perf_counter()
    game: Game[Any] | None = None
    for n in seat_counts:
        game = make(game_name, n, core=core, **(options or {}))
        cells += play_cells(policy, game, panel, games, jobs, progress, observation, scaled)
    assert game is not None
    rows = [cell.summary(game_name) for cell in cells]
    scored = [r["normalised"] for r in rows if r["normalised"] is not None]
    complete = (
        tuple(seat_counts) == SEATS[game_name]
        and tuple(panel) == PANELS[game_name]
        and games == GAMES_PER_CELL
    )
    return {
        "protocol": PROTOCOL,
        "complete": complete and not options,
        "package": _version(),
        "core": game.core,
        "game": game_name,
        "options": dict(options or {}),
        "policy": {"name": policy_name(policy), "given": str(policy), "sha256": policy_hash(policy)},
        "seeds": {
            "rule": "numpy.random.SeedSequence((base, crc32(game), seats)).generate_state(games, uint64)",
            "base": SEED_BASE,
            "sha256": {str(n): _checksum(cell_seeds(game_name, n, games)) for n in seat_counts},
        },
        "normalised_score": _round(float(np.mean(scored))) if scored else None,
        "cells": rows,
        "seconds": round(time.perf_counter() - started, 1),
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
) -> dict[str, Any]:
    """``a`` and ``b`` on the same seeds and seats: the paired difference of win credit per game,
    per cell and over the cells (each cell weighs the same), with 95% intervals."""
    rows, errors = [], []
    for n in seats or SEATS[game_name]:
        game = make(game_name, n, core=core, **(options or {}))
        panel = list(opponents or PANELS[game_name])
        cells_a = play_cells(a, game, panel, games, jobs, progress)
        cells_b = play_cells(b, game, panel, games, jobs, progress)
        for cell_a, cell_b in zip(cells_a, cells_b, strict=True):
            diff = np.asarray(cell_a.credits) - np.asarray(cell_b.credits)
            errors.append(float(np.std(diff, ddof=1)) / math.sqrt(len(diff)) if len(diff) > 1 else math.inf)
            low, high = mean_interval(diff, normal=True)
            rows.append(
                {
                    "opponent": cell_a.opponent,
                    "seats": n,
                    "games": len(diff),
                    "win_share": [round(cell_a.win_share, 4), round(cell_b.win_share, 4)],
                    "difference": round(float(np.mean(diff)), 4),
                    "difference_95ci": [round(low, 4), round(high, 4)],
                }
            )
    mean = float(np.mean([r["difference"] for r in rows]))
    se = math.sqrt(sum(e * e for e in errors)) / len(rows)
    return {
        "protocol": PROTOCOL,
        "package": _version(),
        "game": game_name,
        "options": dict(options or {}),
        "policies": [{"name": policy_name(p), "given": str(p), "sha256": policy_hash(p)} for p in (a, b)],
        "difference": round(mean, 4),
        "difference_95ci": [round(mean - 1.96 * se, 4), round(mean + 1.96 * se, 4)],
        "cells": rows,
    }


def aggregate(results: Sequence[dict[str, Any]], reps: int = 2000, seed: int = 0) -> dict[str, Any]:
    """Results of one policy's training seeds (one protocol result each) summed up with ``rliable``:
    the interquartile mean and the mean of the normalised cell scores, with stratified-bootstrap
    95% intervals (runs resampled within each cell), and the median win share per cell."""
    if not results:
        raise ConfigError("aggregate needs one result per training seed, not none")
    versions = {r.get("protocol") for r in results}
    games = {r.get("game") for r in results}
    if len(versions) != 1 or len(games) != 1:
        raise ConfigError(
            f"aggregate takes results of one protocol and one game, not {sorted(map(str, versions | games))}"
        )
    keys = [(c["opponent"], c["seats"]) for c in results[0]["cells"] if c["normalised"] is not None]
    for result in results:
        have = {(c["opponent"], c["seats"]) for c in result["cells"]}
        if not set(keys) <= have:
            raise ConfigError(f"result of {result['policy']['given']} lacks cells {sorted(set(keys) - have)}")
    if not keys:
        raise ConfigError("no cell of these results has a normalised score (against random or heuristic)")
    try:
        from rliable import library as rly
        from rliable import metrics
    except ImportError:
        raise ConfigError("aggregating training seeds needs rliable: pip install 'tablezoo[bench]'") from None
    scores = np.array(
        [
            [next(c["normalised"] for c in r["cells"] if (c["opponent"], c["seats"]) == k) for k in keys]
            for r in results
        ]
    )
    np.random.seed(seed)  # noqa: NPY002 (rliable's bootstrap draws from numpy's global generator)
    point, interval = rly.get_interval_estimates(
        {"policy": scores},
        lambda x: np.array([metrics.aggregate_iqm(x), metrics.aggregate_mean(x)]),
        reps=reps,
    )
    return {
        "protocol": results[0]["protocol"],
        "game": results[0]["game"],
        "runs": len(results),
        "policies": [r["policy"]["given"] for r in results],
        "cells": [f"{o}@{n}" for o, n in keys],
        "iqm": round(float(point["policy"][0]), 4),
        "iqm_95ci": [round(float(v), 4) for v in interval["policy"][:, 0]],
        "mean": round(float(point["policy"][1]), 4),
        "mean_95ci": [round(float(v), 4) for v in interval["policy"][:, 1]],
        "normalised_scores": scores.round(4).tolist(),
    }


# --------------------------------------------------------------------------- the command


def format_result(result: dict[str, Any]) -> str:
    """A result as a text table: one row a cell."""
    lines = [
        f"{result['game']} · {result['policy']['name']} · {result['protocol']}"
        + ("" if result["complete"] else " (not the full protocol)"),
        f"{'seats':>5}  {'opponent':<12} {'games':>6}  {'win share':>9}  {'95% interval':<16} "
        f"{'fair':>5}  {'mean score':>10}  {'normalised':>10}",
    ]
    for c in result["cells"]:
        low, high = c["win_share_95ci"]
        norm = "" if c["normalised"] is None else f"{c['normalised']:.3f}"
        lines.append(
            f"{c['seats']:>5}  {c['opponent']:<12} {c['games']:>6}  {c['win_share']:>9.3f}  "
            f"[{low:.3f}, {high:.3f}]   {c['fair_share']:>5.3f}  {c['mean_score']:>10.2f}  {norm:>10}"
        )
    if result["normalised_score"] is not None:
        lines.append(f"normalised score (random 0, heuristic 1): {result['normalised_score']:.3f}")
    return "\n".join(lines)


def format_comparison(result: dict[str, Any]) -> str:
    """A paired comparison as a text table."""
    a, b = (p["name"] for p in result["policies"])
    lines = [f"{result['game']} · {a} - {b} (win share, paired on the same deals)"]
    for c in result["cells"]:
        low, high = c["difference_95ci"]
        lines.append(
            f"{c['seats']:>3} seats vs {c['opponent']:<10} {c['win_share'][0]:.3f} - {c['win_share'][1]:.3f}"
            f" = {c['difference']:+.3f} [{low:+.3f}, {high:+.3f}]"
        )
    low, high = result["difference_95ci"]
    lines.append(f"over the cells: {result['difference']:+.3f} [{low:+.3f}, {high:+.3f}]")
    return "\n".join(lines)


def cmd_benchmark(args: argparse.Namespace) -> None:
    """``tablezoo benchmark``: run the protocol, a paired comparison, or an aggregate."""
    options = {name: True for name in args.option}
    common: dict[str, Any] = {
        "seats": args.players,
        "opponents": args.opponents,
        "games": args.games,
        "jobs": args.jobs,
        "core": args.core,
        "progress": True,
    }
    if args.aggregate:
        result = aggregate([json.loads(Path(p).read_text()) for p in args.aggregate])
        text = (
            f"{result['game']} · {result['runs']} runs · IQM {result['iqm']:.3f} {result['iqm_95ci']} · "
            f"mean {result['mean']:.3f} {result['mean_95ci']}"
        )
    elif args.compare:
        a, b = args.compare
        result = compare(a, b, args.game, **common, options=options)
        text = format_comparison(result)
    elif args.policy:
        reading = {"observation": args.observation, "scaled": args.scaled}
        result = run_protocol(args.policy, args.game, **common, **reading, options=options)
        text = format_result(result)
    else:
        raise ConfigError("benchmark needs a POLICY, --compare A B, or --aggregate RESULT ...")
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1) if args.json else text)


def add_benchmark_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``benchmark`` to the ``tablezoo`` command's subparsers."""
    p = subparsers.add_parser(
        "benchmark",
        help="score a policy by the benchmark protocol, compare two, or aggregate training seeds",
        description=f"Score a policy by {PROTOCOL}: against random, the heuristic and the game's strongest "
        "bot, at the smallest, 4 and the largest seat count, 1,000 games a cell on fixed seeds.",
    )
    p.add_argument("game", choices=list(GAMES), help="the game")
    p.add_argument(
        "policy",
        nargs="?",
        help="a bot name, a .npz, an SB3 .zip, an RLlib checkpoint folder or an .onnx file",
    )
    p.add_argument("--compare", nargs=2, metavar=("A", "B"), help="two policies on the same deals and seats")
    p.add_argument(
        "--aggregate", nargs="+", metavar="RESULT", help="results (JSON) of one policy's training seeds"
    )
    p.add_argument(
        "--players", type=int, nargs="+", default=None, help="seat counts (default: the protocol's)"
    )
    p.add_argument(
        "--opponents", nargs="+", default=None, help="opponent bots (default: the protocol's panel)"
    )
    p.add_argument("--games", type=int, default=GAMES_PER_CELL, help="games a cell (default: the protocol's)")
    p.add_argument("--jobs", type=int, default=1, help="processes to share the games among")
    p.add_argument(
        "--core", choices=["python", "native"], default=None, help="the engine (default: native if built)"
    )
    p.add_argument("--option", action="append", default=[], help="switch on a game option")
    p.add_argument(
        "--observation",
        choices=["auto", "plain", "padded"],
        default="auto",
        help="the layout the policy reads",
    )
    p.add_argument("--scaled", action="store_true", default=None, help="feed observations scaled into 0..1")
    p.add_argument("--out", default=None, help="also write the result (JSON) to this file")
    p.add_argument("--json", action="store_true", help="print the result as JSON instead of a table")
    p.set_defaults(func=cmd_benchmark)
    return p
