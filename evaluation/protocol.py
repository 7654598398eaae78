"""The benchmark protocol: one fixed way to score a policy in each game, with sound statistics.

    tablezoo benchmark sechs_nimmt runs/ppo/model.zip --out results/ppo-seed0.json
    tablezoo benchmark diamant --compare runs/a/policy.npz runs/b/policy.npz
    tablezoo benchmark heckmeck --aggregate results/ppo-seed*.json --versus results/dqn-seed*.json
    tablezoo benchmark heckmeck --rescore results/ppo-seed0.json
    tablezoo benchmark heckmeck --join results/ppo-2p-seed0.json results/ppo-4p-seed0.json \
        results/ppo-7p-seed0.json --out results/ppo-seed0.json

    from tablezoo.evaluation.protocol import evaluate
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
- **Paired comparison:** ``--compare A B`` plays both policies on the same seeds and seats, or
  pairs two stored results game by game (:mod:`tablezoo.evaluation.compare`).
- **Training seeds:** ``--aggregate`` sums one result per training seed up, with ``--versus``
  against another policy's (:mod:`tablezoo.evaluation.aggregate`).
- **One policy per seat count:** ``--join`` makes one seed's results at each seat count
  one protocol result (:func:`~tablezoo.evaluation.results.join_seat_counts`).

**What the policy reads** is declared by the policy or told by the caller, never guessed
(:mod:`tablezoo.evaluation.reading`); the result records it.

A result (JSON, :data:`FORMAT` 2) carries the protocol's name and version, the package's
version, the git commit of the checkout it ran from, Python's and the libraries' versions,
the command line, the core, the game and its options, the seed rule with a checksum of every
cell's seed list, the normalisation references it used, the policy's name, what it was given
as, a SHA-256 of its weights (:func:`~tablezoo.evaluation.provenance.policy_hash`), what it
read and its training seed, and every cell with every game's outcome:
:func:`~tablezoo.evaluation.results.rescore` (``--rescore FILE``) recomputes every figure from
them. Changing any rule above makes a new protocol version; a result is comparable only with
results of its version.
"""

from __future__ import annotations

import hashlib
import sys
import time
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

from tablezoo.bots.registry import make_bot
from tablezoo.evaluation.play import MAX_DECISIONS, iter_in_order, one_thread
from tablezoo.evaluation.policies import as_bot
from tablezoo.evaluation.progress import ProgressBar
from tablezoo.evaluation.provenance import policy_record, provenance, reading_of
from tablezoo.evaluation.stats import mean_interval
from tablezoo.evaluation.tournament import PART_GAMES, Standing, play_game
from tablezoo.games import GAMES, game_class, make
from tablezoo.games.core import ConfigError, Game

PROTOCOL = "tablezoo-benchmark/1"
"""The protocol's name and version, in every result."""
FORMAT = 2
"""The layout of a result file (2: the environment, the policy's input, every game's outcome)."""
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


def check_counts(games: int, jobs: int = 1) -> None:
    """Refuse a number of games a cell or of processes below 1, naming it."""
    if not isinstance(games, (int, np.integer)) or games < 1:
        raise ConfigError(f"--games is the number of games a cell, at least 1, not {games}")
    if not isinstance(jobs, (int, np.integer)) or jobs < 1:
        raise ConfigError(f"--jobs is the number of processes, at least 1, not {jobs}")


def checksum(values: np.ndarray) -> str:
    return hashlib.sha256(np.ascontiguousarray(values).tobytes()).hexdigest()[:16]


@dataclass
class Cell(Standing):
    """One seat count and one opponent: the policy's credit and score in every game, in game order
    (a :class:`~tablezoo.evaluation.tournament.Standing` of the policy, ``name``, in that cell)."""

    opponent: str = ""
    """The bot at every other seat."""
    seats: int = 0
    """The seat count."""
    seconds: float = 0.0
    """The time the cell's games took to play."""
    stopped: list[int] = field(default_factory=list)
    """The numbers (in the cell) of the games stopped at the decision limit."""

    @property
    def win_share(self) -> float:
        """The mean win credit over the cell's games."""
        return self.win_rate

    def outcomes(self) -> dict[str, Any]:
        """Every game's outcome, in game order (game ``g`` seats the policy at ``g mod n``): its
        win credit, its score, and which games were stopped at the decision limit."""
        return {
            "credit": [round(c, 6) for c in self.credits],
            "score": [round(x, 6) for x in self.scores],
            "stopped": list(self.stopped),
        }

    @classmethod
    def from_outcomes(cls, row: dict[str, Any], name: str = "policy") -> Cell:
        """A cell again from a result's row (its ``outcomes``)."""
        outcomes = row.get("outcomes")
        if outcomes is None:
            raise ConfigError(
                f"the cell vs {row.get('opponent')} at {row.get('seats')} seats has no per-game outcomes "
                f"(a result of format 1): run the benchmark again"
            )
        cell = cls(name, opponent=row["opponent"], seats=int(row["seats"]), seconds=row.get("seconds", 0.0))
        cell.credits = [float(c) for c in outcomes["credit"]]
        cell.scores = [float(x) for x in outcomes["score"]]
        cell.stopped = [int(g) for g in outcomes["stopped"]]
        cell.truncated = len(cell.stopped)
        return cell

    def summary(self, game_name: str, references: dict[int, Ends] | None = None) -> dict[str, Any]:
        """The cell as a result's row, with every game's outcome (:meth:`outcomes`)."""
        low, high = self.interval()
        score_low, score_high = mean_interval(np.asarray(self.scores))
        norm = normalised(game_name, self.seats, self.opponent, self.win_share, references)
        return {
            "opponent": self.opponent,
            "seats": self.seats,
            "games": self.games,
            "fair_share": round(1 / self.seats, 4),
            "win_share": round(self.win_share, 4),
            "win_share_95ci": [round(low, 4), round(high, 4)],
            "mean_score": round(self.mean_score, 3),
            "mean_score_95ci": [round(score_low, 3), round(score_high, 3)],
            "normalised": rounded(norm),
            "truncated_games": self.truncated,
            "seconds": round(self.seconds, 1),
            "outcomes": self.outcomes(),
        }


