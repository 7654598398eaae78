"""The benchmark protocol: one fixed way to score a policy in each game, with sound statistics.

    tablezoo benchmark sechs_nimmt runs/ppo/model.zip --out results/ppo-seed0.json
    tablezoo benchmark diamant --compare runs/a/policy.npz runs/b/policy.npz
    tablezoo benchmark heckmeck --aggregate results/ppo-seed*.json --versus results/dqn-seed*.json
    tablezoo benchmark heckmeck --rescore results/ppo-seed0.json
    tablezoo benchmark heckmeck --join results/ppo-2p-seed0.json results/ppo-4p-seed0.json \
        results/ppo-7p-seed0.json --out results/ppo-seed0.json

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
  95% intervals, and the performance profile (``--plot``); with ``--versus`` another
  policy's results, the probability of improvement; from ``rliable`` (the ``bench`` extra).
  It refuses results that do not belong together (:func:`check_together`).
- **One policy per seat count:** ``--join`` makes one seed's results at each seat count
  (a policy trained and scored at each) one protocol result (:func:`join_seat_counts`), which
  ``--aggregate`` then sums up over every seat count at once.

**What the policy reads** is declared by the policy or told by the caller, never guessed
(:mod:`tablezoo.training.policies`); the result records it.

A result (JSON, :data:`FORMAT` 2) carries the protocol's name and version, the package's
version, the git commit of the checkout it ran from, Python's and the libraries' versions,
the command line, the core, the game and its options, the seed rule with a checksum of every
cell's seed list, the normalisation references it used, the policy's name, what it was given
as, a SHA-256 of its weights (:func:`policy_hash`), what it read and its training seed, and
every cell with every game's outcome: :func:`rescore` (``--rescore FILE``) recomputes every
figure from them. Changing any rule above makes a new protocol version; a result is
comparable only with results of its version.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import platform
import subprocess
import sys
import time
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from statistics import NormalDist
from typing import Any, NamedTuple

import numpy as np

from tablezoo.bots.registry import agent_path, make_bot
from tablezoo.games import GAMES, game_class, make
from tablezoo.games.core import ConfigError, Game
from tablezoo.training.cli_args import reading_args
from tablezoo.training.evaluate import MAX_DECISIONS, PART_GAMES, ProgressBar, Standing, play_game
from tablezoo.training.policies import Reading, as_bot, policy_name
from tablezoo.training.selfplay import iter_in_order

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
            "normalised": _round(norm),
            "truncated_games": self.truncated,
            "seconds": round(self.seconds, 1),
            "outcomes": self.outcomes(),
        }


def _round(value: float | None, digits: int = 4) -> float | None:
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
    bot = as_bot(policy, game, name, observation, scaled)
    opponents = [make_bot(opponent, game) for _ in range(n - 1)]
    seeds = cell_seeds(game.info.name, n, first + games)
    cell = Cell(bot.name, opponent=opponent, seats=n)
    start = time.perf_counter()
    for g in range(first, first + games):
        seat = g % n
        bots = [*opponents[:seat], bot, *opponents[seat:]]
        winners, scores = play_game(game, bots, int(seeds[g]), MAX_DECISIONS)
        cell.record(seat, winners, n, float(scores[seat]))
        if winners is None:
            cell.stopped.append(g)
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
        joined.stopped += cell.stopped
        joined.seconds += cell.seconds
    return joined


def reading_of(bot: Any) -> dict[str, Any]:
    """What a bot reads, as a result records it: a policy's :class:`~tablezoo.training.policies.Reading`,
    or a bot's own reading of its seat."""
    reading = getattr(bot, "reading", None)
    if isinstance(reading, Reading):
        return reading.as_dict()
    return {"observation": "its own", "scaled": None, "declared_by": "a bot: it reads its seat itself"}


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
    """Score ``policy`` (anything :func:`~tablezoo.training.policies.as_bot` reads) in one cell.

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

    The games are played in parts of at most :data:`~tablezoo.training.evaluate.PART_GAMES`
    (shared among ``jobs`` processes where the policy is given by name or path). ``progress``
    counts them on standard error (True: a bar on a terminal, log lines elsewhere; or a
    :class:`~tablezoo.training.evaluate.ProgressBar` that a longer run shares).
    """
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


# --------------------------------------------------------------------------- what a result records