def rounded(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


def normalised(
    game_name: str,
    seats: int,
    opponent: str,
    win_share: float,
    references: dict[int, Ends] | None = None,
    min_gap: float = MIN_GAP,
) -> float | None:
    """The cell's win share on the scale random 0, heuristic 1: None against the strongest bot
    (no ends measured) and where ``heuristic`` does not beat ``random`` by :data:`MIN_GAP`.
    ``references`` are the game's ends by seat count (default: :data:`REFERENCES`)."""
    ends = (REFERENCES.get(game_name, {}) if references is None else references).get(seats)
    if ends is None or opponent not in ("random", "heuristic"):
        return None
    fair = 1 / seats
    low, high = (fair, ends.heuristic_vs_random) if opponent == "random" else (ends.random_vs_heuristic, fair)
    return (win_share - low) / (high - low) if high - low >= min_gap else None


# --------------------------------------------------------------------------- playing a cell


@dataclass(frozen=True)
class Job:
    """A slice of a cell, for a process of its own: the policy and the opponent given by name."""

    policy: str
    """The policy's name or path, read anew in the process (:func:`~tablezoo.evaluation.policies.as_bot`)."""
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
    bot = as_bot(policy, game, name, observation, scaled)
    opponents = [make_bot(opponent, game) for _ in range(n - 1)]
    seeds = cell_seeds(game.info.name, n, first + games)
    cell = Cell(bot.name, opponent=opponent, seats=n)
    start = time.perf_counter()
    with one_thread():
        for g in range(first, first + games):
            seat = g % n
            bots = [*opponents[:seat], bot, *opponents[seat:]]
            winners, scores = play_game(game, bots, int(seeds[g]), MAX_DECISIONS)
            cell.record(seat, winners, n, float(scores[seat]))
            if winners is None:
                cell.stopped.append(g)
    cell.seconds = time.perf_counter() - start
    return cell


_LOADED: dict[tuple[Any, ...], tuple[Game[Any], Any]] = {}


def _run_job(job: Job) -> Cell:
    """A job in a worker: the policy is read once per process and cell configuration, then kept."""
    key = (job.policy, job.game_name, job.options, job.core, job.seats, job.reading)
    if key not in _LOADED:
        game = make(job.game_name, job.seats, core=job.core, **dict(job.options))
        _LOADED.clear()  # one policy at a time: a worker moves on to the next cell
        _LOADED[key] = (game, as_bot(job.policy, game, None, *job.reading))
    game, bot = _LOADED[key]
    return play_cell(bot, game, job.opponent, job.games, job.first)


def _join(cells: Sequence[Cell]) -> Cell:
    joined = Cell(cells[0].name, opponent=cells[0].opponent, seats=cells[0].seats)
    for cell in cells:
        joined.credits += cell.credits
        joined.scores += cell.scores
        joined.truncated += cell.truncated
        joined.stopped += cell.stopped
        joined.seconds += cell.seconds
    return joined


def evaluate(
    policy: Any,
    game: Game[Any],
    opponent: str = "heuristic",
    games: int = GAMES_PER_CELL,
    jobs: int = 1,
    progress: bool | ProgressBar = False,
    observation: str = "auto",
    scaled: bool | None = None,
    name: str | None = None,
) -> Cell:
    """Score ``policy`` (anything :func:`~tablezoo.evaluation.policies.as_bot` reads) in one cell.

    The policy plays one seat of ``game`` (its seat count and options), ``opponent`` every
    other; seats rotate and seeds follow the protocol. ``jobs`` > 1 shares the games among
    processes (a policy given by name or path only); the result does not depend on it. A
    policy that does not declare what it reads needs ``observation`` and ``scaled``.
    """
    return play_cells(policy, game, [opponent], games, jobs, progress, observation, scaled, name)[0]


def play_cells(
    policy: Any,
    game: Game[Any],
    opponents: Sequence[str],
    games: int = GAMES_PER_CELL,
    jobs: int = 1,
    progress: bool | ProgressBar = False,
    observation: str = "auto",
    scaled: bool | None = None,
    name: str | None = None,
) -> list[Cell]:
    """:func:`evaluate` against each of ``opponents`` at ``game``'s seat count.

    The games are played in parts of at most :data:`~tablezoo.evaluation.tournament.PART_GAMES`
    (shared among ``jobs`` processes where the policy is given by name or path). ``progress``
    counts them on standard error (True: a bar on a terminal, log lines elsewhere; or a
    :class:`~tablezoo.evaluation.progress.ProgressBar` that a longer run shares).
    """
    check_counts(games, jobs)
    bot = as_bot(policy, game, name, observation, scaled)  # a misfit fails now
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
    bar = progress if isinstance(progress, ProgressBar) else None
    if progress is True:
        bar = ProgressBar(games * len(opponents), sys.stderr, label=f"benchmark {game.info.name}")
        bar(0)
    parts = []
    for job, part in zip(work, played, strict=True):
        parts.append(part)
        if bar is not None:
            bar.advance(job.games)
    cells = [_join([p for p, j in zip(parts, work, strict=True) if j.opponent == o]) for o in opponents]
    for cell in cells:
        cell.name = bot.name
    return cells


def references(game_name: str, seat_counts: Sequence[int]) -> dict[str, Any]:
    """The normalisation's ends a result is scored with (so a rescore uses the same)."""
    ends = REFERENCES.get(game_name, {})
    return {
        "min_gap": MIN_GAP,
        "ends": {str(n): ends[n]._asdict() for n in seat_counts if n in ends},
    }


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
    name: str | None = None,
    training_seed: int | None = None,
    command: Sequence[str] | None = None,
    folder: Path | None = None,
    training_budget: int | None = None,
) -> dict[str, Any]:
    """The protocol's result for ``policy`` in ``game_name`` (a JSON-ready dict).

    ``seats``, ``opponents`` and ``games`` default to the protocol's; a result with other
    values says so (``"complete": false``) and is not a protocol score. ``name`` names the
    policy (a callable needs one); ``training_seed``, ``training_budget`` (the decisions it was
    trained on) and ``command`` are recorded as given; paths are recorded relative to
    ``folder``, the folder the result is written to (:func:`~tablezoo.evaluation.provenance.portable`).
    """
    if game_name not in GAMES:
        raise ConfigError(f"no game {game_name!r}; games are: {', '.join(GAMES)}")
    check_counts(games, jobs)
    seat_counts = list(seats or SEATS[game_name])
    panel = list(opponents or PANELS[game_name])
    first = make(game_name, seat_counts[0], core=core, **(options or {}))
    bot = as_bot(policy, first, name, observation, scaled)
    record = policy_record(policy, game_name, bot, name, training_seed, folder, training_budget)
    made = provenance(command, folder)  # the code and libraries as the run starts
    cells: list[Cell] = []
    started = time.perf_counter()
    bar = ProgressBar(len(seat_counts) * len(panel) * games, sys.stderr, label=f"benchmark {game_name}")
    if progress:
        bar(0)
    game: Game[Any] = first
    readings = []
    for n in seat_counts:
        game = make(game_name, n, core=core, **(options or {}))
        readings.append(reading_of(as_bot(policy, game, name, observation, scaled)))
        cells += play_cells(
            policy, game, panel, games, jobs, bar if progress else False, observation, scaled, name
        )
    if any(r != readings[0] for r in readings):
        record["input"] = {"by_seats": dict(zip(map(str, seat_counts), readings, strict=True))}
    rows = [cell.summary(game_name) for cell in cells]
    scored = [r["normalised"] for r in rows if r["normalised"] is not None]
    complete = (
        tuple(seat_counts) == SEATS[game_name]
        and tuple(panel) == PANELS[game_name]
        and games == GAMES_PER_CELL
    )
    return {
        "protocol": PROTOCOL,
        "format": FORMAT,
        "complete": complete and not options,
        **made,
        "core": game.core,
        "game": game_name,
        "options": dict(options or {}),
        "policy": record,
        "seat_counts": seat_counts,
        "opponents": panel,
        "games_per_cell": games,
        "seeds": {
            "rule": "numpy.random.SeedSequence((base, crc32(game), seats)).generate_state(games, uint64)",
            "base": SEED_BASE,
            "sha256": {str(n): checksum(cell_seeds(game_name, n, games)) for n in seat_counts},
        },
        "references": references(game_name, seat_counts),
        "normalised_score": rounded(float(np.mean(scored))) if scored else None,
        "cells": rows,
        "seconds": round(time.perf_counter() - started, 1),
    }