def _plain_callable(policy: Any) -> bool:
    """Whether ``policy`` is a callable that is no bot, name, file, torch module or SB3 model."""
    if isinstance(policy, (str, Path)) or hasattr(policy, "act"):
        return False
    if hasattr(policy, "state_dict") or hasattr(getattr(policy, "policy", None), "state_dict"):
        return False
    return callable(policy)


def policy_hash(policy: Any, game_name: str | None = None) -> str | None:
    """SHA-256 of a policy's weights: a file's bytes, a folder's files, the shipped agent's file
    (``agent``, with its options, in ``game_name``), a torch module's or an SB3 model's weights;
    a bot without weights, its name and the package's version. None for a callable (a result
    names it instead)."""
    digest = hashlib.sha256()
    if isinstance(policy, (str, Path)):
        text = str(policy)
        path = Path(text.partition(":")[0])
        if path.is_file():
            digest.update(path.read_bytes())
        elif path.is_dir():
            for item in sorted(p for p in path.rglob("*") if p.is_file()):
                digest.update(str(item.relative_to(path)).encode() + item.read_bytes())
        elif text.partition(":")[0] == "agent" and game_name and agent_path(game_name).is_file():
            digest.update(agent_path(game_name).read_bytes() + text.encode())
        else:
            digest.update(f"{policy}@{_version()}".encode())
        return digest.hexdigest()
    state_dict = getattr(getattr(policy, "policy", policy), "state_dict", None)
    if callable(state_dict):
        for key, value in state_dict().items():
            digest.update(key.encode() + value.detach().cpu().numpy().tobytes())
        return digest.hexdigest()
    return None


def _hashed(policy: Any, game_name: str) -> str:
    """What :func:`policy_hash` hashed, in words."""
    if isinstance(policy, (str, Path)):
        text = str(policy)
        path = Path(text.partition(":")[0])
        if path.is_file():
            return "the file"
        if path.is_dir():
            return "the folder's files"
        if text.partition(":")[0] == "agent" and agent_path(game_name).is_file():
            return f"the shipped agent's weights ({agent_path(game_name).name}) and its options"
        return "the bot's name and the package's version (it has no weights)"
    if _plain_callable(policy):
        return "nothing: a callable, identified by its name"
    if policy_hash(policy) is None:
        return "nothing: a bot object, identified by its name (give its name or file to hash it)"
    return "the weights (state dict)"


def policy_record(
    policy: Any, game_name: str, bot: Any, name: str | None = None, training_seed: int | None = None
) -> dict[str, Any]:
    """A policy as a result records it: its name, what it was given as, a hash of its weights,
    what was hashed, what it reads and (if told) the training seed it came from."""
    if _plain_callable(policy) and not (name or getattr(policy, "name", None)):
        raise ConfigError(
            "a callable has no weights to hash: give it a name that identifies it "
            "(run_protocol(..., name='my-policy-v3'), or a .name attribute)"
        )
    given = str(policy) if isinstance(policy, (str, Path)) else f"<{type(policy).__name__}>"
    return {
        "name": name or policy_name(policy),
        "given": given,
        "sha256": policy_hash(policy, game_name),
        "hashed": _hashed(policy, game_name),
        "input": reading_of(bot),
        "training_seed": training_seed,
    }


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("tablezoo")
    except PackageNotFoundError:
        return "unknown"


LIBRARIES = ("numpy", "gymnasium", "pettingzoo", "torch", "onnxruntime", "stable-baselines3", "sb3-contrib")
"""The libraries whose versions a result records (None where not installed)."""


def environment() -> dict[str, Any]:
    """Python's and the libraries' versions and the machine's platform."""
    from importlib.metadata import PackageNotFoundError, version

    libraries: dict[str, str | None] = {}
    for dist in LIBRARIES:
        try:
            libraries[dist] = version(dist)
        except PackageNotFoundError:
            libraries[dist] = None
    return {
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "platform": platform.platform(),
        "machine": platform.machine(),
        "libraries": libraries,
    }


def git_state(where: Path | None = None) -> dict[str, Any] | None:
    """The commit of the checkout the package runs from, and whether tracked files differ from it
    (None when it is not run from a git checkout)."""
    here = where or Path(__file__).resolve().parent
    try:
        head = subprocess.run(
            ["git", "-C", str(here), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=20
        )
        if head.returncode != 0:
            return None
        status = subprocess.run(
            ["git", "-C", str(here), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            timeout=60,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return {"commit": head.stdout.strip(), "dirty": bool(status.stdout.strip())}


def _references(game_name: str, seat_counts: Sequence[int]) -> dict[str, Any]:
    """The normalisation's ends a result is scored with (so a rescore uses the same)."""
    ends = REFERENCES.get(game_name, {})
    return {
        "min_gap": MIN_GAP,
        "ends": {str(n): ends[n]._asdict() for n in seat_counts if n in ends},
    }


def _stored_references(result: dict[str, Any]) -> tuple[dict[int, Ends], float]:
    refs = result.get("references")
    if refs is None:
        raise ConfigError("the result has no normalisation references (a result of format 1)")
    ends = {int(n): Ends(**e) for n, e in refs["ends"].items()}
    return ends, float(refs["min_gap"])


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
) -> dict[str, Any]:
    """The protocol's result for ``policy`` in ``game_name`` (a JSON-ready dict).

    ``seats``, ``opponents`` and ``games`` default to the protocol's; a result with other
    values says so (``"complete": false``) and is not a protocol score. ``name`` names the
    policy (a callable needs one); ``training_seed`` and ``command`` are recorded as given.
    """
    if game_name not in GAMES:
        raise ConfigError(f"no game {game_name!r}; games are: {', '.join(GAMES)}")
    seat_counts = list(seats or SEATS[game_name])
    panel = list(opponents or PANELS[game_name])
    first = make(game_name, seat_counts[0], core=core, **(options or {}))
    record = policy_record(
        policy, game_name, as_bot(policy, first, name, observation, scaled), name, training_seed
    )
    git, env = git_state(), environment()  # the code and libraries as the run starts
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
        "package": _version(),
        "git": git,
        "environment": env,
        "command": list(command) if command is not None else None,
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
            "sha256": {str(n): _checksum(cell_seeds(game_name, n, games)) for n in seat_counts},
        },
        "references": _references(game_name, seat_counts),
        "normalised_score": _round(float(np.mean(scored))) if scored else None,
        "cells": rows,
        "seconds": round(time.perf_counter() - started, 1),
    }


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
    ends, min_gap = _stored_references(result)
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
            "normalised": _round(norm),
            "truncated_games": cell.truncated,
        }
        for key in FIGURES:
            if row.get(key) != fresh[key]:
                differences.append(
                    f"cell {k} ({cell.opponent}@{cell.seats}) {key}: {row.get(key)} != {fresh[key]}"
                )
        again["cells"][k].update(fresh)
    scored = [c["normalised"] for c in again["cells"] if c["normalised"] is not None]
    again["normalised_score"] = _round(float(np.mean(scored))) if scored else None
    if result.get("normalised_score") != again["normalised_score"]:
        differences.append(
            f"normalised_score: {result.get('normalised_score')} != {again['normalised_score']}"
        )
    return again, differences


def join_seat_counts(
    results: Sequence[dict[str, Any]], command: Sequence[str] | None = None
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
        "package": _version(),
        "git": git_state(),
        "environment": environment(),
        "command": list(command) if command is not None else None,
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
        "normalised_score": _round(float(np.mean(scored))) if scored else None,
        "cells": cells,
        "seconds": round(sum(float(r.get("seconds", 0.0)) for _, r in parts), 1),
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
) -> dict[str, Any]:
    """``a`` and ``b`` on the same seeds and seats: the paired difference of win credit per game,
    per cell and over the cells (each cell weighs the same), with 95% intervals. ``observation``
    and ``scaled`` are as for :func:`run_protocol`, for each policy that does not declare them."""
    seat_counts = list(seats or SEATS[game_name])
    panel = list(opponents or PANELS[game_name])
    first = make(game_name, seat_counts[0], core=core, **(options or {}))
    records = [
        policy_record(p, game_name, as_bot(p, first, nm, observation, scaled), nm)
        for p, nm in zip((a, b), names, strict=True)
    ]
    bar = ProgressBar(2 * len(seat_counts) * len(panel) * games, sys.stderr, label=f"compare {game_name}")
    if progress:
        bar(0)
    rows, errors = [], []
    for n in seat_counts:
        game = make(game_name, n, core=core, **(options or {}))
        played = [
            play_cells(p, game, panel, games, jobs, bar if progress else False, observation, scaled, nm)
            for p, nm in zip((a, b), names, strict=True)
        ]
        for cell_a, cell_b in zip(*played, strict=True):
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
                    "outcomes": [cell_a.outcomes(), cell_b.outcomes()],
                }
            )
    mean = float(np.mean([r["difference"] for r in rows]))
    se = math.sqrt(sum(e * e for e in errors)) / len(rows)
    return {
        "protocol": PROTOCOL,
        "format": FORMAT,
        "package": _version(),
        "git": git_state(),
        "environment": environment(),
        "command": list(command) if command is not None else None,
        "core": first.core,
        "game": game_name,
        "options": dict(options or {}),
        "policies": records,
        "seat_counts": seat_counts,
        "opponents": panel,
        "games_per_cell": games,
        "seeds": {
            "base": SEED_BASE,
            "sha256": {str(n): _checksum(cell_seeds(game_name, n, games)) for n in seat_counts},
        },
        "difference": round(mean, 4),
        "difference_95ci": [round(mean - 1.96 * se, 4), round(mean + 1.96 * se, 4)],
        "cells": rows,
    }


# --------------------------------------------------------------------------- over training seeds


def _cell_keys(result: dict[str, Any]) -> list[tuple[str, int]]:
    return [(c["opponent"], int(c["seats"])) for c in result["cells"]]


def _same(results: Sequence[dict[str, Any]], what: str, get: Any) -> None:
    """Refuse ``results`` unless ``get(result)`` is one value for all of them."""
    values = [json.dumps(get(r), sort_keys=True, default=str) for r in results]
    if len(set(values)) > 1:
        raise ConfigError(f"aggregate takes results of one {what}, not {sorted(set(values))}")


def check_together(results: Sequence[dict[str, Any]], label: str = "") -> None:
    """Refuse results that do not belong in one aggregate: fewer than two, of other protocol
    versions, games, options, seat counts, opponents, games per cell or inputs, or the same
    result, policy (weights) or training seed twice."""
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


TAUS = tuple(round(t, 2) for t in np.linspace(-0.5, 1.5, 41))
"""The thresholds of a performance profile: normalised scores from -0.5 to 1.5 by 0.05."""


def aggregate(
    results: Sequence[dict[str, Any]],
    reps: int = 2000,
    seed: int = 0,
    versus: Sequence[dict[str, Any]] | None = None,
    taus: Sequence[float] = TAUS,
) -> dict[str, Any]:
    """Results of one policy's training seeds (one protocol result each) summed up with ``rliable``:
    the interquartile mean and the mean of the normalised cell scores, with stratified-bootstrap
    95% intervals (runs resampled within each cell), the performance profile (the share of
    runs' cell scores above each threshold, with intervals) and the median win share per cell.
    With ``versus`` (another policy's runs), the probability that a run of this policy scores
    above one of that policy on a cell chosen at random (rliable's probability of improvement).
    Results that do not belong together are refused (:func:`check_together`)."""
    if not results:
        raise ConfigError("aggregate needs one result per training seed, not none")
    check_together(results)
    if versus is not None:
        check_together(versus, "versus")
        check_together([results[0], versus[0]], "the two policies")
        both = [r.get("policy", {}).get("sha256") for r in (*results, *versus)]
        known = [h for h in both if h]
        if len(set(known)) < len(known):
            raise ConfigError("aggregate was given the same policy on both sides")
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
        raise ConfigError("aggregating training seeds needs rliable: pip install 'tablezoo[bench]'") from None
    scores = _scores(results, keys)
    np.random.seed(seed)  # noqa: NPY002 (rliable's bootstrap draws from numpy's global generator)
    point, interval = rly.get_interval_estimates(
        {"policy": scores},
        lambda x: np.array([metrics.aggregate_iqm(x), metrics.aggregate_mean(x)]),
        reps=reps,
    )
    tau = np.asarray(taus, dtype=np.float64)
    np.random.seed(seed)  # noqa: NPY002
    profiles, profile_cis = rly.create_performance_profile({"policy": scores}, tau, reps=reps)
    summary: dict[str, Any] = {
        "protocol": results[0]["protocol"],
        "game": results[0]["game"],
        "runs": len(results),
        "training_seeds": [r.get("policy", {}).get("training_seed") for r in results],
        "seed_lists": results[0].get("seeds", {}).get("sha256"),
        "games_per_cell": int(results[0]["cells"][0]["games"]),
        "input": results[0].get("policy", {}).get("input"),
        "policies": [r["policy"]["given"] for r in results],
        "cells": [f"{o}@{n}" for o, n in keys],
        "iqm": round(float(point["policy"][0]), 4),
        "iqm_95ci": [round(float(v), 4) for v in interval["policy"][:, 0]],
        "mean": round(float(point["policy"][1]), 4),
        "mean_95ci": [round(float(v), 4) for v in interval["policy"][:, 1]],
        "normalised_scores": scores.round(4).tolist(),
        "performance_profile": {
            "tau": [float(t) for t in tau],
            "fraction": [round(float(v), 4) for v in profiles["policy"]],
            "fraction_95ci": [
                [round(float(v), 4) for v in pair] for pair in np.asarray(profile_cis["policy"]).T
            ],
        },
    }
    if versus is not None:
        other = _scores(versus, keys)
        np.random.seed(seed)  # noqa: NPY002
        p_point, p_interval = rly.get_interval_estimates(
            {"policy,versus": (scores, other)}, metrics.probability_of_improvement, reps=reps
        )
        summary["versus"] = {
            "runs": len(versus),
            "policies": [r["policy"]["given"] for r in versus],
            "training_seeds": [r.get("policy", {}).get("training_seed") for r in versus],
            "normalised_scores": other.round(4).tolist(),
            "probability_of_improvement": round(float(p_point["policy,versus"]), 4),
            "probability_of_improvement_95ci": [
                round(float(v), 4) for v in np.ravel(p_interval["policy,versus"])
            ],
        }
    return summary


def plot_profile(summary: dict[str, Any], path: Path, versus: dict[str, Any] | None = None) -> Path:
    """The performance profile of an aggregate (and of the ``versus`` policy's, an aggregate of
    its own runs) as a PNG: the share of runs' cell scores above each normalised score."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    for label, entry in (("policy", summary), ("versus", versus)):
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


# --------------------------------------------------------------------------- the command


def format_result(result: dict[str, Any]) -> str:
    """A result as a text table: one row a cell."""
    reading = result["policy"].get("input") or {}
    said = (
        f"reads the {reading['observation']} observation {'scaled' if reading['scaled'] else 'raw'} "
        f"(declared by {reading['declared_by']})"
        if reading.get("scaled") is not None
        else "a bot: reads its seat itself"
    )
    lines = [
        f"{result['game']} · {result['policy']['name']} · {result['protocol']}"
        + ("" if result["complete"] else " (not the full protocol)"),
        f"policy {said}",
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


def format_aggregate(result: dict[str, Any]) -> str:
    """An aggregate as text."""
    seeds = [s for s in result["training_seeds"] if s is not None]
    lines = [
        f"{result['game']} · {result['runs']} runs"
        + (f" (training seeds {', '.join(map(str, seeds))})" if seeds else " (training seeds not recorded)")
        + f" · {result['games_per_cell']} games a cell on the protocol's seed lists"
        + f" · cells {', '.join(result['cells'])}",
        f"IQM {result['iqm']:.3f} {result['iqm_95ci']} · mean {result['mean']:.3f} {result['mean_95ci']}",
    ]
    if "versus" in result:
        v = result["versus"]
        lines.append(
            f"probability of improvement over the {v['runs']} runs given with --versus: "
            f"{v['probability_of_improvement']:.3f} {v['probability_of_improvement_95ci']}"
        )
    return "\n".join(lines)


def _read_results(paths: Sequence[str], flag: str, game_name: str) -> list[dict[str, Any]]:
    """The results in ``paths``: each once, each of ``game_name`` (the command's game)."""
    resolved = [Path(p).resolve() for p in paths]
    if len(set(resolved)) < len(resolved):
        twice = sorted({str(p) for p in resolved if resolved.count(p) > 1})
        raise ConfigError(f"{flag} was given the same file twice: {', '.join(twice)}")
    results = [json.loads(p.read_text()) for p in resolved]
    for path, result in zip(paths, results, strict=True):
        if not isinstance(result, dict) or "cells" not in result:
            raise ConfigError(f"{flag} {path} is not a result of `tablezoo benchmark GAME POLICY --out FILE`")
        if result.get("game") != game_name:
            raise ConfigError(f"{flag} {path} is a result of {result.get('game')!r}, not of {game_name!r}")
    return results


def cmd_benchmark(args: argparse.Namespace) -> None:
    """``tablezoo benchmark``: run the protocol, a paired comparison, an aggregate or a rescore."""
    options = {name: True for name in args.option}
    command = getattr(args, "command_line", None)
    common: dict[str, Any] = {
        "seats": args.players,
        "opponents": args.opponents,
        "games": args.games,
        "jobs": args.jobs,
        "core": args.core,
        "progress": True,
        "observation": args.observation,
        "scaled": args.scaled,
        "options": options,
        "command": command,
    }
    if args.rescore:
        (stored,) = _read_results([args.rescore], "--rescore", args.game)
        result, differences = rescore(stored)
        text = (
            format_result(result)
            + "\n"
            + (
                "every figure matches the stored outcomes"
                if not differences
                else "figures that differ from the stored outcomes:\n  " + "\n  ".join(differences)
            )
        )
        if differences:
            print(text)
            raise ConfigError(f"{args.rescore}: {len(differences)} figure(s) differ from the stored outcomes")
    elif args.join:
        parts = _read_results(args.join, "--join", args.game)
        for part in parts:
            _check_reading_flags(part, args)
        result = join_seat_counts(parts, command)
        text = format_result(result)
    elif args.aggregate:
        runs = _read_results(args.aggregate, "--aggregate", args.game)
        versus = _read_results(args.versus, "--versus", args.game) if args.versus else None
        if versus and {Path(p).resolve() for p in args.aggregate} & {Path(p).resolve() for p in args.versus}:
            raise ConfigError("--aggregate and --versus were given the same file")
        for run in (*runs, *(versus or ())):
            _check_reading_flags(run, args)
        result = aggregate(runs, versus=versus)
        if args.plot:
            other = aggregate(versus) if versus else None
            plot_profile(result, Path(args.plot), other)
        text = format_aggregate(result)
    elif args.compare:
        a, b = args.compare
        result = compare(a, b, args.game, **common)
        text = format_comparison(result)
    elif args.policy:
        result = run_protocol(args.policy, args.game, **common, training_seed=args.training_seed)
        text = format_result(result)
    else:
        raise ConfigError(
            "benchmark needs a POLICY, --compare A B, --aggregate RESULT ..., --join RESULT ... "
            "or --rescore RESULT"
        )
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
    print(json.dumps(result, indent=1) if args.json else text)


def _check_reading_flags(result: dict[str, Any], args: argparse.Namespace) -> None:
    """With ``--aggregate``, ``--observation`` and ``--scaled``/``--raw`` (if given) must be what
    every result's policy read."""
    reading = result.get("policy", {}).get("input") or {}
    if args.observation != "auto" and reading.get("observation") != args.observation:
        raise ConfigError(
            f"{result['policy']['given']} read the {reading.get('observation')} observation, "
            f"not --observation {args.observation}"
        )
    if args.scaled is not None and reading.get("scaled") != args.scaled:
        raise ConfigError(
            f"{result['policy']['given']} read the observation "
            f"{'scaled' if reading.get('scaled') else 'raw'}, not {'--scaled' if args.scaled else '--raw'}"
        )


def add_benchmark_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``benchmark`` to the ``tablezoo`` command's subparsers."""
    p = subparsers.add_parser(
        "benchmark",
        help="score a policy by the benchmark protocol, compare two, aggregate training seeds, "
        "join seat counts or rescore",
        description=f"Score a policy by {PROTOCOL}: against random, the heuristic and the game's strongest "
        "bot, at the smallest, 4 and the largest seat count, 1,000 games a cell on fixed seeds.",
    )
    p.add_argument("game", choices=list(GAMES), help="the game")
    p.add_argument(
        "policy",
        nargs="?",
        help="a bot name, a .npz, an SB3 .zip, a torch .pt, an RLlib checkpoint folder or an .onnx file",
    )
    p.add_argument("--compare", nargs=2, metavar=("A", "B"), help="two policies on the same deals and seats")
    p.add_argument(
        "--aggregate", nargs="+", metavar="RESULT", help="results (JSON) of one policy's training seeds"
    )
    p.add_argument(
        "--versus",
        nargs="+",
        metavar="RESULT",
        help="with --aggregate: another policy's results, for the probability of improvement",
    )
    p.add_argument("--plot", default=None, help="with --aggregate: the performance profile as a PNG")
    p.add_argument("--rescore", metavar="RESULT", help="recompute every figure of a result from its outcomes")
    p.add_argument(
        "--join",
        nargs="+",
        metavar="RESULT",
        help="one training seed's results at different seat counts, as one protocol result (with --out)",
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
    reading_args(p)
    p.add_argument(
        "--training-seed", type=int, default=None, help="the seed the policy was trained with (recorded)"
    )
    p.add_argument("--out", default=None, help="also write the result (JSON) to this file")
    p.add_argument("--json", action="store_true", help="print the result as JSON instead of a table")
    p.set_defaults(func=cmd_benchmark)
    return p
